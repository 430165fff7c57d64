/* cpu/conv_omp_regions.c - cpu-omp's fp32 3x3 / pad 1 / stride 1 convolution
 * of small images (conv_omp_regions.h): ResNet-50 stage 5 (7x7, C = K = 512),
 * fwd and, through the flipped filters, bwd-data.
 *
 * One GEMM on the whole team, Y (K x columns) = W . B, where
 *  - the output pixels are split into regions by the taps they have inside
 *    the image (rows: r in [1,3) at the top, [0,2) at the bottom, all three
 *    between; the same for columns and s: 9 regions at 7x7), so no tap in
 *    the padding is multiplied (7x7: 361 of 441 products per image and
 *    channel pair);
 *  - the filters are packed once per call, straight from w (or from the
 *    bwd-data problem's w, flipped and transposed on the way), into the
 *    micro-kernel's MR-row panels over all of K = (r, s, c): a region's
 *    K (its taps, c innermost) is a few contiguous runs of every panel, so
 *    every region reads the same packed copy, and no GEMM packs A;
 *  - B's panels are gathered straight from x by the GEMM's own packing
 *    phase (gemm_job pack_b): column j of a region is image j / npx, pixel
 *    j % npx of the region, its slivers of NR columns never straddle two
 *    regions; no column matrix is written first;
 *  - the driver is the fp32 GEMM's (gemm_plan_make, gemm_job_run), its item
 *    the blocked GEMM's loop (K block, sliver, MR panel) stopping at the
 *    sliver's region's K, on full tiles of a padded Y (K rounded up to MR),
 *    which is then scattered into y (+ bias).
 * Why: the image-group regions path before this (per-thread GEMMs of 16
 * images on the interior, team GEMMs on four edges, each packing its A, on
 * r- and s-major copies of the filters) spent a third of its time outside
 * the micro-kernel (2 threads, perf: the micro-kernel 63%, the scalar
 * region gather 11%, the filter copies 7%, A packing 5%, B packing 3%):
 * 0.62-0.69x of oneDNN fwd, 0.58-0.64x bwd-data (41-48 ms against 28).
 * Buffers: the packed filters (gemm_scratch slot 6) and Y (slot 4), the
 * calling thread's, kept between calls; the GEMM's B panel in slot 0.
 */
#include "conv_omp_regions.h"
#include "errmsg.h"
#include "gemm_omp_impl.h"

#include <omp.h>
#include <stddef.h>
#include <string.h>

#define MAX_PQ 256   /* output pixels at most (conv_group_ok) */
#define MAX_CLASS 3  /* row / column tap classes of a 3x3 pad-1 filter */
#define MAX_NR 32    /* widest micro-kernel */

typedef struct {
    int oh0, oh1, ow0, ow1; /* output pixels [oh0, oh1) x [ow0, ow1) */
    int r0, r1, s0, s1;     /* their taps inside the image: [r0, r1) x [s0, s1) */
    long npx, cols;         /* pixels, and columns (N * npx) */
    int sb, nsl;            /* first sliver, sliver count */
} region;

typedef struct {
    gemm_job job; /* first: gemm_job_run's callbacks get it */
    const gemm_kern_cfg *cf;
    const conv_dims *d;
    const float *x, *Ap;
    float *Y;
    long ldy, panel; /* Y's row stride; floats per packed filter panel */
    int nrg;
    region rg[MAX_CLASS * MAX_CLASS];
} rjob;

int conv_regions_ok(dtype_t dt, const conv_dims *d)
{
    return dt == DTYPE_FP32 && d->R == 3 && d->S == 3 && d->ph == 1 && d->pw == 1 &&
           d->sh == 1 && d->sw == 1 && d->H >= 3 && d->W >= 3 && d->P == d->H &&
           d->Q == d->W && (long)d->P * d->Q < MAX_PQ;
}

/* Splits [0, n) output positions (stride 1) into runs with the same taps
 * [t0, t1) of f inside an input of n (padding pad): up to MAX_CLASS. */
