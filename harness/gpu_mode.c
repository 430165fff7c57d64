/* harness/gpu_mode.c - the table of GPU execution modes (see gpu_modes.h). */
#include "gpu_mode.h"

#include <stddef.h>
#include <string.h>

const gpu_mode GPU_MODES[] = {
    {"resident", GPU_RESIDENT, 1},
    {"sync-pageable", GPU_SYNC_PAGEABLE, 1},
    {"sync-pinned", GPU_SYNC_PINNED, 1},
    {"async-pageable", GPU_ASYNC_PAGEABLE, 1},
    {"async-pinned", GPU_ASYNC_PINNED, 1},
    {"streams-2", GPU_STREAMS, 2},
    {"streams-4", GPU_STREAMS, 4},
    {"streams-8", GPU_STREAMS, 8},
    {"prefetch-2", GPU_PREFETCH, 2},
    {NULL, GPU_RESIDENT, 0},
};

const gpu_mode *gpu_mode_find(const char *name)
{
    for (int i = 0; GPU_MODES[i].name; i++)
        if (strcmp(GPU_MODES[i].name, name) == 0) return &GPU_MODES[i];
    return NULL;
}


int gpu_mode_applies(const gpu_mode *m, int steps)
{
    if (m->kind == GPU_STREAMS) return steps == 0;
    if (m->kind == GPU_PREFETCH) return steps != 0;
    return 1;
}
