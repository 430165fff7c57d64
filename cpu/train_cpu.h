/* cpu/train_cpu.h - the CPU tables of the training-step operations.
 *
 * Contract: ops/train_ops.h (shared with kernels/train_cuda.h), stated there
 * once: fp32 row-major / NCHW, int32 labels and argmax indices, host memory,
 * `stream` ignored (NULL), every output element written except in-place
 * updates, 0 or non-zero after err_set. Arguments are checked on entry
 * (cpu/train_args.h: negative counts, gemm sizes < 1 or leading dimensions
 * too small, overlapping C matrices of a batch, labels outside [0, classes),
 * token ids outside [0, vocab), a maxpool_bwd arg outside its output's
 * window, an AdamW step count that is not a whole number in [0, 2^24) or
 * betas outside [0, 1)) and the bad value named in the error.
 * Choices the contract leaves open (cpu/train_naive.c): relu passes NaN
 * (y = x where x > 0 or x is NaN); maxpool's first NaN in window order wins.
 * Threads: TRAIN_OPS_CPU_NAIVE is serial; the others use cpu_threads_set()'s
 * count (OpenMP's for our loops, OpenBLAS's for its sgemm, oneDNN runs on
 * the same libgomp). Elementwise ops run serially below a size threshold
 * (cpu/train_elem.c, cpu/train_seq_<op>.c).
 */
#ifndef CPU_TRAIN_CPU_H
#define CPU_TRAIN_CPU_H

#include "../ops/train_ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The reference: plain serial loops, sums accumulated in double; conv is
 * CONV_OPS_CPU_NAIVE (cpu/train_naive.c, cpu/train_naive_seq.c). */
extern const train_ops TRAIN_OPS_CPU_NAIVE;
/* OpenMP + SIMD: gemm_cpu_omp_t, CONV_OPS_CPU_OMP, cpu/train_elem.c, cpu/train_seq_<op>.c. */
extern const train_ops TRAIN_OPS_CPU_OMP;
/* cblas_sgemm (with transposes), CONV_OPS_CPU_BLAS (im2col), cpu/train_elem.c and
 * cpu/train_seq_<op>.c on one thread. */
extern const train_ops TRAIN_OPS_CPU_BLAS;
/* dnnl_sgemm, CONV_OPS_CPU_ONEDNN, cpu/train_elem.c, cpu/train_seq_<op>.c. Defined only when the
 * build found oneDNN (BENCH_HAVE_ONEDNN, as CONV_OPS_CPU_ONEDNN). */
extern const train_ops TRAIN_OPS_CPU_ONEDNN;

#ifdef __cplusplus
}
#endif
#endif
