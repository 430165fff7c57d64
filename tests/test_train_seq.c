/* tests/test_train_seq.c - the sequence models' operations (gemm_batched,
 * add, permute, attn_softmax(_bwd), embedding(_bwd), layernorm(_bwd),
 * gelu(_bwd), lstm_cell(_bwd), adamw) of the CPU train_ops tables:
 *  - the reference (cpu-naive) against independent answers: long double
 *    formulas, central differences of long double forwards for every
 *    backward, hand-picked values with known results, and AdamW's three
 *    steps re-derived in long double from PyTorch's formula;
 *  - every table in TABLES against cpu-naive, 1 and 2 threads, on seeded
 *    random data at odd sizes and at the gpt-b8 / lstm-b32 sizes (above the
 *    parallel thresholds of cpu/train_seq.c), with the suite's checker at
 *    check_tolerance(fp32, the op's reduction length), outputs poisoned with
 *    NaN first;
 *  - the contract's rules, in every table: the masked part of attention
 *    never read (NaN there) and written 0, ids == NULL meaning r % vocab,
 *    c_prev == NULL meaning zeros (and dc_prev left alone), dc == NULL, the
 *    in-place forms allowed (y == a or b, p == z, dz == dp, y == x, dx ==
 *    dy, gates == pre, dc_prev == dc), gemm_batched's shared A and side by
 *    side C, and its C padding and gaps left alone;
 *  - bad sizes, ids, step counts and betas refused, naming the value;
 *  - the checks can fail: an error planted in one element of an output
 *    (the reference's gelu; cpu-omp's layernorm_bwd, attention and AdamW)
 *    fails, and so does a NaN.
 */
#include "train_test.h"

#include "gemm_cpu.h"

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

/* ---- every table against the reference ------------------------------------------- */

static char g_what[160]; /* the case being compared, for messages */
#define WHAT(...) (snprintf(g_what, sizeof g_what, __VA_ARGS__), g_what)

/* Both calls succeeded. */
static int both_ok(const table *t, const char *what, int rref, int rgot)
{
    return call_ok(t, what, rref) && call_ok(t, what, rgot);
}

typedef struct { int ta, tb, M, N, K, batch, layout; } bdims;
/* layout 0: stacked with gaps (sC > M * ldc), C rows padded; 1: A shared
 * (sA 0); 2: C side by side in a row (sC = N, ldc = batch * N). cpu-omp
 * splits batches of attention's 64x64x32 products between threads, and runs
 * a batch of 1 (or any at 1 thread) one matrix after another. */
static const bdims BATCHES[] = {
    {0, 1, 64, 64, 32, 8, 0}, {0, 0, 64, 32, 64, 8, 0}, {1, 0, 64, 32, 64, 8, 0},
    {0, 0, 64, 64, 32, 8, 2}, {1, 1, 7, 5, 3, 5, 0},    {0, 1, 7, 5, 3, 5, 1},
    {1, 0, 9, 6, 11, 3, 2},   {0, 0, 1, 17, 9, 4, 0},   {1, 1, 33, 40, 50, 1, 0},
};

