/* cpu/train_naive_seq.c - the sequence models' operations (rnn, lstm, gpt) of
 * the reference table TRAIN_OPS_CPU_NAIVE (cpu/train_naive_seq.h; contract:
 * ops/train_ops.h; gemm_batched is in cpu/train_naive.c beside its gemm).
 *
 * As the rest of the reference: plain serial loops written to be read, the
 * formulas of the contract computed in double from the fp32 inputs (sums
 * accumulated in double, exp, tanh and sqrt in double) and rounded to fp32
 * once, when stored. Where an output feeds a later formula of the same op
 * (AdamW's m and v feed its update), the stored fp32 value is used, as
 * every fp32 implementation must.
 */
#include "train_naive_seq.h"
#include "train_args.h"
#include "../ops/loss_scale.h"

#include <math.h>
#include <stdlib.h>

#define WHO "cpu-naive"

int train_naive_add(long n, const float *a, const float *b, float *y, void *stream)
{
    (void)stream;
    if (train_count_args(WHO, "add", n)) return 1;
    for (long i = 0; i < n; i++) y[i] = a[i] + b[i]; /* one rounding, as (float)(double sum) */
    return 0;
}

int train_naive_scale(long n, float a, float *x, void *stream)
{
    (void)stream;
    if (train_count_args(WHO, "scale", n)) return 1;
    for (long i = 0; i < n; i++) x[i] = (float)((double)a * x[i]);
    return 0;
}

int train_naive_round(long n, dtype_t dt, const float *x, float *y, void *stream)
{
    (void)stream;
    if (train_round_args(WHO, n, dt)) return 1;
    for (long i = 0; i < n; i++) y[i] = dtype_round(dt, x[i]);
    return 0;
}

/* Dynamic loss scaling, the one CPU implementation every CPU table uses
 * (serial: a pass over the gradients, next to a whole step's work). */
int train_cpu_amp_scale(long n, const float *ls, float *x, void *stream)
{
    (void)stream;
    if (train_count_args("cpu", "amp_scale", n)) return 1;
    for (long i = 0; i < n; i++) x[i] *= ls[LS_SCALE];
    return 0;
}

int train_cpu_amp_unscale(long n, float *g, float *ls, int plant, int *found, void *stream)
{
    (void)stream;
    if (train_count_args("cpu", "amp_unscale", n)) return 1;
    const float inv = ls_inv_scale(ls);
    const int planted = ls_planted(ls, plant);
    for (long i = 0; i < n; i++) g[i] = ls_unscale_elem(g[i], inv, i, planted, &ls[LS_FOUND]);
    ls_update(ls);
    *found = ls[LS_LAST] != 0.0f;
    return 0;
}

int train_naive_permute(int A, int B, int C, int D, const float *x, float *y, void *stream)
{
    (void)stream;
    if (train_permute_args(WHO, A, B, C, D)) return 1;
    for (long a = 0; a < A; a++)
        for (long b = 0; b < B; b++)
            for (long c = 0; c < C; c++)
                for (long d = 0; d < D; d++)
                    y[((a * C + c) * B + b) * D + d] = x[((a * B + b) * C + c) * D + d];
    return 0;
}

/* p may be z: each z[r][s] is read before p[r][s] is written, and never after. */
int train_naive_attn_softmax(long rows, int T, float scale, const float *z, float *p,
                             void *stream)
{
    (void)stream;
    if (train_attn_args(WHO, "attn_softmax", rows, T)) return 1;
    for (long r = 0; r < rows; r++) {
        const int t = (int)(r % T);
        const float *zr = z + r * T;
        float *pr = p + r * T;
        double m = (double)scale * zr[0]; /* exact: a product of two floats */
        for (int s = 1; s <= t; s++)
            if ((double)scale * zr[s] > m) m = (double)scale * zr[s];
        double sum = 0.0;
        for (int s = 0; s <= t; s++) sum += exp((double)scale * zr[s] - m);
        for (int s = 0; s <= t; s++) pr[s] = (float)(exp((double)scale * zr[s] - m) / sum);
        for (int s = t + 1; s < T; s++) pr[s] = 0.0f;
    }
    return 0;
}

/* dz may be dp: the row's dot product is taken before any dz is written. */
int train_naive_attn_softmax_bwd(long rows, int T, float scale, const float *p, const float *dp,
                                 float *dz, void *stream)
{
    (void)stream;
    if (train_attn_args(WHO, "attn_softmax_bwd", rows, T)) return 1;
    for (long r = 0; r < rows; r++) {
        const int t = (int)(r % T);
        const float *pr = p + r * T, *gr = dp + r * T;
        float *dr = dz + r * T;
        double dot = 0.0;
        for (int s = 0; s <= t; s++) dot += (double)pr[s] * gr[s];
        for (int s = 0; s <= t; s++)
            dr[s] = (float)((double)scale * pr[s] * ((double)gr[s] - dot));
        for (int s = t + 1; s < T; s++) dr[s] = 0.0f;
    }
    return 0;
}

