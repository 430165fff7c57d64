/* cpu/train_seq.c - the sequence models' operations (rnn, lstm, gpt) shared
 * by the cpu-omp, cpu-blas and cpu-onednn train_ops tables (cpu/train_seq.h;
 * contract: ops/train_ops.h; reference: cpu/train_naive_seq.c). gemm_batched
 * is each table's own (its GEMM).
 *
 * As cpu/train_elem.c: each loop runs on the OpenMP team when its tensor is
 * large enough and serially below that; inner loops are branch-free and
 * `omp simd`; sums are fp32. exp, sigmoid and tanh come from
 * cpu/train_vmath.h (vectorisable, no libm call).
 *   Kernels that compute (more than they move) are compiled three times,
 *   for x86-64-v4 (AVX-512), v3 (AVX2) and the baseline (SSE2), and the
 *   loader picks one for the CPU (gcc's target_clones; SEQ_CLONES). The
 *   build targets the baseline, whose 4 lanes left gelu 3.4x, lstm_cell
 *   3.7x and layernorm 2x slower than 16 (1 thread, this Zen 4). No FMA
 *   contraction in any of them (-std=c11), so the clones round alike.
 *   Thresholds, elements: PAR_MIN (as train_elem.c) for memory-bound loops;
 *   PAR_MIN_MATH for the ones that spend ~20-40 flops an element (gelu,
 *   lstm_cell, attention's softmax), where a fork/join pays off sooner.
 *   attn_softmax: row r only needs s <= t = r % T (the causal part); rows
 *   are split in equal blocks (heads of T rows each have the same work);
 *   with T a multiple of 16 each row runs in whole blocks of 16 lanes.
 *   embedding_bwd: columns split between threads, each thread adding every
 *   row in order into its own columns (no atomics, the same result for any
 *   thread count); serial below 4 PAR_MIN elements of dy (gpt-b8's 512x128
 *   takes 8 us on one thread, the price of a fork/join here).
 *   layernorm_bwd: dw and db are column sums over rows: per-thread partial
 *   sums over row blocks, added up in thread order.
 *   adamw: the scalars folded in double (PyTorch's), so the element loop is
 *   p -= a m / (sqrt(v) + e) with a = lr/bc1 * sqrt(bc2), e = eps sqrt(bc2):
 *   one division, not two.
 * Measured at gpt-b8's sizes (1 thread, this 2-core Zen 4, us; cpu-naive in
 * brackets): layernorm 512x128 22 (143), its backward 25 (240); gelu
 * 512x512 172 (~9000), backward 212 (~13000); attn_softmax 2048 rows of 64
 * 104 (890), backward 29 (75); adamw of 524288 185 (~2900); lstm_cell 32x256
 * 24 (320), backward 9 (130). Two threads take about half where the other
 * core is free.
 */
#include "train_seq.h"
#include "train_args.h"
#include "train_vmath.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#define WHO "cpu train_seq"
#define PAR_MIN (1L << 15)     /* elements: memory-bound loops parallel at or above this */
#define PAR_MIN_MATH (1L << 13) /* elements: exp/tanh-heavy loops */
#define SPAN 4096              /* elements: the parallel loops' blocks of elementwise work */

#ifndef SEQ_CLONES /* -DSEQ_CLONES= -march=...: one ISA only (to test each clone's code) */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SEQ_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define SEQ_CLONES
#endif
#endif

static inline long min_l(long a, long b) { return a < b ? a : b; }

int train_seq_add(long n, const float *a, const float *b, float *y, void *stream)
{
    (void)stream;
    if (train_count_args(WHO, "add", n)) return 1;
#pragma omp parallel for simd schedule(static) if (parallel : n >= PAR_MIN)
    for (long i = 0; i < n; i++) y[i] = a[i] + b[i];
    return 0;
}

