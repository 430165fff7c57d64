/* cpu/stream_cpu.h - CPU backends of McCalpin's STREAM kernels.
 *
 * Contract (shared with kernels/stream_cuda.h):
 *   out[i] = op(x[i], y[i]) for 0 <= i < n, fp32, where op is
 *     STREAM_COPY   x            (McCalpin: c = a)
 *     STREAM_SCALE  s * x        (b = s * c)
 *     STREAM_ADD    x + y        (c = a + b)
 *     STREAM_TRIAD  x + s * y    (a = b + s * c)
 *   every product and sum rounded to fp32 on its own, never fused (the triad
 *   is fl(x + fl(s * y)), as ISO C evaluates McCalpin's source), so every
 *   backend's result is the same bits; y is not read (may be NULL) for copy
 *   and scale; any n >= 0, any alignment; out does not overlap x or y; all
 *   pointers host memory.
 * Each function returns 0, or -1 with err_set (harness/errmsg.h) on bad
 * arguments (an unknown kernel, a NULL array the kernel needs).
 * Threads: stream_cpu_omp uses cpu_threads_set()'s count (cpu/gemm_cpu.h);
 * stream_cpu_naive is serial.
 */
#ifndef CPU_STREAM_CPU_H
#define CPU_STREAM_CPU_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef STREAM_KERNEL_ENUM
#define STREAM_KERNEL_ENUM
/* McCalpin's four kernels, in his order; the same enum in kernels/stream_cuda.h. */
typedef enum { STREAM_COPY, STREAM_SCALE, STREAM_ADD, STREAM_TRIAD } stream_kernel;
#endif

typedef int (*stream_fn)(stream_kernel k, size_t n, float s, const float *x, const float *y,
                         float *out);

/* Plain serial loops: the readable reference backend. */
int stream_cpu_naive(stream_kernel k, size_t n, float s, const float *x, const float *y,
                     float *out);

/* OpenMP: a static partition on 64-byte boundaries, SIMD loops (AVX-512 when
 * the CPU has it); when one call's arrays exceed STREAM_NT_MIN_BYTES (and the
 * CPU has AVX-512F), non-temporal 64-byte stores, which skip reading each
 * output line before writing it. */
int stream_cpu_omp(stream_kernel k, size_t n, float s, const float *x, const float *y,
                   float *out);

/* Arrays one call reads and writes at or above which stream_cpu_omp stores
 * non-temporally. Measured on the 2-core Xeon (AVX-512, 2 threads): at 3 x 32
 * MiB arrays ordinary and streaming stores tie (both ~56 GB/s, cache); at
 * 3 x 64 MiB and beyond streaming stores win by 30-70 % (triad 54 vs 31 GB/s):
 * the data no longer stays in cache, and an ordinary store first reads the
 * line it overwrites (write-allocate), a third more traffic for triad, half
 * more for copy. Below the threshold ordinary stores keep the result in cache
 * for whoever reads it next. */
#define STREAM_NT_MIN_BYTES ((size_t)128 << 20)

/* Bytes one call of kernel k on n elements reads and writes (McCalpin's count:
 * 2 arrays for copy and scale, 3 for add and triad); 0 for an unknown kernel. */
double stream_bytes(stream_kernel k, size_t n);

#ifdef __cplusplus
}
#endif
#endif
