/* cpu/conv_omp_regions.c - cpu-omp's fp32 3x3 / pad 1 / stride 1 convolution
 * of small images (conv_omp_regions.h): ResNet-50 stage 5 (7x7, C = K = 512),
 * fwd and, through the flipped filters, bwd-data.
 *
 * One GEMM, Y (K x columns) = W . B, run by the team as work items:
 *  - the output pixels are split into regions by the taps they have inside
 *    the image (rows: r in [1,3) at the top, [0,2) at the bottom, all three
 *    between; the same for columns and s: 9 regions at 7x7), so no tap in
 *    the padding is multiplied (7x7: 361 of 441 products per image and
 *    channel pair, as oneDNN); with few images, where each region's last
 *    sliver of NR columns is mostly padding, one region of every pixel and
 *    tap on a zero-padded copy of x costs less (regions_merged: mb1 at 7x7
 *    49 sliver-taps split, 18 merged; mb32 361 against 441);
 *  - the filters are packed once per call, straight from w (or from the
 *    bwd-data problem's w, flipped and transposed on the way: no flipped
 *    copy), into the micro-kernel's MR-row micro-panels, K block by K block
 *    (a tap x up to KC_MAX channels, a_at): every region reads the same
 *    packed copy at its own taps, and nothing else packs A;
 *  - an item is ITEM_SLIVERS slivers (NR columns) of one region, column j
 *    being image j / npx, pixel j % npx of the region; for each K block it
 *    gathers its B micro-panels from x (chunk_gather: with AVX-512F, a few
 *    loads and a permute per 16 columns) into its own buffer (L1/L2), runs
 *    every MR panel of filters against them into its rows of Y (L2), and at
 *    the end scatters Y into y (+ bias); items go largest region first,
 *    dynamically (a preempted thread does not hold the others back).
 * Why, measured (2 threads, ct side by side with oneDNN, quiet host):
 *  - the image-group regions path before this (per-thread GEMMs of 16
 *    images on the interior, team GEMMs on four edges, each packing all its
 *    A, on r- and s-major copies of the filters) spent a third of its time
 *    outside the micro-kernel (perf: micro-kernel 63%, scalar gather 11%,
 *    filter copies 7%, A packing 5%, B packing 3%): 41-48 ms against
 *    oneDNN's 28, 0.62-0.69x fwd, 0.58-0.64x bwd-data;
 *  - one gemm_job (gemm_job_run) over all regions with these packed
 *    filters: 34-35 ms (0.81-0.82x), but its shared B panel (K x 896
 *    columns, 16 MB) was written and re-read through L3, the gather 8.8%;
 *  - items gathering their own B (this file), scalar gather: 30.4-31.5 ms,
 *    0.87-0.93x fwd and bwd-data; the micro-kernel ~87% of the time, the
 *    gather 8-10%; with chunk_gather's permutes the gather is 5-6% (1
 *    thread, perf), 0.92-0.95x (30.3-31.2 ms against 27.9-29.6);
 *  - tried, no better: 1, 3 or 4 slivers an item, K blocks of 128 or 512
 *    channels (all within 1-2%); gathering all taps of a channel block
 *    before their GEMMs (x hot across taps: same time); the columns
 *    pixel-major (image fastest) with x and y transposed to [C][H][W][N]
 *    once so that B rows are contiguous copies (the transposes cost more
 *    than the gather saved); AVX-512 vgatherdps (slower than scalar loads
 *    on this Zen 4: 12% of the time against 8-10%); software prefetch of
 *    x rows ahead of the gather; SSE inserts (4 loads, one store).
 *  - few images: merged (above) and row-chunked items, mb1 2 threads
 *    8.3-10.6 -> 2.5 ms (0.17-0.22x -> 0.60-0.65x of oneDNN), mb8 0.38-0.43x
 *    -> 0.71x, mb16 0.52-0.58x -> 0.81x.
 * Buffers: the packed filters and, merged, the padded copy of x (gemm_scratch
 * slot 6, calling thread), each thread's B panels and rows of Y (slot 4),
 * kept between calls.
 */
