/* cpu/conv_omp_igemm_regions.c - the bf16 implicit GEMM of conv_omp_igemm.c
 * over the output's tap regions (conv_tap_regions.h): stride-1 3x3 / pad-1
 * convolutions of small images (ResNet-50 stage 5, 7x7), fwd and, through
 * the flipped filters, bwd-data.
 *
 * At 7x7 a fifth of the column matrix lies in the padding (mb32: 441
 * sliver-taps of which the regions need 361), and the plain implicit GEMM
 * multiplies all of it (measured 0.79-0.80 of oneDNN, fwd, 2 threads).
 * Here the product's rows are tap-major (row t*C + c: tap t = r*S + s,
 * channel c) and the columns are one region's pixels of every image:
 *  - the filters are packed once per call in that order, into the
 *    vdpbf16ps kernels' mr-row pair panels (a channel pair of one tap per
 *    K pair: C even), so a region's taps are K ranges of every panel: one
 *    range where it has every filter column s (rows of taps r0*S .. r1*S),
 *    else one per filter row r;
 *  - a sliver (32 columns of one region) is packed from x with only the
 *    region's taps (conv_omp_cols.h's masked loads, every one inside the
 *    image), the ranges' sums accumulate in an fp32 tile (LOWP_C_F32, then
 *    LOWP_C_F32_ADD: one rounding at the end), stored into y run by run of
 *    the sliver's pixels (masked stores);
 *  - work items are groups of slivers of one region, the regions with the
 *    most taps first, packed by the taking thread into its own buffer
 *    (conv_omp_igemm.c's scheme).
 * Measured (ct, 2 threads, side by side with oneDNN): stage 5 mb32 fwd
 * 17.9 -> 16.3 ms (0.80 -> 0.90 of oneDNN), bwd-data 0.92-0.99 -> 0.98-1.01;
 * mb16 and mb20 (the regions 0.91 and 0.92 of the sliver-taps) 9.8 -> 9.6
 * and 12.4 -> 11.7 ms; 256 channels mb32, 64 filters 1.43 -> 1.39 ms, 128
 * 2.49 -> 2.32.  With few filters the packing dominates: a sliver of an
 * edge region is 32 one-pixel runs, a load each per row, and cnn-conv2
 * (32 filters, 14x14 mb64, 0.91) ran 0.485 -> 0.52 ms.  So taken from 64
 * filters where the regions save a twentieth of the sliver-taps (not with
 * few images: every region's last sliver is mostly empty). */
#include "conv_omp_igemm.h"
#include "conv_omp_cols.h"
#include "conv_tap_regions.h"
#include "errmsg.h"
#include "gemm_omp_impl.h"
#include "gemm_omp_lowp.h"

#include <omp.h>
#include <stdint.h>

#define SLOT SCRATCH_CONV_PACK16 /* gemm_scratch: the packed filters (as conv_omp_igemm.c's) */
#define NR 32       /* the vdpbf16ps kernels' sliver */
#define MAX_GROUP 8 /* slivers an item at most (their runs on the stack) */
#define GROUP_BYTES (512 * 1024) /* packed columns an item, in L2 */

/* Slivers an item: GROUP_BYTES of the widest (every tap) sliver. */
static int group_of(const conv_dims *d)
{
    const long g = GROUP_BYTES / (2L * NR * d->R * d->S * d->C);
    return g < 1 ? 1 : g > MAX_GROUP ? MAX_GROUP : (int)g;
}

int conv_igemm_regions_pays(dtype_t dt, const conv_dims *d)
{
    if (d->R != 3 || d->S != 3 || d->ph != 1 || d->pw != 1 || d->sh != 1 || d->sw != 1 ||
        d->H < 3 || d->W < 3 || d->P != d->H || d->Q != d->W || d->C % 2 ||
        !conv_igemm_ok(dt, d) || gemm_lowp_path_of(dt) != LOWP_AVX512BF16)
        return 0;
    region rg[MAX_CLASS * MAX_CLASS];
    const long split = regions_cost(rg, regions_make(d, NR, 0, rg));
    regions_make(d, NR, 1, rg);
    return d->K >= 64 && split * 20 <= regions_cost(rg, 1) * 19;
}

double conv_igemm_regions_scratch_bytes(dtype_t dt, const conv_dims *d)
{
    const gemm_lowp_kern *k = gemm_lowp_kern_bf16_rows(d->K);
    (void)dt;
    return (double)gemm_lowp_packed_a_bytes(k, d->K, d->C * d->R * d->S) +
           (double)omp_get_max_threads() * group_of(d) * 2.0 * NR * d->R * d->S * d->C;
}

#if defined(__x86_64__)
/* The runs of region r's columns [j0, min(j0 + NR, r->cols)) (runs_of's,
 * for a region's pixels, into ru) and where each run's outputs go in y
 * (channel 0, into out); returns how many. */
static int region_runs(const conv_dims *d, const region *r, long j0, run *ru, gemm_runs *out)
{
    const long je = j0 + NR < r->cols ? j0 + NR : r->cols, qw = r->ow1 - r->ow0;
    const long chw = (long)d->C * d->H * d->W, kpq = (long)d->K * d->P * d->Q;
    int nr = 0;
    for (long j = j0; j < je; ++nr) {
        const long n = j / r->npx, px = j % r->npx;
        const int oh = r->oh0 + (int)(px / qw), ow = r->ow0 + (int)(px % qw);
        const int len = (int)(r->ow1 - ow < je - j ? r->ow1 - ow : je - j), l = (int)(j - j0);
        ru[nr] = (run){l, len, oh - d->ph, ow - d->pw, n * chw};
        out->mask[nr] = (len == 32 ? ~0u : (1u << len) - 1) << l;
        out->e[nr] = n * kpq + (long)oh * d->Q + ow - l;
        j += len;
    }
    out->n = nr;
    return nr;
}

