/* emu/include/cuda_bf16.h - CUDA's bfloat16 type __nv_bfloat16 (8 exponent
 * bits as float, 7 fraction bits) and the pair __nv_bfloat162, for the CUDA
 * host emulator.  As in CUDA it includes cuda_fp16.h; the classes, operators
 * and the functions CUDA names alike for both types (__hadd, __hfma2, ...) come
 * from cudaemu/half_family.h, the rounding from cudaemu/half_bits.h.  This file
 * adds what is named after bfloat16, the conversions between __half and
 * __nv_bfloat16 (explicit, rounded to nearest even), CUDART_*_BF16 and the
 * nv_bfloat16/nv_bfloat162 typedefs.  CUDA's __CUDA_NO_BFLOAT16_CONVERSIONS__,
 * __CUDA_NO_BFLOAT16_OPERATORS__, __CUDA_NO_BFLOAT162_OPERATORS__ and
 * CUDA_NO_BFLOAT16 are honoured.  In C only the raw structs exist.
 */
#ifndef CUDAEMU_CUDA_BF16_H
#define CUDAEMU_CUDA_BF16_H

#include "cuda_fp16.h"

#define __CUDA_BF16_TYPES_EXIST__

typedef struct __attribute__((aligned(2))) {
    unsigned short x;
} __nv_bfloat16_raw;
typedef struct __attribute__((aligned(4))) {
    unsigned short x;
    unsigned short y;
} __nv_bfloat162_raw;

#ifdef __cplusplus
#define CUDAEMU_H __nv_bfloat16
#define CUDAEMU_H2 __nv_bfloat162
#define CUDAEMU_HRAW __nv_bfloat16_raw
#define CUDAEMU_H2RAW __nv_bfloat162_raw
#define CUDAEMU_HFMT ::cudaemu::detail::bf16_format
#define CUDAEMU_HOTHER __half
#ifdef __CUDA_NO_BFLOAT16_CONVERSIONS__
#define CUDAEMU_HCONV 0
#else
#define CUDAEMU_HCONV 1
#endif
#ifdef __CUDA_NO_BFLOAT16_OPERATORS__
#define CUDAEMU_HOPS 0
#else
#define CUDAEMU_HOPS 1
#endif
#ifdef __CUDA_NO_BFLOAT162_OPERATORS__
#define CUDAEMU_H2OPS 0
#else
#define CUDAEMU_H2OPS 1
#endif
#include "cudaemu/half_family.h"

/* the explicit conversions between the two types (both values are floats) */
#ifndef __CUDA_NO_HALF_CONVERSIONS__
inline __half::__half(const __nv_bfloat16 f) : __x(cudaemu::detail::hbits(cudaemu::detail::hr<__half>(cudaemu::detail::hf(f)))) {}
#endif
#ifndef __CUDA_NO_BFLOAT16_CONVERSIONS__
inline __nv_bfloat16::__nv_bfloat16(const __half f)
    : __x(cudaemu::detail::hbits(cudaemu::detail::hr<__nv_bfloat16>(cudaemu::detail::hf(f)))) {}
#endif

/* ---- float and double ---------------------------------------------------- */
inline __nv_bfloat16 __float2bfloat16_rn(const float a) { return cudaemu::detail::hr<__nv_bfloat16>(a); }
inline __nv_bfloat16 __float2bfloat16(const float a) { return cudaemu::detail::hr<__nv_bfloat16>(a); }
inline __nv_bfloat16 __float2bfloat16_rz(const float a)
{ return cudaemu::detail::hr<__nv_bfloat16>(a, cudaemu::detail::hround::rz); }
inline __nv_bfloat16 __float2bfloat16_rd(const float a)
{ return cudaemu::detail::hr<__nv_bfloat16>(a, cudaemu::detail::hround::rd); }
inline __nv_bfloat16 __float2bfloat16_ru(const float a)
{ return cudaemu::detail::hr<__nv_bfloat16>(a, cudaemu::detail::hround::ru); }
inline __nv_bfloat16 __double2bfloat16(const double a) { return cudaemu::detail::hr<__nv_bfloat16>(a); }
inline float __bfloat162float(const __nv_bfloat16 a) { return cudaemu::detail::hf(a); }
inline __nv_bfloat162 __float2bfloat162_rn(const float a)
{ return __nv_bfloat162(__float2bfloat16_rn(a), __float2bfloat16_rn(a)); }
inline __nv_bfloat162 __floats2bfloat162_rn(const float a, const float b)
{ return __nv_bfloat162(__float2bfloat16_rn(a), __float2bfloat16_rn(b)); }
inline __nv_bfloat162 __float22bfloat162_rn(const float2 a) { return __floats2bfloat162_rn(a.x, a.y); }
inline float2 __bfloat1622float2(const __nv_bfloat162 a) { return make_float2(__low2float(a), __high2float(a)); }

