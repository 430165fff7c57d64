/* emu/include/cudaemu/half_bits.h - the bit-level core of the 16-bit float
 * types (cuda_fp16.h's __half, cuda_bf16.h's __nv_bfloat16): decoding to
 * float, rounding to the format in the four IEEE modes, fused multiply-add,
 * integer conversions.  One implementation, parameterized by the format (its
 * exponent and fraction widths); both headers use it, nothing else rounds.
 *
 * Rounding.  h_encode<F>(x, mode) rounds a double to F once, exactly as IEEE
 * 754 says for that mode (ties to even for rn, overflow to infinity or the
 * largest finite value by mode, gradual underflow to F's subnormals, signed
 * zeros; NaN becomes the canonical 0x7FFF as cvt.rn.f16.f32 and cvt.rn.bf16.f32
 * give).  Its input must be the exact value, or the value rounded to odd in
 * double (53 bits): rounding to odd at p >= q + 2 bits and then to nearest at
 * q bits is one correct rounding (Boldo and Melquiond), and both formats have
 * q <= 11.  float inputs are exact in double; the 64-bit integers and the fused
 * multiply-add go through round-to-odd helpers below.
 *
 * Arithmetic (cuda_fp16.h, cuda_bf16.h) is done in float and rounded once:
 * float has p = 24 >= 2q + 2 bits for both formats (q = 11, 8), so rounding
 * the float sum, difference, product, quotient or square root of two values of
 * the format to the format again is the correctly rounded result (Figueroa,
 * "When is double rounding innocuous?"), what CUDA documents for them.
 *
 * Included by cuda_fp16.h after cuda_runtime.h (it uses device_functions.h's
 * bit_cast and cvt_sat); do not include directly.
 */
#ifndef CUDAEMU_HALF_BITS_H
#define CUDAEMU_HALF_BITS_H

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "half_round.h"