#include "conv_omp_regions.h"
#include "conv_tap_regions.h"
#include "errmsg.h"
#include "gemm_omp_impl.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif
#include <omp.h>
#include <stddef.h>
#include <string.h>

#define MAX_PQ 256   /* output pixels at most (conv_group_ok) */
#define MAX_NR 32    /* widest micro-kernel */

typedef struct {
    const gemm_kern_cfg *cf;
    const conv_dims *d;
    const float *Ap;
    const float *xs;       /* the images the columns are gathered from: x, or xp */
    long xhw, ximg, xorg;  /* their plane and image floats; where output pixel
                            * (0, 0)'s tap (0, 0) is in an image (may be < 0) */
    int xw;                /* their row length */
    int nrg, nrc;          /* regions; row chunks (of MR panels) an item */
    region rg[MAX_CLASS * MAX_CLASS];
} rcall; /* one call's operands and regions (read-only in the threads) */

int conv_regions_ok(dtype_t dt, const conv_dims *d)
{
    return dt == DTYPE_FP32 && d->R == 3 && d->S == 3 && d->ph == 1 && d->pw == 1 &&
           d->sh == 1 && d->sw == 1 && d->H >= 3 && d->W >= 3 && d->P == d->H &&
           d->Q == d->W && (long)d->P * d->Q < MAX_PQ &&
           (long long)d->N * d->C * (d->H + 2) * (d->W + 2) < (1LL << 31); /* int offsets */
}

/* Whether one region on a zero-padded copy of x costs less than the split:
 * few images (every region's last sliver padded to NR columns), e.g. 7x7
 * mb1 49 slivers x taps split against 18 merged; mb32 361 against 441. */
static int regions_merged(const conv_dims *d, int nr)
{
    region rg[MAX_CLASS * MAX_CLASS];
    const int n = regions_make(d, nr, 0, rg);
    const long split = regions_cost(rg, n);
    regions_make(d, nr, 1, rg);
    return regions_cost(rg, 1) < split;
}

/* Channels per K block: C in equal blocks of at most KC_MAX. */
#ifndef KC_MAX /* (-D for tuning builds) */
#define KC_MAX 256
#endif
static long k_block(long C)
{
    const long nb = (C + KC_MAX - 1) / KC_MAX;
    return (C + nb - 1) / nb;
}

/* Where row k = p*mr + i of the packed filters for tap t (= r*S + s) and
 * channel c is: at ((t*C + c0)*rows + p*kb*mr + (c - c0)*mr + i), c0 the
 * first channel of c's K block and kb its length, rows = K rounded up to
 * mr: each K block (a tap x a channel block) holds the MR-row micro-panels
 * of every panel one after another, so an item streams them in order from
 * L3 (the hardware prefetcher follows; with the panels R*S*C*mr floats
 * apart a one-thread kernel loop over A in L3 ran 1.07x slower). */
static long a_at(long C, long rows, int mr, long t, long c, long p)
{
    const long KC = k_block(C), c0 = c / KC * KC, kb = C - c0 < KC ? C - c0 : KC;
    return (t * C + c0) * rows + (p * kb + c - c0) * mr;
}

/* Panel p of the packed filters (rows k in [p*mr, p*mr + mr), zero past K):
 * element (k, r, s, c) is w[k][c][r][s], or flipped (w is [C][K][R][S])
 * w[c][k][R-1-r][S-1-s]. Blocks of PACK_C channels are first copied whole
 * into tmp (mr rows of PACK_C*R*S floats, or PACK_C rows of mr*R*S when
 * flipped: the source's own order), then written out as whole mr-float
 * rows: a scalar loop writing each float to its place straight from w took
 * 7% of a stage-5 call, this 4-5% (1 thread, perf; a third of it reading
 * w), with each block's row address found once, not per channel (a_at's
 * divisions), 3.5-4%. */