/* One sliver of region r (runs ru) into dst: for each of its taps in
 * tap-major order, C rows of col as C / 2 K pairs. */
TGT static void pack_sliver(const col_src *f, const region *r, const run *ru, int nr, void *dst)
{
    const conv_dims *d = f->d;
    const long hw = (long)d->H * d->W;
    __m512i *o = dst;
    for (int tr = r->r0; tr < r->r1; ++tr)
        for (int ts = r->s0; ts < r->s1; ++ts) {
            row_load tab[NR];
            const int nl = loads_of(d, ru, nr, tr, ts, tab);
            for (int c = 0; c < d->C; c += 2, o += 2)
                cols_pair_store(o, row_of(f, tab, nl, c * hw), row_of(f, tab, nl, (c + 1) * hw));
        }
}

/* Panel ap (mr rows, tap-major pairs) times region r's sliver bp into the
 * fp32 tile t: one K range of the panel per run of the region's taps that
 * is consecutive in tap-major order, the first starting at the bias. */
static void tile_region(const gemm_lowp_kern *k, dtype_t dt, const conv_dims *d, const region *r,
                        const char *ap, const char *bp, const float *bias, float *t, int h, int w)
{
    const long C = d->C, S = d->S, mr = k->mr;
    const int whole = r->s0 == 0 && r->s1 == S; /* every column s: one range */
    const long len = whole ? (r->r1 - r->r0) * S * C : (r->s1 - r->s0) * C;
    long b0 = 0; /* the range's first row in the sliver */
    for (int tr = r->r0; tr < (whole ? r->r0 + 1 : r->r1); ++tr, b0 += len) {
        const long a0 = (tr * S + r->s0) * C; /* and in the panel */
        k->tile(dt, (int)len, ap + a0 * mr * 2, bp + b0 * NR * 2, b0 ? NULL : bias,
                b0 ? LOWP_C_F32_ADD : LOWP_C_F32, t, NR, h, w);
    }
}

int conv_igemm_regions_fwd(dtype_t dt, const conv_dims *d, const void *x, const void *w,
                           const float *b, void *y)
{
    const gemm_lowp_kern *k = gemm_lowp_kern_bf16_rows(d->K);
    const int M = d->K, MR = k->mr, crs = d->C * d->R * d->S, gs = group_of(d);
    const size_t abytes = gemm_lowp_packed_a_bytes(k, M, crs), apanel = (size_t)MR * crs * 2;
    void *Ap = gemm_scratch(SLOT, abytes);
    if (!Ap) {
        err_set("cpu-omp conv: out of memory for the packed filters (%zu bytes)", abytes);
        return 1;
    }
    conv_igemm_pack_taps(d, MR, w, Ap);
    region rg[MAX_CLASS * MAX_CLASS];
    const int nrg = regions_make(d, NR, 0, rg);
    int items = 0;
    for (int q = 0; q < nrg; ++q) items += (rg[q].nsl + gs - 1) / gs;
    const size_t wide = (size_t)NR * crs * 2; /* a sliver of every tap */
    const long pq = (long)d->P * d->Q;
    const col_src f = {d, x};
    const int nt = 2.0 * M * d->N * pq * crs < GEMM_SERIAL_FLOPS ? 1 : omp_get_max_threads();
    int failed = 0;
    atomic_int arrived = 0;
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        char *bp = (char *)gemm_scratch(SCRATCH_PANELS, wide * gs);
        if (!bp) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic, 1) nowait
        for (int it = 0; it < items; ++it) {
            int s0 = 0, s1 = 0;
            const int q = regions_item(rg, nrg, gs, it, &s0, &s1);
            if (failed || q < 0) continue;
            const region *r = &rg[q];
            const size_t sliver = wide / (d->R * d->S) * (r->r1 - r->r0) * (r->s1 - r->s0);
            gemm_runs out[MAX_GROUP];
            int wd[MAX_GROUP];
            for (int s = 0; s < s1 - s0; ++s) {
                const long j0 = (long)(s0 + s) * NR;
                run ru[NR];
                const int nr = region_runs(d, r, j0, ru, &out[s]);
                wd[s] = (int)(r->cols - j0 < NR ? r->cols - j0 : NR);
                pack_sliver(&f, r, ru, nr, bp + s * sliver);
            }
            _Alignas(64) float t[GEMM_MAX_TILE];
            for (int ir = 0; ir < M; ir += MR)
                for (int s = 0; s < s1 - s0; ++s) {
                    const int h = M - ir < MR ? M - ir : MR;
                    tile_region(k, dt, d, r, (const char *)Ap + (size_t)(ir / MR) * apanel,
                                bp + s * sliver, b ? b + ir : NULL, t, h, wd[s]);
                    cols_store_tile(t, h, &out[s], (uint16_t *)y + ir * pq, pq);
                }
        }
        omp_team_end(&arrived);
    }
    if (failed) err_set("cpu-omp conv: out of memory for the packed columns (%zu bytes)", wide * gs);
    return failed;
}
#else
int conv_igemm_regions_fwd(dtype_t dt, const conv_dims *d, const void *x, const void *w,
                           const float *b, void *y)
{
    (void)dt, (void)d, (void)x, (void)w, (void)b, (void)y;
    err_set("cpu-omp conv: the bf16 implicit GEMM needs x86-64");
    return 1;
}
#endif
