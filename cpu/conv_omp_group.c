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
 *   fp32 3x3 / pad 1 / stride 1: fwd (and so bwd-data) take
 *               conv_omp_regions.c (one GEMM over the output's tap regions on
 *               filters packed once); bwd-filter is split into five output
 *               regions here so that the taps in the padding are not
 *               multiplied (split_bwd_filter, below).
 * Columns are built by the team (items: image x 16 channels); the GEMM runs
 * on the team too (gemm_cpu_omp's own threads, outside any region here).
 * bf16 / fp16 (conv_omp_dt.h): the columns and Y_g are 16-bit, the bias
 * starts fwd's GEMM sums; bwd-filter runs [dw^T; db] = [col_g; 1] . dy_g^T
 * (that GEMM reads no transposed operand: dy_g is gathered transposed as
 * words, and a row of ones under the columns sums db) into an fp32 dw^T
 * added to group after group, rounded once at the end.
 * Buffers: the columns and Y_g / dy_g (and bf16 / fp16's fp32 dw^T) in
 * gemm_scratch slot 4 of the calling thread, kept between calls
 * (conv_group_scratch_bytes says how much).
 */
#include "conv_omp_group.h"
#include "conv_im2col.h"
#include "conv_omp_dt.h"
#include "conv_omp_regions.h"
#include "errmsg.h"
#include "gemm_cpu.h"
#include "gemm_omp_impl.h"

#include <omp.h>
#include <stddef.h>
#include <string.h>

/* Output images of fewer pixels than this are grouped. */
#define GROUP_MAX_PQ 256
/* Columns per group aimed at: past ~400 the filter packing is < 5% of a
 * group's GEMM. */
#define GROUP_COLS 512
/* bf16 / fp16 bwd-filter: every group adds its GEMM into the fp32 dw^T
 * ((C*R*S + 1) x K floats, 9.4 MB at stage 5) and opens a parallel region,
 * so its groups are about 3x longer (within GROUP_MAX_BYTES).  2 threads,
 * on a loaded host (load 3-5), before/after alternating: s5 3x3 (mb32, one
 * group of 32 instead of 4) 73-77 -> 101-109 GFLOP/s (104-109 -> 68-72 ms);
 * mb32ic256ih14 (4 groups of 8-9 instead of 12) 34-35 -> 58 GFLOP/s, but
 * 0.40-0.43 -> 0.47-0.49x of oneDNN in a second noisier run. */
#define GROUP_COLS_BWDF_LOWP 1600
/* Columns and Y_g / dy_g of one group at most (bytes). */
#define GROUP_MAX_BYTES (16L << 20)

#define SLOT SCRATCH_CONV_COPY

static double split_filter_bytes(const conv_dims *d);
static long split_edge_floats(const conv_dims *d);

int conv_group_ok(const conv_dims *d) { return (long)d->P * d->Q < GROUP_MAX_PQ; }

/* Images per group: about `cols` columns, within GROUP_MAX_BYTES, and a
 * multiple of `parts` groups of equal size (the last one shorter by less
 * than one image per group). */
static int group_images(const conv_dims *d, int parts, size_t es, long cols)
{
    const long pq = (long)d->P * d->Q, crs = (long)d->C * d->R * d->S;
    long gn = (cols + pq - 1) / pq;
    const long fit = GROUP_MAX_BYTES / ((long)es * (crs + (es == 2) + d->K) * pq);
    if (gn > fit) gn = fit;
    if (gn < 1) gn = 1;
    long ng = (d->N + gn * parts - 1) / (gn * parts) * parts;
    if (ng > d->N) ng = d->N;
    return (int)((d->N + ng - 1) / ng);
}

/* Columns per bwd-filter group aimed at. */
static long bwdf_cols(dtype_t dt) { return dt == DTYPE_FP32 ? GROUP_COLS : GROUP_COLS_BWDF_LOWP; }

/* The parts of one set of buffers for groups of gn images, in bytes, each
 * a multiple of 64: the columns (C*R*S rows, + the ones row at bf16 /
 * fp16), Y_g or dy_g (K x gn*PQ, or its transpose), and bf16 / fp16
 * bwd-filter's fp32 dw^T (C*R*S + 1 rows of K). */
typedef struct { size_t col, second, acc; } set_parts;

static set_parts parts_of(dtype_t dt, const conv_dims *d, int gn, conv_dir dir)
{
    const size_t es = conv_es(dt), cols = (size_t)gn * d->P * d->Q;
    const size_t rows = (size_t)d->C * d->R * d->S + (dt != DTYPE_FP32);
    set_parts s;
    s.col = (es * rows * cols + 63) & ~(size_t)63;
    s.second = (es * (size_t)d->K * cols + 63) & ~(size_t)63;
    s.acc = dt != DTYPE_FP32 && dir == CONV_BWD_FILTER ? 4 * rows * (size_t)d->K : 0;
    return s;
}

static double set_bytes(dtype_t dt, const conv_dims *d, int gn, conv_dir dir)
{
    const set_parts s = parts_of(dt, d, gn, dir);
    return (double)s.col + (double)s.second + (double)s.acc;
}

double conv_group_scratch_bytes(dtype_t dt, const conv_dims *d, conv_dir dir)
{
    if (dir == CONV_BWD_DATA) return 0;
    const int nt = omp_get_max_threads();
    const size_t es = conv_es(dt);
    if (dir == CONV_FWD) return nt * set_bytes(dt, d, group_images(d, nt, es, GROUP_COLS), dir);
    return set_bytes(dt, d, group_images(d, 1, es, bwdf_cols(dt)), dir);
}

double conv_group_split_scratch_bytes(const conv_dims *d)
{
    return conv_group_scratch_bytes(DTYPE_FP32, d, CONV_BWD_FILTER) + split_filter_bytes(d);
}

/* The calling thread's set of buffers for groups of gn images: the columns,
 * *second Y_g / dy_g, *acc the fp32 dw^T (bf16 / fp16 bwd-filter). */
static void *group_buf(dtype_t dt, const conv_dims *d, int gn, conv_dir dir, void **second,
                       float **acc)
{
    const set_parts s = parts_of(dt, d, gn, dir);
    char *col = (char *)gemm_scratch(SLOT, s.col + s.second + s.acc);
    if (!col) {
        err_set("cpu-omp conv: out of memory for a group's columns (%.0f bytes)",
                set_bytes(dt, d, gn, dir));
        return NULL;
    }
    *second = col + s.col;
    if (acc) *acc = (float *)(col + s.col + s.second);
    return col;
}

/* Item `it` of building the group of images n0..n0+g-1 (elements of es
 * bytes): items [0, g*ncc) are image x 16 channels of columns, side by side
 * into col (row stride g*PQ); with dy (bwd-filter), items [g*ncc, g*(ncc +
 * nk)) image x 16 channels of dyg[k][i*PQ + j] = dy[n0+i][k][j] (trans:
 * dyg[i*PQ + j][k], row stride K). Returns the item count when it < 0. */
static long build_item(const conv_dims *d, size_t es, int trans, const void *x, const void *dy,
                       int n0, int g, long it, void *col, void *dyg)
{
    const long pq = (long)d->P * d->Q, ldg = g * pq, rs = (long)d->R * d->S;
    const long img = (long)d->C * d->H * d->W;
    const int ncc = (d->C + 15) / 16, nk = dy ? (d->K + 15) / 16 : 0;
    if (it < 0) return (long)g * (ncc + nk);
    const int i = (int)(it / (ncc + nk)), u = (int)(it % (ncc + nk));
    if (u < ncc) {
        const int c0 = 16 * u, c1 = c0 + 16 < d->C ? c0 + 16 : d->C;
        conv_im2col_es(d, (const char *)x + (n0 + i) * img * es, es, c0, c1, 0, pq,
                       (char *)col + (c0 * rs * ldg + i * pq) * es, ldg);
    } else {
        const int k0 = 16 * (u - ncc), k1 = k0 + 16 < d->K ? k0 + 16 : d->K;
        const char *src = (const char *)dy + ((long)(n0 + i) * d->K + k0) * pq * es;
        if (trans)
            conv_transpose_es(src, pq, k1 - k0, (int)pq,
                              (char *)dyg + (i * pq * d->K + k0) * es, d->K, es);
        else
            for (int k = k0; k < k1; k++)
                memcpy((char *)dyg + (k * ldg + i * pq) * es, src + (k - k0) * pq * es,
                       es * (size_t)pq);
    }
    return 0;
}

/* fp32 3x3 / pad 1 / stride 1 bwd-filter (ResNet stage 5's 7x7 layers; fwd
 * and bwd-data take conv_omp_regions.c, conv_regions_ok): the taps that fall
 * in the padding are not multiplied. im2col's columns carry them as zero
 * rows, 18% of a 7x7 image's products (oneDNN skips them). The output pixels
 * are split into five regions, each one GEMM over only the taps every pixel
 * of it has inside the image, into a copy of dw whose rows for those taps
 * are contiguous:
 *   interior   rows 1..P-2, cols 1..Q-2: all 9 taps, dw as it is;
 *   top        row 0,   cols 1..Q-2: r = 1, 2 of dwr[k][r][s][c];
 *   bottom     row P-1, cols 1..Q-2: r = 0, 1 of dwr;
 *   left       col 0,   every row:   s = 1, 2 of dws[k][s][r][c];
 *   right      col Q-1, every row:   s = 0, 1 of dws
 * (the corners keep one padded tap row: their columns there are gathered as
 * zeros). 7x7: 369 of 441 products per image and channel pair. dwr and dws
 * are the calling thread's kept scratch (gemm_scratch slot 6), the edges'
 * columns slot 4. */
typedef struct {
    int oh0, oh1, ow0, ow1; /* output pixels [oh0, oh1] x [ow0, ow1] */
    int r0, r1, s0, s1;     /* taps [r0, r1) x [s0, s1) */
    int layout;             /* 0: dw's rows c*9 + r*3 + s; 1: dwr's; 2: dws's */
} split_region;

static int split_regions(const conv_dims *d, split_region *rg)
{
    const int P = d->P, Q = d->Q;
    const split_region all[5] = {
        {1, P - 2, 1, Q - 2, 0, 3, 0, 3, 0}, {0, 0, 1, Q - 2, 1, 3, 0, 3, 1},
        {P - 1, P - 1, 1, Q - 2, 0, 2, 0, 3, 1}, {0, P - 1, 0, 0, 0, 3, 1, 3, 2},
        {0, P - 1, Q - 1, Q - 1, 0, 3, 0, 2, 2}};
    for (int i = 0; i < 5; i++) rg[i] = all[i];
    return 5;
}

/* The columns of region rg for images x[0..g) (x at the group's first image),
 * rows as rg's filter layout (row stride ldc), column i*npx + pixel
 * (row-major in rg). */
static void split_gather(const conv_dims *d, const float *x, int g, long ldc,
                         const split_region *rg, float *col)
{
    const int C = d->C, H = d->H, W = d->W, nr = rg->r1 - rg->r0, ns = rg->s1 - rg->s0;
    const long npx = (long)(rg->oh1 - rg->oh0 + 1) * (rg->ow1 - rg->ow0 + 1);
    for (int i = 0; i < g; i++)
        for (int c = 0; c < C; c++) {
            const float *xc = x + ((long)i * C + c) * H * W;
            for (int r = rg->r0; r < rg->r1; r++)
                for (int s = rg->s0; s < rg->s1; s++) {
                    const long row = rg->layout == 0   ? (long)c * 9 + r * 3 + s
                                     : rg->layout == 1 ? ((long)(r - rg->r0) * ns + s) * C + c
                                                       : ((long)(s - rg->s0) * nr + r) * C + c;
                    float *dst = col + row * ldc + i * npx;
                    for (int oh = rg->oh0; oh <= rg->oh1; oh++) {
                        const int ih = oh + r - 1;
                        for (int ow = rg->ow0; ow <= rg->ow1; ow++)
                            *dst++ = ih >= 0 && ih < H ? xc[(long)ih * W + ow + s - 1] : 0.0f;
                    }
                }
        }
}

static double split_filter_bytes(const conv_dims *d)
{
    return sizeof(float) * (18.0 * d->K * d->C + split_edge_floats(d));
}

/* The edge regions' columns and Y_q for all N images at once (floats). */
static long split_edge_floats(const conv_dims *d)
{
    const long px = d->P > d->Q ? d->P : d->Q;
    return px * d->N * (6L * d->C + d->K);
}

/* fwd: the groups are shared out among the threads, each building its
 * group's columns in its own buffers and running the GEMM alone (no barrier
 * inside a group: on this shared 2-vCPU host a team GEMM per group lost to
 * preemption, 0.58x of oneDNN at 2 threads against 0.83x at 1). */
int conv_group_fwd(dtype_t dt, const conv_dims *d, const void *x, const void *w, const float *b,
                   void *y)
{
    const size_t es = conv_es(dt);
    const long pq = (long)d->P * d->Q, crs = (long)d->C * d->R * d->S, K = d->K;
    const int gn = group_images(d, omp_get_max_threads(), es, GROUP_COLS);
    const int ng = (d->N + gn - 1) / gn;
    int failed = 0;
    atomic_int arrived = 0;
#pragma omp parallel
    {
        void *yg = NULL, *col = group_buf(dt, d, gn, CONV_FWD, &yg, NULL);
        if (!col) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic, 1) nowait
        for (int gi = 0; gi < ng; gi++) {
            if (!col) continue;
            const int n0 = gi * gn, g = d->N - n0 < gn ? d->N - n0 : gn;
            const long ldg = g * pq, nit = build_item(d, es, 0, x, NULL, n0, g, -1, NULL, NULL);
            for (long it = 0; it < nit; it++) build_item(d, es, 0, x, NULL, n0, g, it, col, NULL);
            if (conv_gemm_bias(dt, (int)K, (int)ldg, (int)crs, w, (int)crs, col, (int)ldg, b, yg,
                               (int)ldg)) {
#pragma omp atomic write
                failed = 1;
                continue;
            }
            for (long it = 0; it < g * K; it++) { /* y[n0+i][k][.] = Y_g[k][i*PQ + .] */
                const long i = it / K, k = it % K;
                memcpy((char *)y + ((n0 + i) * K + k) * pq * es,
                       (const char *)yg + (k * ldg + i * pq) * es, es * (size_t)pq);
            }
        }
        gemm_yield_barrier(&arrived, omp_get_num_threads());
    }
    if (failed) err_set("cpu-omp conv: out of memory for a group's columns or GEMM panels");
    return failed;
}

/* db[k] = sum over images and pixels of dy[n][k][.] (fp32). On the team. */
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

/* Region q's dy of images n0..n0+g-1 side by side: dyq[k][i*npx + pixel]. */
static void split_dy(const conv_dims *d, const float *dy, int n0, int g, const split_region *q,
                     float *dyq)
{
    const long pq = (long)d->P * d->Q, K = d->K;
    const int qw = q->ow1 - q->ow0 + 1;
    const long npx = (long)(q->oh1 - q->oh0 + 1) * qw, ldc = g * npx;
    atomic_int arrived = 0;
#pragma omp parallel
    {
#pragma omp for schedule(static) nowait
        for (long it = 0; it < g * K; it++) {
            const long i = it / K, k = it % K;
            float *dst = dyq + k * ldc + i * npx;
            const float *src = dy + ((n0 + i) * K + k) * pq;
            for (int oh = q->oh0; oh <= q->oh1; oh++, dst += qw)
                for (int j = 0; j < qw; j++) dst[j] = src[(long)oh * d->Q + q->ow0 + j];
        }
        omp_team_end(&arrived);
    }
}

/* fp32 bwd-filter with the five regions: the interior group by group
 * (dw += dy_int . col_int^T on the team), then each edge for all N images
 * into an r- or s-major copy (dwr / dws, zeroed), added into dw at
 * the end. Measured at 1 thread under outside load (user CPU seconds of 22
 * reps of each direction over 2 reps', twice): 4.87 / 5.00 s -> 4.78 / 4.79 s,
 * the bwd-filter part about -4% (the dw copies' zeroing and sum eat most of
 * the saving). */
int conv_group_split_bwd_filter(const conv_dims *d, const float *x, const float *dy, float *dw,
                                float *db)
{
    const long K = d->K, C = d->C, crs = 9 * C, img = C * d->H * d->W;
    const int gn = group_images(d, 1, 4, GROUP_COLS);   /* fp32 */
    split_region rg[5];
    const int nrg = split_regions(d, rg);
    float *dwr = gemm_scratch(SCRATCH_CONV_PACK32, 2 * sizeof(float) * (size_t)(K * crs));
    void *dygv;
    float *col = dwr ? group_buf(DTYPE_FP32, d, gn, CONV_BWD_FILTER, &dygv, NULL) : NULL;
    if (!col) {
        err_set("cpu-omp conv: out of memory for the regions' columns or dw copies");
        return 1;
    }
    float *dws = dwr + K * crs, *dyg = dygv;
    for (int n0 = 0; n0 < d->N; n0 += gn) {
        const int g = d->N - n0 < gn ? d->N - n0 : gn;
        const split_region *q = &rg[0];
        const long ldc = g * (long)(q->oh1 - q->oh0 + 1) * (q->ow1 - q->ow0 + 1);
        const long npx = ldc / g;
        atomic_int arrived = 0;
#pragma omp parallel
        {
#pragma omp for schedule(static) nowait
            for (int i = 0; i < g; i++)
                split_gather(d, x + (n0 + i) * img, 1, ldc, q, col + i * npx);
            omp_team_end(&arrived);
        }
        split_dy(d, dy, n0, g, q, dyg);
        if (gemm_cpu_omp_t(0, 1, (int)K, (int)crs, (int)ldc, 1.0f, dyg, (int)ldc, col, (int)ldc,
                           n0 ? 1.0f : 0.0f, dw, (int)crs))
            return 1;
    }
    const long cols = 6L * C * (d->P > d->Q ? d->P : d->Q) * d->N;
    col = gemm_scratch(SLOT, sizeof(float) * (size_t)split_edge_floats(d));
    if (!col) {
        err_set("cpu-omp conv: out of memory for the edges' columns");
        return 1;
    }
    dyg = col + cols;
    atomic_int arrived2 = 0;
#pragma omp parallel
    {
#pragma omp for schedule(static) nowait
        for (long k = 0; k < 2 * K; k++) memset(dwr + k * crs, 0, sizeof(float) * (size_t)crs);
        omp_team_end(&arrived2);
    }
    for (int ri = 1; ri < nrg; ri++) {
        const split_region *q = &rg[ri];
        const long npx = (long)(q->oh1 - q->oh0 + 1) * (q->ow1 - q->ow0 + 1), ldc = d->N * npx;
        float *dst = q->layout == 1 ? dwr + (long)q->r0 * 3 * C : dws + (long)q->s0 * 3 * C;
        atomic_int arrived3 = 0;
#pragma omp parallel
        {
#pragma omp for schedule(static) nowait
            for (int i = 0; i < d->N; i++) split_gather(d, x + i * img, 1, ldc, q, col + i * npx);
            omp_team_end(&arrived3);
        }
        split_dy(d, dy, 0, d->N, q, dyg);
        if (gemm_cpu_omp_t(0, 1, (int)K, (int)(6 * C), (int)ldc, 1.0f, dyg, (int)ldc, col,
                           (int)ldc, 1.0f, dst, (int)crs))
            return 1;
    }
    atomic_int arrived4 = 0;
#pragma omp parallel
    {
#pragma omp for schedule(static) nowait
        for (long k = 0; k < K; k++)
            for (long c = 0; c < C; c++)
                for (int t = 0; t < 9; t++)
                    dw[k * crs + c * 9 + t] +=
                        dwr[k * crs + t * C + c] + dws[k * crs + ((t % 3) * 3 + t / 3) * C + c];
        omp_team_end(&arrived4);
    }
    bias_grad(d, dy, db);
    return 0;
}

int conv_group_bwd_filter(dtype_t dt, const conv_dims *d, const void *x, const void *dy,
                          void *dw, void *db)
{
    const size_t es = conv_es(dt);
    const int lowp = dt != DTYPE_FP32;
    const long pq = (long)d->P * d->Q, crs = (long)d->C * d->R * d->S, K = d->K;
    const int gn = group_images(d, 1, es, bwdf_cols(dt));
    void *dyg;
    float *acc = NULL;
    char *col = group_buf(dt, d, gn, CONV_BWD_FILTER, &dyg, &acc);
    if (!col) return 1;
    for (int n0 = 0; n0 < d->N; n0 += gn) {
        const int g = d->N - n0 < gn ? d->N - n0 : gn;
        const int ldg = (int)(g * pq);
        const long nit = build_item(d, es, lowp, x, dy, n0, g, -1, NULL, NULL);
        atomic_int arrived = 0;
#pragma omp parallel
        {
#pragma omp for schedule(dynamic, 1) nowait
            for (long it = 0; it < nit; it++) build_item(d, es, lowp, x, dy, n0, g, it, col, dyg);
            gemm_yield_barrier(&arrived, omp_get_num_threads());
        }
        int rc;
        if (lowp) { /* [dw^T; db] (+)= [col_g; 1] . dy_g^T */
            uint16_t *one = (uint16_t *)col + crs * ldg;
            for (int j = 0; j < ldg; j++) one[j] = conv_one16(dt);
            rc = conv_gemm_f32(dt, n0 > 0, (int)crs + 1, (int)K, ldg, col, ldg, dyg, (int)K,
                               acc, (int)K);
        } else {
            rc = gemm_cpu_omp_t(0, 1, (int)K, (int)crs, ldg, 1.0f, dyg, ldg, (const float *)col,
                                ldg, n0 ? 1.0f : 0.0f, dw, (int)crs);
        }
        if (rc) return 1;
    }
    if (lowp) conv_sum_partials(dt, &acc, 1, K, crs, 1, K, dw, db);
    else bias_grad(d, dy, db);
    return 0;
}
