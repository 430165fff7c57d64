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

/* Which suites a mode applies to: any, those with independent work to split
 * (no steps), or those with a sequence of steps to feed. */
typedef enum { GPU_WORK_ANY, GPU_WORK_SPLIT, GPU_WORK_STEPS } gpu_mode_work;

/* One GPU execution mode: everything the runner, the report and the charts
 * know of it (harness/mode.h gives the view common to every mode). Adding a
 * mode of an existing kind: a row of GPU_MODES[] (gpu_mode.c). A new kind:
 * its value above, its row, and its repetition in gpu_modes_rep.c. */
typedef struct gpu_mode {
    const char *name;    /* as in the CSV mode column */
    gpu_mode_kind kind;  /* how a repetition runs (gpu_modes_rep.c) */
    int nstreams;        /* streams it uses: GPU_STREAMS N; GPU_PREFETCH 2
                          * (compute, copy); otherwise 1 */
    int pinned;          /* host buffers from cudaMallocHost */
    gpu_mode_work work;  /* the suites it applies to */
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
