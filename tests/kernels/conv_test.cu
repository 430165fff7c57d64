/* tests/kernels/conv_test.cu - every CUDA conv backend (cuda-direct,
 * cuda-im2col, cuda-implicit, cudnn) in every direction against a double
 * reference, at awkward shapes.
 *
 * For each backend, case and direction: device buffers of exactly the tensor
 * sizes (a read past one is out of bounds under AddressSanitizer), seeded
 * inputs, outputs poisoned with NaN (every element must be written), the
 * workspace exactly ops.workspace(d, dir) bytes (NULL when 0), the call queued
 * on a non-default stream, the stream synchronized, outputs copied back and
 * compared by check_compare at check_tolerance(fp32, conv_reduction(d, dir))
 * (db at N*P*Q) with a reference from the plain loops below (no CPU backend's
 * code). Cases cover 1x1x1, 1x1 filters, strides above the filter (dx
 * elements no tap reaches must be 0), filters larger than the input with
 * padding, channels past one 128 tile, several 16x16 direct tiles, a split-K
 * bwd-filter. Then: a planted wrong element fails the check in each
 * direction (one in the padding border of y), bad arguments and a missing
 * workspace give -1 and a message, cuDNN names its algorithm in the note,
 * reduce_sum_cuda sums in order. The backends with typed entries (cudnn) run
 * at bf16 and fp16 the same way: inputs stored in the dtype, the reference
 * from the values it holds, check_compare_dt at check_tolerance(dtype, k) (half
 * an ulp per element plus the accumulation bound), db element by element
 * within one rounding of its fp32 sum, a planted error caught, tf32 and u8
 * refused; where cuDNN refuses the bias calls (the emulator at bf16) the
 * bias runs on our kernels and the note says so. Built against the emulator (run under two
 * thread orders) and, as a compile check, with nvcc.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "check.h"
#include "errmsg.h"
#include "conv_cuda.h"
#include "reduce_sum.h"
#include "testutil.h"
#include "cuda_ok.h"

typedef struct backend {
    const char *name;
    const conv_ops *ops;
} backend;

static const backend BACKENDS[] = {
    {"cuda-direct", &CONV_CUDA_DIRECT},
    {"cuda-im2col", &CONV_CUDA_IM2COL},
    {"cuda-implicit", &CONV_CUDA_IMPLICIT},
    {"cudnn", &CONV_CUDNN},
};
#define NBACKENDS (int)(sizeof BACKENDS / sizeof BACKENDS[0])

/* N C H W K R S sh sw ph pw */
static const int CASES[][11] = {
    {1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0},      /* 1x1x1 */
    {2, 3, 7, 9, 5, 3, 3, 1, 1, 1, 1},      /* 3x3 pad 1, odd sizes */
    {3, 5, 11, 13, 7, 3, 5, 2, 2, 1, 2},    /* stride 2, R != S, ph != pw */
    {2, 4, 9, 8, 6, 1, 1, 1, 1, 0, 0},      /* 1x1 */
    {1, 3, 23, 23, 9, 7, 7, 2, 2, 3, 3},    /* a small ResNet stem */
    {2, 17, 6, 5, 130, 2, 3, 1, 1, 0, 1},   /* K past one 128 tile */
    {5, 130, 5, 5, 3, 3, 3, 3, 3, 2, 2},    /* C past one tile, stride = filter */
    {1, 2, 4, 4, 2, 5, 5, 1, 1, 4, 4},      /* filter larger than the input */
    {2, 9, 18, 17, 33, 3, 3, 1, 1, 1, 1},   /* several 16x16 direct tiles */
    {2, 3, 9, 10, 4, 2, 2, 4, 3, 1, 0},     /* stride above the filter: untouched dx */
    {4, 8, 20, 20, 16, 3, 3, 1, 1, 1, 1},   /* bwd-filter split-K (N*P*Q = 1600) */
};
#define NCASES (int)(sizeof CASES / sizeof CASES[0])

