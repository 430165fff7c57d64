/* harness/gpu_mode.h - the GPU execution modes by name (no CUDA types, so
 * every build knows them); gpu_modes.h runs them. */
#ifndef HARNESS_GPU_MODE_H
#define HARNESS_GPU_MODE_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    GPU_RESIDENT, GPU_SYNC_PAGEABLE, GPU_SYNC_PINNED, GPU_ASYNC_PAGEABLE, GPU_ASYNC_PINNED,
    GPU_STREAMS, GPU_PREFETCH
} gpu_mode_kind;

typedef struct gpu_mode {
    const char *name;    /* as in the CSV mode column */
    gpu_mode_kind kind;
    int nstreams;        /* GPU_STREAMS; GPU_PREFETCH: 2 (compute, copy) */
} gpu_mode;

extern const gpu_mode GPU_MODES[];   /* terminated by name NULL */
const gpu_mode *gpu_mode_find(const char *name);
/* Whether mode m applies to a suite with (steps != 0) or without step work:
 * streams-N splits independent work, prefetch-2 feeds a sequence of steps. */
int gpu_mode_applies(const gpu_mode *m, int steps);

#ifdef __cplusplus
}
#endif
#endif
