/* tests/cpu/train_naive_seq_test.c - the reference table's (cpu-naive) sequence
 * models' operations against answers computed another way:
 *  - long double formulas (gelu, layernorm, attention's softmax, the LSTM
 *    cell), central differences of those long double forwards for every
 *    backward (attn_softmax_bwd, layernorm_bwd, gelu_bwd, lstm_cell_bwd);
 *  - hand-picked values with known results: layernorm rows of known mean
 *    and variance, an LSTM cell at i = 1/2, f = 3/4, g = 1/2, o = 1/4,
 *    embedding rows and their scatter-add with repeated ids, AdamW's first
 *    step p (1 - lr wd) - lr g / (|g| + eps), permute's index map;
 *  - AdamW's three steps re-derived in long double from PyTorch's formula;
 *  - gemm_batched against the reference's own gemm on each matrix (gemm is
 *    checked against gemm_ref_element in test_train_ops.c);
 *  - the contract's rules: the masked part of attention never read (NaN
 *    there) and written 0, scores that overflow exp without the max,
 *    ids == NULL meaning r % vocab, c_prev == NULL meaning zeros and
 *    dc_prev left alone, the in-place forms the contract allows;
 *  - the check can fail: an error planted in one element of gelu's output,
 *    and a NaN, fail.
 * The optimised tables are checked against this one in test_train_seq.c. */
#include "train_test.h"

#include <math.h>

#define PI_L 3.14159265358979323846264338327950288L

/* got vs a long double answer through the suite's checker (k-term reduction). */
static int agree_ld(const char *what, const float *got, const long double *want, size_t n,
                    long k, int quiet)
{
    double *ref = xalloc(n * sizeof *ref);
    for (size_t i = 0; i < n; i++) ref[i] = (double)want[i];
    check_result c = check_compare(got, ref, n, check_tolerance(DTYPE_FP32, k));
    free(ref);
    if (!quiet)
        EXPECT(c.pass, "%s: rel %g max %g (tol %g) nonfinite %ld worst at %ld", what, c.rel_err,
               c.max_abs_err, c.tolerance, c.nonfinite, c.worst_index);
    return c.pass;
}
static long double *ldbuf(size_t n) { return xalloc(n * sizeof(long double)); }

/* ---- gemm_batched: each matrix as the reference's own gemm --------------------- */

/* Against REF->gemm on each matrix (gemm is tested against gemm_ref_element
 * in test_train_ops.c): stacked matrices, A shared (sA 0), and C matrices
 * side by side in one row (sC = N, ldc = batch * N, as heads in a row). */
static void ref_gemm_batched(void)
{
    const int M = 5, N = 3, K = 4, batch = 3;
    for (int ta = 0; ta <= 1; ta++)
        for (int tb = 0; tb <= 1; tb++)
            for (int layout = 0; layout < 2; layout++) {
                const int lda = (ta ? M : K) + 1, ldb = tb ? K : N;
                const long long sA = layout ? 0 : (long long)(ta ? K : M) * lda;
                const long long sB = (long long)(tb ? N : K) * ldb + 2;
                const int ldc = layout ? batch * N : N + 1;
                const long long sC = layout ? N : (long long)M * ldc;
                const size_t na = (size_t)(ta ? K : M) * lda * batch, nb = (size_t)sB * batch;
                const size_t nc = (size_t)M * batch * ldc;
                float *A = frand(na, 1), *B = frand(nb, 2), *C = frand(nc, 3);
                float *R = fcopy(C, nc);
                EXPECT(REF->gemm_batched(ta, tb, M, N, K, A, lda, sA, B, ldb, sB, 0.5f, C, ldc,
                                         sC, batch, NULL) == 0,
                       "gemm_batched: %s", err_get());
                for (int i = 0; i < batch; i++)
                    REF->gemm(ta, tb, M, N, K, A + i * sA, lda, B + i * sB, ldb, 0.5f,
                              R + i * sC, ldc, NULL);
                EXPECT(memcmp(C, R, nc * sizeof *C) == 0,
                       "gemm_batched ta %d tb %d layout %d differs from its gemms", ta, tb, layout);
                free(A), free(B), free(C), free(R);
            }
}

