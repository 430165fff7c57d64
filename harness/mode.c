/* harness/mode.c - every mode by name (mode.h), over the mode tables. */
#include "mode.h"
#include "dp_mode.h"
#include "gpu_alloc.h"
#include "gpu_mode.h"

#include <stdio.h>
#include <string.h>

#define HOST_COLOUR "#606060"

mode_kind mode_kind_of(const char *name)
{
    size_t base;
    char own[64];
    if (strcmp(name, MODE_HOST) == 0) return MODE_KIND_HOST;
    if (gpu_mode_find(name)) return MODE_KIND_GPU;
    /* a GPU mode under another allocator (`resident+per-step`, gpu_alloc.h) */
    if (gpu_alloc_of_mode(name, &base) && base < sizeof own) {
        memcpy(own, name, base);
        own[base] = '\0';
        if (gpu_mode_find(own)) return MODE_KIND_GPU;
    }
    const dp_mode *dp = dp_mode_find(name);
    if (dp) return dp->workers ? MODE_KIND_WORKERS : MODE_KIND_DP;
    return MODE_KIND_OTHER;
}

int mode_is_primary(const char *name)
{
    const gpu_mode *g = gpu_mode_find(name);
    return strcmp(name, MODE_HOST) == 0 || (g && g->primary);
}

const char *mode_at_rank(int i)
{
    if (i == 0) return MODE_HOST;
    for (int m = 0; GPU_MODES[m].name; m++)
        if (m + 1 == i) return GPU_MODES[m].name;
    return NULL;
}

int mode_rank(const char *name)
{
    for (int i = 0; mode_at_rank(i); i++)
        if (strcmp(mode_at_rank(i), name) == 0) return i;
    return 99;
}

void mode_palette(char *out, size_t cap)
{
    size_t u = (size_t)snprintf(out, cap, "%s", HOST_COLOUR);
    for (int m = 0; GPU_MODES[m].name && u < cap; m++)
        u += (size_t)snprintf(out + u, cap - u, " %s", GPU_MODES[m].colour);
}
