/* emu/tests/half_types.cu - cuda_fp16.h and cuda_bf16.h under the emulator.
 *
 * Every check compares against a reference computed here by another method
 * than the headers' bit code (cudaemu/half_bits.h):
 *  - decoding: the value of each of the 65536 bit patterns of __half and of
 *    __nv_bfloat16 from the IEEE formula (ldexp of the significand), and the
 *    way back to the same bits in all four rounding modes;
 *  - rounding from float and double (rn, rz, rd, ru): scale the value so that
 *    the format's last bit is 1, round to an integer with nearbyint / trunc /
 *    ceil, scale back, overflow by mode; tried at every representable value,
 *    every midpoint between neighbours and the floats or doubles next to
 *    them, past the largest value, in the subnormals, on random floats;
 *  - from integers: an integer shift with guard and sticky bits;
 *  - arithmetic: the exact sum / product in double (two values of either
 *    format have one) rounded by the reference, the quotient from double;
 *    fma from the exact value a*b+c as a 128-bit integer, and the bf16 cases
 *    where a double a*b+c would round twice wrongly;
 *  - the documented special cases (NaN, signed zeros, saturation, max/min);
 *  - kernels: __half2/__nv_bfloat162 products and a warp shuffle reduction
 *    (within the rounding bound of a depth-5 tree, exact on small
 *    integers), shuffles of the four types, atomicAdd, __ldg.
 * What CUDA declares __device__ only (fma, the math functions, most
 * conversions to integers, some from integers) is called in kernels, the
 * rest on the host as well, so that the file is valid CUDA.
 * Prints "half_types: all checks passed".
 */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "test_util.h"

/* ---- the two types behind one interface (CUDA names only) ---------------- */
struct Fp16 {
    using S = __half;
    using P = __half2;
    static constexpr int M = 10, emin = -14, emax = 15, ebits = 5;
    static const char *name() { return "half"; }
    static __host__ __device__ S of_bits(unsigned short b) { return __ushort_as_half(b); }
    static __host__ __device__ unsigned short bits(S h) { return __half_as_ushort(h); }
    static __host__ __device__ float to_f(S h) { return __half2float(h); }
    static __host__ __device__ S from_f(float f, int mode)
    {
        switch (mode) {
        case 0: return __float2half_rn(f);
        case 1: return __float2half_rz(f);
        case 2: return __float2half_rd(f);
        default: return __float2half_ru(f);
        }
    }
    static S from_d(double d) { return __double2half(d); }
    static __device__ S from_ll(long long v) { return __ll2half_rn(v); }
    static __device__ S from_ull_rz(unsigned long long v) { return __ull2half_rz(v); }
    static __device__ S from_int(int v, int mode)
    {
        switch (mode) {
        case 0: return __int2half_rn(v);
        case 1: return __int2half_rz(v);
        case 2: return __int2half_rd(v);
        default: return __int2half_ru(v);
        }
    }
    static __device__ int to_int(S h, int mode)
    {
        switch (mode) {
        case 0: return __half2int_rn(h);
        case 1: return __half2int_rz(h);
        case 2: return __half2int_rd(h);
        default: return __half2int_ru(h);
        }
    }
    static __host__ __device__ P pair(float a, float b) { return __floats2half2_rn(a, b); }
    static __host__ __device__ float2 unpair(P p) { return __half22float2(p); }
};
struct Bf16 {
    using S = __nv_bfloat16;
    using P = __nv_bfloat162;
    static constexpr int M = 7, emin = -126, emax = 127, ebits = 8;
    static const char *name() { return "bf16"; }
    static __host__ __device__ S of_bits(unsigned short b) { return __ushort_as_bfloat16(b); }
    static __host__ __device__ unsigned short bits(S h) { return __bfloat16_as_ushort(h); }
    static __host__ __device__ float to_f(S h) { return __bfloat162float(h); }
    static __host__ __device__ S from_f(float f, int mode)
    {
        switch (mode) {
        case 0: return __float2bfloat16_rn(f);
        case 1: return __float2bfloat16_rz(f);
        case 2: return __float2bfloat16_rd(f);
        default: return __float2bfloat16_ru(f);
        }
    }
    static S from_d(double d) { return __double2bfloat16(d); }
    static __device__ S from_ll(long long v) { return __ll2bfloat16_rn(v); }
    static __device__ S from_ull_rz(unsigned long long v) { return __ull2bfloat16_rz(v); }
    static __device__ S from_int(int v, int mode)
    {
        switch (mode) {
        case 0: return __int2bfloat16_rn(v);
        case 1: return __int2bfloat16_rz(v);
        case 2: return __int2bfloat16_rd(v);
        default: return __int2bfloat16_ru(v);
        }
    }
    static __device__ int to_int(S h, int mode)
    {
        switch (mode) {
        case 0: return __bfloat162int_rn(h);
        case 1: return __bfloat162int_rz(h);
        case 2: return __bfloat162int_rd(h);
        default: return __bfloat162int_ru(h);
        }
    }
    static __host__ __device__ P pair(float a, float b) { return __floats2bfloat162_rn(a, b); }
    static __host__ __device__ float2 unpair(P p) { return __bfloat1622float2(p); }
};

