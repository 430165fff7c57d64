/* cpu/conv_omp_group.c - cpu-omp's image-group path (conv_omp_group.h):
 * layers whose output images have few pixels, e.g. ResNet-50 stage 5
 * (7x7 outputs, C = K = 512, C*R*S = 4608).
 *
 * Why: the per-image route (conv_omp.c) gives each GEMM one image's P*Q
 * columns. At 7x7 that is 49 columns against a 512 x 4608 filter matrix:
 * the GEMM packs all 9.4 MB of filters for every image and pads 49 columns
 * to 64 (measured 0.36x of oneDNN, fwd and bwd-data, 2 threads). Here the
 * columns of g images are laid side by side, image i's at columns
 * [i*P*Q, (i+1)*P*Q), about GROUP_COLS in all, and one GEMM on the whole
 * team runs per group:
 *   fwd         Y_g (K x g*PQ) = w (K x CRS) . col_g          then scattered
 *               into y[n][k][.] (+ bias); the filters are packed once per
 *               group, and the columns fill whole micro-tiles;
 *   bwd-filter  dw (K x CRS) += dy_g (K x g*PQ) . col_g^T      (gemm_cpu_omp_t,
 *               col_g read as B^T: no transpose is made), dy_g being the
 *               group's dy rows gathered side by side; beta = 0 for the first
 *               group, so dw needs no zeroing and no per-thread partials; db
 *               is one vectorised sum per channel over every image.
 *   bwd-data    at stride 1 is a forward convolution (conv_omp.c), so it
 *               takes fwd's group path when the flipped problem qualifies.
 * Columns are built by the team (items: image x 16 channels); the GEMM runs
 * on the team too (gemm_cpu_omp's own threads, outside any region here).
 * Buffers: the columns and Y_g / dy_g in gemm_scratch slot 4 of the calling
 * thread, kept between calls (conv_group_scratch_bytes says how much).
 */
#include "conv_omp_group.h"
#include "conv_im2col.h"
#include "errmsg.h"
#include "gemm_cpu.h"
#include "gemm_omp_impl.h"

#include <omp.h>
#include <stddef.h>

/* Output images of fewer pixels than this are grouped. */
#define GROUP_MAX_PQ 256
/* Columns per group aimed at: past ~400 the filter packing is < 5% of a
 * group's GEMM. */
#define GROUP_COLS 512
/* Columns and Y_g / dy_g of one group at most (bytes). */
#define GROUP_MAX_BYTES (16L << 20)

#define SLOT 4 /* gemm_scratch slot (gemm_omp_impl.h) */

int conv_group_ok(const conv_dims *d) { return (long)d->P * d->Q < GROUP_MAX_PQ; }

/* Images per group: about GROUP_COLS columns, within GROUP_MAX_BYTES, and a
 * multiple of `parts` groups of equal size (the last one shorter by less
 * than one image per group). */
static int group_images(const conv_dims *d, int parts)
{
    const long pq = (long)d->P * d->Q, crs = (long)d->C * d->R * d->S;
    long gn = (GROUP_COLS + pq - 1) / pq;
    const long fit = GROUP_MAX_BYTES / (4 * (crs + d->K) * pq);
    if (gn > fit) gn = fit;
    if (gn < 1) gn = 1;
    long ng = (d->N + gn * parts - 1) / (gn * parts) * parts;
    if (ng > d->N) ng = d->N;
    return (int)((d->N + ng - 1) / ng);
}

/* Floats of the columns of a group of gn images (16-float aligned). */
static long col_floats(const conv_dims *d, int gn)
{
    return ((long)d->C * d->R * d->S * gn * d->P * d->Q + 15) & ~15L;
}

/* Bytes of one set of buffers for groups of gn images: columns, then
 * Y_g or dy_g (K x gn*PQ). */
static double set_bytes(const conv_dims *d, int gn)
{
    return 4.0 * ((double)col_floats(d, gn) + (double)d->K * gn * d->P * d->Q);
}

double conv_group_scratch_bytes(const conv_dims *d, conv_dir dir)
{
    if (!conv_group_ok(d) || dir == CONV_BWD_DATA) return 0;
    const int nt = omp_get_max_threads();
    if (dir == CONV_FWD) return nt * set_bytes(d, group_images(d, nt));
    return set_bytes(d, group_images(d, 1));
}

/* The calling thread's set of buffers for groups of gn images. */
static float *group_buf(const conv_dims *d, int gn, float **second)
{
    float *col = gemm_scratch(SLOT, (size_t)set_bytes(d, gn));
    if (!col) {
        err_set("cpu-omp conv: out of memory for a group's columns (%.0f bytes)",
                set_bytes(d, gn));
        return NULL;
    }
    *second = col + col_floats(d, gn);
    return col;
}

/* Item `it` of building the group of images n0..n0+g-1: items [0, g*ncc)
 * are image x 16 channels of columns, side by side into col (row stride
 * g*PQ); with dy (bwd-filter), items [g*ncc, g*(ncc + nk)) image x 16
 * channels of dyg[k][i*PQ + j] = dy[n0+i][k][j]. Returns the item count. */
