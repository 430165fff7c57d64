/* cpu/conv_omp_igemm.c - cpu-omp's bf16 convolution as an implicit GEMM on
 * the vdpbf16ps / AMX kernels (conv_omp_igemm.h).
 *
 * The forward convolution of all N images is one product
 *   y (K x N*P*Q) = w (K x C*R*S) . col (C*R*S x N*P*Q)
 * whose columns are never built: they are packed straight from x into the
 * kernels' K-pair layout (for each pair of rows 2kk, 2kk + 1 of col and 32
 * columns j, the words col[2kk][j], col[2kk + 1][j]), the filters are packed
 * once per call (gemm_lowp_pack_a), and the tiles store into y's images as
 * column segments of P*Q (gemm_lowp_tile_seg).  This replaces, per image or
 * image group, an im2col pass, the GEMM's own copy of those columns and a
 * repacking of the whole filter matrix (perf, bf16 at 2 threads: ResNet-50
 * stage 2 3x3 spent 21 % in im2col and 6 % packing B, stage 5 16 % in
 * im2col and 11 % packing the filters).
 *
 * The columns are read 32 at a time by masked loads (conv_omp_cols.h);
 * gathers were tried first: 40 % of the time at stage 2 (vpgatherdd, ~40
 * cycles each here).  Each pair of rows becomes the kernels' 64 words by
 * two word permutes.
 *
 * Threads: work items are groups of slivers (GROUP_BYTES of packed columns,
 * in the core's L2), each packed by the thread that takes it into its own
 * buffer and multiplied there by every filter panel, so no thread waits for
 * another's packing; the blocked GEMM's shared panel (gemm_job_run) needs a
 * barrier per panel and, at K = 64 filters, left the packed columns in L3
 * (measured 0.67 against 0.69 of oneDNN with groups, before the loads were
 * hoisted out of the channel loop).
 */
#include "conv_omp_igemm.h"
#include "conv_omp_cols.h"
#include "errmsg.h"
#include "gemm_omp_impl.h"
#include "gemm_omp_lowp.h"

#include <omp.h>
#include <stdint.h>

#define SLOT SCRATCH_CONV_PACK16

#if defined(__x86_64__)
/* Slivers [0, ns) (32 columns each, Kp rows: pairs past K zero) of col's
 * columns [jc, jc + nc) into dst in the kernels' pair layout. */
TGT static void pack_fwd(const col_src *f, int K, int Kp, long jc, long nc, void *dst, int ns)
{
    const conv_dims *d = f->d;
    const long hw = (long)d->H * d->W;
    const int rs = d->R * d->S;
    for (int s = 0; s < ns; ++s) {
        run ru[32];
        row_load tab[MAX_LOADS];
        int start[MAX_LOADS + 1];
        const int nr = runs_of(d, jc + 32L * s, jc + nc, ru);
        start[0] = 0;
        for (int t = 0; t < rs; ++t)
            start[t + 1] = start[t] + loads_of(d, ru, nr, t / d->S, t % d->S, tab + start[t]);
        __m512i *o = (__m512i *)((uint16_t *)dst + (size_t)s * 32 * Kp);
        int c = 0, t = 0; /* the channel and tap of the next row */
        for (int kk = 0; kk < Kp / 2; ++kk, o += 2) {
            __m512i r[2] = {_mm512_setzero_si512(), _mm512_setzero_si512()};
            for (int h = 0; h < 2 && 2 * kk + h < K; ++h) {
                r[h] = row_of(f, tab + start[t], start[t + 1] - start[t], c * hw);
                if (++t == rs) t = 0, ++c;
            }
            cols_pair_store(o, r[0], r[1]);
        }
    }
}

static int simd_ok(void)
{
    return __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("bmi2");
}
#else
static void pack_fwd(const col_src *f, int K, int Kp, long jc, long nc, void *dst, int ns)
{
    (void)f, (void)K, (void)Kp, (void)jc, (void)nc, (void)dst, (void)ns;
}
static int simd_ok(void) { return 0; }
#endif

void conv_igemm_pack_taps(const conv_dims *d, int mr, const uint16_t *w, uint32_t *dst)
{
    const int M = d->K, C = d->C, rs = d->R * d->S, np = (M + mr - 1) / mr;
    const size_t panel = (size_t)rs * ((C + 1) / 2) * mr;
    atomic_int arrived = 0;
#pragma omp parallel if (np > 1)
    {
#pragma omp for schedule(static) nowait
        for (int p = 0; p < np; ++p) {
            uint32_t *o = dst + (size_t)p * panel;
            const int h = M - p * mr < mr ? M - p * mr : mr;
            for (int t = 0; t < rs; ++t)
                for (int c = 0; c < C; c += 2, o += mr) {
                    int i = 0;
                    for (; i < h; ++i) {
                        const uint16_t *a = w + ((size_t)(p * mr + i) * C + c) * rs + t;
                        o[i] = a[0] | (c + 1 < C ? (uint32_t)a[rs] << 16 : 0);
                    }
                    for (; i < mr; ++i) o[i] = 0;
                }
        }
        omp_team_end(&arrived);
    }
}