/* ---- references ----------------------------------------------------------- */
/* The value of bit pattern b of format T, from the IEEE formula. */
template <class T> static double ref_value(unsigned b)
{
    const unsigned emask = (1u << T::ebits) - 1;
    const unsigned e = (b >> T::M) & emask, m = b & ((1u << T::M) - 1);
    double v;
    if (e == emask) v = m ? NAN : INFINITY;
    else if (e == 0) v = std::ldexp((double)m, T::emin - T::M);
    else v = std::ldexp((double)((1u << T::M) + m), (int)e - (1 << (T::ebits - 1)) + 1 - T::M);
    return (b & 0x8000u) ? -v : v;
}
static bool overflow_to_inf(int mode, bool neg) { return mode == 0 || (mode == 3 && !neg) || (mode == 2 && neg); }
/* x rounded to T in mode (0 rn, 1 rz, 2 rd, 3 ru) by scaling: the format's
 * last bit becomes 1, the rounding is nearbyint/trunc/ceil of that. */
template <class T> static double ref_round(double x, int mode)
{
    if (std::isnan(x) || x == 0 || std::isinf(x)) return x;
    const bool neg = x < 0;
    const double a = std::fabs(x);
    int e = std::ilogb(a);
    if (e < T::emin) e = T::emin;
    const double s = std::ldexp(a, T::M - e); /* exact */
    double r;
    switch (mode) {
    case 0: r = std::nearbyint(s); break;
    case 1: r = std::trunc(s); break;
    case 2: r = neg ? std::ceil(s) : std::trunc(s); break;
    default: r = neg ? std::trunc(s) : std::ceil(s); break;
    }
    double v = std::ldexp(r, e - T::M);
    const double maxf = std::ldexp(2.0 - std::ldexp(1.0, -T::M), T::emax);
    if (v > maxf) v = overflow_to_inf(mode, neg) ? INFINITY : maxf;
    return neg ? -v : v;
}
/* The exact value N * 2^k (N a 128-bit integer) rounded to nearest even in T:
 * an integer shift with guard and sticky bits. */
template <class T> static double ref_round_int(__int128 n, int k)
{
    if (n == 0) return 0.0;
    const bool neg = n < 0;
    unsigned __int128 a = neg ? (unsigned __int128)(-n) : (unsigned __int128)n;
    int top = 127;
    while (!((a >> top) & 1)) --top;
    int e = top + k;           /* a * 2^k = 1.f * 2^e */
    if (e < T::emin) e = T::emin;
    const int shift = (e - T::M) - k; /* bits of a below T's last bit */
    unsigned __int128 q = a;
    if (shift > 0) {
        q = a >> shift;
        const unsigned __int128 rest = a & ((((unsigned __int128)1) << shift) - 1);
        const unsigned __int128 half = ((unsigned __int128)1) << (shift - 1);
        if (rest > half || (rest == half && (q & 1))) ++q;
    }
    double v = shift > 0 ? std::ldexp((double)q, shift + k) : std::ldexp((double)a, k);
    const double maxf = std::ldexp(2.0 - std::ldexp(1.0, -T::M), T::emax);
    if (v > maxf) v = INFINITY;
    return neg ? -v : v;
}
/* r (a result of the headers) equals the reference value v: same value, same
 * sign of zero, or both NaN with the canonical NaN bits. */
template <class T> static bool same(typename T::S r, double v)
{
    const unsigned b = T::bits(r);
    if (std::isnan(v)) return b == 0x7FFFu;
    const double rv = ref_value<T>(b);
    return rv == v && std::signbit(rv) == std::signbit(v);
}
static int g_reported = 0;
#define CHECK_SAME(T, r, v, what, arg)                                          \
    do {                                                                       \
        if (!same<T>((r), (v))) {                                              \
            if (g_reported++ < 20)                                             \
                std::fprintf(stderr, "%s: %s(%.17g) gave %#06x, expected %.17g\n", \
                             T::name(), what, (double)(arg), T::bits(r), (double)(v)); \
            ++g_test_failures;                                                 \
        }                                                                      \
    } while (0)

/* ---- 1. decoding and the way back, all 65536 patterns ---------------------- */
template <class T> static void test_all_patterns()
{
    for (unsigned b = 0; b < 65536; ++b) {
        const typename T::S h = T::of_bits((unsigned short)b);
        const float f = T::to_f(h);
        const double v = ref_value<T>(b);
        if (std::isnan(v)) {
            CHECK(std::isnan(f));
            CHECK(T::bits(T::from_f(f, 0)) == 0x7FFF); /* the canonical NaN */
            continue;
        }
        if (!((double)f == v && std::signbit(f) == std::signbit(v))) {
            if (g_reported++ < 20) std::fprintf(stderr, "%s: %#06x decodes to %.9g, not %.17g\n", T::name(), b, f, v);
            ++g_test_failures;
        }
        for (int mode = 0; mode < 4; ++mode) CHECK_EQ_INT(T::bits(T::from_f(f, mode)), b);
        CHECK_EQ_INT(T::bits(T::from_d(v)), b);
        CHECK_EQ_INT(T::bits(typename T::S(f)), b); /* the converting constructor */
    }
}

