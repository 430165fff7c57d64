/* cpu/conv_omp_igemm_pw.c - the bf16 implicit GEMM of conv_omp_igemm.c for
 * up to 64 filters (stride 1): the columns read in place, never packed.
 *
 * With 16-64 filters the product is short and packing the columns costs
 * what the multiplies do (perf, cnn-conv2 fwd, 32 filters over 16 x 3 x 3,
 * 14x14 mb64: the kernel 53 %, packing 35 %; 0.49 ms against oneDNN's
 * 0.30).  Here x is copied once per call into planes of channel pairs
 * (xp[n][c/2][H + 2ph][W + 2pw] of dwords, a pair's words side by side:
 * the kernels' K-pair layout), zero-padded; and the output is computed on
 * the padded width: virtual column j of an image is output pixel
 * (j / Wp, j % Wp), Wp = W + 2pw, of which j % Wp >= Q are thrown away.  Then
 * tap (r, s) of channel pair c2 for 32 consecutive virtual columns is 32
 * consecutive dwords of xp, at j + c2*plane + r*Wp + s: the 16-row tile
 * reads B straight from xp through a table of those offsets
 * (gemm_bf16_tile16_at), the filters packed once (conv_igemm_pack_taps),
 * and the tile is rounded once and stored run by run of valid pixels from
 * its registers.  The price is (Wp - Q) / Wp of the multiplies (cnn-conv2
 * 2/16, cnn-conv1 2/30) and a copy of x.
 * Measured against the packing implicit GEMM (ct, 2 threads, side by side
 * with oneDNN): cnn-conv2 fwd 0.49 -> 0.32 ms, cnn-conv1 0.31 -> 0.19,
 * cnn-conv2 bwd-data 0.63 -> 0.33; at 64 filters ResNet-50 stage 2 3x3 fwd
 * 20.8 -> 18.2 ms, bwd-data 21.0 -> 18.1, its 1x1 bwd-data 16.7 -> 11.7;
 * at 256 filters no better (VGG 3x3 18.0 both) or worse (the 1x1 fwd 10.6
 * -> 12.8: the 16-row tile loads B once per 16 rows, the 12-row one's
 * packed B once per 24 products).  So taken for at most 64 filters. */
#include "conv_omp_igemm.h"
#include "conv_omp_cols.h"
#include "conv_omp_pw.h"
#include "errmsg.h"
#include "gemm_omp_impl.h"
#include "gemm_omp_lowp.h"

#include <omp.h>
#include <stdint.h>
#include <string.h>

#define SLOT_X SCRATCH_CONV_COPY /* gemm_scratch: pair planes of x (a thread its image, or all) */
#define SLOT_A SCRATCH_CONV_PACK16 /* the packed filters, as conv_omp_igemm.c's */
#define NR 32           /* columns a tile */
#define MR 16           /* the 16-row tile's panels */
#define ITEM 8          /* slivers a work item */
#define MAX_PAIRS 4096  /* the offsets table, on the stack */

static pw_geom geom_of(const conv_dims *d) { return pw_geom_of(d, (d->C + 1) / 2); }

int conv_igemm_pw_pays(dtype_t dt, const conv_dims *d)
{
    if (d->sh != 1 || d->sw != 1 || d->K > 64 || 4L * (d->S - 1) > d->Q ||
        !conv_igemm_ok(dt, d) || gemm_lowp_path_of(dt) != LOWP_AVX512BF16)
        return 0;
    const pw_geom g = geom_of(d);
    return (long)d->R * d->S * g.planes <= MAX_PAIRS && (double)d->N * g.img < INT32_MAX;
}

static size_t a_bytes(const conv_dims *d, const pw_geom *g)
{
    return (size_t)(d->K + MR - 1) / MR * MR * d->R * d->S * g->planes * 4;
}

/* Whether the work items are whole images, each thread copying its own
 * into its L2 (enough images for the team), or groups of slivers of a copy
 * of every image made first (measured, cnn-conv2 bwd-data mb64: the copy
 * through L3 was a fifth of the time). */
static int per_image(const conv_dims *d) { return d->N >= 2 * omp_get_max_threads(); }

double conv_igemm_pw_scratch_bytes(dtype_t dt, const conv_dims *d)
{
    const pw_geom g = geom_of(d);
    (void)dt;
    return (double)a_bytes(d, &g) +
           4.0 * g.img * (per_image(d) ? omp_get_max_threads() : d->N);
}

#if defined(__x86_64__)
/* Plane pl (image pl / planes, channels 2 (pl % planes) and the next) of
 * x's pair planes (conv_omp_pw.h) into o, zero-padded: each padded row
 * written whole, 32 dwords at a time, from masked loads of the two
 * channels' row (the padding lanes loaded as zeros); the rows above and
 * below and the slack zeroed. */
TGT static void interleave_plane(const conv_dims *d, const pw_geom *g, const uint16_t *x, long pl,
                                 uint32_t *o)
{
    const long hw = (long)d->H * d->W, n = pl / g->planes;
    const int c = (int)(pl % g->planes) * 2;
    const uint16_t *x0 = x + (n * d->C + c) * hw;
    cols_pair_plane(x0, c + 1 < d->C ? x0 + hw : NULL, d->H, d->W, d->ph, d->pw, g->wp, g->plane, o);
}

