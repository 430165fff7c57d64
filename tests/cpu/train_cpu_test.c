/* tests/cpu/train_cpu_test.c - the CPU train_ops tables (cpu/train_cpu.h):
 *  - the reference table (cpu-naive) against independent answers: gemm in
 *    all four transposes against gemm_ref_element on explicitly transposed
 *    copies, and small hand-computed cases of every other op;
 *  - every table in TABLES, every op, 1 and 2 threads, on seeded random data
 *    at odd sizes (and sizes above the parallel threshold of train_elem.c),
 *    against cpu-naive with the suite's checker (check_compare,
 *    check_tolerance(fp32, reduction length)); outputs poisoned (NaN, -1)
 *    first, so an unwritten element fails; argmax compared exactly;
 *  - the rules the contract fixes: first maximum on ties, a NaN wins in
 *    maxpool, relu passes NaN; bad sizes, labels and args are refused with
 *    a message naming the table;
 *  - the checks can fail: a planted error in one element, one NaN and one
 *    wrong argmax are caught.
 * The sequence models' operations are tested in test_train_seq.c. */
#include "conv_cpu.h"
#include "gemm_cpu.h"
#include "train_test.h"

#include <math.h>

/* ---- gemm ----------------------------------------------------------------- */

typedef struct { int M, N, K; } gdims;
static const gdims GEMMS[] = {{1, 1, 1}, {7, 5, 3}, {67, 45, 129}, {64, 300, 17}};

/* op(A) (M x K) and op(B) (K x N) stored as ta / tb say, leading dims padded
 * by 3; C padded by 2. beta 0 over a NaN C, or 0.5 over random C. */
static void gemm_case(const table *t, const gdims *g, int ta, int tb, float beta)
{
    const int M = g->M, N = g->N, K = g->K;
    const int lda = (ta ? M : K) + 3, ldb = (tb ? K : N) + 3, ldc = N + 2;
    const size_t na = (size_t)(ta ? K : M) * lda, nb = (size_t)(tb ? N : K) * ldb;
    const size_t nc = (size_t)M * ldc;
    float *A = frand(na, 101), *B = frand(nb, 102), *C0 = frand(nc, 103);
    if (beta == 0.0f) check_poison(C0, nc);
    float *C = fcopy(C0, nc), *R = fcopy(C0, nc);
    char what[96];
    snprintf(what, sizeof what, "gemm %dx%dx%d ta %d tb %d beta %g", M, N, K, ta, tb, beta);
    if (call_ok(t, what, REF->gemm(ta, tb, M, N, K, A, lda, B, ldb, beta, R, ldc, NULL)) &&
        call_ok(t, what, t->ops->gemm(ta, tb, M, N, K, A, lda, B, ldb, beta, C, ldc, NULL))) {
        float *got = fbuf((size_t)M * N), *want = fbuf((size_t)M * N);
        int pad_kept = 1;
        for (int i = 0; i < M; i++) {
            memcpy(got + (long)i * N, C + (long)i * ldc, N * sizeof(float));
            memcpy(want + (long)i * N, R + (long)i * ldc, N * sizeof(float));
            pad_kept &= memcmp(C + (long)i * ldc + N, C0 + (long)i * ldc + N,
                               (ldc - N) * sizeof(float)) == 0;
        }
        agree(t->name, what, got, want, (size_t)M * N, K, 0);
        EXPECT(pad_kept, "%s %s wrote into C's row padding", t->name, what);
        free(got);
        free(want);
    }
    free(A), free(B), free(C0), free(C), free(R);
}

/* The reference gemm itself: each transpose against gemm_ref_element on
 * explicitly transposed (row-major, untransposed) copies. */