/* ---- add, permute ------------------------------------------------------------- */

static void ref_add_permute(void)
{
    float a[3] = {1.5f, -2, 0.25f}, b[3] = {0.5f, 3, -0.25f}, y[3];
    check_poison(y, 3);
    EXPECT(REF->add(3, a, b, y, NULL) == 0 && y[0] == 2 && y[1] == 1 && y[2] == 0,
           "add %g %g %g", y[0], y[1], y[2]);
    EXPECT(REF->add(3, a, b, a, NULL) == 0 && a[0] == 2 && a[1] == 1 && a[2] == 0,
           "add into a: %g %g %g", a[0], a[1], a[2]);
    EXPECT(REF->add(3, a, b, b, NULL) == 0 && b[0] == 2.5f && b[1] == 4 && b[2] == -0.25f,
           "add into b: %g %g %g", b[0], b[1], b[2]);
    /* x[i] = i over 2 x 3 x 4 x 5: y's element at (a, c, b, d) must be x's
     * index of (a, b, c, d); permute(A, C, B, D) brings x back */
    enum { A = 2, B = 3, C = 4, D = 5, N = A * B * C * D };
    float x[N], p[N], q[N];
    for (int i = 0; i < N; i++) x[i] = (float)i;
    check_poison(p, N), check_poison(q, N);
    EXPECT(REF->permute(A, B, C, D, x, p, NULL) == 0, "permute: %s", err_get());
    int bad = -1;
    for (int o = 0; o < N && bad < 0; o++) {
        int d = o % D, b = (o / D) % B, c = (o / (D * B)) % C, a = o / (D * B * C);
        if (p[o] != (float)(((a * B + b) * C + c) * D + d)) bad = o;
    }
    EXPECT(bad < 0, "permute: y[%d] = %g", bad, bad < 0 ? 0.0 : p[bad]);
    EXPECT(REF->permute(A, C, B, D, p, q, NULL) == 0 && memcmp(q, x, sizeof x) == 0,
           "permute(A, C, B, D) does not undo permute(A, B, C, D)");
}

/* ---- attention's causal softmax ---------------------------------------------- */

/* p of row r (query t = r % T) in long double, without the max shift:
 * p_s = 1 / sum_u exp(scale (z_u - z_s)). */
static long double attn_p_ld(const float *zr, int t, float scale, int s)
{
    long double sum = 0.0L;
    for (int u = 0; u <= t; u++) sum += expl((long double)scale * ((long double)zr[u] - zr[s]));
    return 1.0L / sum;
}