/* ---- 2. rounding from float and double ------------------------------------ */
template <class T> static void check_float(float x)
{
    static const char *names[4] = {"rn", "rz", "rd", "ru"};
    for (int mode = 0; mode < 4; ++mode) CHECK_SAME(T, T::from_f(x, mode), ref_round<T>(x, mode), names[mode], x);
}
template <class T> static void test_rounding()
{
    /* every non-negative finite value v, its successor w (the first value past
     * the largest finite one is 2^(emax+1)), their midpoint (exact in float)
     * and the floats next to each, both signs */
    const unsigned inf = ((1u << T::ebits) - 1) << T::M;
    for (unsigned b = 0; b < inf; ++b) {
        const double v = ref_value<T>(b);
        const double w = b + 1 < inf ? ref_value<T>(b + 1) : std::ldexp(1.0, T::emax + 1);
        const float mid = (float)((v + w) / 2);
        CHECK((double)mid == (v + w) / 2);
        const float xs[] = {(float)v, mid, std::nextafter(mid, 0.0f), std::nextafter(mid, INFINITY),
                            std::nextafter((float)v, INFINITY)};
        for (float x : xs) {
            check_float<T>(x);
            check_float<T>(-x);
        }
        /* from double: the doubles next to the midpoint round to its
         * neighbours, which a detour through float would not give */
        const double md = (v + w) / 2;
        const double dx[] = {md, std::nextafter(md, 0.0), std::nextafter(md, INFINITY)};
        for (double d : dx) {
            CHECK_SAME(T, T::from_d(d), ref_round<T>(d, 0), "double", d);
            CHECK_SAME(T, T::from_d(-d), ref_round<T>(-d, 0), "double", -d);
        }
    }
    const float specials[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, FLT_MAX, -FLT_MAX, FLT_MIN,
                              1e-45f, 1e-40f, 65504.0f, 65519.996f, 65520.0f, 65536.0f, 1e10f,
                              3.3895314e38f, 3.3961776e38f, 5.96e-8f, 2.98e-8f, 2.99e-8f};
    for (float x : specials) check_float<T>(x);
    const double dspec[] = {1e300, -1e300, 4.9e-324, 1e-310, DBL_MAX, 65520.000000001};
    for (double d : dspec) CHECK_SAME(T, T::from_d(d), ref_round<T>(d, 0), "double", d);
    /* random floats of every exponent */
    unsigned long long s = 0x9E3779B97F4A7C15ull;
    for (int i = 0; i < 200000; ++i) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        const unsigned u = (unsigned)(s >> 32);
        float x;
        std::memcpy(&x, &u, 4);
        check_float<T>(x);
    }
}

/* ---- device helpers ------------------------------------------------------- */
template <class X> static X *to_dev(const std::vector<X> &v)
{
    X *d;
    CK(cudaMalloc(&d, v.size() * sizeof(X)));
    CK(cudaMemcpy(d, v.data(), v.size() * sizeof(X), cudaMemcpyHostToDevice));
    return d;
}
template <class X> static X *dev_alloc(size_t n)
{
    X *d;
    CK(cudaMalloc(&d, n * sizeof(X)));
    return d;
}
/* the n values at d, copied back after the launch; d freed */
template <class X> static std::vector<X> from_dev(X *d, size_t n)
{
    CK(cudaGetLastError());
    std::vector<X> v(n);
    CK(cudaMemcpy(v.data(), d, n * sizeof(X), cudaMemcpyDeviceToHost));
    CK(cudaFree(d));
    return v;
}
static int blocks(size_t n) { return (int)((n + 255) / 256); }

/* ---- 3. integers ----------------------------------------------------------- */
template <class T> __global__ void k_from_int(const int *in, unsigned short *out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        for (int m = 0; m < 4; ++m) out[4 * i + m] = T::bits(T::from_int(in[i], m));
}
template <class T> __global__ void k_from_ll(const long long *in, unsigned short *out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = T::bits(T::from_ll(in[i]));
}
template <class T> __global__ void k_to_int(int *out)
{
    const int b = blockIdx.x * blockDim.x + threadIdx.x; /* every pattern */
    for (int m = 0; m < 4; ++m) out[4 * b + m] = T::to_int(T::of_bits((unsigned short)b), m);
}
template <class T> __global__ void k_ull_rz(unsigned short *out) { *out = T::bits(T::from_ull_rz(~0ull)); }

template <class T> static void test_integers()
{
    static const char *names[4] = {"int_rn", "int_rz", "int_rd", "int_ru"};
    std::vector<int> ints;
    for (int i = -70000; i <= 70000; i += (i > -3000 && i < 3000) ? 1 : 7) ints.push_back(i);
    for (int i : {2147483647, -2147483647 - 1, 16777217, 33554431, -33554433}) ints.push_back(i);
    const int n = (int)ints.size();
    int *din = to_dev(ints);
    unsigned short *dout = dev_alloc<unsigned short>(4 * n);
    k_from_int<T><<<blocks(n), 256>>>(din, dout, n);
    const std::vector<unsigned short> from = from_dev(dout, 4 * n);
    CK(cudaFree(din));
    for (int k = 0; k < n; ++k)
        for (int mode = 0; mode < 4; ++mode)
            CHECK_SAME(T, T::of_bits(from[4 * k + mode]), ref_round<T>(ints[k], mode), names[mode], ints[k]);
    /* 64-bit integers (a double would round them first), both signs; for
     * bf16 2^62 + 2^54 is a tie and + 1 is not */
    std::vector<long long> lls;
    unsigned long long s = 12345;
    for (int i = 0; i < 20000; ++i) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        lls.push_back((i & 1 ? -1 : 1) * (long long)(s >> (1 + i % 60)));
    }
    const long long tie = (1ll << 62) + (1ll << 54);
    for (long long v : {tie, tie + 1, -tie - 1, 1ll << 40}) lls.push_back(v);
    long long *dll = to_dev(lls);
    unsigned short *dllout = dev_alloc<unsigned short>(lls.size());
    k_from_ll<T><<<blocks(lls.size()), 256>>>(dll, dllout, (int)lls.size());
    const std::vector<unsigned short> llr = from_dev(dllout, lls.size());
    CK(cudaFree(dll));
    for (size_t k = 0; k < lls.size(); ++k) CHECK_SAME(T, T::of_bits(llr[k]), ref_round_int<T>(lls[k], 0), "ll_rn", lls[k]);
    unsigned short *dz = dev_alloc<unsigned short>(1);
    k_ull_rz<T><<<1, 1>>>(dz);
    const unsigned short z = from_dev(dz, 1)[0];
    if (T::emax > 64) {
        CHECK(T::to_f(T::of_bits(llr[lls.size() - 3])) == std::ldexp(1.0, 62) + std::ldexp(1.0, 55));
        CHECK(T::to_f(T::of_bits(llr[lls.size() - 4])) == std::ldexp(1.0, 62));
        CHECK(T::to_f(T::of_bits(llr[lls.size() - 2])) == -(std::ldexp(1.0, 62) + std::ldexp(1.0, 55)));
        CHECK(T::to_f(T::of_bits(z)) == std::ldexp(255.0, 56)); /* 2^64 - 1 towards zero */
    } else {
        CHECK(std::isinf(T::to_f(T::of_bits(llr[lls.size() - 1]))));
        CHECK(T::to_f(T::of_bits(z)) == 65504.0f);
    }
    /* to int, every pattern, in the 4 modes, saturated, NaN 0 */
    int *dto = dev_alloc<int>(4 * 65536);
    k_to_int<T><<<256, 256>>>(dto);
    const std::vector<int> to = from_dev(dto, 4 * 65536);
    for (unsigned b = 0; b < 65536; ++b) {
        const double v = ref_value<T>(b);
        for (int mode = 0; mode < 4; ++mode) {
            const double r = mode == 0 ? std::nearbyint(v) : mode == 1 ? std::trunc(v) : mode == 2 ? std::floor(v) : std::ceil(v);
            const long long want = std::isnan(v) ? 0 : r >= 2147483647.0 ? 2147483647 : r <= -2147483648.0 ? (-2147483647 - 1) : (long long)r;
            CHECK_EQ_INT(to[4 * b + mode], want);
        }
    }
}

