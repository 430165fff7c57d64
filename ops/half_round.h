/* ops/half_round.h - the one rounding core of the 16-bit float formats
 * (fp16: 5 exponent and 10 fraction bits; bf16: 8 and 7), in plain C that C
 * and C++ both include. The CPU code owns it: the benchmark's dtype
 * converters (ops/dtype.h) round through these two functions and nothing
 * else, and so do the emulator's __half and __nv_bfloat16 (emu/ includes it
 * through emu/include/cudaemu/half_round.h; an installed emulator gets this
 * file in that one's place).
 *
 * h16_encode(x, exp_bits, man_bits, mode) rounds the double x once to the
 * format, exactly as IEEE 754 says for the mode (H16_R_RN: nearest, ties to
 * even; RZ, RD, RU), with overflow to infinity or the largest finite value
 * by mode, gradual underflow to the format's subnormals, signed zeros, and
 * every NaN to the canonical 0x7FFF (what cvt.rn.f16.f32, cvt.rn.bf16.f32
 * and vcvtneps2bf16 give).  x must be the exact value or the value rounded
 * to odd in double (see emu/include/cudaemu/half_bits.h): every float is
 * exact.
 *
 * h16_decode(h, exp_bits, man_bits, keep_nan) is the format's value as a
 * float (exact: both formats fit); a NaN keeps its payload when keep_nan
 * (bf16 -> float is a shift), else becomes 0x7FFFFFFF (__half2float's).
 */
#ifndef OPS_HALF_ROUND_H
#define OPS_HALF_ROUND_H

#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { H16_R_RN, H16_R_RZ, H16_R_RD, H16_R_RU };

static inline uint16_t h16_encode(double x, int exp_bits, int man_bits, int mode)
{
    const int bias = (1 << (exp_bits - 1)) - 1, emin = 1 - bias;
    const uint64_t inf = (uint64_t)((1u << exp_bits) - 1) << man_bits;
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    const int neg = (int)(b >> 63);
    const uint16_t sign = neg ? 0x8000 : 0;
    const int ef = (int)((b >> 52) & 0x7FF);
    uint64_t sig = b & ((1ull << 52) - 1);
    if (ef == 0x7FF) return sig ? (uint16_t)0x7FFF : (uint16_t)(sign | inf);
    if (ef == 0 && sig == 0) return sign;
    /* |x| = sig * 2^(e - 52) with sig's leading bit at 52 */
    int e = ef - 1023;
    if (ef == 0) {
        e = -1022;
        while (!(sig >> 52)) {
            sig <<= 1;
            --e;
        }
    } else {
        sig |= 1ull << 52;
    }
    /* the result's last bit weighs 2^(te - man_bits), te the exponent it
     * gets (subnormals share emin); `shift` bits of sig fall below it */
    const int te = e < emin ? emin : e;
    const int shift = 52 - man_bits + (te - e);
    uint64_t q, rest, half;
    if (shift >= 64) { /* below a quarter of the smallest subnormal */
        q = 0, rest = 1, half = 2;
    } else {
        q = sig >> shift;
        rest = sig & ((1ull << shift) - 1);
        half = 1ull << (shift - 1);
    }
    int up = 0;
    switch (mode) {
    case H16_R_RN: up = rest > half || (rest == half && (q & 1)); break;
    case H16_R_RZ: break;
    case H16_R_RU: up = rest != 0 && !neg; break;
    case H16_R_RD: up = rest != 0 && neg; break;
    }
    q += (uint64_t)up;
    /* biased exponent (te - emin) + 1: adding q, whose bit man_bits is the
     * implicit one of a normal (absent in a subnormal), completes it, and a
     * carry out of the fraction moves to the next binade */
    const uint64_t mag = ((uint64_t)(te - emin) << man_bits) + q;
    if (mag >= inf) { /* overflow: infinity, or the largest finite value */
        const int to_inf = mode == H16_R_RN || (mode == H16_R_RU && !neg) ||
                           (mode == H16_R_RD && neg);
        return (uint16_t)(sign | (to_inf ? inf : inf - 1));
    }
    return (uint16_t)(sign | mag);
}

static inline float h16_decode(uint16_t h, int exp_bits, int man_bits, int keep_nan)
{
    const int bias = (1 << (exp_bits - 1)) - 1, emin = 1 - bias;
    const unsigned exp_all = (1u << exp_bits) - 1;
    uint32_t u;
    const uint32_t sign = (uint32_t)(h & 0x8000) << 16;
    const unsigned ef = (h >> man_bits) & exp_all;
    const uint32_t m = h & ((1u << man_bits) - 1);
    if (ef == exp_all && m != 0 && !keep_nan) {
        u = 0x7FFFFFFFu;
    } else if (bias == 127) { /* float's exponent: the bits are float's top half */
        u = (uint32_t)h << 16;
    } else if (ef == exp_all) {
        u = sign | 0x7F800000u | (m << (23 - man_bits));
    } else if (ef != 0) {
        u = sign | ((ef - (unsigned)bias + 127) << 23) | (m << (23 - man_bits));
    } else if (m == 0) {
        u = sign;
    } else { /* subnormal: normal in float */
        int k = 31 - __builtin_clz(m); /* m = 1.f * 2^k */
        u = sign | ((uint32_t)(k + emin - man_bits + 127) << 23) | ((m << (23 - k)) & 0x7FFFFFu);
    }
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

#ifdef __cplusplus
}
#endif
#endif
