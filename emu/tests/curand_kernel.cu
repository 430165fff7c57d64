/* emu/tests/curand_kernel.cu - cuRAND's device API (curand_kernel.h) in kernels.
 *
 *   pi: the Monte-Carlo estimate of the CUDA samples' pattern (one XORWOW
 *       state per thread, curand_init(seed, thread, 0), points in the unit
 *       square): within 5 standard deviations of pi; every curand_uniform in
 *       (0, 1]
 *   known: first values of XORWOW and Philox4x32-10 (seed 1234, subsequences
 *       0 and 1), as libcurand and the toolkit's curand_kernel.h give them
 *   jumps: curand_init's offset is that many curand() calls; subsequences
 *       are 2^67 values apart (16 jumps of 2^63 values make one); jumps add;
 *       same seed same values, other seed or subsequence other values;
 *       neighbouring subsequences uncorrelated
 *   dists: normals in pairs (curand_normal twice = curand_normal2), Philox's
 *       four at once (curand4, uniform4, normal4), mean and variance of
 *       normal, normal_double, log_normal, poisson within 5 standard errors
 * (moments_fit of test_util.h: 5 standard errors, fixed seeds.)
 */
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>
#include <curand_kernel.h>

#include "test_util.h"

#define PI_THREADS 256
#define PI_SAMPLES 1024

__global__ void pi_kernel(unsigned long long seed, unsigned long long *hits, float *lo, float *hi)
{
    const int id = blockIdx.x * blockDim.x + threadIdx.x;
    curandState s;
    curand_init(seed, id, 0, &s);
    unsigned int inside = 0;
    float mn = 2.0f, mx = -1.0f;
    for (int i = 0; i < PI_SAMPLES; i++) {
        const float x = curand_uniform(&s), y = curand_uniform(&s);
        mn = fminf(mn, fminf(x, y));
        mx = fmaxf(mx, fmaxf(x, y));
        if (x * x + y * y <= 1.0f) inside++;
    }
    atomicAdd(hits, (unsigned long long)inside);
    lo[id] = mn;
    hi[id] = mx;
}

/* out[t * n + i]: value i of XORWOW (Philox when philox) subsequence t + sub0, offset off */
__global__ void streams(unsigned long long seed, int sub0, int off, int n, int philox,
                        unsigned int *out)
{
    const int t = threadIdx.x;
    curandState x;
    curandStatePhilox4_32_10_t p;
    curand_init(seed, sub0 + t, off, &x);
    curand_init(seed, sub0 + t, off, &p);
    for (int i = 0; i < n; i++) out[t * n + i] = philox ? curand(&p) : curand(&x);
}

__device__ bool same(const curandState &a, const curandState &b)
{
    bool eq = a.d == b.d;
    for (int i = 0; i < 5; i++) eq = eq && a.v[i] == b.v[i];
    return eq;
}

/* flags[k] = 1 when jump identity k holds */
__global__ void jumps(int *flags)
{
    curandState a, b;
    curand_init(99, 0, 0, &a);
    b = a;
    for (int i = 0; i < 16; i++) skipahead(1ull << 63, &a);
    skipahead_sequence(1, &b);
    flags[0] = same(a, b); /* 16 * 2^63 = 2^67 */
    curand_init(99, 3, 5, &a);
    curand_init(99, 0, 0, &b);
    skipahead_sequence(3, &b);
    skipahead(5, &b);
    flags[1] = same(a, b);
    curand_init(99, 0, 0, &a);
    b = a;
    skipahead(0x123456789abull, &a);
    skipahead(0xfedcba98765ull, &a);
    skipahead(0x123456789abull + 0xfedcba98765ull, &b);
    flags[2] = same(a, b);
    curand_init(99, 0x10000000001ull, 0, &a);
    curand_init(99, 1, 0, &b);
    skipahead_sequence(0x10000000000ull, &b);
    flags[3] = same(a, b);
    curandStatePhilox4_32_10_t p, q;
    curand_init(99, 7, 0x1000000003ull, &p);
    curand_init(99, 0, 0, &q);
    skipahead_sequence(7, &q);
    skipahead(0x1000000000ull, &q);
    for (int i = 0; i < 3; i++) (void)curand(&q);
    flags[4] = curand(&p) == curand(&q);
}

#define DN 4096 /* values per distribution */
struct Dists {
    float normal[DN], lognormal[DN];
    double normal_d[DN];
    unsigned int poisson4[DN], poisson100[DN];
    int pairs_ok;
};

