/* tests/kernels/train_cuda_test.cu - the GPU train_ops tables (kernels/train_cuda.h:
 * cuda, cuda-lib) op by op against the CPU reference table TRAIN_OPS_CPU_NAIVE
 * (cpu/train_cpu.h).
 *
 * For each table and op: seeded random inputs (rng_fill_uniform) at odd
 * sizes, device buffers of exactly the tensor (gemm: the BLAS minimum span,
 * NaN in the padding of A and B), outputs poisoned with NaN first (argmax
 * with -1) so an unwritten element fails, the call queued on a non-blocking
 * stream, the stream synchronized, the result compared with the reference's
 * by check_compare at check_tolerance(fp32, reduction length); argmax and
 * relu/maxpool values, which involve no arithmetic, exactly.
 *   gemm      1x1x1, 7x5x3, 67x45x129, 130x17x300, all four (ta, tb), with
 *             odd padded and multiple-of-4 padded lda/ldb/ldc (regtile's
 *             scalar and float4 paths), beta 0 on NaN C and beta -0.5; C's
 *             padding must come back untouched
 *   conv      the table's conv_ops, two shapes x three directions
 *   bias      bias_add 17x10 and 130x33 (in place), bias_grad 67x45 and 1000x3
 *   relu      n 1001 (in place and not), NaN / -0 / 0 inputs; relu_bwd
 *   maxpool   3 planes of 5x7, 2 of 28x28, and a plane full of ties and NaN;
 *             maxpool_bwd on the reference's argmax (floor-mode remainder
 *             rows/columns must be 0)
 *   softmax   17x10, 1024x1024, 3x1500; loss and dz
 *   sgd       n 1001 and 1024, aligned and not (the float4 and scalar paths),
 *             two steps with momentum 0.9 (v from zero) and without
 * Then: planted errors (one wrong element of C, of dz, one wrong argmax) must
 * fail, and bad sizes give -1 and a message.  On the emulator in two thread
 * orders (CTest) and, as a compile check, with nvcc.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "check.h"
#include "errmsg.h"
#include "train_cpu.h"
#include "train_cuda.h"
#include "gemm_cuda.h"
#include "conv_cuda.h"
#include "testutil.h"
#include "cuda_ok.h"
#include "train_gpu_util.h"

/* ---- gemm ---- */

static const int GEMM_SHAPES[][3] = {{1, 1, 1}, {7, 5, 3}, {67, 45, 129}, {130, 17, 300}};

/* One gemm case; plant >= 0: also check that a wrong C element fails. */
static void gemm_case(const table *t, int ta, int tb, const int *mnk, int vec, float beta,
                      int plant)
{
    const int M = mnk[0], N = mnk[1], K = mnk[2];
    const int ar = ta ? K : M, ac = ta ? M : K, br = tb ? N : K, bc = tb ? K : N;
    const int lda = ld_for(ac, vec), ldb = ld_for(bc, vec), ldc = ld_for(N, vec);
    const size_t na = span(ar, ac, lda), nb = span(br, bc, ldb), nc = span(M, N, ldc);
    char what[128];
    snprintf(what, sizeof what, "%s gemm ta %d tb %d %dx%dx%d ld %d/%d/%d beta %g", t->name, ta,
             tb, M, N, K, lda, ldb, ldc, beta);
    float *A = frand(na), *B = frand(nb), *C0 = beta == 0.0f ? fnan(nc) : frand(nc);
    poison_padding(A, ar, ac, lda);
    poison_padding(B, br, bc, ldb);
    float *ref = fbuf(nc), *got = fbuf(nc);
    memcpy(ref, C0, nc * sizeof(float));
    EXPECT(REF->gemm(ta, tb, M, N, K, A, lda, B, ldb, beta, ref, ldc, NULL) == 0, "%s: ref: %s",
           what, err_get());
    float *dA = dev_f(A, na), *dB = dev_f(B, nb), *dC = dev_f(C0, nc);
    err_clear();
    EXPECT(t->ops->gemm(ta, tb, M, N, K, dA, lda, dB, ldb, beta, dC, ldc, (void *)g_stream) == 0,
           "%s: %s", what, err_get());
    sync_ok();
    to_host(got, dC, nc * sizeof(float));
    float *g = fbuf((size_t)M * N), *r = fbuf((size_t)M * N);
    long touched = 0;
    for (int i = 0; i < M; i++) {
        memcpy(g + (size_t)i * N, got + (size_t)i * ldc, N * sizeof(float));
        memcpy(r + (size_t)i * N, ref + (size_t)i * ldc, N * sizeof(float));
        for (int j = N; j < ldc && i + 1 < M; j++)
            touched += memcmp(&got[(size_t)i * ldc + j], &C0[(size_t)i * ldc + j], 4) != 0;
    }
    EXPECT(close_to(what, g, r, (size_t)M * N, K, -1), "%s: C", what);
    EXPECT(touched == 0, "%s: %ld padding elements of C written", what, touched);
    if (plant >= 0)
        EXPECT(!close_to(what, g, r, (size_t)M * N, K, plant % (M * N)),
               "%s: a planted error in C passed", what);
    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    free(A); free(B); free(C0); free(ref); free(got); free(g); free(r);
}

