/* harness/gpu_handles.c - the registry of cached library handles (see gpu_handles.h). */
#include "gpu_handles.h"

#include <string.h>

#define MAX_KINDS 16

static struct {
    const char *name;
    gpu_handle_release_fn release;
} kinds[MAX_KINDS];
static int nkinds;

int gpu_handles_register(const char *name, gpu_handle_release_fn f)
{
    for (int i = 0; i < nkinds; i++)
        if (strcmp(kinds[i].name, name) == 0) return 0;
    if (nkinds == MAX_KINDS) return -1;
    kinds[nkinds].name = name;
    kinds[nkinds].release = f;
    nkinds++;
    return 0;
}

void gpu_handles_release_all(void)
{
    for (int i = 0; i < nkinds; i++) kinds[i].release();
}

int gpu_handles_count(void) { return nkinds; }
