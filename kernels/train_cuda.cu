/* kernels/train_cuda.cu - TRAIN_OPS_CUDA and TRAIN_OPS_CUDA_LIB, the GPU
 * train_ops tables (contract: ops/train_ops.h; which op runs what:
 * kernels/train_cuda.h).
 *
 * gemm: C = op(A) op(B) + beta C is the GEMM backends' alpha = 1 case, with
 * transposed operands: gemm_cuda_regtile_t (ours) or gemm_cublas_t
 * (cublasSgemm; row-major to column-major in gemm_cublas.cu).  Both check
 * the shapes and leading dimensions (lda >= (ta ? M : K), ldb >= (tb ? K : N),
 * ldc >= N) and queue on the stream.  conv: the conv_ops tables of
 * kernels/conv_cuda.h.  Everything else: kernels/train_elem.cu.
 */
#include "train_cuda.h"
#include "gemm_cuda.h"
#include "conv_cuda.h"

static int gemm_ours(int ta, int tb, int M, int N, int K, const float *A, int lda,
                     const float *B, int ldb, float beta, float *C, int ldc, void *stream)
{
    return gemm_cuda_regtile_t(ta, tb, M, N, K, 1.0f, A, lda, B, ldb, beta, C, ldc,
                               (cudaStream_t)stream);
}

static int gemm_lib(int ta, int tb, int M, int N, int K, const float *A, int lda,
                    const float *B, int ldb, float beta, float *C, int ldc, void *stream)
{
    return gemm_cublas_t(ta, tb, M, N, K, 1.0f, A, lda, B, ldb, beta, C, ldc,
                         (cudaStream_t)stream);
}

extern "C" const train_ops TRAIN_OPS_CUDA = {
    gemm_ours,           &CONV_CUDA_IMPLICIT,    train_cuda_bias_add,
    train_cuda_bias_grad, train_cuda_relu,       train_cuda_relu_bwd,
    train_cuda_maxpool,  train_cuda_maxpool_bwd, train_cuda_softmax_xent,
    train_cuda_sgd,
};

extern "C" const train_ops TRAIN_OPS_CUDA_LIB = {
    gemm_lib,            &CONV_CUDNN,            train_cuda_bias_add,
    train_cuda_bias_grad, train_cuda_relu,       train_cuda_relu_bwd,
    train_cuda_maxpool,  train_cuda_maxpool_bwd, train_cuda_softmax_xent,
    train_cuda_sgd,
};
