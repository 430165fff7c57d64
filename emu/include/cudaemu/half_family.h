/* emu/include/cudaemu/half_family.h - what cuda_fp16.h and cuda_bf16.h have in
 * common: the scalar and pair classes and every function or operator that
 * CUDA gives the same name for both (__hadd, __hfma2, __heq, hsqrt, h2exp,
 * operator+, atomicAdd, ...).  No include guard: cuda_fp16.h includes it for
 * __half and cuda_bf16.h for __nv_bfloat16, each after defining
 *   CUDAEMU_H, CUDAEMU_H2         the scalar and the pair type
 *   CUDAEMU_HRAW, CUDAEMU_H2RAW   their raw structs
 *   CUDAEMU_HFMT                  the format (cudaemu/half_bits.h)
 *   CUDAEMU_HOTHER                the other scalar type (explicit conversion,
 *                                 defined in cuda_bf16.h, as in CUDA)
 *   CUDAEMU_HCONV, CUDAEMU_HOPS, CUDAEMU_H2OPS
 *                                 0 where the program defined CUDA's
 *                                 __CUDA_NO_{HALF,BFLOAT16}_{CONVERSIONS,OPERATORS}__
 *                                 or __CUDA_NO_{HALF2,BFLOAT162}_OPERATORS__
 * and it undefines them at its end.
 *
 * Semantics are CUDA's (its documentation of each function): arithmetic in
 * float, rounded once to nearest even (exact, see cudaemu/half_bits.h); fused
 * multiply-add rounded once from the exact value; comparisons false on NaN
 * unless unordered (..u); __hmax/__hmin return the other operand for one NaN,
 * the canonical NaN for two, and order +0 above -0; the _nan forms propagate
 * NaN; _sat clamps to [0, 1] (NaN to +0); _relu clamps below at +0 keeping
 * NaN; the math functions (hsqrt, hexp, ...) are computed in double and
 * rounded once.  Warp shuffles, __ldg & co. take these types through
 * device_functions.h's templates (the types are trivially copyable).
 */

struct CUDAEMU_H;
template <> struct cudaemu::detail::hformat<CUDAEMU_H> { using type = CUDAEMU_HFMT; };

struct alignas(2) CUDAEMU_H {
protected:
    unsigned short __x;

public:
    CUDAEMU_H() = default;
    constexpr CUDAEMU_H(const CUDAEMU_HRAW &hr) : __x(hr.x) {}
    CUDAEMU_H &operator=(const CUDAEMU_HRAW &hr) { __x = hr.x; return *this; }
    volatile CUDAEMU_H &operator=(const CUDAEMU_HRAW &hr) volatile { __x = hr.x; return *this; }
    volatile CUDAEMU_H &operator=(const volatile CUDAEMU_HRAW &hr) volatile { __x = hr.x; return *this; }
    operator CUDAEMU_HRAW() const { CUDAEMU_HRAW r; r.x = __x; return r; }
    operator CUDAEMU_HRAW() const volatile { CUDAEMU_HRAW r; r.x = __x; return r; }
#if CUDAEMU_HCONV
    explicit CUDAEMU_H(const CUDAEMU_HOTHER f);
    CUDAEMU_H(const float f) : __x(enc(f)) {}
    CUDAEMU_H(const double f) : __x(enc(f)) {}
    operator float() const { return ::cudaemu::detail::h_decode<CUDAEMU_HFMT>(__x); }
    CUDAEMU_H &operator=(const float f) { __x = enc(f); return *this; }
    CUDAEMU_H &operator=(const double f) { __x = enc(f); return *this; }
    /* implicit conversions from and to the integer types (as nvcc gives them):
     * from, rounded to nearest even; to, towards zero and saturated */
    CUDAEMU_H(const short v) : __x(from_int(v)) {}
    CUDAEMU_H(const unsigned short v) : __x(from_int(v)) {}
    CUDAEMU_H(const int v) : __x(from_int(v)) {}
    CUDAEMU_H(const unsigned int v) : __x(from_int(v)) {}
    CUDAEMU_H(const long v) : __x(from_int(v)) {}
    CUDAEMU_H(const unsigned long v) : __x(from_int(v)) {}
    CUDAEMU_H(const long long v) : __x(from_int(v)) {}
    CUDAEMU_H(const unsigned long long v) : __x(from_int(v)) {}
    operator signed char() const { return to_int<signed char>(); }
    operator unsigned char() const { return to_int<unsigned char>(); }
    operator char() const { return to_int<char>(); }
    operator short() const { return to_int<short>(); }
    operator unsigned short() const { return to_int<unsigned short>(); }
    operator int() const { return to_int<int>(); }
    operator unsigned int() const { return to_int<unsigned int>(); }
    operator long() const { return to_int<long>(); }
    operator unsigned long() const { return to_int<unsigned long>(); }
    operator long long() const { return to_int<long long>(); }
    operator unsigned long long() const { return to_int<unsigned long long>(); }
    CUDAEMU_H &operator=(const short v) { __x = from_int(v); return *this; }
    CUDAEMU_H &operator=(const unsigned short v) { __x = from_int(v); return *this; }
    CUDAEMU_H &operator=(const int v) { __x = from_int(v); return *this; }
    CUDAEMU_H &operator=(const unsigned int v) { __x = from_int(v); return *this; }
    CUDAEMU_H &operator=(const long long v) { __x = from_int(v); return *this; }
    CUDAEMU_H &operator=(const unsigned long long v) { __x = from_int(v); return *this; }
    constexpr operator bool() const { return (__x & 0x7FFFu) != 0; }

private:
    static unsigned short enc(double v)
    { return ::cudaemu::detail::h_encode<CUDAEMU_HFMT>(v, ::cudaemu::detail::hround::rn); }
    template <class I> static unsigned short from_int(I v)
    { return ::cudaemu::detail::int_to_h<CUDAEMU_HFMT>(v, ::cudaemu::detail::hround::rn); }
    template <class I> I to_int() const
    { return ::cudaemu::detail::float_to_int<I>(float(*this), ::cudaemu::detail::hround::rz); }
#endif
};

