/* cpu/conv_omp_igemm_bwf.c - cpu-omp's bf16 bwd-filter as an implicit GEMM
 * on the vdpbf16ps kernel (conv_omp_igemm.h).
 *
 *   [dw^T; db^T] ((C*R*S + 1) x K) = [col; 1] (C*R*S + 1 x N*P*Q) . dy^T (N*P*Q x K)
 *
 * reduced over every pixel of every image.  vdpbf16ps sums products in
 * pairs along the reduction, so both operands are packed as pairs of
 * consecutive pixels: the A panels (mr = 12 or 16 rows of col: taps of
 * channels; gemm_lowp_kern_bf16_rows picks the tile) hold, per pixel pair,
 * mr dwords (col[i][j], col[i][j + 1]); the B slivers (32
 * filters) hold 32 dwords (dy[k][j], dy[k][j + 1]).  Rows of col and of dy
 * are read 32 pixels at a time in place (conv_omp_cols.h: masked loads, no
 * im2col) and turned into pairs by 16 x 16 dword transposes.  The row of
 * ones under col makes the same tiles sum db.
 *
 * Work items are chunks of pixels: the thread that takes one packs dy's
 * chunk (all filters, BCHUNK_BYTES, kept in its L2), then per A panel packs
 * the panel's rows of the chunk and runs it against every sliver, adding
 * into its own fp32 partial of [dw^T; db^T] (the first chunk stores); the
 * partials are summed and rounded once at the end (conv_sum_partials).  A
 * layer has equal chunks, a multiple of the threads, so a layer whose dy is
 * small (ResNet stage 5) passes its partial (9 MiB there) only a few times.
 */
#include "conv_omp_igemm.h"
#include "conv_omp_cols.h"
#include "conv_omp_dt.h"
#include "errmsg.h"
#include "gemm_omp_impl.h"
#include "gemm_omp_lowp.h"

#include <omp.h>
#include <stdint.h>

#define SLOT SCRATCH_CONV_THREAD /* gemm_scratch: each thread's partial and chunks */
#define BCHUNK_BYTES (512 << 10) /* dy's packed chunk, in the core's L2 */
#define NR 32 /* the vdpbf16ps kernels' sliver (gemm_omp_bf16.c) */

#if defined(__x86_64__) /* row_load (conv_omp_cols.h) is x86-64 only */
/* The sizes of one call. */
typedef struct {
    const gemm_lowp_kern *k; /* its rows per panel: mr (12 or 16) */
    int mr, crs, M, mp; /* rows of col; + the ones row; A panels */
    int K, ns;       /* filters; B slivers */
    long npq, J;     /* pixels; per chunk (a multiple of 32) */
    int nblk;        /* 32-pixel blocks per chunk */
    size_t part, a, b, tabs; /* bytes per thread: partial, A panel, B chunk, loads */
    size_t bytes;            /* their sum: one thread's slot */
} bwf_plan;

static void plan_make(const conv_dims *d, int nt, bwf_plan *p)
{
    p->crs = d->C * d->R * d->S;
    p->M = p->crs + 1;
    /* 16-row panels where they fit M better or the filters fill only half a
     * sliver (that tile skips an empty half; cnn-conv1's 16 filters) */
    p->k = d->K <= 16 ? gemm_lowp_kern_bf16_rows(16) : gemm_lowp_kern_bf16_rows(p->M);
    p->mr = p->k->mr;
    p->mp = (p->M + p->mr - 1) / p->mr;
    p->K = d->K;
    p->ns = (d->K + NR - 1) / NR;
    p->npq = (long)d->N * d->P * d->Q;
    /* equal chunks of at most cap pixels, a multiple of nt of them */
    long cap = BCHUNK_BYTES / (2L * NR * p->ns) / 32 * 32;
    if (cap < 32) cap = 32;
    long nch = (p->npq + cap - 1) / cap;
    nch = (nch + nt - 1) / nt * nt;
    p->J = ((p->npq + nch - 1) / nch + 31) / 32 * 32;
    p->nblk = (int)(p->J / 32);
    p->part = ((size_t)p->M * p->K * 4 + 63) & ~(size_t)63;
    p->a = (size_t)p->mr * p->J * 2;
    p->b = (size_t)p->ns * NR * p->J * 2;
    p->tabs = (size_t)p->nblk * (sizeof(row_load) * 32 * d->R * d->S + sizeof(int) * (d->R * d->S + 1));
    p->bytes = p->part + p->a + p->b + p->tabs;
}

