/* cpu/conv_omp.c - cpu-omp: hand-written OpenMP + SIMD convolution (conv_cpu.h).
 *
 * Three routes, chosen per call:
 *  - direct (conv_omp_direct.c): stride 1 with a short reduction (fwd C*R*S
 *    <= 576 and not 1x1-unpadded, bwd-filter <= 1152) and a padded image of
 *    <= 128 KiB: the cnn model's layers. Each image is zero-padded once into
 *    a kept per-thread buffer, so every filter tap is a shifted vector load;
 *    fwd and bwd-data (stride 1, the flipped filters) vectorise over output
 *    pixels, bwd-filter over output channels. No columns, no small GEMMs.
 *  - image groups (conv_omp_group.c): output images of < 256 pixels (ResNet
 *    stage 5's 7x7): the columns of several images side by side, one GEMM on
 *    the whole team per group (fwd, bwd-data as fwd, bwd-filter).
 *  - im2col + our GEMM (this file), everything else (ResNet/VGG layers,
 *    strides > 1, pointwise); see below.
 * Measured in one quiet stretch, medians of 3 runs (2 threads) or 2 (1
 * thread), ms: im2col route (before) -> direct / cpu-onednn / cpu-blas:
 *   2 threads  conv1 mb64ic3ih28oc16kh3ph1   fwd        0.42 -> 0.23 / 0.23 / 0.91
 *                                            bwd-filter 0.81 -> 0.26 / 0.24 / 1.37
 *              conv2 mb64ic16ih14oc32kh3ph1  fwd        1.06 -> 0.43 / 0.42 / 2.13
 *                                            bwd-data   1.86 -> 0.43 / 0.38 / 1.52
 *                                            bwd-filter 1.12 -> 0.39 / 0.38 / 2.50
 *   1 thread   conv1 fwd 0.81 -> 0.37 / 0.48, bwd-filter 1.63 -> 0.51 / 0.57;
 *              conv2 fwd 2.07 -> 0.85 / 0.83, bwd-data 3.54 -> 0.94 / 0.79,
 *              bwd-filter 2.19 -> 0.77 / 0.79.
 * The train suite's cnn-b64 step, 2 threads: 6.7 -> 3.1 ms (cpu-onednn 2.9-3.1).
 * With outside load on this shared 2-vCPU host, 2-thread medians of every
 * OpenMP backend here (ours and oneDNN's) swing 5-50x (GOMP's spinning
 * barriers); OMP_WAIT_POLICY=passive or --threads 1 compare them steadily.
 *
 * The im2col route: blocked im2col feeding our packed GEMM (gemm_cpu_omp,
 * cpu/gemm_omp.c), not a direct register-blocked kernel, for large layers. Why:
 *  - one SIMD micro-kernel: the AVX-512 12x32 / AVX2 6x16 kernel of cpu-omp's
 *    GEMM already runs at OpenBLAS speed (README); a direct kernel for
 *    large C would need its own cache blocking per filter size and stride;
 *  - the three directions are then three GEMM shapes over the same columns:
 *      fwd         y_n[:, J]   = w (K x CRS) . col_n[:, J]
 *      bwd-data    stride 1, pad <= filter-1: a forward convolution of dy with
 *                  the filters flipped and transposed (w'[c][k][R-1-r][S-1-s],
 *                  padding R-1-ph), so it runs the fwd path unchanged;
 *                  otherwise dcol = w^T . dy_n (per channel group) and col2im
 *      bwd-filter  dw^T (CRS x K) += col_n[:, J] . dy_n[:, J]^T  (M = CRS is
 *                  long, N = K a multiple of the micro-kernel's 32 columns in
 *                  ResNet/VGG layers), per-thread partials summed at the end;
 *  - unlike Caffe's im2col (cpu-blas) the columns are never materialised for a
 *    whole image: work items are (image, block J of output pixels) whose column
 *    block (C*R*S x |J|, <= 1 MiB) is written and then packed by the GEMM
 *    while it is still in the core's L2; a 1x1 / stride 1 / unpadded filter
 *    reads the image in place.
 * Threads: the items are shared out with schedule(dynamic) (a preempted thread
 * on this 2-vCPU host does not stall the rest); each item's GEMM then runs on
 * its own thread (gemm_cpu_omp's team is nested, hence one thread), so there is
 * one barrier per call, not one per image. Buffers: kept per thread
 * (gemm_scratch slots 2 and 3), as the GEMM's and the direct path's are.
 */
