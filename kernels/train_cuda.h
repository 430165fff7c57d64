/* kernels/train_cuda.h - the GPU train_ops tables (contract: ops/train_ops.h).
 *
 * Both tables take DEVICE pointers and a cudaStream_t as `stream`; every call
 * queues its work on that stream and returns (never synchronizing, except
 * under bench_cuda_sync_launches, the debug switch of harness/cuda_check.h);
 * each returns 0, or -1 with the reason in err_get() (a bad size, a null
 * pointer, a failed launch or library call).
 *
 *   op            TRAIN_OPS_CUDA (ours only)       TRAIN_OPS_CUDA_LIB (libraries)
 *   gemm          gemm_cuda_regtile_t              gemm_cublas_t (cublasSgemm,
 *                 (128x128x8 tiles, ta/tb loads)   OP_T/OP_N, fp32 math, no TF32)
 *   conv          CONV_CUDA_IMPLICIT               CONV_CUDNN
 *   bias_add ...  train_cuda_* (train_elem.cu)     the same train_cuda_* kernels
 *   ... sgd
 *   gemm_batched  gemm_cuda_regtile_batched (the   gemm_cublas_batched
 *                 same kernel, batch in grid z)    (cublasSgemmStridedBatched)
 *   add ... adamw train_cuda_* (train_seq_*.cu)     the same train_cuda_* kernels
 * The library table uses our elementwise kernels too: the emulator's cuDNN
 * subset (emu/) has no activation, pooling or softmax, and cuDNN's pooling
 * backward recomputes the maximum instead of using the table's argmax;
 * cuDNN's softmax gives probabilities, not the loss (see train_elem.cu); nor
 * has it (emulated) layernorm, GELU, embedding, attention or LSTM-cell ops.
 * Handles: only gemm_cublas's and conv_cudnn's own (gemm_cublas_release,
 * conv_cudnn_release; both registered with harness/gpu_handles.h), so there
 * is no train_cuda_release.
 *
 * Includable from C and C++.
 */
#ifndef KERNELS_TRAIN_CUDA_H
#define KERNELS_TRAIN_CUDA_H

#include "../ops/train_ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cuda: our kernels only. */
extern const train_ops TRAIN_OPS_CUDA;
/* cuda-lib: cuBLAS and cuDNN where they have the op, our kernels elsewhere. */
extern const train_ops TRAIN_OPS_CUDA_LIB;

/* The entry points both tables share (kernels/train_elem.cu), with the
 * signatures and contracts of the train_ops members of the same names. */
int train_cuda_bias_add(int rows, int cols, float *y, const float *b, void *stream);
int train_cuda_bias_grad(int rows, int cols, const float *dy, float *db, void *stream);
int train_cuda_relu(long n, const float *x, float *y, void *stream);
int train_cuda_relu_bwd(long n, const float *y, const float *dy, float *dx, void *stream);
int train_cuda_maxpool(int planes, int H, int W, const float *x, float *y, int *arg,
                       void *stream);
int train_cuda_maxpool_bwd(int planes, int H, int W, const float *dy, const int *arg,
                           float *dx, void *stream);
int train_cuda_softmax_xent(int rows, int classes, const float *z, const int *labels,
                            float *loss, float *dz, void *stream);
int train_cuda_sgd(long n, float *p, const float *g, float *v, float lr, float momentum,
                   void *stream);

/* The sequence models' ops both tables share (kernels/train_seq_<op>.cu). */
int train_cuda_add(long n, const float *a, const float *b, float *y, void *stream);
int train_cuda_scale(long n, float a, float *x, void *stream);
int train_cuda_round(long n, dtype_t dt, const float *x, float *y, void *stream);
int train_cuda_amp_scale(long n, const float *ls, float *x, void *stream);
int train_cuda_amp_unscale(long n, float *g, float *ls, int plant, int *found, void *stream);
int train_cuda_permute(int A, int B, int C, int D, const float *x, float *y, void *stream);
int train_cuda_attn_softmax(long rows, int T, float scale, const float *z, float *p,
                            void *stream);
int train_cuda_attn_softmax_bwd(long rows, int T, float scale, const float *p, const float *dp,
                                float *dz, void *stream);
int train_cuda_embedding(int rows, int dim, const int *ids, int vocab, const float *table,
                         float *y, int accumulate, void *stream);
int train_cuda_embedding_bwd(int rows, int dim, const int *ids, int vocab, const float *dy,
                             float *dtable, void *stream);
int train_cuda_layernorm(int rows, int dim, const float *x, const float *w, const float *b,
                         float *y, float *mean, float *rstd, void *stream);
int train_cuda_layernorm_bwd(int rows, int dim, const float *dy, const float *x, const float *w,
                             const float *mean, const float *rstd, float *dx, float *dw,
                             float *db, void *stream);
int train_cuda_gelu(long n, const float *x, float *y, void *stream);
int train_cuda_gelu_bwd(long n, const float *x, const float *dy, float *dx, void *stream);
int train_cuda_lstm_cell(int rows, int H, const float *pre, const float *c_prev, float *gates,
                         float *c, float *h, void *stream);
int train_cuda_lstm_cell_bwd(int rows, int H, const float *dh, const float *dc,
                             const float *gates, const float *c_prev, const float *c,
                             float *dpre, float *dc_prev, void *stream);
int train_cuda_adamw(long n, float *p, const float *g, float *m, float *v, float *t, float lr,
                     float b1, float b2, float eps, float wd, void *stream);

#ifdef __cplusplus
}
#endif
#endif