/* Every pair plane of x into xp, image by image. */
static void interleave(const conv_dims *d, const pw_geom *g, const uint16_t *x, uint32_t *xp)
{
    const long planes = (long)d->N * g->planes;
    atomic_int arrived = 0;
#pragma omp parallel if (planes > 1)
    {
#pragma omp for schedule(static) nowait
        for (long pl = 0; pl < planes; ++pl) interleave_plane(d, g, x, pl, xp + pl * g->plane);
        omp_team_end(&arrived);
    }
}

/* The operands of one call (read-only in the threads). */
typedef struct {
    const conv_dims *d;
    pw_geom g;
    const uint32_t *Ap; /* the packed filters: np pairs a panel */
    int np;
    const int *offs;
    const float *b;
    uint16_t *y;
} pw_call;

/* Slivers [s0, s1) of image n, its pair planes at xi: every filter panel,
 * stored into y. */
static void slivers(const pw_call *c, long n, const uint32_t *xi, long s0, long s1)
{
    const conv_dims *d = c->d;
    const long pq = (long)d->P * d->Q;
    const int M = d->K;
    gemm_runs ru;
    for (long s = s0; s < s1; ++s) {
        const long j0 = s * NR;
        const int wd = (int)(c->g.cols - j0 < NR ? c->g.cols - j0 : NR);
        pw_runs(d, &c->g, n, j0, wd, &ru);
        for (int ir = 0; ir < M; ir += MR)
            gemm_bf16_tile16_at(2 * c->np, c->Ap + (size_t)(ir / MR) * c->np * MR, xi + j0,
                                c->offs, c->b ? c->b + ir : NULL, &ru, c->y + ir * pq, pq,
                                M - ir < MR ? M - ir : MR, wd);
    }
}

int conv_igemm_pw_fwd(dtype_t dt, const conv_dims *d, const void *x, const void *w, const float *b,
                      void *y)
{
    const pw_geom g = geom_of(d);
    const int np = d->R * d->S * g.planes, img_items = per_image(d);
    const size_t ab = a_bytes(d, &g);
    uint32_t *Ap = (uint32_t *)gemm_scratch(SLOT_A, ab);
    if (!Ap) {
        err_set("cpu-omp conv: out of memory for the packed filters (%zu bytes)", ab);
        return 1;
    }
    (void)dt;
    conv_igemm_pack_taps(d, MR, w, Ap);
    int offs[MAX_PAIRS]; /* pair t*planes + c2: tap t = (r, s), channel pair c2 */
    for (int t = 0; t < d->R * d->S; ++t)
        for (int c2 = 0; c2 < g.planes; ++c2)
            offs[t * g.planes + c2] = (int)pw_tap(&g, c2, t / d->S, t % d->S);
    const pw_call c = {d, g, Ap, np, offs, b, y};
    const int nt = 2.0 * d->K * d->N * d->P * d->Q * d->C * d->R * d->S < GEMM_SERIAL_FLOPS
                       ? 1 : omp_get_max_threads();
    const size_t ib = sizeof(uint32_t) * (size_t)g.img;
    int failed = 0;
    if (img_items) { /* an image an item, its planes in the taking thread's buffer */
        atomic_int arrived2 = 0;
#pragma omp parallel num_threads(nt) if (nt > 1)
        {
            uint32_t *xi = (uint32_t *)gemm_scratch(SLOT_X, ib);
            if (!xi) {
#pragma omp atomic write
                failed = 1;
            }
#pragma omp for schedule(dynamic, 1) nowait
            for (long n = 0; n < d->N; ++n) {
                if (failed) continue;
                for (long q = 0; q < g.planes; ++q) interleave_plane(d, &g, x, n * g.planes + q, xi + q * g.plane);
                slivers(&c, n, xi, 0, g.ns);
            }
            omp_team_end(&arrived2);
        }
    } else { /* few images: every plane first, then groups of slivers */
        uint32_t *xp = (uint32_t *)gemm_scratch(SLOT_X, ib * (size_t)d->N);
        if (!xp) {
            err_set("cpu-omp conv: out of memory for the pair planes of x (%zu bytes)",
                    ib * (size_t)d->N);
            return 1;
        }
        interleave(d, &g, x, xp);
        const long per = (g.ns + ITEM - 1) / ITEM;
        atomic_int arrived = 0;
#pragma omp parallel num_threads(nt) if (nt > 1)
        {
#pragma omp for schedule(dynamic, 1) nowait
            for (long it = 0; it < d->N * per; ++it) {
                const long n = it / per, s0 = it % per * ITEM;
                slivers(&c, n, xp + n * g.img, s0, s0 + ITEM < g.ns ? s0 + ITEM : g.ns);
            }
            omp_team_end(&arrived);
        }
    }
    if (failed) err_set("cpu-omp conv: out of memory for an image's pair planes (%zu bytes)", ib);
    return failed;
}
#else
int conv_igemm_pw_fwd(dtype_t dt, const conv_dims *d, const void *x, const void *w, const float *b,
                      void *y)
{
    (void)dt, (void)d, (void)x, (void)w, (void)b, (void)y;
    err_set("cpu-omp conv: the bf16 implicit GEMM needs x86-64");
    return 1;
}
#endif