static void ref_attn(void)
{
    enum { T = 7, ROWS = 3 * T };
    const float scale = 0.75f;
    float *z = frand(ROWS * T, 11), *p = fpoison(ROWS * T), *dp = frand(ROWS * T, 12);
    for (int i = 0; i < ROWS * T; i++) z[i] *= 3.0f;
    /* exp(scale z) would overflow without the max: a row of large values,
     * and full rows (t = T-1) whose max is last, and first, by far */
    for (int s = 0; s < T; s++) z[T + s] = 1000.0f + (float)s;
    z[(T - 1) * T + T - 1] = 2000.0f;
    z[T * (2 * T - 1)] = 2000.0f;
    for (int r = 0; r < ROWS; r++)
        for (int s = r % T + 1; s < T; s++) z[r * T + s] = dp[r * T + s] = NAN; /* never read */
    long double *want = ldbuf(ROWS * T), *dwant = ldbuf(ROWS * T);
    for (int r = 0; r < ROWS; r++)
        for (int s = 0; s < T; s++)
            want[r * T + s] = s <= r % T ? attn_p_ld(z + r * T, r % T, scale, s) : 0.0L;
    EXPECT(REF->attn_softmax(ROWS, T, scale, z, p, NULL) == 0, "attn_softmax: %s", err_get());
    agree_ld("cpu-naive attn_softmax vs long double", p, want, ROWS * T, T, 0);
    int zeros = 1;
    for (int r = 0; r < ROWS; r++)
        for (int s = r % T + 1; s < T; s++) zeros &= p[r * T + s] == 0.0f;
    EXPECT(zeros, "attn_softmax: the masked part is not 0");
    float *zi = fcopy(z, ROWS * T);
    EXPECT(REF->attn_softmax(ROWS, T, scale, zi, zi, NULL) == 0 &&
               memcmp(zi, p, sizeof(float) * ROWS * T) == 0,
           "attn_softmax in place (p == z) differs");
    /* backward: central differences of L = sum_s dp_s p_s(z) in z_s */
    const long double h = 1e-6L;
    for (int r = 0; r < ROWS; r++) {
        const int t = r % T;
        for (int s = 0; s < T; s++) {
            if (s > t) {
                dwant[r * T + s] = 0.0L;
                continue;
            }
            float zr[T];
            memcpy(zr, z + r * T, sizeof zr);
            long double lp = 0.0L, lm = 0.0L; /* L at z_s + h and z_s - h */
            for (int u = 0; u <= t; u++) {
                long double sp = 0.0L, sm = 0.0L;
                for (int v = 0; v <= t; v++) {
                    long double dv = (long double)zr[v] + (v == s ? h : 0.0L);
                    long double du = (long double)zr[u] + (u == s ? h : 0.0L);
                    sp += expl((long double)scale * (dv - du));
                    dv = (long double)zr[v] - (v == s ? h : 0.0L);
                    du = (long double)zr[u] - (u == s ? h : 0.0L);
                    sm += expl((long double)scale * (dv - du));
                }
                lp += dp[r * T + u] / sp;
                lm += dp[r * T + u] / sm;
            }
            dwant[r * T + s] = (lp - lm) / (2.0L * h);
        }
    }
    float *dz = fpoison(ROWS * T);
    EXPECT(REF->attn_softmax_bwd(ROWS, T, scale, p, dp, dz, NULL) == 0, "attn_softmax_bwd: %s",
           err_get());
    agree_ld("cpu-naive attn_softmax_bwd vs central differences", dz, dwant, ROWS * T, T, 0);
    float *gi = fcopy(dp, ROWS * T);
    EXPECT(REF->attn_softmax_bwd(ROWS, T, scale, p, gi, gi, NULL) == 0 &&
               memcmp(gi, dz, sizeof(float) * ROWS * T) == 0,
           "attn_softmax_bwd in place (dz == dp) differs");
    free(z), free(p), free(dp), free(want), free(dwant), free(zi), free(dz), free(gi);
}

/* ---- embedding ------------------------------------------------------------------ */