#define PACK_C 16
static void pack_filters(const conv_dims *d, const float *w, int flipped, int mr, long p,
                         float *Ap)
{
    const long C = d->C, K = d->K, rs = (long)d->R * d->S, rows = (K + mr - 1) / mr * mr;
    const long k0 = p * mr, kn = K - k0 < mr ? K - k0 : mr, kcb = k_block(C);
    float tmp[PACK_C * 16 * 9]; /* PACK_C * mr * rs: mr <= 16 (12 at most), rs == 9 */
    const long si = flipped ? rs : PACK_C * rs, sc = flipped ? mr * rs : rs; /* tmp strides */
    for (long c0 = 0; c0 < C; c0 += PACK_C) {
        const long cn = C - c0 < PACK_C ? C - c0 : PACK_C;
        if (flipped)
            for (long cc = 0; cc < cn; cc++)
                memcpy(tmp + cc * sc, w + ((c0 + cc) * K + k0) * rs, sizeof(float) * kn * rs);
        else
            for (long i = 0; i < kn; i++)
                memcpy(tmp + i * si, w + ((k0 + i) * C + c0) * rs, sizeof(float) * cn * rs);
        /* the block's channels are one run of whole mr-float rows in Ap
         * unless a K block ends inside it */
        const int one_run = c0 / kcb == (c0 + cn - 1) / kcb;
        for (long t = 0; t < rs; t++) {
            const float *src = tmp + (flipped ? rs - 1 - t : t);
            float *o = Ap + a_at(C, rows, mr, t, c0, p);
            for (long cc = 0; cc < cn; cc++, o += mr) {
                if (!one_run) o = Ap + a_at(C, rows, mr, t, c0 + cc, p);
                long i = 0;
                if (kn == 12)
                    for (; i < 12; i++) o[i] = src[i * si + cc * sc]; /* unrolled */
                for (; i < kn; i++) o[i] = src[i * si + cc * sc];
                for (; i < mr; i++) o[i] = 0.0f;
            }
        }
    }
}

/* Slivers (NR columns each) per work item; work items a thread at least
 * (row chunks make up for few column groups: mb1, 2 threads, 1, 2 or 4 an
 * item all ~2.8-2.9 ms at best on a noisy host). */
#ifndef ITEM_SLIVERS /* (-D for tuning builds) */
#define ITEM_SLIVERS 2
#endif
#ifndef ROW_ITEMS
#define ROW_ITEMS 2
#endif

/* Work item `it`: slivers [*s0, *s1) of region *q (returned; -1 past the
 * last), largest regions first (regions_item), x row chunk *rc (of g->nrc). */
static int item_of(const rcall *g, int it, int *s0, int *s1, int *rc)
{
    *rc = it % g->nrc;
    return regions_item(g->rg, g->nrg, ITEM_SLIVERS, it / g->nrc, s0, s1);
}

/* Gathering a 16-column chunk of B rows, o[c*ld + l] = xb[c*hw + off[l]]:
 * its columns are split into segments whose sources lie within 32 floats
 * (base, span), and, with AVX-512F, each row of a segment is two masked
 * loads and a two-source permute (idx), merged under the segment's lanes
 * (mask). The columns of a region's sliver are runs of pixels of an image
 * (a 7x7 interior chunk: 1-2 segments), so this replaces 16 scalar loads
 * and stores with a few vector ones: the scalar gather (3-4 cycles a float
 * on this Zen 4, store-load aliasing between B and x) had been 8-10% of a
 * stage-5 call; vgatherdps was slower still. A chunk of more than
 * CHUNK_SEGS segments (the corners: one pixel an image) stays scalar. */
