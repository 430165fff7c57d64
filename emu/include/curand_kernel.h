/* emu/include/curand_kernel.h - cuRAND's device API for the CUDA host emulator.
 *
 * The generators as cuRAND documents them, written from their definitions:
 * XORWOW (Marsaglia's xorwow, cuRAND's seeding, subsequences 2^67 apart by a
 * GF(2) jump) and Philox4x32-10 (Salmon et al., SC'11: key (seed), counter
 * (position / 4, subsequence)).  Integers and uniforms are bit for bit those
 * of cuRAND; normals use cuRAND's Box-Muller on the same integers with the
 * host's sinf/logf, so they may differ from a GPU's in the last bits (see
 * emu/README.md, *cuRAND*).  MRG32k3a is L'Ecuyer's combined multiple
 * recursive generator (Operations Research 47(1), 1999) with cuRAND's
 * seeding, output scaling and jumps (subsequences 2^76 values apart,
 * sequences 2^127).  The XORWOW and MRG32k3a jump matrices live in
 * emu/src/curand.cpp (computed once per process, then cached).
 * MTGP32 and Sobol are not emulated: using their states stops the compile.
 */
#ifndef CUDAEMU_CURAND_KERNEL_H
#define CUDAEMU_CURAND_KERNEL_H

#include "cuda_runtime.h"
#include "curand.h"

#include <cmath>
#include <type_traits>

/* the toolkit's guard (code tests it) */
#define CURAND_KERNEL_H_

struct curandStateXORWOW {
    unsigned int d, v[5];
    int boxmuller_flag;
    int boxmuller_flag_double;
    float boxmuller_extra;
    double boxmuller_extra_double;
};
typedef struct curandStateXORWOW curandStateXORWOW_t;
typedef curandStateXORWOW_t curandState_t;
typedef curandState_t curandState;

struct curandStatePhilox4_32_10 {
    uint4 ctr;    /* (x, y): the block within the subsequence; (z, w): the subsequence */
    uint4 output; /* the block's four values */
    uint2 key;    /* the seed */
    unsigned int STATE; /* the next value's index in output */
    int boxmuller_flag;
    int boxmuller_flag_double;
    float boxmuller_extra;
    double boxmuller_extra_double;
};
typedef struct curandStatePhilox4_32_10 curandStatePhilox4_32_10_t;

/* MRG32k3a: the two components' last three values (cuRAND's layout) */
struct curandStateMRG32k3a {
    unsigned int s1[3], s2[3];
    int boxmuller_flag;
    int boxmuller_flag_double;
    float boxmuller_extra;
    double boxmuller_extra_double;
};
typedef struct curandStateMRG32k3a curandStateMRG32k3a_t;
/* not emulated: declared so that code naming them compiles until it calls curand_init */
struct curandStateMtgp32;
typedef struct curandStateMtgp32 curandStateMtgp32_t;
struct curandStateSobol32;
typedef struct curandStateSobol32 curandStateSobol32_t;