static void batched_case(const table *t, const bdims *g, float beta)
{
    const int M = g->M, N = g->N, K = g->K, ta = g->ta, tb = g->tb, batch = g->batch;
    const int lda = (ta ? M : K) + 1, ldb = (tb ? K : N) + 2;
    const long long sA = g->layout == 1 ? 0 : (long long)(ta ? K : M) * lda + 3;
    const long long sB = (long long)(tb ? N : K) * ldb + 1;
    const int ldc = g->layout == 2 ? batch * N : N + 2;
    const long long sC = g->layout == 2 ? N : (long long)M * ldc + 5;
    const size_t na = (size_t)(sA ? sA * batch : (ta ? K : M) * lda), nb = (size_t)sB * batch;
    const size_t nc = g->layout == 2 ? (size_t)M * ldc : (size_t)sC * batch;
    float *A = frand(na, 101), *B = frand(nb, 102), *C0 = frand(nc, 103);
    float *keep = fcopy(C0, nc);
    for (int i = 0; i < batch; i++) /* NaN in the matrices only; pads and gaps random */
        for (int r = 0; r < M; r++)
            for (int c = 0; c < N; c++) {
                float *e = C0 + i * sC + (long)r * ldc + c;
                if (beta == 0.0f) *e = NAN;
                keep[e - C0] = NAN; /* marks an element of some matrix */
            }
    float *C = fcopy(C0, nc), *R = fcopy(C0, nc);
    const char *what = WHAT("gemm_batched %dx%dx%d x%d ta %d tb %d layout %d beta %g", M, N, K,
                            batch, ta, tb, g->layout, beta);
    if (both_ok(t, what,
                REF->gemm_batched(ta, tb, M, N, K, A, lda, sA, B, ldb, sB, beta, R, ldc, sC,
                                  batch, NULL),
                t->ops->gemm_batched(ta, tb, M, N, K, A, lda, sA, B, ldb, sB, beta, C, ldc, sC,
                                     batch, NULL))) {
        const size_t n = (size_t)M * N * batch;
        float *got = fbuf(n), *want = fbuf(n);
        size_t k = 0, gap_changed = 0;
        for (size_t i = 0; i < nc; i++) {
            if (isnan(keep[i])) got[k] = C[i], want[k++] = R[i];
            else gap_changed += memcmp(&C[i], &C0[i], sizeof(float)) != 0;
        }
        agree(t->name, what, got, want, n, K, 0);
        EXPECT(gap_changed == 0, "%s %s wrote %zu elements outside its matrices", t->name, what,
               gap_changed);
        free(got), free(want);
    }
    free(A), free(B), free(C0), free(keep), free(C), free(R);
}

static void add_case(const table *t, long n)
{
    float *a = frand(n, 111), *b = frand(n, 112), *y = fpoison(n), *ry = fpoison(n);
    const char *what = WHAT("add n %ld", n);
    if (both_ok(t, what, REF->add(n, a, b, ry, NULL), t->ops->add(n, a, b, y, NULL)))
        agree(t->name, what, y, ry, n, 1, 0);
    float *ai = fcopy(a, n), *bi = fcopy(b, n);
    if (call_ok(t, "add y == a", t->ops->add(n, ai, b, ai, NULL)))
        agree(t->name, "add y == a", ai, ry, n, 1, 0);
    if (call_ok(t, "add y == b", t->ops->add(n, a, bi, bi, NULL)))
        agree(t->name, "add y == b", bi, ry, n, 1, 0);
    free(a), free(b), free(y), free(ry), free(ai), free(bi);
}

static void permute_case(const table *t, int A, int B, int C, int D)
{
    const size_t n = (size_t)A * B * C * D;
    float *x = frand(n, 121), *y = fpoison(n), *ry = fpoison(n);
    const char *what = WHAT("permute %dx%dx%dx%d", A, B, C, D);
    if (both_ok(t, what, REF->permute(A, B, C, D, x, ry, NULL),
                t->ops->permute(A, B, C, D, x, y, NULL)))
        EXPECT(memcmp(y, ry, n * sizeof *y) == 0, "%s %s threads %d differs", t->name, what,
               g_threads);
    free(x), free(y), free(ry);
}

/* Scores in [-4, 4) / |scale|, rows of overflowing ones, NaN beyond the
 * diagonal; the backward from the reference's p; both in place too. T a
 * multiple of 16 takes train_seq.c's blocked path, others its plain one;
 * scale < 0 makes the min of z the one that counts. */