static void naive_gemm_is_right(void)
{
    const int M = 13, N = 9, K = 21;
    for (int ta = 0; ta <= 1; ta++)
        for (int tb = 0; tb <= 1; tb++) {
            const int lda = (ta ? M : K) + 1, ldb = (tb ? K : N) + 2;
            float *A = frand((size_t)(ta ? K : M) * lda, 7), *B = frand((size_t)(tb ? N : K) * ldb, 8);
            float *An = fbuf((size_t)M * K), *Bn = fbuf((size_t)K * N), *C0 = frand((size_t)M * N, 9);
            float *C = fcopy(C0, (size_t)M * N);
            for (int i = 0; i < M; i++)
                for (int k = 0; k < K; k++) An[i * K + k] = ta ? A[k * lda + i] : A[i * lda + k];
            for (int k = 0; k < K; k++)
                for (int j = 0; j < N; j++) Bn[k * N + j] = tb ? B[j * ldb + k] : B[k * ldb + j];
            EXPECT(REF->gemm(ta, tb, M, N, K, A, lda, B, ldb, -0.75f, C, N, NULL) == 0, "gemm");
            double *ref = xalloc(sizeof(double) * M * N);
            for (int i = 0; i < M; i++)
                for (int j = 0; j < N; j++)
                    ref[i * N + j] = gemm_ref_element(i, j, K, 1.0, An, K, Bn, N, -0.75, C0[i * N + j]);
            check_result c = check_compare(C, ref, (size_t)M * N, check_tolerance(DTYPE_FP32, K));
            EXPECT(c.pass, "cpu-naive gemm ta %d tb %d vs gemm_ref_element: rel %g", ta, tb, c.rel_err);
            free(A), free(B), free(An), free(Bn), free(C0), free(C), free(ref);
        }
}

/* ---- conv (the table's conv_ops) ------------------------------------------ */

static void conv_case(const table *t)
{
    conv_dims d = {.N = 2, .C = 3, .H = 9, .W = 7, .K = 5, .R = 3, .S = 2, .sh = 2, .sw = 1,
                   .ph = 1, .pw = 1};
    if (conv_dims_finish(&d)) return;
    const size_t nx = conv_x_elems(&d), nw = conv_w_elems(&d), ny = conv_y_elems(&d);
    float *x = frand(nx, 21), *w = frand(nw, 22), *b = frand(d.K, 23), *dy = frand(ny, 24);
    const conv_ops *cv = t->ops->conv, *rc = REF->conv;
    EXPECT(cv && cv->fwd && cv->bwd_data && cv->bwd_filter, "%s has no conv ops", t->name);
    if (!cv) goto out;
    for (int dir = 0; dir < CONV_NDIRS; dir++) {
        unsigned long long wsb = cv->workspace ? cv->workspace(&d, (conv_dir)dir) : 0;
        void *ws = wsb ? xalloc(wsb) : NULL;
        size_t n1 = dir == CONV_FWD ? ny : dir == CONV_BWD_DATA ? nx : nw;
        float *o = fpoison(n1), *r = fpoison(n1), *db = fpoison(d.K), *rdb = fpoison(d.K);
        int ok;
        if (dir == CONV_FWD)
            ok = call_ok(t, "conv fwd", rc->fwd(&d, x, w, b, r, NULL, NULL)) &&
                 call_ok(t, "conv fwd", cv->fwd(&d, x, w, b, o, ws, NULL));
        else if (dir == CONV_BWD_DATA)
            ok = call_ok(t, "conv bwd-data", rc->bwd_data(&d, dy, w, r, NULL, NULL)) &&
                 call_ok(t, "conv bwd-data", cv->bwd_data(&d, dy, w, o, ws, NULL));
        else
            ok = call_ok(t, "conv bwd-filter", rc->bwd_filter(&d, x, dy, r, rdb, NULL, NULL)) &&
                 call_ok(t, "conv bwd-filter", cv->bwd_filter(&d, x, dy, o, db, ws, NULL));
        if (ok) {
            agree(t->name, "conv", o, r, n1, conv_reduction(&d, (conv_dir)dir), 0);
            if (dir == CONV_BWD_FILTER)
                agree(t->name, "conv db", db, rdb, d.K, conv_reduction(&d, (conv_dir)dir), 0);
        }
        free(ws), free(o), free(r), free(db), free(rdb);
    }
out:
    free(x), free(w), free(b), free(dy);
}