int conv_igemm_ok(dtype_t dt, const conv_dims *d)
{
    if (dt != DTYPE_BF16 || !simd_ok()) return 0;
    const int path = gemm_lowp_path_of(dt);
    if (path != LOWP_AVX512BF16 && path != LOWP_AMX) return 0;
    /* strides the loads take; a sliver's loads on the stack; columns and
     * rows counted in int */
    return d->sw <= 2 && 32L * d->R * d->S <= MAX_LOADS && (double)d->N * d->P * d->Q < INT32_MAX &&
           (double)d->C * d->R * d->S < INT32_MAX;
}

int conv_igemm_bwf_ok(dtype_t dt, const conv_dims *d)
{
    return conv_igemm_ok(dt, d) && gemm_lowp_path_of(dt) == LOWP_AVX512BF16;
}

/* Bytes of packed B a thread keeps in its L2 while the A panels stream
 * past: a group of whole slivers. */
#define GROUP_BYTES (512 * 1024)

/* The kernel for the product of d's K filters on path: the vdpbf16ps one
 * whose panels fit K best, or AMX's. */
static const gemm_lowp_kern *kern_for(int path, const conv_dims *d)
{
    return path == LOWP_AVX512BF16 ? gemm_lowp_kern_bf16_rows(d->K) : gemm_lowp_kern_of(path);
}

double conv_igemm_scratch_bytes(dtype_t dt, const conv_dims *d)
{
    const int path = gemm_lowp_path_of(dt);
    if (path < 0) return 0;
    const gemm_lowp_kern *k = kern_for(path, d);
    const int crs = d->C * d->R * d->S;
    const double sliver = (double)k->nr * gemm_lowp_kp(k, crs) * k->esize;
    return (double)gemm_lowp_packed_a_bytes(k, d->K, crs) +
           omp_get_max_threads() * (sliver > GROUP_BYTES ? sliver : GROUP_BYTES);
}

/* y (K filters x N*P*Q columns, image n's at y + n*K*P*Q) = Ap . col,
 * rounded once from bias + the sum; col's slivers packed from f in groups
 * (see the top) into the taking thread's gemm_scratch slot 0. */
static int run_groups(const gemm_lowp_kern *k, dtype_t dt, const col_src *f, const void *Ap,
                      const float *bias, void *y)
{
    const conv_dims *d = f->d;
    const int M = d->K, K = d->C * d->R * d->S, Kp = gemm_lowp_kp(k, K), MR = k->mr, NR = k->nr;
    const long pq = (long)d->P * d->Q, ncols = d->N * pq;
    const size_t sliver = (size_t)NR * Kp * k->esize, apanel = (size_t)MR * Kp * k->esize;
    int gs = (int)(GROUP_BYTES / sliver);
    if (gs < 1) gs = 1;
    const long ns = (ncols + NR - 1) / NR, ng = (ns + gs - 1) / gs;
    const int nt = 2.0 * M * ncols * K < GEMM_SERIAL_FLOPS ? 1 : omp_get_max_threads();
    int failed = 0;
    atomic_int arrived = 0;
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        char *bp = (char *)gemm_scratch(SCRATCH_PANELS, sliver * (size_t)gs);
        if (!bp) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic, 1) nowait
        for (long g = 0; g < ng; ++g) {
            if (failed) continue;
            const long j0 = g * gs * NR, nc = ncols - j0 < (long)gs * NR ? ncols - j0 : (long)gs * NR;
            const int nsg = (int)((nc + NR - 1) / NR);
            pack_fwd(f, K, Kp, j0, nc, bp, nsg);
            for (int ir = 0; ir < M; ir += MR)
                for (int s = 0; s < nsg; ++s)
                    gemm_lowp_tile_seg(k, dt, Kp, (const char *)Ap + (size_t)(ir / MR) * apanel,
                                       bp + (size_t)s * sliver, bias ? bias + ir : NULL,
                                       LOWP_C_DT, y, pq, pq, M * pq, ir, j0 + (long)s * NR,
                                       M - ir < MR ? M - ir : MR,
                                       (int)(nc - s * NR < NR ? nc - s * NR : NR));
        }
        omp_team_end(&arrived);
    }
    if (failed) err_set("cpu-omp conv: out of memory for the packed columns (%zu bytes)",
                        sliver * (size_t)gs);
    return failed;
}

int conv_igemm_fwd(dtype_t dt, const conv_dims *d, const void *x, const void *w, const float *b,
                   void *y)
{
    const int path = gemm_lowp_path_of(dt);
    if (path < 0) return 1;
    const int crs = d->C * d->R * d->S;
    const gemm_lowp_kern *k = kern_for(path, d);
    const size_t abytes = gemm_lowp_packed_a_bytes(k, d->K, crs);
    void *Ap = gemm_scratch(SLOT, abytes);
    if (!Ap) {
        err_set("cpu-omp conv: out of memory for the packed filters (%zu bytes)", abytes);
        return 1;
    }
    gemm_lowp_pack_a(k, dt, d->K, crs, w, crs, Ap);
    const col_src f = {d, x};
    return run_groups(k, dt, &f, Ap, b, y);
}