static conv_dims dims_of(const int *c)
{
    conv_dims d;
    d.N = c[0]; d.C = c[1]; d.H = c[2]; d.W = c[3]; d.K = c[4]; d.R = c[5]; d.S = c[6];
    d.sh = c[7]; d.sw = c[8]; d.ph = c[9]; d.pw = c[10];
    if (conv_dims_finish(&d)) {
        fprintf(stderr, "bad test case\n");
        exit(1);
    }
    return d;
}

/* ---- the double reference: the three sums of ops/conv_dims.h, as loops ---- */

static double xat(const conv_dims *d, const float *x, int n, int c, int h, int w)
{
    if (h < 0 || h >= d->H || w < 0 || w >= d->W) return 0.0;
    return x[(((size_t)n * d->C + c) * d->H + h) * d->W + w];
}

static void ref_fwd(const conv_dims *d, const float *x, const float *w, const float *b, double *y)
{
    for (int n = 0; n < d->N; n++)
        for (int k = 0; k < d->K; k++)
            for (int p = 0; p < d->P; p++)
                for (int q = 0; q < d->Q; q++) {
                    double s = b[k];
                    for (int c = 0; c < d->C; c++)
                        for (int r = 0; r < d->R; r++)
                            for (int t = 0; t < d->S; t++)
                                s += xat(d, x, n, c, p * d->sh - d->ph + r, q * d->sw - d->pw + t) *
                                     w[(((size_t)k * d->C + c) * d->R + r) * d->S + t];
                    y[(((size_t)n * d->K + k) * d->P + p) * d->Q + q] = s;
                }
}

static void ref_bwd_data(const conv_dims *d, const float *dy, const float *w, double *dx)
{
    memset(dx, 0, sizeof(double) * conv_x_elems(d));
    for (int n = 0; n < d->N; n++)
        for (int k = 0; k < d->K; k++)
            for (int p = 0; p < d->P; p++)
                for (int q = 0; q < d->Q; q++)
                    for (int c = 0; c < d->C; c++)
                        for (int r = 0; r < d->R; r++)
                            for (int t = 0; t < d->S; t++) {
                                int h = p * d->sh - d->ph + r, ww = q * d->sw - d->pw + t;
                                if (h < 0 || h >= d->H || ww < 0 || ww >= d->W) continue;
                                dx[(((size_t)n * d->C + c) * d->H + h) * d->W + ww] +=
                                    (double)dy[(((size_t)n * d->K + k) * d->P + p) * d->Q + q] *
                                    w[(((size_t)k * d->C + c) * d->R + r) * d->S + t];
                            }
}

static void ref_bwd_filter(const conv_dims *d, const float *x, const float *dy, double *dw,
                           double *db)
{
    memset(dw, 0, sizeof(double) * conv_w_elems(d));
    memset(db, 0, sizeof(double) * d->K);
    for (int n = 0; n < d->N; n++)
        for (int k = 0; k < d->K; k++)
            for (int p = 0; p < d->P; p++)
                for (int q = 0; q < d->Q; q++) {
                    double g = dy[(((size_t)n * d->K + k) * d->P + p) * d->Q + q];
                    db[k] += g;
                    for (int c = 0; c < d->C; c++)
                        for (int r = 0; r < d->R; r++)
                            for (int t = 0; t < d->S; t++)
                                dw[(((size_t)k * d->C + c) * d->R + r) * d->S + t] +=
                                    g * xat(d, x, n, c, p * d->sh - d->ph + r, q * d->sw - d->pw + t);
                }
}

/* ---- device helpers ---- */

static float *dev_from(const float *h, size_t n)
{
    float *d = NULL;
    CUDA_OK(cudaMalloc((void **)&d, n * sizeof(float)));
    CUDA_OK(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice));
    return d;
}

static float *dev_poisoned(size_t n)
{
    float *d = NULL;
    CUDA_OK(cudaMalloc((void **)&d, n * sizeof(float)));
    CUDA_OK(cudaMemset(d, 0xFF, n * sizeof(float)));
    /* a legacy-stream memset is unordered with the non-blocking stream the
     * backends run on: done before they start */
    CUDA_OK(cudaDeviceSynchronize());
    return d;
}