__global__ void dists(Dists *d)
{
    const int t = threadIdx.x, per = DN / blockDim.x;
    curandState s, c;
    curand_init(7, t, 0, &s);
    int ok = 1;
    for (int i = 0; i < per; i += 2) {
        c = s;
        const float2 v = curand_normal2(&c);
        const float a = curand_normal(&s), b = curand_normal(&s);
        ok &= a == v.x && b == v.y && curand(&s) == curand(&c);
        d->normal[t * per + i] = a;
        d->normal[t * per + i + 1] = b;
        d->normal_d[t * per + i] = curand_normal_double(&s);
        d->normal_d[t * per + i + 1] = curand_normal_double(&s);
    }
    curandStatePhilox4_32_10_t p, q;
    curand_init(7, t, 0, &p);
    for (int i = 0; i < per; i++) {
        d->lognormal[t * per + i] = curand_log_normal(&p, 0.5f, 0.25f);
        d->poisson4[t * per + i] = curand_poisson(&p, 4.0);
        d->poisson100[t * per + i] = curand_poisson(&s, 100.0);
    }
    q = p;
    const uint4 r = curand4(&p);
    ok &= r.x == curand(&q) && r.y == curand(&q) && r.z == curand(&q) && r.w == curand(&q);
    q = p;
    const float4 u = curand_uniform4(&p);
    ok &= u.x == curand_uniform(&q) && u.y == curand_uniform(&q) && u.z == curand_uniform(&q) &&
          u.w == curand_uniform(&q) && u.x > 0.0f && u.w <= 1.0f;
    q = p;
    const float4 n = curand_normal4(&p);
    const float2 n0 = curand_normal2(&q), n1 = curand_normal2(&q);
    ok &= n.x == n0.x && n.y == n0.y && n.z == n1.x && n.w == n1.y;
    atomicAnd(&d->pairs_ok, ok);
}

