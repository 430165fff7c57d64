/* cpu/conv_blas.c - cpu-blas: im2col + OpenBLAS sgemm, the classic Caffe /
 * darknet path (conv_cpu.h). One image at a time:
 *   fwd         col = im2col(x_n); y_n = w . col (sgemm, K x PQ x CRS); + b
 *   bwd-data    col = w^T . dy_n (sgemm TransA); dx_n = col2im(col)
 *   bwd-filter  col = im2col(x_n); dw += dy_n . col^T (sgemm TransB, beta 1
 *               after the first image); db[k] += row sums of dy_n
 * OpenBLAS threads each sgemm; the column transforms run on the calling
 * thread, as Caffe's do. (Splitting them over OpenMP threads made the layer
 * 3x slower on 2 cores: OpenBLAS's pthreads spin-wait after each sgemm while
 * OpenMP's team wants the same cores, and the two pools fight on every
 * image. cpu-omp runs everything, GEMM included, on the one OpenMP team.)
 * A 1x1, stride-1,
 * unpadded filter skips im2col: the image is its own column matrix. The
 * column buffer (C*R*S x P*Q floats) is allocated per call. */
#include "conv_cpu.h"
#include "conv_im2col.h"
#include "errmsg.h"

#include <cblas.h>
#include <stdlib.h>

static float *col_alloc(const conv_dims *d, const char *who)
{
    if (conv_is_pointwise(d)) return NULL;
    size_t n = (size_t)d->C * d->R * d->S * d->P * d->Q;
    float *col = malloc(n * sizeof *col);
    if (!col) err_set("%s: out of memory for the columns (%zu bytes)", who, n * sizeof *col);
    return col;
}

/* The columns of image xn: col, or xn itself for a pointwise filter. */
static const float *columns(const conv_dims *d, const float *xn, float *col)
{
    if (!col) return xn;
    long pq = (long)d->P * d->Q;
    for (int c = 0; c < d->C; c++)
        conv_im2col(d, xn, c, c + 1, 0, pq, col + (long)c * d->R * d->S * pq, pq);
    return col;
}

static int blas_fwd(const conv_dims *d, const float *x, const float *w, const float *b, float *y,
                    void *ws, void *stream)
{
    (void)ws, (void)stream;
    const int crs = d->C * d->R * d->S, pq = d->P * d->Q;
    float *col = col_alloc(d, "cpu-blas fwd");
    if (!col && !conv_is_pointwise(d)) return 1;
    for (int n = 0; n < d->N; n++) {
        const float *cn = columns(d, x + (long)n * d->C * d->H * d->W, col);
        float *yn = y + (long)n * d->K * pq;
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, d->K, pq, crs, 1.0f, w, crs, cn,
                    pq, 0.0f, yn, pq);
        for (int k = 0; k < d->K; k++)
            for (int j = 0; j < pq; j++) yn[(long)k * pq + j] += b[k];
    }
    free(col);
    return 0;
}

static int blas_bwd_data(const conv_dims *d, const float *dy, const float *w, float *dx, void *ws,
                         void *stream)
{
    (void)ws, (void)stream;
    const int crs = d->C * d->R * d->S, pq = d->P * d->Q;
    const long img = (long)d->C * d->H * d->W;
    float *col = col_alloc(d, "cpu-blas bwd-data");
    if (!col && !conv_is_pointwise(d)) return 1;
    for (int n = 0; n < d->N; n++) {
        const float *dyn = dy + (long)n * d->K * pq;
        if (!col) { /* pointwise: dx_n is the column matrix */
            cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, crs, pq, d->K, 1.0f, w, crs, dyn,
                        pq, 0.0f, dx + n * img, pq);
            continue;
        }
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, crs, pq, d->K, 1.0f, w, crs, dyn, pq,
                    0.0f, col, pq);
        for (int c = 0; c < d->C; c++)
            conv_col2im(d, col + (long)c * d->R * d->S * pq, pq, c, c + 1, dx + n * img);
    }
    free(col);
    return 0;
}

static int blas_bwd_filter(const conv_dims *d, const float *x, const float *dy, float *dw,
                           float *db, void *ws, void *stream)
{
    (void)ws, (void)stream;
    const int crs = d->C * d->R * d->S, pq = d->P * d->Q;
    float *col = col_alloc(d, "cpu-blas bwd-filter");
    if (!col && !conv_is_pointwise(d)) return 1;
    for (int k = 0; k < d->K; k++) db[k] = 0.0f;
    for (int n = 0; n < d->N; n++) {
        const float *cn = columns(d, x + (long)n * d->C * d->H * d->W, col);
        const float *dyn = dy + (long)n * d->K * pq;
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, d->K, crs, pq, 1.0f, dyn, pq, cn, pq,
                    n ? 1.0f : 0.0f, dw, crs);
        for (int k = 0; k < d->K; k++) {
            float s = 0.0f;
            for (int j = 0; j < pq; j++) s += dyn[(long)k * pq + j];
            db[k] += s;
        }
    }
    free(col);
    return 0;
}

const conv_ops CONV_OPS_CPU_BLAS = {
    .fwd = blas_fwd, .bwd_data = blas_bwd_data, .bwd_filter = blas_bwd_filter};
