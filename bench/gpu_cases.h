/* bench/gpu_cases.h - the GPU cases of the suites, seen from plain C.
 * Implemented against the real CUDA runtime and against emu/ (bench/gpu_gemm.c,
 * bench/gpu_transfer.c), or by bench/gpu_absent.c in a build without the
 * CUDA toolkit. The suites (pure C) decide what to run and write the rows. */
#ifndef BENCH_GPU_CASES_H
#define BENCH_GPU_CASES_H

#include <stddef.h>
#include "gemm_ref.h"
#include "measure.h"
#include "result.h"
#include "gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* GPU GEMM backends, in the order of GPU_GEMM_IMPLS in bench/gpu_gemm.c. */
typedef struct gpu_gemm_desc {
    const char *name;
    dtype_t dtype;      /* what the result is checked as (cublas-tf32: TF32) */
} gpu_gemm_desc;
extern const gpu_gemm_desc GPU_GEMM_DESCS[];   /* terminated by name NULL */

typedef struct gemm_problem {
    int M, N, K;
    const float *A, *B;       /* host, row-major, contiguous */
    const gemm_ref *ref;
} gemm_problem;

/* Runs GPU GEMM backend `backend` (index into GPU_GEMM_DESCS) in `mode`
 * (a name from GPU_MODES, harness/gpu_mode.h) on p:
 * validate, time, fill row. Returns 0; -1 when a CUDA call failed (row fail). */
int gpu_gemm_case(int backend, const char *mode, const gemm_problem *p, const measure_cfg *cfg,
                  result_row *row);

/* Copy directions and modes of the transfer suite, NULL-terminated:
 * "h2d-pageable-sync", ..., "d2d". */
extern const char *const GPU_TRANSFER_MODES[];

/* Times copies of `bytes` in `mode`, verifying the first byte-exact.
 * Returns 0; -1 when a CUDA call failed (row fail). */
int gpu_transfer_case(const char *mode, size_t bytes, const measure_cfg *cfg, result_row *row);

/* After a failed case: returns 0 when the device is healthy (or healthy again
 * after cudaDeviceReset), else -1 with st marked unusable and st->why set. */
int gpu_cases_recover(gpu_status *st);

/* Frees cached handles (cuBLAS) at the end of a run. */
void gpu_cases_release(void);

#ifdef __cplusplus
}
#endif
#endif
