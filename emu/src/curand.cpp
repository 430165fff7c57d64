/* emu/src/curand.cpp - cuRAND for the CUDA host emulator: the XORWOW jump
 * (GF(2) matrix powers) and the MRG32k3a jump (3x3 matrix powers modulo m1
 * and m2), computed once when the program starts, that curand_init and
 * skipahead use, and the host API of curand.h.
 *
 * The host API's generators produce cuRAND's default ordering, computed with
 * the device API of curand_kernel.h (one definition of each generator):
 * XORWOW result g (g counts from 0 at offset 0) is a draw of subsequence
 * u % 4096, u = g for integers and uniforms, g / 2 for normal pairs; a draw
 * is one 32-bit value (integers, floats), two (a uniform double, a float
 * normal pair) or four (a double normal pair); a subsequence's draws follow
 * each other from where its results before the generator's offset end,
 * counted as single values.  Philox: unit u = g / 4 (integers, floats, float
 * normals) is counter block u / 65536 of subsequence u % 65536; doubles
 * come four from two blocks: unit u = g / 4 is blocks 2 (u / 65536) and the
 * next of subsequence u % 65536.  MRG32k3a as XORWOW with 81920
 * subsequences, a draw one value (integers, floats, doubles) or two (a
 * normal pair, float or double).  Checked against libcurand's host
 * generators once: which results are bit for bit theirs is in
 * emu/README.md, *cuRAND*.
 */
#include "curand_sobol.h"
#include "internal.h"

#include <curand_kernel.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <set>
#include <vector>

/* ---- the XORWOW jump ---- */

