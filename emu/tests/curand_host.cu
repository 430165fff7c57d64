/* emu/tests/curand_host.cu - cuRAND's host API (curand.h) on the emulator.
 *
 *   order: a device XORWOW generator's result g is value g / 4096 of
 *       subsequence g % 4096 (cuRAND's default ordering, as the device API
 *       gives it); Philox's result g is value 4 (b / 65536) + g % 4 of
 *       subsequence b % 65536, b = g / 4, its doubles four from two blocks;
 *       the first values are libcurand's
 *   calls: a run continues where the last ended; curandSetGeneratorOffset(k)
 *       gives the results from k on; same seed same values, other seed other
 *       values; a host generator (curandCreateGeneratorHost) gives what a
 *       device one gives; curandSetStream queues on that stream
 *   dists: uniform floats and doubles in (0, 1], normals, log-normals:
 *       mean and variance within 5 standard errors
 *   errors: an odd count of normals, a generator type not emulated, a null
 *       or destroyed generator, the version
 */
#include <cmath>
#include <cstdio>
#include <vector>

#include <cuda_runtime.h>
#include <curand.h>
#include <curand_kernel.h>

#include "test_util.h"

#define N (1 << 16)

template <class T> static std::vector<T> fetch(const T *d, size_t n)
{
    std::vector<T> h(n);
    CK(cudaDeviceSynchronize()); /* g may run on a non-blocking stream */
    CK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
}

/* out[k] = the device API's value for result idx[k] of the host API's
 * ordering: XORWOW value g / 4096 of subsequence g % 4096; Philox value
 * 4 (b / 65536) + g % 4 of subsequence b % 65536, b = g / 4 */
__global__ void by_device_api(unsigned long long seed, int philox, unsigned long long first,
                              int count, int step, unsigned int *out)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= count) return;
    const unsigned long long g = first + (unsigned long long)k * step;
    if (philox) {
        const unsigned long long b = g / 4;
        curandStatePhilox4_32_10_t s;
        curand_init(seed, b % 65536, 4 * (b / 65536) + g % 4, &s);
        out[k] = curand(&s);
    } else {
        curandState s;
        curand_init(seed, g % 4096, g / 4096, &s);
        out[k] = curand(&s);
    }
}

/* out[0..5]: the device API's doubles that a Philox generator's first six
 * uniform doubles are (two blocks of subsequence 0, then subsequence 1) */
__global__ void philox_doubles(unsigned long long seed, double *out)
{
    curandStatePhilox4_32_10_t s;
    curand_init(seed, 0, 0, &s);
    const double2 a = curand_uniform2_double(&s), b = curand_uniform2_double(&s);
    curand_init(seed, 1, 0, &s);
    const double2 c = curand_uniform2_double(&s);
    out[0] = a.x, out[1] = a.y, out[2] = b.x, out[3] = b.y, out[4] = c.x, out[5] = c.y;
}

/* the values by_device_api gives for first, first + step, ... (count of them) */
static std::vector<unsigned int> reference(unsigned long long seed, int philox,
                                           unsigned long long first, int count, int step)
{
    unsigned int *d;
    CK(cudaMalloc(&d, count * sizeof *d));
    by_device_api<<<(count + 127) / 128, 128>>>(seed, philox, first, count, step, d);
    CK(cudaGetLastError());
    std::vector<unsigned int> h(count);
    CK(cudaMemcpy(h.data(), d, count * sizeof *d, cudaMemcpyDeviceToHost));
    CK(cudaFree(d));
    return h;
}

