/* emu/tests/rounding.cu - the directed-rounding intrinsics (#34): __fadd_*,
 * __fsub_*, __fmul_*, __fdiv_*, __frcp_*, __fsqrt_*, __fmaf_*, their double
 * forms and the conversions, in all four modes, on values where the modes
 * differ.  The kernel computes them; the host reference takes the exact
 * result's position against the round-to-nearest one (an exact long double,
 * or the remainder fma gives exactly) and steps one ulp where the mode says.
 * The host's rounding mode is checked to be round-to-nearest afterwards.
 */
#include <cuda_runtime.h>

#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "test_util.h"

enum { RN, RZ, RU, RD };
enum { ADD, SUB, MUL, DIV, RCP, SQRT, FMA, NOPS };

struct FCase { float a, b, c; };
static const FCase kF[] = {
    {1.0f, 3.0f, 0.5f}, {-1.0f, 3.0f, 1e-9f}, {1.0f, 1e-9f, -3.0f},
    {16777216.0f, 1.0f, 1.0f}, {-16777216.0f, -1.0f, 0.75f}, {0.1f, 0.7f, -0.07f},
    {2.0f, 10.0f, 1.0f / 1024}, {-5.0f, 7.0f, -1e-3f},
};
static const int kNF = sizeof kF / sizeof kF[0];

__device__ float f_op(int op, int m, float a, float b, float c)
{
#define M4(f, ...) (m == RN ? f##_rn(__VA_ARGS__) : m == RZ ? f##_rz(__VA_ARGS__) \
                    : m == RU ? f##_ru(__VA_ARGS__) : f##_rd(__VA_ARGS__))
    switch (op) {
    case ADD: return M4(__fadd, a, b);
    case SUB: return M4(__fsub, a, b);
    case MUL: return M4(__fmul, a, b);
    case DIV: return M4(__fdiv, a, b);
    case RCP: return M4(__frcp, b);
    case SQRT: return M4(__fsqrt, fabsf(b));
    default: return M4(__fmaf, a, b, c);
    }
}

__device__ double d_op(int op, int m, double a, double b, double c)
{
    switch (op) {
    case ADD: return M4(__dadd, a, b);
    case SUB: return M4(__dsub, a, b);
    case MUL: return M4(__dmul, a, b);
    case DIV: return M4(__ddiv, a, b);
    case RCP: return M4(__drcp, b);
    case SQRT: return M4(__dsqrt, fabs(b));
    default: return M4(__fma, a, b, c);
    }
}

/* thread (case, op, mode): its float and double result */
__global__ void all_ops(const FCase *cs, int n, float *fo, double *dout)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n * NOPS * 4) return;
    int m = i % 4, op = (i / 4) % NOPS, k = i / (4 * NOPS);
    fo[i] = f_op(op, m, cs[k].a, cs[k].b, cs[k].c);
    double a = cs[k].a, b = cs[k].b * (1.0 + 0x1p-40), c = cs[k].c;
    dout[i] = d_op(op, m, a, b, c);
}

__global__ void conversions(long long *li, float *fl, double *db)
{
    const float fv[] = {2.5f, -2.5f, 3.7f, -3.7f, 3e9f, -1.5f, NAN};
    for (int k = 0; k < 7; ++k) {
        for (int m = 0; m < 4; ++m) {
            li[k * 32 + m] = M4(__float2int, fv[k]);
            li[k * 32 + 4 + m] = M4(__float2uint, fv[k]);
            li[k * 32 + 8 + m] = M4(__float2ll, fv[k]);
            li[k * 32 + 12 + m] = (long long)M4(__float2ull, fv[k]);
            li[k * 32 + 16 + m] = M4(__double2int, (double)fv[k]);
            li[k * 32 + 20 + m] = M4(__double2uint, (double)fv[k]);
            li[k * 32 + 24 + m] = M4(__double2ll, (double)fv[k]);
            li[k * 32 + 28 + m] = (long long)M4(__double2ull, (double)fv[k]);
        }
    }
    for (int m = 0; m < 4; ++m) {
        fl[m] = M4(__int2float, 16777217);
        fl[4 + m] = M4(__int2float, -16777217);
        fl[8 + m] = M4(__uint2float, 4294967295u);
        fl[12 + m] = M4(__ll2float, (1ll << 60) + 1);
        fl[16 + m] = M4(__ull2float, ~0ull);
        fl[20 + m] = M4(__double2float, -1.0 / 3.0);
        db[m] = M4(__ll2double, (1ll << 53) + 1);
        db[4 + m] = M4(__ull2double, ~0ull);
    }
#undef M4
}