#include "conv_cpu.h"
#include "conv_im2col.h"
#include "conv_omp_direct.h"
#include "conv_omp_group.h"
#include "errmsg.h"
#include "gemm_cpu.h"
#include "gemm_omp_impl.h"

#include <omp.h>
#include <string.h>

#define COL_BLOCK_BYTES (1024 << 10)

/* Output pixels per work item: the column block stays in L2; a multiple of
 * the micro-kernel's widest NR (32). */
static long pixel_block(long rows, long pq)
{
    long nb = COL_BLOCK_BYTES / (4 * rows) / 32 * 32;
    if (nb < 32) nb = 32;
    return nb < pq ? nb : pq;
}

/* Kept buffers (gemm_scratch, 64-byte aligned, grown on demand, never
 * freed per call): slot 2 per thread (column blocks, partials), slot 3 the
 * calling thread's rearranged filters. The GEMMs called inside use slot 0. */
static float *per_thread(size_t n) { return gemm_scratch(2, n * sizeof(float)); }
static float *per_call(size_t n) { return gemm_scratch(3, n * sizeof(float)); }

/* y = conv(x, w) (+ b when b is not NULL). */
static int fwd_core(const conv_dims *d, const float *x, const float *w, const float *b, float *y)
{
    if (conv_group_ok(d)) return conv_group_fwd(d, x, w, b, y);
    const long pq = (long)d->P * d->Q, crs = (long)d->C * d->R * d->S;
    const int point = conv_is_pointwise(d);
    const long nb = pixel_block(crs, pq), nblk = (pq + nb - 1) / nb;
    int failed = 0;
#pragma omp parallel
    {
        float *col = point ? NULL : per_thread((size_t)(crs * nb));
        if (!point && !col) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic, 1)
        for (long it = 0; it < d->N * nblk; it++) {
            if (failed) continue;
            const int n = (int)(it / nblk);
            const long j0 = it % nblk * nb, jn = pq - j0 < nb ? pq - j0 : nb;
            const float *xn = x + (long)n * d->C * d->H * d->W;
            float *yn = y + (long)n * d->K * pq + j0;
            const float *B = point ? xn + j0 : col;
            if (!point) conv_im2col(d, xn, 0, d->C, j0, j0 + jn, col, jn);
            if (gemm_cpu_omp(d->K, (int)jn, (int)crs, 1.0f, w, (int)crs, B, point ? (int)pq : (int)jn,
                             0.0f, yn, (int)pq)) {
#pragma omp atomic write
                failed = 1;
                continue;
            }
            if (b)
                for (int k = 0; k < d->K; k++)
                    for (long j = 0; j < jn; j++) yn[k * pq + j] += b[k];
        }
    }
    if (failed) err_set("cpu-omp conv: out of memory for the column blocks");
    return failed;
}

static int omp_fwd(const conv_dims *d, const float *x, const float *w, const float *b, float *y,
                   void *ws, void *stream)
{
    (void)ws, (void)stream;
    if (conv_direct_fwd_ok(d)) return conv_direct_fwd(d, x, w, b, y);
    return fwd_core(d, x, w, b, y);
}