struct alignas(4) CUDAEMU_H2 {
    CUDAEMU_H x;
    CUDAEMU_H y;

    CUDAEMU_H2() = default;
    constexpr CUDAEMU_H2(const CUDAEMU_H &a, const CUDAEMU_H &b) : x(a), y(b) {}
    CUDAEMU_H2(const CUDAEMU_H2RAW &r) : x(lane(r.x)), y(lane(r.y)) {}
    CUDAEMU_H2 &operator=(const CUDAEMU_H2RAW &r) { x = lane(r.x); y = lane(r.y); return *this; }
    operator CUDAEMU_H2RAW() const
    {
        CUDAEMU_H2RAW r;
        r.x = ::cudaemu::detail::hbits(x);
        r.y = ::cudaemu::detail::hbits(y);
        return r;
    }

private:
    static CUDAEMU_H lane(unsigned short b) { CUDAEMU_HRAW r; r.x = b; return CUDAEMU_H(r); }
};

/* ---- scalar arithmetic --------------------------------------------------- */
inline CUDAEMU_H __hadd(const CUDAEMU_H a, const CUDAEMU_H b)
{ return ::cudaemu::detail::hr<CUDAEMU_H>(::cudaemu::detail::hf(a) + ::cudaemu::detail::hf(b)); }
inline CUDAEMU_H __hsub(const CUDAEMU_H a, const CUDAEMU_H b)
{ return ::cudaemu::detail::hr<CUDAEMU_H>(::cudaemu::detail::hf(a) - ::cudaemu::detail::hf(b)); }
inline CUDAEMU_H __hmul(const CUDAEMU_H a, const CUDAEMU_H b)
{ return ::cudaemu::detail::hr<CUDAEMU_H>(::cudaemu::detail::hf(a) * ::cudaemu::detail::hf(b)); }
inline CUDAEMU_H __hdiv(const CUDAEMU_H a, const CUDAEMU_H b)
{ return ::cudaemu::detail::hr<CUDAEMU_H>(::cudaemu::detail::hf(a) / ::cudaemu::detail::hf(b)); }
/* the _rn forms only forbid contraction into an fma, which never happens here */
inline CUDAEMU_H __hadd_rn(const CUDAEMU_H a, const CUDAEMU_H b) { return __hadd(a, b); }
inline CUDAEMU_H __hsub_rn(const CUDAEMU_H a, const CUDAEMU_H b) { return __hsub(a, b); }
inline CUDAEMU_H __hmul_rn(const CUDAEMU_H a, const CUDAEMU_H b) { return __hmul(a, b); }
inline CUDAEMU_H __hfma(const CUDAEMU_H a, const CUDAEMU_H b, const CUDAEMU_H c)
{
    return ::cudaemu::detail::hr<CUDAEMU_H>(::cudaemu::detail::fma_odd(
        ::cudaemu::detail::hf(a), ::cudaemu::detail::hf(b), ::cudaemu::detail::hf(c)));
}
inline CUDAEMU_H __hneg(const CUDAEMU_H a)
{ return ::cudaemu::detail::hmake<CUDAEMU_H>((unsigned short)(::cudaemu::detail::hbits(a) ^ 0x8000u)); }
inline CUDAEMU_H __habs(const CUDAEMU_H a)
{ return ::cudaemu::detail::hmake<CUDAEMU_H>((unsigned short)(::cudaemu::detail::hbits(a) & 0x7FFFu)); }

