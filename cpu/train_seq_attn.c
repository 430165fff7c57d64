/* cpu/train_seq_attn.c - causal attention's softmax and its backward (cpu/train_seq.h; the GPU's is kernels/train_seq_attn.cu;
 * shared set-up and the measurements: cpu/train_seq_impl.h). */
#include "train_seq_impl.h"
#include "omp_team.h"

/* Attention's softmax, rows r0..r1 of t + 1 live scores each, then zeros
 * (p may be z: each z[s] is read before p[s] is written). The exponent is
 * scale (z - zx), zx the z that maximises scale z (the max of z, or its min
 * when scale < 0): z - zx loses nothing where it matters, whereas the
 * product scale z, rounded before the max is taken off, would carry an
 * error of half an ulp of |scale z| into every p (3e-5 relative at scores
 * of 500). A row's t is counted along, not taken as r % T (a 64-bit
 * division a row cost 50 us in 190). */
static void softmax_rows(long r0, long r1, int T, float scale, const float *z, float *p)
{
    for (long r = r0, t = r0 % T; r < r1; r++, t = t + 1 < T ? t + 1 : 0) {
        const float *zr = z + r * T;
        float *pr = p + r * T;
        float zx = zr[0];
        if (scale >= 0.0f) {
#pragma omp simd reduction(max : zx)
            for (int s = 1; s <= t; s++) zx = zr[s] > zx ? zr[s] : zx;
        } else {
#pragma omp simd reduction(min : zx)
            for (int s = 1; s <= t; s++) zx = zr[s] < zx ? zr[s] : zx;
        }
        float sum = 0.0f;
#pragma omp simd reduction(+ : sum)
        for (int s = 0; s <= t; s++) {
            const float e = vm_exp_neg(scale * (zr[s] - zx));
            pr[s] = e;
            sum += e;
        }
        const float inv = 1.0f / sum;
#pragma omp simd
        for (int s = 0; s <= t; s++) pr[s] *= inv;
        for (int s = t + 1; s < T; s++) pr[s] = 0.0f;
    }
}

/* The same for T a multiple of VB: each row in whole blocks of VB lanes
 * (the lanes beyond t read z, whatever it holds, and are selected away),
 * per-lane max and sum in registers: no scalar remainder and no horizontal
 * reduction per loop, which rows of every length from 1 to T made the
 * bulk of the time (2048 rows of 64, 1 thread: 174 us -> 97). */
#define VB 16
SEQ_CLONES static void softmax_rows_vb(long r0, long r1, int T, float scale, const float *z,
                                       float *p)
{
    const float sgn = scale >= 0.0f ? 1.0f : -1.0f;
    for (long r = r0, t = r0 % T; r < r1; r++, t = t + 1 < T ? t + 1 : 0) {
        const int nb = (int)t / VB + 1;
        const float *zr = z + r * T;
        float *pr = p + r * T;
        float mv[VB], sv[VB]; /* by lane: max of sgn z over s <= t, sum */
        for (int j = 0; j < VB; j++) mv[j] = -INFINITY, sv[j] = 0.0f;
        for (int b = 0; b < nb; b++)
#pragma omp simd
            for (int j = 0; j < VB; j++) {
                const float v = b * VB + j <= t ? sgn * zr[b * VB + j] : -INFINITY;
                mv[j] = v > mv[j] ? v : mv[j];
            }
        float m = mv[0];
        for (int j = 1; j < VB; j++) m = mv[j] > m ? mv[j] : m;
        const float zx = sgn * m;
        for (int b = 0; b < nb; b++)
#pragma omp simd
            for (int j = 0; j < VB; j++) {
                const float e = vm_exp_neg(scale * (zr[b * VB + j] - zx));
                pr[b * VB + j] = b * VB + j <= t ? e : 0.0f;
                sv[j] += pr[b * VB + j];
            }
        float sum = 0.0f;
        for (int j = 0; j < VB; j++) sum += sv[j];
        const float inv = 1.0f / sum;
        for (int b = 0; b < nb; b++)
#pragma omp simd
            for (int j = 0; j < VB; j++) pr[b * VB + j] *= inv;
        for (int s = nb * VB; s < T; s++) pr[s] = 0.0f;
    }
}

int train_seq_attn_softmax(long rows, int T, float scale, const float *z, float *p, void *stream)
{
    (void)stream;
    if (train_attn_args(WHO, "attn_softmax", rows, T)) return 1;
    const long rb = SPAN / T > 0 ? SPAN / T : 1; /* rows a block */
    atomic_int arrived = 0;
#pragma omp parallel if (parallel : rows * T >= 2 * PAR_MIN_MATH)
    {
#pragma omp for schedule(static) nowait
        for (long r0 = 0; r0 < rows; r0 += rb) {
            if (T % VB == 0) softmax_rows_vb(r0, min_l(r0 + rb, rows), T, scale, z, p);
            else softmax_rows(r0, min_l(r0 + rb, rows), T, scale, z, p);
        }
        omp_team_end(&arrived);
    }
    return 0;
}

/* Its backward, rows r0..r1 (dz may be dp: the row's dot product is taken
 * before dz is written). Not cloned: the baseline's 4 lanes beat AVX-512's
 * 16 on rows this short (2048 rows of 64: 29 us against 38 and 41 for the
 * blocks of softmax_rows_vb). */
static void softmax_bwd_rows(long r0, long r1, int T, float scale, const float *p,
                             const float *dp, float *dz)
{
    for (long r = r0, t = r0 % T; r < r1; r++, t = t + 1 < T ? t + 1 : 0) {
        const float *pr = p + r * T, *gr = dp + r * T;
        float *dr = dz + r * T;
        float dot = 0.0f;
#pragma omp simd reduction(+ : dot)
        for (int s = 0; s <= t; s++) dot += pr[s] * gr[s];
#pragma omp simd
        for (int s = 0; s <= t; s++) dr[s] = scale * pr[s] * (gr[s] - dot);
        for (int s = t + 1; s < T; s++) dr[s] = 0.0f;
    }
}

int train_seq_attn_softmax_bwd(long rows, int T, float scale, const float *p, const float *dp,
                               float *dz, void *stream)
{
    (void)stream;
    if (train_attn_args(WHO, "attn_softmax_bwd", rows, T)) return 1;
    const long rb = SPAN / T > 0 ? SPAN / T : 1;
    atomic_int arrived = 0;
#pragma omp parallel if (parallel : rows * T >= PAR_MIN)
    {
#pragma omp for schedule(static) nowait
        for (long r0 = 0; r0 < rows; r0 += rb)
            softmax_bwd_rows(r0, min_l(r0 + rb, rows), T, scale, p, dp, dz);
        omp_team_end(&arrived);
    }
    return 0;
}
