/* emu/tests/atomics_scoped.cu - the block- and system-scope atomics (#34):
 * atomicAdd/Sub/Exch/Min/Max/Inc/Dec/And/Or/Xor/CAS with _block and _system
 * on the types CUDA gives them (int, unsigned, long long, unsigned long
 * long, float, double; __half has no scoped forms in CUDA), by 256 threads of
 * two blocks, against sums, extremes and bit patterns computed on the host
 * from the same data; __threadfence_system compiles and orders nothing away.
 */
#include <cuda_runtime.h>

#include <cstdio>

#include "test_util.h"

constexpr int kN = 256;

struct Acc {
    int i_add, i_sub, i_min, i_max, i_and, i_or, i_xor, i_exch, i_cas;
    unsigned u_add, u_sub, u_min, u_max, u_and, u_or, u_xor, u_inc, u_dec;
    long long ll_min, ll_max;
    unsigned long long ull_add, ull_min, ull_max, ull_and, ull_or, ull_xor, ull_exch;
    float f_add, f_exch;
    double d_add;
    unsigned long long exch_olds, ull_exch_olds;
};

__device__ int val(int i) { return (i * 7919) % 1000 - 300; }

/* S is _block or _system: the same operations at both scopes */
#define ALL_OPS(S)                                                                   \
    __global__ void ops##S(Acc *a)                                                   \
    {                                                                                \
        const int i = blockIdx.x * blockDim.x + threadIdx.x;                         \
        const int v = val(i);                                                        \
        const unsigned u = (unsigned)v * 2654435761u;                                \
        const unsigned long long w = (unsigned long long)u << 20 | (unsigned)i;      \
        atomicAdd##S(&a->i_add, v);                                                  \
        atomicSub##S(&a->i_sub, v);                                                  \
        atomicMin##S(&a->i_min, v);                                                  \
        atomicMax##S(&a->i_max, v);                                                  \
        atomicAnd##S(&a->i_and, ~(1 << (i % 31)));                                   \
        atomicOr##S(&a->i_or, 1 << (i % 29));                                        \
        atomicXor##S(&a->i_xor, v);                                                  \
        int old = atomicExch##S(&a->i_exch, i);                                      \
        atomicAdd##S(&a->exch_olds, (unsigned long long)(old + 1));                  \
        int seen = a->i_cas;                                                         \
        for (;;) { /* an increment by compare-and-swap */                           \
            int got = atomicCAS##S(&a->i_cas, seen, seen + 1);                       \
            if (got == seen) break;                                                  \
            seen = got;                                                              \
        }                                                                            \
        atomicAdd##S(&a->u_add, u);                                                  \
        atomicSub##S(&a->u_sub, u);                                                  \
        atomicMin##S(&a->u_min, u);                                                  \
        atomicMax##S(&a->u_max, u);                                                  \
        atomicAnd##S(&a->u_and, u | 0x80000001u);                                    \
        atomicOr##S(&a->u_or, u & 0x0f0f0f0fu);                                      \
        atomicXor##S(&a->u_xor, u);                                                  \
        atomicInc##S(&a->u_inc, 1000u);                                              \
        atomicDec##S(&a->u_dec, 1000u);                                              \
        atomicMin##S(&a->ll_min, (long long)v * 1000000007ll);                       \
        atomicMax##S(&a->ll_max, (long long)v * 1000000007ll);                       \
        atomicAdd##S(&a->ull_add, w);                                                \
        atomicMin##S(&a->ull_min, w);                                                \
        atomicMax##S(&a->ull_max, w);                                                \
        atomicAnd##S(&a->ull_and, ~(1ull << (i % 63)));                              \
        atomicOr##S(&a->ull_or, 1ull << (i % 61));                                   \
        atomicXor##S(&a->ull_xor, w);                                                \
        unsigned long long uo = atomicExch##S(&a->ull_exch, (unsigned long long)i);  \
        atomicAdd##S(&a->ull_exch_olds, uo);                                         \
        atomicAdd##S(&a->f_add, (float)v);                                           \
        atomicExch##S(&a->f_exch, (float)i);                                         \
        atomicAdd##S(&a->d_add, v * 0.5);                                            \
        __threadfence_system();                                                      \
    }
ALL_OPS(_block)
ALL_OPS(_system)

static int host_val(int i) { return (i * 7919) % 1000 - 300; }

