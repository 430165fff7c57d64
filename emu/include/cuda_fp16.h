/* emu/include/cuda_fp16.h - CUDA's half precision type __half (IEEE binary16:
 * 5 exponent bits, 10 fraction bits) and the pair __half2, for the CUDA host
 * emulator.  The classes, operators and the functions CUDA names alike for
 * __half and __nv_bfloat16 come from cudaemu/half_family.h; the rounding from
 * cudaemu/half_bits.h.  This file adds what is named after __half: the
 * conversions, CUDART_*_FP16 and the half/half2 typedefs.  CUDA's switches
 * __CUDA_NO_HALF_CONVERSIONS__, __CUDA_NO_HALF_OPERATORS__,
 * __CUDA_NO_HALF2_OPERATORS__ and CUDA_NO_HALF are honoured.  In C only the
 * raw structs exist, as in CUDA.
 */
#ifndef CUDAEMU_CUDA_FP16_H
#define CUDAEMU_CUDA_FP16_H

#define __CUDA_FP16_TYPES_EXIST__

typedef struct __attribute__((aligned(2))) {
    unsigned short x;
} __half_raw;
typedef struct __attribute__((aligned(4))) {
    unsigned short x;
    unsigned short y;
} __half2_raw;

#ifdef __cplusplus
#include <cuda_runtime.h>
#include "cudaemu/half_bits.h"

struct __nv_bfloat16; /* for the explicit conversion, defined in cuda_bf16.h */

#define CUDAEMU_H __half
#define CUDAEMU_H2 __half2
#define CUDAEMU_HRAW __half_raw
#define CUDAEMU_H2RAW __half2_raw
#define CUDAEMU_HFMT ::cudaemu::detail::fp16_format
#define CUDAEMU_HOTHER __nv_bfloat16
#ifdef __CUDA_NO_HALF_CONVERSIONS__
#define CUDAEMU_HCONV 0
#else
#define CUDAEMU_HCONV 1
#endif
#ifdef __CUDA_NO_HALF_OPERATORS__
#define CUDAEMU_HOPS 0
#else
#define CUDAEMU_HOPS 1
#endif
#ifdef __CUDA_NO_HALF2_OPERATORS__
#define CUDAEMU_H2OPS 0
#else
#define CUDAEMU_H2OPS 1
#endif
#include "cudaemu/half_family.h"

/* ---- float and double ---------------------------------------------------- */
inline __half __float2half_rn(const float a) { return cudaemu::detail::hr<__half>(a); }
inline __half __float2half(const float a) { return cudaemu::detail::hr<__half>(a); }
inline __half __float2half_rz(const float a) { return cudaemu::detail::hr<__half>(a, cudaemu::detail::hround::rz); }
inline __half __float2half_rd(const float a) { return cudaemu::detail::hr<__half>(a, cudaemu::detail::hround::rd); }
inline __half __float2half_ru(const float a) { return cudaemu::detail::hr<__half>(a, cudaemu::detail::hround::ru); }
inline __half __double2half(const double a) { return cudaemu::detail::hr<__half>(a); }
inline float __half2float(const __half a) { return cudaemu::detail::hf(a); }
inline __half2 __float2half2_rn(const float a) { return __half2(__float2half_rn(a), __float2half_rn(a)); }
inline __half2 __floats2half2_rn(const float a, const float b) { return __half2(__float2half_rn(a), __float2half_rn(b)); }
inline __half2 __float22half2_rn(const float2 a) { return __floats2half2_rn(a.x, a.y); }
inline float2 __half22float2(const __half2 a) { return make_float2(__low2float(a), __high2float(a)); }

/* ---- bits ---------------------------------------------------------------- */
inline short __half_as_short(const __half h) { return (short)cudaemu::detail::hbits(h); }
inline unsigned short __half_as_ushort(const __half h) { return cudaemu::detail::hbits(h); }
inline __half __short_as_half(const short i) { return cudaemu::detail::hmake<__half>((unsigned short)i); }
inline __half __ushort_as_half(const unsigned short i) { return cudaemu::detail::hmake<__half>(i); }

/* ---- pairs --------------------------------------------------------------- */
inline __half2 make_half2(const __half x, const __half y) { return __half2(x, y); }
inline __half2 __halves2half2(const __half a, const __half b) { return __half2(a, b); }
inline __half2 __half2half2(const __half a) { return __half2(a, a); }
inline __half __low2half(const __half2 a) { return a.x; }
inline __half __high2half(const __half2 a) { return a.y; }
inline __half2 __low2half2(const __half2 a) { return __half2(a.x, a.x); }
inline __half2 __high2half2(const __half2 a) { return __half2(a.y, a.y); }
inline __half2 __lows2half2(const __half2 a, const __half2 b) { return __half2(a.x, b.x); }
inline __half2 __highs2half2(const __half2 a, const __half2 b) { return __half2(a.y, b.y); }

