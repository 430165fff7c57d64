/* cpu/conv_omp.c - cpu-omp convolution's column routes: im2col blocks + our
 * GEMM (fwd, bwd-filter), col2im (bwd-data at any stride), and the flipped
 * filters that turn a stride-1 bwd-data into a forward problem.
 *
 * Which route runs is one ordered table per direction (conv_omp_routes.c,
 * with cpu-omp's entry points); the other routes live in their own files:
 *  - direct (conv_omp_direct.c): stride 1 with a short reduction (fwd C*R*S
 *    <= 576 and not 1x1-unpadded, bwd-filter <= 1152) and a padded image of
 *    <= 128 KiB: the cnn model's layers. Each image is zero-padded once into
 *    a kept per-thread buffer, so every filter tap is a shifted vector load;
 *    fwd and bwd-data (stride 1, the flipped filters) vectorise over output
 *    pixels, bwd-filter over output channels. No columns, no small GEMMs.
 *  - image groups (conv_omp_group.c): output images of < 256 pixels (ResNet
 *    stage 5's 7x7): the columns of several images side by side, one GEMM on
 *    the whole team per group; fp32 3x3 pad-1 stride-1 skips the taps in the
 *    padding (conv_omp_regions.c, and the group file's split bwd-filter).
 *  - in place (conv_omp_pw32.c, conv_omp_igemm*.c): implicit GEMMs reading
 *    their columns from a padded copy of x.
 *  - im2col + our GEMM (this file), everything else; see below.
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
 * bf16 / fp16 (the *_dt entries) take the same routes on 16-bit data
 * (conv_omp_dt.h): the columns are gathered as 16-bit words, the GEMMs are
 * cpu-omp's bf16/fp16 GEMM (gemm_lowp_ex: fp32 sums), and every output is
 * rounded once from its fp32 value:
 *   fwd         bf16 on the vdpbf16ps / AMX kernels: one implicit GEMM over
 *               all images, columns packed straight from x
 *               (conv_omp_igemm.c); otherwise the routes above; either way
 *               the bias starts the GEMM's sums (no second rounding);
 *   bwd-data    the flipped filters are 16-bit too; col2im's columns come
 *               out of the GEMM in fp32 and are summed into an fp32 image,
 *               rounded per channel group;
 *   bwd-filter  always dw^T (+ db) = [col; 1] . dy^T: a row of ones under
 *               the columns makes the GEMM sum db next to dw, dy's block is
 *               transposed as words, and the per-thread fp32 partials are
 *               summed and rounded once at the end;
 *   direct      the small stride-1 layers widen their inputs to fp32 (exact)
 *               and run the fp32 direct kernels (conv_omp_dt.c).
 * The route that ran is the row's note (case_note_set).
 * Threads: the items are shared out with schedule(dynamic) (a preempted thread
 * on this 2-vCPU host does not stall the rest); each item's GEMM then runs on
 * its own thread (gemm_cpu_omp's team is nested, hence one thread), so there is
 * one barrier per call, not one per image. Buffers: kept per thread
 * (gemm_scratch slots 2 and 3), as the GEMM's and the direct path's are.
 */
#include "conv_im2col.h"
#include "conv_omp_im2col.h"
#include "conv_omp_dt.h"
#include "errmsg.h"
#include "gemm_cpu.h"
#include "gemm_omp_impl.h"

#include <omp.h>
#include <string.h>

#define COL_BLOCK_BYTES (1024 << 10)

/* Output pixels per work item: the column block (rows x pixels of es
 * bytes) stays in L2; a multiple of the micro-kernel's widest NR (32). */
static long pixel_block(long rows, long pq, size_t es)
{
    long nb = COL_BLOCK_BYTES / ((long)es * rows) / 32 * 32;
    if (nb < 32) nb = 32;
    return nb < pq ? nb : pq;
}

/* Kept buffers (gemm_scratch, 64-byte aligned, grown on demand, never
 * freed per call): slot 2 per thread (column blocks, partials), slot 3 the
 * calling thread's rearranged filters. The GEMMs called inside use slot 0. */
static void *per_thread(size_t bytes) { return gemm_scratch(SCRATCH_CONV_THREAD, bytes); }
static void *per_call(size_t bytes) { return gemm_scratch(SCRATCH_CONV_FILTERS, bytes); }