/* ---- bits ---------------------------------------------------------------- */
inline short __bfloat16_as_short(const __nv_bfloat16 h) { return (short)cudaemu::detail::hbits(h); }
inline unsigned short __bfloat16_as_ushort(const __nv_bfloat16 h) { return cudaemu::detail::hbits(h); }
inline __nv_bfloat16 __short_as_bfloat16(const short i) { return cudaemu::detail::hmake<__nv_bfloat16>((unsigned short)i); }
inline __nv_bfloat16 __ushort_as_bfloat16(const unsigned short i) { return cudaemu::detail::hmake<__nv_bfloat16>(i); }

/* ---- pairs --------------------------------------------------------------- */
inline __nv_bfloat162 make_bfloat162(const __nv_bfloat16 x, const __nv_bfloat16 y) { return __nv_bfloat162(x, y); }
inline __nv_bfloat162 __halves2bfloat162(const __nv_bfloat16 a, const __nv_bfloat16 b) { return __nv_bfloat162(a, b); }
inline __nv_bfloat162 __bfloat162bfloat162(const __nv_bfloat16 a) { return __nv_bfloat162(a, a); }
inline __nv_bfloat16 __low2bfloat16(const __nv_bfloat162 a) { return a.x; }
inline __nv_bfloat16 __high2bfloat16(const __nv_bfloat162 a) { return a.y; }
inline __nv_bfloat162 __low2bfloat162(const __nv_bfloat162 a) { return __nv_bfloat162(a.x, a.x); }
inline __nv_bfloat162 __high2bfloat162(const __nv_bfloat162 a) { return __nv_bfloat162(a.y, a.y); }
inline __nv_bfloat162 __lows2bfloat162(const __nv_bfloat162 a, const __nv_bfloat162 b) { return __nv_bfloat162(a.x, b.x); }
inline __nv_bfloat162 __highs2bfloat162(const __nv_bfloat162 a, const __nv_bfloat162 b) { return __nv_bfloat162(a.y, b.y); }

