/* cpu/conv_omp_igemm_phase.c - cpu-omp's bf16 bwd-data at stride 2 by
 * output phases, each a stride-1 implicit GEMM reading dy in place.
 *
 * At stride 2, dx's pixels (h, w) with h = 2i + a, w = 2j + b (phase (a, b))
 * get contributions only from the taps r = r0 + 2t, s = s0 + 2u with
 * r0 = (a + ph) mod 2, s0 = (b + pw) mod 2, and from dy's pixel
 * (i + ea - t, j + eb - u), ea = (a + ph) div 2, eb the same: a stride-1
 * correlation of dy with that phase's taps.  So each phase is the in-place
 * implicit GEMM of conv_omp_igemm_pw.c over a padded copy of dy in channel
 * pairs: rows dx's channels c, K pairs (tap, pair of dy channels), the
 * phase's rows of qp virtual columns (dy's padded row) read straight from
 * the copy through a table of offsets (gemm_bf16_tile16_at), rounded once
 * and stored run by run into the thread's phase images, which are then
 * interleaved into dx.  Nothing multiplies a zero: the route it replaces
 * (GEMM into fp32 columns, fp32 col2im, one rounding) spent a quarter of
 * its time outside the GEMM (perf, ResNet-50 stage 3 3x3/2: col2im's adds
 * 12 %, col2im 4 %, the rounding 6 %), at 0.74-0.79 of oneDNN.
 * Work items are whole images (the thread copies dy's image and keeps the
 * phase images in its own buffer); taken with enough images for the team. */
#include "conv_omp_igemm.h"
#include "conv_omp_cols.h"
#include "conv_omp_pw.h"
#include "errmsg.h"
#include "gemm_omp_impl.h"
#include "gemm_omp_lowp.h"

#include <omp.h>
#include <stdint.h>
#include <string.h>

#define SLOT_A SCRATCH_CONV_PACK16 /* gemm_scratch: the packed filters (calling thread) */
#define SLOT_T SCRATCH_CONV_THREAD /* each thread's copy of dy and phase images */
#define MR 16    /* the 16-row tile */
#define NR 32
#define MAX_PAIRS 4096 /* a phase's offsets, on the stack */

typedef struct {
    int r0, s0, tr, tu; /* first taps, taps */
    int ea, eb;         /* dy's row of phase row i at t = 0: i + ea (columns: + eb) */
    long ha, wb;        /* the phase's rows and columns of dx */
    long ns, np;        /* slivers of 32 virtual columns; K pairs */
    size_t aoff, toff;  /* its packed filters (dwords), its image (words) */
} phase;

typedef struct {
    int nph, k2;                  /* phases; dy channel pairs */
    long padT, padL, qp, plane;   /* dy's pair planes: rows of qp dwords */
    size_t adw, twords, tbytes;   /* filters (dwords), phase images (words), a thread's bytes */
    phase ph[4];
} plan;

static long cdiv(long a, long b) { return (a + b - 1) / b; }

static void plan_make(const conv_dims *d, plan *p)
{
    memset(p, 0, sizeof *p);
    p->k2 = (d->K + 1) / 2;
    long padB = 0, padR = 0, wbmax = 0;
    for (int a = 0; a < d->sh; ++a)
        for (int b = 0; b < d->sw; ++b) {
            phase *f = &p->ph[p->nph++];
            f->r0 = (a + d->ph) % d->sh, f->s0 = (b + d->pw) % d->sw;
            f->tr = d->R > f->r0 ? (int)cdiv(d->R - f->r0, d->sh) : 0;
            f->tu = d->S > f->s0 ? (int)cdiv(d->S - f->s0, d->sw) : 0;
            f->ea = (a + d->ph) / d->sh, f->eb = (b + d->pw) / d->sw;
            f->ha = cdiv(d->H - a, d->sh), f->wb = cdiv(d->W - b, d->sw);
            if (f->tr - 1 - f->ea > p->padT) p->padT = f->tr - 1 - f->ea;
            if (f->tu - 1 - f->eb > p->padL) p->padL = f->tu - 1 - f->eb;
            if (f->ha - 1 + f->ea - (d->P - 1) > padB) padB = f->ha - 1 + f->ea - (d->P - 1);
            if (f->wb - 1 + f->eb - (d->Q - 1) > padR) padR = f->wb - 1 + f->eb - (d->Q - 1);
            if (f->wb > wbmax) wbmax = f->wb;
        }
    p->qp = p->padL + d->Q + padR;
    if (p->qp < wbmax) p->qp = wbmax;
    p->plane = (p->padT + d->P + padB) * p->qp;
    for (int q = 0; q < p->nph; ++q) {
        phase *f = &p->ph[q];
        f->ns = cdiv(f->ha * p->qp, NR);
        f->np = (long)f->tr * f->tu * p->k2;
        f->aoff = p->adw;
        p->adw += (size_t)cdiv(d->C, MR) * MR * f->np;
        f->toff = p->twords;
        p->twords += (size_t)d->C * f->ha * f->wb;
        const long reach = (f->ea + p->padT) * p->qp + f->eb + p->padL + f->ns * NR;
        if (reach > p->plane) p->plane = reach;
    }
    p->plane = (p->plane + 15) / 16 * 16;
    p->tbytes = ((4 * (size_t)p->k2 * p->plane + 2 * p->twords) + 63) & ~(size_t)63;
}