int main()
{
    int version = 0;
    CR(curandGetVersion(&version));
    CHECK_EQ_INT(version, CURAND_VERSION);

    unsigned int *du;
    float *df;
    double *dd;
    CK(cudaMalloc(&du, N * sizeof *du));
    CK(cudaMalloc(&df, N * sizeof *df));
    CK(cudaMalloc(&dd, N * sizeof *dd));

    /* order */
    curandGenerator_t g, p, h;
    CR(curandCreateGenerator(&g, CURAND_RNG_PSEUDO_DEFAULT));
    CR(curandSetPseudoRandomGeneratorSeed(g, 1234));
    CR(curandGenerate(g, du, N));
    const std::vector<unsigned int> u = fetch(du, N);
    CHECK_EQ_INT(u[0], 624778773u); /* libcurand's first two */
    CHECK_EQ_INT(u[1], 3522650202u);
    const int NREF = N / 97 + 1;
    std::vector<unsigned int> ref = reference(1234, 0, 0, NREF, 97);
    int bad = 0;
    for (int k = 0; k < NREF; k++) bad += u[k * 97] != ref[k];
    CHECK_EQ_INT(bad, 0);
    CR(curandCreateGenerator(&p, CURAND_RNG_PSEUDO_PHILOX4_32_10));
    CR(curandSetPseudoRandomGeneratorSeed(p, 1234));
    CR(curandSetGeneratorOffset(p, 3 * 65536 * 4 - 40)); /* across a wrap of the subsequences */
    CR(curandGenerate(p, du, N));
    std::vector<unsigned int> v = fetch(du, N);
    ref = reference(1234, 1, 3 * 65536 * 4 - 40, NREF, 97);
    bad = 0;
    for (int k = 0; k < NREF; k++) bad += v[k * 97] != ref[k];
    CHECK_EQ_INT(bad, 0);
    CR(curandSetGeneratorOffset(p, 0));
    CR(curandGenerate(p, du, 2));
    v = fetch(du, 2);
    CHECK_EQ_INT(v[0], 546353992u);
    CHECK_EQ_INT(v[1], 3665621163u);
    CR(curandSetGeneratorOffset(p, 0));
    CR(curandGenerateUniformDouble(p, dd, 6));
    philox_doubles<<<1, 1>>>(1234, dd + 6);
    CK(cudaGetLastError());
    const std::vector<double> pd = fetch(dd, 12);
    for (int i = 0; i < 6; i++) CHECK(pd[i] == pd[6 + i]);

    /* calls: continuation, offset, seeds, host generator, stream */
    CR(curandSetGeneratorOffset(g, 0));
    CR(curandGenerate(g, du, 1000));
    CR(curandGenerate(g, du + 1000, N - 1000));
    CHECK(fetch(du, N) == u);
    CR(curandSetGeneratorOffset(g, 5000));
    CR(curandGenerate(g, du, N - 5000));
    v = fetch(du, N - 5000);
    CHECK(std::vector<unsigned int>(u.begin() + 5000, u.end()) == v);
    CR(curandSetPseudoRandomGeneratorSeed(g, 1235));
    CR(curandSetGeneratorOffset(g, 0));
    CR(curandGenerate(g, du, N));
    v = fetch(du, N);
    int equal = 0;
    for (size_t i = 0; i < N; i++) equal += u[i] == v[i];
    CHECK(equal <= 2); /* N / 2^32 by chance */
    CR(curandCreateGeneratorHost(&h, CURAND_RNG_PSEUDO_XORWOW));
    CR(curandSetPseudoRandomGeneratorSeed(h, 1234));
    std::vector<unsigned int> hv(N);
    CR(curandGenerate(h, hv.data(), N));
    CHECK(hv == u);
    cudaStream_t st;
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    CR(curandSetStream(g, st));
    CR(curandSetPseudoRandomGeneratorSeed(g, 1234));
    CR(curandSetGeneratorOffset(g, 0));
    CK(cudaMemset(du, 0, N * sizeof *du));
    CR(curandGenerate(g, du, N));
    CK(cudaStreamSynchronize(st));
    std::vector<unsigned int> sv(N);
    CK(cudaMemcpyAsync(sv.data(), du, N * sizeof *du, cudaMemcpyDeviceToHost, st));
    CK(cudaStreamSynchronize(st));
    CHECK(sv == u);

    /* distributions, from both generators */
    for (curandGenerator_t gen : {g, p}) {
        CR(curandSetGeneratorOffset(gen, 0));
        CR(curandGenerateUniform(gen, df, N));
        const std::vector<float> uf = fetch(df, N);
        int out = 0; /* not in (0, 1], NaN included */
        for (size_t i = 0; i < N; i++) out += !(uf[i] > 0.0f && uf[i] <= 1.0f);
        CHECK_EQ_INT(out, 0);
        CHECK(moments_fit("curandGenerateUniform", uf.data(), N, 0.5, 1.0 / 12, 1.8));
        CR(curandGenerateUniformDouble(gen, dd, N));
        const std::vector<double> ud = fetch(dd, N);
        for (size_t i = 0; i < N; i++) out += !(ud[i] > 0.0 && ud[i] <= 1.0);
        CHECK_EQ_INT(out, 0);
        CHECK(moments_fit("curandGenerateUniformDouble", ud.data(), N, 0.5, 1.0 / 12, 1.8));
        CR(curandGenerateNormal(gen, df, N, 1.5f, 2.0f));
        CHECK(moments_fit("curandGenerateNormal", fetch(df, N).data(), N, 1.5, 4.0, 3.0));
        CR(curandGenerateNormalDouble(gen, dd, N, -1.0, 0.5));
        CHECK(moments_fit("curandGenerateNormalDouble", fetch(dd, N).data(), N, -1.0, 0.25, 3.0));
        CR(curandGenerateLogNormal(gen, df, N, 0.25f, 0.5f));
        std::vector<double> logs(N);
        const std::vector<float> ln = fetch(df, N);
        for (size_t i = 0; i < N; i++) logs[i] = log((double)ln[i]);
        CHECK(moments_fit("log of curandGenerateLogNormal", logs.data(), N, 0.25, 0.25, 3.0));
        CR(curandGenerateLogNormalDouble(gen, dd, N, 0.25, 0.5));
        const std::vector<double> lnd = fetch(dd, N);
        for (size_t i = 0; i < N; i++) logs[i] = log(lnd[i]);
        CHECK(moments_fit("log of curandGenerateLogNormalDouble", logs.data(), N, 0.25, 0.25, 3.0));
    }

    /* errors */
    CHECK_EQ_INT(curandGenerateNormal(g, df, 3, 0.0f, 1.0f), CURAND_STATUS_LENGTH_NOT_MULTIPLE);
    curandGenerator_t m = nullptr;
    CHECK_EQ_INT(curandCreateGenerator(&m, CURAND_RNG_PSEUDO_MTGP32), CURAND_STATUS_TYPE_ERROR);
    CHECK_EQ_INT(curandGenerate(nullptr, du, 4), CURAND_STATUS_NOT_INITIALIZED);
    CHECK_EQ_INT(curandSetGeneratorOrdering(g, CURAND_ORDERING_PSEUDO_BEST), CURAND_STATUS_SUCCESS);
    CR(curandDestroyGenerator(h));
    CHECK_EQ_INT(curandGenerate(h, hv.data(), 4), CURAND_STATUS_NOT_INITIALIZED);

    CR(curandDestroyGenerator(g));
    CR(curandDestroyGenerator(p));
    CK(cudaStreamDestroy(st));
    CK(cudaFree(du));
    CK(cudaFree(df));
    CK(cudaFree(dd));
    return test_exit("curand_host");
}
