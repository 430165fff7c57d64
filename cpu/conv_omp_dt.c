/* cpu/conv_omp_dt.c - cpu-omp convolution's dtype plumbing and its widened
 * route for small stride-1 layers at bf16 / fp16 (conv_omp_dt.h). */
#include "conv_omp_dt.h"
#include "conv_omp_direct.h"
#include "errmsg.h"
#include "gemm_cpu.h"
#include "gemm_omp_impl.h"
#include "gemm_omp_lowp.h"

#include <string.h>

#define SLOT SCRATCH_CONV_WIDE

int conv_gemm_bias(dtype_t dt, int M, int N, int K, const void *A, int lda, const void *B,
                   int ldb, const float *bias, void *C, int ldc)
{
    if (dt != DTYPE_FP32) return gemm_lowp_ex(dt, M, N, K, A, lda, B, ldb, bias, LOWP_C_DT, C, ldc);
    float *c = C;
    if (gemm_cpu_omp(M, N, K, 1.0f, A, lda, B, ldb, 0.0f, c, ldc)) return 1;
    if (bias)
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) c[(long)i * ldc + j] += bias[i];
    return 0;
}

int conv_gemm_f32(dtype_t dt, int add, int M, int N, int K, const void *A, int lda,
                  const void *B, int ldb, float *C, int ldc)
{
    if (dt == DTYPE_FP32)
        return gemm_cpu_omp(M, N, K, 1.0f, A, lda, B, ldb, add ? 1.0f : 0.0f, C, ldc);
    return gemm_lowp_ex(dt, M, N, K, A, lda, B, ldb, NULL, add ? LOWP_C_F32_ADD : LOWP_C_F32, C,
                        ldc);
}

void conv_store(dtype_t dt, const float *src, void *dst, long off, long n)
{
    if (dt == DTYPE_FP32) memcpy((float *)dst + off, src, sizeof(float) * (size_t)n);
    else gemm_lowp_narrow(dt, src, (uint16_t *)dst + off, n);
}

void conv_widen(dtype_t dt, const void *src, float *dst, long n)
{
    if (dt == DTYPE_FP32) memcpy(dst, src, sizeof(float) * (size_t)n);
    else gemm_lowp_widen(dt, src, dst, n);
}

/* dw[k][i] = the sum over the np partials of element (k, i) (at k*sk + i*si)
 * and db[k] of element crs*K + k, each rounded once to dt.  Blocks of
 * KB x IB elements, summed along whichever of k and i is contiguous in the
 * partials (one is: sk == 1 or si == 1) so that the loads vectorise, then
 * stored a row of dw at a time: reading a transposed partial element by
 * element along i had cost the bf16 bwd-filter of ResNet stage 5 a fifth
 * of its time (perf). */
void conv_sum_partials(dtype_t dt, float *const *part, int np, long K, long crs, long sk,
                       long si, void *dw, void *db)
{
    enum { KB = 16, IB = 64 };
    const long nkb = (K + KB - 1) / KB, nib = (crs + IB - 1) / IB;
    atomic_int arrived = 0;
#pragma omp parallel
    {
#pragma omp for schedule(static) nowait
        for (long blk = 0; blk < nkb * nib; blk++) {
            const long k0 = blk / nib * KB, i0 = blk % nib * IB;
            const long kn = K - k0 < KB ? K - k0 : KB, in = crs - i0 < IB ? crs - i0 : IB;
            /* u[i*KB + k] when k is contiguous (sk == 1), else u[k*IB + i] */
            float u[KB * IB], row[IB];
            const long ek = sk == 1 ? 1 : IB, ei = sk == 1 ? KB : 1;
            for (long e = 0; e < KB * IB; e++) u[e] = 0.0f;
            for (int q = 0; q < np; q++) {
                const float *p = part[q];
                if (!p) continue;
                if (sk == 1)
                    for (long i = 0; i < in; i++)
                        for (long k = 0; k < kn; k++) u[i * KB + k] += p[k0 + k + (i0 + i) * si];
                else
                    for (long k = 0; k < kn; k++)
                        for (long i = 0; i < in; i++) u[k * IB + i] += p[(k0 + k) * sk + i0 + i];
            }
            for (long k = 0; k < kn; k++) {
                for (long i = 0; i < in; i++) row[i] = u[k * ek + i * ei];
                conv_store(dt, row, dw, (k0 + k) * crs + i0, in);
            }
        }
        omp_team_end(&arrived);
    }
    for (long k = 0; k < K; k++) {
        float s = 0.0f;
        for (int q = 0; q < np; q++) s += part[q] ? part[q][crs * K + k] : 0.0f;
        conv_store(dt, &s, db, k, 1);
    }
}