static int tap_classes(int n, int f, int pad, int lo[], int hi[], int t0[], int t1[])
{
    int m = 0;
    for (int o = 0; o < n; o++) {
        const int a = pad - o > 0 ? pad - o : 0, b = n + pad - o < f ? n + pad - o : f;
        if (m && t0[m - 1] == a && t1[m - 1] == b) {
            hi[m - 1] = o + 1;
            continue;
        }
        lo[m] = o, hi[m] = o + 1, t0[m] = a, t1[m] = b;
        m++;
    }
    return m;
}

/* The regions of d, each's columns starting on a sliver of nr; returns the
 * sliver count. */
static int regions_make(const conv_dims *d, int nr, region *rg, int *nrg)
{
    int rl[MAX_CLASS], rh[MAX_CLASS], r0[MAX_CLASS], r1[MAX_CLASS];
    int cl[MAX_CLASS], ch[MAX_CLASS], s0[MAX_CLASS], s1[MAX_CLASS];
    const int nrow = tap_classes(d->P, d->R, d->ph, rl, rh, r0, r1);
    const int ncol = tap_classes(d->Q, d->S, d->pw, cl, ch, s0, s1);
    int n = 0, sb = 0;
    for (int a = 0; a < nrow; a++)
        for (int b = 0; b < ncol; b++, n++) {
            region *q = &rg[n];
            *q = (region){.oh0 = rl[a], .oh1 = rh[a], .ow0 = cl[b], .ow1 = ch[b], .r0 = r0[a],
                          .r1 = r1[a], .s0 = s0[b], .s1 = s1[b]};
            q->npx = (long)(q->oh1 - q->oh0) * (q->ow1 - q->ow0);
            q->cols = d->N * q->npx;
            q->sb = sb;
            q->nsl = (int)((q->cols + nr - 1) / nr);
            sb += q->nsl;
        }
    *nrg = n;
    return sb;
}

static const region *region_of(const rjob *g, int sliver)
{
    int q = 0;
    while (q + 1 < g->nrg && sliver >= g->rg[q + 1].sb) q++;
    return &g->rg[q];
}

/* Rows of K a region reads: its taps x C. */
static long region_k(const region *q, long C) { return (long)(q->r1 - q->r0) * (q->s1 - q->s0) * C; }

/* Panel p of the packed filters: rows k in [p*mr, p*mr + mr) (zero past K),
 * element (k, r, s, c) at dst[((r*S + s)*C + c)*mr + k - p*mr]. flipped:
 * w is [C][K][R][S] and (k, r, s, c) is w[c][k][R-1-r][S-1-s]. Blocks of
 * PACK_C channels are first copied whole into tmp (mr rows of PACK_C*R*S
 * floats, or PACK_C rows of mr*R*S when flipped: the source's own order),
 * then written out as whole mr-float rows: a scalar loop writing each float
 * to its place straight from w took 7% of a stage-5 call. */
#define PACK_C 16
static void pack_filters(const conv_dims *d, const float *w, int flipped, int mr, long p,
                         float *dst)
{
    const long C = d->C, K = d->K, rs = (long)d->R * d->S;
    const long k0 = p * mr, kn = K - k0 < mr ? K - k0 : mr;
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
        for (long t = 0; t < rs; t++) {
            const float *src = tmp + (flipped ? rs - 1 - t : t);
            float *o = dst + (t * C + c0) * mr;
            for (long cc = 0; cc < cn; cc++, o += mr) {
                long i = 0;
                for (; i < kn; i++) o[i] = src[i * si + cc * sc];
                for (; i < mr; i++) o[i] = 0.0f;
            }
        }
    }
}

/* gemm_job.pack_b: rows [pc, pc + kc) of slivers [s0, s1) of the column
 * panel at jc, gathered from x; slivers whose region's K ends before pc are
 * left alone (the item never reads them). */