/* ---- comparisons (ordered: false on NaN; ..u: true on NaN) --------------- */
inline bool __hisnan(const CUDAEMU_H a)
{ return (::cudaemu::detail::hbits(a) & 0x7FFFu) > ::cudaemu::detail::hfmt<CUDAEMU_HFMT>::inf; }
inline int __hisinf(const CUDAEMU_H a)
{
    const unsigned b = ::cudaemu::detail::hbits(a), inf = ::cudaemu::detail::hfmt<CUDAEMU_HFMT>::inf;
    return b == inf ? 1 : b == (inf | 0x8000u) ? -1 : 0;
}
inline bool __heq(const CUDAEMU_H a, const CUDAEMU_H b) { return ::cudaemu::detail::hf(a) == ::cudaemu::detail::hf(b); }
inline bool __hne(const CUDAEMU_H a, const CUDAEMU_H b)
{ return !__hisnan(a) && !__hisnan(b) && ::cudaemu::detail::hf(a) != ::cudaemu::detail::hf(b); }
inline bool __hlt(const CUDAEMU_H a, const CUDAEMU_H b) { return ::cudaemu::detail::hf(a) < ::cudaemu::detail::hf(b); }
inline bool __hle(const CUDAEMU_H a, const CUDAEMU_H b) { return ::cudaemu::detail::hf(a) <= ::cudaemu::detail::hf(b); }
inline bool __hgt(const CUDAEMU_H a, const CUDAEMU_H b) { return ::cudaemu::detail::hf(a) > ::cudaemu::detail::hf(b); }
inline bool __hge(const CUDAEMU_H a, const CUDAEMU_H b) { return ::cudaemu::detail::hf(a) >= ::cudaemu::detail::hf(b); }
inline bool __hequ(const CUDAEMU_H a, const CUDAEMU_H b) { return !__hne(a, b); }
inline bool __hneu(const CUDAEMU_H a, const CUDAEMU_H b) { return !__heq(a, b); }
inline bool __hltu(const CUDAEMU_H a, const CUDAEMU_H b) { return !__hge(a, b); }
inline bool __hleu(const CUDAEMU_H a, const CUDAEMU_H b) { return !__hgt(a, b); }
inline bool __hgtu(const CUDAEMU_H a, const CUDAEMU_H b) { return !__hle(a, b); }
inline bool __hgeu(const CUDAEMU_H a, const CUDAEMU_H b) { return !__hlt(a, b); }

