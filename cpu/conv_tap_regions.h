/* cpu/conv_tap_regions.h - a stride-1 3x3 / pad-1 convolution's output
 * pixels split by the taps they have inside the image (internal to cpu/:
 * the fp32 regions path, conv_omp_regions.c, and the bf16 implicit GEMM's,
 * conv_omp_igemm_regions.c).
 *
 * Rows of output pixels fall in up to MAX_CLASS classes by the filter rows r
 * they have inside the image (r in [1, 3) at the top, [0, 2) at the bottom,
 * all three between), columns the same by s; a region is a row class x a
 * column class (9 at 7x7), and a product over its pixels needs only its
 * taps [r0, r1) x [s0, s1): none in the padding is multiplied. The column
 * j of a region (N images) is image j / npx, its pixel j % npx in row-major
 * order within the region. */
#ifndef CONV_TAP_REGIONS_H
#define CONV_TAP_REGIONS_H

#include "../ops/conv_dims.h"

#define MAX_CLASS 3 /* row / column tap classes of a 3x3 pad-1 filter */

typedef struct {
    int oh0, oh1, ow0, ow1; /* output pixels [oh0, oh1) x [ow0, ow1) */
    int r0, r1, s0, s1;     /* their taps inside the image: [r0, r1) x [s0, s1) */
    long npx, cols;         /* pixels, and columns (N * npx) */
    int nsl;                /* slivers of NR columns */
} region;

/* Splits [0, n) output positions (stride 1) into runs with the same taps
 * [t0, t1) of f inside an input of n (padding pad): up to MAX_CLASS for
 * f = 3, pad = 1, n >= 3. */
static inline int tap_classes(int n, int f, int pad, int lo[], int hi[], int t0[], int t1[])
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

/* The regions of d (slivers of nr columns); returns how many. merged: one
 * region, every pixel with every tap (read from a zero-padded copy). */
static inline int regions_make(const conv_dims *d, int nr, int merged, region *rg)
{
    if (merged) {
        rg[0] = (region){.oh1 = d->P, .ow1 = d->Q, .r1 = d->R, .s1 = d->S};
        rg[0].npx = (long)d->P * d->Q;
        rg[0].cols = d->N * rg[0].npx;
        rg[0].nsl = (int)((rg[0].cols + nr - 1) / nr);
        return 1;
    }
    int rl[MAX_CLASS], rh[MAX_CLASS], r0[MAX_CLASS], r1[MAX_CLASS];
    int cl[MAX_CLASS], ch[MAX_CLASS], s0[MAX_CLASS], s1[MAX_CLASS];
    const int nrow = tap_classes(d->P, d->R, d->ph, rl, rh, r0, r1);
    const int ncol = tap_classes(d->Q, d->S, d->pw, cl, ch, s0, s1);
    int n = 0;
    for (int a = 0; a < nrow; a++)
        for (int b = 0; b < ncol; b++, n++) {
            region *q = &rg[n];
            *q = (region){.oh0 = rl[a], .oh1 = rh[a], .ow0 = cl[b], .ow1 = ch[b], .r0 = r0[a],
                          .r1 = r1[a], .s0 = s0[b], .s1 = s1[b]};
            q->npx = (long)(q->oh1 - q->oh0) * (q->ow1 - q->ow0);
            q->cols = d->N * q->npx;
            q->nsl = (int)((q->cols + nr - 1) / nr);
        }
    return n;
}

/* Slivers x taps, the GEMM's work in units of NR columns x C. */
static inline long regions_cost(const region *rg, int n)
{
    long c = 0;
    for (int q = 0; q < n; q++) c += (long)rg[q].nsl * (rg[q].r1 - rg[q].r0) * (rg[q].s1 - rg[q].s0);
    return c;
}

/* Work item `it` of items of `per` slivers, regions with the most taps
 * first (the longest items start first): slivers [*s0, *s1) of the region
 * returned, -1 past the last. */
static inline int regions_item(const region *rg, int nrg, int per, int it, int *s0, int *s1)
{
    for (int taps = MAX_CLASS * MAX_CLASS; taps > 0; taps--)
        for (int q = 0; q < nrg; q++) {
            const region *r = &rg[q];
            if ((r->r1 - r->r0) * (r->s1 - r->s0) != taps) continue;
            const int n = (r->nsl + per - 1) / per;
            if (it >= n) {
                it -= n;
                continue;
            }
            *s0 = it * per;
            *s1 = *s0 + per < r->nsl ? *s0 + per : r->nsl;
            return q;
        }
    return -1;
}

#endif