namespace cudaemu {
namespace curand_detail {
namespace {

/* a linear map of the 160 state bits v[0..4]: column j is the image of bit j
 * (bit j = bit j % 32 of v[j / 32]) */
struct Mat {
    uint32_t col[160][5];
};

void matvec(const Mat &m, const uint32_t v[5], uint32_t out[5])
{
    uint32_t r[5] = {0, 0, 0, 0, 0};
    for (int w = 0; w < 5; w++)
        for (uint32_t bits = v[w]; bits; bits &= bits - 1) {
            const uint32_t *c = m.col[w * 32 + __builtin_ctz(bits)];
            for (int k = 0; k < 5; k++) r[k] ^= c[k];
        }
    std::memcpy(out, r, sizeof r);
}

/* c = a b (b applied first) */
void matmul(const Mat &a, const Mat &b, Mat &c)
{
    for (int j = 0; j < 160; j++) matvec(a, b.col[j], c.col[j]);
}

/* one XORWOW step on v alone (d is added, not mixed: it is left out) */
void step(uint32_t v[5])
{
    const uint32_t t = v[0] ^ (v[0] >> 2);
    v[0] = v[1];
    v[1] = v[2];
    v[2] = v[3];
    v[3] = v[4];
    v[4] = (v[4] ^ (v[4] << 4)) ^ (t ^ (t << 1));
}

/* digit[k][i][d - 1] = J^(d 16^i 2^unit), unit 0 (k = 0) or 67 (k = 1): a
 * jump by n is one product per nonzero hexadecimal digit of n */
struct Tables {
    Mat digit[2][16][15];
};

const Tables &tables()
{
    static const Tables *t = [] {
        auto *tab = new Tables;
        auto base = std::make_unique<Mat>(), tmp = std::make_unique<Mat>();
        for (int j = 0; j < 160; j++) {
            uint32_t *c = base->col[j];
            std::memset(c, 0, 5 * sizeof *c);
            c[j / 32] = 1u << (j % 32);
            step(c);
        }
        for (int k = 0; k < 2; k++) {
            if (k == 1) /* J^(2^67) from J^(16^16) = J^(2^64): three squarings */
                for (int s = 0; s < 3; s++) {
                    matmul(*base, *base, *tmp);
                    std::swap(base, tmp);
                }
            Mat p = *base;
            for (int i = 0; i < 16; i++) {
                tab->digit[k][i][0] = p;
                for (int d = 1; d < 15; d++) matmul(tab->digit[k][i][d - 1], p, tab->digit[k][i][d]);
                matmul(tab->digit[k][i][14], p, *tmp); /* p^16 */
                p = *tmp;
            }
            *base = p; /* J^(2^64) after k = 0 */
        }
        return tab;
    }();
    return *t;
}

/* built when the program starts (about 70 ms, in programs that use cuRAND):
 * a kernel thread building it would be preempted after its 20 ms time slice
 * (watchdog.cpp) while holding the initialisation, and the next thread to
 * call curand_init would wait for it forever */
[[maybe_unused]] const Tables &startup_tables = tables();

/* ---- the MRG32k3a jump ---- */

using Mat3 = unsigned long long[3][3];

/* c = a b mod m (entries below m < 2^32: each product fits in 64 bits) */
void mul3(const Mat3 &a, const Mat3 &b, Mat3 &c, unsigned long long m)
{
    Mat3 r;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            unsigned long long sum = 0;
            for (int k = 0; k < 3; k++) sum = (sum + a[i][k] * b[k][j] % m) % m;
            r[i][j] = sum;
        }
    std::memcpy(c, r, sizeof r);
}

/* pow[c][u][i] = A_c^(2^(i + unit_u)): component c (0: m1, 1: m2), unit
 * u (0, 76, 127); a jump by n is one product per set bit of n */
struct MrgTables {
    Mat3 pow[2][3][64];
};
constexpr int mrg_units[3] = {0, 76, 127};

const MrgTables &mrg_tables()
{
    static const MrgTables *t = [] {
        auto *tab = new MrgTables;
        /* the steps: s[2] becomes a12 s[1] - a13 s[0] (a21 s[2] - a23 s[0]) */
        const unsigned long long m[2] = {mrg_m1, mrg_m2};
        const Mat3 step[2] = {{{0, 1, 0}, {0, 0, 1}, {mrg_m1 - mrg_a13n, mrg_a12, 0}},
                              {{0, 1, 0}, {0, 0, 1}, {mrg_m2 - mrg_a23n, 0, mrg_a21}}};
        for (int c = 0; c < 2; c++) {
            Mat3 p;
            std::memcpy(p, step[c], sizeof p);
            for (int e = 0; e < 127 + 64; e++) { /* p = A^(2^e) */
                for (int u = 0; u < 3; u++)
                    if (e >= mrg_units[u] && e < mrg_units[u] + 64)
                        std::memcpy(tab->pow[c][u][e - mrg_units[u]], p, sizeof p);
                mul3(p, p, p, m[c]);
            }
        }
        return tab;
    }();
    return *t;
}

[[maybe_unused]] const MrgTables &startup_mrg_tables = mrg_tables();

/* s = P s mod m */
void apply3(const Mat3 &p, unsigned int s[3], unsigned long long m)
{
    unsigned long long r[3];
    for (int i = 0; i < 3; i++) {
        r[i] = 0;
        for (int k = 0; k < 3; k++) r[i] = (r[i] + p[i][k] * s[k] % m) % m;
    }
    for (int i = 0; i < 3; i++) s[i] = (unsigned int)r[i];
}

} // namespace

void mrg32k3a_jump(unsigned int s1[3], unsigned int s2[3], unsigned long long n, int log2_unit)
{
    const MrgTables &t = mrg_tables(); /* built already (startup_mrg_tables) */
    const int u = log2_unit == 127 ? 2 : log2_unit == 76 ? 1 : 0;
    for (int i = 0; n; i++, n >>= 1)
        if (n & 1) {
            apply3(t.pow[0][u][i], s1, mrg_m1);
            apply3(t.pow[1][u][i], s2, mrg_m2);
        }
}

void xorwow_jump(unsigned int v[5], unsigned long long n, int log2_unit)
{
    if (!n) return;
    const Tables &t = tables(); /* built already (startup_tables) */
    const int k = log2_unit == 67 ? 1 : 0;
    for (int i = 0; n; i++, n >>= 4)
        if (n & 15) matvec(t.digit[k][i][(n & 15) - 1], v, v);
}

} // namespace curand_detail
} // namespace cudaemu

/* ---- the host API ---- */