double conv_cols_fwd_scratch(dtype_t dt, const conv_dims *d)
{
    if (conv_is_pointwise(d)) return 0; /* x read in place */
    const size_t es = conv_es(dt);
    const long pq = (long)d->P * d->Q, crs = (long)d->C * d->R * d->S;
    return (double)omp_get_max_threads() * (double)es * (double)crs * pixel_block(crs, pq, es);
}

int conv_cols_fwd(dtype_t dt, const conv_dims *d, const void *x, const void *w, const float *b,
                  void *y)
{
    const size_t es = conv_es(dt);
    const long pq = (long)d->P * d->Q, crs = (long)d->C * d->R * d->S;
    const int point = conv_is_pointwise(d);
    const long nb = pixel_block(crs, pq, es), nblk = (pq + nb - 1) / nb;
    int failed = 0;
    atomic_int arrived = 0;
#pragma omp parallel
    {
        void *col = point ? NULL : per_thread(es * (size_t)(crs * nb));
        if (!point && !col) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic, 1) nowait
        for (long it = 0; it < d->N * nblk; it++) {
            if (failed) continue;
            const int n = (int)(it / nblk);
            const long j0 = it % nblk * nb, jn = pq - j0 < nb ? pq - j0 : nb;
            const char *xn = (const char *)x + (long)n * d->C * d->H * d->W * es;
            char *yn = (char *)y + ((long)n * d->K * pq + j0) * es;
            const void *B = point ? xn + j0 * es : col;
            if (!point) conv_im2col_es(d, xn, es, 0, d->C, j0, j0 + jn, col, jn);
            if (conv_gemm_bias(dt, d->K, (int)jn, (int)crs, w, (int)crs, B,
                               point ? (int)pq : (int)jn, b, yn, (int)pq)) {
#pragma omp atomic write
                failed = 1;
            }
        }
        omp_team_end(&arrived);
    }
    if (failed) err_set("cpu-omp conv: out of memory for the column blocks");
    return failed;
}

double conv_flip_bytes(dtype_t dt, const conv_dims *d)
{
    return (double)conv_es(dt) * (double)conv_w_elems(d);
}

const void *conv_flip_filters(dtype_t dt, const conv_dims *d, const void *w)
{
    const size_t es = conv_es(dt);
    char *wt = per_call((size_t)conv_flip_bytes(dt, d));
    if (!wt) {
        err_set("cpu-omp conv bwd-data: out of memory for the flipped filters");
        return NULL;
    }
    const int R = d->R, S = d->S;
    atomic_int arrived = 0;
#pragma omp parallel
    {
#pragma omp for schedule(static) nowait
        for (int c = 0; c < d->C; c++)
            for (int k = 0; k < d->K; k++)
                for (int r = 0; r < R; r++)
                    for (int s = 0; s < S; s++) {
                        const long o = (((long)c * d->K + k) * R + R - 1 - r) * S + S - 1 - s;
                        const long i = (((long)k * d->C + c) * R + r) * S + s;
                        if (es == 4) ((float *)wt)[o] = ((const float *)w)[i];
                        else ((uint16_t *)wt)[o] = ((const uint16_t *)w)[i];
                    }
        omp_team_end(&arrived);
    }
    return wt;
}

/* Channels per group of bwd_data_col2im (its fp32 columns: cg*R*S x P*Q). */
static long col2im_channels(const conv_dims *d)
{
    const long pq = (long)d->P * d->Q, rs = (long)d->R * d->S;
    long cg = COL_BLOCK_BYTES * 2L / (4 * rs * pq);
    if (cg < 1) cg = 1;
    return cg > d->C ? d->C : cg;
}

/* col2im's per-thread floats: the group's fp32 columns, then (bf16 /
 * fp16) its fp32 image. */
static void col2im_floats(dtype_t dt, const conv_dims *d, long *ncol, long *nimg)
{
    const long pq = (long)d->P * d->Q, rs = (long)d->R * d->S, cg = col2im_channels(d);
    *ncol = (cg * rs * pq + 15) & ~15L;
    *nimg = dt == DTYPE_FP32 ? 0 : cg * d->H * d->W;
}