/* ---- 4. arithmetic ---------------------------------------------------------- */
template <class T> static typename T::S rand_val(unsigned long long &s, int emin, int emax)
{
    /* random sign, significand and an exponent in [emin, emax] (or a special) */
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    const unsigned r = (unsigned)(s >> 33);
    if (r % 64 == 0) {
        const float sp[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN};
        return T::from_f(sp[(r >> 6) % 5], 0);
    }
    if (r % 64 == 1) return T::of_bits((unsigned short)(r >> 8)); /* any pattern */
    const int e = emin + (int)((r >> 8) % (unsigned)(emax - emin + 1));
    const double m = 1.0 + (double)((r >> 16) & ((1u << T::M) - 1)) / (1 << T::M);
    return T::from_d(((r >> 30) & 1 ? -1 : 1) * std::ldexp(m, e));
}
/* a value as N * 2^k, N an integer (k the weight of T's smallest subnormal) */
template <class T> static __int128 as_int(typename T::S h, int k)
{ return (__int128)std::ldexp((double)T::to_f(h), -k); }

template <class T> __global__ void k_fma(const typename T::S *in, typename T::S *out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = __hfma(in[3 * i], in[3 * i + 1], in[3 * i + 2]);
}
template <class T> static void test_arithmetic()
{
    using S = typename T::S;
    unsigned long long s = 777;
    for (int i = 0; i < 100000; ++i) {
        const S a = rand_val<T>(s, T::emin - 2, T::emax), b = rand_val<T>(s, T::emin - 2, T::emax);
        const double x = T::to_f(a), y = T::to_f(b);
        /* the sum and the product of two values of either format are exact in
         * double; the quotient in double rounds once more, harmlessly (53 >= 2q + 2) */
        CHECK_SAME(T, __hadd(a, b), ref_round<T>(x + y, 0), "add", x);
        CHECK_SAME(T, __hsub(a, b), ref_round<T>(x - y, 0), "sub", x);
        CHECK_SAME(T, __hmul(a, b), ref_round<T>(x * y, 0), "mul", x);
        CHECK_SAME(T, __hdiv(a, b), ref_round<T>(x / y, 0), "div", x);
        CHECK_SAME(T, a + b, ref_round<T>(x + y, 0), "operator+", x);
        CHECK_SAME(T, a * b, ref_round<T>(x * y, 0), "operator*", x);
        CHECK_EQ_INT(__hlt(a, b), x < y);
        CHECK_EQ_INT(a >= b, x >= y);
        CHECK_EQ_INT(__hne(a, b), !std::isnan(x) && !std::isnan(y) && x != y);
        CHECK_EQ_INT(a != b, !(x == y));
        CHECK_EQ_INT(__hleu(a, b), !(x > y));
    }
    /* fma (in a kernel): the exact a * b + c as an integer times 2^(2k),
     * exponents limited so that it fits in 128 bits; then the bf16 products
     * that are exact ties, plus a c too small for a double sum */
    const int lo = T::emax > 64 ? -24 : T::emin - 10, hi = T::emax > 64 ? 24 : T::emax;
    const int k = T::emax > 64 ? -24 - T::M : T::emin - T::M;
    std::vector<S> in;
    for (int i = 0; i < 3 * 100000; ++i) in.push_back(rand_val<T>(s, lo, hi));
    const S a1 = T::from_f(1.0f + 1.0f / 128, 0), b1 = T::from_f(1.5f, 0); /* 1.5 + 2^-7 + 2^-8 */
    const S a2 = T::from_f(1.375f, 0), b2 = T::from_f(1.09375f, 0);          /* 1.5 + 2^-8 */
    const S tiny = T::from_d(std::ldexp(1.0, -100)), ntiny = __hneg(tiny);
    const S ties[] = {a1, b1, ntiny, a1, b1, tiny, a2, b2, tiny, a2, b2, ntiny};
    in.insert(in.end(), ties, ties + 12);
    const int n = (int)in.size() / 3;
    S *din = to_dev(in), *dout = dev_alloc<S>(n);
    k_fma<T><<<blocks(n), 256>>>(din, dout, n);
    const std::vector<S> r = from_dev(dout, n);
    CK(cudaFree(din));
    for (int i = 0; i < n - 4; ++i) {
        const S a = in[3 * i], b = in[3 * i + 1], c = in[3 * i + 2];
        const double x = T::to_f(a), y = T::to_f(b), z = T::to_f(c);
        if (!std::isfinite(x) || !std::isfinite(y) || !std::isfinite(z)) {
            /* a NaN or infinite operand: the result is NaN or infinite, as in double */
            CHECK_SAME(T, r[i], x * y + z, "fma special", x);
            continue;
        }
        bool in_window = true;
        for (double v : {x, y, z})
            in_window = in_window && (v == 0 || (std::fabs(v) >= std::ldexp(1.0, lo) && std::fabs(v) < std::ldexp(1.0, hi + 1)));
        if (!in_window) continue;
        const __int128 e = as_int<T>(a, k) * as_int<T>(b, k) + as_int<T>(c, k) * ((__int128)1 << (-k));
        /* an exact zero has the sign IEEE gives it, as the double sum does */
        CHECK_SAME(T, r[i], e == 0 ? x * y + z : ref_round_int<T>(e, 2 * k), "fma", x);
    }
    if (T::emax > 64) {
        CHECK(T::to_f(r[n - 4]) == 1.5f + 1.0f / 128);
        CHECK(T::to_f(r[n - 3]) == 1.5f + 1.0f / 64);
        CHECK(T::to_f(r[n - 2]) == 1.5f + 1.0f / 128);
        CHECK(T::to_f(r[n - 1]) == 1.5f);
    }
}

