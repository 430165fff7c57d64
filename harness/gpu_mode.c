/* harness/gpu_mode.c - the table of GPU execution modes (gpu_modes.c says what each times). */
#include "gpu_mode.h"

#include <stddef.h>
#include <string.h>

const gpu_mode GPU_MODES[] = {
    {.name = "resident", .kind = GPU_RESIDENT, .nstreams = 1, .primary = 1, .colour = "#0072B2"},
    {.name = "sync-pageable", .kind = GPU_SYNC_PAGEABLE, .nstreams = 1, .colour = "#F0A860"},
    {.name = "sync-pinned", .kind = GPU_SYNC_PINNED, .nstreams = 1, .pinned = 1,
     .colour = "#D55E00"},
    {.name = "async-pageable", .kind = GPU_ASYNC_PAGEABLE, .nstreams = 1, .colour = "#8FD3B0"},
    {.name = "async-pinned", .kind = GPU_ASYNC_PINNED, .nstreams = 1, .pinned = 1,
     .colour = "#009E73"},
    {.name = "streams-2", .kind = GPU_STREAMS, .nstreams = 2, .pinned = 1,
     .work = GPU_WORK_SPLIT, .colour = "#E3A6CC"},
    {.name = "streams-4", .kind = GPU_STREAMS, .nstreams = 4, .pinned = 1,
     .work = GPU_WORK_SPLIT, .colour = "#CC79A7"},
    {.name = "streams-8", .kind = GPU_STREAMS, .nstreams = 8, .pinned = 1,
     .work = GPU_WORK_SPLIT, .colour = "#7B3F6A"},
    {.name = "prefetch-2", .kind = GPU_PREFETCH, .nstreams = 2, .pinned = 1,
     .work = GPU_WORK_STEPS, .colour = "#56B4E9"},
    {.name = NULL},
};

const gpu_mode *gpu_mode_find(const char *name)
{
    for (int i = 0; GPU_MODES[i].name; i++)
        if (strcmp(GPU_MODES[i].name, name) == 0) return &GPU_MODES[i];
    return NULL;
}


int gpu_mode_applies(const gpu_mode *m, int steps)
{
    if (m->work == GPU_WORK_SPLIT) return steps == 0;
    if (m->work == GPU_WORK_STEPS) return steps != 0;
    return 1;
}
