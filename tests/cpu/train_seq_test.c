/* tests/cpu/train_seq_test.c - the sequence models' operations (gemm_batched,
 * add, permute, attn_softmax(_bwd), embedding(_bwd), layernorm(_bwd),
 * gelu(_bwd), lstm_cell(_bwd), adamw) of the CPU train_ops tables
 * (the reference itself is checked in test_train_seq_ref.c):
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
 *  - the checks can fail: an error planted in one element of cpu-omp's
 *    layernorm_bwd, attention and AdamW outputs fails.
 */
#include "gemm_cpu.h"
#include "train_test.h"

#include <math.h>
#include <stdio.h>

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

/* ---- the checks can fail ---------------------------------------------------------------- */

/* cpu-omp against the reference: an error planted in one element of its
 * output must fail the comparison. */
static void planted_errors_fail(void)
{
    /* layernorm_bwd at gpt-b8's size: one dx off by 0.1% of the rms among 65536 */
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
