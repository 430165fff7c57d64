/* harness/gpu_modes.h - GPU execution modes, implemented once for every GPU suite.
 *
 * A suite describes its work (gpu_work): host inputs, the output size, how to
 * split the work into chunks, how to enqueue the computation of a chunk on a
 * stream, and how to check a finished output. gpu_mode_run then runs it in one
 * mode, checks it, times it and fills the row:
 *
 *   resident        operands already on the device; device time from CUDA
 *                   events around the computation; input sets rotate when one
 *                   set would sit in the L2 cache
 *   sync-pageable   malloc'd host buffers; blocking H2D, compute, blocking D2H;
 *   sync-pinned     cudaMallocHost buffers; end-to-end host time; the split
 *                   (h2d_ms, compute_ms, d2h_ms) from the host clock after each
 *                   synchronous step
 *   async-pageable  cudaMemcpyAsync on a stream, one synchronization at the end;
 *   async-pinned    split from events between the steps (async copies from
 *                   pageable memory are staged by the driver and do not overlap)
 *   streams-N       pinned; the shared input first, then the rest split into
 *                   N chunks pipelined over N streams: H2D of chunk i+1
 *                   overlaps compute of chunk i and D2H of chunk i-1;
 *                   overlap_eff = ideal / measured, the ideal being what N
 *                   chunks can take at best, from a serial run of the same
 *                   work: shared H2D + h + c + d + (N-1) * slowest stage, with
 *                   h, c, d = serial H2D, compute, D2H over N, and H2D and D2H
 *                   sharing one engine unless the device has two
 *
 * Pinned allocation is timed apart (alloc_ms), never inside a transfer;
 * peak_dev_mb is the device memory the case's buffers take (library
 * workspaces such as cuBLAS's are not counted).
 * Every mode validates before timing: device and host outputs are poisoned
 * (0xFF bytes: NaN), one run, then work->check on the host output.
 */
#ifndef HARNESS_GPU_MODES_H
#define HARNESS_GPU_MODES_H

#include <cuda_runtime.h>
#include <stddef.h>
#include "check.h"
#include "gpu_mode.h"
#include "measure.h"
#include "result.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpu_work {
    void *ctx;
    const void *shared_in;   /* input every chunk needs (e.g. B); may be NULL */
    size_t shared_bytes;
    const void *in;          /* input split across chunks (e.g. rows of A) */
    size_t in_bytes;
    size_t out_bytes;        /* output split across chunks (e.g. rows of C) */
    /* Byte ranges of chunk c of n in `in` and the output. Returns 0, or -1 when
     * the work cannot be split n ways. n == 1 is the whole problem. */
    int (*chunk)(void *ctx, int c, int n, size_t *in_off, size_t *in_len, size_t *out_off,
                 size_t *out_len);
    /* Enqueues the computation of chunk c of n on stream s (no synchronization).
     * d_shared, d_in, d_out are the base device pointers of the whole buffers.
     * Returns 0, or -1 with err_set. */
    int (*compute)(void *ctx, int c, int n, const void *d_shared, const void *d_in, void *d_out,
                   cudaStream_t s);
    /* Checks a finished output in host memory (the runner's own buffer, which
     * the check may modify); on failure writes where into why. */
    check_result (*check)(void *ctx, void *host_out, char *why, size_t whycap);
    double flops;            /* per repetition, for GFLOP/s (0: none) */
} gpu_work;

/* Runs work in mode m: validate, then time with cfg. Fills row's check,
 * errors, timing, split, overlap_eff, alloc_ms, peak_dev_mb and note.
 * Returns 0 when the row is complete (pass or fail); -1 when a CUDA call
 * failed (row marked fail with the error in note). The caller owns
 * row->samples afterwards (free it). */
int gpu_mode_run(const gpu_mode *m, const gpu_work *w, const measure_cfg *cfg, result_row *row);

#ifdef __cplusplus
}
#endif
#endif
