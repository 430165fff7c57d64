/* harness/gpu_exec.h - a GPU case in one execution mode, without CUDA types.
 *
 * Implemented by harness/gpu_modes.c (the real CUDA runtime, or emu/) and by
 * harness/gpu_absent.c in a build without the CUDA toolkit. See gpu_modes.c
 * for what each mode times.
 */
#ifndef HARNESS_GPU_EXEC_H
#define HARNESS_GPU_EXEC_H

#include <stddef.h>
#include "exec.h"
#include "gpu_alloc.h"
#include "gpu_mode.h"
#include "suite.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpu_work {
    const suite_def *def;
    const suite_gpu *gpu;
    const backend_def *b;
    const problem *p;
    const case_layout *l;
    void *const *host;     /* host content of the IN and INOUT buffers (set 0) */
    /* Every input set (sets[k][i]: buffer i of set k), nsets of them; NULL:
     * host alone. Resident slot k and, in a step suite (layout.sets), the
     * end-to-end modes' step s take set k / s mod nsets. */
    void *const *const *sets;
    int nsets;
    const gpu_alloc *alloc;   /* the device allocator (NULL: the default, cached) */
} gpu_work;

/* Prepares w in mode m: device and host buffers, streams, inputs uploaded,
 * outputs poisoned. Returns 0 (ex ready), 1 when the mode does not apply to
 * this work (reason in skip), -1 on a CUDA error (err_set). */
int gpu_exec_open(const gpu_mode *m, const gpu_work *w, case_exec *ex, char *skip,
                  size_t skipcap);

/* Waits for the work queued on stream (a cudaStream_t). 0, or -1 with err_set. */
int gpu_stream_sync(void *stream);

#ifdef __cplusplus
}
#endif
#endif