int train_seq_scale(long n, float a, float *x, void *stream)
{
    (void)stream;
    if (train_count_args(WHO, "scale", n)) return 1;
#pragma omp parallel for simd schedule(static) if (parallel : n >= PAR_MIN)
    for (long i = 0; i < n; i++) x[i] *= a;
    return 0;
}

/* One (a, c) pair: y[a][c][:][:] gathers x[a][b][c][:] over b. */
int train_seq_permute(int A, int B, int C, int D, const float *x, float *y, void *stream)
{
    (void)stream;
    if (train_permute_args(WHO, A, B, C, D)) return 1;
#pragma omp parallel for collapse(2) schedule(static) \
    if (parallel : (long)A * B * C * D >= PAR_MIN)
    for (int a = 0; a < A; a++)
        for (int c = 0; c < C; c++) {
            float *yo = y + ((long)a * C + c) * B * D;
            const float *xi = x + ((long)a * B * C + c) * D;
            for (int b = 0; b < B; b++)
                memcpy(yo + (long)b * D, xi + (long)b * C * D, sizeof(float) * (size_t)D);
        }
    return 0;
}

/* Attention's softmax, rows r0..r1 of t + 1 live scores each, then zeros
 * (p may be z: each z[s] is read before p[s] is written). The exponent is
 * scale (z - zx), zx the z that maximises scale z (the max of z, or its min
 * when scale < 0): z - zx loses nothing where it matters, whereas the
 * product scale z, rounded before the max is taken off, would carry an
 * error of half an ulp of |scale z| into every p (3e-5 relative at scores
 * of 500). A row's t is counted along, not taken as r % T (a 64-bit
 * division a row cost 50 us in 190). */
static void softmax_rows(long r0, long r1, int T, float scale, const float *z, float *p)
{
    for (long r = r0, t = r0 % T; r < r1; r++, t = t + 1 < T ? t + 1 : 0) {
        const float *zr = z + r * T;
        float *pr = p + r * T;
        float zx = zr[0];
        if (scale >= 0.0f) {
#pragma omp simd reduction(max : zx)
            for (int s = 1; s <= t; s++) zx = zr[s] > zx ? zr[s] : zx;
        } else {
#pragma omp simd reduction(min : zx)
            for (int s = 1; s <= t; s++) zx = zr[s] < zx ? zr[s] : zx;
        }
        float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
        for (int s = 0; s <= t; s++) {
            const float e = vm_exp_neg(scale * (zr[s] - zx));
            pr[s] = e;
            sum += e;
        }
        const float inv = 1.0f / sum;
#pragma omp simd
        for (int s = 0; s <= t; s++) pr[s] *= inv;
        for (int s = t + 1; s < T; s++) pr[s] = 0.0f;
    }
}

/* The same for T a multiple of VB: each row in whole blocks of VB lanes
 * (the lanes beyond t read z, whatever it holds, and are selected away),
 * per-lane max and sum in registers: no scalar remainder and no horizontal
 * reduction per loop, which rows of every length from 1 to T made the
 * bulk of the time (2048 rows of 64, 1 thread: 174 us -> 97). */