static void gemm_all(const table *t)
{
    for (int s = 0; s < 4; s++)
        for (int ta = 0; ta < 2; ta++)
            for (int tb = 0; tb < 2; tb++)
                for (int vec = 0; vec < 2; vec++) {
                    gemm_case(t, ta, tb, GEMM_SHAPES[s], vec, 0.0f, s == 3 ? 1234 : -1);
                    gemm_case(t, ta, tb, GEMM_SHAPES[s], vec, -0.5f, -1);
                }
}

/* ---- conv: the table's conv_ops against the reference's ---- */

static void *ws_for(const conv_ops *c, const conv_dims *d, conv_dir dir, int device)
{
    unsigned long long b = c->workspace ? c->workspace(d, dir) : 0;
    if (!b) return NULL;
    if (!device) return xalloc(b);
    void *p = NULL;
    CUDA_OK(cudaMalloc(&p, b));
    return p;
}

static void conv_case(const table *t, conv_dims d)
{
    if (conv_dims_finish(&d)) {
        fprintf(stderr, "bad conv case\n");
        exit(1);
    }
    const conv_ops *go = t->ops->conv, *ro = REF->conv;
    const size_t nx = conv_x_elems(&d), nw = conv_w_elems(&d), ny = conv_y_elems(&d);
    float *x = frand(nx), *w = frand(nw), *b = frand(d.K), *dy = frand(ny);
    float *rx = fbuf(nx), *ry = fbuf(ny), *rw = fbuf(nw), *rb = fbuf(d.K);
    float *gx = fbuf(nx), *gy = fbuf(ny), *gw = fbuf(nw), *gb = fbuf(d.K);
    float *dx_ = dev_f(x, nx), *dw_ = dev_f(w, nw), *db_ = dev_f(b, d.K), *ddy = dev_f(dy, ny);
    char what[128];
    snprintf(what, sizeof what, "%s conv N%d C%d H%d W%d K%d R%d S%d s%d p%d", t->name, d.N, d.C,
             d.H, d.W, d.K, d.R, d.S, d.sh, d.ph);
    for (int dir = 0; dir < CONV_NDIRS; dir++) {
        void *hws = ws_for(ro, &d, (conv_dir)dir, 0), *dws = ws_for(go, &d, (conv_dir)dir, 1);
        float *o1 = NULL, *o2 = NULL;
        err_clear();
        if (dir == CONV_FWD) {
            EXPECT(ro->fwd(&d, x, w, b, ry, hws, NULL) == 0, "%s ref fwd: %s", what, err_get());
            o1 = dev_nan(ny);
            EXPECT(go->fwd(&d, dx_, dw_, db_, o1, dws, (void *)g_stream) == 0, "%s fwd: %s", what,
                   err_get());
            sync_ok();
            to_host(gy, o1, ny * 4);
            EXPECT(close_to(what, gy, ry, ny, conv_reduction(&d, CONV_FWD), -1), "%s: fwd y",
                   what);
        } else if (dir == CONV_BWD_DATA) {
            EXPECT(ro->bwd_data(&d, dy, w, rx, hws, NULL) == 0, "%s ref bwd-data: %s", what,
                   err_get());
            o1 = dev_nan(nx);
            EXPECT(go->bwd_data(&d, ddy, dw_, o1, dws, (void *)g_stream) == 0, "%s bwd-data: %s",
                   what, err_get());
            sync_ok();
            to_host(gx, o1, nx * 4);
            EXPECT(close_to(what, gx, rx, nx, conv_reduction(&d, CONV_BWD_DATA), -1),
                   "%s: bwd-data dx", what);
        } else {
            EXPECT(ro->bwd_filter(&d, x, dy, rw, rb, hws, NULL) == 0, "%s ref bwd-filter: %s",
                   what, err_get());
            o1 = dev_nan(nw);
            o2 = dev_nan(d.K);
            EXPECT(go->bwd_filter(&d, dx_, ddy, o1, o2, dws, (void *)g_stream) == 0,
                   "%s bwd-filter: %s", what, err_get());
            sync_ok();
            to_host(gw, o1, nw * 4);
            to_host(gb, o2, d.K * 4);
            const long k = conv_reduction(&d, CONV_BWD_FILTER);
            EXPECT(close_to(what, gw, rw, nw, k, -1), "%s: bwd-filter dw", what);
            EXPECT(close_to(what, gb, rb, d.K, k, -1), "%s: bwd-filter db", what);
        }
        cudaFree(o1);
        cudaFree(o2);
        cudaFree(dws);
        free(hws);
    }
    cudaFree(dx_); cudaFree(dw_); cudaFree(db_); cudaFree(ddy);
    free(x); free(w); free(b); free(dy); free(rx); free(ry); free(rw); free(rb);
    free(gx); free(gy); free(gw); free(gb);
}

