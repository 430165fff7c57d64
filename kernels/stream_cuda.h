/* kernels/stream_cuda.h - the CUDA backend of McCalpin's STREAM kernels.
 *
 * Contract (shared with cpu/stream_cpu.h):
 *   out[i] = op(x[i], y[i]) for 0 <= i < n, fp32, where op is
 *     STREAM_COPY   x            (McCalpin: c = a)
 *     STREAM_SCALE  s * x        (b = s * c)
 *     STREAM_ADD    x + y        (c = a + b)
 *     STREAM_TRIAD  x + s * y    (a = b + s * c)
 *   every product and sum rounded to fp32 on its own, never fused (the triad
 *   is fl(x + fl(s * y)); nvcc would contract it into an FMA, so the kernel
 *   says __fmul_rn / __fadd_rn), so the result is the CPU backends' bits;
 *   y is not read (may be NULL) for copy and scale; any n >= 0, any alignment;
 *   out does not overlap x or y; all pointers DEVICE memory.
 * Asynchronous: the work is queued on `stream`; the function never
 * synchronizes (except under bench_cuda_sync_launches, harness/cuda_check.h).
 * Returns 0, or -1 (bad arguments, a failed launch) with err_set.
 * Includable from C and C++; needs no CUDA header from C.
 */
#ifndef KERNELS_STREAM_CUDA_H
#define KERNELS_STREAM_CUDA_H

#include <stddef.h>

#if defined(__CUDACC__) || (defined(__CUDAEMU__) && defined(__cplusplus))
#include <cuda_runtime_api.h> /* cudaStream_t (real or emulated runtime) */
#else
typedef struct CUstream_st *cudaStream_t;  /* the same typedef as CUDA's */
#endif

#ifdef __cplusplus
extern "C" {
#endif

#ifndef STREAM_KERNEL_ENUM
#define STREAM_KERNEL_ENUM
/* McCalpin's four kernels, in his order; the same enum in cpu/stream_cpu.h. */
typedef enum { STREAM_COPY, STREAM_SCALE, STREAM_ADD, STREAM_TRIAD } stream_kernel;
#endif

typedef int (*stream_cuda_fn)(stream_kernel k, size_t n, float s, const float *dx,
                              const float *dy, float *dout, cudaStream_t stream);

/* cuda-stream (kernels/stream.cu): a grid-stride loop, one wave of 256-thread
 * blocks (8 per SM); float4 loads and stores when x, y and out are 16-byte
 * aligned (the scalar tail n % 4 by the first threads), else scalar. */
int stream_cuda(stream_kernel k, size_t n, float s, const float *dx, const float *dy,
                float *dout, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
