/* cpu/train_naive.c - TRAIN_OPS_CPU_NAIVE, the reference training-step
 * operations (contract: ops/train_ops.h; table: cpu/train_cpu.h).
 *
 * Plain serial loops, written to be read: every sum (gemm's dot products,
 * bias_grad's column sums, softmax's normaliser and the loss) accumulates in
 * double and is rounded to fp32 once, when stored. conv is CONV_OPS_CPU_NAIVE
 * (direct loops, double accumulation). The optimised tables are checked
 * against this one (tests/cpu/train_cpu_test.c). The sequence models' operations
 * are in cpu/train_naive_seq.c (gemm_batched here, beside gemm).
 *
 * Choices the contract leaves open, made here and followed by every CPU table:
 *   relu propagates NaN (y = x when x > 0 or x is NaN, else 0), as PyTorch's;
 *   maxpool: the first NaN of a window wins, else the first maximum in
 *   row-major window order; rows/columns left over by floor mode are never
 *   read (maxpool) and are zero (maxpool_bwd).
 */
#include "train_cpu.h"
#include "conv_cpu.h"
#include "train_args.h"
#include "train_naive_seq.h"

#include <math.h>

#define WHO "cpu-naive"

/* C = op(A) op(B) + beta C, one double dot product per element. */
static int naive_gemm(int ta, int tb, int M, int N, int K, const float *A, int lda,
                      const float *B, int ldb, float beta, float *C, int ldc, void *stream)
{
    (void)stream;
    if (train_gemm_args(WHO, ta, tb, M, N, K, lda, ldb, ldc)) return 1;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double acc = 0.0;
            for (int k = 0; k < K; k++) {
                double a = ta ? A[(long)k * lda + i] : A[(long)i * lda + k];
                double b = tb ? B[(long)j * ldb + k] : B[(long)k * ldb + j];
                acc += a * b;
            }
            float *c = &C[(long)i * ldc + j];
            if (beta != 0.0f) acc += (double)beta * (double)*c;
            *c = (float)acc;
        }
    return 0;
}

/* gemm on each matrix of the batch in turn. */
static int naive_gemm_batched(int ta, int tb, int M, int N, int K, const float *A, int lda,
                              long long sA, const float *B, int ldb, long long sB, float beta,
                              float *C, int ldc, long long sC, int batch, void *stream)
{
    if (train_batched_args(WHO, ta, tb, M, N, K, lda, sA, ldb, sB, ldc, sC, batch)) return 1;
    for (int i = 0; i < batch; i++)
        if (naive_gemm(ta, tb, M, N, K, A + i * sA, lda, B + i * sB, ldb, beta, C + i * sC, ldc,
                       stream))
            return 1;
    return 0;
}

static int naive_bias_add(int rows, int cols, float *y, const float *b, void *stream)
{
    (void)stream;
    if (train_matrix_args(WHO, "bias_add", rows, cols)) return 1;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) y[(long)r * cols + c] += b[c];
    return 0;
}

static int naive_bias_grad(int rows, int cols, const float *dy, float *db, void *stream)
{
    (void)stream;
    if (train_matrix_args(WHO, "bias_grad", rows, cols)) return 1;
    for (int c = 0; c < cols; c++) {
        double s = 0.0;
        for (int r = 0; r < rows; r++) s += dy[(long)r * cols + c];
        db[c] = (float)s;
    }
    return 0;
}

static int naive_relu(long n, const float *x, float *y, void *stream)
{
    (void)stream;
    if (train_count_args(WHO, "relu", n)) return 1;
    for (long i = 0; i < n; i++) y[i] = x[i] > 0.0f || isnan(x[i]) ? x[i] : 0.0f;
    return 0;
}

static int naive_relu_bwd(long n, const float *y, const float *dy, float *dx, void *stream)
{
    (void)stream;
    if (train_count_args(WHO, "relu_bwd", n)) return 1;
    for (long i = 0; i < n; i++) dx[i] = y[i] > 0.0f ? dy[i] : 0.0f;
    return 0;
}