static void conv_all(const table *t)
{
    /* N C H W K R S sh sw ph pw (P, Q from conv_dims_finish) */
    conv_case(t, conv_dims{2, 3, 7, 9, 5, 3, 3, 1, 1, 1, 1, 0, 0});
    conv_case(t, conv_dims{3, 5, 11, 10, 7, 3, 3, 2, 2, 1, 1, 0, 0});
}

/* ---- bias ---- */

static void bias_all(const table *t)
{
    static const int ADD[][2] = {{17, 10}, {130, 33}}, GRAD[][2] = {{67, 45}, {1000, 3}};
    char what[96];
    for (int c = 0; c < 2; c++) {
        const int rows = ADD[c][0], cols = ADD[c][1];
        const size_t n = (size_t)rows * cols;
        float *y = frand(n), *b = frand(cols), *got = fbuf(n);
        float *dy_ = dev_f(y, n), *db_ = dev_f(b, cols);
        snprintf(what, sizeof what, "%s bias_add %dx%d", t->name, rows, cols);
        EXPECT(t->ops->bias_add(rows, cols, dy_, db_, (void *)g_stream) == 0, "%s: %s", what,
               err_get());
        sync_ok();
        to_host(got, dy_, n * 4);
        EXPECT(REF->bias_add(rows, cols, y, b, NULL) == 0, "%s ref: %s", what, err_get());
        EXPECT(close_to(what, got, y, n, 1, -1), "%s: y", what);
        cudaFree(dy_); cudaFree(db_);
        free(y); free(b); free(got);
    }
    for (int c = 0; c < 2; c++) {
        const int rows = GRAD[c][0], cols = GRAD[c][1];
        const size_t n = (size_t)rows * cols;
        float *dy = frand(n), *ref = fbuf(cols), *got = fbuf(cols);
        float *ddy = dev_f(dy, n), *ddb = dev_nan(cols);
        snprintf(what, sizeof what, "%s bias_grad %dx%d", t->name, rows, cols);
        EXPECT(t->ops->bias_grad(rows, cols, ddy, ddb, (void *)g_stream) == 0, "%s: %s", what,
               err_get());
        sync_ok();
        to_host(got, ddb, cols * 4);
        EXPECT(REF->bias_grad(rows, cols, dy, ref, NULL) == 0, "%s ref: %s", what, err_get());
        EXPECT(close_to(what, got, ref, cols, rows, -1), "%s: db", what);
        cudaFree(ddy); cudaFree(ddb);
        free(dy); free(ref); free(got);
    }
}