namespace cudaemu {
namespace curand_detail {
/* v = J^n v, J the XORWOW step on its 160 state bits (d aside), in units of
 * 2^log2_unit steps: 0 for skipahead, 67 for skipahead_sequence (emu/src/curand.cpp) */
void xorwow_jump(unsigned int v[5], unsigned long long n, int log2_unit);
/* (s1, s2) = (A1^k s1 mod m1, A2^k s2 mod m2), k = n 2^log2_unit, A1 and A2
 * the two components' step matrices; log2_unit 0 (skipahead), 76
 * (skipahead_subsequence) or 127 (skipahead_sequence) (emu/src/curand.cpp) */
void mrg32k3a_jump(unsigned int s1[3], unsigned int s2[3], unsigned long long n, int log2_unit);

/* MRG32k3a's moduli and multipliers (the a13 and a23 terms negated) */
constexpr unsigned long long mrg_m1 = 4294967087ull, mrg_m2 = 4294944443ull;
constexpr unsigned long long mrg_a12 = 1403580, mrg_a13n = 810728;
constexpr unsigned long long mrg_a21 = 527612, mrg_a23n = 1370589;
/* 1 / (m1 + 1) rounded, cuRAND's scale to (0, 1]; and its scale to 32 bits */
constexpr double mrg_norm = 2.3283065498378288e-10;
constexpr double mrg_bits_norm = 1.000000048662;

constexpr float two_pow_m32 = 0x1p-32f;
constexpr double two_pow_m32_d = 0x1p-32;
constexpr double two_pow_m53_d = 0x1p-53;
constexpr float two_pi_f = 6.28318530717958647692f;
constexpr double pi_d = 3.14159265358979323846;

/* x / 2^32 + 2^-33 in float: (0, 1], 1 included (cuRAND's curand_uniform) */
inline float uniform(unsigned int x) { return (float)x * two_pow_m32 + two_pow_m32 / 2.0f; }
/* 53 bits of x and y: (0, 1) in steps of 2^-53 */
inline double uniform_double_hq(unsigned int x, unsigned int y)
{
    unsigned long long z = (unsigned long long)x ^ ((unsigned long long)y << 21);
    return (double)z * two_pow_m53_d + two_pow_m53_d / 2.0;
}
/* x / 2^32 + 2^-32 in double: (0, 1] (Philox's curand_uniform_double) */
inline double uniform_double_lq(unsigned int x) { return (double)x * two_pow_m32_d + two_pow_m32_d; }
/* Box-Muller on two 32-bit values, as cuRAND's: the pair (s sin v, s cos v) */
inline float2 box_muller(unsigned int x, unsigned int y)
{
    const float u = uniform(x);
    const float step = two_pow_m32 * two_pi_f;
    const float v = (float)y * step + step / 2.0f;
    const float s = sqrtf(-2.0f * logf(u));
    return make_float2(sinf(v) * s, cosf(v) * s);
}
inline double2 box_muller_double(unsigned int x0, unsigned int x1, unsigned int y0, unsigned int y1)
{
    const double u = uniform_double_hq(x0, x1);
    const unsigned long long zy = (unsigned long long)y0 ^ ((unsigned long long)y1 << 21);
    const double v = (double)zy * (2.0 * two_pow_m53_d) + two_pow_m53_d; /* (0, 2): v pi */
    const double s = sqrt(-2.0 * log(u));
    return make_double2(sin(v * pi_d) * s, cos(v * pi_d) * s);
}

/* Philox4x32-10: ten rounds of the Philox S-box on the counter, the key bumped
 * by the Weyl constants between rounds */
inline uint4 philox4x32_10(uint4 c, uint2 k)
{
    for (int r = 0; r < 10; r++) {
        if (r) {
            k.x += 0x9E3779B9u;
            k.y += 0xBB67AE85u;
        }
        const unsigned long long p0 = 0xD2511F53ull * c.x, p1 = 0xCD9E8D57ull * c.z;
        c = make_uint4((unsigned int)(p1 >> 32) ^ c.y ^ k.x, (unsigned int)p1,
                       (unsigned int)(p0 >> 32) ^ c.w ^ k.y, (unsigned int)p0);
    }
    return c;
}
/* the 64-bit half (lo, hi) of a counter plus n */
inline void add64(unsigned int &lo, unsigned int &hi, unsigned long long n)
{
    unsigned long long v = ((unsigned long long)hi << 32 | lo) + n;
    lo = (unsigned int)v;
    hi = (unsigned int)(v >> 32);
}

/* curand_init's last step: no normal kept for the next call */
template <class S> inline void no_kept_normal(S *state)
{
    state->boxmuller_flag = 0;
    state->boxmuller_flag_double = 0;
    state->boxmuller_extra = 0.f;
    state->boxmuller_extra_double = 0.;
}

/* a state type the emulator lacks: stops the compile where it is used */
template <class S> struct not_emulated {
    static_assert(sizeof(S *) == 0, "cudaemu: this cuRAND generator's device API (MTGP32, "
                                    "Sobol) is not emulated: use curandState_t (XORWOW), "
                                    "curandStatePhilox4_32_10_t or curandStateMRG32k3a_t");
    using type = void;
};
template <class S> using refuse = typename not_emulated<S>::type;
} // namespace curand_detail
} // namespace cudaemu