static void regions_pack_b(const gemm_job *j, int pc, int kc, int jc, int nc, void *dst, int s0,
                           int s1)
{
    (void)nc;
    const rjob *g = (const rjob *)j;
    const conv_dims *d = g->d;
    const int NR = j->p.nr, W = d->W;
    const long C = d->C, hw = (long)d->H * W, img = C * hw;
    for (int s = s0; s < s1; s++) {
        const int gs = jc / NR + s;
        const region *q = region_of(g, gs);
        const long kq = region_k(q, C);
        if (pc >= kq) continue;
        const int kn = kq - pc < kc ? (int)(kq - pc) : kc, qw = q->ow1 - q->ow0;
        const int ns = q->s1 - q->s0;
        long off[MAX_NR];
        int nv = 0;
        for (int jj = 0; jj < NR; jj++) {
            const long lj = (long)(gs - q->sb) * NR + jj;
            if (lj >= q->cols) break;
            const long n = lj / q->npx, px = lj % q->npx;
            off[nv++] = n * img + (q->oh0 + px / qw - d->ph) * (long)W + q->ow0 + px % qw - d->pw;
        }
        float *o = (float *)dst + (size_t)s * kc * NR;
        long c = (pc) % C, u = pc / C; /* channel, tap within the region */
        for (int kk = 0; kk < kn; kk++, o += NR) {
            const float *xb = g->x + c * hw + (q->r0 + u / ns) * (long)W + q->s0 + u % ns;
            int jj = 0;
            for (; jj < nv; jj++) o[jj] = xb[off[jj]];
            for (; jj < NR; jj++) o[jj] = 0.0f;
            if (++c == C) c = 0, u++;
        }
    }
}

/* gemm_job.item: rows [ic, ic + mc) x slivers [s0, s1) of the column panel
 * at jc, every K block of each sliver's region; A's micro-panels are read
 * from the packed filters in place, split where the region's K leaves a
 * run of contiguous taps. */
static void regions_item(const gemm_job *j, int jc, int nc, int ns, int it, const void *Bpv,
                         void *myA)
{
    (void)nc, (void)myA;
    const rjob *g = (const rjob *)j;
    const gemm_plan *p = &j->p;
    const int MR = p->mr, NR = p->nr, K = p->K, KC = p->KC, S = g->d->S;
    const long C = g->d->C;
    int ic, mc, s0, s1;
    gemm_item_range(p, ns, it, &ic, &mc, &s0, &s1);
    if (mc <= 0) return;
    for (int pc = 0; pc < K; pc += KC) {
        const int kc = K - pc < KC ? K - pc : KC;
        const float *Bk = (const float *)Bpv + (size_t)pc * ns * NR;
        for (int s = s0; s < s1; s++) {
            const region *q = region_of(g, jc / NR + s);
            const long kq = region_k(q, C), run = (long)(q->s1 - q->s0) * C;
            if (pc >= kq) continue;
            const long end = kq - pc < kc ? kq : pc + kc;
            const float *bp = Bk + (size_t)s * kc * NR;
            for (int ir = 0; ir < mc; ir += MR) {
                const float *ap = g->Ap + (size_t)((ic + ir) / MR) * g->panel;
                float *c = g->Y + (size_t)(ic + ir) * g->ldy + jc + (size_t)s * NR;
                for (long kk = pc; kk < end;) {
                    const long u = kk / run, rem = kk % run;
                    const long seg = end - kk < run - rem ? end - kk : run - rem;
                    const float *a = ap + (((q->r0 + u) * S + q->s0) * C + rem) * MR;
                    g->cf->fn(seg, a, bp + (kk - pc) * NR, c, g->ldy, 1.0f, kk ? 1.0f : 0.0f);
                    kk += seg;
                }
            }
        }
    }
}

/* K block length asked of the plan: C, or an equal part of it (<= 384, a
 * multiple of 8) where there is one, so that blocks end where taps do. */