/* ---- relu ---- */

static void relu_all(const table *t)
{
    const long n = 1001;
    float *x = frand(n), *dy = frand(n);
    x[3] = NAN; x[4] = -0.0f; x[5] = 0.0f; /* NaN passes, -0 and 0 give +0 */
    float *ry = fbuf(n), *rdx = fbuf(n), *got = fbuf(n);
    EXPECT(REF->relu(n, x, ry, NULL) == 0, "ref relu: %s", err_get());
    EXPECT(REF->relu_bwd(n, ry, dy, rdx, NULL) == 0, "ref relu_bwd: %s", err_get());
    float *dx_ = dev_f(x, n), *dy_ = dev_nan(n);
    EXPECT(t->ops->relu(n, dx_, dy_, (void *)g_stream) == 0, "%s relu: %s", t->name, err_get());
    sync_ok();
    to_host(got, dy_, n * 4);
    EXPECT(mismatches(got, ry, n) == 0, "%s relu: %ld elements differ", t->name,
           mismatches(got, ry, n));
    /* in place */
    EXPECT(t->ops->relu(n, dx_, dx_, (void *)g_stream) == 0, "%s relu in place: %s", t->name,
           err_get());
    sync_ok();
    to_host(got, dx_, n * 4);
    EXPECT(mismatches(got, ry, n) == 0, "%s relu in place: %ld elements differ", t->name,
           mismatches(got, ry, n));
    /* backward on the forward output, dx in place of dy (y's NaN: y > 0 false, dx 0) */
    float *ddy = dev_f(dy, n);
    EXPECT(t->ops->relu_bwd(n, dy_, ddy, ddy, (void *)g_stream) == 0, "%s relu_bwd: %s",
           t->name, err_get());
    sync_ok();
    to_host(got, ddy, n * 4);
    EXPECT(mismatches(got, rdx, n) == 0, "%s relu_bwd: %ld elements differ", t->name,
           mismatches(got, rdx, n));
    cudaFree(dx_); cudaFree(dy_); cudaFree(ddy);
    free(x); free(dy); free(ry); free(rdx); free(got);
}

/* ---- max-pool ---- */