double conv_igemm_bwf_scratch_bytes(dtype_t dt, const conv_dims *d)
{
    (void)dt;
    bwf_plan p;
    const int nt = omp_get_max_threads();
    plan_make(d, nt, &p);
    return (double)nt * p.bytes;
}

/* dy's pixels [j0, j0 + jn) of every filter, as B slivers of J pixels
 * (pairs past jn zero): sliver s, pair kk at dst + (s*J/2 + kk)*64 words. */
TGT static void pack_dy(const conv_dims *d, const bwf_plan *p, const uint16_t *dy, long j0,
                        long jn, uint16_t *dst)
{
    const conv_dims dd = cols_dy_dims(d);
    const col_src src = {&dd, dy};
    const long pq = (long)d->P * d->Q;
    for (int b = 0; b < p->nblk; ++b) {
        run ru[32];
        row_load tab[32];
        const long jb = j0 + 32L * b;
        const int nr = jb < j0 + jn ? runs_of(&dd, jb, j0 + jn, ru) : 0;
        const int nl = loads_of(&dd, ru, nr, 0, 0, tab);
        for (int s = 0; s < p->ns; ++s) {
            __m512i r[32];
            for (int k = 0; k < 32; ++k)
                r[k] = s * NR + k < p->K ? row_of(&src, tab, nl, (long)(s * NR + k) * pq)
                                         : _mm512_setzero_si512();
            cols_tr16(r);
            if (s * NR + 16 < p->K) cols_tr16(r + 16); /* else zeros (cnn-conv1's 16 filters) */
            __m512i *o = (__m512i *)(dst + ((size_t)s * (p->J / 2) + 16 * b) * 64);
            for (int kk = 0; kk < 16; ++kk) {
                o[2 * kk] = r[kk];
                o[2 * kk + 1] = r[16 + kk];
            }
        }
    }
}

/* The loads of every tap of every 32-pixel block of the chunk at j0, packed
 * one after another in tab (room for the worst case, 32 runs a tap; only
 * what is used is touched): block b's tap t from start[b*(rs + 1) + t] to
 * the next. */
TGT static void chunk_loads(const conv_dims *d, const bwf_plan *p, long j0, long jn,
                            row_load *tab, int *start)
{
    const int rs = d->R * d->S;
    int at = 0;
    for (int b = 0; b < p->nblk; ++b) {
        run ru[32];
        const long jb = j0 + 32L * b;
        const int nr = jb < j0 + jn ? runs_of(d, jb, j0 + jn, ru) : 0;
        int *st = start + (size_t)b * (rs + 1);
        for (int t = 0; t < rs; ++t) {
            st[t] = at;
            at += loads_of(d, ru, nr, t / d->S, t % d->S, tab + at);
        }
        st[rs] = at;
    }
}

/* A panel pn (rows mr*pn .. of [col; 1]) of the chunk's pixels [j0, j0 + jn)
 * into dst: pair kk's mr dwords at dst + kk*2*mr words. */
TGT static void pack_col(const conv_dims *d, const bwf_plan *p, const uint16_t *x, int pn,
                         long jn, const row_load *tab, const int *start, uint16_t *dst)
{
    const col_src src = {d, x};
    const int rs = d->R * d->S;
    const long hw = (long)d->H * d->W;
    const int mr = p->mr, i0 = pn * mr;
    for (int b = 0; b < p->nblk; ++b) {
        const int *st = start + (size_t)b * (rs + 1);
        const long left = jn - 32L * b; /* pixels of this block in the chunk */
        const __mmask32 valid = left >= 32 ? ~(__mmask32)0 : left > 0 ? (__mmask32)((1u << left) - 1) : 0;
        __m512i r[16];
        int c = i0 / rs, t = i0 % rs;
        for (int i = 0; i < 16; ++i) {
            const int row = i0 + i;
            if (i >= mr || row > p->crs) r[i] = _mm512_setzero_si512();
            else if (row == p->crs) r[i] = _mm512_maskz_mov_epi16(valid, _mm512_set1_epi16(0x3F80));
            else r[i] = row_of(&src, tab + st[t], st[t + 1] - st[t], c * hw);
            if (++t == rs) t = 0, ++c;
        }
        cols_tr16(r);
        uint32_t *o = (uint32_t *)dst + (size_t)16 * b * mr;
        const __mmask16 keep = (__mmask16)((1u << mr) - 1);
        for (int kk = 0; kk < 16; ++kk) _mm512_mask_storeu_epi32(o + kk * mr, keep, r[kk]);
    }
}

