/* cpu/conv_omp_pw.h - a convolution computed on the padded width
 * (internal to cpu/: the in-place implicit GEMMs, conv_omp_igemm_pw.c at
 * bf16 and conv_omp_pw32.c at fp32).
 *
 * x is copied once, zero-padded, into planes of 4-byte elements (fp32: a
 * channel; bf16: a pair of channels, each element the two words), Hp =
 * H + 2ph rows of Wp = W + 2pw; at strides sh, sw each channel is split
 * into sh*sw phase planes (phase (a, b): padded rows a, a + sh, ..., columns
 * b, b + sw, ...; ceil(Hp/sh) rows of wp = ceil(Wp/sw)).  Virtual column j
 * of an image is output pixel (j / wp, j % wp); its tap (r, s) is element
 * j + (r/sh)*wp + s/sw of phase (r % sh, s % sw) of every channel, so 32
 * consecutive virtual columns of a tap are 32 consecutive elements: a GEMM's
 * B rows read in place (pw_tap).  Virtual columns with j % wp >= Q are
 * computed and dropped ((wp - Q) / wp of the work).  A plane holds the
 * padded phase and the slack the last sliver's farthest tap reads. */
#ifndef CONV_OMP_PW_H
#define CONV_OMP_PW_H

#include "../ops/conv_dims.h"
#include "gemm_omp_impl.h"

typedef struct {
    long wp;    /* a virtual row: ceil(Wp / sw) */
    long rows;  /* a phase's rows: ceil(Hp / sh) */
    long cols;  /* virtual columns an image: P * wp */
    long ns;    /* slivers of 32 an image */
    long plane; /* elements a plane */
    long img;   /* elements an image: planes * plane */
    int sh, sw; /* the strides: phases a channel */
    int planes; /* planes an image */
} pw_geom;

/* The geometry of d over chans planes of channels an image. */
static inline pw_geom pw_geom_of(const conv_dims *d, int chans)
{
    pw_geom g;
    g.sh = d->sh, g.sw = d->sw;
    g.wp = (d->W + 2L * d->pw + d->sw - 1) / d->sw;
    g.rows = (d->H + 2L * d->ph + d->sh - 1) / d->sh;
    g.cols = d->P * g.wp;
    g.ns = (g.cols + 31) / 32;
    const long reach = g.ns * 32 + (d->R - 1) / d->sh * g.wp + (d->S - 1) / d->sw;
    g.plane = ((g.rows * g.wp > reach ? g.rows * g.wp : reach) + 15) / 16 * 16;
    g.planes = chans * d->sh * d->sw;
    g.img = g.planes * g.plane;
    return g;
}

/* Where tap (r, s) of channel plane c of an image's virtual column 0 is. */
static inline long pw_tap(const pw_geom *g, long c, int r, int s)
{
    return ((c * g->sh + r % g->sh) * g->sw + s % g->sw) * g->plane + r / g->sh * g->wp + s / g->sw;
}

/* The valid pixels among image n's virtual columns [j0, j0 + w) (w <= 32)
 * as runs of lanes, with where each goes in y (channel 0; K channels of
 * P*Q). */
static inline void pw_runs(const conv_dims *d, const pw_geom *g, long n, long j0, int w,
                           gemm_runs *ru)
{
    const long kpq = (long)d->K * d->P * d->Q;
    ru->n = 0;
    for (int l = 0; l < w;) {
        const long p = (j0 + l) / g->wp, q = (j0 + l) % g->wp;
        if (q >= d->Q) { /* the padding columns: to the next row */
            l += (int)(g->wp - q);
            continue;
        }
        const int len = (int)(d->Q - q < w - l ? d->Q - q : w - l);
        ru->mask[ru->n] = (len == 32 ? ~0u : (1u << len) - 1) << l;
        ru->e[ru->n++] = n * kpq + p * d->Q + q - l;
        l += len;
    }
}

/* fp32 (conv_omp_pw32.c): whether forward problem d takes the in-place
 * route (strides 1 or 2, AVX-512F, output images of 256 pixels or more, at
 * most an eighth of the work in dropped columns), its kept scratch (the calling
 * thread's gemm_scratch slots 4 and 6), and y = conv(x, w) (+ b). 0, or
 * non-zero after err_set (out of memory). */
int conv_pw32_ok(dtype_t dt, const conv_dims *d);
double conv_pw32_scratch_bytes(const conv_dims *d);
int conv_pw32_fwd(const conv_dims *d, const float *x, const float *w, const float *b, float *y);

#endif
