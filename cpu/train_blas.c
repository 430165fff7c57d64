/* cpu/train_blas.c - TRAIN_OPS_CPU_BLAS (cpu/train_cpu.h; contract:
 * ops/train_ops.h): what a C programmer with OpenBLAS would write.
 *   gemm        OpenBLAS cblas_sgemm, row-major, CblasTrans for ta / tb
 *   conv        CONV_OPS_CPU_BLAS (im2col + sgemm, Caffe's)
 *   the rest    cpu/train_elem.c (OpenMP; OpenBLAS has no such ops) */
#include "train_cpu.h"
#include "conv_cpu.h"
#include "train_args.h"
#include "train_elem.h"

#include <cblas.h>

static int blas_gemm(int ta, int tb, int M, int N, int K, const float *A, int lda,
                     const float *B, int ldb, float beta, float *C, int ldc, void *stream)
{
    (void)stream;
    if (train_gemm_args("cpu-blas", ta, tb, M, N, K, lda, ldb, ldc)) return 1;
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, M,
                N, K, 1.0f, A, lda, B, ldb, beta, C, ldc);
    return 0;
}

const train_ops TRAIN_OPS_CPU_BLAS = {
    .gemm = blas_gemm,
    .conv = &CONV_OPS_CPU_BLAS,
    .bias_add = train_elem_bias_add,
    .bias_grad = train_elem_bias_grad,
    .relu = train_elem_relu,
    .relu_bwd = train_elem_relu_bwd,
    .maxpool = train_elem_maxpool,
    .maxpool_bwd = train_elem_maxpool_bwd,
    .softmax_xent = train_elem_softmax_xent,
    .sgd = train_elem_sgd,
};