/* ---- integers: to, towards the mode and saturated (NaN 0); from, rounded - */
CUDAEMU_HALF_INT_CONV(__nv_bfloat16, int, __bfloat162int_rn, __int2bfloat16_rn, rn)
CUDAEMU_HALF_INT_CONV(__nv_bfloat16, int, __bfloat162int_rz, __int2bfloat16_rz, rz)
CUDAEMU_HALF_INT_CONV(__nv_bfloat16, int, __bfloat162int_rd, __int2bfloat16_rd, rd)
CUDAEMU_HALF_INT_CONV(__nv_bfloat16, int, __bfloat162int_ru, __int2bfloat16_ru, ru)
CUDAEMU_HALF_INT_CONV(__nv_bfloat16, unsigned int, __bfloat162uint_rn, __uint2bfloat16_rn, rn)
CUDAEMU_HALF_INT_CONV(__nv_bfloat16, unsigned int, __bfloat162uint_rz, __uint2bfloat16_rz, rz)
CUDAEMU_HALF_INT_CONV(__nv_bfloat16, unsigned int, __bfloat162uint_rd, __uint2bfloat16_rd, rd)
CUDAEMU_HALF_INT_CONV(__nv_bfloat16, unsigned int, __bfloat162uint_ru, __uint2bfloat16_ru, ru)
CUDAEMU_HALF_INT_CONV(__nv_bfloat16, short, __bfloat162short_rn, __short2bfloat16_rn, rn)
CUDAEMU_HALF_INT_CONV(__nv_bfloat16, short, __bfloat162short_rz, __short2bfloat16_rz, rz)
CUDAEMU_HALF_INT_CONV(__nv_bfloat16, short, __bfloat162short_rd, __short2bfloat16_rd, rd)
CUDAEMU_HALF_INT_CONV(__nv_bfloat16, short, __bfloat162short_ru, __short2bfloat16_ru, ru)
CUDAEMU_HALF_INT_CONV(__nv_bfloat16, unsigned short, __bfloat162ushort_rn, __ushort2bfloat16_rn, rn)
CUDAEMU_HALF_INT_CONV(__nv_bfloat16, unsigned short, __bfloat162ushort_rz, __ushort2bfloat16_rz, rz)
CUDAEMU_HALF_INT_CONV(__nv_bfloat16, unsigned short, __bfloat162ushort_rd, __ushort2bfloat16_rd, rd)
CUDAEMU_HALF_INT_CONV(__nv_bfloat16, unsigned short, __bfloat162ushort_ru, __ushort2bfloat16_ru, ru)
CUDAEMU_HALF_INT_CONV(__nv_bfloat16, long long, __bfloat162ll_rn, __ll2bfloat16_rn, rn)
CUDAEMU_HALF_INT_CONV(__nv_bfloat16, long long, __bfloat162ll_rz, __ll2bfloat16_rz, rz)
CUDAEMU_HALF_INT_CONV(__nv_bfloat16, long long, __bfloat162ll_rd, __ll2bfloat16_rd, rd)
CUDAEMU_HALF_INT_CONV(__nv_bfloat16, long long, __bfloat162ll_ru, __ll2bfloat16_ru, ru)
CUDAEMU_HALF_INT_CONV(__nv_bfloat16, unsigned long long, __bfloat162ull_rn, __ull2bfloat16_rn, rn)
CUDAEMU_HALF_INT_CONV(__nv_bfloat16, unsigned long long, __bfloat162ull_rz, __ull2bfloat16_rz, rz)
CUDAEMU_HALF_INT_CONV(__nv_bfloat16, unsigned long long, __bfloat162ull_rd, __ull2bfloat16_rd, rd)
CUDAEMU_HALF_INT_CONV(__nv_bfloat16, unsigned long long, __bfloat162ull_ru, __ull2bfloat16_ru, ru)
inline signed char __bfloat162char_rz(const __nv_bfloat16 h)
{ return cudaemu::detail::float_to_int<signed char>(cudaemu::detail::hf(h), cudaemu::detail::hround::rz); }
inline unsigned char __bfloat162uchar_rz(const __nv_bfloat16 h)
{ return cudaemu::detail::float_to_int<unsigned char>(cudaemu::detail::hf(h), cudaemu::detail::hround::rz); }

#define CUDART_INF_BF16 __ushort_as_bfloat16((unsigned short)0x7F80U)
#define CUDART_NAN_BF16 __ushort_as_bfloat16((unsigned short)0x7FFFU)
#define CUDART_MIN_DENORM_BF16 __ushort_as_bfloat16((unsigned short)0x0001U)
#define CUDART_MAX_NORMAL_BF16 __ushort_as_bfloat16((unsigned short)0x7F7FU)
#define CUDART_NEG_ZERO_BF16 __ushort_as_bfloat16((unsigned short)0x8000U)
#define CUDART_ZERO_BF16 __ushort_as_bfloat16((unsigned short)0x0000U)
#define CUDART_ONE_BF16 __ushort_as_bfloat16((unsigned short)0x3F80U)

#ifndef CUDA_NO_BFLOAT16
typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;
#endif
#endif /* __cplusplus */

#endif