static void ref_embedding(void)
{
    enum { V = 7, DIM = 5, R = 9 };
    const int ids[R] = {3, 1, 3, 0, 3, 6, 1, 3, 2}; /* 3 four times, 4 and 5 never */
    float *table = frand(V * DIM, 21), *y = fpoison(R * DIM), *y0 = frand(R * DIM, 22);
    EXPECT(REF->embedding(R, DIM, ids, V, table, y, 0, NULL) == 0, "embedding: %s", err_get());
    int ok = 1;
    for (int r = 0; r < R; r++)
        ok &= memcmp(y + r * DIM, table + ids[r] * DIM, sizeof(float) * DIM) == 0;
    EXPECT(ok, "embedding: a row is not its table row");
    /* ids NULL: r % vocab (position embeddings, vocab = T = 4), accumulated */
    float *ya = fcopy(y0, R * DIM);
    EXPECT(REF->embedding(R, DIM, NULL, 4, table, ya, 1, NULL) == 0, "embedding: %s", err_get());
    ok = 1;
    for (int r = 0; r < R; r++)
        for (int c = 0; c < DIM; c++)
            ok &= ya[r * DIM + c] == y0[r * DIM + c] + table[(r % 4) * DIM + c];
    EXPECT(ok, "embedding ids NULL, accumulate: not y + table[r %% 4]");
    /* backward: repeated ids summed, unused rows 0 */
    float *dy = frand(R * DIM, 23), *dt = fpoison(V * DIM), *dt4 = fpoison(4 * DIM);
    long double *want = ldbuf(V * DIM), *want4 = ldbuf(4 * DIM);
    for (int r = 0; r < R; r++)
        for (int c = 0; c < DIM; c++) {
            want[ids[r] * DIM + c] += dy[r * DIM + c];
            want4[(r % 4) * DIM + c] += dy[r * DIM + c];
        }
    EXPECT(REF->embedding_bwd(R, DIM, ids, V, dy, dt, NULL) == 0, "embedding_bwd: %s", err_get());
    agree_ld("cpu-naive embedding_bwd", dt, want, V * DIM, R, 0);
    EXPECT(dt[4 * DIM] == 0.0f && dt[5 * DIM + DIM - 1] == 0.0f, "embedding_bwd: unused rows %g %g",
           dt[4 * DIM], dt[5 * DIM + DIM - 1]);
    EXPECT(REF->embedding_bwd(R, DIM, NULL, 4, dy, dt4, NULL) == 0, "embedding_bwd: %s", err_get());
    agree_ld("cpu-naive embedding_bwd ids NULL", dt4, want4, 4 * DIM, R, 0);
    free(table), free(y), free(y0), free(ya), free(dy), free(dt), free(dt4), free(want),
        free(want4);
}

/* ---- layernorm ---------------------------------------------------------------------- */

/* y = LN(x; w, b) of one row in long double; returns nothing, fills y. */
static void ln_row_ld(int dim, const long double *x, const float *w, const float *b,
                      long double *y)
{
    long double mu = 0.0L, var = 0.0L;
    for (int c = 0; c < dim; c++) mu += x[c];
    mu /= dim;
    for (int c = 0; c < dim; c++) var += (x[c] - mu) * (x[c] - mu);
    var /= dim;
    for (int c = 0; c < dim; c++) y[c] = (x[c] - mu) / sqrtl(var + 1e-5L) * w[c] + b[c];
}

