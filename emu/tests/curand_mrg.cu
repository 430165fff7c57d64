/* emu/tests/curand_mrg.cu - cuRAND's MRG32k3a (device and host API) on the emulator.
 *
 *   recurrence: curand_init's state and the values that follow equal this
 *       file's own MRG32k3a (signed 64-bit recurrence, jumps by squaring
 *       the step matrices in 128-bit arithmetic: no tables) for seeds,
 *       subsequences (2^76 apart) and offsets; skipahead_sequence is 2^127
 *   toolkit: values of the toolkit's curand_kernel.h and libcurand's host
 *       generator, kept from one comparison (emu/README.md, *cuRAND*)
 *   dists: uniforms in (0, 1], normals in pairs, log-normal = exp of the
 *       normal, moments within 5 standard errors
 *   host API: result g is value g / 81920 of subsequence g % 81920 (ints,
 *       doubles), normal pairs two values of subsequence (g / 2) % 81920;
 *       a host generator gives what a device one gives
 */
#include <cmath>
#include <cstdio>
#include <vector>

#include <cuda_runtime.h>
#include <curand.h>
#include <curand_kernel.h>

#include "test_util.h"

/* ---- this file's own MRG32k3a ---- */

typedef long long i64;
typedef unsigned __int128 u128;
static const i64 M1 = 4294967087LL, M2 = 4294944443LL;

struct Ref {
    i64 a[3], b[3]; /* the two components' last three values, oldest first */
};

static Ref ref_seed(unsigned long long seed)
{
    Ref r;
    for (int i = 0; i < 3; i++) r.a[i] = r.b[i] = 12345;
    if (seed) {
        const i64 lo = (unsigned int)seed ^ 0x55555555u, hi = (unsigned int)(seed >> 32) ^ 0xAAAAAAAAu;
        r.a[0] = lo * 12345 % M1, r.a[1] = hi * 12345 % M1, r.a[2] = lo * 12345 % M1;
        r.b[0] = hi * 12345 % M2, r.b[1] = lo * 12345 % M2, r.b[2] = hi * 12345 % M2;
    }
    return r;
}

/* one step: the combined value in [1, M1] */
static i64 ref_step(Ref &r)
{
    i64 x = (1403580LL * r.a[1] - 810728LL * r.a[0]) % M1;
    if (x < 0) x += M1;
    i64 y = (527612LL * r.b[2] - 1370589LL * r.b[0]) % M2;
    if (y < 0) y += M2;
    r.a[0] = r.a[1], r.a[1] = r.a[2], r.a[2] = x;
    r.b[0] = r.b[1], r.b[1] = r.b[2], r.b[2] = y;
    return x > y ? x - y : x - y + M1;
}

struct M3 {
    u128 e[3][3];
};

static M3 mul(const M3 &p, const M3 &q, i64 m)
{
    M3 r;
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) {
            u128 s = 0;
            for (int k = 0; k < 3; k++) s += p.e[i][k] * q.e[k][j];
            r.e[i][j] = s % (u128)m;
        }
    return r;
}

/* A^(n 2^e) for component c's step matrix A */
static M3 jump_matrix(int c, unsigned long long n, int e)
{
    const i64 m = c ? M2 : M1;
    M3 a = {{{0, 1, 0}, {0, 0, 1}, {0, 0, 0}}};
    if (c == 0) a.e[2][0] = M1 - 810728, a.e[2][1] = 1403580;
    else a.e[2][0] = M2 - 1370589, a.e[2][2] = 527612;
    for (int i = 0; i < e; i++) a = mul(a, a, m);
    M3 r = {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}};
    for (; n; n >>= 1, a = mul(a, a, m))
        if (n & 1) r = mul(r, a, m);
    return r;
}

static void ref_jump(Ref &r, unsigned long long n, int e)
{
    for (int c = 0; c < 2; c++) {
        const M3 p = jump_matrix(c, n, e);
        i64 *v = c ? r.b : r.a, out[3];
        for (int i = 0; i < 3; i++)
            out[i] = (i64)((p.e[i][0] * v[0] + p.e[i][1] * v[1] + p.e[i][2] * v[2]) % (u128)(c ? M2 : M1));
        for (int i = 0; i < 3; i++) v[i] = out[i];
    }
}

