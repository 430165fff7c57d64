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

/* x (exact, or rounded to odd in double) rounded to F in mode r. */
template <class F> inline std::uint16_t h_encode(double x, hround r)
{
    using T = hfmt<F>;
    const std::uint64_t b = bit_cast<std::uint64_t>(x);
    const bool neg = (b >> 63) != 0;
    const std::uint16_t sign = neg ? 0x8000 : 0;
    const int ef = (int)((b >> 52) & 0x7FF);
    std::uint64_t sig = b & ((1ull << 52) - 1);
    if (ef == 0x7FF) return sig ? T::canonical_nan : (std::uint16_t)(sign | T::inf);
    if (ef == 0 && sig == 0) return sign;
    /* |x| = sig * 2^(e - 52) with sig's leading bit at 52 */
    int e = ef - 1023;
    if (ef == 0) {
        e = -1022;
        while (!(sig >> 52)) { sig <<= 1; --e; }
    } else {
        sig |= 1ull << 52;
    }
    /* the result's last bit has weight 2^(te - M), te the exponent it gets
     * (F's subnormals share emin); `shift` bits of sig fall below it */
    const int te = e < T::emin ? T::emin : e;
    const int shift = 52 - T::M + (te - e); /* >= 52 - M > 0 */
    std::uint64_t q, rest, half;
    if (shift >= 64) { /* below a quarter of the smallest subnormal */
        q = 0, rest = 1, half = 2;
    } else {
        q = sig >> shift;
        rest = sig & ((1ull << shift) - 1);
        half = 1ull << (shift - 1);
    }
    bool up = false;
    switch (r) {
    case hround::rn: up = rest > half || (rest == half && (q & 1)); break;
    case hround::rz: break;
    case hround::ru: up = rest != 0 && !neg; break;
    case hround::rd: up = rest != 0 && neg; break;
    }
    q += up;
    /* biased exponent te + bias = (te - emin) + 1: adding q, whose bit M is
     * the implicit one of a normal (absent in a subnormal), completes it, and
     * a carry out of the fraction moves to the next binade */
    const std::uint64_t mag = ((std::uint64_t)(te - T::emin) << T::M) + q;
    if (mag >= T::inf) { /* overflow: infinity, or the largest finite value */
        const bool to_inf = r == hround::rn || (r == hround::ru && !neg) || (r == hround::rd && neg);
        return (std::uint16_t)(sign | (to_inf ? T::inf : T::max_finite));
    }
    return (std::uint16_t)(sign | mag);
}

/* The value of F's bits h as a float (exact: both formats fit in float). */
template <class F> inline float h_decode(std::uint16_t h)
{
    using T = hfmt<F>;
    std::uint32_t u;
    const std::uint32_t sign = (std::uint32_t)(h & 0x8000) << 16;
    const unsigned ef = (h >> T::M) & T::exp_all;
    const std::uint32_t m = h & ((1u << T::M) - 1);
    if (ef == T::exp_all && m != 0 && !F::widen_keeps_nan) {
        u = 0x7FFFFFFFu;
    } else if (T::bias == 127) { /* float's exponent: the bits are float's top half */
        u = (std::uint32_t)h << 16;
    } else if (ef == T::exp_all) {
        u = sign | 0x7F800000u | (m << (23 - T::M));
    } else if (ef != 0) {
        u = sign | ((ef - T::bias + 127) << 23) | (m << (23 - T::M));
    } else if (m == 0) {
        u = sign;
    } else { /* subnormal: normal in float */
        int k = 31 - __builtin_clz(m); /* m = 1.f * 2^k */
        u = sign | ((std::uint32_t)(k + T::emin - T::M + 127) << 23) | ((m << (23 - k)) & 0x7FFFFFu);
    }
    return bit_cast<float>(u);
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