/* bwd-data at stride 1 as a forward convolution of dy (see the header). */
static int bwd_data_as_fwd(const conv_dims *d, const float *dy, const float *w, float *dx)
{
    conv_dims t = conv_bwd_data_flipped(d);
    float *wt = per_call((size_t)conv_w_elems(d));
    if (!wt) {
        err_set("cpu-omp conv bwd-data: out of memory for the flipped filters");
        return 1;
    }
    const int R = d->R, S = d->S;
#pragma omp parallel for schedule(static)
    for (int c = 0; c < d->C; c++)
        for (int k = 0; k < d->K; k++)
            for (int r = 0; r < R; r++)
                for (int s = 0; s < S; s++)
                    wt[(((long)c * d->K + k) * R + R - 1 - r) * S + S - 1 - s] =
                        w[(((long)k * d->C + c) * R + r) * S + s];
    return fwd_core(&t, dy, wt, NULL, dx);
}

/* Any stride: per (image, channel group) dcol = w^T[group rows] . dy_n, then
 * col2im into the group's channels (groups never share dx elements). */
static int bwd_data_col2im(const conv_dims *d, const float *dy, const float *w, float *dx)
{
    const long pq = (long)d->P * d->Q, rs = (long)d->R * d->S, crs = d->C * rs;
    long cg = COL_BLOCK_BYTES * 2L / (4 * rs * pq);
    if (cg < 1) cg = 1;
    if (cg > d->C) cg = d->C;
    const long ngrp = (d->C + cg - 1) / cg;
    float *wT = per_call((size_t)(crs * d->K));
    int failed = !wT;
    if (wT) conv_transpose(w, crs, d->K, (int)crs, wT, d->K);
#pragma omp parallel if (!failed)
    {
        float *col = failed ? NULL : per_thread((size_t)(cg * rs * pq));
        if (!col) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic, 1)
        for (long it = 0; it < d->N * ngrp; it++) {
            if (failed) continue;
            const int n = (int)(it / ngrp), c0 = (int)(it % ngrp * cg);
            const int c1 = c0 + cg < d->C ? (int)(c0 + cg) : d->C;
            if (gemm_cpu_omp((int)((c1 - c0) * rs), (int)pq, d->K, 1.0f, wT + c0 * rs * d->K,
                             d->K, dy + (long)n * d->K * pq, (int)pq, 0.0f, col, (int)pq)) {
#pragma omp atomic write
                failed = 1;
                continue;
            }
            conv_col2im(d, col, pq, c0, c1, dx + (long)n * d->C * d->H * d->W);
        }
    }
    if (failed) err_set("cpu-omp conv bwd-data: out of memory for the column blocks");
    return failed;
}

static int omp_bwd_data(const conv_dims *d, const float *dy, const float *w, float *dx, void *ws,
                        void *stream)
{
    (void)ws, (void)stream;
    if (conv_direct_bwd_data_ok(d)) return conv_direct_bwd_data(d, dy, w, dx);
    if (conv_bwd_data_is_fwd(d)) return bwd_data_as_fwd(d, dy, w, dx);
    return bwd_data_col2im(d, dy, w, dx);
}

/* dw and db, column block by column block: each thread adds its blocks'
 * products into its own partial, and the partials are summed at the end.
 * The GEMM reads dy and the columns in place, the one of them with fewer
 * rows as the transposed operand (gemm_cpu_omp_t packs it into panels with
 * vector transposes): K <= C*R*S gives dw^T (CRS x K) += col . dy^T, else
 * dw (K x CRS) += dy . col^T. (A scalar transpose of each dy block had cost
 * twice the GEMM on the 1x1 64->256 layer.) */
