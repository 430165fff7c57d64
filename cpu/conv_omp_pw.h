/* cpu/conv_omp_pw.h - a stride-1 convolution computed on the padded width
 * (internal to cpu/: the in-place implicit GEMMs, conv_omp_igemm_pw.c at
 * bf16 and conv_omp_pw32.c at fp32).
 *
 * x is copied once, zero-padded, into planes of 4-byte elements (fp32: one
 * channel a plane; bf16: a pair of channels a plane, each element the two
 * words), Hp = H + 2ph rows of Wp = W + 2pw.  Virtual column j of an image
 * is output pixel (j / Wp, j % Wp); its tap (r, s) is element
 * j + r*Wp + s of every plane, so 32 consecutive virtual columns of a tap
 * are 32 consecutive elements: a GEMM's B rows read in place.  Virtual
 * columns with j % Wp >= Q are computed and dropped ((Wp - Q) / Wp of the
 * work).  A plane holds the padded image and the slack the last sliver's
 * farthest tap reads. */
#ifndef CONV_OMP_PW_H
#define CONV_OMP_PW_H

#include "../ops/conv_dims.h"
#include "gemm_omp_impl.h"

typedef struct {
    long wp;    /* padded row length */
    long cols;  /* virtual columns an image: P * wp */
    long ns;    /* slivers of 32 an image */
    long plane; /* elements a plane */
    long img;   /* elements an image: planes * plane */
    int planes; /* planes an image */
} pw_geom;

static inline pw_geom pw_geom_of(const conv_dims *d, int planes)
{
    pw_geom g;
    g.wp = d->W + 2L * d->pw;
    g.cols = d->P * g.wp;
    g.ns = (g.cols + 31) / 32;
    const long padded = (d->H + 2L * d->ph) * g.wp;
    const long reach = g.ns * 32 + (d->R - 1) * g.wp + d->S - 1;
    g.plane = ((padded > reach ? padded : reach) + 15) / 16 * 16;
    g.planes = planes;
    g.img = planes * g.plane;
    return g;
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
 * route (stride 1, AVX-512F, output images of 256 pixels or more, at most
 * an eighth of the work in dropped columns), its kept scratch (the calling
 * thread's gemm_scratch slots 4 and 6), and y = conv(x, w) (+ b). 0, or
 * non-zero after err_set (out of memory). */
int conv_pw32_ok(dtype_t dt, const conv_dims *d);
double conv_pw32_scratch_bytes(const conv_dims *d);
int conv_pw32_fwd(const conv_dims *d, const float *x, const float *w, const float *b, float *y);

#endif