int train_naive_embedding(int rows, int dim, const int *ids, int vocab, const float *table,
                          float *y, int accumulate, void *stream)
{
    (void)stream;
    if (train_embedding_args(WHO, "embedding", rows, dim, ids, vocab)) return 1;
    for (int r = 0; r < rows; r++) {
        const float *tr = table + (long)(ids ? ids[r] : r % vocab) * dim;
        float *yr = y + (long)r * dim;
        for (int c = 0; c < dim; c++) yr[c] = accumulate ? yr[c] + tr[c] : tr[c];
    }
    return 0;
}

/* Each table row v summed in double over the rows r whose id is v, in row
 * order, and stored once. */
int train_naive_embedding_bwd(int rows, int dim, const int *ids, int vocab, const float *dy,
                              float *dtable, void *stream)
{
    (void)stream;
    if (train_embedding_args(WHO, "embedding_bwd", rows, dim, ids, vocab)) return 1;
    double *acc = malloc(sizeof(double) * (size_t)(dim > 0 ? dim : 1));
    if (!acc) {
        err_set(WHO " embedding_bwd: out of memory for %d sums", dim);
        return 1;
    }
    for (int v = 0; v < vocab; v++) {
        for (int c = 0; c < dim; c++) acc[c] = 0.0;
        for (int r = 0; r < rows; r++)
            if ((ids ? ids[r] : r % vocab) == v)
                for (int c = 0; c < dim; c++) acc[c] += dy[(long)r * dim + c];
        for (int c = 0; c < dim; c++) dtable[(long)v * dim + c] = (float)acc[c];
    }
    free(acc);
    return 0;
}

#define LN_EPS 1e-5

int train_naive_layernorm(int rows, int dim, const float *x, const float *w, const float *b,
                          float *y, float *mean, float *rstd, void *stream)
{
    (void)stream;
    if (train_layernorm_args(WHO, "layernorm", rows, dim)) return 1;
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (long)r * dim;
        double mu = 0.0, var = 0.0;
        for (int c = 0; c < dim; c++) mu += xr[c];
        mu /= dim;
        for (int c = 0; c < dim; c++) var += ((double)xr[c] - mu) * ((double)xr[c] - mu);
        var /= dim;
        const double rs = 1.0 / sqrt(var + LN_EPS);
        for (int c = 0; c < dim; c++)
            y[(long)r * dim + c] = (float)(((double)xr[c] - mu) * rs * w[c] + b[c]);
        mean[r] = (float)mu;
        rstd[r] = (float)rs;
    }
    return 0;
}

/* xh and g recomputed from x, the stored mean and rstd, and w. */
int train_naive_layernorm_bwd(int rows, int dim, const float *dy, const float *x,
                              const float *w, const float *mean, const float *rstd, float *dx,
                              float *dw, float *db, void *stream)
{
    (void)stream;
    if (train_layernorm_args(WHO, "layernorm_bwd", rows, dim)) return 1;
    for (int r = 0; r < rows; r++) {
        const float *xr = x + (long)r * dim, *gr = dy + (long)r * dim;
        double mg = 0.0, mgx = 0.0; /* mean_c(g), mean_c(g * xh) */
        for (int c = 0; c < dim; c++) {
            const double xh = ((double)xr[c] - mean[r]) * rstd[r], g = (double)gr[c] * w[c];
            mg += g;
            mgx += g * xh;
        }
        mg /= dim;
        mgx /= dim;
        for (int c = 0; c < dim; c++) {
            const double xh = ((double)xr[c] - mean[r]) * rstd[r], g = (double)gr[c] * w[c];
            dx[(long)r * dim + c] = (float)(rstd[r] * (g - mg - xh * mgx));
        }
    }
    for (int c = 0; c < dim; c++) {
        double sw = 0.0, sb = 0.0;
        for (int r = 0; r < rows; r++) {
            const double xh = ((double)x[(long)r * dim + c] - mean[r]) * rstd[r];
            sw += (double)dy[(long)r * dim + c] * xh;
            sb += dy[(long)r * dim + c];
        }
        dw[c] = (float)sw;
        db[c] = (float)sb;
    }
    return 0;
}

#define GELU_A 0.044715
#define PI_D 3.14159265358979323846

/* The contract's formula, in double. */
static double gelu_d(double x)
{
    const double k = sqrt(2.0 / PI_D);
    return 0.5 * x * (1.0 + tanh(k * (x + GELU_A * x * x * x)));
}

