/* cpu/train_omp.c - TRAIN_OPS_CPU_OMP (cpu/train_cpu.h; contract:
 * ops/train_ops.h): our own code throughout, on one OpenMP team.
 *   gemm        gemm_cpu_omp_t (packed, blocked SIMD micro-kernel; the
 *               transposes handled by the packing)
 *   conv        CONV_OPS_CPU_OMP
 *   the rest    cpu/train_elem.c */
#include "train_cpu.h"
#include "conv_cpu.h"
#include "gemm_cpu.h"
#include "train_args.h"
#include "train_elem.h"

static int omp_gemm(int ta, int tb, int M, int N, int K, const float *A, int lda, const float *B,
                    int ldb, float beta, float *C, int ldc, void *stream)
{
    (void)stream;
    if (train_gemm_args("cpu-omp", ta, tb, M, N, K, lda, ldb, ldc)) return 1;
    return gemm_cpu_omp_t(ta, tb, M, N, K, 1.0f, A, lda, B, ldb, beta, C, ldc);
}

const train_ops TRAIN_OPS_CPU_OMP = {
    .gemm = omp_gemm,
    .conv = &CONV_OPS_CPU_OMP,
    .bias_add = train_elem_bias_add,
    .bias_grad = train_elem_bias_grad,
    .relu = train_elem_relu,
    .relu_bwd = train_elem_relu_bwd,
    .maxpool = train_elem_maxpool,
    .maxpool_bwd = train_elem_maxpool_bwd,
    .softmax_xent = train_elem_softmax_xent,
    .sgd = train_elem_sgd,
};