static int k_block(long C)
{
    const long m = (C + 383) / 384;
    return C % m == 0 && (C / m) % 8 == 0 ? (int)(C / m) : 384;
}

/* Y's and the packed filters' floats for micro-kernel cf. */
static void sizes(const conv_dims *d, const gemm_kern_cfg *cf, long *ap, long *y)
{
    region rg[MAX_CLASS * MAX_CLASS];
    int nrg;
    const long nsl = regions_make(d, cf->nr, rg, &nrg);
    const long rows = ((long)d->K + cf->mr - 1) / cf->mr * cf->mr;
    *ap = rows * d->R * d->S * d->C;
    *y = rows * nsl * cf->nr;
}

double conv_regions_scratch_bytes(const conv_dims *d)
{
    long ap, y;
    sizes(d, gemm_kernel_select(), &ap, &y);
    return sizeof(float) * ((double)ap + y);
}

int conv_regions_fwd(const conv_dims *d, const float *x, const float *w, int flipped,
                     const float *b, float *y)
{
    const gemm_kern_cfg *cf = gemm_kernel_select();
    const int MR = cf->mr, NR = cf->nr, K = d->K;
    const long pq = (long)d->P * d->Q, rs = (long)d->R * d->S;
    rjob g = {.job = {.pack_b = regions_pack_b, .item = regions_item}, .cf = cf, .d = d, .x = x};
    const int nsl = regions_make(d, NR, g.rg, &g.nrg);
    const long mp = (K + MR - 1) / MR;
    long apn, yn;
    sizes(d, cf, &apn, &yn);
    float *Ap = gemm_scratch(6, sizeof(float) * (size_t)apn);
    float *Y = Ap ? gemm_scratch(4, sizeof(float) * (size_t)yn) : NULL;
    if (!Y) {
        err_set("cpu-omp conv: out of memory for the packed filters and Y (%.0f bytes)",
                conv_regions_scratch_bytes(d));
        return 1;
    }
    g.Ap = Ap, g.Y = Y, g.ldy = (long)nsl * NR, g.panel = rs * d->C * MR;
    /* column of output pixel px of image n: cb[px] + n * np[px] */
    int cb[MAX_PQ], np[MAX_PQ];
    for (int q = 0; q < g.nrg; q++) {
        const region *r = &g.rg[q];
        for (int oh = r->oh0; oh < r->oh1; oh++)
            for (int ow = r->ow0; ow < r->ow1; ow++) {
                const long px = (long)oh * d->Q + ow;
                cb[px] = r->sb * NR + (oh - r->oh0) * (r->ow1 - r->ow0) + ow - r->ow0;
                np[px] = (int)r->npx;
            }
    }
    atomic_int packed = 0;
#pragma omp parallel
    {
#pragma omp for schedule(dynamic, 1) nowait
        for (long p = 0; p < mp; p++) pack_filters(d, w, flipped, MR, p, Ap + p * g.panel);
        gemm_yield_barrier(&packed, omp_get_num_threads());
    }
    gemm_plan_make(&g.job.p, MR, NR, cf->mc, k_block(d->C), cf->nc, 1, sizeof(float), K,
                   nsl * NR, (int)(rs * d->C), omp_get_max_threads());
    if (gemm_job_run(&g.job)) return 1;
    atomic_int stored = 0;
#pragma omp parallel
    {
#pragma omp for schedule(static) nowait
        for (long k = 0; k < K; k++) { /* y[n][k][px] = Y[k][column of (n, px)] (+ b[k]) */
            const float *yr = Y + k * g.ldy, bk = b ? b[k] : 0.0f;
            for (long n = 0; n < d->N; n++) {
                float *o = y + (n * K + k) * pq;
                for (long px = 0; px < pq; px++) o[px] = yr[cb[px] + n * np[px]] + bk;
            }
        }
        gemm_yield_barrier(&stored, omp_get_num_threads());
    }
    return 0;
}