/* ---- 5. the documented special cases --------------------------------------- */
/* what CUDA has only in device code: fma variants, the math functions, the
 * conversions to int; results as bits (scalars, pairs) or ints */
template <class T> __global__ void k_specials(int *o)
{
    using S = typename T::S;
    using P = typename T::P;
    const S nan = T::from_f(NAN, 0), one = T::from_f(1.0f, 0), zero = T::from_f(0.0f, 0);
    const S inf = T::from_f(INFINITY, 0), two = T::from_f(2.0f, 0), mone = __hneg(one);
    int k = 0;
    o[k++] = T::bits(__hfma_sat(two, two, one));
    o[k++] = T::bits(__hfma_relu(mone, one, zero));
    o[k++] = T::bits(__hfma_relu(nan, one, one));
    o[k++] = T::bits(__hfma_relu(two, two, one));
    o[k++] = T::bits(hsqrt(T::from_f(4.0f, 0)));
    o[k++] = T::bits(hrsqrt(T::from_f(0.25f, 0)));
    o[k++] = T::bits(hrcp(T::from_f(4.0f, 0)));
    o[k++] = T::bits(hexp(zero));
    o[k++] = T::bits(hlog(one));
    o[k++] = T::bits(hfloor(T::from_f(-1.5f, 0)));
    o[k++] = T::bits(hceil(T::from_f(-1.5f, 0)));
    o[k++] = T::bits(hrint(T::from_f(2.5f, 0)));
    o[k++] = T::bits(htrunc(T::from_f(-2.5f, 0)));
    o[k++] = T::bits(hsin(zero));
    o[k++] = T::bits(hcos(zero));
    o[k++] = T::bits(hexp2(two));
    o[k++] = T::bits(hlog2(T::from_f(8.0f, 0)));
    o[k++] = T::bits(hexp10(two));
    o[k++] = T::bits(hsqrt(mone));
    o[k++] = T::bits(htanh(zero));
    const P q = T::pair(1.0f, 2.0f);
    const P r = __hfma2(q, q, q), rt = h2sqrt(T::pair(9.0f, 16.0f)), cm = __hcmadd(q, q, q);
    const P rl = __hfma2_relu(T::pair(-1.0f, 1.0f), q, q), st = __hfma2_sat(q, q, q), ex = h2exp2(q);
    for (P v : {r, rt, cm, rl, st, ex}) {
        o[k++] = T::bits(v.x);
        o[k++] = T::bits(v.y);
    }
    o[k++] = T::to_int(inf, 1);
    o[k++] = T::to_int(mone * inf, 0);
    o[k++] = T::to_int(nan, 0);
    o[k++] = T::to_int(T::from_f(2.5f, 0), 0);
    o[k++] = T::to_int(T::from_f(3.5f, 0), 0);
    o[k++] = T::to_int(T::from_f(-2.5f, 0), 1);
    o[k++] = T::to_int(T::from_f(-2.5f, 0), 2);
    o[k++] = T::to_int(T::from_f(2.25f, 0), 3);
}
template <class T> static void test_device_specials()
{
    /* scalar and pair results (as values; NaN: the canonical NaN), then ints */
    const float want[] = {1.0f, 0.0f, NAN, 5.0f, 2.0f, 2.0f, 0.25f, 1.0f, 0.0f, -2.0f, -1.0f, 2.0f, -2.0f, 0.0f,
                          1.0f, 4.0f, 3.0f, 100.0f, NAN, 0.0f,
                          2.0f, 6.0f,  /* __hfma2 */
                          3.0f, 4.0f,  /* h2sqrt */
                          -2.0f, 6.0f, /* __hcmadd: (1 + 2i)(1 + 2i) + (1 + 2i) */
                          0.0f, 4.0f,  /* __hfma2_relu */
                          1.0f, 1.0f,  /* __hfma2_sat */
                          2.0f, 4.0f}; /* h2exp2 */
    const int nf = (int)(sizeof want / sizeof want[0]);
    const long long wint[] = {2147483647, -2147483647 - 1, 0, 2, 4, -2, -3, 3};
    const int n = nf + 8;
    int *d = dev_alloc<int>(n);
    k_specials<T><<<1, 1>>>(d);
    const std::vector<int> o = from_dev(d, n);
    for (int k = 0; k < nf; ++k)
        if (o[k] != (int)T::bits(T::from_f(want[k], 0))) {
            std::fprintf(stderr, "%s: device special #%d is %#06x, expected %g\n", T::name(), k, o[k], want[k]);
            ++g_test_failures;
        }
    for (int k = 0; k < 8; ++k) CHECK_EQ_INT(o[nf + k], wint[k]);
}