static int omp_bwd_filter(const conv_dims *d, const float *x, const float *dy, float *dw,
                          float *db, void *ws, void *stream)
{
    (void)ws, (void)stream;
    if (conv_direct_bwd_filter_ok(d)) return conv_direct_bwd_filter(d, x, dy, dw, db);
    if (conv_group_ok(d)) return conv_group_bwd_filter(d, x, dy, dw, db);
    const long pq = (long)d->P * d->Q, crs = (long)d->C * d->R * d->S, K = d->K;
    const int point = conv_is_pointwise(d), tr = K <= crs; /* tr: the partial is dw^T */
    const long nb = pixel_block(crs + K, pq), nblk = (pq + nb - 1) / nb;
    const int nt = omp_get_max_threads();
    float *part[nt]; /* per thread: dw^T (CRS x K) or dw (K x CRS), then db */
    for (int t = 0; t < nt; t++) part[t] = NULL;
    int failed = 0;
    /* one kept buffer per thread: partial, column block */
    const long nacc = (crs * K + K + 15) & ~15L, ncol = point ? 0 : (crs * nb + 15) & ~15L;
#pragma omp parallel num_threads(nt)
    {
        const int t = omp_get_thread_num();
        float *acc = per_thread((size_t)(nacc + ncol));
        float *col = acc ? acc + nacc : NULL;
        if (!acc) {
#pragma omp atomic write
            failed = 1;
        } else {
            memset(acc, 0, sizeof(float) * (size_t)(crs * K + K));
            part[t] = acc;
        }
#pragma omp for schedule(dynamic, 1)
        for (long it = 0; it < d->N * nblk; it++) {
            if (failed) continue;
            const int n = (int)(it / nblk);
            const long j0 = it % nblk * nb, jn = pq - j0 < nb ? pq - j0 : nb;
            const float *xn = x + (long)n * d->C * d->H * d->W, *dyn = dy + (long)n * K * pq + j0;
            const float *cb = point ? xn + j0 : col;
            const int ldc = point ? (int)pq : (int)jn;
            if (!point) conv_im2col(d, xn, 0, d->C, j0, j0 + jn, col, jn);
            if (tr ? gemm_cpu_omp_t(0, 1, (int)crs, (int)K, (int)jn, 1.0f, cb, ldc, dyn, (int)pq,
                                    1.0f, part[t], (int)K)
                   : gemm_cpu_omp_t(0, 1, (int)K, (int)crs, (int)jn, 1.0f, dyn, (int)pq, cb, ldc,
                                    1.0f, part[t], (int)crs)) {
#pragma omp atomic write
                failed = 1;
                continue;
            }
            conv_row_sums(dyn, pq, (int)K, jn, part[t] + crs * K);
        }
    }
    if (!failed) {
        /* dw[k][i] = sum over threads of the partials; db likewise */
        const long sk = tr ? 1 : crs, si = tr ? K : 1; /* partial element (k, i) */
#pragma omp parallel for schedule(static)
        for (long k = 0; k < K; k++) {
            for (long i = 0; i < crs; i++) {
                float s = 0.0f;
                for (int t = 0; t < nt; t++) s += part[t] ? part[t][k * sk + i * si] : 0.0f;
                dw[k * crs + i] = s;
            }
            float s = 0.0f;
            for (int t = 0; t < nt; t++) s += part[t] ? part[t][crs * K + k] : 0.0f;
            db[k] = s;
        }
    }
    if (failed) err_set("cpu-omp conv bwd-filter: out of memory for the per-thread partials");
    return failed;
}

double conv_cpu_omp_scratch_bytes(const conv_dims *d, conv_dir dir)
{
    if (dir == CONV_FWD) return conv_direct_fwd_ok(d) ? 0 : conv_group_scratch_bytes(d, dir);
    if (dir == CONV_BWD_FILTER)
        return conv_direct_bwd_filter_ok(d) ? 0 : conv_group_scratch_bytes(d, dir);
    if (conv_direct_bwd_data_ok(d) || !conv_bwd_data_is_fwd(d)) return 0;
    const conv_dims t = conv_bwd_data_flipped(d);
    return conv_group_scratch_bytes(&t, CONV_FWD);
}

const conv_ops CONV_OPS_CPU_OMP = {
    .fwd = omp_fwd, .bwd_data = omp_bwd_data, .bwd_filter = omp_bwd_filter};