static int naive_maxpool(int planes, int H, int W, const float *x, float *y, int *arg,
                         void *stream)
{
    (void)stream;
    if (train_pool_args(WHO, "maxpool", planes, H, W)) return 1;
    const int Ho = H / 2, Wo = W / 2;
    for (int pl = 0; pl < planes; pl++) {
        const float *xp = x + (long)pl * H * W;
        for (int oh = 0; oh < Ho; oh++)
            for (int ow = 0; ow < Wo; ow++) {
                int best = (2 * oh) * W + 2 * ow;
                for (int dh = 0; dh < 2; dh++)
                    for (int dw = 0; dw < 2; dw++) {
                        int at = (2 * oh + dh) * W + 2 * ow + dw;
                        float v = xp[at], m = xp[best];
                        if (v > m || (isnan(v) && !isnan(m))) best = at;
                    }
                long o = ((long)pl * Ho + oh) * Wo + ow;
                y[o] = xp[best];
                arg[o] = best;
            }
    }
    return 0;
}

static int naive_maxpool_bwd(int planes, int H, int W, const float *dy, const int *arg,
                             float *dx, void *stream)
{
    (void)stream;
    if (train_pool_args(WHO, "maxpool_bwd", planes, H, W)) return 1;
    const long in = (long)H * W, out = (long)(H / 2) * (W / 2);
    for (long i = 0; i < (long)planes * in; i++) dx[i] = 0.0f;
    for (int pl = 0; pl < planes; pl++)
        for (long o = 0; o < out; o++) {
            int a = arg[pl * out + o];
            if (!train_arg_in_window(a, o, H, W)) {
                err_set(WHO " maxpool_bwd: arg[%ld] = %d is not in its window of the %dx%d "
                        "plane", pl * out + o, a, H, W);
                return 1;
            }
            dx[pl * in + a] += dy[pl * out + o];
        }
    return 0;
}

static int naive_softmax_xent(int rows, int classes, const float *z, const int *labels,
                              float *loss, float *dz, void *stream)
{
    (void)stream;
    if (train_xent_args(WHO, rows, classes, labels)) return 1;
    double total = 0.0;
    for (int r = 0; r < rows; r++) {
        const float *zr = z + (long)r * classes;
        double m = zr[0];
        for (int c = 1; c < classes; c++)
            if (zr[c] > m) m = zr[c];
        double s = 0.0;
        for (int c = 0; c < classes; c++) s += exp((double)zr[c] - m);
        total += m + log(s) - (double)zr[labels[r]];
        for (int c = 0; c < classes; c++)
            dz[(long)r * classes + c] =
                (float)((exp((double)zr[c] - m) / s - (c == labels[r] ? 1.0 : 0.0)) / rows);
    }
    loss[0] = (float)(total / rows);
    return 0;
}

static int naive_sgd(long n, float *p, const float *g, float *v, float lr, float momentum,
                     void *stream)
{
    (void)stream;
    if (train_count_args(WHO, "sgd", n)) return 1;
    for (long i = 0; i < n; i++) {
        double step = g[i];
        if (v) {
            v[i] = (float)((double)momentum * v[i] + g[i]);
            step = v[i];
        }
        p[i] = (float)((double)p[i] - (double)lr * step);
    }
    return 0;
}

const train_ops TRAIN_OPS_CPU_NAIVE = {
    .gemm = naive_gemm,
    .conv = &CONV_OPS_CPU_NAIVE,
    .bias_add = naive_bias_add,
    .bias_grad = naive_bias_grad,
    .relu = naive_relu,
    .relu_bwd = naive_relu_bwd,
    .maxpool = naive_maxpool,
    .maxpool_bwd = naive_maxpool_bwd,
    .softmax_xent = naive_softmax_xent,
    .sgd = naive_sgd,
    .gemm_batched = naive_gemm_batched,
    .add = train_naive_add,
    .scale = train_naive_scale,
    .round = train_naive_round,
    .amp_scale = train_cpu_amp_scale,
    .amp_unscale = train_cpu_amp_unscale,
    .permute = train_naive_permute,
    .attn_softmax = train_naive_attn_softmax,
    .attn_softmax_bwd = train_naive_attn_softmax_bwd,
    .embedding = train_naive_embedding,
    .embedding_bwd = train_naive_embedding_bwd,
    .layernorm = train_naive_layernorm,
    .layernorm_bwd = train_naive_layernorm_bwd,
    .gelu = train_naive_gelu,
    .gelu_bwd = train_naive_gelu_bwd,
    .lstm_cell = train_naive_lstm_cell,
    .lstm_cell_bwd = train_naive_lstm_cell_bwd,
    .adamw = train_naive_adamw,
};