static Ref ref_init(unsigned long long seed, unsigned long long sub, unsigned long long off)
{
    Ref r = ref_seed(seed);
    ref_jump(r, sub, 76);
    ref_jump(r, off, 0);
    return r;
}

static unsigned int ref_u32(Ref &r) { return (unsigned int)((double)ref_step(r) * 1.000000048662); }

/* ---- the device API under test ---- */

struct Case {
    unsigned long long seed, sub, off;
};

#define PER 8 /* values per case */

/* per case: the state after curand_init, PER integers, the state after a
 * skipahead_sequence(2) */
__global__ void by_cases(const Case *cs, int n, unsigned int *state, unsigned int *vals,
                         unsigned int *seq)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    curandStateMRG32k3a_t s;
    curand_init(cs[k].seed, cs[k].sub, cs[k].off, &s);
    for (int i = 0; i < 3; i++) state[6 * k + i] = s.s1[i], state[6 * k + 3 + i] = s.s2[i];
    for (int i = 0; i < PER; i++) vals[PER * k + i] = curand(&s);
    skipahead_sequence(2, &s);
    for (int i = 0; i < 3; i++) seq[6 * k + i] = s.s1[i], seq[6 * k + 3 + i] = s.s2[i];
}

/* the distributions of one state, in the order the toolkit's comparison made them */
__global__ void dists(unsigned long long seed, unsigned long long sub, unsigned long long off,
                      double *out)
{
    curandStateMRG32k3a_t s;
    curand_init(seed, sub, off, &s);
    for (int i = 0; i < 4; i++) out[i] = curand(&s);
    /* the comparison printed pairs of calls as printf arguments, which its
     * compiler evaluated right to left: the same order here */
    out[5] = curand_uniform_double(&s);
    out[4] = curand_uniform(&s);
    const float2 n2 = curand_normal2(&s);
    out[6] = n2.x, out[7] = n2.y;
    out[9] = curand_normal(&s);
    out[8] = curand_normal(&s);
    const double2 d2 = curand_normal2_double(&s);
    out[10] = d2.x, out[11] = d2.y;
    out[13] = curand_log_normal(&s, 0.5f, 2.0f);
    out[12] = curand_normal_double(&s);
    out[15] = curand_log_normal_double(&s, 0.5, 2.0);
    out[14] = curand_log_normal(&s, 0.5f, 2.0f);
    out[16] = curand_log_normal_double(&s, 0.5, 2.0);
}

/* n normals (kind 0: float, 1: double) from threads of subsequence k, and
 * n uniforms from the same */
__global__ void many(unsigned long long seed, int per, int kind, double *normals, double *unis)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    curandStateMRG32k3a_t s, t;
    curand_init(seed, k, 0, &s);
    t = s;
    for (int i = 0; i < per; i++) {
        normals[k * per + i] = kind ? curand_normal_double(&s) : curand_normal(&s);
        unis[k * per + i] = kind ? curand_uniform_double(&t) : curand_uniform(&t);
    }
}

/* the host API's result g by the device API: value g / 81920 of
 * subsequence g % 81920 (u: pairs, normal kind 1 float, 2 double) */
__global__ void host_order(unsigned long long seed, const unsigned long long *g, int n, int kind,
                           double *out)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    const unsigned long long u = kind ? g[k] / 2 : g[k];
    curandStateMRG32k3a_t s;
    curand_init(seed, u % 81920, (kind ? 2 : 1) * (u / 81920), &s);
    if (kind == 1) {
        const float2 v = curand_normal2(&s);
        out[k] = g[k] % 2 ? v.y : v.x;
    } else if (kind == 2) {
        const double2 v = curand_normal2_double(&s);
        out[k] = g[k] % 2 ? v.y : v.x;
    } else {
        out[k] = curand(&s);
    }
}

