/* harness/gpu_mode.h - the GPU execution modes by name (no CUDA types, so
 * every build knows them); gpu_modes.c runs them. */
#ifndef HARNESS_GPU_MODE_H
#define HARNESS_GPU_MODE_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    GPU_RESIDENT, GPU_SYNC_PAGEABLE, GPU_SYNC_PINNED, GPU_ASYNC_PAGEABLE, GPU_ASYNC_PINNED,
    GPU_STREAMS, GPU_PREFETCH
} gpu_mode_kind;

/* One GPU execution mode: everything the runner, the report and the charts
 * know of it (harness/mode.h gives the view common to every mode). Adding a
 * mode: a row here and its execution in gpu_modes.c. */
typedef struct gpu_mode {
    const char *name;    /* as in the CSV mode column */
    gpu_mode_kind kind;
    int nstreams;        /* GPU_STREAMS; GPU_PREFETCH: 2 (compute, copy) */
    int primary;         /* the GPU's headline mode (the kernel alone): charts
                          * and tables of throughput show GPU rows in it */
    const char *colour;  /* its chart colour (plots/common.gp's MODEPAL) */
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