#define VB 16
SEQ_CLONES static void softmax_rows_vb(long r0, long r1, int T, float scale, const float *z,
                                       float *p)
{
    const float sgn = scale >= 0.0f ? 1.0f : -1.0f;
    for (long r = r0, t = r0 % T; r < r1; r++, t = t + 1 < T ? t + 1 : 0) {
        const int nb = (int)t / VB + 1;
        const float *zr = z + r * T;
        float *pr = p + r * T;
        float mv[VB], sv[VB]; /* by lane: max of sgn z over s <= t, sum */
        for (int j = 0; j < VB; j++) mv[j] = -INFINITY, sv[j] = 0.0f;
        for (int b = 0; b < nb; b++)
#pragma omp simd
            for (int j = 0; j < VB; j++) {
                const float v = b * VB + j <= t ? sgn * zr[b * VB + j] : -INFINITY;
                mv[j] = v > mv[j] ? v : mv[j];
            }
        float m = mv[0];
        for (int j = 1; j < VB; j++) m = mv[j] > m ? mv[j] : m;
        const float zx = sgn * m;
        for (int b = 0; b < nb; b++)
#pragma omp simd
            for (int j = 0; j < VB; j++) {
                const float e = vm_exp_neg(scale * (zr[b * VB + j] - zx));
                pr[b * VB + j] = b * VB + j <= t ? e : 0.0f;
                sv[j] += pr[b * VB + j];
            }
        float sum = 0.0f;
        for (int j = 0; j < VB; j++) sum += sv[j];
        const float inv = 1.0f / sum;
        for (int b = 0; b < nb; b++)
#pragma omp simd
            for (int j = 0; j < VB; j++) pr[b * VB + j] *= inv;
        for (int s = nb * VB; s < T; s++) pr[s] = 0.0f;
    }
}

int train_seq_attn_softmax(long rows, int T, float scale, const float *z, float *p, void *stream)
{
    (void)stream;
    if (train_attn_args(WHO, "attn_softmax", rows, T)) return 1;
    const long rb = SPAN / T > 0 ? SPAN / T : 1; /* rows a block */
#pragma omp parallel for schedule(static) if (parallel : rows * T >= 2 * PAR_MIN_MATH)
    for (long r0 = 0; r0 < rows; r0 += rb) {
        if (T % VB == 0) softmax_rows_vb(r0, min_l(r0 + rb, rows), T, scale, z, p);
        else softmax_rows(r0, min_l(r0 + rb, rows), T, scale, z, p);
    }
    return 0;
}

/* Its backward, rows r0..r1 (dz may be dp: the row's dot product is taken
 * before dz is written). Not cloned: the baseline's 4 lanes beat AVX-512's
 * 16 on rows this short (2048 rows of 64: 29 us against 38 and 41 for the
 * blocks of softmax_rows_vb). */
static void softmax_bwd_rows(long r0, long r1, int T, float scale, const float *p,
                             const float *dp, float *dz)
{
    for (long r = r0, t = r0 % T; r < r1; r++, t = t + 1 < T ? t + 1 : 0) {
        const float *pr = p + r * T, *gr = dp + r * T;
        float *dr = dz + r * T;
        float dot = 0.0f;
#pragma omp simd reduction(+ : dot)
        for (int s = 0; s <= t; s++) dot += pr[s] * gr[s];
#pragma omp simd
        for (int s = 0; s <= t; s++) dr[s] = scale * pr[s] * (gr[s] - dot);
        for (int s = t + 1; s < T; s++) dr[s] = 0.0f;
    }
}

int train_seq_attn_softmax_bwd(long rows, int T, float scale, const float *p, const float *dp,
                               float *dz, void *stream)
{
    (void)stream;
    if (train_attn_args(WHO, "attn_softmax_bwd", rows, T)) return 1;
    const long rb = SPAN / T > 0 ? SPAN / T : 1;
#pragma omp parallel for schedule(static) if (parallel : rows * T >= PAR_MIN)
    for (long r0 = 0; r0 < rows; r0 += rb)
        softmax_bwd_rows(r0, min_l(r0 + rb, rows), T, scale, p, dp, dz);
    return 0;
}

int train_seq_embedding(int rows, int dim, const int *ids, int vocab, const float *table,
                        float *y, int accumulate, void *stream)
{
    (void)stream;
    if (train_embedding_args(WHO, "embedding", rows, dim, ids, vocab)) return 1;
#pragma omp parallel for schedule(static) if (parallel : (long)rows * dim >= PAR_MIN)
    for (int r = 0; r < rows; r++) {
        const float *tr = table + (long)(ids ? ids[r] : r % vocab) * dim;
        float *yr = y + (long)r * dim;
        if (accumulate) {
#pragma omp simd
            for (int c = 0; c < dim; c++) yr[c] += tr[c];
        } else {
            memcpy(yr, tr, sizeof(float) * (size_t)dim);
        }
    }
    return 0;
}