/* ---- max, min, saturation ------------------------------------------------ */
inline CUDAEMU_H __hmax(const CUDAEMU_H a, const CUDAEMU_H b)
{
    using namespace ::cudaemu::detail;
    if (__hisnan(a) && __hisnan(b)) return hmake<CUDAEMU_H>(hfmt<CUDAEMU_HFMT>::canonical_nan);
    if (__hisnan(a)) return b;
    if (__hisnan(b)) return a;
    if (hf(a) == hf(b)) return (hbits(a) & 0x8000u) ? b : a; /* +0 > -0 */
    return hf(a) > hf(b) ? a : b;
}
inline CUDAEMU_H __hmin(const CUDAEMU_H a, const CUDAEMU_H b)
{
    using namespace ::cudaemu::detail;
    if (__hisnan(a) && __hisnan(b)) return hmake<CUDAEMU_H>(hfmt<CUDAEMU_HFMT>::canonical_nan);
    if (__hisnan(a)) return b;
    if (__hisnan(b)) return a;
    if (hf(a) == hf(b)) return (hbits(a) & 0x8000u) ? a : b;
    return hf(a) < hf(b) ? a : b;
}
inline CUDAEMU_H __hmax_nan(const CUDAEMU_H a, const CUDAEMU_H b)
{
    using namespace ::cudaemu::detail;
    return __hisnan(a) || __hisnan(b) ? hmake<CUDAEMU_H>(hfmt<CUDAEMU_HFMT>::canonical_nan) : __hmax(a, b);
}
inline CUDAEMU_H __hmin_nan(const CUDAEMU_H a, const CUDAEMU_H b)
{
    using namespace ::cudaemu::detail;
    return __hisnan(a) || __hisnan(b) ? hmake<CUDAEMU_H>(hfmt<CUDAEMU_HFMT>::canonical_nan) : __hmin(a, b);
}
namespace cudaemu {
namespace detail {
/* clamp to [+0, 1]; NaN and -0 give +0 */
inline ::CUDAEMU_H hsat(const ::CUDAEMU_H v) { return __hmin(__hmax(v, hr<::CUDAEMU_H>(0.0)), hr<::CUDAEMU_H>(1.0)); }
} // namespace detail
} // namespace cudaemu
inline CUDAEMU_H __hadd_sat(const CUDAEMU_H a, const CUDAEMU_H b) { return ::cudaemu::detail::hsat(__hadd(a, b)); }
inline CUDAEMU_H __hsub_sat(const CUDAEMU_H a, const CUDAEMU_H b) { return ::cudaemu::detail::hsat(__hsub(a, b)); }
inline CUDAEMU_H __hmul_sat(const CUDAEMU_H a, const CUDAEMU_H b) { return ::cudaemu::detail::hsat(__hmul(a, b)); }
inline CUDAEMU_H __hfma_sat(const CUDAEMU_H a, const CUDAEMU_H b, const CUDAEMU_H c)
{ return ::cudaemu::detail::hsat(__hfma(a, b, c)); }
inline CUDAEMU_H __hfma_relu(const CUDAEMU_H a, const CUDAEMU_H b, const CUDAEMU_H c)
{ return __hmax_nan(__hfma(a, b, c), ::cudaemu::detail::hr<CUDAEMU_H>(0.0)); }

/* ---- math: computed in double, rounded once ------------------------------ */
#define CUDAEMU_HMATH(name, h2name, expr)                                      \
    inline CUDAEMU_H name(const CUDAEMU_H a)                                   \
    {                                                                          \
        const double x = ::cudaemu::detail::hf(a);                            \
        return ::cudaemu::detail::hr<CUDAEMU_H>(expr);                        \
    }                                                                          \
    inline CUDAEMU_H2 h2name(const CUDAEMU_H2 a) { return CUDAEMU_H2(name(a.x), name(a.y)); }
CUDAEMU_HMATH(hsqrt, h2sqrt, std::sqrt(x))
CUDAEMU_HMATH(hrsqrt, h2rsqrt, 1.0 / std::sqrt(x))
CUDAEMU_HMATH(hrcp, h2rcp, 1.0 / x)
CUDAEMU_HMATH(hexp, h2exp, std::exp(x))
CUDAEMU_HMATH(hexp2, h2exp2, std::exp2(x))
CUDAEMU_HMATH(hexp10, h2exp10, std::pow(10.0, x))
CUDAEMU_HMATH(hlog, h2log, std::log(x))
CUDAEMU_HMATH(hlog2, h2log2, std::log2(x))
CUDAEMU_HMATH(hlog10, h2log10, std::log10(x))
CUDAEMU_HMATH(hsin, h2sin, std::sin(x))
CUDAEMU_HMATH(hcos, h2cos, std::cos(x))
CUDAEMU_HMATH(htanh, h2tanh, std::tanh(x))
CUDAEMU_HMATH(htanh_approx, h2tanh_approx, std::tanh(x))
CUDAEMU_HMATH(hceil, h2ceil, std::ceil(x))
CUDAEMU_HMATH(hfloor, h2floor, std::floor(x))
CUDAEMU_HMATH(htrunc, h2trunc, std::trunc(x))
CUDAEMU_HMATH(hrint, h2rint, std::nearbyint(x))
#undef CUDAEMU_HMATH