/* Checks maxpool and maxpool_bwd on x (planes of H x W); plant: a wrong argmax must fail. */
static void pool_case(const table *t, int planes, int H, int W, float *x, int plant)
{
    const size_t nin = (size_t)planes * H * W, nout = (size_t)planes * (H / 2) * (W / 2);
    char what[96];
    snprintf(what, sizeof what, "%s maxpool %d planes %dx%d", t->name, planes, H, W);
    float *ry = fbuf(nout), *gy = fbuf(nout), *dy = frand(nout), *rdx = fbuf(nin), *gdx = fbuf(nin);
    int *rarg = (int *)xalloc(nout * 4), *garg = (int *)xalloc(nout * 4);
    EXPECT(REF->maxpool(planes, H, W, x, ry, rarg, NULL) == 0, "%s ref: %s", what, err_get());
    EXPECT(REF->maxpool_bwd(planes, H, W, dy, rarg, rdx, NULL) == 0, "%s ref bwd: %s", what,
           err_get());
    float *dx_ = dev_f(x, nin), *dy_ = dev_nan(nout);
    int *neg = (int *)xalloc(nout * 4);
    memset(neg, 0xFF, nout * 4); /* argmax poisoned with -1: never an index */
    int *darg = (int *)dev_from(neg, nout * 4);
    free(neg);
    EXPECT(t->ops->maxpool(planes, H, W, dx_, dy_, darg, (void *)g_stream) == 0, "%s: %s", what,
           err_get());
    sync_ok();
    to_host(gy, dy_, nout * 4);
    to_host(garg, darg, nout * 4);
    EXPECT(mismatches(gy, ry, nout) == 0, "%s: %ld of y differ", what, mismatches(gy, ry, nout));
    EXPECT(int_mismatches(garg, rarg, nout) == 0, "%s: %ld argmax differ", what,
           int_mismatches(garg, rarg, nout));
    if (plant) {
        garg[nout / 2] ^= 1; /* the neighbour in the window's row */
        EXPECT(int_mismatches(garg, rarg, nout) != 0, "%s: a planted wrong argmax passed", what);
    }
    /* backward from the reference's argmax, dx poisoned: all of it written */
    float *gdy = dev_f(dy, nout), *gdx_ = dev_nan(nin);
    int *darg2 = (int *)dev_from(rarg, nout * 4);
    EXPECT(t->ops->maxpool_bwd(planes, H, W, gdy, darg2, gdx_, (void *)g_stream) == 0,
           "%s bwd: %s", what, err_get());
    sync_ok();
    to_host(gdx, gdx_, nin * 4);
    EXPECT(close_to(what, gdx, rdx, nin, 1, -1), "%s: bwd dx", what);
    cudaFree(dx_); cudaFree(dy_); cudaFree(darg); cudaFree(gdy); cudaFree(gdx_); cudaFree(darg2);
    free(ry); free(gy); free(dy); free(rdx); free(gdx); free(rarg); free(garg);
}

static void pool_all(const table *t)
{
    float *x = frand(3 * 5 * 7);
    pool_case(t, 3, 5, 7, x, 1);
    free(x);
    x = frand(2 * 28 * 28);
    pool_case(t, 2, 28, 28, x, 0);
    free(x);
    /* ties and NaN: values from {-1, 0, 1}, a NaN in some windows (first,
     * last, two of them) */
    const int H = 9, W = 8;
    x = frand(H * W);
    for (int i = 0; i < H * W; i++) x[i] = x[i] < -0.33f ? -1.0f : x[i] < 0.33f ? 0.0f : 1.0f;
    x[0] = NAN;                   /* window (0,0): first element */
    x[1 * W + 3] = NAN;           /* window (0,1): last element */
    x[2 * W + 4] = NAN;           /* window (1,2): the first of two NaNs */
    x[3 * W + 5] = NAN;
    x[8 * W + 0] = NAN;           /* floor-mode remainder row: never read */
    pool_case(t, 1, H, W, x, 0);
    free(x);
}

/* ---- softmax cross-entropy ---- */

static void xent_case(const table *t, int rows, int classes, int plant)
{
    const size_t n = (size_t)rows * classes;
    char what[96];
    snprintf(what, sizeof what, "%s softmax_xent %dx%d", t->name, rows, classes);
    float *z = frand(n), *rdz = fbuf(n), *gdz = fbuf(n), rloss = NAN, gloss = NAN;
    for (size_t i = 0; i < n; i++) z[i] *= 4.0f; /* logits in [-4, 4) */
    int *lab = (int *)xalloc(rows * 4);
    for (int r = 0; r < rows; r++) lab[r] = (int)(((unsigned)r * 2654435761u) % (unsigned)classes);
    EXPECT(REF->softmax_xent(rows, classes, z, lab, &rloss, rdz, NULL) == 0, "%s ref: %s", what,
           err_get());
    float *dz_ = dev_f(z, n), *ddz = dev_nan(n), *dloss = dev_nan(1);
    int *dlab = (int *)dev_from(lab, rows * 4);
    EXPECT(t->ops->softmax_xent(rows, classes, dz_, dlab, dloss, ddz, (void *)g_stream) == 0,
           "%s: %s", what, err_get());
    sync_ok();
    to_host(gdz, ddz, n * 4);
    to_host(&gloss, dloss, 4);
    EXPECT(close_to(what, &gloss, &rloss, 1, classes, -1), "%s: loss %.9g, reference %.9g",
           what, gloss, rloss);
    EXPECT(close_to(what, gdz, rdz, n, classes, -1), "%s: dz", what);
    if (plant)
        EXPECT(!close_to(what, gdz, rdz, n, classes, (long)n - 1), "%s: a planted error in dz "
               "passed", what);
    cudaFree(dz_); cudaFree(ddz); cudaFree(dloss); cudaFree(dlab);
    free(z); free(rdz); free(gdz); free(lab);
}