static void attn_case(const table *t, long rows, int T, float scale)
{
    const size_t n = (size_t)rows * T;
    float *z = frand(n, 131), *dp = frand(n, 132);
    for (size_t i = 0; i < n; i++) z[i] *= 4.0f / fabsf(scale);
    if (rows > T) { /* full rows far beyond exp's range, their max not first; last */
        float *zr = z + (size_t)(2 * T - 1) * T;
        const float sg = scale < 0.0f ? -1.0f : 1.0f;
        for (int s = 0; s < T; s++) zr[s] = sg * (s == 0 ? -2000.0f : 3000.0f - 100.0f * (float)s);
        z[(size_t)(T - 1) * T + T - 1] = sg * 3000.0f;
    }
    for (long r = 0; r < rows; r++)
        for (int s = (int)(r % T) + 1; s < T; s++) z[r * T + s] = dp[r * T + s] = NAN;
    float *p = fpoison(n), *rp = fpoison(n), *dz = fpoison(n), *rdz = fpoison(n);
    const char *what = WHAT("attn_softmax %ldx%d scale %g", rows, T, scale);
    if (both_ok(t, what, REF->attn_softmax(rows, T, scale, z, rp, NULL),
                t->ops->attn_softmax(rows, T, scale, z, p, NULL)))
        agree(t->name, what, p, rp, n, T, 0);
    float *zi = fcopy(z, n);
    if (call_ok(t, "attn_softmax p == z", t->ops->attn_softmax(rows, T, scale, zi, zi, NULL)))
        agree(t->name, WHAT("attn_softmax %ldx%d p == z", rows, T), zi, rp, n, T, 0);
    what = WHAT("attn_softmax_bwd %ldx%d", rows, T);
    if (both_ok(t, what, REF->attn_softmax_bwd(rows, T, scale, rp, dp, rdz, NULL),
                t->ops->attn_softmax_bwd(rows, T, scale, rp, dp, dz, NULL)))
        agree(t->name, what, dz, rdz, n, T, 0);
    float *gi = fcopy(dp, n);
    if (call_ok(t, "attn_softmax_bwd dz == dp",
                t->ops->attn_softmax_bwd(rows, T, scale, rp, gi, gi, NULL)))
        agree(t->name, WHAT("attn_softmax_bwd %ldx%d dz == dp", rows, T), gi, rdz, n, T, 0);
    free(z), free(dp), free(p), free(rp), free(dz), free(rdz), free(zi), free(gi);
}

/* ids random in [0, vocab) (many repeats), or NULL (r % vocab); forward
 * assigning and accumulating, then the backward. */
static void embedding_case(const table *t, int rows, int dim, int vocab, int null_ids)
{
    const size_t n = (size_t)rows * dim;
    int *ids = null_ids ? NULL : xalloc(sizeof(int) * (size_t)rows);
    float *u = frand(rows, 141);
    for (int r = 0; !null_ids && r < rows; r++) {
        ids[r] = (int)((u[r] + 1.0f) * 0.5f * vocab);
        if (ids[r] >= vocab) ids[r] = vocab - 1;
    }
    float *table = frand((size_t)vocab * dim, 142), *y0 = frand(n, 143), *dy = frand(n, 144);
    for (int acc = 0; acc <= 1; acc++) {
        float *y = acc ? fcopy(y0, n) : fpoison(n), *ry = acc ? fcopy(y0, n) : fpoison(n);
        const char *what = WHAT("embedding %dx%d vocab %d%s%s", rows, dim, vocab,
                                null_ids ? " ids NULL" : "", acc ? " accumulate" : "");
        if (both_ok(t, what, REF->embedding(rows, dim, ids, vocab, table, ry, acc, NULL),
                    t->ops->embedding(rows, dim, ids, vocab, table, y, acc, NULL)))
            agree(t->name, what, y, ry, n, 1, 0);
        free(y), free(ry);
    }
    float *dt = fpoison((size_t)vocab * dim), *rdt = fpoison((size_t)vocab * dim);
    const char *what = WHAT("embedding_bwd %dx%d vocab %d%s", rows, dim, vocab,
                            null_ids ? " ids NULL" : "");
    if (both_ok(t, what, REF->embedding_bwd(rows, dim, ids, vocab, dy, rdt, NULL),
                t->ops->embedding_bwd(rows, dim, ids, vocab, dy, dt, NULL)))
        agree(t->name, what, dt, rdt, (size_t)vocab * dim, rows, 0);
    free(ids), free(u), free(table), free(y0), free(dy), free(dt), free(rdt);
}