struct curandGenerator_st {
    curandRngType_t type;
    bool host; /* curandCreateGeneratorHost: results in host memory, made in the call */
    int device;
    cudaStream_t stream = nullptr;
    unsigned long long seed = 0, offset = 0; /* quasi-random: the offset counts points */
    unsigned dims = 1;                       /* quasi-random: the dimensions */
};

namespace cudaemu {
namespace {

std::set<curandGenerator_t> &generators()
{
    static std::set<curandGenerator_t> s;
    return s;
}

enum class Dist { U32, Uniform, UniformDouble, Normal, NormalDouble, LogNormal, LogNormalDouble };

bool is_double(Dist d)
{
    return d == Dist::UniformDouble || d == Dist::NormalDouble || d == Dist::LogNormalDouble;
}

/* one run of results, captured by value: the stream may run it later */
struct Run {
    curandRngType_t type;
    unsigned long long seed, offset;
    Dist dist;
    void *out;
    size_t n;
    double mean, stddev;
    unsigned dims;

    /* stores value (result g of the run) if it falls in [offset, offset + n) */
    void put(unsigned long long g, double value, unsigned int bits) const
    {
        if (g < offset || g - offset >= n) return;
        const size_t i = g - offset;
        switch (dist) {
        case Dist::U32: static_cast<unsigned int *>(out)[i] = bits; break;
        case Dist::Uniform: static_cast<float *>(out)[i] = (float)value; break;
        case Dist::UniformDouble: static_cast<double *>(out)[i] = value; break;
        case Dist::Normal: static_cast<float *>(out)[i] = (float)mean + (float)stddev * (float)value; break;
        case Dist::LogNormal:
            static_cast<float *>(out)[i] = expf((float)mean + (float)stddev * (float)value);
            break;
        case Dist::NormalDouble: static_cast<double *>(out)[i] = mean + stddev * value; break;
        case Dist::LogNormalDouble: static_cast<double *>(out)[i] = exp(mean + stddev * value); break;
        }
    }

    /* the results of Philox's unit of four 32-bit values x from result g0 on */
    void unit(unsigned long long g0, const unsigned int *x, int count) const
    {
        using namespace curand_detail;
        switch (dist) {
        case Dist::U32:
        case Dist::Uniform:
            for (int k = 0; k < count; k++) put(g0 + k, uniform(x[k]), x[k]);
            break;
        case Dist::UniformDouble:
            for (int k = 0; k + 1 < count; k += 2) put(g0 + k / 2, uniform_double_hq(x[k], x[k + 1]), 0);
            break;
        case Dist::Normal:
        case Dist::LogNormal:
            for (int k = 0; k + 1 < count; k += 2) put_pair(g0 + k, box_muller(x[k], x[k + 1]));
            break;
        case Dist::NormalDouble:
        case Dist::LogNormalDouble: put_pair(g0, box_muller_double(x[0], x[1], x[2], x[3])); break;
        }
    }

    /* one draw from state st: the results g0 (and g0 + 1 for a pair) */
    template <class S> void draw(S *st, unsigned long long g0) const
    {
        switch (dist) {
        case Dist::U32: put(g0, 0, curand(st)); break;
        case Dist::Uniform: put(g0, curand_uniform(st), 0); break;
        case Dist::UniformDouble: put(g0, curand_uniform_double(st), 0); break;
        case Dist::Normal:
        case Dist::LogNormal: put_pair(g0, curand_normal2(st)); break;
        case Dist::NormalDouble:
        case Dist::LogNormalDouble: put_pair(g0, curand_normal2_double(st)); break;
        }
    }

    /* a normal pair (float2 or double2): the results g0 and g0 + 1 */
    template <class V> void put_pair(unsigned long long g0, const V &v) const
    {
        put(g0, v.x, 0);
        put(g0 + 1, v.y, 0);
    }