int conv_igemm_phase_pays(dtype_t dt, const conv_dims *d)
{
    if (d->sh > 2 || d->sw > 2 || (d->sh == 1 && d->sw == 1) || d->C < 16 ||
        d->N < 2 * omp_get_max_threads() || !conv_igemm_ok(dt, d) ||
        gemm_lowp_path_of(dt) != LOWP_AVX512BF16)
        return 0;
    plan p;
    plan_make(d, &p);
    for (int q = 0; q < p.nph; ++q)
        if (p.ph[q].np > MAX_PAIRS) return 0;
    return (double)p.k2 * p.plane < INT32_MAX;
}

double conv_igemm_phase_scratch_bytes(dtype_t dt, const conv_dims *d)
{
    plan p;
    (void)dt;
    plan_make(d, &p);
    return 4.0 * p.adw + (double)p.tbytes * omp_get_max_threads();
}

#if defined(__x86_64__)
/* Phase f's filters, 16-row panels over dx's channels c: pair
 * (t*tu + u)*k2 + k of panel pn holds, for row c, the words
 * w[2k][c][r][s] (low) and w[2k + 1][c][r][s] (0 past K), r = r0 + sh*t,
 * s = s0 + sw*u. */
static void pack_phase(const conv_dims *d, const plan *p, const phase *f, long pn,
                       const uint16_t *w, uint32_t *dst)
{
    const long rs = (long)d->R * d->S, crs = (long)d->C * rs;
    uint32_t *o = dst + f->aoff + (size_t)pn * f->np * MR;
    for (int t = 0; t < f->tr; ++t)
        for (int u = 0; u < f->tu; ++u) {
            const long tap = (long)(f->r0 + d->sh * t) * d->S + f->s0 + d->sw * u;
            for (int k = 0; k < p->k2; ++k, o += MR)
                for (int i = 0; i < MR; ++i) {
                    const long c = pn * MR + i;
                    if (c >= d->C) {
                        o[i] = 0;
                        continue;
                    }
                    const uint16_t *a = w + 2L * k * crs + c * rs + tap;
                    o[i] = a[0] | (2 * k + 1 < d->K ? (uint32_t)a[crs] << 16 : 0);
                }
        }
}

/* dx's image from the phase images ph (phase (a, b) at ph + toff: C x ha
 * x wb words): row h of channel c is phase (h % sh, *)'s row h / sh, at
 * stride 2 the two phases' words interleaved. */
TGT static void merge(const conv_dims *d, const plan *p, const uint16_t *ph, uint16_t *dx)
{
    for (int c = 0; c < d->C; ++c)
        for (int h = 0; h < d->H; ++h) {
            const int a = h % d->sh, i = h / d->sh;
            uint16_t *o = dx + ((long)c * d->H + h) * d->W;
            const phase *f0 = &p->ph[a * d->sw];
            const uint16_t *r0 = ph + f0->toff + ((long)c * f0->ha + i) * f0->wb;
            if (d->sw == 1) {
                memcpy(o, r0, 2 * (size_t)d->W);
                continue;
            }
            const phase *f1 = &p->ph[a * d->sw + 1];
            const uint16_t *r1 = ph + f1->toff + ((long)c * f1->ha + i) * f1->wb;
            for (long j = 0; j < f0->wb; j += 32) { /* dx columns 2j .. 2j + 63 */
                const long n0 = f0->wb - j < 32 ? f0->wb - j : 32;
                const long n1 = f1->wb - j < 32 ? (f1->wb - j > 0 ? f1->wb - j : 0) : 32;
                const __m512i v0 = _mm512_maskz_loadu_epi16(
                    (__mmask32)(n0 == 32 ? ~0u : (1u << n0) - 1), r0 + j);
                const __m512i v1 = _mm512_maskz_loadu_epi16(
                    (__mmask32)(n1 == 32 ? ~0u : (1u << n1) - 1), r1 + j);
                __m512i v[2];
                cols_pair_store(v, v0, v1);
                const long nw = d->W - 2 * j; /* dx words left in the row */
                _mm512_mask_storeu_epi16(o + 2 * j, (__mmask32)(nw >= 32 ? ~0u : (1u << nw) - 1),
                                         v[0]);
                if (nw > 32)
                    _mm512_mask_storeu_epi16(o + 2 * j + 32,
                                             (__mmask32)(nw >= 64 ? ~0u : (1u << (nw - 32)) - 1), v[1]);
            }
        }
}