namespace cudaemu {
namespace detail {

/* The two formats: sign, exp_bits of exponent, man_bits of fraction. */
struct fp16_format {
    static constexpr int exp_bits = 5, man_bits = 10;
    /* __half2float turns every NaN into the canonical float NaN 0x7FFFFFFF
     * (CUDA's own conversion does); bf16 -> float is a shift and keeps it. */
    static constexpr bool widen_keeps_nan = false;
};
struct bf16_format {
    static constexpr int exp_bits = 8, man_bits = 7;
    static constexpr bool widen_keeps_nan = true;
};

enum class hround { rn, rz, rd, ru };

template <class F> struct hfmt {
    static constexpr int M = F::man_bits;
    static constexpr int bias = (1 << (F::exp_bits - 1)) - 1;
    static constexpr int emin = 1 - bias; /* exponent of the smallest normal */
    static constexpr unsigned exp_all = (1u << F::exp_bits) - 1;
    static constexpr std::uint16_t inf = (std::uint16_t)(exp_all << M);
    static constexpr std::uint16_t max_finite = (std::uint16_t)(inf - 1);
    static constexpr std::uint16_t canonical_nan = 0x7FFF;
};

/* x (exact, or rounded to odd in double) rounded to F in mode r: the one
 * rounding core, half_round.h (shared with the benchmark's converters). */
template <class F> inline std::uint16_t h_encode(double x, hround r)
{
    static_assert((int)hround::rn == H16_R_RN && (int)hround::rz == H16_R_RZ &&
                      (int)hround::rd == H16_R_RD && (int)hround::ru == H16_R_RU,
                  "hround follows half_round.h's modes");
    return h16_encode(x, F::exp_bits, F::man_bits, (int)r);
}

/* The value of F's bits h as a float (exact: both formats fit in float). */
template <class F> inline float h_decode(std::uint16_t h)
{
    return h16_decode(h, F::exp_bits, F::man_bits, F::widen_keeps_nan);
}

/* An integer magnitude as a double rounded to odd (exact below 2^53). */
inline double u64_to_double_odd(std::uint64_t v)
{
    if (v < (1ull << 53)) return (double)v;
    const int s = 11 - __builtin_clzll(v); /* keep the top 53 bits */
    std::uint64_t kept = v >> s;
    if (v & ((1ull << s) - 1)) kept |= 1; /* sticky: odd when inexact */
    return std::ldexp((double)kept, s);
}
inline double i64_to_double_odd(long long v)
{
    const std::uint64_t mag = v < 0 ? 0 - (std::uint64_t)v : (std::uint64_t)v;
    const double d = u64_to_double_odd(mag);
    return v < 0 ? -d : d;
}

/* a * b + c rounded to odd in double, for a, b, c values of a 16-bit format.
 * a * b is exact (at most 2 x 11 significant bits, exponents within double's
 * normal range: >= 2^-266 for bf16), so only the sum rounds.  For __half the
 * plain double sum would do: it is inexact only when the two terms' bits lie
 * more than 53 places apart, which needs |a * b| >= 2^-24 * 2^52 (the result
 * overflows anyway) or c the larger term, a value of the format that the tiny
 * rest cannot move onto a halfway point.  For __nv_bfloat16 it would not do:
 * a * b (16 bits) can be exactly halfway between two bf16 values and c as
 * small as 2^-133 then vanishes from the double sum, which rounds to even
 * where the exact value lies on one side (tests/half_types.cu has such
 * cases).  So the sum's error (TwoSum, exact) makes an inexact sum odd. */
inline double fma_odd(double a, double b, double c)
{
    const double p = a * b; /* (contracting it into an fma changes nothing) */
    const double s = p + c;
    const double bv = s - p;
    const double err = (p - (s - bv)) + (c - bv);
    if (err == 0 || (bit_cast<std::uint64_t>(s) & 1) || std::isinf(s)) return s;
    return std::nextafter(s, err > 0 ? std::numeric_limits<double>::infinity()
                                     : -std::numeric_limits<double>::infinity());
}

/* Float -> integer as cvt.{rni,rzi,rmi,rpi} with saturation (NaN gives 0). */
template <class I> inline I float_to_int(float v, hround r)
{
    float t;
    switch (r) {
    case hround::rn: t = std::nearbyint(v); break;
    case hround::rz: t = std::trunc(v); break;
    case hround::rd: t = std::floor(v); break;
    default: t = std::ceil(v); break;
    }
    return cvt_sat<I>(t);
}

/* Integer -> F in mode r (through a double rounded to odd: one rounding). */
template <class F, class I> inline std::uint16_t int_to_h(I v, hround r)
{
    if (std::is_signed<I>::value) return h_encode<F>(i64_to_double_odd((long long)v), r);
    return h_encode<F>(u64_to_double_odd((unsigned long long)v), r);
}

template <class H> inline std::uint16_t hbits(const H &h) { return bit_cast<std::uint16_t>(h); }
template <class H> inline H hmake(std::uint16_t b) { return bit_cast<H>(b); }

/* hformat<H>::type: the format of the type H (set by cudaemu/half_family.h);
 * hf(h) its value as a float, hr<H>(v) v rounded to H. */
template <class H> struct hformat;
template <class H> inline float hf(const H h) { return h_decode<typename hformat<H>::type>(hbits(h)); }
template <class H> inline H hr(double v, hround r = hround::rn)
{ return hmake<H>(h_encode<typename hformat<H>::type>(v, r)); }

} // namespace detail
} // namespace cudaemu

/* The integer conversions of one integer type I in one rounding mode,
 * H -> I (TO: saturating, NaN gives 0) and I -> H (FROM), named as CUDA names
 * them: CUDAEMU_HALF_INT_CONV(__half, int, __half2int_rn, __int2half_rn, rn).
 * cuda_fp16.h and cuda_bf16.h list them. */
#define CUDAEMU_HALF_INT_CONV(H, I, TO, FROM, MODE)                             \
    inline I TO(const H h)                                                     \
    { return ::cudaemu::detail::float_to_int<I>(::cudaemu::detail::hf(h), ::cudaemu::detail::hround::MODE); } \
    inline H FROM(const I i)                                                   \
    {                                                                          \
        return ::cudaemu::detail::hmake<H>(::cudaemu::detail::int_to_h<        \
            typename ::cudaemu::detail::hformat<H>::type>(i, ::cudaemu::detail::hround::MODE)); \
    }

#endif