float *conv_dt_scratch(size_t bytes, const char *what)
{
    float *p = gemm_scratch(SLOT, bytes);
    if (!p) err_set("cpu-omp conv: out of memory for %s (%zu bytes)", what, bytes);
    return p;
}

/* ---- the widened route ---------------------------------------------------- */

/* Floats of each widened tensor, 16-aligned, in the order they are laid out
 * in the slot: the inputs, then the outputs. */
static long al(long long n) { return (long)((n + 15) & ~15LL); }

double conv_widen_bytes(const conv_dims *d, conv_dir dir)
{
    const long x = al(conv_x_elems(d)), w = al(conv_w_elems(d)), y = al(conv_y_elems(d));
    const long k = al(d->K);
    if (dir == CONV_FWD) return 4.0 * (x + w + k + y);
    if (dir == CONV_BWD_DATA) return 4.0 * (y + w + x);
    return 4.0 * (x + y + w + k);
}

/* Widens the inputs (n[i] elements of in[i]) into the slot and returns it;
 * outputs follow at the offsets the same al() sizes give. */
static float *widen_all(dtype_t dt, const conv_dims *d, conv_dir dir, const void *const *in,
                        const long *n, int nin)
{
    float *f = conv_dt_scratch((size_t)conv_widen_bytes(d, dir), "the widened fp32 copies");
    if (!f) return NULL;
    long off = 0;
    for (int i = 0; i < nin; i++) {
        conv_widen(dt, in[i], f + off, n[i]);
        off += al(n[i]);
    }
    return f;
}

int conv_widen_fwd(dtype_t dt, const conv_dims *d, const void *x, const void *w, const void *b,
                   void *y)
{
    const long n[3] = {(long)conv_x_elems(d), (long)conv_w_elems(d), d->K};
    const void *in[3] = {x, w, b};
    float *f = widen_all(dt, d, CONV_FWD, in, n, 3);
    if (!f) return 1;
    float *fx = f, *fw = fx + al(n[0]), *fb = fw + al(n[1]), *fy = fb + al(n[2]);
    if (conv_direct_fwd(d, fx, fw, fb, fy)) return 1;
    conv_store(dt, fy, y, 0, (long)conv_y_elems(d));
    return 0;
}

int conv_widen_bwd_data(dtype_t dt, const conv_dims *d, const void *dy, const void *w, void *dx)
{
    const long n[2] = {(long)conv_y_elems(d), (long)conv_w_elems(d)};
    const void *in[2] = {dy, w};
    float *f = widen_all(dt, d, CONV_BWD_DATA, in, n, 2);
    if (!f) return 1;
    float *fdy = f, *fw = fdy + al(n[0]), *fdx = fw + al(n[1]);
    if (conv_direct_bwd_data(d, fdy, fw, fdx)) return 1;
    conv_store(dt, fdx, dx, 0, (long)conv_x_elems(d));
    return 0;
}

int conv_widen_bwd_filter(dtype_t dt, const conv_dims *d, const void *x, const void *dy,
                          void *dw, void *db)
{
    const long n[2] = {(long)conv_x_elems(d), (long)conv_y_elems(d)};
    const void *in[2] = {x, dy};
    float *f = widen_all(dt, d, CONV_BWD_FILTER, in, n, 2);
    if (!f) return 1;
    float *fx = f, *fdy = fx + al(n[0]), *fdw = fdy + al(n[1]);
    float *fdb = fdw + al(conv_w_elems(d));
    if (conv_direct_bwd_filter(d, fx, fdy, fdw, fdb)) return 1;
    conv_store(dt, fdw, dw, 0, (long)conv_w_elems(d));
    conv_store(dt, fdb, db, 0, d->K);
    return 0;
}