double conv_col2im_scratch(dtype_t dt, const conv_dims *d)
{
    long ncol, nimg;
    col2im_floats(dt, d, &ncol, &nimg);
    return (double)conv_es(dt) * conv_w_elems(d) +
           (double)omp_get_max_threads() * sizeof(float) * (double)(ncol + nimg);
}

/* Any stride: per (image, channel group) dcol = w^T[group rows] . dy_n in
 * fp32, then col2im into the group's channels (groups never share dx
 * elements); bf16 / fp16 sum into an fp32 image of the group's channels,
 * then rounded once. */
int conv_col2im_bwd_data(dtype_t dt, const conv_dims *d, const void *dy, const void *w, void *dx)
{
    const size_t es = conv_es(dt);
    const long pq = (long)d->P * d->Q, rs = (long)d->R * d->S, crs = d->C * rs;
    const long hw = (long)d->H * d->W, cg = col2im_channels(d);
    const long ngrp = (d->C + cg - 1) / cg;
    long ncol, nimg;
    col2im_floats(dt, d, &ncol, &nimg);
    char *wT = per_call(es * (size_t)(crs * d->K));
    int failed = !wT;
    if (wT) conv_transpose_es(w, crs, d->K, (int)crs, wT, d->K, es);
    atomic_int arrived = 0;
#pragma omp parallel if (!failed)
    {
        float *col = failed ? NULL : per_thread(sizeof(float) * (size_t)(ncol + nimg));
        if (!col) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic, 1) nowait
        for (long it = 0; it < d->N * ngrp; it++) {
            if (failed) continue;
            const int n = (int)(it / ngrp), c0 = (int)(it % ngrp * cg);
            const int c1 = c0 + cg < d->C ? (int)(c0 + cg) : d->C;
            if (conv_gemm_f32(dt, 0, (int)((c1 - c0) * rs), (int)pq, d->K,
                              wT + c0 * rs * d->K * es, d->K,
                              (const char *)dy + (long)n * d->K * pq * es, (int)pq, col,
                              (int)pq)) {
#pragma omp atomic write
                failed = 1;
                continue;
            }
            const long at = (long)n * d->C * hw; /* image n's first element */
            if (dt == DTYPE_FP32) {
                conv_col2im(d, col, pq, c0, c1, (float *)dx + at);
            } else { /* channels c0.. of an fp32 image at col + ncol - c0*hw */
                float *img = col + ncol - (long)c0 * hw;
                conv_col2im(d, col, pq, c0, c1, img);
                conv_store(dt, img + (long)c0 * hw, dx, at + (long)c0 * hw, (c1 - c0) * hw);
            }
        }
        omp_team_end(&arrived);
    }
    if (failed) err_set("cpu-omp conv bwd-data: out of memory for the column blocks");
    return failed;
}

/* Floats that hold bytes, rounded up to 16 (64-byte aligned parts). */
static long floats16(long bytes) { return ((bytes + 3) / 4 + 15) & ~15L; }

/* dw and db, column block by column block: each thread adds its blocks'
 * products into its own fp32 partial, and the partials are summed at the
 * end. fp32: the GEMM reads dy and the columns in place, the one of them
 * with fewer rows as the transposed operand (gemm_cpu_omp_t packs it into
 * panels with vector transposes): K <= C*R*S gives dw^T (CRS x K) += col .
 * dy^T, else dw (K x CRS) += dy . col^T. (A scalar transpose of each dy
 * block had cost twice the GEMM on the 1x1 64->256 layer.) bf16 / fp16
 * (no transposed operands in that GEMM): [dw^T; db] += [col; 1] . dy^T, dy's
 * block transposed as words into the thread's buffer. */
/* The floats of each thread's kept buffer: *nacc of partial, *ncol of
 * column block (+ ones row), then dy^T (NULLs: not wanted). */
static long bwf_floats(dtype_t dt, const conv_dims *d, long *nacc, long *ncol)
{
    const size_t es = conv_es(dt);
    const int lowp = dt != DTYPE_FP32;
    const long pq = (long)d->P * d->Q, crs = (long)d->C * d->R * d->S, K = d->K;
    const int point = conv_is_pointwise(d) && !lowp;
    const long nb = pixel_block(crs + K, pq, es);
    const long acc = floats16(4 * (crs * K + K));
    const long col = point ? 0 : floats16((long)es * (crs + lowp) * nb);
    if (nacc) *nacc = acc, *ncol = col;
    return acc + col + (lowp ? floats16((long)es * nb * K) : 0);
}