static void layernorm_case(const table *t, int rows, int dim)
{
    const size_t n = (size_t)rows * dim;
    float *x = frand(n, 151), *w = frand(dim, 152), *b = frand(dim, 153), *dy = frand(n, 154);
    for (size_t i = 0; i < n; i++) x[i] = 3.0f * x[i] + 0.5f; /* mean off 0 */
    float *y = fpoison(n), *ry = fpoison(n), *mu = fpoison(rows), *rmu = fpoison(rows);
    float *rs = fpoison(rows), *rrs = fpoison(rows);
    const char *what = WHAT("layernorm %dx%d", rows, dim);
    if (both_ok(t, what, REF->layernorm(rows, dim, x, w, b, ry, rmu, rrs, NULL),
                t->ops->layernorm(rows, dim, x, w, b, y, mu, rs, NULL))) {
        agree(t->name, what, y, ry, n, dim, 0);
        agree(t->name, WHAT("layernorm %dx%d mean", rows, dim), mu, rmu, rows, dim, 0);
        agree(t->name, WHAT("layernorm %dx%d rstd", rows, dim), rs, rrs, rows, dim, 0);
    }
    float *dx = fpoison(n), *rdx = fpoison(n), *dw = fpoison(dim), *rdw = fpoison(dim);
    float *db = fpoison(dim), *rdb = fpoison(dim);
    what = WHAT("layernorm_bwd %dx%d", rows, dim);
    if (both_ok(t, what, REF->layernorm_bwd(rows, dim, dy, x, w, rmu, rrs, rdx, rdw, rdb, NULL),
                t->ops->layernorm_bwd(rows, dim, dy, x, w, rmu, rrs, dx, dw, db, NULL))) {
        agree(t->name, what, dx, rdx, n, dim, 0);
        agree(t->name, WHAT("layernorm_bwd %dx%d dw", rows, dim), dw, rdw, dim, rows, 0);
        agree(t->name, WHAT("layernorm_bwd %dx%d db", rows, dim), db, rdb, dim, rows, 0);
    }
    free(x), free(w), free(b), free(dy), free(y), free(ry), free(mu), free(rmu), free(rs),
        free(rrs), free(dx), free(rdx), free(dw), free(rdw), free(db), free(rdb);
}

/* x in [-6, 6) with -12, 12 and 0 at both ends; in place too. */
static void gelu_case(const table *t, long n)
{
    float *x = frand(n, 161), *dy = frand(n, 162);
    for (long i = 0; i < n; i++) x[i] *= 6.0f;
    x[0] = -12.0f, x[n - 1] = 12.0f, x[n / 2] = 0.0f;
    float *y = fpoison(n), *ry = fpoison(n), *dx = fpoison(n), *rdx = fpoison(n);
    const char *what = WHAT("gelu n %ld", n);
    if (both_ok(t, what, REF->gelu(n, x, ry, NULL), t->ops->gelu(n, x, y, NULL)))
        agree(t->name, what, y, ry, n, 1, 0);
    what = WHAT("gelu_bwd n %ld", n);
    if (both_ok(t, what, REF->gelu_bwd(n, x, dy, rdx, NULL), t->ops->gelu_bwd(n, x, dy, dx, NULL)))
        agree(t->name, what, dx, rdx, n, 1, 0);
    float *xi = fcopy(x, n), *gi = fcopy(dy, n);
    if (call_ok(t, "gelu y == x", t->ops->gelu(n, xi, xi, NULL)))
        agree(t->name, WHAT("gelu n %ld y == x", n), xi, ry, n, 1, 0);
    if (call_ok(t, "gelu_bwd dx == dy", t->ops->gelu_bwd(n, x, gi, gi, NULL)))
        agree(t->name, WHAT("gelu_bwd n %ld dx == dy", n), gi, rdx, n, 1, 0);
    free(x), free(dy), free(y), free(ry), free(dx), free(rdx), free(xi), free(gi);
}