/* ---- bias ------------------------------------------------------------------ */

typedef struct { int rows, cols; } mdims;
/* serial; column split (cols >= 32 per thread); per-thread partials (few
 * columns, many rows) */
static const mdims BIASES[] = {{17, 10}, {1, 1}, {300, 257}, {5000, 10}};

static void bias_case(const table *t, const mdims *m)
{
    const size_t n = (size_t)m->rows * m->cols;
    float *y0 = frand(n, 31), *b = frand(m->cols, 32);
    float *y = fcopy(y0, n), *ry = fcopy(y0, n);
    float *db = fpoison(m->cols), *rdb = fpoison(m->cols);
    char what[64];
    snprintf(what, sizeof what, "bias_add %dx%d", m->rows, m->cols);
    if (call_ok(t, what, REF->bias_add(m->rows, m->cols, ry, b, NULL)) &&
        call_ok(t, what, t->ops->bias_add(m->rows, m->cols, y, b, NULL)))
        agree(t->name, what, y, ry, n, 1, 0);
    snprintf(what, sizeof what, "bias_grad %dx%d", m->rows, m->cols);
    if (call_ok(t, what, REF->bias_grad(m->rows, m->cols, y0, rdb, NULL)) &&
        call_ok(t, what, t->ops->bias_grad(m->rows, m->cols, y0, db, NULL)))
        agree(t->name, what, db, rdb, m->cols, m->rows, 0);
    free(y0), free(b), free(y), free(ry), free(db), free(rdb);
}

/* ---- relu ------------------------------------------------------------------ */

static void relu_case(const table *t, long n)
{
    float *x = frand(n, 41), *dy = frand(n, 42);
    float *y = fpoison(n), *ry = fpoison(n), *dx = fpoison(n), *rdx = fpoison(n);
    char what[64];
    snprintf(what, sizeof what, "relu n %ld", n);
    if (call_ok(t, what, REF->relu(n, x, ry, NULL)) && call_ok(t, what, t->ops->relu(n, x, y, NULL)))
        agree(t->name, what, y, ry, n, 1, 0);
    snprintf(what, sizeof what, "relu_bwd n %ld", n);
    if (call_ok(t, what, REF->relu_bwd(n, ry, dy, rdx, NULL)) &&
        call_ok(t, what, t->ops->relu_bwd(n, ry, dy, dx, NULL)))
        agree(t->name, what, dx, rdx, n, 1, 0);
    /* in place: y may be x, dx may be dy */
    float *xi = fcopy(x, n), *gi = fcopy(dy, n);
    if (call_ok(t, "relu in place", t->ops->relu(n, xi, xi, NULL)))
        agree(t->name, "relu in place", xi, ry, n, 1, 0);
    if (call_ok(t, "relu_bwd in place", t->ops->relu_bwd(n, ry, gi, gi, NULL)))
        agree(t->name, "relu_bwd in place", gi, rdx, n, 1, 0);
    free(x), free(dy), free(y), free(ry), free(dx), free(rdx), free(xi), free(gi);
}

/* relu passes NaN (as PyTorch's) and maps -0, 0 and negatives to 0; its
 * gradient is 0 where y is NaN or 0. Every table, over a serial and a
 * parallel length (the NaNs near both ends). */
