/* ops/train_ops.h - the operations a training step is written against, one
 * table per backend (cpu/train_cpu.h and kernels/train_cuda.h fill them).
 *
 * The step of every model (suites/train/model.c) is written once against a
 * train_ops table: the CPU backends and the GPU backends run the very same
 * sequence of calls, so the two can never drift apart.
 *
 * Contract of every entry point:
 *   fp32 row-major / NCHW tensors, contiguous; int32 labels and argmax indices.
 *   Pointers are host memory for CPU tables and DEVICE memory for GPU tables.
 *   `stream` is a cudaStream_t for GPU tables (work is queued on it, the call
 *   never synchronizes) and NULL / ignored on the CPU.
 *   Every output element is written (outputs may hold NaN on entry), except
 *   where an entry says it updates in place.
 *   Each returns 0, or non-zero after err_set (harness/errmsg.h) naming what
 *   failed (a bad size, a failed launch or library call).
 * Threads (CPU tables): cpu_threads_set()'s count; the reference table is serial.
 */
#ifndef OPS_TRAIN_OPS_H
#define OPS_TRAIN_OPS_H

#include "conv_dims.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct train_ops {
    /* C[M x N] = op(A) * op(B) + beta * C, fp32, row-major.
     * op(A) = A, an M x K matrix with lda >= K, or with ta != 0 A^T, A being
     * K x M with lda >= M; op(B) = B (K x N, ldb >= N) or with tb != 0 B^T
     * (B is N x K, ldb >= K). beta == 0: C is write-only (NaN ignored). */
    int (*gemm)(int ta, int tb, int M, int N, int K, const float *A, int lda, const float *B,
                int ldb, float beta, float *C, int ldc, void *stream);
    /* Convolution: fwd (bias included), bwd-data, bwd-filter (db included),
     * contract in conv_dims.h; the step hands each call a workspace of
     * conv->workspace(d, dir) bytes. */
    const conv_ops *conv;
    /* y[r][c] += b[c], r < rows, c < cols (a linear layer's bias; in place). */
    int (*bias_add)(int rows, int cols, float *y, const float *b, void *stream);
    /* db[c] = sum_r dy[r][c] (overwritten). */
    int (*bias_grad)(int rows, int cols, const float *dy, float *db, void *stream);
    /* y[i] = max(x[i], 0), n elements (y may be x). */
    int (*relu)(long n, const float *x, float *y, void *stream);
    /* dx[i] = y[i] > 0 ? dy[i] : 0, y the forward output (dx may be dy). */
    int (*relu_bwd)(long n, const float *y, const float *dy, float *dx, void *stream);
    /* 2x2 max-pool, stride 2, floor mode (PyTorch's MaxPool2d(2)): x is
     * `planes` planes of H x W (N*C of NCHW), y planes of (H/2) x (W/2).
     * arg[o] = the index h*W + w in its plane of the maximum of output o's
     * window, the first in row-major window order on ties; a NaN wins. */
    int (*maxpool)(int planes, int H, int W, const float *x, float *y, int *arg, void *stream);
    /* dx = 0 everywhere, then dx[plane][arg[o]] += dy[o] (windows do not
     * overlap, so each dx element gets at most one dy). */
    int (*maxpool_bwd)(int planes, int H, int W, const float *dy, const int *arg, float *dx,
                       void *stream);
    /* Softmax cross-entropy of logits z [rows][classes] against labels
     * (0 <= label < classes), mean over rows, as PyTorch's CrossEntropyLoss:
     *   loss[0] = (1/rows) sum_r (logsumexp(z[r]) - z[r][label[r]])
     *   dz[r][c] = (softmax(z[r])[c] - (c == label[r])) / rows */
    int (*softmax_xent)(int rows, int classes, const float *z, const int *labels, float *loss,
                        float *dz, void *stream);
    /* SGD as torch.optim.SGD (dampening 0, no weight decay), n elements:
     *   v == NULL (momentum 0):  p -= lr * g
     *   else:                    v = momentum * v + g;  p -= lr * v
     * (v starts at zero, so the first step is PyTorch's v = g.) */
    int (*sgd)(long n, float *p, const float *g, float *v, float lr, float momentum,
               void *stream);
} train_ops;

#ifdef __cplusplus
}
#endif
#endif