double conv_cols_bwd_filter_scratch(dtype_t dt, const conv_dims *d)
{
    return (double)omp_get_max_threads() * sizeof(float) * (double)bwf_floats(dt, d, NULL, NULL);
}

int conv_cols_bwd_filter(dtype_t dt, const conv_dims *d, const void *x, const void *dy, void *dw,
                         void *db)
{
    const size_t es = conv_es(dt);
    const int lowp = dt != DTYPE_FP32;
    const long pq = (long)d->P * d->Q, crs = (long)d->C * d->R * d->S, K = d->K;
    const int point = conv_is_pointwise(d) && !lowp, tr = lowp || K <= crs;
    const long nb = pixel_block(crs + K, pq, es), nblk = (pq + nb - 1) / nb;
    const int nt = omp_get_max_threads();
    float *part[nt]; /* per thread: dw^T (CRS x K) or dw (K x CRS), then db */
    for (int t = 0; t < nt; t++) part[t] = NULL;
    int failed = 0;
    long nacc, ncol; /* one kept buffer per thread: partial, columns, dy^T */
    const long nfloats = bwf_floats(dt, d, &nacc, &ncol);
    atomic_int arrived = 0;
#pragma omp parallel num_threads(nt)
    {
        const int t = omp_get_thread_num();
        float *acc = per_thread(sizeof(float) * (size_t)nfloats);
        char *col = acc ? (char *)(acc + nacc) : NULL, *dyt = acc ? col + 4 * ncol : NULL;
        if (!acc) {
#pragma omp atomic write
            failed = 1;
        } else {
            memset(acc, 0, sizeof(float) * (size_t)(crs * K + K));
            part[t] = acc;
        }
        long ones = -1; /* the width of the ones row under the columns */
#pragma omp for schedule(dynamic, 1) nowait
        for (long it = 0; it < d->N * nblk; it++) {
            if (failed) continue;
            const int n = (int)(it / nblk);
            const long j0 = it % nblk * nb, jn = pq - j0 < nb ? pq - j0 : nb;
            const char *xn = (const char *)x + (long)n * d->C * d->H * d->W * es;
            const char *dyn = (const char *)dy + ((long)n * K * pq + j0) * es;
            const void *cb = point ? xn + j0 * es : col;
            const int ldc = point ? (int)pq : (int)jn;
            if (!point) conv_im2col_es(d, xn, es, 0, d->C, j0, j0 + jn, col, jn);
            int rc;
            if (lowp) {
                uint16_t *one = (uint16_t *)col + crs * jn;
                if (ones != jn)
                    for (long j = 0; j < jn; j++) one[j] = conv_one16(dt);
                ones = jn;
                conv_transpose_es(dyn, pq, (int)K, (int)jn, dyt, K, es);
                rc = conv_gemm_f32(dt, 1, (int)crs + 1, (int)K, (int)jn, col, (int)jn, dyt,
                                   (int)K, part[t], (int)K);
            } else {
                rc = tr ? gemm_cpu_omp_t(0, 1, (int)crs, (int)K, (int)jn, 1.0f, cb, ldc,
                                         (const float *)dyn, (int)pq, 1.0f, part[t], (int)K)
                        : gemm_cpu_omp_t(0, 1, (int)K, (int)crs, (int)jn, 1.0f,
                                         (const float *)dyn, (int)pq, cb, ldc, 1.0f, part[t],
                                         (int)crs);
                conv_row_sums((const float *)dyn, pq, (int)K, jn, part[t] + crs * K);
            }
            if (rc) {
#pragma omp atomic write
                failed = 1;
            }
        }
        omp_team_end(&arrived);
    }
    if (!failed) conv_sum_partials(dt, part, nt, K, crs, tr ? 1 : crs, tr ? K : 1, dw, db);
    if (failed) err_set("cpu-omp conv bwd-filter: out of memory for the per-thread partials");
    return failed;
}


