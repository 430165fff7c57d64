/* cpu/train_vmath.h - exp, sigmoid and tanh in fp32 for SIMD loops (the
 * optimised training ops, cpu/train_seq_<op>.c): branch-free, no libm call, so a
 * `#pragma omp simd` loop that uses them vectorises (libm's expf / tanhf are
 * scalar calls: tanhf alone took ~15 ns an element). Internal to cpu/.
 *
 * Every caller needs e^x only for x <= 0 (softmax after its max, sigmoid
 * and tanh of -|x|), so one reduction serves: x = k ln2 + r, |r| <= ln2/2,
 * k = round(x / ln2) (the 1.5 * 2^23 trick: no rounding instruction, and k
 * lands in the low bits of the sum, so 2^k is built with unsigned integer
 * arithmetic, no float-to-int conversion that NaN would make undefined);
 * r by a two-part ln2 (Cody-Waite); e^r - 1 by its Taylor series to r^7
 * (remainder < 5.2e-9 relative to r, ~0.2 ulp); then
 *   e^x     = 2^k (1 + p)            (vm_exp_neg)
 *   e^x - 1 = 2^k p + (2^k - 1)      (vm_expm1_neg; no cancellation near 0)
 * x is clamped to [-87, 0] (2^k stays normal): e^x below e^-87 = 1.6e-38
 * comes out as 1.6e-38, which no caller can tell from 0, and a positive x
 * (a lane a caller computes and then discards) as 1. NaN stays NaN.
 * Measured against libm in double (every float of [-87, 0] for e^x and
 * e^x - 1, steps of 1e-5 over [-20, 20] for sigmoid, 1 - sigmoid and tanh,
 * plus tanh near 0): e^x 1.02 ulp, e^x - 1 0.90, sigmoid 2.8, 1 - sigmoid
 * 2.6, tanh 2.5 at most. tests/cpu/train_seq_test.c compares whole ops with
 * the reference.
 */
#ifndef CPU_TRAIN_VMATH_H
#define CPU_TRAIN_VMATH_H

#define VM_LOG2E 1.44269504088896341f
#define VM_LN2_HI 0.693145751953125f          /* ln 2's top 16 bits: k * this is exact */
#define VM_LN2_LO 1.428606765330187045e-06f   /* ln 2 - VM_LN2_HI */
#define VM_ROUND 12582912.0f                  /* 1.5 * 2^23: (v + it) - it rounds v */
#define VM_ROUND_BITS 0x4B400000u             /* its bits: k + it has bits it + k */

/* x = k ln2 + r, x clamped to [-87, 0]: returns 2^k and r (via *r). */
static inline float vm_reduce(float x, float *r)
{
    x = x < -87.0f ? -87.0f : x;
    x = x > 0.0f ? 0.0f : x;
    const float kr = x * VM_LOG2E + VM_ROUND; /* -126 <= k <= 0 */
    const float k = kr - VM_ROUND;
    *r = (x - k * VM_LN2_HI) - k * VM_LN2_LO;
    union { float f; unsigned u; } in = {kr}, out;
    out.u = (in.u - VM_ROUND_BITS + 127u) << 23; /* the exponent field of 2^k */
    return out.f;
}

/* e^r - 1 for |r| <= ln2/2 (Taylor to r^7). */
static inline float vm_expm1_r(float r)
{
    float q = 1.0f / 5040.0f;
    q = q * r + 1.0f / 720.0f;
    q = q * r + 1.0f / 120.0f;
    q = q * r + 1.0f / 24.0f;
    q = q * r + 1.0f / 6.0f;
    q = q * r + 0.5f;
    return r + r * r * q;
}

/* e^x for x <= 0. */
static inline float vm_exp_neg(float x)
{
    float r;
    const float s = vm_reduce(x, &r);
    return s * (1.0f + vm_expm1_r(r));
}

/* e^x - 1 for x <= 0, accurate near 0. */
static inline float vm_expm1_neg(float x)
{
    float r;
    const float s = vm_reduce(x, &r);
    return s * vm_expm1_r(r) + (s - 1.0f);
}

/* 1 / (1 + e^-x), from e = e^-|x| without cancellation on either side:
 * x >= 0: 1 / (1 + e); x < 0: e / (1 + e). *one_minus gets 1 - sigmoid(x)
 * the same way (the other numerator). */
static inline float vm_sigmoid2(float x, float *one_minus)
{
    const float e = vm_exp_neg(-__builtin_fabsf(x));
    const float inv = 1.0f / (1.0f + e);
    const float big = inv, small = e * inv;
    *one_minus = x >= 0.0f ? small : big;
    return x >= 0.0f ? big : small;
}

static inline float vm_sigmoid(float x)
{
    float om;
    return vm_sigmoid2(x, &om);
}

/* tanh x = sign(x) (1 - e) / (1 + e), e = e^-2|x|, with 1 - e = -expm1(-2|x|). */
static inline float vm_tanh(float x)
{
    const float em = vm_expm1_neg(-2.0f * __builtin_fabsf(x));
    const float t = -em / (2.0f + em);
    return x < 0.0f ? -t : t;
}

#endif