static void relu_rules(const table *t)
{
    static const long NS[] = {9, 70001};
    for (size_t k = 0; k < sizeof NS / sizeof NS[0]; k++) {
        const long n = NS[k];
        float *x = frand(n, 43), *y = fpoison(n), *g = frand(n, 44), *dx = fpoison(n);
        x[1] = NAN, x[n - 2] = NAN, x[2] = -0.0f, x[3] = 0.0f;
        if (call_ok(t, "relu NaN", t->ops->relu(n, x, y, NULL))) {
            EXPECT(isnan(y[1]) && isnan(y[n - 2]), "%s relu n %ld: NaN gives %g and %g", t->name,
                   n, y[1], y[n - 2]);
            EXPECT(y[2] == 0.0f && y[3] == 0.0f, "%s relu(-0), relu(0): %g %g", t->name, y[2], y[3]);
        }
        if (call_ok(t, "relu_bwd NaN", t->ops->relu_bwd(n, y, g, dx, NULL)))
            EXPECT(dx[1] == 0.0f && dx[n - 2] == 0.0f && dx[2] == 0.0f && dx[3] == 0.0f,
                   "%s relu_bwd n %ld where y is NaN or 0: %g %g %g %g", t->name, n, dx[1],
                   dx[n - 2], dx[2], dx[3]);
        free(x), free(y), free(g), free(dx);
    }
}

/* ---- maxpool --------------------------------------------------------------- */

typedef struct { int planes, H, W; } pdims;
/* odd planes (floor mode), 28x28 (above the parallel threshold), many odd
 * planes (parallel, odd), too small for a window; output rows of 5, 4 and 9
 * windows (train_elem.c's groups of 4, the last one overlapping) */
static const pdims POOLS[] = {{3, 5, 7},  {64, 28, 28}, {1000, 7, 5}, {2, 1, 6},
                              {2, 6, 1},  {5, 9, 11},   {3, 8, 8},    {2, 4, 18}};

/* x from {-1, 0, 1} when `ties`, so that windows hold equal maxima. */
static void pool_case(const table *t, const pdims *p, int ties)
{
    const int Ho = p->H / 2, Wo = p->W / 2;
    const size_t nx = (size_t)p->planes * p->H * p->W, ny = (size_t)p->planes * Ho * Wo;
    float *x = frand(nx, 51), *dy = frand(ny, 52);
    if (ties)
        for (size_t i = 0; i < nx; i++) x[i] = x[i] < -0.33f ? -1.0f : x[i] < 0.33f ? 0.0f : 1.0f;
    float *y = fpoison(ny), *ry = fpoison(ny), *dx = fpoison(nx), *rdx = fpoison(nx);
    int *arg = xalloc(ny * sizeof(int) + 1), *rarg = xalloc(ny * sizeof(int) + 1);
    memset(arg, 0xff, ny * sizeof(int)); /* -1: never a valid index */
    memset(rarg, 0xff, ny * sizeof(int));
    char what[80];
    snprintf(what, sizeof what, "maxpool %dx%dx%d%s", p->planes, p->H, p->W, ties ? " ties" : "");
    if (call_ok(t, what, REF->maxpool(p->planes, p->H, p->W, x, ry, rarg, NULL)) &&
        call_ok(t, what, t->ops->maxpool(p->planes, p->H, p->W, x, y, arg, NULL))) {
        if (ny) agree(t->name, what, y, ry, ny, 1, 0);
        long at = int_diff(arg, rarg, ny);
        EXPECT(at < 0, "%s %s threads %d: arg[%ld] = %d, reference %d", t->name, what, g_threads,
               at, at < 0 ? 0 : arg[at], at < 0 ? 0 : rarg[at]);
    }
    snprintf(what, sizeof what, "maxpool_bwd %dx%dx%d%s", p->planes, p->H, p->W, ties ? " ties" : "");
    if (call_ok(t, what, REF->maxpool_bwd(p->planes, p->H, p->W, dy, rarg, rdx, NULL)) &&
        call_ok(t, what, t->ops->maxpool_bwd(p->planes, p->H, p->W, dy, rarg, dx, NULL)))
        agree(t->name, what, dx, rdx, nx, 1, 0);
    free(x), free(dy), free(y), free(ry), free(dx), free(rdx), free(arg), free(rarg);
}

/* One 2x4 plane, two windows with hand-known answers:
 *   [1 3 | 2 NaN]
 *   [3 2 | 5 NaN]   window 0: 3 twice -> the first (index 1);
 *                   window 1: NaN wins over 5, the first NaN (index 3). */