static void ref_layernorm(void)
{
    /* rows with a known mean and variance: mu + sd * (+1, -1, +1, ...) */
    enum { DIM = 8 };
    const float mus[3] = {3.0f, -0.5f, 0.0f}, sds[3] = {2.0f, 0.25f, 1e-3f};
    float x[3 * DIM], w[DIM], b[DIM], y[3 * DIM], mean[3], rstd[3];
    for (int c = 0; c < DIM; c++) w[c] = 0.5f + 0.25f * c, b[c] = 0.125f * c - 0.5f;
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < DIM; c++) x[r * DIM + c] = mus[r] + (c & 1 ? -sds[r] : sds[r]);
    check_poison(y, 3 * DIM);
    EXPECT(REF->layernorm(3, DIM, x, w, b, y, mean, rstd, NULL) == 0, "layernorm: %s", err_get());
    for (int r = 0; r < 3; r++) {
        const double sd = sds[r], rs = 1.0 / sqrt(sd * sd + 1e-5);
        EXPECT(mean[r] == mus[r] && fabs(rstd[r] - rs) <= 1e-7 * rs,
               "layernorm row %d: mean %g rstd %.9g, want %g %.9g", r, mean[r], rstd[r], mus[r], rs);
        for (int c = 0; c < DIM; c++) {
            const double want = (c & 1 ? -sd : sd) * rs * w[c] + b[c];
            EXPECT(fabs(y[r * DIM + c] - want) <= 1e-6, "layernorm y[%d][%d] %.9g, want %.9g", r,
                   c, y[r * DIM + c], want);
        }
    }
    /* backward: central differences of L = sum dy * LN(x; w, b) in x, w and b */
    enum { R = 5, D = 12 };
    float *xr = frand(R * D, 31), *wr = frand(D, 32), *br = frand(D, 33), *dy = frand(R * D, 34);
    float *yr = fpoison(R * D), *mr = fpoison(R), *sr = fpoison(R);
    float *dx = fpoison(R * D), *dw = fpoison(D), *db = fpoison(D);
    long double *wdx = ldbuf(R * D), *wdw = ldbuf(D), *wdb = ldbuf(D), *yl = ldbuf(R * D);
    for (int i = 0; i < R * D; i++) xr[i] = 2.0f * xr[i] + (float)(i / D); /* rows off 0 */
    EXPECT(REF->layernorm(R, D, xr, wr, br, yr, mr, sr, NULL) == 0, "layernorm: %s", err_get());
    for (int r = 0; r < R; r++) {
        long double xl[D], yp[D], ym[D];
        for (int c = 0; c < D; c++) xl[c] = xr[r * D + c];
        ln_row_ld(D, xl, wr, br, yl + r * D);
        for (int c = 0; c < D; c++) {
            const long double h = 1e-6L;
            xl[c] += h;
            ln_row_ld(D, xl, wr, br, yp);
            xl[c] -= 2 * h;
            ln_row_ld(D, xl, wr, br, ym);
            xl[c] += h;
            long double s = 0.0L;
            for (int u = 0; u < D; u++) s += dy[r * D + u] * (yp[u] - ym[u]);
            wdx[r * D + c] = s / (2 * h);
        }
        /* y is linear in w[c] and b[c]: dL/dw[c] = dy xh, dL/db[c] = dy */
        for (int c = 0; c < D; c++) {
            wdw[c] += dy[r * D + c] * ((yl[r * D + c] - br[c]) / wr[c]);
            wdb[c] += dy[r * D + c];
        }
    }
    agree_ld("cpu-naive layernorm vs long double", yr, yl, R * D, D, 0);
    EXPECT(REF->layernorm_bwd(R, D, dy, xr, wr, mr, sr, dx, dw, db, NULL) == 0,
           "layernorm_bwd: %s", err_get());
    agree_ld("cpu-naive layernorm_bwd dx vs central differences", dx, wdx, R * D, D, 0);
    agree_ld("cpu-naive layernorm_bwd dw", dw, wdw, D, R, 0);
    agree_ld("cpu-naive layernorm_bwd db", db, wdb, D, R, 0);
    free(xr), free(wr), free(br), free(dy), free(yr), free(mr), free(sr), free(dx), free(dw),
        free(db), free(wdx), free(wdw), free(wdb), free(yl);
}

/* ---- gelu --------------------------------------------------------------------------- */

static long double gelu_ld(long double x)
{
    const long double k = sqrtl(2.0L / PI_L);
    return 0.5L * x * (1.0L + tanhl(k * (x + 0.044715L * x * x * x)));
}

static void ref_gelu(void)
{
    enum { N = 1601 };
    float *x = fbuf(N), *y = fpoison(N), *dy = frand(N, 41), *dx = fpoison(N);
    long double *want = ldbuf(N), *dwant = ldbuf(N);
    for (int i = 0; i < N; i++) { /* -8 .. 8 in steps of 0.01 */
        x[i] = (float)(i - N / 2) / 100.0f;
        want[i] = gelu_ld(x[i]);
        const long double h = 1e-7L;
        dwant[i] = dy[i] * (gelu_ld(x[i] + h) - gelu_ld(x[i] - h)) / (2 * h);
    }
    EXPECT(REF->gelu(N, x, y, NULL) == 0, "gelu: %s", err_get());
    agree_ld("cpu-naive gelu vs long double", y, want, N, 1, 0);
    EXPECT(y[N / 2] == 0.0f && y[N - 1] == 8.0f && fabsf(y[0]) < 1e-15f,
           "gelu(0) %g, gelu(8) %g, gelu(-8) %g", y[N / 2], y[N - 1], y[0]);
    EXPECT(REF->gelu_bwd(N, x, dy, dx, NULL) == 0, "gelu_bwd: %s", err_get());
    agree_ld("cpu-naive gelu_bwd vs central differences", dx, dwant, N, 1, 0);
    float *xi = fcopy(x, N), *gi = fcopy(dy, N);
    EXPECT(REF->gelu(N, xi, xi, NULL) == 0 && memcmp(xi, y, sizeof(float) * N) == 0,
           "gelu in place differs");
    EXPECT(REF->gelu_bwd(N, x, gi, gi, NULL) == 0 && memcmp(gi, dx, sizeof(float) * N) == 0,
           "gelu_bwd in place differs");
    free(x), free(y), free(dy), free(dx), free(want), free(dwant), free(xi), free(gi);
}

