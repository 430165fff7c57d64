/* cpu/conv_naive.c - the readable reference convolution (cpu-naive) and the
 * element functions the checker's reference is built from (conv_cpu.h).
 * Seven loops: four over the output element, three over its reduction,
 * accumulating in double; serial. */
#include "conv_cpu.h"
#include "errmsg.h"

#include <stdlib.h>

static inline long x_at(const conv_dims *d, int n, int c, int h, int w)
{
    return (((long)n * d->C + c) * d->H + h) * d->W + w;
}

double conv_ref_fwd_elem(const conv_dims *d, const float *x, const float *w, const float *b,
                         int n, int k, int p, int q)
{
    double acc = b ? (double)b[k] : 0.0;
    for (int c = 0; c < d->C; c++)
        for (int r = 0; r < d->R; r++) {
            int h = p * d->sh - d->ph + r;
            if (h < 0 || h >= d->H) continue;   /* zero padding */
            for (int s = 0; s < d->S; s++) {
                int wi = q * d->sw - d->pw + s;
                if (wi < 0 || wi >= d->W) continue;
                acc += (double)x[x_at(d, n, c, h, wi)] *
                       (double)w[(((long)k * d->C + c) * d->R + r) * d->S + s];
            }
        }
    return acc;
}

double conv_ref_bwd_data_elem(const conv_dims *d, const float *dy, const float *w, int n, int c,
                              int h, int wi)
{
    double acc = 0.0;
    for (int k = 0; k < d->K; k++)
        for (int r = 0; r < d->R; r++) {
            int ph = h + d->ph - r;   /* = p * sh */
            if (ph < 0 || ph % d->sh) continue;
            int p = ph / d->sh;
            if (p >= d->P) continue;
            for (int s = 0; s < d->S; s++) {
                int qw = wi + d->pw - s;
                if (qw < 0 || qw % d->sw) continue;
                int q = qw / d->sw;
                if (q >= d->Q) continue;
                acc += (double)dy[(((long)n * d->K + k) * d->P + p) * d->Q + q] *
                       (double)w[(((long)k * d->C + c) * d->R + r) * d->S + s];
            }
        }
    return acc;
}

double conv_ref_bwd_filter_elem(const conv_dims *d, const float *x, const float *dy, int k, int c,
                                int r, int s)
{
    double acc = 0.0;
    for (int n = 0; n < d->N; n++)
        for (int p = 0; p < d->P; p++) {
            int h = p * d->sh - d->ph + r;
            if (h < 0 || h >= d->H) continue;
            for (int q = 0; q < d->Q; q++) {
                int wi = q * d->sw - d->pw + s;
                if (wi < 0 || wi >= d->W) continue;
                acc += (double)dy[(((long)n * d->K + k) * d->P + p) * d->Q + q] *
                       (double)x[x_at(d, n, c, h, wi)];
            }
        }
    return acc;
}

double conv_ref_bias_elem(const conv_dims *d, const float *dy, int k)
{
    double acc = 0.0;
    for (int n = 0; n < d->N; n++) {
        const float *o = dy + ((long)n * d->K + k) * d->P * d->Q;
        for (long i = 0; i < (long)d->P * d->Q; i++) acc += (double)o[i];
    }
    return acc;
}

static int naive_fwd(const conv_dims *d, const float *x, const float *w, const float *b, float *y,
                     void *ws, void *stream)
{
    (void)ws, (void)stream;
    for (int n = 0; n < d->N; n++)
        for (int k = 0; k < d->K; k++)
            for (int p = 0; p < d->P; p++)
                for (int q = 0; q < d->Q; q++)
                    y[(((long)n * d->K + k) * d->P + p) * d->Q + q] =
                        (float)conv_ref_fwd_elem(d, x, w, b, n, k, p, q);
    return 0;
}

static int naive_bwd_data(const conv_dims *d, const float *dy, const float *w, float *dx, void *ws,
                          void *stream)
{
    (void)ws, (void)stream;
    for (int n = 0; n < d->N; n++)
        for (int c = 0; c < d->C; c++)
            for (int h = 0; h < d->H; h++)
                for (int wi = 0; wi < d->W; wi++)
                    dx[x_at(d, n, c, h, wi)] = (float)conv_ref_bwd_data_elem(d, dy, w, n, c, h, wi);
    return 0;
}