/* ---- XORWOW ---- */

__forceinline__ __device__ unsigned int curand(curandStateXORWOW_t *state)
{
    const unsigned int t = state->v[0] ^ (state->v[0] >> 2);
    state->v[0] = state->v[1];
    state->v[1] = state->v[2];
    state->v[2] = state->v[3];
    state->v[3] = state->v[4];
    state->v[4] = (state->v[4] ^ (state->v[4] << 4)) ^ (t ^ (t << 1));
    state->d += 362437u;
    return state->v[4] + state->d;
}

__forceinline__ __device__ void skipahead(unsigned long long n, curandStateXORWOW_t *state)
{
    ::cudaemu::curand_detail::xorwow_jump(state->v, n, 0);
    state->d += 362437u * (unsigned int)n;
}

/* n subsequences of 2^67 values (d moves by a multiple of 2^32: unchanged) */
__forceinline__ __device__ void skipahead_sequence(unsigned long long n, curandStateXORWOW_t *state)
{
    ::cudaemu::curand_detail::xorwow_jump(state->v, n, 67);
}

/* cuRAND's documented seeding: the seed's halves salted and multiplied into
 * d and Marsaglia's five initial words, then the two jumps */
__forceinline__ __device__ void curand_init(unsigned long long seed, unsigned long long subsequence,
                                            unsigned long long offset, curandStateXORWOW_t *state)
{
    const unsigned int s0 = (unsigned int)seed ^ 0xaad26b49u;
    const unsigned int s1 = (unsigned int)(seed >> 32) ^ 0xf7dcefddu;
    const unsigned int t0 = 1099087573u * s0, t1 = 2591861531u * s1;
    state->d = 6615241u + t1 + t0;
    state->v[0] = 123456789u + t0;
    state->v[1] = 362436069u ^ t0;
    state->v[2] = 521288629u + t1;
    state->v[3] = 88675123u ^ t1;
    state->v[4] = 5783321u + t0;
    skipahead_sequence(subsequence, state);
    skipahead(offset, state);
    ::cudaemu::curand_detail::no_kept_normal(state);
}

/* ---- Philox4x32-10 ---- */

__forceinline__ __device__ void skipahead(unsigned long long n, curandStatePhilox4_32_10_t *state)
{
    unsigned int idx = state->STATE + (unsigned int)(n & 3);
    unsigned long long blocks = n / 4 + idx / 4;
    state->STATE = idx % 4;
    /* the low 64 bits of the counter carry into the high ones */
    unsigned long long lo = ((unsigned long long)state->ctr.y << 32 | state->ctr.x);
    if (lo + blocks < lo) ::cudaemu::curand_detail::add64(state->ctr.z, state->ctr.w, 1);
    ::cudaemu::curand_detail::add64(state->ctr.x, state->ctr.y, blocks);
    state->output = ::cudaemu::curand_detail::philox4x32_10(state->ctr, state->key);
}

__forceinline__ __device__ void skipahead_sequence(unsigned long long n,
                                                   curandStatePhilox4_32_10_t *state)
{
    ::cudaemu::curand_detail::add64(state->ctr.z, state->ctr.w, n);
    state->output = ::cudaemu::curand_detail::philox4x32_10(state->ctr, state->key);
}

__forceinline__ __device__ void curand_init(unsigned long long seed, unsigned long long subsequence,
                                            unsigned long long offset,
                                            curandStatePhilox4_32_10_t *state)
{
    state->ctr = make_uint4(0, 0, 0, 0);
    state->key = make_uint2((unsigned int)seed, (unsigned int)(seed >> 32));
    state->STATE = 0;
    ::cudaemu::curand_detail::no_kept_normal(state);
    skipahead_sequence(subsequence, state);
    skipahead(offset, state);
}