#define CHUNK_SEGS 6
typedef struct {
    int nv, nseg;                /* columns, segments (> CHUNK_SEGS: scalar) */
    const int *off;              /* the columns' x offsets */
    int base[CHUNK_SEGS], span[CHUNK_SEGS];
    unsigned mask[CHUNK_SEGS];
    int idx[CHUNK_SEGS][16];
} chunk_plan;

static void chunk_plan_make(const int *off, int nv, chunk_plan *pl)
{
    pl->nv = nv, pl->off = off, pl->nseg = 0;
    for (int l = 0; l < nv;) {
        const int s = pl->nseg++;
        if (s >= CHUNK_SEGS) return;
        pl->base[s] = off[l], pl->mask[s] = 0;
        for (int m = 0; m < 16; m++) pl->idx[s][m] = 0;
        for (; l < nv && off[l] - pl->base[s] < 32 && off[l] >= pl->base[s]; l++) {
            pl->idx[s][l] = off[l] - pl->base[s];
            pl->mask[s] |= 1u << l;
            pl->span[s] = off[l] - pl->base[s] + 1;
        }
    }
}

#if defined(__x86_64__)
__attribute__((target("avx512f"))) static void chunk_gather_avx512(const chunk_plan *pl,
                                                                   const float *xb, long hw,
                                                                   long kc, float *o, long ld)
{
    if (pl->nv < 16) /* lanes past the columns stay 0 */
        for (long c = 0; c < kc; c++) _mm512_storeu_ps(o + c * ld, _mm512_setzero_ps());
    for (int s = 0; s < pl->nseg; s++) { /* segment by segment: its masks stay in registers */
        const __m512i idx = _mm512_loadu_si512(pl->idx[s]);
        const __mmask16 m = (__mmask16)pl->mask[s];
        const __mmask16 lo = (__mmask16)(pl->span[s] >= 16 ? 0xffff : (1u << pl->span[s]) - 1);
        const __mmask16 hi = (__mmask16)(pl->span[s] > 16 ? (1u << (pl->span[s] - 16)) - 1 : 0);
        const float *src = xb + pl->base[s];
        float *dst = o;
        for (long c = 0; c < kc; c++, src += hw, dst += ld) {
            const __m512 a = _mm512_maskz_loadu_ps(lo, src);
            const __m512 b = _mm512_maskz_loadu_ps(hi, src + 16);
            _mm512_mask_storeu_ps(dst, m, _mm512_permutex2var_ps(a, idx, b));
        }
    }
}
#endif

/* kc rows of the chunk pl (16 floats each, row stride ld) from xb. */
static void chunk_gather(const chunk_plan *pl, const float *xb, long hw, long kc, float *o, long ld,
                         int wide)
{
#if defined(__x86_64__)
    if (wide && pl->nseg <= CHUNK_SEGS) {
        chunk_gather_avx512(pl, xb, hw, kc, o, ld);
        return;
    }
#else
    (void)wide;
#endif
    for (long c = 0; c < kc; c++, xb += hw, o += ld) {
        int l = 0;
        for (; l < pl->nv; l++) o[l] = xb[pl->off[l]];
        for (; l < 16; l++) o[l] = 0.0f;
    }
}

/* One work item: slivers [s0, s1) of region q, every K block (a tap x up to
 * KC_MAX channels): their B panels gathered from x into Bp (chunk_gather,
 * 16 columns at a time: every kernel's NR is a multiple of 16), then every MR
 * panel of filters against them into Yb (all K rows, row stride ldb), then
 * Yb scattered into y (+ b). */