int main()
{
    /* pi */
    unsigned long long *hits;
    float *lo, *hi;
    CK(cudaMalloc(&hits, sizeof *hits));
    CK(cudaMalloc(&lo, PI_THREADS * sizeof *lo));
    CK(cudaMalloc(&hi, PI_THREADS * sizeof *hi));
    CK(cudaMemset(hits, 0, sizeof *hits));
    pi_kernel<<<PI_THREADS / 64, 64>>>(1234, hits, lo, hi);
    CK(cudaGetLastError());
    unsigned long long h = 0;
    std::vector<float> vlo(PI_THREADS), vhi(PI_THREADS);
    CK(cudaMemcpy(&h, hits, sizeof h, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(vlo.data(), lo, PI_THREADS * sizeof(float), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(vhi.data(), hi, PI_THREADS * sizeof(float), cudaMemcpyDeviceToHost));
    const double n_pts = (double)PI_THREADS * PI_SAMPLES, p = M_PI / 4;
    const double pi_est = 4.0 * (double)h / n_pts, se = 4.0 * sqrt(p * (1 - p) / n_pts);
    std::printf("pi ~ %.5f (%.0f points, 5 standard errors %.5f)\n", pi_est, n_pts, 5 * se);
    CHECK(fabs(pi_est - M_PI) <= 5 * se);
    for (int i = 0; i < PI_THREADS; i++) CHECK(vlo[i] > 0.0f && vhi[i] <= 1.0f && vlo[i] < vhi[i]);

    /* known first values (libcurand 10.4 / the toolkit's curand_kernel.h) */
    const int NS = 64, NV = 256;
    unsigned int *dv;
    CK(cudaMalloc(&dv, NS * NV * sizeof *dv));
    std::vector<unsigned int> x(NS * NV), y(NS * NV), z(NS * NV);
    streams<<<1, 2>>>(1234, 0, 0, 2, 0, dv);
    CK(cudaMemcpy(x.data(), dv, 4 * sizeof *dv, cudaMemcpyDeviceToHost));
    CHECK_EQ_INT(x[0], 624778773u);
    CHECK_EQ_INT(x[1], 1867875844u);
    CHECK_EQ_INT(x[2], 3522650202u);
    streams<<<1, 2>>>(1234, 0, 0, 2, 1, dv);
    CK(cudaMemcpy(x.data(), dv, 4 * sizeof *dv, cudaMemcpyDeviceToHost));
    CHECK_EQ_INT(x[0], 546353992u);
    CHECK_EQ_INT(x[1], 3665621163u);
    CHECK_EQ_INT(x[2], 3507855656u);

    /* jumps, seeds and subsequences, both generators */
    for (int ph = 0; ph < 2; ph++) {
        streams<<<1, NS>>>(5, 0, 0, NV, ph, dv);
        CK(cudaMemcpy(x.data(), dv, NS * NV * sizeof *dv, cudaMemcpyDeviceToHost));
        streams<<<1, NS>>>(5, 0, 0, NV, ph, dv);
        CK(cudaMemcpy(y.data(), dv, NS * NV * sizeof *dv, cudaMemcpyDeviceToHost));
        CHECK(x == y); /* same seed, same values */
        streams<<<1, NS>>>(6, 0, 0, NV, ph, dv);
        CK(cudaMemcpy(z.data(), dv, NS * NV * sizeof *dv, cudaMemcpyDeviceToHost));
        int equal = 0;
        for (int i = 0; i < NS * NV; i++) equal += x[i] == z[i];
        CHECK(equal <= 2); /* another seed: (NS NV) / 2^32 equal by chance */
        /* offset k: subsequence t's values from k on */
        streams<<<1, NS>>>(5, 0, 37, NV - 37, ph, dv);
        CK(cudaMemcpy(z.data(), dv, NS * (NV - 37) * sizeof *dv, cudaMemcpyDeviceToHost));
        int shifted = 0;
        for (int t = 0; t < NS; t++)
            for (int i = 0; i + 37 < NV; i++) shifted += z[t * (NV - 37) + i] == x[t * NV + 37 + i];
        CHECK_EQ_INT(shifted, NS * (NV - 37));
        /* subsequences differ, and neighbours are uncorrelated */
        equal = 0;
        double worst = 0;
        for (int t = 0; t + 1 < NS; t++) {
            double sa = 0, sb = 0, sab = 0, saa = 0, sbb = 0;
            for (int i = 0; i < NV; i++) {
                const double a = x[t * NV + i] / 4294967296.0, b = x[(t + 1) * NV + i] / 4294967296.0;
                equal += x[t * NV + i] == x[(t + 1) * NV + i];
                sa += a, sb += b, sab += a * b, saa += a * a, sbb += b * b;
            }
            const double r = (sab - sa * sb / NV) / sqrt((saa - sa * sa / NV) * (sbb - sb * sb / NV));
            worst = fmax(worst, fabs(r));
        }
        CHECK(equal <= 2);
        /* NS - 1 correlations of NV pairs: each within 5 / sqrt(NV) */
        if (!(worst <= 5.0 / sqrt((double)NV)))
            std::fprintf(stderr, "generator %d: correlation %.4f between neighbouring subsequences\n",
                         ph, worst);
        CHECK(worst <= 5.0 / sqrt((double)NV));
    }
    int *flags;
    CK(cudaMalloc(&flags, 5 * sizeof *flags));
    jumps<<<1, 1>>>(flags);
    int fl[5];
    CK(cudaMemcpy(fl, flags, sizeof fl, cudaMemcpyDeviceToHost));
    for (int k = 0; k < 5; k++) {
        if (!fl[k]) std::fprintf(stderr, "jump identity %d does not hold\n", k);
        CHECK(fl[k] == 1);
    }

    /* distributions */
    Dists *dd;
    CK(cudaMalloc(&dd, sizeof *dd));
    CK(cudaMemset(&dd->pairs_ok, 0xFF, sizeof(int)));
    dists<<<1, 64>>>(dd);
    CK(cudaGetLastError());
    auto *hd = new Dists;
    CK(cudaMemcpy(hd, dd, sizeof *hd, cudaMemcpyDeviceToHost));
    CHECK(hd->pairs_ok == 1);
    CHECK(moments_fit("curand_normal", hd->normal, DN, 0.0, 1.0, 3.0));
    CHECK(moments_fit("curand_normal_double", hd->normal_d, DN, 0.0, 1.0, 3.0));
    std::vector<double> logs(DN);
    for (int i = 0; i < DN; i++) logs[i] = log((double)hd->lognormal[i]);
    CHECK(moments_fit("log of curand_log_normal", logs.data(), DN, 0.5, 0.0625, 3.0));
    CHECK(moments_fit("curand_poisson(4)", hd->poisson4, DN, 4.0, 4.0, 3.0 + 1.0 / 4.0));
    CHECK(moments_fit("curand_poisson(100)", hd->poisson100, DN, 100.0, 100.0, 3.0 + 1.0 / 100.0));
    delete hd;

    CK(cudaFree(dd));
    CK(cudaFree(flags));
    CK(cudaFree(dv));
    CK(cudaFree(hits));
    CK(cudaFree(lo));
    CK(cudaFree(hi));
    return test_exit("curand_kernel");
}