    /* XORWOW and MRG32k3a: draw u (a single result, or a normal pair) is
     * made by subsequence u % T, a draw taking w of its values */
    template <class S> void by_subsequence(unsigned long long T, int w) const
    {
        const int r = dist == Dist::U32 || dist == Dist::Uniform || dist == Dist::UniformDouble ? 1 : 2;
        const unsigned long long u_lo = offset / r, u_hi = (offset + n - 1) / r;
        const unsigned long long threads = std::min(T, u_hi - u_lo + 1);
        /* before(m, t): how many of the indices 0 .. m - 1 fall to thread t */
        auto before = [T](unsigned long long m, unsigned long long t) {
            return m > t ? (m - t + T - 1) / T : 0;
        };
        for (unsigned long long k = 0; k < threads; k++) {
            const unsigned long long u0 = u_lo + k, t = u0 % T;
            /* the thread's state starts where its results before the offset
             * end, as if they were single values; then w values per draw */
            const unsigned long long p = before(offset, t), q = before(u_lo, t);
            S s;
            curand_init(seed, t, p + w * (u0 / T - q), &s);
            for (unsigned long long u = u0; u <= u_hi; u += T) draw(&s, u * r);
        }
    }

    /* Sobol: n / dims points from point offset on, dimension after dimension */
    void sobol() const
    {
        const size_t per = n / dims;
        std::vector<unsigned int> x(per);
        for (unsigned d = 0; d < dims; d++) {
            curand_detail::sobol32(d, offset, per, x.data());
            for (size_t i = 0; i < per; i++)
                put(offset + d * per + i,
                    dist == Dist::Uniform ? curand_detail::uniform(x[i]) : curand_detail::uniform_double_lq(x[i]),
                    x[i]);
        }
    }

    void philox() const
    {
        /* a unit: 4 results of one counter block, or 4 doubles of two */
        const unsigned long long T = 65536, r = 4, blocks = is_double(dist) ? 2 : 1;
        const uint2 key = make_uint2((unsigned int)seed, (unsigned int)(seed >> 32));
        for (unsigned long long u = offset / r; u <= (offset + n - 1) / r; u++)
            for (unsigned long long k = 0; k < blocks; k++) {
                const unsigned long long block = blocks * (u / T) + k, sub = u % T;
                const uint4 c = make_uint4((unsigned int)block, (unsigned int)(block >> 32),
                                           (unsigned int)sub, 0);
                const uint4 o = curand_detail::philox4x32_10(c, key);
                const unsigned int x[4] = {o.x, o.y, o.z, o.w};
                unit(u * r + k * (r / blocks), x, 4);
            }
    }

    void operator()() const
    {
        if (!n) return;
        const bool one = dist == Dist::U32 || dist == Dist::Uniform;
        if (type == CURAND_RNG_QUASI_SOBOL32)
            sobol();
        else if (type == CURAND_RNG_PSEUDO_PHILOX4_32_10)
            philox();
        else if (type == CURAND_RNG_PSEUDO_MRG32K3A) /* a double is one value */
            by_subsequence<curandStateMRG32k3a_t>(81920, one || dist == Dist::UniformDouble ? 1 : 2);
        else /* a double is two values */
            by_subsequence<curandStateXORWOW_t>(4096, one ? 1 : is_double(dist) && dist != Dist::UniformDouble ? 4 : 2);
    }
};

curandStatus_t create(curandGenerator_t *g, curandRngType_t type, bool host)
{
    CUDAEMU_LOCK;
    if (!g) return CURAND_STATUS_NOT_INITIALIZED;
    if (type == CURAND_RNG_PSEUDO_DEFAULT) type = CURAND_RNG_PSEUDO_XORWOW;
    if (type == CURAND_RNG_QUASI_DEFAULT) type = CURAND_RNG_QUASI_SOBOL32;
    if (type != CURAND_RNG_PSEUDO_XORWOW && type != CURAND_RNG_PSEUDO_PHILOX4_32_10 &&
        type != CURAND_RNG_PSEUDO_MRG32K3A && type != CURAND_RNG_QUASI_SOBOL32) {
        report("curandCreateGenerator%s: generator type %d is not emulated (XORWOW, "
               "MRG32K3A, PHILOX4_32_10 and SOBOL32 are)", host ? "Host" : "", (int)type);
        return CURAND_STATUS_TYPE_ERROR;
    }
    if (!host && usable() != cudaSuccess) return CURAND_STATUS_INITIALIZATION_FAILED;
    auto *gen = new curandGenerator_st{type, host, host ? -1 : cur_dev()};
    generators().insert(gen);
    *g = gen;
    return CURAND_STATUS_SUCCESS;
}

bool live(curandGenerator_t g) { return g && generators().count(g); }
bool quasi(curandGenerator_t g) { return g->type == CURAND_RNG_QUASI_SOBOL32; }

curandStatus_t generate(curandGenerator_t g, const char *fname, Dist dist, void *out, size_t n,
                        double mean, double stddev)
{
    CUDAEMU_LOCK;
    if (!live(g)) return CURAND_STATUS_NOT_INITIALIZED;
    const bool normal = dist == Dist::Normal || dist == Dist::NormalDouble ||
                        dist == Dist::LogNormal || dist == Dist::LogNormalDouble;
    if (quasi(g) && normal) {
        report("%s: Sobol normals (cuRAND's inverse normal CDF) are not emulated: integers and "
               "uniforms are", fname);
        return CURAND_STATUS_TYPE_ERROR;
    }
    if ((normal && n % 2) || n % g->dims) return CURAND_STATUS_LENGTH_NOT_MULTIPLE;
    const Run run{g->type, g->seed, g->offset, dist, out, n, mean, stddev, g->dims};
    g->offset += n / g->dims;
    if (g->host) {
        run();
        return CURAND_STATUS_SUCCESS;
    }
    const size_t bytes = n * (is_double(dist) ? sizeof(double) : sizeof(float));
    if (!queue_library_call(g->device, g->stream, fname, {{"outputPtr", out, bytes}}, run, false))
        return CURAND_STATUS_LAUNCH_FAILURE;
    return CURAND_STATUS_SUCCESS;
}

} // namespace
} // namespace cudaemu