/* dtable[:, c0..c1) = 0, then every row of dy added into its id's row. */
static void embed_cols(int rows, int dim, const int *ids, int vocab, const float *dy,
                       float *dtable, int c0, int c1)
{
    for (int v = 0; v < vocab; v++) memset(dtable + (long)v * dim + c0, 0, sizeof(float) * (c1 - c0));
    for (int r = 0; r < rows; r++) {
        float *dt = dtable + (long)(ids ? ids[r] : r % vocab) * dim;
        const float *g = dy + (long)r * dim;
#pragma omp simd
        for (int c = c0; c < c1; c++) dt[c] += g[c];
    }
}

int train_seq_embedding_bwd(int rows, int dim, const int *ids, int vocab, const float *dy,
                            float *dtable, void *stream)
{
    (void)stream;
    if (train_embedding_args(WHO, "embedding_bwd", rows, dim, ids, vocab)) return 1;
    const int nt = omp_get_max_threads();
    if (nt < 2 || dim < 32 * nt || (long)rows * dim < 4 * PAR_MIN) {
        embed_cols(rows, dim, ids, vocab, dy, dtable, 0, dim);
        return 0;
    }
#pragma omp parallel num_threads(nt)
    {
        const int t = omp_get_thread_num(), n = omp_get_num_threads();
        /* column blocks of whole 16-float lines, so no two threads share one */
        const int lines = (dim + 15) / 16;
        int c0 = (int)((long)lines * t / n) * 16, c1 = (int)((long)lines * (t + 1) / n) * 16;
        if (c1 > dim) c1 = dim;
        if (c0 < c1) embed_cols(rows, dim, ids, vocab, dy, dtable, c0, c1);
    }
    return 0;
}

#define LN_EPS 1e-5f

/* Rows r0..r1 (two passes over each row: the mean, then the variance). */
SEQ_CLONES static void ln_rows(int r0, int r1, int dim, const float *x, const float *w,
                               const float *b, float *y, float *mean, float *rstd)
{
    const float inv_dim = 1.0f / (float)dim;
    for (int r = r0; r < r1; r++) {
        const float *xr = x + (long)r * dim;
        float *yr = y + (long)r * dim;
        float s = 0.0f, q = 0.0f;
#pragma omp simd reduction(+ : s)
        for (int c = 0; c < dim; c++) s += xr[c];
        const float mu = s * inv_dim;
#pragma omp simd reduction(+ : q)
        for (int c = 0; c < dim; c++) q += (xr[c] - mu) * (xr[c] - mu);
        const float rs = 1.0f / sqrtf(q * inv_dim + LN_EPS);
#pragma omp simd
        for (int c = 0; c < dim; c++) yr[c] = (xr[c] - mu) * rs * w[c] + b[c];
        mean[r] = mu;
        rstd[r] = rs;
    }
}

int train_seq_layernorm(int rows, int dim, const float *x, const float *w, const float *b,
                        float *y, float *mean, float *rstd, void *stream)
{
    (void)stream;
    if (train_layernorm_args(WHO, "layernorm", rows, dim)) return 1;
    const int rb = SPAN / dim > 0 ? SPAN / dim : 1;
#pragma omp parallel for schedule(static) if (parallel : (long)rows * dim >= PAR_MIN)
    for (int r0 = 0; r0 < rows; r0 += rb)
        ln_rows(r0, (int)min_l(r0 + rb, rows), dim, x, w, b, y, mean, rstd);
    return 0;
}

/* Rows r0..r1: dx, and dw, db += their rows' contributions (dw, db hold
 * this thread's partial sums). */