static void to_host(float *h, const float *d, size_t n)
{
    CUDA_OK(cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost));
}

static unsigned long long seed = 1;

static float *host_random(size_t n)
{
    float *h = (float *)malloc(n * sizeof(float));
    if (!h) exit(1);
    rng_fill_uniform(h, n, seed++);
    return h;
}

/* One output against its reference; plant: corrupt element `plant` first (-1: none). */
static int output_ok(const char *what, const float *got, const double *ref, size_t n, long k,
                     long plant)
{
    float *g = (float *)malloc(n * sizeof(float));
    if (!g) exit(1);
    memcpy(g, got, n * sizeof(float));
    if (plant >= 0) g[plant] += 1e-2f * (fabsf(g[plant]) + 1.0f);
    check_result r = check_compare(g, ref, n, check_tolerance(DTYPE_FP32, k));
    free(g);
    if (!r.pass && plant < 0)
        fprintf(stderr, "  %s: rel %.3g max abs %.3g (tol %.3g) nonfinite %ld at %ld\n", what,
                r.rel_err, r.max_abs_err, r.tolerance, r.nonfinite, r.worst_index);
    return r.pass;
}

/* Runs backend b on case d in direction dir; checks (and with plant, checks
 * that a corrupted element fails). Returns 0 when the call itself worked. */
static void run_case(const backend *b, const conv_dims *d, conv_dir dir, int plant)
{
    const size_t nx = conv_x_elems(d), nw = conv_w_elems(d), ny = conv_y_elems(d);
    unsigned long long wsb = b->ops->workspace ? b->ops->workspace(d, dir) : 0;
    void *ws = NULL;
    cudaStream_t s;
    char what[160];
    snprintf(what, sizeof what, "%s %s N%d C%d H%d W%d K%d R%d S%d s%dx%d p%dx%d", b->name,
             dir == CONV_FWD ? "fwd" : dir == CONV_BWD_DATA ? "bwd-data" : "bwd-filter", d->N,
             d->C, d->H, d->W, d->K, d->R, d->S, d->sh, d->sw, d->ph, d->pw);
    CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    if (wsb) CUDA_OK(cudaMalloc(&ws, wsb));
    err_clear();
    case_note_clear();
    if (dir == CONV_FWD) {
        float *hx = host_random(nx), *hw = host_random(nw), *hb = host_random(d->K);
        float *hy = (float *)malloc(ny * sizeof(float));
        double *ry = (double *)malloc(ny * sizeof(double));
        float *dx = dev_from(hx, nx), *dw = dev_from(hw, nw), *db = dev_from(hb, d->K);
        float *dy = dev_poisoned(ny);
        int rc = b->ops->fwd(d, dx, dw, db, dy, ws, (void *)s);
        EXPECT(rc == 0, "%s: %s", what, err_get());
        CUDA_OK(cudaStreamSynchronize(s));
        to_host(hy, dy, ny);
        ref_fwd(d, hx, hw, hb, ry);
        EXPECT(output_ok(what, hy, ry, ny, conv_reduction(d, dir), -1), "%s: y", what);
        /* y[0,0,0,0] reads the padding wherever ph, pw > 0 */
        if (plant) EXPECT(!output_ok(what, hy, ry, ny, conv_reduction(d, dir), 0),
                          "%s: a planted error in y[0] passed", what);
        cudaFree(dx); cudaFree(dw); cudaFree(db); cudaFree(dy);
        free(hx); free(hw); free(hb); free(hy); free(ry);
    } else if (dir == CONV_BWD_DATA) {
        float *hg = host_random(ny), *hw = host_random(nw);
        float *hx = (float *)malloc(nx * sizeof(float));
        double *rx = (double *)malloc(nx * sizeof(double));
        float *dg = dev_from(hg, ny), *dw = dev_from(hw, nw), *ddx = dev_poisoned(nx);
        int rc = b->ops->bwd_data(d, dg, dw, ddx, ws, (void *)s);
        EXPECT(rc == 0, "%s: %s", what, err_get());
        CUDA_OK(cudaStreamSynchronize(s));
        to_host(hx, ddx, nx);
        ref_bwd_data(d, hg, hw, rx);
        EXPECT(output_ok(what, hx, rx, nx, conv_reduction(d, dir), -1), "%s: dx", what);
        if (plant) EXPECT(!output_ok(what, hx, rx, nx, conv_reduction(d, dir), (long)nx - 1),
                          "%s: a planted error in dx passed", what);
        cudaFree(dg); cudaFree(dw); cudaFree(ddx);
        free(hg); free(hw); free(hx); free(rx);
    } else {
        float *hx = host_random(nx), *hg = host_random(ny);
        float *hdw = (float *)malloc(nw * sizeof(float)), *hdb = (float *)malloc(d->K * sizeof(float));
        double *rw = (double *)malloc(nw * sizeof(double)), *rb = (double *)malloc(d->K * sizeof(double));
        float *dx = dev_from(hx, nx), *dg = dev_from(hg, ny);
        float *ddw = dev_poisoned(nw), *ddb = dev_poisoned(d->K);
        int rc = b->ops->bwd_filter(d, dx, dg, ddw, ddb, ws, (void *)s);
        EXPECT(rc == 0, "%s: %s", what, err_get());
        CUDA_OK(cudaStreamSynchronize(s));
        to_host(hdw, ddw, nw);
        to_host(hdb, ddb, d->K);
        ref_bwd_filter(d, hx, hg, rw, rb);
        long nred = (long)d->N * d->P * d->Q;
        EXPECT(output_ok(what, hdw, rw, nw, conv_reduction(d, dir), -1), "%s: dw", what);
        EXPECT(output_ok(what, hdb, rb, d->K, nred, -1), "%s: db", what);
        if (plant) {
            EXPECT(!output_ok(what, hdw, rw, nw, conv_reduction(d, dir), (long)nw / 2),
                   "%s: a planted error in dw passed", what);
            EXPECT(!output_ok(what, hdb, rb, d->K, nred, 0), "%s: a planted error in db passed",
                   what);
        }
        cudaFree(dx); cudaFree(dg); cudaFree(ddw); cudaFree(ddb);
        free(hx); free(hg); free(hdw); free(hdb); free(rw); free(rb);
    }
    if (b->ops == &CONV_CUDNN)
        EXPECT(strstr(case_note_get(), "cuDNN") != NULL, "%s: note '%s'", what, case_note_get());
    cudaFree(ws);
    CUDA_OK(cudaStreamDestroy(s));
}

