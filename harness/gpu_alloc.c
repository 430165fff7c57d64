/* harness/gpu_alloc.c - the table of device allocator kinds (gpu_alloc.h says
 * what each does; gpu_pool.c runs them). */
#include "gpu_alloc.h"

#include <stdio.h>
#include <string.h>

const gpu_alloc GPU_ALLOCS[] = {
    {.name = "cached", .kind = GPU_ALLOC_CACHED,
     .doc = "a caching pool like PyTorch's: blocks reused step after step (the default)"},
    {.name = "per-step", .kind = GPU_ALLOC_PER_STEP,
     .doc = "cudaMalloc and cudaFree of the step's buffers every step"},
    {.name = "async-pool", .kind = GPU_ALLOC_ASYNC_POOL,
     .doc = "cudaMallocFromPoolAsync / cudaFreeAsync on the step's stream"},
    {.name = NULL},
};

const gpu_alloc *gpu_alloc_find(const char *name)
{
    for (int i = 0; GPU_ALLOCS[i].name; i++)
        if (strcmp(GPU_ALLOCS[i].name, name) == 0) return &GPU_ALLOCS[i];
    return NULL;
}

void gpu_alloc_mode_name(const char *mode, const gpu_alloc *a, char *out, size_t cap)
{
    if (!a || a == &GPU_ALLOCS[0]) snprintf(out, cap, "%s", mode);
    else snprintf(out, cap, "%s%c%s", mode, GPU_ALLOC_SEP, a->name);
}

const gpu_alloc *gpu_alloc_of_mode(const char *mode, size_t *baselen)
{
    const char *sep = strchr(mode, GPU_ALLOC_SEP);
    const gpu_alloc *a = sep && sep > mode ? gpu_alloc_find(sep + 1) : NULL;
    if (baselen) *baselen = a ? (size_t)(sep - mode) : strlen(mode);
    return a;
}