static void pool_rules(const table *t)
{
    const float x[8] = {1, 3, 2, NAN, 3, 2, 5, NAN};
    float y[2] = {0, 0}, dy[2] = {0.5f, -2.0f}, dx[8];
    int arg[2] = {-1, -1};
    check_poison(dx, 8);
    if (!call_ok(t, "maxpool rules", t->ops->maxpool(1, 2, 4, x, y, arg, NULL))) return;
    EXPECT(arg[0] == 1 && y[0] == 3.0f, "%s maxpool tie: arg %d y %g, want 1 and 3", t->name,
           arg[0], y[0]);
    EXPECT(arg[1] == 3 && isnan(y[1]), "%s maxpool NaN: arg %d y %g, want 3 and NaN", t->name,
           arg[1], y[1]);
    if (!call_ok(t, "maxpool_bwd rules", t->ops->maxpool_bwd(1, 2, 4, dy, arg, dx, NULL))) return;
    const float want[8] = {0, 0.5f, 0, -2.0f, 0, 0, 0, 0};
    EXPECT(memcmp(dx, want, sizeof want) == 0, "%s maxpool_bwd: dx %g %g %g %g / %g %g %g %g",
           t->name, dx[0], dx[1], dx[2], dx[3], dx[4], dx[5], dx[6], dx[7]);
}

/* ---- softmax cross-entropy ------------------------------------------------- */

static void xent_case(const table *t, int rows, int classes)
{
    const size_t n = (size_t)rows * classes;
    float *z = frand(n, 61), *dz = fpoison(n), *rdz = fpoison(n);
    for (size_t i = 0; i < n; i++) z[i] *= 4.0f; /* logits in [-4, 4) */
    int *lab = xalloc(rows * sizeof(int));
    float *lr = frand(rows, 62);
    for (int r = 0; r < rows; r++) {
        lab[r] = (int)((lr[r] + 1.0f) * 0.5f * classes);
        if (lab[r] >= classes) lab[r] = classes - 1;
    }
    float loss = NAN, rloss = NAN;
    char what[64];
    snprintf(what, sizeof what, "softmax_xent %dx%d", rows, classes);
    if (call_ok(t, what, REF->softmax_xent(rows, classes, z, lab, &rloss, rdz, NULL)) &&
        call_ok(t, what, t->ops->softmax_xent(rows, classes, z, lab, &loss, dz, NULL))) {
        agree(t->name, what, dz, rdz, n, classes, 0);
        agree(t->name, "softmax_xent loss", &loss, &rloss, 1, (long)rows * classes, 0);
    }
    free(z), free(dz), free(rdz), free(lab), free(lr);
}

/* ---- sgd -------------------------------------------------------------------- */

/* Two steps (different gradients), with v (momentum 0.9, v from zero) or
 * without; p and v compared after each. */
static void sgd_case(const table *t, long n, int momentum)
{
    float *p = frand(n, 71), *g1 = frand(n, 72), *g2 = frand(n, 73);
    float *rp = fcopy(p, n), *v = NULL, *rv = NULL;
    if (momentum) {
        v = fbuf(n), rv = fbuf(n);
        memset(v, 0, n * sizeof *v);
        memset(rv, 0, n * sizeof *rv);
    }
    const float lr = 0.05f, mom = momentum ? 0.9f : 0.0f;
    for (int step = 0; step < 2; step++) {
        const float *g = step ? g2 : g1;
        char what[64];
        snprintf(what, sizeof what, "sgd n %ld momentum %d step %d", n, momentum, step + 1);
        if (!call_ok(t, what, REF->sgd(n, rp, g, rv, lr, mom, NULL)) ||
            !call_ok(t, what, t->ops->sgd(n, p, g, v, lr, mom, NULL)))
            break;
        agree(t->name, what, p, rp, n, 1, 0);
        if (momentum) agree(t->name, "sgd v", v, rv, n, 1, 0);
    }
    free(p), free(g1), free(g2), free(rp), free(v), free(rv);
}

