/* emu/include/cudaemu/rounding.h - CUDA's arithmetic and conversion
 * intrinsics with a rounding mode in their name (__fadd_rz, __dmul_ru,
 * __fsqrt_rd, __int2float_ru, __double2ll_rd, ...), bit-exact to IEEE 754's
 * four roundings: each operation runs on the host thread between two
 * fesetround calls (the previous mode restored after), on volatile operands,
 * so the compiler neither folds it at compile time nor moves it out of the
 * window (translated units are not built with -frounding-math).
 * Float-to-integer conversions round with rintf/truncf/floorf/ceilf and
 * saturate as PTX cvt does (NaN gives 0).  Included by device_functions.h.
 */
#ifndef CUDAEMU_ROUNDING_H
#define CUDAEMU_ROUNDING_H

#include <cfenv>
#include <cmath>

namespace cudaemu {
namespace detail {
/* op() computed with the host's rounding mode set to mode. */
template <typename T, typename Op> inline T rounded(int mode, Op op)
{
    const int old = std::fegetround();
    std::fesetround(mode);
    volatile T r = op();
    std::fesetround(old);
    return r;
}
} // namespace detail
} // namespace cudaemu

/* name##_rn/_rz/_ru/_rd of one body over volatile copies x, y, z of a, b, c */
#define CUDAEMU_ROUNDED(name, R, params, copies, expr)                          \
    inline R name##_rn params { return cudaemu::detail::rounded<R>(FE_TONEAREST, [&] { copies; return R(expr); }); } \
    inline R name##_rz params { return cudaemu::detail::rounded<R>(FE_TOWARDZERO, [&] { copies; return R(expr); }); } \
    inline R name##_ru params { return cudaemu::detail::rounded<R>(FE_UPWARD, [&] { copies; return R(expr); }); } \
    inline R name##_rd params { return cudaemu::detail::rounded<R>(FE_DOWNWARD, [&] { copies; return R(expr); }); }
#define CUDAEMU_ROUNDED_2(name, T, op) \
    CUDAEMU_ROUNDED(name, T, (T a, T b), volatile T x = a; volatile T y = b, x op y)

CUDAEMU_ROUNDED_2(__fadd, float, +)
CUDAEMU_ROUNDED_2(__fsub, float, -)
CUDAEMU_ROUNDED_2(__fmul, float, *)
CUDAEMU_ROUNDED_2(__fdiv, float, /)
CUDAEMU_ROUNDED(__frcp, float, (float a), volatile float x = a, 1.0f / x)
CUDAEMU_ROUNDED(__fsqrt, float, (float a), volatile float x = a, ::sqrtf(x))
CUDAEMU_ROUNDED(__fmaf, float, (float a, float b, float c),
                volatile float x = a; volatile float y = b; volatile float z = c, ::fmaf(x, y, z))
CUDAEMU_ROUNDED(__fmaf_ieee, float, (float a, float b, float c),
                volatile float x = a; volatile float y = b; volatile float z = c, ::fmaf(x, y, z))
CUDAEMU_ROUNDED_2(__dadd, double, +)
CUDAEMU_ROUNDED_2(__dsub, double, -)
CUDAEMU_ROUNDED_2(__dmul, double, *)
CUDAEMU_ROUNDED_2(__ddiv, double, /)
CUDAEMU_ROUNDED(__drcp, double, (double a), volatile double x = a, 1.0 / x)
CUDAEMU_ROUNDED(__dsqrt, double, (double a), volatile double x = a, std::sqrt(x))
CUDAEMU_ROUNDED(__fma, double, (double a, double b, double c),
                volatile double x = a; volatile double y = b; volatile double z = c, std::fma(x, y, z))
/* conversions to floating point */
CUDAEMU_ROUNDED(__double2float, float, (double a), volatile double x = a, x)
CUDAEMU_ROUNDED(__int2float, float, (int a), volatile int x = a, x)
CUDAEMU_ROUNDED(__uint2float, float, (unsigned a), volatile unsigned x = a, x)
CUDAEMU_ROUNDED(__ll2float, float, (long long a), volatile long long x = a, x)
CUDAEMU_ROUNDED(__ull2float, float, (unsigned long long a), volatile unsigned long long x = a, x)
CUDAEMU_ROUNDED(__ll2double, double, (long long a), volatile long long x = a, x)
CUDAEMU_ROUNDED(__ull2double, double, (unsigned long long a), volatile unsigned long long x = a, x)
#undef CUDAEMU_ROUNDED_2
#undef CUDAEMU_ROUNDED
inline float __frsqrt_rn(float x) { return (float)(1.0 / std::sqrt((double)x)); }
inline double __int2double_rn(int x) { return (double)x; }
inline double __uint2double_rn(unsigned x) { return (double)x; }

/* floating point to integers: rounded in the float type (exact), then
 * saturated to the integer's range as PTX cvt (NaN gives 0) */
#define CUDAEMU_TO_INT(name, I, F, rn, rz, rd, ru)                                          \
    inline I name##_rn(F x) { return cudaemu::detail::cvt_sat<I>(rn(x)); }                  \
    inline I name##_rz(F x) { return cudaemu::detail::cvt_sat<I>(rz(x)); }                  \
    inline I name##_rd(F x) { return cudaemu::detail::cvt_sat<I>(rd(x)); }                  \
    inline I name##_ru(F x) { return cudaemu::detail::cvt_sat<I>(ru(x)); }
CUDAEMU_TO_INT(__float2int, int, float, ::rintf, ::truncf, ::floorf, ::ceilf)
CUDAEMU_TO_INT(__float2uint, unsigned, float, ::rintf, ::truncf, ::floorf, ::ceilf)
CUDAEMU_TO_INT(__float2ll, long long, float, ::rintf, ::truncf, ::floorf, ::ceilf)
CUDAEMU_TO_INT(__float2ull, unsigned long long, float, ::rintf, ::truncf, ::floorf, ::ceilf)
CUDAEMU_TO_INT(__double2int, int, double, std::rint, std::trunc, std::floor, std::ceil)
CUDAEMU_TO_INT(__double2uint, unsigned, double, std::rint, std::trunc, std::floor, std::ceil)
CUDAEMU_TO_INT(__double2ll, long long, double, std::rint, std::trunc, std::floor, std::ceil)
CUDAEMU_TO_INT(__double2ull, unsigned long long, double, std::rint, std::trunc, std::floor, std::ceil)
#undef CUDAEMU_TO_INT

#endif
