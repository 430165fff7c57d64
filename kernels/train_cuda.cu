/* kernels/train_cuda.cu - TRAIN_OPS_CUDA and TRAIN_OPS_CUDA_LIB, the GPU
 * train_ops tables (contract: ops/train_ops.h; which op runs what:
 * kernels/train_cuda.h).
 *
 * gemm: C = op(A) op(B) + beta C is the GEMM backends' alpha = 1 case, with
 * transposed operands: gemm_cuda_regtile_t (ours) or gemm_cublas_t
 * (cublasSgemm; row-major to column-major in gemm_cublas.cu).  Both check
 * the shapes and leading dimensions (lda >= (ta ? M : K), ldb >= (tb ? K : N),
 * ldc >= N) and queue on the stream.  gemm_batched: the same two over a
 * strided batch (gemm_cuda_regtile_batched, the batch in grid z;
 * gemm_cublas_batched, cublasSgemmStridedBatched).  conv: the conv_ops
 * tables of kernels/conv_cuda.h.  Everything else: kernels/train_elem.cu
 * and kernels/train_seq_<op>.cu.
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

static int gemm_batched_ours(int ta, int tb, int M, int N, int K, const float *A, int lda,
                             long long sA, const float *B, int ldb, long long sB, float beta,
                             float *C, int ldc, long long sC, int batch, void *stream)
{
    return gemm_cuda_regtile_batched(ta, tb, M, N, K, 1.0f, A, lda, sA, B, ldb, sB, beta, C, ldc,
                                     sC, batch, (cudaStream_t)stream);
}

static int gemm_batched_lib(int ta, int tb, int M, int N, int K, const float *A, int lda,
                            long long sA, const float *B, int ldb, long long sB, float beta,
                            float *C, int ldc, long long sC, int batch, void *stream)
{
    return gemm_cublas_batched(ta, tb, M, N, K, 1.0f, A, lda, sA, B, ldb, sB, beta, C, ldc, sC,
                               batch, (cudaStream_t)stream);
}

/* The entries both tables share, after gemm_batched (designated, in the
 * struct's order, as nvcc and g++ take them in C++17). */
#define TRAIN_CUDA_SHARED_SEQ_OPS                                                        \
    .add = train_cuda_add, .scale = train_cuda_scale, .round = train_cuda_round,                            \
    .amp_scale = train_cuda_amp_scale, .amp_unscale = train_cuda_amp_unscale,             \
    .permute = train_cuda_permute,                                \
    .attn_softmax = train_cuda_attn_softmax, .attn_softmax_bwd = train_cuda_attn_softmax_bwd, \
    .embedding = train_cuda_embedding, .embedding_bwd = train_cuda_embedding_bwd,        \
    .layernorm = train_cuda_layernorm, .layernorm_bwd = train_cuda_layernorm_bwd,        \
    .gelu = train_cuda_gelu, .gelu_bwd = train_cuda_gelu_bwd,                            \
    .lstm_cell = train_cuda_lstm_cell, .lstm_cell_bwd = train_cuda_lstm_cell_bwd,        \
    .adamw = train_cuda_adamw

/* The non-GEMM, non-conv entries before them. */
#define TRAIN_CUDA_SHARED_ELEM_OPS                                                       \
    .bias_add = train_cuda_bias_add, .bias_grad = train_cuda_bias_grad,                  \
    .relu = train_cuda_relu, .relu_bwd = train_cuda_relu_bwd,                            \
    .maxpool = train_cuda_maxpool, .maxpool_bwd = train_cuda_maxpool_bwd,                \
    .softmax_xent = train_cuda_softmax_xent, .sgd = train_cuda_sgd

extern "C" const train_ops TRAIN_OPS_CUDA = {
    .gemm = gemm_ours,
    .conv = &CONV_CUDA_IMPLICIT,
    TRAIN_CUDA_SHARED_ELEM_OPS,
    .gemm_batched = gemm_batched_ours,
    TRAIN_CUDA_SHARED_SEQ_OPS,
};

extern "C" const train_ops TRAIN_OPS_CUDA_LIB = {
    .gemm = gemm_lib,
    .conv = &CONV_CUDNN,
    TRAIN_CUDA_SHARED_ELEM_OPS,
    .gemm_batched = gemm_batched_lib,
    TRAIN_CUDA_SHARED_SEQ_OPS,
};