/* Pre-activations in [-4, 4); forward with and without c_prev (in place
 * too), backward in all four cases of dc and c_prev (dc_prev == dc too). */
static void lstm_case(const table *t, int rows, int H)
{
    const size_t n = (size_t)rows * H, n4 = 4 * n;
    float *pre = frand(n4, 171), *cp = frand(n, 172), *dh = frand(n, 173), *dc = frand(n, 174);
    for (size_t i = 0; i < n4; i++) pre[i] *= 4.0f;
    for (int has_cp = 0; has_cp <= 1; has_cp++) {
        const float *c_prev = has_cp ? cp : NULL;
        float *g = fpoison(n4), *rg = fpoison(n4), *c = fpoison(n), *rc = fpoison(n);
        float *h = fpoison(n), *rh = fpoison(n);
        const char *what = WHAT("lstm_cell %dx%d%s", rows, H, has_cp ? "" : " c_prev NULL");
        if (both_ok(t, what, REF->lstm_cell(rows, H, pre, c_prev, rg, rc, rh, NULL),
                    t->ops->lstm_cell(rows, H, pre, c_prev, g, c, h, NULL))) {
            agree(t->name, what, g, rg, n4, 1, 0);
            agree(t->name, WHAT("lstm_cell %dx%d c%s", rows, H, has_cp ? "" : " c_prev NULL"), c,
                  rc, n, 2, 0);
            agree(t->name, WHAT("lstm_cell %dx%d h%s", rows, H, has_cp ? "" : " c_prev NULL"), h,
                  rh, n, 2, 0);
        }
        float *gi = fcopy(pre, n4);
        check_poison(c, n), check_poison(h, n);
        if (call_ok(t, "lstm_cell gates == pre",
                    t->ops->lstm_cell(rows, H, gi, c_prev, gi, c, h, NULL))) {
            agree(t->name, WHAT("lstm_cell %dx%d gates == pre", rows, H), gi, rg, n4, 1, 0);
            agree(t->name, WHAT("lstm_cell %dx%d h, gates == pre", rows, H), h, rh, n, 2, 0);
        }
        for (int has_dc = 0; has_dc <= 1; has_dc++) {
            const float *dcv = has_dc ? dc : NULL;
            float *d = fpoison(n4), *rd = fpoison(n4), *dcp = fpoison(n), *rdcp = fpoison(n);
            what = WHAT("lstm_cell_bwd %dx%d%s%s", rows, H, has_cp ? "" : " c_prev NULL",
                        has_dc ? "" : " dc NULL");
            if (both_ok(t, what,
                        REF->lstm_cell_bwd(rows, H, dh, dcv, rg, c_prev, rc, rd, rdcp, NULL),
                        t->ops->lstm_cell_bwd(rows, H, dh, dcv, rg, c_prev, rc, d, dcp, NULL))) {
                agree(t->name, what, d, rd, n4, 2, 0);
                if (has_cp) {
                    agree(t->name, WHAT("lstm_cell_bwd %dx%d%s dc_prev", rows, H,
                                        has_dc ? "" : " dc NULL"),
                          dcp, rdcp, n, 2, 0);
                } else {
                    int kept = 1;
                    for (size_t i = 0; i < n; i++) kept &= isnan(dcp[i]);
                    EXPECT(kept, "%s %s threads %d wrote dc_prev", t->name, what, g_threads);
                }
            }
            if (has_cp && has_dc) {
                float *di = fcopy(dc, n);
                check_poison(d, n4);
                if (call_ok(t, "lstm_cell_bwd dc_prev == dc",
                            t->ops->lstm_cell_bwd(rows, H, dh, di, rg, c_prev, rc, d, di, NULL))) {
                    agree(t->name, WHAT("lstm_cell_bwd %dx%d dc_prev == dc", rows, H), di, rdcp,
                          n, 2, 0);
                    agree(t->name, WHAT("lstm_cell_bwd %dx%d dpre, dc_prev == dc", rows, H), d,
                          rd, n4, 2, 0);
                }
                free(di);
            }
            free(d), free(rd), free(dcp), free(rdcp);
        }
        free(g), free(rg), free(c), free(rc), free(h), free(rh), free(gi);
    }
    free(pre), free(cp), free(dh), free(dc);
}