/* ---- reduced precision: the typed entries (ops/conv_dims.h) at bf16, fp16 ---- */

static const dtype_t DT_TYPES[] = {DTYPE_BF16, DTYPE_FP16};

/* n seeded values stored in dt on the device; *held gets them as floats (the
 * values the dtype holds, for the reference). */
static void *dev_random_dt(dtype_t dt, size_t n, float **held)
{
    float *h = host_random(n);
    void *buf = malloc(n * dtype_size(dt));
    void *d = NULL;
    if (!buf) exit(1);
    for (size_t i = 0; i < n; i++) {
        dtype_set(dt, buf, i, h[i]);
        h[i] = dtype_get(dt, buf, i);
    }
    CUDA_OK(cudaMalloc(&d, n * dtype_size(dt)));
    CUDA_OK(cudaMemcpy(d, buf, n * dtype_size(dt), cudaMemcpyHostToDevice));
    free(buf);
    *held = h;
    return d;
}

static void *dev_poisoned_dt(dtype_t dt, size_t n)
{
    void *d = NULL;
    CUDA_OK(cudaMalloc(&d, n * dtype_size(dt)));
    CUDA_OK(cudaMemset(d, 0xFF, n * dtype_size(dt))); /* NaN in every dtype */
    CUDA_OK(cudaDeviceSynchronize());
    return d;
}