/* ---- pairs: lane by lane ------------------------------------------------- */
#define CUDAEMU_HPAIR2(name, op)                                               \
    inline CUDAEMU_H2 name(const CUDAEMU_H2 a, const CUDAEMU_H2 b) { return CUDAEMU_H2(op(a.x, b.x), op(a.y, b.y)); }
CUDAEMU_HPAIR2(__hadd2, __hadd)
CUDAEMU_HPAIR2(__hsub2, __hsub)
CUDAEMU_HPAIR2(__hmul2, __hmul)
CUDAEMU_HPAIR2(__h2div, __hdiv)
CUDAEMU_HPAIR2(__hadd2_rn, __hadd)
CUDAEMU_HPAIR2(__hsub2_rn, __hsub)
CUDAEMU_HPAIR2(__hmul2_rn, __hmul)
CUDAEMU_HPAIR2(__hadd2_sat, __hadd_sat)
CUDAEMU_HPAIR2(__hsub2_sat, __hsub_sat)
CUDAEMU_HPAIR2(__hmul2_sat, __hmul_sat)
CUDAEMU_HPAIR2(__hmax2, __hmax)
CUDAEMU_HPAIR2(__hmin2, __hmin)
CUDAEMU_HPAIR2(__hmax2_nan, __hmax_nan)
CUDAEMU_HPAIR2(__hmin2_nan, __hmin_nan)
#undef CUDAEMU_HPAIR2
inline CUDAEMU_H2 __hfma2(const CUDAEMU_H2 a, const CUDAEMU_H2 b, const CUDAEMU_H2 c)
{ return CUDAEMU_H2(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)); }
inline CUDAEMU_H2 __hfma2_sat(const CUDAEMU_H2 a, const CUDAEMU_H2 b, const CUDAEMU_H2 c)
{ return CUDAEMU_H2(__hfma_sat(a.x, b.x, c.x), __hfma_sat(a.y, b.y, c.y)); }
inline CUDAEMU_H2 __hfma2_relu(const CUDAEMU_H2 a, const CUDAEMU_H2 b, const CUDAEMU_H2 c)
{ return CUDAEMU_H2(__hfma_relu(a.x, b.x, c.x), __hfma_relu(a.y, b.y, c.y)); }
/* complex a * b + c, (x, y) = (re, im), as CUDA documents it: two fmas each */
inline CUDAEMU_H2 __hcmadd(const CUDAEMU_H2 a, const CUDAEMU_H2 b, const CUDAEMU_H2 c)
{
    return CUDAEMU_H2(__hfma(__hneg(a.y), b.y, __hfma(a.x, b.x, c.x)),
                      __hfma(a.y, b.x, __hfma(a.x, b.y, c.y)));
}
inline CUDAEMU_H2 __hneg2(const CUDAEMU_H2 a) { return CUDAEMU_H2(__hneg(a.x), __hneg(a.y)); }
inline CUDAEMU_H2 __habs2(const CUDAEMU_H2 a) { return CUDAEMU_H2(__habs(a.x), __habs(a.y)); }
inline float __low2float(const CUDAEMU_H2 a) { return ::cudaemu::detail::hf(a.x); }
inline float __high2float(const CUDAEMU_H2 a) { return ::cudaemu::detail::hf(a.y); }
inline CUDAEMU_H2 __lowhigh2highlow(const CUDAEMU_H2 a) { return CUDAEMU_H2(a.y, a.x); }

/* comparisons of pairs: __hXX2 gives 1.0 or 0.0 per lane, __hXX2_mask 0xFFFF
 * or 0 per lane (low lane in the low bits), __hbXX2 true when both lanes are */
#define CUDAEMU_HCMP2(op, name2, mask2, both2)                                 \
    inline CUDAEMU_H2 name2(const CUDAEMU_H2 a, const CUDAEMU_H2 b)            \
    {                                                                          \
        return CUDAEMU_H2(::cudaemu::detail::hr<CUDAEMU_H>(op(a.x, b.x) ? 1.0 : 0.0), \
                          ::cudaemu::detail::hr<CUDAEMU_H>(op(a.y, b.y) ? 1.0 : 0.0)); \
    }                                                                          \
    inline unsigned mask2(const CUDAEMU_H2 a, const CUDAEMU_H2 b)              \
    { return (op(a.x, b.x) ? 0xFFFFu : 0u) | (op(a.y, b.y) ? 0xFFFF0000u : 0u); } \
    inline bool both2(const CUDAEMU_H2 a, const CUDAEMU_H2 b) { return op(a.x, b.x) && op(a.y, b.y); }