inline namespace cudaemu_api {

using cudaemu::Dist;

curandStatus_t curandCreateGenerator(curandGenerator_t *g, curandRngType_t type)
{
    return cudaemu::create(g, type, false);
}

curandStatus_t curandCreateGeneratorHost(curandGenerator_t *g, curandRngType_t type)
{
    return cudaemu::create(g, type, true);
}

curandStatus_t curandDestroyGenerator(curandGenerator_t g)
{
    CUDAEMU_LOCK;
    if (!cudaemu::live(g)) return CURAND_STATUS_NOT_INITIALIZED;
    cudaemu::generators().erase(g);
    delete g;
    return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandGetVersion(int *version)
{
    if (!version) return CURAND_STATUS_OUT_OF_RANGE;
    *version = CURAND_VERSION;
    return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandGetProperty(libraryPropertyType type, int *value)
{
    if (!value) return CURAND_STATUS_OUT_OF_RANGE;
    switch (type) {
    case MAJOR_VERSION: *value = CURAND_VER_MAJOR; break;
    case MINOR_VERSION: *value = CURAND_VER_MINOR; break;
    case PATCH_LEVEL: *value = CURAND_VER_PATCH; break;
    default: return CURAND_STATUS_OUT_OF_RANGE;
    }
    return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandSetStream(curandGenerator_t g, cudaStream_t stream)
{
    CUDAEMU_LOCK;
    if (!cudaemu::live(g)) return CURAND_STATUS_NOT_INITIALIZED;
    g->stream = stream;
    return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandSetPseudoRandomGeneratorSeed(curandGenerator_t g, unsigned long long seed)
{
    CUDAEMU_LOCK;
    if (!cudaemu::live(g)) return CURAND_STATUS_NOT_INITIALIZED;
    if (cudaemu::quasi(g)) return CURAND_STATUS_TYPE_ERROR; /* as libcurand */
    g->seed = seed;
    return CURAND_STATUS_SUCCESS;
}

/* 1 to 20 000 dimensions in cuRAND; the emulator's direction numbers cover
 * the first 21 (src/curand_sobol.cpp): more is a line and OUT_OF_RANGE */
curandStatus_t curandSetQuasiRandomGeneratorDimensions(curandGenerator_t g, unsigned int num_dimensions)
{
    CUDAEMU_LOCK;
    if (!cudaemu::live(g)) return CURAND_STATUS_NOT_INITIALIZED;
    if (!cudaemu::quasi(g)) return CURAND_STATUS_TYPE_ERROR;
    if (num_dimensions < 1 || num_dimensions > 20000) return CURAND_STATUS_OUT_OF_RANGE;
    if (num_dimensions > cudaemu::curand_detail::sobol_dims) {
        cudaemu::report("curandSetQuasiRandomGeneratorDimensions: %u dimensions: the emulator has "
                        "Sobol direction numbers for %u", num_dimensions,
                        cudaemu::curand_detail::sobol_dims);
        return CURAND_STATUS_OUT_OF_RANGE;
    }
    g->dims = num_dimensions;
    return CURAND_STATUS_SUCCESS;
}

curandStatus_t curandSetGeneratorOffset(curandGenerator_t g, unsigned long long offset)
{
    CUDAEMU_LOCK;
    if (!cudaemu::live(g)) return CURAND_STATUS_NOT_INITIALIZED;
    g->offset = offset;
    return CURAND_STATUS_SUCCESS;
}

/* the default ordering is the only one: BEST and DYNAMIC leave the order to
 * the library (cuRAND documents BEST as the default's); LEGACY and SEEDED
 * are other orders, refused by name */
curandStatus_t curandSetGeneratorOrdering(curandGenerator_t g, curandOrdering_t order)
{
    CUDAEMU_LOCK;
    if (!cudaemu::live(g)) return CURAND_STATUS_NOT_INITIALIZED;
    if (cudaemu::quasi(g))
        return order == CURAND_ORDERING_QUASI_DEFAULT ? CURAND_STATUS_SUCCESS : CURAND_STATUS_OUT_OF_RANGE;
    if (order == CURAND_ORDERING_PSEUDO_DEFAULT || order == CURAND_ORDERING_PSEUDO_BEST ||
        order == CURAND_ORDERING_PSEUDO_DYNAMIC)
        return CURAND_STATUS_SUCCESS;
    if (order == CURAND_ORDERING_PSEUDO_LEGACY || order == CURAND_ORDERING_PSEUDO_SEEDED)
        cudaemu::report("curandSetGeneratorOrdering: ordering %d is not emulated (only "
                        "CURAND_ORDERING_PSEUDO_DEFAULT, BEST and DYNAMIC)", (int)order);
    return CURAND_STATUS_OUT_OF_RANGE;
}

curandStatus_t curandGenerateSeeds(curandGenerator_t g)
{
    CUDAEMU_LOCK;
    return cudaemu::live(g) ? CURAND_STATUS_SUCCESS : CURAND_STATUS_NOT_INITIALIZED;
}

curandStatus_t curandGenerate(curandGenerator_t g, unsigned int *out, size_t num)
{
    return cudaemu::generate(g, "curandGenerate", Dist::U32, out, num, 0, 0);
}

curandStatus_t curandGenerateUniform(curandGenerator_t g, float *out, size_t num)
{
    return cudaemu::generate(g, "curandGenerateUniform", Dist::Uniform, out, num, 0, 0);
}

curandStatus_t curandGenerateUniformDouble(curandGenerator_t g, double *out, size_t num)
{
    return cudaemu::generate(g, "curandGenerateUniformDouble", Dist::UniformDouble, out, num, 0, 0);
}

curandStatus_t curandGenerateNormal(curandGenerator_t g, float *out, size_t n, float mean,
                                    float stddev)
{
    return cudaemu::generate(g, "curandGenerateNormal", Dist::Normal, out, n, mean, stddev);
}

curandStatus_t curandGenerateNormalDouble(curandGenerator_t g, double *out, size_t n, double mean,
                                          double stddev)
{
    return cudaemu::generate(g, "curandGenerateNormalDouble", Dist::NormalDouble, out, n, mean,
                             stddev);
}

curandStatus_t curandGenerateLogNormal(curandGenerator_t g, float *out, size_t n, float mean,
                                       float stddev)
{
    return cudaemu::generate(g, "curandGenerateLogNormal", Dist::LogNormal, out, n, mean, stddev);
}

curandStatus_t curandGenerateLogNormalDouble(curandGenerator_t g, double *out, size_t n,
                                             double mean, double stddev)
{
    return cudaemu::generate(g, "curandGenerateLogNormalDouble", Dist::LogNormalDouble, out, n,
                             mean, stddev);
}

} // inline namespace cudaemu_api