/* ---- LSTM cell -------------------------------------------------------------------------- */

static long double sigm_ld(long double x) { return 1.0L / (1.0L + expl(-x)); }

/* c and h of one unit in long double from its four pre-activations. */
static void cell_ld(const long double pre[4], long double cp, long double *c, long double *h)
{
    *c = sigm_ld(pre[1]) * cp + sigm_ld(pre[0]) * tanhl(pre[2]);
    *h = sigm_ld(pre[3]) * tanhl(*c);
}

static void ref_lstm(void)
{
    /* i = 0.5, f = 0.75, g = 0.5, o = 0.25 (pre = 0, ln 3, atanh 0.5, -ln 3);
     * c_prev 2: c = 0.75*2 + 0.5*0.5 = 1.75, h = 0.25 tanh(1.75); no c_prev:
     * c = 0.25, h = 0.25 tanh(0.25) */
    const float pre[4] = {0.0f, (float)log(3.0), (float)atanh(0.5), -(float)log(3.0)};
    const float cp = 2.0f;
    float gates[4], c, h;
    EXPECT(REF->lstm_cell(1, 1, pre, &cp, gates, &c, &h, NULL) == 0, "lstm_cell: %s", err_get());
    EXPECT(gates[0] == 0.5f && fabsf(gates[1] - 0.75f) < 1e-7f && fabsf(gates[2] - 0.5f) < 1e-7f &&
               fabsf(gates[3] - 0.25f) < 1e-7f,
           "lstm_cell gates %.9g %.9g %.9g %.9g", gates[0], gates[1], gates[2], gates[3]);
    EXPECT(fabs(c - 1.75) < 2e-7 && fabs(h - 0.25 * tanh(1.75)) < 1e-7, "lstm_cell c %.9g h %.9g",
           c, h);
    EXPECT(REF->lstm_cell(1, 1, pre, NULL, gates, &c, &h, NULL) == 0 && fabs(c - 0.25) < 1e-7 &&
               fabs(h - 0.25 * tanh(0.25)) < 1e-7,
           "lstm_cell without c_prev: c %.9g h %.9g", c, h);
    /* backward: central differences of L = sum dh h + dc c in pre and c_prev */
    enum { R = 3, H = 5, G = 4 * H };
    float *p = frand(R * G, 51), *cpr = frand(R * H, 52), *dh = frand(R * H, 53);
    float *dc = frand(R * H, 54), *gt = fpoison(R * G), *cc = fpoison(R * H), *hh = fpoison(R * H);
    float *dpre = fpoison(R * G), *dcp = fpoison(R * H);
    long double *wc = ldbuf(R * H), *wh = ldbuf(R * H), *wdpre = ldbuf(R * G), *wdcp = ldbuf(R * H);
    for (int i = 0; i < R * G; i++) p[i] *= 3.0f;
    for (int nocp = 0; nocp <= 1; nocp++) {
        const float *cpp = nocp ? NULL : cpr;
        for (int r = 0; r < R; r++)
            for (int j = 0; j < H; j++) {
                const int o = r * H + j;
                long double pl[4], cl = nocp ? 0.0L : cpr[o], c1, h1, c2, h2;
                for (int q = 0; q < 4; q++) pl[q] = p[r * G + q * H + j];
                cell_ld(pl, cl, &wc[o], &wh[o]);
                const long double e = 1e-7L, gdc = nocp ? 0.0L : dc[o];
                for (int q = 0; q < 4; q++) {
                    pl[q] += e;
                    cell_ld(pl, cl, &c1, &h1);
                    pl[q] -= 2 * e;
                    cell_ld(pl, cl, &c2, &h2);
                    pl[q] += e;
                    wdpre[r * G + q * H + j] = (dh[o] * (h1 - h2) + gdc * (c1 - c2)) / (2 * e);
                }
                cell_ld(pl, cl + e, &c1, &h1);
                cell_ld(pl, cl - e, &c2, &h2);
                wdcp[o] = (dh[o] * (h1 - h2) + gdc * (c1 - c2)) / (2 * e);
            }
        const char *tag = nocp ? " (no c_prev, no dc)" : "";
        char what[96];
        EXPECT(REF->lstm_cell(R, H, p, cpp, gt, cc, hh, NULL) == 0, "lstm_cell: %s", err_get());
        snprintf(what, sizeof what, "cpu-naive lstm_cell c%s", tag);
        agree_ld(what, cc, wc, R * H, 2, 0);
        snprintf(what, sizeof what, "cpu-naive lstm_cell h%s", tag);
        agree_ld(what, hh, wh, R * H, 2, 0);
        check_poison(dcp, R * H);
        EXPECT(REF->lstm_cell_bwd(R, H, dh, nocp ? NULL : dc, gt, cpp, cc, dpre, dcp, NULL) == 0,
               "lstm_cell_bwd: %s", err_get());
        snprintf(what, sizeof what, "cpu-naive lstm_cell_bwd dpre%s", tag);
        agree_ld(what, dpre, wdpre, R * G, 2, 0);
        if (!nocp) {
            agree_ld("cpu-naive lstm_cell_bwd dc_prev", dcp, wdcp, R * H, 2, 0);
            /* in place: gates == pre, dc_prev == dc */
            float *pi = fcopy(p, R * G), *ci = fpoison(R * H), *hi = fpoison(R * H);
            float *di = fcopy(dc, R * H), *dpi = fpoison(R * G);
            EXPECT(REF->lstm_cell(R, H, pi, cpr, pi, ci, hi, NULL) == 0 &&
                       memcmp(pi, gt, sizeof(float) * R * G) == 0 &&
                       memcmp(hi, hh, sizeof(float) * R * H) == 0,
                   "lstm_cell in place (gates == pre) differs");
            EXPECT(REF->lstm_cell_bwd(R, H, dh, di, gt, cpr, cc, dpi, di, NULL) == 0 &&
                       memcmp(di, dcp, sizeof(float) * R * H) == 0 &&
                       memcmp(dpi, dpre, sizeof(float) * R * G) == 0,
                   "lstm_cell_bwd in place (dc_prev == dc) differs");
            free(pi), free(ci), free(hi), free(di), free(dpi);
        } else {
            int kept = 1;
            for (int i = 0; i < R * H; i++) kept &= isnan(dcp[i]);
            EXPECT(kept, "lstm_cell_bwd wrote dc_prev with c_prev NULL");
        }
    }
    free(p), free(cpr), free(dh), free(dc), free(gt), free(cc), free(hh), free(dpre), free(dcp),
        free(wc), free(wh), free(wdpre), free(wdcp);
}