CUDAEMU_HCMP2(__heq, __heq2, __heq2_mask, __hbeq2)
CUDAEMU_HCMP2(__hne, __hne2, __hne2_mask, __hbne2)
CUDAEMU_HCMP2(__hlt, __hlt2, __hlt2_mask, __hblt2)
CUDAEMU_HCMP2(__hle, __hle2, __hle2_mask, __hble2)
CUDAEMU_HCMP2(__hgt, __hgt2, __hgt2_mask, __hbgt2)
CUDAEMU_HCMP2(__hge, __hge2, __hge2_mask, __hbge2)
CUDAEMU_HCMP2(__hequ, __hequ2, __hequ2_mask, __hbequ2)
CUDAEMU_HCMP2(__hneu, __hneu2, __hneu2_mask, __hbneu2)
CUDAEMU_HCMP2(__hltu, __hltu2, __hltu2_mask, __hbltu2)
CUDAEMU_HCMP2(__hleu, __hleu2, __hleu2_mask, __hbleu2)
CUDAEMU_HCMP2(__hgtu, __hgtu2, __hgtu2_mask, __hbgtu2)
CUDAEMU_HCMP2(__hgeu, __hgeu2, __hgeu2_mask, __hbgeu2)
#undef CUDAEMU_HCMP2
inline CUDAEMU_H2 __hisnan2(const CUDAEMU_H2 a)
{
    return CUDAEMU_H2(::cudaemu::detail::hr<CUDAEMU_H>(__hisnan(a.x) ? 1.0 : 0.0),
                      ::cudaemu::detail::hr<CUDAEMU_H>(__hisnan(a.y) ? 1.0 : 0.0));
}

/* ---- atomics (plain read-modify-write, as device_functions.h's) ---------- */
CUDAEMU_ATOMIC_FN CUDAEMU_H atomicAdd(CUDAEMU_H *p, const CUDAEMU_H v) { const CUDAEMU_H o = *p; *p = __hadd(o, v); return o; }
CUDAEMU_ATOMIC_FN CUDAEMU_H2 atomicAdd(CUDAEMU_H2 *p, const CUDAEMU_H2 v) { const CUDAEMU_H2 o = *p; *p = __hadd2(o, v); return o; }