/* Three steps from zero moments, p, m, v and t compared after each; lr 0.05
 * so that an error in the update shows in p beside its rounding. */
static void adamw_case(const table *t, long n)
{
    float *p = frand(n, 181), *rp = fcopy(p, n), *m = fbuf(n), *rm = fbuf(n);
    float *v = fbuf(n), *rv = fbuf(n), tt = 0.0f, rt = 0.0f;
    for (int step = 1; step <= 3; step++) {
        float *g = frand(n, 181 + step);
        const char *what = WHAT("adamw n %ld step %d", n, step);
        if (!both_ok(t, what,
                     REF->adamw(n, rp, g, rm, rv, &rt, 0.05f, 0.9f, 0.999f, 1e-8f, 0.1f, NULL),
                     t->ops->adamw(n, p, g, m, v, &tt, 0.05f, 0.9f, 0.999f, 1e-8f, 0.1f, NULL))) {
            free(g);
            break;
        }
        agree(t->name, what, p, rp, n, 1, 0);
        agree(t->name, WHAT("adamw n %ld step %d m", n, step), m, rm, n, 1, 0);
        agree(t->name, WHAT("adamw n %ld step %d v", n, step), v, rv, n, 1, 0);
        EXPECT(tt == (float)step && rt == (float)step, "%s adamw step %d: t %g, reference %g",
               t->name, step, tt, rt);
        free(g);
    }
    free(p), free(rp), free(m), free(rm), free(v), free(rv);
}

static void every_op(const table *t)
{
    for (size_t i = 0; i < sizeof BATCHES / sizeof BATCHES[0]; i++) {
        batched_case(t, &BATCHES[i], 0.0f);
        batched_case(t, &BATCHES[i], 0.5f);
    }
    add_case(t, 7);
    add_case(t, 100003);
    permute_case(t, 2, 3, 4, 5);
    permute_case(t, 8, 64, 4, 32); /* gpt-b8's heads */
    permute_case(t, 1, 32, 17, 63);
    attn_case(t, 3 * 7, 7, 0.25f);
    attn_case(t, 8 * 64, 64, 1.0f / sqrtf(32.0f)); /* gpt-b8's heads */
    attn_case(t, 5, 1, 0.5f);
    attn_case(t, 3 * 16 + 5, 16, -0.3f);
    attn_case(t, 4 * 5, 5, -2.0f);
    embedding_case(t, 9, 5, 7, 0);
    embedding_case(t, 512, 128, 256, 0); /* gpt-b8's wte */
    embedding_case(t, 512, 128, 64, 1);  /* and wpe */
    embedding_case(t, 300, 37, 3, 0);
    embedding_case(t, 1100, 130, 64, 0); /* columns split, the last block short */
    layernorm_case(t, 5, 12);
    layernorm_case(t, 512, 128);
    layernorm_case(t, 1000, 33);
    layernorm_case(t, 3, 1);
    gelu_case(t, 7);
    gelu_case(t, 100003);
    lstm_case(t, 3, 5);
    lstm_case(t, 32, 256);
    adamw_case(t, 7);
    adamw_case(t, 50001);
}

/* ---- refusals --------------------------------------------------------------------------- */