static void run_item(const rcall *g, int q, int s0, int s1, int rc, const float *b, float *y,
                     float *Bp, float *Yb)
{
    const conv_dims *d = g->d;
    const region *r = &g->rg[q];
    const gemm_kern_cfg *cf = g->cf;
    const int MR = cf->mr, NR = cf->nr, ns = s1 - s0;
    const long C = d->C, K = d->K, pq = (long)d->P * d->Q;
    const long mp = (K + MR - 1) / MR, ldb = (long)ns * NR, qw = r->ow1 - r->ow0;
    const long ir0 = mp * rc / g->nrc * MR, ir1 = mp * (rc + 1) / g->nrc * MR; /* rows */
    const long k1 = ir1 < K ? ir1 : K;
    const long KC = k_block(C);
    int off[ITEM_SLIVERS * MAX_NR]; /* where a column's tap (0, 0), channel 0 is in xs */
    long yo[ITEM_SLIVERS * MAX_NR]; /* y offset of a column (channel 0) */
    int nv = 0;
    for (long lj = (long)s0 * NR; lj < (long)s1 * NR && lj < r->cols; lj++, nv++) {
        const long n = lj / r->npx, px = lj % r->npx;
        const long oh = r->oh0 + px / qw, ow = r->ow0 + px % qw;
        off[nv] = (int)(n * g->ximg + oh * g->xw + ow + g->xorg); /* conv_regions_ok: < 2^31 */
        yo[nv] = n * K * pq + oh * d->Q + ow;
    }
    const int nch = ns * NR / 16, wide = cf->simd == 2; /* 16-column chunks */
    chunk_plan pl[ITEM_SLIVERS * MAX_NR / 16];
    for (int h = 0; h < nch; h++)
        chunk_plan_make(off + 16 * h, nv - 16 * h < 0 ? 0 : nv - 16 * h < 16 ? nv - 16 * h : 16,
                        &pl[h]);
    int first = 1;
    for (long c0 = 0; c0 < C; c0 += KC)
        for (int tr = r->r0; tr < r->r1; tr++)
            for (int ts = r->s0; ts < r->s1; ts++, first = 0) {
                const long kc = C - c0 < KC ? C - c0 : KC;
                for (int h = 0; h < nch; h++) /* B: kc rows of NR columns a sliver */
                    chunk_gather(&pl[h], g->xs + c0 * g->xhw + tr * (long)g->xw + ts, g->xhw, kc,
                                 Bp + (size_t)(h * 16 / NR) * kc * NR + h * 16 % NR, NR, wide);
                const float *ab = g->Ap + a_at(C, mp * MR, MR, tr * d->S + ts, c0, 0);
                for (long ir = ir0; ir < ir1; ir += MR) {
                    const float *a = ab + ir * kc;
                    for (int si = 0; si < ns; si++)
                        cf->fn(kc, a, Bp + (size_t)si * kc * NR, Yb + ir * ldb + si * NR, ldb,
                               1.0f, first ? 0.0f : 1.0f);
                }
            }
    for (long k = ir0; k < k1; k++) {
        const float *yr = Yb + k * ldb, bk = b ? b[k] : 0.0f;
        for (int jj = 0; jj < nv; jj++) y[yo[jj] + k * pq] = yr[jj] + bk;
    }
}

/* Floats of the packed filters and, merged, of the padded copy of x after
 * them (from *ap on), and of one thread's buffers (an item's B panels and
 * its rows of Y), for micro-kernel cf. */
static void sizes(const conv_dims *d, const gemm_kern_cfg *cf, int merged, long *ap, long *xp,
                  long *per_thread)
{
    const long rows = ((long)d->K + cf->mr - 1) / cf->mr * cf->mr, cols = ITEM_SLIVERS * cf->nr;
    *ap = (rows * d->R * d->S * d->C + 15) / 16 * 16;
    *xp = merged ? (long)d->N * d->C * (d->H + 2 * d->ph) * (d->W + 2 * d->pw) : 0;
    *per_thread = cols * (KC_MAX + rows);
}

double conv_regions_scratch_bytes(const conv_dims *d)
{
    const gemm_kern_cfg *cf = gemm_kernel_select();
    long ap, xp, pt;
    sizes(d, cf, regions_merged(d, cf->nr), &ap, &xp, &pt);
    return sizeof(float) * ((double)ap + (double)xp + (double)pt * omp_get_max_threads());
}