int main()
{
    /* recurrence, jumps */
    const Case cases[] = {{0, 0, 0},         {0, 0, 1000},       {1, 1, 0},
                          {1234, 77, 1000},  {1234, 5, 7},       {0x123456789abcdefull, (1ull << 40) + 3, (1ull << 33) + 1},
                          {42, 1ull << 50, 3}, {~0ull, 2, 1ull << 62}};
    const int nc = sizeof cases / sizeof cases[0];
    Case *dc;
    unsigned int *dstate, *dvals, *dseq;
    CK(cudaMallocManaged(&dc, sizeof cases));
    CK(cudaMallocManaged(&dstate, 6 * nc * sizeof(unsigned int)));
    CK(cudaMallocManaged(&dseq, 6 * nc * sizeof(unsigned int)));
    CK(cudaMallocManaged(&dvals, PER * nc * sizeof(unsigned int)));
    for (int i = 0; i < nc; i++) dc[i] = cases[i];
    by_cases<<<1, nc>>>(dc, nc, dstate, dvals, dseq);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    for (int k = 0; k < nc; k++) {
        Ref r = ref_init(cases[k].seed, cases[k].sub, cases[k].off);
        for (int i = 0; i < 3; i++) {
            CHECK_EQ_INT(dstate[6 * k + i], r.a[i]);
            CHECK_EQ_INT(dstate[6 * k + 3 + i], r.b[i]);
        }
        for (int i = 0; i < PER; i++) CHECK_EQ_INT(dvals[PER * k + i], ref_u32(r));
        ref_jump(r, 2, 127);
        for (int i = 0; i < 3; i++) {
            CHECK_EQ_INT(dseq[6 * k + i], r.a[i]);
            CHECK_EQ_INT(dseq[6 * k + 3 + i], r.b[i]);
        }
    }
    /* an offset is that many steps (here without any jump matrix) */
    {
        Ref r = ref_seed(0);
        for (int i = 0; i < 1000; i++) ref_step(r);
        CHECK_EQ_INT(dvals[PER * 1], ref_u32(r));
    }

    /* published and toolkit values */
    double *out;
    CK(cudaMallocManaged(&out, 17 * sizeof(double)));
    dists<<<1, 1>>>(0, 0, 0, out);
    CK(cudaDeviceSynchronize());
    CHECK_EQ_INT(out[0], 545508615u); /* toolkit: the first integer of seed 0 */
    dists<<<1, 1>>>(1234, 77, 1000, out);
    CK(cudaDeviceSynchronize());
    /* the toolkit's curand_kernel.h compiled for the host: seed 1234, subsequence 77, offset 1000 */
    const double want[17] = {471023508, 3568059602, 1715002752, 4004642345, 0x1.1143cp-2,
                             0x1.37e1d10e9f5bbp-4, 0x1.b71272p-1, 0x1.e92d9p-3, 0x1.133d3ap-7,
                             0x1.5096e6p-1, 0x1.25c2bee9f4c7bp+0, 0x1.0ff3596d745c6p-3,
                             -0x1.6a845102392d1p-1, 0x1.c66872p+3, 0x1.c8b92p+1,
                             0x1.9c0b48b7c86ddp+2, 0x1.115b17d485403p+2};
    for (int i = 0; i < 17; i++)
        if (out[i] != want[i]) {
            std::fprintf(stderr, "toolkit value %d: %a, want %a\n", i, out[i], want[i]);
            CHECK(out[i] == want[i]);
        }

    /* distributions: 256 subsequences x 256 values */
    const int threads = 256, per = 256, n = threads * per;
    double *nrm, *uni;
    CK(cudaMallocManaged(&nrm, n * sizeof(double)));
    CK(cudaMallocManaged(&uni, n * sizeof(double)));
    for (int kind = 0; kind < 2; kind++) {
        many<<<1, threads>>>(7, per, kind, nrm, uni);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        int outside = 0;
        for (int i = 0; i < n; i++) outside += !(uni[i] > 0.0 && uni[i] <= 1.0);
        CHECK_EQ_INT(outside, 0);
        CHECK(moments_fit(kind ? "uniform double" : "uniform", uni, n, 0.5, 1.0 / 12, 1.8));
        CHECK(moments_fit(kind ? "normal double" : "normal", nrm, n, 0.0, 1.0, 3.0));
        /* the pairs: normal 2j and 2j + 1 are Box-Muller on uniforms 2j, 2j + 1 */
        for (int j = 0; j < 8; j++) {
            const double u = uni[2 * j], v = uni[2 * j + 1];
            const double s = std::sqrt(-2.0 * std::log(u));
            CHECK(std::fabs(nrm[2 * j] - s * std::sin(2 * M_PI * v)) < 1e-4);
            CHECK(std::fabs(nrm[2 * j + 1] - s * std::cos(2 * M_PI * v)) < 1e-4);
        }
    }

    /* host API: ordering, host against device generator, libcurand's values */
    /* integers past 2 x 81920; normals; the device generator's integers */
    const size_t hn = 170000, hn2 = 100000, dn = 20000;
    unsigned int *du;
    CK(cudaMalloc(&du, dn * sizeof(unsigned int)));
    curandGenerator_t g, h;
    CR(curandCreateGenerator(&g, CURAND_RNG_PSEUDO_MRG32K3A));
    CR(curandCreateGeneratorHost(&h, CURAND_RNG_PSEUDO_MRG32K3A));
    CR(curandSetPseudoRandomGeneratorSeed(g, 1234));
    CR(curandSetPseudoRandomGeneratorSeed(h, 1234));
    std::vector<unsigned int> hu(hn), gu(dn);
    std::vector<float> hf(hn2);
    std::vector<double> hd(hn2);
    CR(curandGenerate(g, du, dn));
    CR(curandGenerate(h, hu.data(), hn));
    CR(curandSetGeneratorOffset(h, 0));
    CR(curandGenerateNormal(h, hf.data(), hn2, 0.0f, 1.0f));
    CR(curandSetGeneratorOffset(h, 0));
    CR(curandGenerateNormalDouble(h, hd.data(), hn2, 0.0, 1.0));
    CK(cudaMemcpy(gu.data(), du, dn * sizeof(unsigned int), cudaMemcpyDeviceToHost));
    int differ = 0;
    for (size_t i = 0; i < dn; i++) differ += gu[i] != hu[i];
    CHECK_EQ_INT(differ, 0);
    /* libcurand's host generator, seed 1234 */
    CHECK_EQ_INT(hu[0], 3379073520u);
    CHECK_EQ_INT(hu[81920], 2521876100u);
    CHECK_EQ_INT(hu[163841], 2749090064u);
    CHECK(hf[0] == -0x1.714f3ap-2f && hf[1] == -0x1.2ebc6cp-1f);
    CHECK(hd[0] == -0x1.714f307ceeb21p-2 && hd[99998] == -0x1.94b66a3fc5a2bp+0);
    /* the ordering, on a sample that crosses subsequences and positions */
    const int ns = 64;
    unsigned long long *gs;
    double *got;
    CK(cudaMallocManaged(&gs, ns * sizeof *gs));
    CK(cudaMallocManaged(&got, ns * sizeof *got));
    for (int i = 0; i < ns; i++) gs[i] = (unsigned long long)i * 3119 % hn2;
    for (int kind = 0; kind < 3; kind++) {
        host_order<<<1, ns>>>(1234, gs, ns, kind, got);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        for (int i = 0; i < ns; i++) {
            const double v = kind == 0 ? hu[gs[i]] : kind == 1 ? hf[gs[i]] : hd[gs[i]];
            if (v != got[i]) {
                std::fprintf(stderr, "host order kind %d result %llu: %a, want %a\n", kind, gs[i],
                             v, got[i]);
                CHECK(v == got[i]);
            }
        }
    }

    CR(curandDestroyGenerator(g));
    CR(curandDestroyGenerator(h));
    CK(cudaFree(gs));
    CK(cudaFree(got));
    CK(cudaFree(du));
    CK(cudaFree(nrm));
    CK(cudaFree(uni));
    CK(cudaFree(out));
    CK(cudaFree(dc));
    CK(cudaFree(dstate));
    CK(cudaFree(dvals));
    CK(cudaFree(dseq));
    return test_exit("curand_mrg");
}