/* d gelu / dx = 0.5 (1 + tanh u) + 0.5 x (1 - tanh^2 u) k (1 + 3a x^2),
 * u = k (x + a x^3). */
static double gelu_grad_d(double x)
{
    const double k = sqrt(2.0 / PI_D), th = tanh(k * (x + GELU_A * x * x * x));
    return 0.5 * (1.0 + th) + 0.5 * x * (1.0 - th * th) * k * (1.0 + 3.0 * GELU_A * x * x);
}

int train_naive_gelu(long n, const float *x, float *y, void *stream)
{
    (void)stream;
    if (train_count_args(WHO, "gelu", n)) return 1;
    for (long i = 0; i < n; i++) y[i] = (float)gelu_d(x[i]);
    return 0;
}

int train_naive_gelu_bwd(long n, const float *x, const float *dy, float *dx, void *stream)
{
    (void)stream;
    if (train_count_args(WHO, "gelu_bwd", n)) return 1;
    for (long i = 0; i < n; i++) dx[i] = (float)((double)dy[i] * gelu_grad_d(x[i]));
    return 0;
}

static double sigmoid_d(double x) { return 1.0 / (1.0 + exp(-x)); }

/* gates may be pre: the four pre-activations of (r, j) are read before any
 * of the four gates is written. */
int train_naive_lstm_cell(int rows, int H, const float *pre, const float *c_prev, float *gates,
                          float *c, float *h, void *stream)
{
    (void)stream;
    if (train_lstm_args(WHO, "lstm_cell", rows, H)) return 1;
    for (int r = 0; r < rows; r++)
        for (int j = 0; j < H; j++) {
            const float *pr = pre + (long)r * 4 * H;
            float *gr = gates + (long)r * 4 * H;
            const long o = (long)r * H + j;
            const double i = sigmoid_d(pr[j]), f = sigmoid_d(pr[H + j]);
            const double g = tanh(pr[2 * H + j]), og = sigmoid_d(pr[3 * H + j]);
            const double cc = f * (c_prev ? c_prev[o] : 0.0) + i * g;
            gr[j] = (float)i;
            gr[H + j] = (float)f;
            gr[2 * H + j] = (float)g;
            gr[3 * H + j] = (float)og;
            c[o] = (float)cc;
            h[o] = (float)(og * tanh(cc));
        }
    return 0;
}

/* dc_prev may be dc: dc[o] is read before dc_prev[o] is written. */
int train_naive_lstm_cell_bwd(int rows, int H, const float *dh, const float *dc,
                              const float *gates, const float *c_prev, const float *c,
                              float *dpre, float *dc_prev, void *stream)
{
    (void)stream;
    if (train_lstm_args(WHO, "lstm_cell_bwd", rows, H)) return 1;
    for (int r = 0; r < rows; r++)
        for (int j = 0; j < H; j++) {
            const float *gr = gates + (long)r * 4 * H;
            float *dr = dpre + (long)r * 4 * H;
            const long o = (long)r * H + j;
            const double i = gr[j], f = gr[H + j], g = gr[2 * H + j], og = gr[3 * H + j];
            const double tc = tanh((double)c[o]), cp = c_prev ? c_prev[o] : 0.0;
            const double dct = (dc ? dc[o] : 0.0) + (double)dh[o] * og * (1.0 - tc * tc);
            dr[j] = (float)(dct * g * i * (1.0 - i));
            dr[H + j] = (float)(dct * cp * f * (1.0 - f));
            dr[2 * H + j] = (float)(dct * i * (1.0 - g * g));
            dr[3 * H + j] = (float)((double)dh[o] * tc * og * (1.0 - og));
            if (c_prev) dc_prev[o] = (float)(dct * f);
        }
    return 0;
}

/* torch.optim.AdamW's single-tensor step, in PyTorch's order: decay p, update
 * m and v (stored in fp32), then step p using the stored m and v. */
int train_naive_adamw(long n, float *p, const float *g, float *m, float *v, float *t, float lr,
                      float b1, float b2, float eps, float wd, void *stream)
{
    (void)stream;
    if (train_adamw_args(WHO, n, *t, b1, b2)) return 1;
    const double step = (double)*t + 1.0;
    *t = (float)step;
    const double decay = 1.0 - (double)lr * wd;
    const double step_size = lr / (1.0 - pow(b1, step));
    const double bc2_sqrt = sqrt(1.0 - pow(b2, step));
    for (long i = 0; i < n; i++) {
        const double pi = p[i] * decay;
        m[i] = (float)(b1 * (double)m[i] + (1.0 - b1) * (double)g[i]);
        v[i] = (float)(b2 * (double)v[i] + (1.0 - b2) * (double)g[i] * g[i]);
        p[i] = (float)(pi - step_size * m[i] / (sqrt((double)v[i]) / bc2_sqrt + eps));
    }
    return 0;
}