/* ---- operators ----------------------------------------------------------- */
#if CUDAEMU_HOPS
inline CUDAEMU_H operator+(const CUDAEMU_H &a, const CUDAEMU_H &b) { return __hadd(a, b); }
inline CUDAEMU_H operator-(const CUDAEMU_H &a, const CUDAEMU_H &b) { return __hsub(a, b); }
inline CUDAEMU_H operator*(const CUDAEMU_H &a, const CUDAEMU_H &b) { return __hmul(a, b); }
inline CUDAEMU_H operator/(const CUDAEMU_H &a, const CUDAEMU_H &b) { return __hdiv(a, b); }
inline CUDAEMU_H &operator+=(CUDAEMU_H &a, const CUDAEMU_H &b) { return a = __hadd(a, b); }
inline CUDAEMU_H &operator-=(CUDAEMU_H &a, const CUDAEMU_H &b) { return a = __hsub(a, b); }
inline CUDAEMU_H &operator*=(CUDAEMU_H &a, const CUDAEMU_H &b) { return a = __hmul(a, b); }
inline CUDAEMU_H &operator/=(CUDAEMU_H &a, const CUDAEMU_H &b) { return a = __hdiv(a, b); }
inline CUDAEMU_H &operator++(CUDAEMU_H &h) { return h = __hadd(h, ::cudaemu::detail::hr<CUDAEMU_H>(1.0)); }
inline CUDAEMU_H &operator--(CUDAEMU_H &h) { return h = __hsub(h, ::cudaemu::detail::hr<CUDAEMU_H>(1.0)); }
inline CUDAEMU_H operator++(CUDAEMU_H &h, int) { const CUDAEMU_H o = h; ++h; return o; }
inline CUDAEMU_H operator--(CUDAEMU_H &h, int) { const CUDAEMU_H o = h; --h; return o; }
inline CUDAEMU_H operator+(const CUDAEMU_H &h) { return h; }
inline CUDAEMU_H operator-(const CUDAEMU_H &h) { return __hneg(h); }
inline bool operator==(const CUDAEMU_H &a, const CUDAEMU_H &b) { return __heq(a, b); }
inline bool operator!=(const CUDAEMU_H &a, const CUDAEMU_H &b) { return __hneu(a, b); }
inline bool operator<(const CUDAEMU_H &a, const CUDAEMU_H &b) { return __hlt(a, b); }
inline bool operator>(const CUDAEMU_H &a, const CUDAEMU_H &b) { return __hgt(a, b); }
inline bool operator<=(const CUDAEMU_H &a, const CUDAEMU_H &b) { return __hle(a, b); }
inline bool operator>=(const CUDAEMU_H &a, const CUDAEMU_H &b) { return __hge(a, b); }
#endif
#if CUDAEMU_H2OPS
inline CUDAEMU_H2 operator+(const CUDAEMU_H2 &a, const CUDAEMU_H2 &b) { return __hadd2(a, b); }
inline CUDAEMU_H2 operator-(const CUDAEMU_H2 &a, const CUDAEMU_H2 &b) { return __hsub2(a, b); }
inline CUDAEMU_H2 operator*(const CUDAEMU_H2 &a, const CUDAEMU_H2 &b) { return __hmul2(a, b); }
inline CUDAEMU_H2 operator/(const CUDAEMU_H2 &a, const CUDAEMU_H2 &b) { return __h2div(a, b); }
inline CUDAEMU_H2 &operator+=(CUDAEMU_H2 &a, const CUDAEMU_H2 &b) { return a = __hadd2(a, b); }
inline CUDAEMU_H2 &operator-=(CUDAEMU_H2 &a, const CUDAEMU_H2 &b) { return a = __hsub2(a, b); }
inline CUDAEMU_H2 &operator*=(CUDAEMU_H2 &a, const CUDAEMU_H2 &b) { return a = __hmul2(a, b); }
inline CUDAEMU_H2 &operator/=(CUDAEMU_H2 &a, const CUDAEMU_H2 &b) { return a = __h2div(a, b); }
inline CUDAEMU_H2 &operator++(CUDAEMU_H2 &h)
{ const CUDAEMU_H one = ::cudaemu::detail::hr<CUDAEMU_H>(1.0); return h = __hadd2(h, CUDAEMU_H2(one, one)); }
inline CUDAEMU_H2 &operator--(CUDAEMU_H2 &h)
{ const CUDAEMU_H one = ::cudaemu::detail::hr<CUDAEMU_H>(1.0); return h = __hsub2(h, CUDAEMU_H2(one, one)); }
inline CUDAEMU_H2 operator++(CUDAEMU_H2 &h, int) { const CUDAEMU_H2 o = h; ++h; return o; }
inline CUDAEMU_H2 operator--(CUDAEMU_H2 &h, int) { const CUDAEMU_H2 o = h; --h; return o; }
inline CUDAEMU_H2 operator+(const CUDAEMU_H2 &h) { return h; }
inline CUDAEMU_H2 operator-(const CUDAEMU_H2 &h) { return __hneg2(h); }
inline bool operator==(const CUDAEMU_H2 &a, const CUDAEMU_H2 &b) { return __hbeq2(a, b); }
inline bool operator!=(const CUDAEMU_H2 &a, const CUDAEMU_H2 &b) { return __hbneu2(a, b); }
inline bool operator<(const CUDAEMU_H2 &a, const CUDAEMU_H2 &b) { return __hblt2(a, b); }
inline bool operator>(const CUDAEMU_H2 &a, const CUDAEMU_H2 &b) { return __hbgt2(a, b); }
inline bool operator<=(const CUDAEMU_H2 &a, const CUDAEMU_H2 &b) { return __hble2(a, b); }
inline bool operator>=(const CUDAEMU_H2 &a, const CUDAEMU_H2 &b) { return __hbge2(a, b); }
#endif

#undef CUDAEMU_H
#undef CUDAEMU_H2
#undef CUDAEMU_HRAW
#undef CUDAEMU_H2RAW
#undef CUDAEMU_HFMT
#undef CUDAEMU_HOTHER
#undef CUDAEMU_HCONV
#undef CUDAEMU_HOPS
#undef CUDAEMU_H2OPS