/* The four roundings of a value whose round-to-nearest is rn and whose exact
 * value lies above rn (dir > 0), below (dir < 0) or at it (0). */
template <typename T> static void directed(T rn, int dir, T out[4])
{
    const T up = dir > 0 ? std::nextafter(rn, (T)INFINITY) : rn;
    const T down = dir < 0 ? std::nextafter(rn, -(T)INFINITY) : rn;
    out[RN] = rn;
    out[RU] = up;
    out[RD] = down;
    /* towards zero: the one of them nearer zero */
    out[RZ] = (rn > 0 || (rn == 0 && dir > 0)) ? down : up;
}

static int sgn(long double x) { return x > 0 ? 1 : x < 0 ? -1 : 0; }

/* the float reference: exact in long double (products of floats have 48
 * bits, the cases' sums fit 64), the quotient and roots by the remainder */
static void f_ref(int op, float a, float b, float c, float out[4])
{
    volatile float va = a, vb = b; /* run-time, round-to-nearest */
    float rn;
    int dir;
    long double la = a, lb = b, lc = c;
    switch (op) {
    case ADD: rn = va + vb; dir = sgn(la + lb - rn); break;
    case SUB: rn = va - vb; dir = sgn(la - lb - rn); break;
    case MUL: rn = va * vb; dir = sgn(la * lb - rn); break;
    case DIV: rn = va / vb; dir = -sgn(((long double)rn * lb - la) * (lb > 0 ? 1 : -1)); break;
    case RCP: rn = 1.0f / vb; dir = -sgn(((long double)rn * lb - 1) * (lb > 0 ? 1 : -1)); break;
    case SQRT: rn = std::sqrt(std::fabs(vb)); dir = -sgn((long double)rn * rn - std::fabs(lb)); break;
    default: rn = (float)(la * lb + lc); dir = sgn(la * lb + lc - rn); break;
    }
    directed(rn, dir, out);
}

/* the double reference: sums, products and fma exact in __float128 (113
 * bits: the cases' products have at most 77), quotient and root by their
 * remainder, which fma gives exactly */
static int sgn128(__float128 x) { return x > 0 ? 1 : x < 0 ? -1 : 0; }

static void d_ref(int op, double a, double b, double c, double out[4])
{
    volatile double va = a, vb = b;
    const __float128 qa = a, qb = b, qc = c;
    double rn;
    int dir;
    switch (op) {
    case ADD: rn = va + vb; dir = sgn128(qa + qb - rn); break;
    case SUB: rn = va - vb; dir = sgn128(qa - qb - rn); break;
    case MUL: rn = va * vb; dir = sgn128(qa * qb - rn); break;
    case DIV: rn = va / vb; dir = sgn(std::fma(-rn, vb, va) * (vb > 0 ? 1 : -1)); break;
    case RCP: rn = 1.0 / vb; dir = sgn(std::fma(-rn, vb, 1.0) * (vb > 0 ? 1 : -1)); break;
    case SQRT: rn = std::sqrt(std::fabs(vb)); dir = sgn(std::fma(-rn, rn, std::fabs(vb))); break;
    default: rn = (double)(qa * qb + qc); dir = sgn128(qa * qb + qc - rn); break;
    }
    directed(rn, dir, out);
}