__forceinline__ __device__ unsigned int curand(curandStatePhilox4_32_10_t *state)
{
    const uint4 o = state->output;
    const unsigned int r = state->STATE == 0 ? o.x : state->STATE == 1 ? o.y
                         : state->STATE == 2 ? o.z : o.w;
    if (state->STATE < 3)
        state->STATE++;
    else
        skipahead(1, state); /* the next block */
    return r;
}

/* the next four values (not aligned to a block: any position) */
__forceinline__ __device__ uint4 curand4(curandStatePhilox4_32_10_t *state)
{
    uint4 r;
    r.x = curand(state);
    r.y = curand(state);
    r.z = curand(state);
    r.w = curand(state);
    return r;
}

/* ---- MRG32k3a ---- */

namespace cudaemu {
namespace curand_detail {
/* one step of both components; the combined value (x1 - x2) mod m1 in [1, m1] */
inline unsigned long long mrg32k3a_next(curandStateMRG32k3a_t *state)
{
    unsigned int *s1 = state->s1, *s2 = state->s2;
    /* a12 s1[1] - a13 s1[0] and a21 s2[2] - a23 s2[0], kept nonnegative */
    const unsigned long long p1 = (mrg_a12 * s1[1] + mrg_a13n * (mrg_m1 - s1[0])) % mrg_m1;
    const unsigned long long p2 = (mrg_a21 * s2[2] + mrg_a23n * (mrg_m2 - s2[0])) % mrg_m2;
    s1[0] = s1[1];
    s1[1] = s1[2];
    s1[2] = (unsigned int)p1;
    s2[0] = s2[1];
    s2[1] = s2[2];
    s2[2] = (unsigned int)p2;
    return p1 > p2 ? p1 - p2 : p1 + mrg_m1 - p2;
}
} // namespace curand_detail
} // namespace cudaemu

__forceinline__ __device__ unsigned int curand(curandStateMRG32k3a_t *state)
{
    using namespace ::cudaemu::curand_detail;
    return (unsigned int)((double)mrg32k3a_next(state) * mrg_bits_norm);
}

__forceinline__ __device__ void skipahead(unsigned long long n, curandStateMRG32k3a_t *state)
{
    ::cudaemu::curand_detail::mrg32k3a_jump(state->s1, state->s2, n, 0);
}

/* n subsequences of 2^76 values */
__forceinline__ __device__ void skipahead_subsequence(unsigned long long n,
                                                      curandStateMRG32k3a_t *state)
{
    ::cudaemu::curand_detail::mrg32k3a_jump(state->s1, state->s2, n, 76);
}

/* n sequences of 2^127 values */
__forceinline__ __device__ void skipahead_sequence(unsigned long long n, curandStateMRG32k3a_t *state)
{
    ::cudaemu::curand_detail::mrg32k3a_jump(state->s1, state->s2, n, 127);
}

/* cuRAND's seeding: every word 12345 (the published start) for seed 0, else
 * multiplied by the seed's salted halves; then subsequence, then offset */
__forceinline__ __device__ void curand_init(unsigned long long seed, unsigned long long subsequence,
                                            unsigned long long offset, curandStateMRG32k3a_t *state)
{
    using namespace ::cudaemu::curand_detail;
    const unsigned long long x1 = (unsigned int)seed ^ 0x55555555u;
    const unsigned long long x2 = (unsigned int)(seed >> 32) ^ 0xAAAAAAAAu;
    const unsigned long long f1[3] = {x1, x2, x1}, f2[3] = {x2, x1, x2};
    for (int i = 0; i < 3; i++) {
        state->s1[i] = seed ? (unsigned int)(f1[i] * 12345u % mrg_m1) : 12345u;
        state->s2[i] = seed ? (unsigned int)(f2[i] * 12345u % mrg_m2) : 12345u;
    }
    skipahead_subsequence(subsequence, state);
    skipahead(offset, state);
    ::cudaemu::curand_detail::no_kept_normal(state);
}