static void init(Acc &a)
{
    a = Acc();
    a.i_min = a.ll_min = 1 << 30;
    a.i_max = a.ll_max = -(1 << 30);
    a.i_and = -1;
    a.u_min = ~0u;
    a.u_and = ~0u;
    a.u_dec = 300;
    a.ull_min = ~0ull;
    a.ull_and = ~0ull;
    a.i_exch = -1;
    a.ull_exch = 12345;
    a.f_exch = -1.0f;
}

static void check(const Acc &g, const char *scope)
{
    Acc w;
    init(w);
    long long ids = 0;
    for (int i = 0; i < kN; ++i) {
        const int v = host_val(i);
        const unsigned u = (unsigned)v * 2654435761u;
        const unsigned long long x = (unsigned long long)u << 20 | (unsigned)i;
        w.i_add += v;
        w.i_sub -= v;
        w.i_min = v < w.i_min ? v : w.i_min;
        w.i_max = v > w.i_max ? v : w.i_max;
        w.i_and &= ~(1 << (i % 31));
        w.i_or |= 1 << (i % 29);
        w.i_xor ^= v;
        w.u_add += u;
        w.u_sub -= u;
        w.u_min = u < w.u_min ? u : w.u_min;
        w.u_max = u > w.u_max ? u : w.u_max;
        w.u_and &= u | 0x80000001u;
        w.u_or |= u & 0x0f0f0f0fu;
        w.u_xor ^= u;
        w.u_inc += 1;
        w.u_dec -= 1;
        const long long l = (long long)v * 1000000007ll;
        w.ll_min = l < w.ll_min ? l : w.ll_min;
        w.ll_max = l > w.ll_max ? l : w.ll_max;
        w.ull_add += x;
        w.ull_min = x < w.ull_min ? x : w.ull_min;
        w.ull_max = x > w.ull_max ? x : w.ull_max;
        w.ull_and &= ~(1ull << (i % 63));
        w.ull_or |= 1ull << (i % 61);
        w.ull_xor ^= x;
        w.f_add += (float)v; /* integers: exact in any order */
        w.d_add += v * 0.5;
        ids += i;
    }
    int bad = 0;
    bad += g.i_add != w.i_add;
    bad += g.i_sub != w.i_sub;
    bad += g.i_min != w.i_min;
    bad += g.i_max != w.i_max;
    bad += g.i_and != w.i_and;
    bad += g.i_or != w.i_or;
    bad += g.i_xor != w.i_xor;
    bad += g.i_cas != kN;
    bad += g.u_add != w.u_add;
    bad += g.u_sub != w.u_sub;
    bad += g.u_min != w.u_min;
    bad += g.u_max != w.u_max;
    bad += g.u_and != w.u_and;
    bad += g.u_or != w.u_or;
    bad += g.u_xor != w.u_xor;
    bad += g.u_inc != w.u_inc;
    bad += g.u_dec != w.u_dec;
    bad += g.ll_min != w.ll_min;
    bad += g.ll_max != w.ll_max;
    bad += g.ull_add != w.ull_add;
    bad += g.ull_min != w.ull_min;
    bad += g.ull_max != w.ull_max;
    bad += g.ull_and != w.ull_and;
    bad += g.ull_or != w.ull_or;
    bad += g.ull_xor != w.ull_xor;
    bad += g.f_add != w.f_add;
    bad += g.d_add != w.d_add;
    /* exchanges: the olds and the last value are the first value and the ids */
    bad += (long long)g.exch_olds - kN + g.i_exch != -1 + ids; /* the olds + 1 each */
    bad += g.ull_exch_olds + g.ull_exch != 12345ull + (unsigned long long)ids;
    bad += !(g.f_exch >= 0.0f && g.f_exch < kN && g.f_exch == (float)(int)g.f_exch);
    if (bad) std::fprintf(stderr, "%s: %d value(s) wrong\n", scope, bad);
    CHECK_EQ_INT(bad, 0);
}

int main()
{
    Acc *a;
    CK(cudaMallocManaged(&a, sizeof(Acc)));
    init(*a);
    ops_block<<<2, kN / 2>>>(a);
    CK(cudaDeviceSynchronize());
    check(*a, "_block");
    init(*a);
    ops_system<<<2, kN / 2>>>(a);
    CK(cudaDeviceSynchronize());
    check(*a, "_system");
    CK(cudaFree(a));
    return test_exit("atomics_scoped");
}