static void xent_all(const table *t)
{
    xent_case(t, 17, 10, 1);
    xent_case(t, 1024, 1024, 0);
    xent_case(t, 3, 1500, 0);
}

/* ---- SGD ---- */

/* Two steps of SGD on n parameters starting `off` floats into their buffers
 * (off 1: not 16-byte aligned, the scalar path). */
static void sgd_case(const table *t, long n, int off, int momentum)
{
    char what[96];
    snprintf(what, sizeof what, "%s sgd n %ld offset %d momentum %d", t->name, n, off, momentum);
    const size_t m = (size_t)n + off;
    float *p = frand(m), *v = fbuf(m), *gp = fbuf(m), *gv = fbuf(m);
    memset(v, 0, m * sizeof(float)); /* v starts at zero */
    float *dp = dev_f(p, m), *dv = dev_f(v, m);
    const float lr = 0.05f, mom = 0.9f;
    for (int step = 0; step < 2; step++) {
        float *g = frand(m), *dg = dev_f(g, m);
        EXPECT(t->ops->sgd(n, dp + off, dg + off, momentum ? dv + off : NULL, lr,
                           momentum ? mom : 0.0f, (void *)g_stream) == 0, "%s: %s", what,
               err_get());
        EXPECT(REF->sgd(n, p + off, g + off, momentum ? v + off : NULL, lr, momentum ? mom : 0.0f,
                        NULL) == 0, "%s ref: %s", what, err_get());
        sync_ok();
        cudaFree(dg);
        free(g);
    }
    to_host(gp, dp, m * 4);
    to_host(gv, dv, m * 4);
    EXPECT(close_to(what, gp + off, p + off, n, 2, -1), "%s: p", what);
    if (momentum) EXPECT(close_to(what, gv + off, v + off, n, 2, -1), "%s: v", what);
    EXPECT(off == 0 || memcmp(gp, p, off * 4) == 0, "%s: wrote before p", what);
    cudaFree(dp); cudaFree(dv);
    free(p); free(v); free(gp); free(gv);
}

static void sgd_all(const table *t)
{
    for (int mom = 0; mom < 2; mom++)
        for (int off = 0; off < 2; off++) {
            sgd_case(t, 1001, off, mom);
            sgd_case(t, 1024, off, mom);
        }
}

/* ---- refusals ---- */