static void bad_input(const table *t)
{
    float a[64], c[64], s[8], tt;
    const int ids[3] = {0, 5, 2}, neg[2] = {1, -1};
    rng_fill_uniform(a, 64, 81);
    const train_ops *o = t->ops;
    err_clear();
    refuses(t, o->gemm_batched(0, 0, 2, 2, 2, a, 2, 4, a, 2, 4, 0.0f, c, 2, 3, 2, NULL),
            "C matrices overlapping (sC 3 < 4)", "overlap");
    refuses(t, o->gemm_batched(0, 0, 2, 2, 2, a, 2, 4, a, 2, 4, 0.0f, c, 2, 0, 2, NULL),
            "sC 0 with batch 2", "sC 0");
    refuses(t, o->gemm_batched(0, 0, 2, 2, 2, a, 2, 4, a, 2, 4, 0.0f, c, 2, 4, 0, NULL), "batch 0",
            "batch 0");
    refuses(t, o->gemm_batched(0, 0, 2, 2, 2, a, 2, -4, a, 2, 4, 0.0f, c, 2, 4, 2, NULL), "sA -4",
            "sA -4");
    refuses(t, o->gemm_batched(0, 0, 2, 2, 3, a, 2, 6, a, 2, 6, 0.0f, c, 2, 4, 2, NULL),
            "lda 2 < K 3", "lda 2");
    refuses(t, o->add(-3, a, a, c, NULL), "add n -3", "n -3");
    refuses(t, o->permute(2, -1, 2, 2, a, c, NULL), "permute B -1", "B -1");
    refuses(t, o->attn_softmax(4, 0, 1.0f, a, c, NULL), "attn_softmax T 0", "T 0");
    refuses(t, o->attn_softmax_bwd(-2, 4, 1.0f, a, a, c, NULL), "attn_softmax_bwd rows -2",
            "rows -2");
    refuses(t, o->embedding(3, 2, ids, 5, a, c, 0, NULL), "id 5 of vocab 5", "ids[1] = 5");
    refuses(t, o->embedding_bwd(2, 2, neg, 5, a, c, NULL), "id -1", "ids[1] = -1");
    refuses(t, o->embedding(2, 2, NULL, 0, a, c, 0, NULL), "vocab 0", "vocab 0");
    refuses(t, o->layernorm(2, 0, a, a, a, c, s, s + 2, NULL), "layernorm dim 0", "dim 0");
    refuses(t, o->layernorm_bwd(-1, 4, a, a, a, s, s, c, c, c, NULL), "layernorm_bwd rows -1",
            "rows -1");
    refuses(t, o->gelu(-5, a, c, NULL), "gelu n -5", "n -5");
    refuses(t, o->gelu_bwd(-6, a, a, c, NULL), "gelu_bwd n -6", "n -6");
    refuses(t, o->lstm_cell(2, -3, a, NULL, c, c, c, NULL), "lstm_cell H -3", "H -3");
    refuses(t, o->lstm_cell_bwd(-4, 2, a, a, a, a, a, c, c, NULL), "lstm_cell_bwd rows -4",
            "rows -4");
    const float badt[4] = {1.5f, -1.0f, 16777216.0f, NAN};
    const char *badn[4] = {"t 1.5", "t -1", "t 1.67772e+07", "t nan"};
    for (int i = 0; i < 4; i++) {
        float p[2] = {1, 2}, m[2] = {0, 0}, v[2] = {0, 0};
        tt = badt[i];
        refuses(t, o->adamw(2, p, a, m, v, &tt, 1e-3f, 0.9f, 0.999f, 1e-8f, 0.01f, NULL), badn[i],
                badn[i]);
        EXPECT(p[0] == 1 && m[0] == 0 && (tt == badt[i] || isnan(tt)),
               "%s adamw with bad %s changed its state", t->name, badn[i]);
    }
    tt = 0.0f;
    refuses(t, o->adamw(2, c, a, c, c, &tt, 1e-3f, 1.0f, 0.999f, 1e-8f, 0.01f, NULL), "b1 1",
            "b1 1");
    refuses(t, o->adamw(2, c, a, c, c, &tt, 1e-3f, 0.9f, -0.5f, 1e-8f, 0.01f, NULL), "b2 -0.5",
            "b2 -0.5");
    refuses(t, o->adamw(-2, c, a, c, c, &tt, 1e-3f, 0.9f, 0.999f, 1e-8f, 0.01f, NULL), "adamw n -2",
            "n -2");
    EXPECT(tt == 0.0f, "%s adamw refused but counted the step: t %g", t->name, tt);
}