static long build_item(const conv_dims *d, const float *x, const float *dy, int n0, int g,
                       long it, float *col, float *dyg)
{
    const long pq = (long)d->P * d->Q, ldg = g * pq, rs = (long)d->R * d->S;
    const long img = (long)d->C * d->H * d->W;
    const int ncc = (d->C + 15) / 16, nk = dy ? (d->K + 15) / 16 : 0;
    if (it < 0) return (long)g * (ncc + nk);
    const int i = (int)(it / (ncc + nk)), u = (int)(it % (ncc + nk));
    if (u < ncc) {
        const int c0 = 16 * u, c1 = c0 + 16 < d->C ? c0 + 16 : d->C;
        conv_im2col(d, x + (n0 + i) * img, c0, c1, 0, pq, col + c0 * rs * ldg + i * pq, ldg);
    } else {
        const int k0 = 16 * (u - ncc), k1 = k0 + 16 < d->K ? k0 + 16 : d->K;
        for (int k = k0; k < k1; k++) {
            const float *src = dy + ((long)(n0 + i) * d->K + k) * pq;
            float *dst = dyg + k * ldg + i * pq;
            for (long j = 0; j < pq; j++) dst[j] = src[j];
        }
    }
    return 0;
}

/* fwd: the groups are shared out among the threads, each building its
 * group's columns in its own buffers and running the GEMM alone (no barrier
 * inside a group: on this shared 2-vCPU host a team GEMM per group lost to
 * preemption, 0.58x of oneDNN at 2 threads against 0.83x at 1). */
int conv_group_fwd(const conv_dims *d, const float *x, const float *w, const float *b, float *y)
{
    const long pq = (long)d->P * d->Q, crs = (long)d->C * d->R * d->S, K = d->K;
    const int gn = group_images(d, omp_get_max_threads()), ng = (d->N + gn - 1) / gn;
    int failed = 0;
    atomic_int arrived = 0;
#pragma omp parallel
    {
        float *yg = NULL, *col = group_buf(d, gn, &yg);
        if (!col) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic, 1) nowait
        for (int gi = 0; gi < ng; gi++) {
            if (!col) continue;
            const int n0 = gi * gn, g = d->N - n0 < gn ? d->N - n0 : gn;
            const long ldg = g * pq, nit = build_item(d, x, NULL, n0, g, -1, NULL, NULL);
            for (long it = 0; it < nit; it++) build_item(d, x, NULL, n0, g, it, col, NULL);
            if (gemm_cpu_omp((int)K, (int)ldg, (int)crs, 1.0f, w, (int)crs, col, (int)ldg, 0.0f,
                             yg, (int)ldg)) {
#pragma omp atomic write
                failed = 1;
                continue;
            }
            for (long it = 0; it < g * K; it++) { /* y[n0+i][k][.] = Y_g[k][i*PQ + .] + b[k] */
                const long i = it / K, k = it % K;
                const float bk = b ? b[k] : 0.0f, *src = yg + k * ldg + i * pq;
                float *dst = y + ((n0 + i) * K + k) * pq;
                for (long j = 0; j < pq; j++) dst[j] = src[j] + bk;
            }
        }
        gemm_yield_barrier(&arrived, omp_get_num_threads());
    }
    if (failed) err_set("cpu-omp conv: out of memory for a group's columns or GEMM panels");
    return failed;
}

/* db[k] = sum over images and pixels of dy[n][k][.]. On the team. */
static void bias_grad(const conv_dims *d, const float *dy, float *db)
{
    const long pq = (long)d->P * d->Q;
    atomic_int arrived = 0;
#pragma omp parallel
    {
#pragma omp for schedule(static) nowait
        for (int k = 0; k < d->K; k++) {
            db[k] = 0.0f;
            for (int n = 0; n < d->N; n++) conv_row_sums(dy + ((long)n * d->K + k) * pq, pq, 1, pq, db + k);
        }
        gemm_yield_barrier(&arrived, omp_get_num_threads());
    }
}

int conv_group_bwd_filter(const conv_dims *d, const float *x, const float *dy, float *dw,
                          float *db)
{
    const long pq = (long)d->P * d->Q, crs = (long)d->C * d->R * d->S, K = d->K;
    const int gn = group_images(d, 1);
    float *dyg, *col = group_buf(d, gn, &dyg);
    if (!col) return 1;
    for (int n0 = 0; n0 < d->N; n0 += gn) {
        const int g = d->N - n0 < gn ? d->N - n0 : gn;
        const int ldg = (int)(g * pq);
        const long nit = build_item(d, x, dy, n0, g, -1, NULL, NULL);
        atomic_int arrived = 0;
#pragma omp parallel
        {
#pragma omp for schedule(dynamic, 1) nowait
            for (long it = 0; it < nit; it++) build_item(d, x, dy, n0, g, it, col, dyg);
            gemm_yield_barrier(&arrived, omp_get_num_threads());
        }
        if (gemm_cpu_omp_t(0, 1, (int)K, (int)crs, ldg, 1.0f, dyg, ldg, col, ldg,
                           n0 ? 1.0f : 0.0f, dw, (int)crs))
            return 1;
    }
    bias_grad(d, dy, db);
    return 0;
}