/* the combined value scaled to (0, 1] (1 included), in float or double */
__forceinline__ __device__ float curand_uniform(curandStateMRG32k3a_t *state)
{
    using namespace ::cudaemu::curand_detail;
    return (float)((double)mrg32k3a_next(state) * mrg_norm);
}

__forceinline__ __device__ double curand_uniform_double(curandStateMRG32k3a_t *state)
{
    using namespace ::cudaemu::curand_detail;
    return (double)mrg32k3a_next(state) * mrg_norm;
}

/* MRG32k3a's Box-Muller works on two uniforms, not on two integers */
__forceinline__ __device__ float2 curand_normal2(curandStateMRG32k3a_t *state)
{
    const float u = curand_uniform(state);
    const float v = curand_uniform(state) * ::cudaemu::curand_detail::two_pi_f;
    const float s = sqrtf(-2.0f * logf(u));
    return make_float2(sinf(v) * s, cosf(v) * s);
}

__forceinline__ __device__ double2 curand_normal2_double(curandStateMRG32k3a_t *state)
{
    const double u = curand_uniform_double(state);
    const double v = curand_uniform_double(state) * 2.0; /* (0, 2]: v pi */
    const double s = sqrt(-2.0 * log(u));
    using ::cudaemu::curand_detail::pi_d;
    return make_double2(sin(v * pi_d) * s, cos(v * pi_d) * s);
}

/* ---- distributions, the same for every generator where cuRAND's are ---- */

template <class S> struct cudaemu_curand_is_emulated : std::false_type {};
template <> struct cudaemu_curand_is_emulated<curandStateXORWOW_t> : std::true_type {};
template <> struct cudaemu_curand_is_emulated<curandStatePhilox4_32_10_t> : std::true_type {};
template <> struct cudaemu_curand_is_emulated<curandStateMRG32k3a_t> : std::true_type {};
#define CUDAEMU_CURAND_STATE(S)                                                                   \
    template <class S, std::enable_if_t<cudaemu_curand_is_emulated<S>::value, int> = 0>

CUDAEMU_CURAND_STATE(S) __device__ float curand_uniform(S *state)
{
    return ::cudaemu::curand_detail::uniform(curand(state));
}

__forceinline__ __device__ double curand_uniform_double(curandStateXORWOW_t *state)
{
    const unsigned int x = curand(state);
    const unsigned int y = curand(state);
    return ::cudaemu::curand_detail::uniform_double_hq(x, y);
}
/* Philox's: one value, 32 bits of resolution, (0, 1] (as cuRAND's) */
__forceinline__ __device__ double curand_uniform_double(curandStatePhilox4_32_10_t *state)
{
    return ::cudaemu::curand_detail::uniform_double_lq(curand(state));
}

__forceinline__ __device__ float4 curand_uniform4(curandStatePhilox4_32_10_t *state)
{
    const uint4 x = curand4(state);
    using ::cudaemu::curand_detail::uniform;
    return make_float4(uniform(x.x), uniform(x.y), uniform(x.z), uniform(x.w));
}

__forceinline__ __device__ double2 curand_uniform2_double(curandStatePhilox4_32_10_t *state)
{
    const uint4 x = curand4(state);
    using ::cudaemu::curand_detail::uniform_double_hq;
    return make_double2(uniform_double_hq(x.x, x.y), uniform_double_hq(x.z, x.w));
}

CUDAEMU_CURAND_STATE(S) __device__ float2 curand_normal2(S *state)
{
    const unsigned int x = curand(state);
    const unsigned int y = curand(state);
    return ::cudaemu::curand_detail::box_muller(x, y);
}

/* normals come in pairs: the first call makes two (pair()), returns one and
 * keeps the other in the state, the next returns it; tag tells normals (1)
 * from log-normals (2), so the two never share a kept value */
template <class T, class Pair>
__device__ T cudaemu_curand_one_of_pair(int &flag, T &extra, int tag, Pair pair)
{
    if (flag != tag) {
        const auto v = pair();
        extra = v.y;
        flag = tag;
        return v.x;
    }
    flag = 0;
    return extra;
}