/* ---- AdamW -------------------------------------------------------------------------------- */

static void ref_adamw(void)
{
    enum { N = 1000 };
    const float lr = 0.05f, b1 = 0.9f, b2 = 0.999f, eps = 1e-8f, wd = 0.1f;
    float *p = frand(N, 61), *p0 = fcopy(p, N), *m = fbuf(N), *v = fbuf(N), t = 0.0f;
    long double *pl = ldbuf(N), *ml = ldbuf(N), *vl = ldbuf(N), *dl = ldbuf(N);
    float *d = fbuf(N);
    for (int i = 0; i < N; i++) pl[i] = p[i];
    for (int step = 1; step <= 3; step++) {
        float *g = frand(N, 61 + step);
        if (step == 2) g[7] = 0.0f; /* a zero gradient: m and v decay, p still moves */
        /* PyTorch 1.13's _single_tensor_adamw, in long double */
        const long double bc1 = 1.0L - powl(b1, step), bc2 = 1.0L - powl(b2, step);
        for (int i = 0; i < N; i++) {
            pl[i] *= 1.0L - (long double)lr * wd;
            ml[i] = b1 * ml[i] + (1.0L - b1) * g[i];
            vl[i] = b2 * vl[i] + (1.0L - b2) * g[i] * g[i];
            pl[i] -= lr / bc1 * ml[i] / (sqrtl(vl[i]) / sqrtl(bc2) + eps);
        }
        EXPECT(REF->adamw(N, p, g, m, v, &t, lr, b1, b2, eps, wd, NULL) == 0, "adamw: %s",
               err_get());
        EXPECT(t == (float)step, "adamw step %d: t = %g", step, t);
        /* the change of p (its rounding would hide an error in the update) */
        for (int i = 0; i < N; i++) d[i] = p[i] - p0[i], dl[i] = pl[i] - p0[i];
        char what[64];
        snprintf(what, sizeof what, "cpu-naive adamw step %d p - p0", step);
        agree_ld(what, d, dl, N, 1, 0);
        snprintf(what, sizeof what, "cpu-naive adamw step %d m", step);
        agree_ld(what, m, ml, N, 1, 0);
        snprintf(what, sizeof what, "cpu-naive adamw step %d v", step);
        agree_ld(what, v, vl, N, 1, 0);
        if (step == 1) { /* m / bc1 = g, sqrt(v / bc2) = |g|: p0 (1 - lr wd) - lr g / (|g| + eps) */
            int ok = 1;
            for (int i = 0; i < N; i++) {
                double want = p0[i] * (1.0 - (double)lr * wd) - lr * g[i] / (fabs(g[i]) + eps);
                ok &= fabs(p[i] - want) < 1e-7;
            }
            EXPECT(ok, "adamw step 1 is not p (1 - lr wd) - lr sign(g)");
        }
        free(g);
    }
    free(p), free(p0), free(m), free(v), free(pl), free(ml), free(vl), free(dl), free(d);
}