static void bad_arguments(const table *t)
{
    float *d = dev_nan(64);
    int *di = (int *)dev_nan(64); /* labels / argmax: never read (refused first) */
    void *s = (void *)g_stream;
    const train_ops *o = t->ops;
#define REFUSED(call, msg)                                                                 \
    do {                                                                                   \
        err_clear();                                                                       \
        EXPECT((call) != 0 && *err_get(), "%s: %s accepted", t->name, msg);               \
    } while (0)
    REFUSED(o->gemm(0, 0, 0, 4, 4, d, 4, d, 4, 0.0f, d, 4, s), "gemm M=0");
    REFUSED(o->gemm(0, 0, 4, 4, 4, d, 3, d, 4, 0.0f, d, 4, s), "gemm lda=3 < K=4");
    REFUSED(o->gemm(1, 0, 5, 4, 4, d, 4, d, 4, 0.0f, d, 4, s), "gemm A^T lda=4 < M=5");
    REFUSED(o->gemm(0, 1, 4, 4, 5, d, 5, d, 4, 0.0f, d, 4, s), "gemm B^T ldb=4 < K=5");
    REFUSED(o->gemm(0, 0, 4, 4, 4, NULL, 4, d, 4, 0.0f, d, 4, s), "gemm A=NULL");
    REFUSED(o->bias_add(-1, 4, d, d, s), "bias_add rows=-1");
    REFUSED(o->bias_grad(4, -2, d, d, s), "bias_grad cols=-2");
    REFUSED(o->relu(-1, d, d, s), "relu n=-1");
    REFUSED(o->relu_bwd(4, d, NULL, d, s), "relu_bwd dy=NULL");
    REFUSED(o->maxpool(1, -4, 4, d, d, di, s), "maxpool H=-4");
    REFUSED(o->maxpool_bwd(-1, 4, 4, d, di, d, s), "maxpool_bwd planes=-1");
    REFUSED(o->softmax_xent(0, 10, d, di, d, d, s), "softmax_xent rows=0");
    REFUSED(o->softmax_xent(4, 0, d, di, d, d, s), "softmax_xent classes=0");
    REFUSED(o->sgd(-5, d, d, NULL, 0.1f, 0.0f, s), "sgd n=-5");
#undef REFUSED
    /* empty tensors are no work */
    EXPECT(o->relu(0, d, d, s) == 0 && o->sgd(0, d, d, NULL, 0.1f, 0.0f, s) == 0 &&
           o->bias_add(0, 3, d, d, s) == 0 && o->maxpool(2, 1, 5, d, d, di, s) == 0,
           "%s: an empty op failed: %s", t->name, err_get());
    sync_ok();
    cudaFree(d);
    cudaFree(di);
}

/* Device-side checks show as NaN: a label out of range, an argmax outside its window. */
static void device_side_nan(const table *t)
{
    float z[6] = {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f}, loss = 0.0f, dz[6];
    int lab[2] = {1, 3}; /* 3 >= classes */
    float *dz_ = dev_f(z, 6), *ddz = dev_nan(6), *dl = dev_nan(1);
    int *dlab = (int *)dev_from(lab, sizeof lab);
    EXPECT(t->ops->softmax_xent(2, 3, dz_, dlab, dl, ddz, (void *)g_stream) == 0, "%s: %s",
           t->name, err_get());
    sync_ok();
    to_host(&loss, dl, 4);
    to_host(dz, ddz, sizeof dz);
    EXPECT(isnan(loss) && isnan(dz[3]) && !isnan(dz[0]), "%s: label 3 of 3 classes: loss %g",
           t->name, loss);
    int arg[1] = {5}; /* a 2x2 plane's window holds 0, 1, 2, 3 */
    float dy = 1.0f, dx[4];
    float *ddy = dev_f(&dy, 1), *ddx = dev_nan(4);
    int *darg = (int *)dev_from(arg, sizeof arg);
    EXPECT(t->ops->maxpool_bwd(1, 2, 2, ddy, darg, ddx, (void *)g_stream) == 0, "%s: %s",
           t->name, err_get());
    sync_ok();
    to_host(dx, ddx, sizeof dx);
    EXPECT(isnan(dx[0]) && isnan(dx[3]), "%s: argmax 5 in a 2x2 plane: dx %g", t->name, dx[0]);
    cudaFree(dz_); cudaFree(ddz); cudaFree(dl); cudaFree(dlab);
    cudaFree(ddy); cudaFree(ddx); cudaFree(darg);
}

int main(void)
{
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1) {
        printf("no CUDA device: skipped\n");
        return 77;
    }
    CUDA_OK(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking));
    for (int i = 0; i < NTABLES; i++) {
        const table *t = &TABLES[i];
        const int before = test_failures;
        gemm_all(t);
        conv_all(t);
        bias_all(t);
        relu_all(t);
        pool_all(t);
        xent_all(t);
        sgd_all(t);
        bad_arguments(t);
        device_side_nan(t);
        printf("%-9s every op: %s\n", t->name, test_failures == before ? "ok" : "FAILED");
    }
    gemm_cublas_release();
    conv_cudnn_release();
    CUDA_OK(cudaStreamDestroy(g_stream));
    TEST_END();
}