SEQ_CLONES static void ln_bwd_rows(int r0, int r1, int dim, const float *dy, const float *x, const float *w,
                        const float *mean, const float *rstd, float *dx, float *dw, float *db)
{
    const float inv_dim = 1.0f / (float)dim;
    for (int r = r0; r < r1; r++) {
        const float *xr = x + (long)r * dim, *gr = dy + (long)r * dim;
        float *dr = dx + (long)r * dim;
        const float mu = mean[r], rs = rstd[r];
        float mg = 0.0f, mgx = 0.0f;
#pragma omp simd reduction(+ : mg, mgx)
        for (int c = 0; c < dim; c++) {
            const float xh = (xr[c] - mu) * rs, g = gr[c] * w[c];
            mg += g;
            mgx += g * xh;
            dw[c] += gr[c] * xh;
            db[c] += gr[c];
        }
        mg *= inv_dim;
        mgx *= inv_dim;
#pragma omp simd
        for (int c = 0; c < dim; c++) {
            const float xh = (xr[c] - mu) * rs;
            dr[c] = rs * (gr[c] * w[c] - mg - xh * mgx);
        }
    }
}

int train_seq_layernorm_bwd(int rows, int dim, const float *dy, const float *x, const float *w,
                            const float *mean, const float *rstd, float *dx, float *dw,
                            float *db, void *stream)
{
    (void)stream;
    if (train_layernorm_args(WHO, "layernorm_bwd", rows, dim)) return 1;
    const int nt = omp_get_max_threads();
    memset(dw, 0, sizeof(float) * (size_t)dim);
    memset(db, 0, sizeof(float) * (size_t)dim);
    if (nt < 2 || rows < 2 * nt || (long)rows * dim < PAR_MIN) {
        ln_bwd_rows(0, rows, dim, dy, x, w, mean, rstd, dx, dw, db);
        return 0;
    }
    float *part = calloc((size_t)nt * 2 * dim, sizeof(float));
    if (!part) {
        err_set(WHO " layernorm_bwd: out of memory for %d partial sums of %d columns", nt, dim);
        return 1;
    }
    int used = 1;
#pragma omp parallel num_threads(nt)
    {
        const int t = omp_get_thread_num(), n = omp_get_num_threads();
        if (t == 0) used = n;
        float *pw = part + (long)t * 2 * dim;
        ln_bwd_rows((int)((long)rows * t / n), (int)((long)rows * (t + 1) / n), dim, dy, x, w,
                    mean, rstd, dx, pw, pw + dim);
    }
    for (int t = 0; t < used; t++) {
        const float *pw = part + (long)t * 2 * dim;
#pragma omp simd
        for (int c = 0; c < dim; c++) {
            dw[c] += pw[c];
            db[c] += pw[dim + c];
        }
    }
    free(part);
    return 0;
}

#define GELU_K 0.7978845608028654f /* sqrt(2 / pi) */
#define GELU_A 0.044715f

/* gelu(x) = 0.5 x (1 + tanh u) = x sigmoid(2u), u = k (x + a x^3): no
 * cancellation where tanh u is near -1. */
SEQ_CLONES static void gelu_span(long n, const float *x, float *y)
{
#pragma omp simd
    for (long i = 0; i < n; i++) {
        const float xi = x[i];
        y[i] = xi * vm_sigmoid(2.0f * GELU_K * (xi + GELU_A * xi * xi * xi));
    }
}

int train_seq_gelu(long n, const float *x, float *y, void *stream)
{
    (void)stream;
    if (train_count_args(WHO, "gelu", n)) return 1;
#pragma omp parallel for schedule(static) if (parallel : n >= PAR_MIN_MATH)
    for (long i = 0; i < n; i += SPAN) gelu_span(min_l(SPAN, n - i), x + i, y + i);
    return 0;
}