CUDAEMU_CURAND_STATE(S) __device__ float curand_normal(S *state)
{
    return cudaemu_curand_one_of_pair(state->boxmuller_flag, state->boxmuller_extra, 1,
                                      [state] { return curand_normal2(state); });
}

__forceinline__ __device__ float4 curand_normal4(curandStatePhilox4_32_10_t *state)
{
    const uint4 x = curand4(state);
    const float2 a = ::cudaemu::curand_detail::box_muller(x.x, x.y);
    const float2 b = ::cudaemu::curand_detail::box_muller(x.z, x.w);
    return make_float4(a.x, a.y, b.x, b.y);
}

CUDAEMU_CURAND_STATE(S) __device__ double2 curand_normal2_double(S *state)
{
    const unsigned int x0 = curand(state), x1 = curand(state);
    const unsigned int y0 = curand(state), y1 = curand(state);
    return ::cudaemu::curand_detail::box_muller_double(x0, x1, y0, y1);
}

CUDAEMU_CURAND_STATE(S) __device__ double curand_normal_double(S *state)
{
    return cudaemu_curand_one_of_pair(state->boxmuller_flag_double, state->boxmuller_extra_double,
                                      1, [state] { return curand_normal2_double(state); });
}

/* exp(mean + stddev * normal) */
CUDAEMU_CURAND_STATE(S) __device__ float curand_log_normal(S *state, float mean, float stddev)
{
    return cudaemu_curand_one_of_pair(state->boxmuller_flag, state->boxmuller_extra, 2, [=] {
        const float2 v = curand_normal2(state);
        return make_float2(expf(mean + stddev * v.x), expf(mean + stddev * v.y));
    });
}

CUDAEMU_CURAND_STATE(S) __device__ double curand_log_normal_double(S *state, double mean,
                                                                   double stddev)
{
    return cudaemu_curand_one_of_pair(state->boxmuller_flag_double, state->boxmuller_extra_double,
                                      2, [=] {
                                          const double2 v = curand_normal2_double(state);
                                          return make_double2(exp(mean + stddev * v.x),
                                                              exp(mean + stddev * v.y));
                                      });
}

/* Poisson(lambda), exact in distribution (not bit for bit cuRAND's, whose
 * algorithms are not documented): Knuth's product of uniforms below 16,
 * Hoermann's transformed rejection (PTRS, 1993) above */
CUDAEMU_CURAND_STATE(S) __device__ unsigned int curand_poisson(S *state, double lambda)
{
    if (!(lambda > 0.0)) return 0;
    if (lambda < 16.0) {
        const double limit = exp(-lambda);
        double p = curand_uniform_double(state);
        unsigned int k = 0;
        while (p > limit) {
            p *= curand_uniform_double(state);
            k++;
        }
        return k;
    }
    const double slam = sqrt(lambda), loglam = log(lambda);
    const double b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
    const double inv_alpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2.0);
    for (;;) {
        const double u = curand_uniform_double(state) - 0.5, v = curand_uniform_double(state);
        const double us = 0.5 - fabs(u);
        if (us <= 0.0) continue;
        const double k = floor((2.0 * a / us + b) * u + lambda + 0.43);
        if (us >= 0.07 && v <= vr) return (unsigned int)k;
        if (k < 0.0 || (us < 0.013 && v > us)) continue;
        if (log(v) + log(inv_alpha) - log(a / (us * us) + b) <= -lambda + k * loglam - lgamma(k + 1.0))
            return (unsigned int)k;
    }
}

/* the generators the emulator lacks */
template <class S, std::enable_if_t<!cudaemu_curand_is_emulated<S>::value, int> = 0>
::cudaemu::curand_detail::refuse<S> curand_init(unsigned long long, unsigned long long,
                                                unsigned long long, S *)
{
}
/* Sobol's (direction vectors, offset, state) */
template <class S>
::cudaemu::curand_detail::refuse<S> curand_init(curandDirectionVectors32_t, unsigned long long, S *)
{
}
#undef CUDAEMU_CURAND_STATE

#endif /* CUDAEMU_CURAND_KERNEL_H */
