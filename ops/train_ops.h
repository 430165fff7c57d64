/* ops/train_ops.h - the operations a training step is written against, one
 * table per backend (cpu/train_cpu.h and kernels/train_cuda.h fill them).
 *
 * The step of every model (suites/train/model.c) is written once against a
 * train_ops table: the CPU backends and the GPU backends run the very same
 * sequence of calls, so the two can never drift apart.
 *
 * Contract of every entry point:
 *   fp32 row-major / NCHW tensors, contiguous; int32 labels, argmax indices
 *   and token ids.
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

    /* ---- the sequence models (rnn, lstm, gpt) ---- */

    /* batch independent GEMMs, as gemm, matrix i at A + i*sA, B + i*sB,
     * C + i*sC (strides in floats, >= 0; the C matrices must not overlap,
     * checked on the CPU; A or B may be shared with stride 0):
     * C_i = op(A_i) op(B_i) + beta C_i. batch >= 1. (Attention's Q K^T and
     * P V, and their gradients; cublasSgemmStridedBatched's shape.) */
    int (*gemm_batched)(int ta, int tb, int M, int N, int K, const float *A, int lda,
                        long long sA, const float *B, int ldb, long long sB, float beta,
                        float *C, int ldc, long long sC, int batch, void *stream);
    /* y[i] = a[i] + b[i], n >= 0 elements; y may be a or b (a residual edge,
     * and the gradients of a tensor used twice). */
    int (*add)(long n, const float *a, const float *b, float *y, void *stream);
    /* x[i] *= a, n >= 0 elements, in place (a data-parallel replica weighs
     * its shard's loss gradient by the shard's share of the batch). */
    int (*scale)(long n, float a, float *x, void *stream);
    /* y[i] = x[i] rounded to the values of dt (bf16 or fp16: ops/dtype.h's
     * dtype_round, nearest even), n >= 0 elements; y may be x. (Autocast's
     * cast of an op's inputs: suites/train/model_amp.c.) */
    int (*round)(long n, dtype_t dt, const float *x, float *y, void *stream);
    /* Dynamic loss scaling (amp-fp16; the rule and the state ls, LS_FLOATS
     * floats in the table's memory: ops/loss_scale.h). amp_scale: x[i] *=
     * ls[LS_SCALE], n >= 0 (the loss gradient, as GradScaler.scale(loss)).
     * amp_unscale: every g[i] (n >= 0) through ls_unscale_elem (inf/NaN
     * found, times ls_inv_scale), then ls_update(ls); *found (host memory) =
     * ls[LS_LAST]: 1 when the step's optimizer update is to be skipped. It
     * synchronizes the stream for *found, as GradScaler.step's
     * found_inf.item() does. plant: the test hook's step (ls_planted), 0. */
    int (*amp_scale)(long n, const float *ls, float *x, void *stream);
    int (*amp_unscale)(long n, float *g, float *ls, int plant, int *found, void *stream);
    /* y[a][c][b][d] = x[a][b][c][d] for x of A x B x C x D, each >= 0 (swaps
     * the middle two axes; y must not overlap x). Batch-first to time-major
     * ([1][B][T][X] -> [1][T][B][X]) and attention's heads
     * ([B][T][NH][D] -> [B][NH][T][D]); permute(A, C, B, D) undoes
     * permute(A, B, C, D). */
    int (*permute)(int A, int B, int C, int D, const float *x, float *y, void *stream);
    /* Causal softmax of attention scores: rows (>= 0) of T (>= 1), row r
     * belonging to query position t = r % T:
     *   p[r][s] = exp(scale*z[r][s] - m) / sum_{u<=t} exp(scale*z[r][u] - m)
     *             for s <= t, p[r][s] = 0 for s > t,
     * m = max_{u<=t} scale*z[r][u] (it cancels; it keeps exp from overflowing).
     * z[r][s] for s > t is never read (may be NaN). p may be z. */
    int (*attn_softmax)(long rows, int T, float scale, const float *z, float *p, void *stream);
    /* Its backward: dz[r][s] = scale * p[r][s] * (dp[r][s] - sum_{u<=t} p[r][u] dp[r][u])
     * for s <= t, 0 for s > t (p[r][s] and dp[r][s] for s > t never read).
     * dz may be dp. */
    int (*attn_softmax_bwd)(long rows, int T, float scale, const float *p, const float *dp,
                            float *dz, void *stream);
    /* Embedding lookup (nn.Embedding): y[r][:] = table[id(r)][:] for r < rows,
     * rows (>= 0) of dim (>= 0), vocab >= 1; id(r) = ids[r], or with
     * ids == NULL, r % vocab (position embeddings over rows laid out [B][T]
     * with vocab = T). accumulate != 0: y[r][:] += instead of =. Every id must be in [0, vocab) (checked on the
     * CPU; a GPU kernel clamps nothing and the caller guarantees it). */
    int (*embedding)(int rows, int dim, const int *ids, int vocab, const float *table,
                     float *y, int accumulate, void *stream);
    /* Its backward: dtable (vocab x dim) = 0, then dtable[id(r)][:] += dy[r][:]
     * (overwritten, summed in any order). */
    int (*embedding_bwd)(int rows, int dim, const int *ids, int vocab, const float *dy,
                         float *dtable, void *stream);
    /* nn.LayerNorm(dim) (eps 1e-5, biased variance) over rows (>= 0) of
     * dim (>= 1):
     *   mean[r] = sum x[r]/dim, rstd[r] = 1/sqrt(sum (x[r]-mean)^2/dim + 1e-5),
     *   y[r][c] = (x[r][c] - mean[r]) * rstd[r] * w[c] + b[c].
     * mean and rstd (rows each) are kept for the backward. y must not be x. */
    int (*layernorm)(int rows, int dim, const float *x, const float *w, const float *b,
                     float *y, float *mean, float *rstd, void *stream);
    /* Its backward, with xh = (x - mean) * rstd and g = dy * w:
     *   dx[r][c] = rstd[r] * (g[r][c] - mean_c(g[r]) - xh[r][c] * mean_c(g[r] * xh[r]))
     *   dw[c] = sum_r dy[r][c] xh[r][c], db[c] = sum_r dy[r][c]
     * (all three overwritten; dx must not be dy). */
    int (*layernorm_bwd)(int rows, int dim, const float *dy, const float *x, const float *w,
                         const float *mean, const float *rstd, float *dx, float *dw,
                         float *db, void *stream);
    /* GELU, tanh approximation (nn.GELU(approximate='tanh')), n >= 0:
     *   y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))). y may be x. */
    int (*gelu)(long n, const float *x, float *y, void *stream);
    /* dx = dy * d gelu(x)/dx, x the forward input (dx may be dy). */
    int (*gelu_bwd)(long n, const float *x, const float *dy, float *dx, void *stream);
    /* One nn.LSTM step's pointwise part for `rows` (>= 0) sequences of hidden
     * size H (>= 0), gate order i, f, g, o (PyTorch's): pre [rows][4H] holds
     * x W_ih^T + b_ih + h W_hh^T + b_hh (summed by the caller);
     *   i = sigmoid(pre_i), f = sigmoid(pre_f), g = tanh(pre_g), o = sigmoid(pre_o)
     *   c = f * c_prev + i * g,  h = o * tanh(c)
     * gates [rows][4H] receives (i, f, g, o) for the backward (gates may be
     * pre); c_prev == NULL means zeros (the first step). */
    int (*lstm_cell)(int rows, int H, const float *pre, const float *c_prev, float *gates,
                     float *c, float *h, void *stream);
    /* Its backward: dh [rows][H] the whole gradient of h, dc the gradient
     * reaching c from the next step (NULL: zero, the last step):
     *   dc_t = dc + dh * o * (1 - tanh(c)^2)
     *   dpre_i = dc_t g i(1-i), dpre_f = dc_t c_prev f(1-f),
     *   dpre_g = dc_t i (1-g^2), dpre_o = dh tanh(c) o(1-o)
     *   dc_prev = dc_t * f (not written when c_prev is NULL)
     * dpre [rows][4H] and dc_prev [rows][H] overwritten; dc_prev may be dc. */
    int (*lstm_cell_bwd)(int rows, int H, const float *dh, const float *dc, const float *gates,
                         const float *c_prev, const float *c, float *dpre, float *dc_prev,
                         void *stream);
    /* torch.optim.AdamW (PyTorch 1.13, single tensor), n elements, m and v
     * the moment buffers and *t the step count (all zero before the first
     * step; like PyTorch's state['step'], t is state in the table's memory:
     * host for CPU tables, device for GPU tables, so a step never asks the
     * host what it is). With t = *t + 1 (then stored back in *t):
     *   p *= 1 - lr * wd
     *   m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2
     *   p -= (lr / (1 - b1^t)) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
     * the scalar factors computed in double, the elementwise work in fp32.
     * *t must be a whole number in [0, 2^24) and b1, b2 in [0, 1), as
     * torch.optim.AdamW requires (both checked on the CPU). */
    int (*adamw)(long n, float *p, const float *g, float *m, float *v, float *t, float lr,
                 float b1, float b2, float eps, float wd, void *stream);
} train_ops;

#ifdef __cplusplus
}
#endif
#endif