/* ---- the check can fail --------------------------------------------------------------- */

/* An error planted in the largest element of the reference's gelu output
 * (0.1% of it) must fail the comparison with the long double answer, and so
 * must a NaN. */
static void planted_errors_fail(void)
{
    enum { N = 4097 };
    float *x = frand(N, 91), *y = fpoison(N);
    long double *want = ldbuf(N);
    for (int i = 0; i < N; i++) x[i] *= 4.0f, want[i] = gelu_ld(x[i]);
    EXPECT(REF->gelu(N, x, y, NULL) == 0, "gelu: %s", err_get());
    EXPECT(agree_ld("planted: right answer", y, want, N, 1, 1), "the right gelu fails");
    int big = 0;
    for (int i = 1; i < N; i++)
        if (fabsl(want[i]) > fabsl(want[big])) big = i;
    y[big] *= 1.001f;
    EXPECT(!agree_ld("planted", y, want, N, 1, 1), "one gelu element off by 0.1%% passes");
    y[big] = NAN;
    EXPECT(!agree_ld("planted", y, want, N, 1, 1), "one NaN passes");
    free(x), free(y), free(want);
}

int main(void)
{
    ref_gemm_batched();
    ref_add_permute();
    ref_attn();
    ref_embedding();
    ref_layernorm();
    ref_gelu();
    ref_lstm();
    ref_adamw();
    planted_errors_fail();
    TEST_END();
}