/* One output of dtype dt (device) against its reference, as output_ok. */
static int output_ok_dt(const char *what, dtype_t dt, const void *dev, const double *ref,
                        size_t n, long k, long plant)
{
    void *g = malloc(n * dtype_size(dt));
    if (!g) exit(1);
    CUDA_OK(cudaMemcpy(g, dev, n * dtype_size(dt), cudaMemcpyDeviceToHost));
    if (plant >= 0) {
        const float v = dtype_get(dt, g, (size_t)plant);
        dtype_set(dt, g, (size_t)plant, v + 1e-2f * (fabsf(v) + 1.0f));
    }
    check_result r = check_compare_dt(g, dt, ref, n, check_tolerance(dt, k));
    free(g);
    if (!r.pass && plant < 0)
        fprintf(stderr, "  %s %s: rel %.3g max abs %.3g (tol %.3g) nonfinite %ld at %ld\n", what,
                dtype_name(dt), r.rel_err, r.max_abs_err, r.tolerance, r.nonfinite,
                r.worst_index);
    return r.pass;
}

/* db at dtype dt element by element: each within one rounding of the sum
 * accumulated in fp32, |db[k] - ref[k]| <= u |ref[k]| + (1 + u) n 2^-24
 * sum|dy| over its n terms (u: dt's unit roundoff), a bound a sum rounded
 * to dt more than once, or accumulated in dt, exceeds. 1 when every one is. */
static int db_rounded_once(const char *what, dtype_t dt, const void *dev, const double *ref,
                           const conv_dims *d, const float *dy)
{
    const long n = (long)d->N * d->P * d->Q, pq = (long)d->P * d->Q;
    const double u = dtype_unit_roundoff(dt);
    void *g = malloc((size_t)d->K * dtype_size(dt));
    int ok = 1;
    if (!g) exit(1);
    CUDA_OK(cudaMemcpy(g, dev, (size_t)d->K * dtype_size(dt), cudaMemcpyDeviceToHost));
    for (int k = 0; k < d->K; k++) {
        double sum_abs = 0;
        for (int i = 0; i < d->N; i++)
            for (long j = 0; j < pq; j++) sum_abs += fabs(dy[((size_t)i * d->K + k) * pq + j]);
        const double bound = u * fabs(ref[k]) + (1 + u) * n * ldexp(1.0, -24) * sum_abs;
        const double got = dtype_get(dt, g, (size_t)k);
        if (!(fabs(got - ref[k]) <= bound)) {
            fprintf(stderr, "  %s: db[%d] = %.9g, reference %.9g: off by %.3g, one rounding "
                    "allows %.3g\n", what, k, got, ref[k], fabs(got - ref[k]), bound);
            ok = 0;
        }
    }
    free(g);
    return ok;
}

/* run_case at dtype dt through the typed entries; the reference from the
 * inputs as the dtype holds them. */