template <class T> static void test_specials()
{
    using S = typename T::S;
    using P = typename T::P;
    const S nan = T::from_f(NAN, 0), one = T::from_f(1.0f, 0), zero = T::from_f(0.0f, 0);
    const S nzero = T::from_f(-0.0f, 0), inf = T::from_f(INFINITY, 0), two = T::from_f(2.0f, 0);
    CHECK(T::bits(__hmax(nan, one)) == T::bits(one) && T::bits(__hmax(one, nan)) == T::bits(one));
    CHECK(T::bits(__hmin(nan, two)) == T::bits(two));
    CHECK(T::bits(__hmax(nan, nan)) == 0x7FFF);
    CHECK(T::bits(__hmax(nzero, zero)) == 0 && T::bits(__hmax(zero, nzero)) == 0);
    CHECK(T::bits(__hmin(nzero, zero)) == 0x8000 && T::bits(__hmin(zero, nzero)) == 0x8000);
    CHECK(T::bits(__hmax_nan(one, nan)) == 0x7FFF && T::bits(__hmin_nan(nan, one)) == 0x7FFF);
    CHECK(!__heq(nan, nan) && __hequ(nan, nan) && !__hne(nan, one) && __hneu(nan, one) && !(nan == nan));
    CHECK(__heq(zero, nzero) && zero == nzero);
    CHECK(__hisnan(nan) && !__hisnan(inf) && __hisinf(inf) == 1 && __hisinf(__hneg(inf)) == -1 && __hisinf(one) == 0);
    CHECK(T::bits(__hneg(zero)) == 0x8000 && T::bits(-zero) == 0x8000 && T::bits(__habs(__hneg(inf))) == T::bits(inf));
    CHECK(T::to_f(__hadd_sat(T::from_f(0.75f, 0), T::from_f(0.5f, 0))) == 1.0f);
    CHECK(T::bits(__hadd_sat(__hneg(one), T::from_f(0.5f, 0))) == 0);
    CHECK(T::bits(__hmul_sat(nan, one)) == 0 && T::bits(__hsub_sat(zero, zero)) == 0);
    CHECK((int)S(-7.75f) == -7 && (unsigned)S(-7.0f) == 0u && (bool)nzero == false && (bool)one);
    /* pairs */
    const P p = T::pair(1.0f, NAN), q = T::pair(1.0f, 2.0f);
    const float2 e = T::unpair(__heq2(p, q)), eu = T::unpair(__hequ2(p, q));
    CHECK(e.x == 1.0f && e.y == 0.0f && eu.x == 1.0f && eu.y == 1.0f);
    CHECK(__heq2_mask(p, q) == 0xFFFFu && __hequ2_mask(p, q) == 0xFFFFFFFFu && __hlt2_mask(q, T::pair(2.0f, 3.0f)) == 0xFFFFFFFFu);
    CHECK(!__hbeq2(p, q) && __hbequ2(p, q) && __hbeq2(q, q) && q == q && !(p == q));
    CHECK(!(p != q) && q != T::pair(2.0f, 3.0f) && !(q != T::pair(2.0f, 2.0f))); /* != is both lanes */
    CHECK(__hblt2(q, T::pair(2.0f, 3.0f)) && !__hblt2(q, T::pair(2.0f, 2.0f)) && q <= T::pair(1.0f, 2.0f));
    const float2 r = T::unpair(q * q + q - T::pair(0.5f, 0.5f));
    CHECK(r.x == 1.5f && r.y == 5.5f);
    const float2 sw = T::unpair(__lowhigh2highlow(q));
    CHECK(sw.x == 2.0f && sw.y == 1.0f && __low2float(q) == 1.0f && __high2float(q) == 2.0f);
    const float2 n2 = T::unpair(-__habs2(__hneg2(q)));
    CHECK(n2.x == -1.0f && n2.y == -2.0f);
    const float2 sat = T::unpair(__hadd2_sat(q, q));
    CHECK(sat.x == 1.0f && sat.y == 1.0f);
    const float2 dv = T::unpair(__h2div(q, T::pair(4.0f, 8.0f)));
    CHECK(dv.x == 0.25f && dv.y == 0.25f);
    const float2 isn = T::unpair(__hisnan2(p));
    CHECK(isn.x == 0.0f && isn.y == 1.0f);
    S h = one;
    h += two;
    h *= two;
    h -= one;
    h /= T::from_f(5.0f, 0);
    ++h;
    h++;
    CHECK(T::to_f(h) == 3.0f && h > one && !(h < one) && h == T::from_f(3.0f, 0));
}