/* ---- the reference's own small answers ---------------------------------------- */

static void naive_by_hand(void)
{
    /* softmax of (1, 2, 3), label 2, two equal rows: loss = lse - 3 */
    const float z[6] = {1, 2, 3, 1, 2, 3};
    const int lab[2] = {2, 2};
    float loss, dz[6];
    double lse = log(exp(1.0) + exp(2.0) + exp(3.0));
    EXPECT(REF->softmax_xent(2, 3, z, lab, &loss, dz, NULL) == 0, "softmax_xent");
    EXPECT(fabs(loss - (lse - 3.0)) < 1e-6, "loss %g, want %g", loss, lse - 3.0);
    for (int c = 0; c < 3; c++)
        EXPECT(fabs(dz[c] - (exp(c + 1.0 - lse) - (c == 2)) / 2.0) < 1e-7, "dz[%d] = %g", c, dz[c]);
    /* bias */
    float y[4] = {1, 2, 3, 4};
    const float b[2] = {10, 20};
    float db[2];
    EXPECT(REF->bias_add(2, 2, y, b, NULL) == 0 && y[0] == 11 && y[1] == 22 && y[2] == 13 &&
           y[3] == 24, "bias_add: %g %g %g %g", y[0], y[1], y[2], y[3]);
    EXPECT(REF->bias_grad(2, 2, y, db, NULL) == 0 && db[0] == 24 && db[1] == 46, "bias_grad %g %g",
           db[0], db[1]);
    /* relu and its gradient */
    const float x[4] = {-1, 0, 2, NAN}, g[4] = {5, 6, 7, 8};
    float r[4], dx[4];
    EXPECT(REF->relu(4, x, r, NULL) == 0 && r[0] == 0 && r[1] == 0 && r[2] == 2 && isnan(r[3]),
           "relu %g %g %g %g", r[0], r[1], r[2], r[3]);
    EXPECT(REF->relu_bwd(3, r, g, dx, NULL) == 0 && dx[0] == 0 && dx[1] == 0 && dx[2] == 7,
           "relu_bwd %g %g %g", dx[0], dx[1], dx[2]);
    /* sgd: p = 1, g = 2, lr 0.5, momentum 0.5: v = 2, p = 0; then v = 3, p = -1.5 */
    float p = 1, v = 0, gg = 2;
    EXPECT(REF->sgd(1, &p, &gg, &v, 0.5f, 0.5f, NULL) == 0 && v == 2 && p == 0, "sgd 1: %g %g", p, v);
    EXPECT(REF->sgd(1, &p, &gg, &v, 0.5f, 0.5f, NULL) == 0 && v == 3 && p == -1.5f, "sgd 2: %g %g",
           p, v);
    p = 1;
    EXPECT(REF->sgd(1, &p, &gg, NULL, 0.5f, 0.9f, NULL) == 0 && p == 0, "sgd plain: %g", p);
}

/* ---- refusals ---------------------------------------------------------------- */

static void bad_input(const table *t)
{
    float a[64], c[64], dz[8], loss;
    int lab[2] = {0, 3}, arg[2] = {0, 4}; /* label 3 of 3 classes; 4 = (1, 0): window 0's, not 1's */
    rng_fill_uniform(a, 64, 81);
    err_clear();
    refuses(t, t->ops->gemm(0, 0, 4, 4, 4, a, 3, a, 4, 0.0f, c, 4, NULL), "lda 3 < K 4", "lda 3");
    refuses(t, t->ops->gemm(1, 0, 5, 4, 3, a, 4, a, 4, 0.0f, c, 4, NULL), "ta, lda 4 < M 5",
            "lda 4");
    refuses(t, t->ops->gemm(0, 1, 4, 4, 6, a, 6, a, 5, 0.0f, c, 4, NULL), "tb, ldb 5 < K 6",
            "ldb 5");
    refuses(t, t->ops->gemm(0, 0, 0, 4, 4, a, 4, a, 4, 0.0f, c, 4, NULL), "M 0", "M 0");
    refuses(t, t->ops->softmax_xent(2, 3, a, lab, &loss, dz, NULL), "label 3", "label[1] = 3");
    refuses(t, t->ops->maxpool_bwd(1, 2, 4, a, arg, c, NULL), "arg 4 for window 1", "arg[1] = 4");
    refuses(t, t->ops->relu(-1, a, c, NULL), "n -1", "n -1");
    refuses(t, t->ops->bias_grad(-2, 3, a, c, NULL), "rows -2", "rows -2");
    refuses(t, t->ops->maxpool(1, -4, 4, a, c, arg, NULL), "H -4", "H -4");
}