int conv_regions_fwd(const conv_dims *d, const float *x, const float *w, int flipped,
                     const float *b, float *y)
{
    const gemm_kern_cfg *cf = gemm_kernel_select();
    const int MR = cf->mr, merged = regions_merged(d, cf->nr);
    const long mp = (d->K + MR - 1) / MR, Hp = d->H + 2L * d->ph, Wp = d->W + 2L * d->pw;
    long apn, xpn, ptn;
    sizes(d, cf, merged, &apn, &xpn, &ptn);
    float *Ap = gemm_scratch(SCRATCH_CONV_PACK32, sizeof(float) * (size_t)(apn + xpn));
    if (!Ap) {
        err_set("cpu-omp conv: out of memory for the packed filters (%.0f bytes)",
                sizeof(float) * ((double)apn + xpn));
        return 1;
    }
    float *xp = Ap + apn; /* merged: x zero-padded, [N][C][Hp][Wp] */
    rcall g = {.cf = cf, .d = d, .Ap = Ap, .xs = merged ? xp : x, .xw = merged ? (int)Wp : d->W};
    g.xhw = merged ? Hp * Wp : (long)d->H * d->W;
    g.ximg = d->C * g.xhw;
    g.xorg = merged ? 0 : -((long)d->ph * d->W + d->pw);
    g.nrg = regions_make(d, cf->nr, merged, g.rg);
    /* items: column groups, and where there are fewer than ROW_ITEMS a
     * thread, row chunks of them (mb1 merged: 2 slivers, one column group,
     * its B gathered once per chunk) */
    const int nt = omp_get_max_threads();
    int cols = 0;
    for (int q = 0; q < g.nrg; q++) cols += (g.rg[q].nsl + ITEM_SLIVERS - 1) / ITEM_SLIVERS;
    g.nrc = cols >= ROW_ITEMS * nt ? 1 : (ROW_ITEMS * nt + cols - 1) / cols;
    if (g.nrc > mp) g.nrc = (int)mp;
    const int items = cols * g.nrc;
    const long planes = merged ? (long)d->N * d->C : 0;
    int failed = 0;
    atomic_int arrived = 0;
#pragma omp parallel
    {
        const int team = omp_get_num_threads();
        float *Bp = gemm_scratch(SCRATCH_CONV_COPY, sizeof(float) * (size_t)ptn);
        if (!Bp) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic, 1) nowait
        for (long p = 0; p < mp + planes; p++) {
            if (p < mp) {
                pack_filters(d, w, flipped, MR, p, Ap);
                continue;
            }
            const float *src = x + (p - mp) * d->H * d->W; /* plane (n, c) padded */
            float *dst = xp + (p - mp) * Hp * Wp;
            memset(dst, 0, sizeof(float) * (size_t)(Hp * Wp));
            for (long h = 0; h < d->H; h++)
                memcpy(dst + (h + d->ph) * Wp + d->pw, src + h * d->W, sizeof(float) * d->W);
        }
        gemm_yield_barrier(&arrived, team); /* every filter panel (and xp) is ready */
#pragma omp for schedule(dynamic, 1) nowait
        for (int it = 0; it < items; it++) {
            int s0 = 0, s1 = 0, rc = 0;
            const int q = item_of(&g, it, &s0, &s1, &rc);
            if (Bp) run_item(&g, q, s0, s1, rc, b, y, Bp, Bp + ITEM_SLIVERS * cf->nr * KC_MAX);
        }
        gemm_yield_barrier(&arrived, 2 * team);
    }
    if (failed)
        err_set("cpu-omp conv: out of memory for a thread's B panels and rows of Y (%.0f bytes)",
                sizeof(float) * (double)ptn);
    return failed;
}