/* d/dx x s(2u) = s + x s (1 - s) 2k (1 + 3a x^2), s = sigmoid(2u) (that is
 * 0.5 (1 + tanh u) + 0.5 x (1 - tanh^2 u) k (1 + 3a x^2)). */
SEQ_CLONES static void gelu_bwd_span(long n, const float *x, const float *dy, float *dx)
{
#pragma omp simd
    for (long i = 0; i < n; i++) {
        const float xi = x[i];
        float om;
        const float s = vm_sigmoid2(2.0f * GELU_K * (xi + GELU_A * xi * xi * xi), &om);
        dx[i] = dy[i] * (s + xi * s * om * (2.0f * GELU_K) * (1.0f + 3.0f * GELU_A * xi * xi));
    }
}

int train_seq_gelu_bwd(long n, const float *x, const float *dy, float *dx, void *stream)
{
    (void)stream;
    if (train_count_args(WHO, "gelu_bwd", n)) return 1;
#pragma omp parallel for schedule(static) if (parallel : n >= PAR_MIN_MATH)
    for (long i = 0; i < n; i += SPAN) gelu_bwd_span(min_l(SPAN, n - i), x + i, dy + i, dx + i);
    return 0;
}

/* One sequence's H units (gates may be pre: each unit's four inputs are read
 * before its four gates are written). has_cp is a constant at each call, so
 * the loop has no branch (a load under `cp ?` keeps gcc from vectorising). */
__attribute__((always_inline)) static inline void cell_row(int H, const float *pr,
                                                           const float *cp, float *gr, float *c,
                                                           float *h, const int has_cp)
{
#pragma omp simd
    for (int j = 0; j < H; j++) {
        const float i = vm_sigmoid(pr[j]), f = vm_sigmoid(pr[H + j]);
        const float g = vm_tanh(pr[2 * H + j]), o = vm_sigmoid(pr[3 * H + j]);
        const float cc = has_cp ? f * cp[j] + i * g : i * g;
        gr[j] = i;
        gr[H + j] = f;
        gr[2 * H + j] = g;
        gr[3 * H + j] = o;
        c[j] = cc;
        h[j] = o * vm_tanh(cc);
    }
}

SEQ_CLONES static void cell_rows(int r0, int r1, int H, const float *pre, const float *c_prev,
                                 float *gates, float *c, float *h)
{
    for (int r = r0; r < r1; r++) {
        const long o = (long)r * H;
        if (c_prev) cell_row(H, pre + 4 * o, c_prev + o, gates + 4 * o, c + o, h + o, 1);
        else cell_row(H, pre + 4 * o, NULL, gates + 4 * o, c + o, h + o, 0);
    }
}

int train_seq_lstm_cell(int rows, int H, const float *pre, const float *c_prev, float *gates,
                        float *c, float *h, void *stream)
{
    (void)stream;
    if (train_lstm_args(WHO, "lstm_cell", rows, H)) return 1;
    if (H == 0) return 0;
    const int rb = SPAN / 4 / H > 0 ? SPAN / 4 / H : 1;
#pragma omp parallel for schedule(static) if (parallel : (long)rows * H >= PAR_MIN_MATH)
    for (int r0 = 0; r0 < rows; r0 += rb)
        cell_rows(r0, (int)min_l(r0 + rb, rows), H, pre, c_prev, gates, c, h);
    return 0;
}

/* One sequence's H units of the backward (dc_prev may be dc: dc[j] is read
 * before dc_prev[j] is written); has_dc, has_cp constant at each call. */