/* ---- the checks can fail --------------------------------------------------------- */

static void planted_errors_fail(void)
{
    const gdims g = {67, 45, 129};
    const size_t n = (size_t)g.M * g.N;
    float *A = frand((size_t)g.M * g.K, 91), *B = frand((size_t)g.K * g.N, 92);
    float *C = fpoison(n), *R = fpoison(n);
    EXPECT(REF->gemm(0, 0, g.M, g.N, g.K, A, g.K, B, g.N, 0.0f, R, g.N, NULL) == 0 &&
           TABLES[NTABLES - 1].ops->gemm(0, 0, g.M, g.N, g.K, A, g.K, B, g.N, 0.0f, C, g.N, NULL) == 0,
           "gemm for the planted errors");
    EXPECT(agree("planted", "right answer", C, R, n, g.K, 1), "the right answer fails");
    double s = 0;
    for (size_t i = 0; i < n; i++) s += (double)R[i] * R[i];
    float keep = C[n / 3];
    C[n / 3] += (float)(1e-3 * sqrt(s / n)); /* 0.1% of rms in one of 3015 elements */
    EXPECT(!agree("planted", "one wrong element", C, R, n, g.K, 1),
           "one element off by 0.1%% rms passes");
    C[n / 3] = NAN; /* an unwritten (poisoned) element */
    EXPECT(!agree("planted", "one NaN", C, R, n, g.K, 1), "one NaN passes");
    C[n / 3] = keep;
    int a[5] = {0, 1, 2, 3, 4}, b[5] = {0, 1, 2, 3, 4};
    EXPECT(int_diff(a, b, 5) < 0, "equal argmax differs");
    b[4] = 5;
    EXPECT(int_diff(a, b, 5) == 4, "a wrong argmax passes");
    free(A), free(B), free(C), free(R);
}

int main(void)
{
    naive_gemm_is_right();
    naive_by_hand();
    planted_errors_fail();
    for (int threads = 1; threads <= 2; threads++) {
        g_threads = threads;
        cpu_threads_set(threads);
        for (int ti = 0; ti < NTABLES; ti++) {
            const table *t = &TABLES[ti];
            for (size_t i = 0; i < sizeof GEMMS / sizeof GEMMS[0]; i++)
                for (int ta = 0; ta <= 1; ta++)
                    for (int tb = 0; tb <= 1; tb++) {
                        gemm_case(t, &GEMMS[i], ta, tb, 0.0f);
                        gemm_case(t, &GEMMS[i], ta, tb, 0.5f);
                    }
            conv_case(t);
            for (size_t i = 0; i < sizeof BIASES / sizeof BIASES[0]; i++) bias_case(t, &BIASES[i]);
            relu_case(t, 7);
            relu_case(t, 100003);
            relu_rules(t);
            for (size_t i = 0; i < sizeof POOLS / sizeof POOLS[0]; i++)
                for (int ties = 0; ties <= 1; ties++) pool_case(t, &POOLS[i], ties);
            pool_rules(t);
            xent_case(t, 17, 10);
            xent_case(t, 4001, 10);
            xent_case(t, 3, 1000);
            for (int m = 0; m <= 1; m++) {
                sgd_case(t, 7, m);
                sgd_case(t, 50001, m);
            }
            bad_input(t);
        }
    }
    TEST_END();
}