int conv_igemm_phase_bwd_data(dtype_t dt, const conv_dims *d, const void *dy, const void *w,
                              void *dx)
{
    plan p;
    plan_make(d, &p);
    (void)dt;
    uint32_t *Ap = (uint32_t *)gemm_scratch(SLOT_A, 4 * p.adw);
    if (!Ap) {
        err_set("cpu-omp conv: out of memory for the packed filters (%zu bytes)", 4 * p.adw);
        return 1;
    }
    const long panels = cdiv(d->C, MR), pq = (long)d->P * d->Q, chw = (long)d->C * d->H * d->W;
    int failed = 0;
    atomic_int arrived = 0;
#pragma omp parallel
    {
        const int team = omp_get_num_threads();
        char *buf = (char *)gemm_scratch(SLOT_T, p.tbytes);
        if (!buf) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(static) nowait
        for (long it = 0; it < p.nph * panels; ++it)
            pack_phase(d, &p, &p.ph[it / panels], it % panels, w, Ap);
        gemm_yield_barrier(&arrived, team); /* every filter panel is packed */
#pragma omp for schedule(dynamic, 1) nowait
        for (long n = 0; n < d->N; ++n) {
            if (failed) continue;
            uint32_t *planes = (uint32_t *)buf;
            uint16_t *img = (uint16_t *)(planes + (size_t)p.k2 * p.plane);
            const uint16_t *dyn = (const uint16_t *)dy + n * d->K * pq;
            for (int k = 0; k < p.k2; ++k)
                cols_pair_plane(dyn + 2L * k * pq, 2 * k + 1 < d->K ? dyn + (2L * k + 1) * pq : NULL,
                                d->P, d->Q, p.padT, p.padL, p.qp, p.plane, planes + (size_t)k * p.plane);
            for (int q = 0; q < p.nph; ++q) {
                const phase *f = &p.ph[q];
                uint16_t *out = img + f->toff;
                if (!f->np) { /* no tap lands on this phase */
                    memset(out, 0, 2 * (size_t)d->C * f->ha * f->wb);
                    continue;
                }
                int offs[MAX_PAIRS];
                for (int t = 0; t < f->tr; ++t)
                    for (int u = 0; u < f->tu; ++u)
                        for (int k = 0; k < p.k2; ++k)
                            offs[(t * f->tu + u) * p.k2 + k] =
                                (int)(k * p.plane + (f->ea - t + p.padT) * p.qp + f->eb - u + p.padL);
                const conv_dims fd = {.K = d->C, .P = (int)f->ha, .Q = (int)f->wb};
                pw_geom fg = {0};
                fg.wp = p.qp;
                const long cols = f->ha * p.qp, ld = f->ha * f->wb;
                gemm_runs ru;
                for (long s = 0; s < f->ns; ++s) {
                    const long j0 = s * NR;
                    const int wd = (int)(cols - j0 < NR ? cols - j0 : NR);
                    pw_runs(&fd, &fg, 0, j0, wd, &ru);
                    for (long pn = 0; pn < panels; ++pn)
                        gemm_bf16_tile16_at((int)(2 * f->np), Ap + f->aoff + (size_t)pn * f->np * MR,
                                            planes + j0, offs, NULL, &ru, out + pn * MR * ld, ld,
                                            d->C - pn * MR < MR ? (int)(d->C - pn * MR) : MR, wd);
                }
            }
            merge(d, &p, img, (uint16_t *)dx + n * chw);
        }
        gemm_yield_barrier(&arrived, 2 * team);
    }
    if (failed) {
        err_set("cpu-omp conv: out of memory for a thread's copy of dy and phase images (%zu bytes)",
                p.tbytes);
        return 1;
    }
    return 0;
}
#else
int conv_igemm_phase_bwd_data(dtype_t dt, const conv_dims *d, const void *dy, const void *w,
                              void *dx)
{
    (void)dt, (void)d, (void)dy, (void)w, (void)dx;
    err_set("cpu-omp conv: the bf16 phase bwd-data needs x86-64");
    return 1;
}
#endif