__attribute__((always_inline)) static inline void cell_bwd_row(
    int H, const float *dh, const float *dc, const float *gr, const float *cp, const float *c,
    float *dr, float *dcp, const int has_dc, const int has_cp)
{
#pragma omp simd
    for (int j = 0; j < H; j++) {
        const float i = gr[j], f = gr[H + j], g = gr[2 * H + j], o = gr[3 * H + j];
        const float tc = vm_tanh(c[j]);
        const float dht = dh[j] * o * (1.0f - tc * tc);
        const float dct = has_dc ? dc[j] + dht : dht;
        dr[j] = dct * g * i * (1.0f - i);
        dr[H + j] = has_cp ? dct * cp[j] * f * (1.0f - f) : 0.0f;
        dr[2 * H + j] = dct * i * (1.0f - g * g);
        dr[3 * H + j] = dh[j] * tc * o * (1.0f - o);
        if (has_cp) dcp[j] = dct * f;
    }
}

SEQ_CLONES static void cell_bwd_rows(int r0, int r1, int H, const float *dh, const float *dc,
                                     const float *gates, const float *c_prev, const float *c,
                                     float *dpre, float *dc_prev)
{
    for (int r = r0; r < r1; r++) {
        const long o = (long)r * H;
        const float *g = gates + 4 * o;
        float *d = dpre + 4 * o;
        if (dc && c_prev) cell_bwd_row(H, dh + o, dc + o, g, c_prev + o, c + o, d, dc_prev + o, 1, 1);
        else if (c_prev) cell_bwd_row(H, dh + o, NULL, g, c_prev + o, c + o, d, dc_prev + o, 0, 1);
        else if (dc) cell_bwd_row(H, dh + o, dc + o, g, NULL, c + o, d, NULL, 1, 0);
        else cell_bwd_row(H, dh + o, NULL, g, NULL, c + o, d, NULL, 0, 0);
    }
}

int train_seq_lstm_cell_bwd(int rows, int H, const float *dh, const float *dc,
                            const float *gates, const float *c_prev, const float *c, float *dpre,
                            float *dc_prev, void *stream)
{
    (void)stream;
    if (train_lstm_args(WHO, "lstm_cell_bwd", rows, H)) return 1;
    if (H == 0) return 0;
    const int rb = SPAN / 4 / H > 0 ? SPAN / 4 / H : 1;
#pragma omp parallel for schedule(static) if (parallel : (long)rows * H >= PAR_MIN_MATH)
    for (int r0 = 0; r0 < rows; r0 += rb)
        cell_bwd_rows(r0, (int)min_l(r0 + rb, rows), H, dh, dc, gates, c_prev, c, dpre, dc_prev);
    return 0;
}

/* p, m, v over n elements, the scalars folded by the caller. */
SEQ_CLONES static void adamw_span(long n, float *p, const float *g, float *m, float *v,
                                  float b1, float b2, float c1, float c2, float decay, float a,
                                  float e)
{
#pragma omp simd
    for (long i = 0; i < n; i++) {
        const float gi = g[i];
        const float mi = b1 * m[i] + c1 * gi, vi = b2 * v[i] + c2 * gi * gi;
        m[i] = mi;
        v[i] = vi;
        p[i] = p[i] * decay - a * mi / (sqrtf(vi) + e);
    }
}

int train_seq_adamw(long n, float *p, const float *g, float *m, float *v, float *t, float lr,
                    float b1, float b2, float eps, float wd, void *stream)
{
    (void)stream;
    if (train_adamw_args(WHO, n, *t, b1, b2)) return 1;
    const double step = (double)*t + 1.0;
    *t = (float)step;
    const double bc2_sqrt = sqrt(1.0 - pow(b2, step));
    const float decay = (float)(1.0 - (double)lr * wd);
    const float c1 = (float)(1.0 - b1), c2 = (float)(1.0 - b2);
    const float a = (float)(lr / (1.0 - pow(b1, step)) * bc2_sqrt);
    const float e = (float)(eps * bc2_sqrt);
#pragma omp parallel for schedule(static) if (parallel : n >= PAR_MIN)
    for (long i = 0; i < n; i += SPAN)
        adamw_span(min_l(SPAN, n - i), p + i, g + i, m + i, v + i, b1, b2, c1, c2, decay, a, e);
    return 0;
}