/* ---- integers: to, towards the mode and saturated (NaN 0); from, rounded - */
CUDAEMU_HALF_INT_CONV(__half, int, __half2int_rn, __int2half_rn, rn)
CUDAEMU_HALF_INT_CONV(__half, int, __half2int_rz, __int2half_rz, rz)
CUDAEMU_HALF_INT_CONV(__half, int, __half2int_rd, __int2half_rd, rd)
CUDAEMU_HALF_INT_CONV(__half, int, __half2int_ru, __int2half_ru, ru)
CUDAEMU_HALF_INT_CONV(__half, unsigned int, __half2uint_rn, __uint2half_rn, rn)
CUDAEMU_HALF_INT_CONV(__half, unsigned int, __half2uint_rz, __uint2half_rz, rz)
CUDAEMU_HALF_INT_CONV(__half, unsigned int, __half2uint_rd, __uint2half_rd, rd)
CUDAEMU_HALF_INT_CONV(__half, unsigned int, __half2uint_ru, __uint2half_ru, ru)
CUDAEMU_HALF_INT_CONV(__half, short, __half2short_rn, __short2half_rn, rn)
CUDAEMU_HALF_INT_CONV(__half, short, __half2short_rz, __short2half_rz, rz)
CUDAEMU_HALF_INT_CONV(__half, short, __half2short_rd, __short2half_rd, rd)
CUDAEMU_HALF_INT_CONV(__half, short, __half2short_ru, __short2half_ru, ru)
CUDAEMU_HALF_INT_CONV(__half, unsigned short, __half2ushort_rn, __ushort2half_rn, rn)
CUDAEMU_HALF_INT_CONV(__half, unsigned short, __half2ushort_rz, __ushort2half_rz, rz)
CUDAEMU_HALF_INT_CONV(__half, unsigned short, __half2ushort_rd, __ushort2half_rd, rd)
CUDAEMU_HALF_INT_CONV(__half, unsigned short, __half2ushort_ru, __ushort2half_ru, ru)
CUDAEMU_HALF_INT_CONV(__half, long long, __half2ll_rn, __ll2half_rn, rn)
CUDAEMU_HALF_INT_CONV(__half, long long, __half2ll_rz, __ll2half_rz, rz)
CUDAEMU_HALF_INT_CONV(__half, long long, __half2ll_rd, __ll2half_rd, rd)
CUDAEMU_HALF_INT_CONV(__half, long long, __half2ll_ru, __ll2half_ru, ru)
CUDAEMU_HALF_INT_CONV(__half, unsigned long long, __half2ull_rn, __ull2half_rn, rn)
CUDAEMU_HALF_INT_CONV(__half, unsigned long long, __half2ull_rz, __ull2half_rz, rz)
CUDAEMU_HALF_INT_CONV(__half, unsigned long long, __half2ull_rd, __ull2half_rd, rd)
CUDAEMU_HALF_INT_CONV(__half, unsigned long long, __half2ull_ru, __ull2half_ru, ru)
inline signed char __half2char_rz(const __half h)
{ return cudaemu::detail::float_to_int<signed char>(cudaemu::detail::hf(h), cudaemu::detail::hround::rz); }
inline unsigned char __half2uchar_rz(const __half h)
{ return cudaemu::detail::float_to_int<unsigned char>(cudaemu::detail::hf(h), cudaemu::detail::hround::rz); }

#define CUDART_INF_FP16 __ushort_as_half((unsigned short)0x7C00U)
#define CUDART_NAN_FP16 __ushort_as_half((unsigned short)0x7FFFU)
#define CUDART_MIN_DENORM_FP16 __ushort_as_half((unsigned short)0x0001U)
#define CUDART_MAX_NORMAL_FP16 __ushort_as_half((unsigned short)0x7BFFU)
#define CUDART_NEG_ZERO_FP16 __ushort_as_half((unsigned short)0x8000U)
#define CUDART_ZERO_FP16 __ushort_as_half((unsigned short)0x0000U)
#define CUDART_ONE_FP16 __ushort_as_half((unsigned short)0x3C00U)

#ifndef CUDA_NO_HALF
typedef __half half;
typedef __half2 half2;
#endif
typedef __half __nv_half;
typedef __half2 __nv_half2;
typedef __half_raw __nv_half_raw;
typedef __half2_raw __nv_half2_raw;
typedef __half nv_half;
typedef __half2 nv_half2;
#endif /* __cplusplus */

#endif