template <class T> static void test_api_extras(); /* per-type names, below */
template <> void test_api_extras<Fp16>()
{
    const __half h = __float2half(1.0f);
    const __half2 p = __halves2half2(h, __float2half(2.0f));
    CHECK(__half2float(__low2half(p)) == 1.0f && __half2float(__high2half(p)) == 2.0f);
    CHECK(__high2float(__lows2half2(p, __half2half2(h))) == 1.0f && __low2float(__highs2half2(p, p)) == 2.0f);
    CHECK(__high2float(__low2half2(p)) == 1.0f && __low2float(__high2half2(p)) == 2.0f);
    CHECK(__low2float(__float2half2_rn(3.0f)) == 3.0f && __high2float(__float22half2_rn(make_float2(4.0f, 5.0f))) == 5.0f);
    CHECK(__half_as_short(__short_as_half((short)-1)) == -1 && __half_as_ushort(CUDART_INF_FP16) == 0x7C00);
    CHECK(__half2float(CUDART_MAX_NORMAL_FP16) == 65504.0f && __half2float(CUDART_ONE_FP16) == 1.0f);
    CHECK(__half2short_rz(__float2half(65504.0f)) == 32767 && __half2ushort_rz(__float2half(-3.0f)) == 0);
    CHECK(__half2uint_rz(__float2half(-5.0f)) == 0u && __half2ll_rz(__float2half(-1.5f)) == -1);
    CHECK(__half2ull_rz(__float2half(1.75f)) == 1ull && __half2char_rz(__float2half(200.0f)) == 127);
    CHECK(__half2uchar_rz(__float2half(-1.0f)) == 0 && __half2uchar_rz(__float2half(300.0f)) == 255);
    CHECK(__half2float(__uint2half_rn(4097u)) == 4096.0f && __half2float(__ushort2half_ru((unsigned short)4097)) == 4100.0f);
    CHECK(__half2float(__short2half_rd((short)-4097)) == -4100.0f && __half2float(__ull2half_rn(2049ull)) == 2048.0f);
    const half2 m = make_half2(h, h);
    CHECK(__low2float(m) == 1.0f);
    const __nv_bfloat16 b(h); /* explicit, both ways */
    CHECK(__bfloat162float(b) == 1.0f && __half2float(__half(__float2bfloat16(1.0f / 3))) == __half2float(__float2half(0.333984375f)));
}
template <> void test_api_extras<Bf16>()
{
    const __nv_bfloat16 h = __float2bfloat16(1.0f);
    const __nv_bfloat162 p = __halves2bfloat162(h, __float2bfloat16(2.0f));
    CHECK(__bfloat162float(__low2bfloat16(p)) == 1.0f && __bfloat162float(__high2bfloat16(p)) == 2.0f);
    CHECK(__high2float(__lows2bfloat162(p, __bfloat162bfloat162(h))) == 1.0f && __low2float(__highs2bfloat162(p, p)) == 2.0f);
    CHECK(__high2float(__low2bfloat162(p)) == 1.0f && __low2float(__high2bfloat162(p)) == 2.0f);
    CHECK(__low2float(__float2bfloat162_rn(3.0f)) == 3.0f && __high2float(__float22bfloat162_rn(make_float2(4.0f, 5.0f))) == 5.0f);
    CHECK(__bfloat16_as_short(__short_as_bfloat16((short)-1)) == -1 && __bfloat16_as_ushort(CUDART_INF_BF16) == 0x7F80);
    CHECK(__bfloat162float(CUDART_MAX_NORMAL_BF16) == 3.3895314e38f && __bfloat162float(CUDART_ONE_BF16) == 1.0f);
    CHECK(__bfloat162short_rz(__float2bfloat16(1e10f)) == 32767 && __bfloat162uchar_rz(__float2bfloat16(300.0f)) == 255);
    CHECK(__bfloat162char_rz(__float2bfloat16(-300.0f)) == -128 && __bfloat162ull_rz(__float2bfloat16(-1.0f)) == 0ull);
    CHECK(__bfloat162float(__uint2bfloat16_rn(257u)) == 256.0f && __bfloat162float(__ushort2bfloat16_rn((unsigned short)259)) == 260.0f);
    /* bf16 NaN payloads survive the widening (a shift, as in CUDA) */
    const float w = __bfloat162float(__ushort_as_bfloat16(0xFFC1));
    unsigned u;
    std::memcpy(&u, &w, 4);
    CHECK(u == 0xFFC10000u);
    const nv_bfloat162 m = make_bfloat162(h, h);
    CHECK(__low2float(m) == 1.0f);
}

/* ---- 6. kernels ------------------------------------------------------------ */
/* Each warp: the products x[i] * y[i] of its 32 pairs (__hmul2 on __ldg'd
 * pairs), summed by a shuffle butterfly of __hadd2 (5 levels); lane 0 writes
 * the warp's sum as float2. */
template <class T>
__global__ void warp_dot(const typename T::P *x, const typename T::P *y, float2 *out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    typename T::P v = T::pair(0.0f, 0.0f);
    if (i < n) v = __hmul2(__ldg(&x[i]), __ldg(&y[i]));
    for (int m = 16; m > 0; m >>= 1) v = __hadd2(v, __shfl_xor_sync(0xffffffffu, v, m));
    if (threadIdx.x % 32 == 0) out[i / 32] = T::unpair(v);
}

