/* emu/include/cuComplex.h - CUDA's single and double precision complex
 * numbers for the CUDA host emulator: cuFloatComplex is float2 and
 * cuDoubleComplex is double2 (x the real part, y the imaginary part), as in
 * the toolkit, with its functions.  Division scales by |re| + |im| of the
 * divisor and the absolute value by the larger part, as the toolkit
 * documents, so neither overflows where the result does not.
 */
#ifndef CUDAEMU_CUCOMPLEX_H
#define CUDAEMU_CUCOMPLEX_H

#include "cuda_runtime.h"

#include <cfloat>
#include <cmath>

/* the toolkit's guard (code tests it) */
#define CU_COMPLEX_H_

typedef float2 cuFloatComplex;
typedef double2 cuDoubleComplex;
typedef cuFloatComplex cuComplex;

/* one body per operation for both precisions: R is float or double */
namespace cudaemu {
namespace complex_detail {
template <class C, class R> __host__ __device__ inline C make(R re, R im)
{
    C c;
    c.x = re;
    c.y = im;
    return c;
}
template <class C> __host__ __device__ inline C mul(C a, C b)
{
    return make<C>(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
/* a / b, both scaled by s = |b.x| + |b.y| first */
template <class C, class R> __host__ __device__ inline C div(C a, C b)
{
    const R s = std::fabs(b.x) + std::fabs(b.y), inv = R(1) / s;
    const R ar = a.x * inv, ai = a.y * inv, br = b.x * inv, bi = b.y * inv;
    const R inv2 = R(1) / (br * br + bi * bi);
    return make<C>((ar * br + ai * bi) * inv2, (ai * br - ar * bi) * inv2);
}
/* |a|: the larger part times sqrt(1 + q^2), q the ratio of the smaller to it */
template <class R> __host__ __device__ inline R abs(R re, R im, R max_finite)
{
    R v = std::fabs(re), w = std::fabs(im);
    if (v < w) {
        const R t = v;
        v = w;
        w = t;
    }
    if (v == R(0) || v > max_finite || w > max_finite) return v + w;
    const R q = w / v;
    return v * std::sqrt(R(1) + q * q);
}
} // namespace complex_detail
} // namespace cudaemu

__host__ __device__ static inline float cuCrealf(cuFloatComplex x) { return x.x; }
__host__ __device__ static inline float cuCimagf(cuFloatComplex x) { return x.y; }
__host__ __device__ static inline cuFloatComplex make_cuFloatComplex(float r, float i)
{
    return ::cudaemu::complex_detail::make<cuFloatComplex>(r, i);
}
__host__ __device__ static inline cuFloatComplex cuConjf(cuFloatComplex x)
{
    return make_cuFloatComplex(x.x, -x.y);
}
__host__ __device__ static inline cuFloatComplex cuCaddf(cuFloatComplex x, cuFloatComplex y)
{
    return make_cuFloatComplex(x.x + y.x, x.y + y.y);
}
__host__ __device__ static inline cuFloatComplex cuCsubf(cuFloatComplex x, cuFloatComplex y)
{
    return make_cuFloatComplex(x.x - y.x, x.y - y.y);
}
__host__ __device__ static inline cuFloatComplex cuCmulf(cuFloatComplex x, cuFloatComplex y)
{
    return ::cudaemu::complex_detail::mul(x, y);
}
__host__ __device__ static inline cuFloatComplex cuCdivf(cuFloatComplex x, cuFloatComplex y)
{
    return ::cudaemu::complex_detail::div<cuFloatComplex, float>(x, y);
}
__host__ __device__ static inline float cuCabsf(cuFloatComplex x)
{
    return ::cudaemu::complex_detail::abs(x.x, x.y, FLT_MAX);
}

__host__ __device__ static inline double cuCreal(cuDoubleComplex x) { return x.x; }
__host__ __device__ static inline double cuCimag(cuDoubleComplex x) { return x.y; }
__host__ __device__ static inline cuDoubleComplex make_cuDoubleComplex(double r, double i)
{
    return ::cudaemu::complex_detail::make<cuDoubleComplex>(r, i);
}
__host__ __device__ static inline cuDoubleComplex cuConj(cuDoubleComplex x)
{
    return make_cuDoubleComplex(x.x, -x.y);
}
__host__ __device__ static inline cuDoubleComplex cuCadd(cuDoubleComplex x, cuDoubleComplex y)
{
    return make_cuDoubleComplex(x.x + y.x, x.y + y.y);
}
__host__ __device__ static inline cuDoubleComplex cuCsub(cuDoubleComplex x, cuDoubleComplex y)
{
    return make_cuDoubleComplex(x.x - y.x, x.y - y.y);
}
__host__ __device__ static inline cuDoubleComplex cuCmul(cuDoubleComplex x, cuDoubleComplex y)
{
    return ::cudaemu::complex_detail::mul(x, y);
}
__host__ __device__ static inline cuDoubleComplex cuCdiv(cuDoubleComplex x, cuDoubleComplex y)
{
    return ::cudaemu::complex_detail::div<cuDoubleComplex, double>(x, y);
}
__host__ __device__ static inline double cuCabs(cuDoubleComplex x)
{
    return ::cudaemu::complex_detail::abs(x.x, x.y, DBL_MAX);
}

__host__ __device__ static inline cuComplex make_cuComplex(float x, float y)
{
    return make_cuFloatComplex(x, y);
}
__host__ __device__ static inline cuDoubleComplex cuComplexFloatToDouble(cuFloatComplex c)
{
    return make_cuDoubleComplex((double)c.x, (double)c.y);
}
__host__ __device__ static inline cuFloatComplex cuComplexDoubleToFloat(cuDoubleComplex c)
{
    return make_cuFloatComplex((float)c.x, (float)c.y);
}
/* x * y + d in the toolkit's order: d plus the real-times-y products first,
 * then the imaginary-times-y ones (a GPU may fuse each step into a
 * multiply-add and differ in the last bit) */
namespace cudaemu {
namespace complex_detail {
template <class C> __host__ __device__ inline C fma(C x, C y, C d)
{
    auto re = x.x * y.x + d.x, im = x.x * y.y + d.y;
    re = -(x.y * y.y) + re;
    im = x.y * y.x + im;
    return make<C>(re, im);
}
} // namespace complex_detail
} // namespace cudaemu
__host__ __device__ static inline cuComplex cuCfmaf(cuComplex x, cuComplex y, cuComplex d)
{
    return ::cudaemu::complex_detail::fma(x, y, d);
}
__host__ __device__ static inline cuDoubleComplex cuCfma(cuDoubleComplex x, cuDoubleComplex y,
                                                        cuDoubleComplex d)
{
    return ::cudaemu::complex_detail::fma(x, y, d);
}

#endif /* CUDAEMU_CUCOMPLEX_H */