static void run_case_dt(const backend *b, const conv_dims *d, conv_dir dir, dtype_t dt, int plant)
{
    const size_t nx = conv_x_elems(d), nw = conv_w_elems(d), ny = conv_y_elems(d);
    const unsigned long long wsb = b->ops->workspace_dt ? b->ops->workspace_dt(dt, d, dir)
                                   : b->ops->workspace ? b->ops->workspace(d, dir) : 0;
    const long k = conv_reduction(d, dir);
    void *ws = NULL;
    cudaStream_t s;
    char what[160];
    snprintf(what, sizeof what, "%s %s %s N%d C%d H%d W%d K%d R%d S%d s%dx%d p%dx%d", b->name,
             dtype_name(dt), dir == CONV_FWD ? "fwd" : dir == CONV_BWD_DATA ? "bwd-data" : "bwd-filter",
             d->N, d->C, d->H, d->W, d->K, d->R, d->S, d->sh, d->sw, d->ph, d->pw);
    CUDA_OK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    if (wsb) CUDA_OK(cudaMalloc(&ws, wsb));
    err_clear();
    case_note_clear();
    if (dir == CONV_FWD) {
        float *hx, *hw, *hb;
        void *dx = dev_random_dt(dt, nx, &hx), *dw = dev_random_dt(dt, nw, &hw);
        void *db = dev_random_dt(dt, d->K, &hb), *dy = dev_poisoned_dt(dt, ny);
        double *ry = (double *)malloc(ny * sizeof(double));
        EXPECT(b->ops->fwd_dt(dt, d, dx, dw, db, dy, ws, (void *)s) == 0, "%s: %s", what, err_get());
        CUDA_OK(cudaStreamSynchronize(s));
        ref_fwd(d, hx, hw, hb, ry);
        EXPECT(output_ok_dt(what, dt, dy, ry, ny, k, -1), "%s: y", what);
        if (plant) EXPECT(!output_ok_dt(what, dt, dy, ry, ny, k, 0), "%s: a planted error in y[0] passed", what);
        cudaFree(dx); cudaFree(dw); cudaFree(db); cudaFree(dy);
        free(hx); free(hw); free(hb); free(ry);
    } else if (dir == CONV_BWD_DATA) {
        float *hg, *hw;
        void *dg = dev_random_dt(dt, ny, &hg), *dw = dev_random_dt(dt, nw, &hw);
        void *ddx = dev_poisoned_dt(dt, nx);
        double *rx = (double *)malloc(nx * sizeof(double));
        EXPECT(b->ops->bwd_data_dt(dt, d, dg, dw, ddx, ws, (void *)s) == 0, "%s: %s", what, err_get());
        CUDA_OK(cudaStreamSynchronize(s));
        ref_bwd_data(d, hg, hw, rx);
        EXPECT(output_ok_dt(what, dt, ddx, rx, nx, k, -1), "%s: dx", what);
        if (plant) EXPECT(!output_ok_dt(what, dt, ddx, rx, nx, k, (long)nx - 1), "%s: a planted error in dx passed", what);
        cudaFree(dg); cudaFree(dw); cudaFree(ddx);
        free(hg); free(hw); free(rx);
    } else {
        float *hx, *hg;
        void *dx = dev_random_dt(dt, nx, &hx), *dg = dev_random_dt(dt, ny, &hg);
        void *ddw = dev_poisoned_dt(dt, nw), *ddb = dev_poisoned_dt(dt, d->K);
        double *rw = (double *)malloc(nw * sizeof(double)), *rb = (double *)malloc(d->K * sizeof(double));
        EXPECT(b->ops->bwd_filter_dt(dt, d, dx, dg, ddw, ddb, ws, (void *)s) == 0, "%s: %s", what, err_get());
        CUDA_OK(cudaStreamSynchronize(s));
        ref_bwd_filter(d, hx, hg, rw, rb);
        EXPECT(output_ok_dt(what, dt, ddw, rw, nw, k, -1), "%s: dw", what);
        EXPECT(output_ok_dt(what, dt, ddb, rb, d->K, (long)d->N * d->P * d->Q, -1), "%s: db", what);
        EXPECT(db_rounded_once(what, dt, ddb, rb, d, hg), "%s: db not rounded once", what);
        if (plant) EXPECT(!output_ok_dt(what, dt, ddw, rw, nw, k, (long)nw / 2), "%s: a planted error in dw passed", what);
        cudaFree(dx); cudaFree(dg); cudaFree(ddw); cudaFree(ddb);
        free(hx); free(hg); free(rw); free(rb);
    }
    if (b->ops == &CONV_CUDNN) {
        EXPECT(strstr(case_note_get(), dtype_name(dt)) != NULL, "%s: note '%s'", what, case_note_get());
#ifdef __CUDAEMU__
        /* the emulated cuDNN refuses the bias calls at bf16 (as some versions
         * do): the bias ran on our kernel and the note says so */
        const int own = strstr(case_note_get(), "bias on our kernel") != NULL;
        EXPECT(own == (dt == DTYPE_BF16 && dir != CONV_BWD_DATA), "%s: note '%s'", what,
               case_note_get());
#endif
    }
    cudaFree(ws);
    CUDA_OK(cudaStreamDestroy(s));
}