/* ---- the check can fail ---------------------------------------------------------------- */

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

    /* cpu-omp against the reference at gpt-b8's layernorm_bwd: one dx off by
     * 0.1% of the rms among 65536 */
    const table *omp = &TABLES[1];
    enum { R = 512, D = 128 };
    float *xx = frand(R * D, 92), *w = frand(D, 93), *b = frand(D, 94), *dy = frand(R * D, 95);
    float *yy = fbuf(R * D), *mu = fbuf(R), *rs = fbuf(R), *dx = fpoison(R * D);
    float *rdx = fpoison(R * D), *dw = fbuf(D), *db = fbuf(D);
    EXPECT(REF->layernorm(R, D, xx, w, b, yy, mu, rs, NULL) == 0 &&
               REF->layernorm_bwd(R, D, dy, xx, w, mu, rs, rdx, dw, db, NULL) == 0 &&
               omp->ops->layernorm_bwd(R, D, dy, xx, w, mu, rs, dx, dw, db, NULL) == 0,
           "layernorm for the planted errors: %s", err_get());
    EXPECT(agree("planted", "right layernorm_bwd", dx, rdx, R * D, D, 1),
           "the right layernorm_bwd fails");
    double ss = 0.0;
    for (int i = 0; i < R * D; i++) ss += (double)rdx[i] * rdx[i];
    dx[R * D / 3] += (float)(1e-3 * sqrt(ss / (R * D)));
    EXPECT(!agree("planted", "one wrong dx", dx, rdx, R * D, D, 1),
           "one layernorm_bwd element off by 0.1%% rms passes");
    /* attention: one masked element not 0 */
    enum { T = 64, AR = 4 * T };
    float *z = frand(AR * T, 96), *p = fpoison(AR * T), *rp = fpoison(AR * T);
    EXPECT(REF->attn_softmax(AR, T, 0.5f, z, rp, NULL) == 0 &&
               omp->ops->attn_softmax(AR, T, 0.5f, z, p, NULL) == 0,
           "attn_softmax for the planted errors: %s", err_get());
    EXPECT(agree("planted", "right attn_softmax", p, rp, AR * T, T, 1),
           "the right attn_softmax fails");
    p[T * 10 + 40] = 1e-3f; /* row 10, t = 10: s = 40 is masked */
    EXPECT(!agree("planted", "one masked p", p, rp, AR * T, T, 1),
           "attn_softmax with a masked element of 1e-3 passes");
    /* AdamW: one parameter's update 1% off (lr 1e-3, the models' own) */
    enum { NP = 20000 };
    float *pp = frand(NP, 97), *rpp = fcopy(pp, NP), *g = frand(NP, 98), *m = fbuf(NP);
    float *v = fbuf(NP), *rm = fbuf(NP), *rv = fbuf(NP), t0 = 0.0f, t1 = 0.0f;
    EXPECT(REF->adamw(NP, rpp, g, rm, rv, &t0, 1e-3f, 0.9f, 0.999f, 1e-8f, 0.01f, NULL) == 0 &&
               omp->ops->adamw(NP, pp, g, m, v, &t1, 1e-3f, 0.9f, 0.999f, 1e-8f, 0.01f, NULL) == 0,
           "adamw for the planted errors: %s", err_get());
    EXPECT(agree("planted", "right adamw", pp, rpp, NP, 1, 1), "the right adamw fails");
    pp[NP / 2] -= 1e-5f;
    EXPECT(!agree("planted", "one wrong update", pp, rpp, NP, 1, 1),
           "an AdamW update off by 1%% passes");
    free(xx), free(w), free(b), free(dy), free(yy), free(mu), free(rs), free(dx), free(rdx),
        free(dw), free(db), free(z), free(p), free(rp), free(pp), free(rpp), free(g), free(m),
        free(v), free(rm), free(rv);
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
    for (int threads = 1; threads <= 2; threads++) {
        g_threads = threads;
        cpu_threads_set(threads);
        for (int ti = 0; ti < NTABLES; ti++) {
            every_op(&TABLES[ti]);
            bad_input(&TABLES[ti]);
        }
    }
    TEST_END();
}