template <class T> static void test_warp_dot(bool integers)
{
    using P = typename T::P;
    const int n = 4096, warps = n / 32;
    std::vector<P> hx(n), hy(n);
    unsigned long long s = integers ? 99 : 4242;
    for (int i = 0; i < n; ++i) {
        float v[4];
        for (float &f : v) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            const unsigned r = (unsigned)(s >> 33);
            /* small integers, x in 0..3 and y in 0..1 (sums exact in both
             * formats), or [0.25, 2) with a sign */
            f = integers ? (float)(r % (&f < v + 2 ? 4 : 2))
                         : ((r & 1) ? -1.0f : 1.0f) * (0.25f + 1.75f * (float)((r >> 1) % 100000) / 100000.0f);
        }
        hx[i] = T::pair(v[0], v[1]);
        hy[i] = T::pair(v[2], v[3]);
    }
    P *dx, *dy;
    float2 *dout;
    CK(cudaMalloc(&dx, n * sizeof(P)));
    CK(cudaMalloc(&dy, n * sizeof(P)));
    CK(cudaMalloc(&dout, warps * sizeof(float2)));
    CK(cudaMemcpy(dx, hx.data(), n * sizeof(P), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dy, hy.data(), n * sizeof(P), cudaMemcpyHostToDevice));
    warp_dot<T><<<n / 128, 128>>>(dx, dy, dout, n);
    CK(cudaGetLastError());
    std::vector<float2> out(warps);
    CK(cudaMemcpy(out.data(), dout, warps * sizeof(float2), cudaMemcpyDeviceToHost));
    /* each product and each of the 5 additions rounds once with relative
     * error at most u = 2^-(M+1): |sum - exact| <= gamma_6 * sum |x_i y_i| */
    const double u = std::ldexp(1.0, -(T::M + 1)), gamma = 6 * u / (1 - 6 * u);
    for (int w = 0; w < warps; ++w) {
        double ex = 0, ey = 0, ax = 0, ay = 0;
        for (int i = w * 32; i < w * 32 + 32; ++i) {
            const float2 a = T::unpair(hx[i]), b = T::unpair(hy[i]);
            ex += (double)a.x * b.x, ey += (double)a.y * b.y;
            ax += std::fabs((double)a.x * b.x), ay += std::fabs((double)a.y * b.y);
        }
        if (integers) {
            CHECK(out[w].x == ex && out[w].y == ey);
        } else {
            CHECK(std::fabs(out[w].x - ex) <= gamma * ax && std::fabs(out[w].y - ey) <= gamma * ay);
        }
    }
    CK(cudaFree(dx));
    CK(cudaFree(dy));
    CK(cudaFree(dout));
}

/* The four shuffles on the scalar and the pair, and atomicAdd on both. */
template <class T>
__global__ void shuffles(float *out, typename T::S *acc, typename T::P *acc2)
{
    using S = typename T::S;
    const int lane = threadIdx.x % 32;
    const S h = S((float)lane);
    const typename T::P p = T::pair((float)lane, (float)-lane);
    float *o = out + 6 * threadIdx.x;
    o[0] = (float)__shfl_sync(0xffffffffu, h, 3);
    o[1] = (float)__shfl_down_sync(0xffffffffu, h, 1);
    o[2] = (float)__shfl_xor_sync(0xffffffffu, h, 5);
    o[3] = (float)__shfl_up_sync(0xffffffffu, h, 2);
    const float2 q = T::unpair(__shfl_xor_sync(0xffffffffu, p, 1));
    const float2 r = T::unpair(__shfl_down_sync(0xffffffffu, p, 4, 16)); /* within 16-lane segments */
    o[4] = q.x + 100 * q.y; /* (lane ^ 1) * -99 */
    o[5] = r.y;
    atomicAdd(acc, S(1.0f));
    atomicAdd(acc2, T::pair(0.5f, -0.25f));
}

template <class T> static void test_shuffles()
{
    using S = typename T::S;
    using P = typename T::P;
    const int threads = 256;
    float *dout;
    S *acc;
    P *acc2;
    CK(cudaMalloc(&dout, 6 * threads * sizeof(float)));
    CK(cudaMalloc(&acc, sizeof(S)));
    CK(cudaMalloc(&acc2, sizeof(P)));
    CK(cudaMemset(acc, 0, sizeof(S)));
    CK(cudaMemset(acc2, 0, sizeof(P)));
    shuffles<T><<<1, threads>>>(dout, acc, acc2);
    CK(cudaGetLastError());
    std::vector<float> out(6 * threads);
    CK(cudaMemcpy(out.data(), dout, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (int t = 0; t < threads; ++t) {
        const int lane = t % 32;
        const float *o = &out[6 * t];
        CHECK(o[0] == 3.0f);
        CHECK(o[1] == (float)(lane < 31 ? lane + 1 : lane));
        CHECK(o[2] == (float)(lane ^ 5));
        CHECK(o[3] == (float)(lane >= 2 ? lane - 2 : lane));
        CHECK(o[4] == (float)((lane ^ 1) * -99));
        CHECK(o[5] == -(float)(lane % 16 < 12 ? lane + 4 : lane));
    }
    S a;
    P a2;
    CK(cudaMemcpy(&a, acc, sizeof(S), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&a2, acc2, sizeof(P), cudaMemcpyDeviceToHost));
    const float2 f2 = T::unpair(a2);
    CHECK(T::to_f(a) == (float)threads && f2.x == threads * 0.5f && f2.y == threads * -0.25f);
    CK(cudaFree(dout));
    CK(cudaFree(acc));
    CK(cudaFree(acc2));
}

template <class T> static void test_type()
{
    test_all_patterns<T>();
    test_rounding<T>();
    test_integers<T>();
    test_arithmetic<T>();
    test_specials<T>();
    test_device_specials<T>();
    test_api_extras<T>();
    test_warp_dot<T>(false);
    test_warp_dot<T>(true);
    test_shuffles<T>();
}

int main()
{
    test_type<Fp16>();
    test_type<Bf16>();
    return test_exit("half_types");
}