/* The typed entries refuse a dtype they do not take (fp32, tf32 for cudnn). */
static void dt_refused(void)
{
    conv_dims d = dims_of(CASES[1]);
    float *p = NULL;
    CUDA_OK(cudaMalloc((void **)&p, 4096 * sizeof(float)));
    for (int i = 0; i < NBACKENDS; i++) {
        const conv_ops *o = BACKENDS[i].ops;
        if (!o->fwd_dt) continue;
        err_clear();
        EXPECT(o->fwd_dt(DTYPE_TF32, &d, p, p, p, p, p, NULL) == -1 && *err_get(),
               "%s: fwd_dt took tf32", BACKENDS[i].name);
        err_clear();
        EXPECT(o->bwd_data_dt(DTYPE_U8, &d, p, p, p, p, NULL) == -1 && *err_get(),
               "%s: bwd_data_dt took u8", BACKENDS[i].name);
    }
    CUDA_OK(cudaFree(p));
}

static void bad_arguments(void)
{
    conv_dims d = dims_of(CASES[1]);
    float *p = NULL;
    CUDA_OK(cudaMalloc((void **)&p, 4096 * sizeof(float)));
    for (int i = 0; i < NBACKENDS; i++) {
        const conv_ops *o = BACKENDS[i].ops;
        err_clear();
        EXPECT(o->fwd(&d, NULL, p, p, p, NULL, 0) == -1 && *err_get(), "%s: null x accepted",
               BACKENDS[i].name);
        conv_dims bad = d;
        bad.P = 99;
        err_clear();
        EXPECT(o->bwd_data(&bad, p, p, p, NULL, 0) == -1 && strstr(err_get(), "bad dims"),
               "%s: inconsistent P accepted (%s)", BACKENDS[i].name, err_get());
    }
    err_clear();
    EXPECT(CONV_CUDA_IM2COL.fwd(&d, p, p, p, p, NULL, 0) == -1 && strstr(err_get(), "workspace"),
           "im2col without its workspace: %s", err_get());
    CUDA_OK(cudaFree(p));
}

static void reduce_sum(void)
{
    const int n = 3;
    const long long count = 1000;
    float *h = host_random(n * count), *got = (float *)malloc(count * sizeof(float));
    float *src = dev_from(h, n * count), *dst = dev_poisoned(count);
    EXPECT(reduce_sum_cuda(dst, src, n, count, NULL) == 0, "reduce_sum: %s", err_get());
    to_host(got, dst, count);
    int same = 1;
    for (long long i = 0; i < count; i++)
        same &= got[i] == (h[i] + h[count + i]) + h[2 * count + i];
    EXPECT(same, "reduce_sum: not the in-order sum");
    EXPECT(reduce_sum_cuda(dst, src, 0, count, NULL) == -1, "reduce_sum: n = 0 accepted");
    cudaFree(src); cudaFree(dst);
    free(h); free(got);
}

int main(void)
{
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1) {
        printf("no CUDA device: skipped\n");
        return 77;
    }
    for (int i = 0; i < NBACKENDS; i++)
        for (int c = 0; c < NCASES; c++) {
            conv_dims d = dims_of(CASES[c]);
            for (int dir = 0; dir < CONV_NDIRS; dir++)
                run_case(&BACKENDS[i], &d, (conv_dir)dir, c == 2);
        }
    /* every backend with typed entries, at bf16 and fp16, on the smaller cases */
    for (int i = 0; i < NBACKENDS; i++)
        for (size_t t = 0; BACKENDS[i].ops->fwd_dt && t < sizeof DT_TYPES / sizeof DT_TYPES[0]; t++)
            for (int c = 0; c < NCASES; c++) {
                if (c == 4 || c == 6 || c == 8 || c == 10) continue; /* the largest */
                conv_dims d = dims_of(CASES[c]);
                for (int dir = 0; dir < CONV_NDIRS; dir++)
                    run_case_dt(&BACKENDS[i], &d, (conv_dir)dir, DT_TYPES[t], c == 2);
            }
    dt_refused();
    bad_arguments();
    reduce_sum();
    conv_cudnn_release();
    TEST_END();
}