int conv_igemm_bwd_filter(dtype_t dt, const conv_dims *d, const void *x, const void *dy,
                          void *dw, void *db)
{
    const int path = gemm_lowp_path_of(dt);
    if (path != LOWP_AVX512BF16) {
        err_set("cpu-omp conv: the implicit bwd-filter needs the vdpbf16ps path");
        return 1;
    }
    const int nt = omp_get_max_threads();
    bwf_plan p;
    plan_make(d, nt, &p);
    const gemm_lowp_kern *k = p.k;
    const long nch = (p.npq + p.J - 1) / p.J;
    const int rs = d->R * d->S;
    float *part[nt]; /* each thread's partial; NULL: it took no chunk */
    for (int t = 0; t < nt; ++t) part[t] = NULL;
    int failed = 0;
    atomic_int arrived = 0;
#pragma omp parallel num_threads(nt)
    {
        const int me = omp_get_thread_num();
        char *buf = (char *)gemm_scratch(SLOT, p.bytes);
        if (!buf) {
#pragma omp atomic write
            failed = 1;
        }
        float *mine = (float *)buf;
        uint16_t *ap = (uint16_t *)(buf + p.part), *bp = (uint16_t *)(buf + p.part + p.a);
        row_load *tab = (row_load *)(buf + p.part + p.a + p.b);
        int *start = (int *)((char *)tab + (size_t)p.nblk * sizeof(row_load) * 32 * rs);
#pragma omp for schedule(dynamic, 1) nowait
        for (long ch = 0; ch < nch; ++ch) {
            if (failed) continue;
            const long j0 = ch * p.J, jn = p.npq - j0 < p.J ? p.npq - j0 : p.J;
            const gemm_lowp_cmode cm = part[me] ? LOWP_C_F32_ADD : LOWP_C_F32;
            pack_dy(d, &p, dy, j0, jn, bp);
            chunk_loads(d, &p, j0, jn, tab, start);
            for (int pn = 0; pn < p.mp; ++pn) {
                pack_col(d, &p, x, pn, jn, tab, start, ap);
                const int h = p.M - pn * p.mr < p.mr ? p.M - pn * p.mr : p.mr;
                for (int s = 0; s < p.ns; ++s)
                    k->tile(dt, (int)p.J, ap, bp + (size_t)s * (p.J / 2) * 64, NULL, cm,
                            mine + (size_t)pn * p.mr * p.K + s * NR, p.K, h,
                            p.K - s * NR < NR ? p.K - s * NR : NR);
            }
            part[me] = mine;
        }
        omp_team_end(&arrived);
    }
    if (failed) {
        err_set("cpu-omp conv: out of memory for the bf16 bwd-filter's chunks (%zu bytes a thread)",
                p.bytes);
        return 1;
    }
    conv_sum_partials(dt, part, nt, p.K, p.crs, 1, p.K, dw, db);
    return 0;
}
#else /* not x86-64: conv_igemm_bwf_ok is 0 (no AVX-512), nothing is kept */
double conv_igemm_bwf_scratch_bytes(dtype_t dt, const conv_dims *d)
{
    (void)dt, (void)d;
    return 0;
}

int conv_igemm_bwd_filter(dtype_t dt, const conv_dims *d, const void *x, const void *dy,
                          void *dw, void *db)
{
    (void)dt, (void)d, (void)x, (void)dy, (void)dw, (void)db;
    err_set("cpu-omp conv: the implicit bwd-filter needs x86-64");
    return 1;
}
#endif