int main()
{
    const int n = kNF * NOPS * 4;
    FCase *cs;
    float *fo;
    double *dout;
    CK(cudaMallocManaged(&cs, sizeof kF));
    CK(cudaMallocManaged(&fo, n * sizeof(float)));
    CK(cudaMallocManaged(&dout, n * sizeof(double)));
    std::memcpy(cs, kF, sizeof kF);
    all_ops<<<(n + 63) / 64, 64>>>(cs, kNF, fo, dout);
    CK(cudaDeviceSynchronize());
    int fbad = 0, dbad = 0, differ = 0;
    for (int k = 0; k < kNF; ++k)
        for (int op = 0; op < NOPS; ++op) {
            float fr[4];
            double dr[4];
            f_ref(op, kF[k].a, kF[k].b, kF[k].c, fr);
            d_ref(op, kF[k].a, kF[k].b * (1.0 + 0x1p-40), kF[k].c, dr);
            differ += fr[RU] != fr[RD];
            for (int m = 0; m < 4; ++m) {
                const int i = (k * NOPS + op) * 4 + m;
                if (std::memcmp(&fo[i], &fr[m], sizeof(float))) {
                    std::fprintf(stderr, "float case %d op %d mode %d: %a, want %a\n", k, op, m,
                                 fo[i], fr[m]);
                    ++fbad;
                }
                if (std::memcmp(&dout[i], &dr[m], sizeof(double))) {
                    std::fprintf(stderr, "double case %d op %d mode %d: %a, want %a\n", k, op,
                                 m, dout[i], dr[m]);
                    ++dbad;
                }
            }
        }
    CHECK_EQ_INT(fbad, 0);
    CHECK_EQ_INT(dbad, 0);
    CHECK(differ >= kNF * NOPS / 2); /* most cases do tell the modes apart */

    long long *li;
    float *fl;
    double *db;
    CK(cudaMallocManaged(&li, 7 * 32 * sizeof(long long)));
    CK(cudaMallocManaged(&fl, 24 * sizeof(float)));
    CK(cudaMallocManaged(&db, 8 * sizeof(double)));
    conversions<<<1, 1>>>(li, fl, db);
    CK(cudaDeviceSynchronize());
    /* to integers: rn rz ru rd of 2.5, -2.5, 3.7, -3.7; saturation; NaN */
    const long long want_i[7][4] = {{2, 2, 3, 2}, {-2, -2, -2, -3}, {4, 3, 4, 3}, {-4, -3, -3, -4},
                                    {INT_MAX, INT_MAX, INT_MAX, INT_MAX}, {-2, -1, -1, -2}, {0, 0, 0, 0}};
    for (int k = 0; k < 7; ++k)
        for (int m = 0; m < 4; ++m) {
            const long long w = want_i[k][m];
            const long long wu = k == 4 ? 3000000000ll : w < 0 ? 0 : w; /* unsigned saturates at 0 */
            const long long wll = k == 4 ? 3000000000ll : w;
            for (int dbl = 0; dbl < 2; ++dbl) {
                CHECK_EQ_INT(li[k * 32 + dbl * 16 + m], w);
                CHECK_EQ_INT(li[k * 32 + dbl * 16 + 4 + m], wu);
                CHECK_EQ_INT(li[k * 32 + dbl * 16 + 8 + m], wll);
                CHECK_EQ_INT(li[k * 32 + dbl * 16 + 12 + m], wu);
            }
        }
    /* to floating point: 2^24 + 1, 2^32 - 1, 2^60 + 1, 2^64 - 1, -1/3, 2^53 + 1 */
    const float p24 = 16777216.0f, p24u = 16777218.0f;
    const float want_f[6][4] = {{p24, p24, p24u, p24}, {-p24, -p24, -p24, -p24u},
                                {0x1p32f, 0x1.fffffep31f, 0x1p32f, 0x1.fffffep31f},
                                {0x1p60f, 0x1p60f, 0x1.000002p60f, 0x1p60f},
                                {0x1p64f, 0x1.fffffep63f, 0x1p64f, 0x1.fffffep63f},
                                {-0x1.555556p-2f, -0x1.555554p-2f, -0x1.555554p-2f, -0x1.555556p-2f}};
    for (int k = 0; k < 6; ++k)
        for (int m = 0; m < 4; ++m) CHECK(fl[k * 4 + m] == want_f[k][m]);
    const double want_d[2][4] = {{0x1p53, 0x1p53, 0x1.0000000000001p53, 0x1p53},
                                 {0x1p64, 0x1.fffffffffffffp63, 0x1p64, 0x1.fffffffffffffp63}};
    for (int k = 0; k < 2; ++k)
        for (int m = 0; m < 4; ++m) CHECK(db[k * 4 + m] == want_d[k][m]);

    /* the host thread's rounding is round-to-nearest again */
    volatile float one = 1.0f, three = 3.0f;
    CHECK(one / three == 0x1.555556p-2f);
    CK(cudaFree(cs));
    CK(cudaFree(fo));
    CK(cudaFree(dout));
    CK(cudaFree(li));
    CK(cudaFree(fl));
    CK(cudaFree(db));
    return test_exit("rounding");
}