static int naive_bwd_filter(const conv_dims *d, const float *x, const float *dy, float *dw,
                            float *db, void *ws, void *stream)
{
    (void)ws, (void)stream;
    for (int k = 0; k < d->K; k++) {
        for (int c = 0; c < d->C; c++)
            for (int r = 0; r < d->R; r++)
                for (int s = 0; s < d->S; s++)
                    dw[(((long)k * d->C + c) * d->R + r) * d->S + s] =
                        (float)conv_ref_bwd_filter_elem(d, x, dy, k, c, r, s);
        db[k] = (float)conv_ref_bias_elem(d, dy, k);
    }
    return 0;
}

/* ---- reduced precision: the same elements over the dtype's values ----- */

/* n elements of dtype dt as floats (tf32: rounded to tf32), or NULL (err_set). */
static float *widen(dtype_t dt, const void *src, long long n)
{
    float *f = malloc((size_t)(n > 0 ? n : 1) * sizeof *f);
    if (!f) {
        err_set("cpu-naive: out of memory widening %lld %s elements", n, dtype_name(dt));
        return NULL;
    }
    for (long long i = 0; i < n; i++) f[i] = dtype_round(dt, dtype_get(dt, src, (size_t)i));
    return f;
}

static int naive_fwd_dt(dtype_t dt, const conv_dims *d, const void *x, const void *w,
                        const void *b, void *y, void *ws, void *stream)
{
    float *fx = widen(dt, x, conv_x_elems(d)), *fw = widen(dt, w, conv_w_elems(d));
    float *fb = widen(dt, b, d->K);
    (void)ws, (void)stream;
    if (fx && fw && fb)
        for (int n = 0; n < d->N; n++)
            for (int k = 0; k < d->K; k++)
                for (int p = 0; p < d->P; p++)
                    for (int q = 0; q < d->Q; q++)
                        dtype_set_d(dt, y, (size_t)(((long)n * d->K + k) * d->P + p) * d->Q + q,
                                    conv_ref_fwd_elem(d, fx, fw, fb, n, k, p, q));
    int rc = fx && fw && fb ? 0 : -1;
    free(fx), free(fw), free(fb);
    return rc;
}

static int naive_bwd_data_dt(dtype_t dt, const conv_dims *d, const void *dy, const void *w,
                             void *dx, void *ws, void *stream)
{
    float *fdy = widen(dt, dy, conv_y_elems(d)), *fw = widen(dt, w, conv_w_elems(d));
    (void)ws, (void)stream;
    if (fdy && fw)
        for (int n = 0; n < d->N; n++)
            for (int c = 0; c < d->C; c++)
                for (int h = 0; h < d->H; h++)
                    for (int wi = 0; wi < d->W; wi++)
                        dtype_set_d(dt, dx, (size_t)x_at(d, n, c, h, wi),
                                    conv_ref_bwd_data_elem(d, fdy, fw, n, c, h, wi));
    int rc = fdy && fw ? 0 : -1;
    free(fdy), free(fw);
    return rc;
}

static int naive_bwd_filter_dt(dtype_t dt, const conv_dims *d, const void *x, const void *dy,
                               void *dw, void *db, void *ws, void *stream)
{
    float *fx = widen(dt, x, conv_x_elems(d)), *fdy = widen(dt, dy, conv_y_elems(d));
    (void)ws, (void)stream;
    if (fx && fdy)
        for (int k = 0; k < d->K; k++) {
            for (int c = 0; c < d->C; c++)
                for (int r = 0; r < d->R; r++)
                    for (int s = 0; s < d->S; s++)
                        dtype_set_d(dt, dw, (size_t)(((long)k * d->C + c) * d->R + r) * d->S + s,
                                    conv_ref_bwd_filter_elem(d, fx, fdy, k, c, r, s));
            dtype_set_d(dt, db, (size_t)k, conv_ref_bias_elem(d, fdy, k));
        }
    int rc = fx && fdy ? 0 : -1;
    free(fx), free(fdy);
    return rc;
}

const conv_ops CONV_OPS_CPU_NAIVE = {
    .fwd = naive_fwd, .bwd_data = naive_bwd_data, .bwd_filter = naive_bwd_filter,
    .fwd_dt = naive_fwd_dt, .bwd_data_dt = naive_bwd_data_dt, .bwd_filter_dt = naive_bwd_filter_dt};
