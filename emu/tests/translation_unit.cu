/* emu/tests/translation_unit.cu - the translation unit is nvcc's: this file
 * does NOT include cuda_runtime.h (nvcc includes it in every .cu); it tests
 * the runtime's include guards as cuda-samples' helper_cuda.h does, includes
 * device code from a header (translation_unit_kernels.cuh), launches kernels
 * with fewer arguments than parameters (default arguments), and uses the
 * device math nvcc makes global: isfinite/isnan/signbit, umin/umax,
 * llmin/ullmax, min/max of mixed int/unsigned, __mul24 & co., plus
 * cuda_profiler_api.h and math_constants.h.  Prints "translation_unit ok". */
#include <cmath>
#include <cstdio>

#include <cuda_profiler_api.h>
#include <math_constants.h>

#include "translation_unit_kernels.cuh"

#if !defined(__DRIVER_TYPES_H__) || !defined(__CUDA_RUNTIME_H__) || \
    !defined(__CUDA_RUNTIME_API_H__) || !defined(__VECTOR_TYPES_H__)
#error "the runtime's include guards are not defined"
#endif

static int g_failures = 0;
#define EXPECT(cond)                                                           \
    do {                                                                       \
        if (!(cond)) {                                                         \
            std::printf("FAILED line %d: %s\n", __LINE__, #cond);              \
            ++g_failures;                                                      \
        }                                                                      \
    } while (0)
#define CHECK(call) EXPECT((call) == cudaSuccess)

__global__ void set_value(int *out, int value = 42, int offset = 0) { out[offset] = value; }

/* one thread: the device math nvcc puts in the global namespace */
__global__ void device_math(const float *x, unsigned *out)
{
    out[0] = isfinite(x[0]) ? 1u : 0u;          /* 1.0f */
    out[1] = isnan(x[1]) ? 1u : 0u;             /* NaN */
    out[2] = isinf(x[2]) ? 1u : 0u;             /* inf */
    out[3] = signbit(x[3]) ? 1u : 0u;           /* -2.0f */
    out[4] = umin(7u, 3u) + 10u * umax(7u, 3u); /* 73 */
    out[5] = (unsigned)llmin(-5ll, 4ll) + 5u;   /* 0 */
    out[6] = (unsigned)ullmax(9ull, 2ull);      /* 9 */
    out[7] = min(-1, 5u);                       /* mixed: unsigned compare, 5 */
    out[8] = (unsigned)__mul24(1000, 3);        /* 3000 */
    out[9] = __umulhi(0x80000000u, 4u);         /* 2 */
    out[10] = (unsigned)(__popc(0xF0u) + 10 * __ffs(8)); /* 4 + 40 */
    out[11] = (unsigned)__clz(1) + (__brev(1u) >> 31);   /* 31 + 1 */
    out[12] = (unsigned)(rsqrtf(4.0f) * 10.0f + __fdividef(9.0f, 3.0f) + fminf(1.0f, 2.0f)); /* 5+3+1 */
    out[13] = (unsigned)(CUDART_PI_F * 100.0f); /* 314 */
}

int main()
{
    EXPECT(cudaProfilerStart() == cudaSuccess);
    EXPECT(cudaComputeModeProhibited == 2);
    int mode = -1;
    CHECK(cudaDeviceGetAttribute(&mode, cudaDevAttrComputeMode, 0));
    EXPECT(mode == cudaComputeModeDefault);

    /* default arguments: none, some, all given */
    int *v = nullptr;
    CHECK(cudaMalloc(&v, 3 * sizeof(int)));
    set_value<<<1, 1>>>(v);
    set_value<<<1, 1>>>(v, 7, 1);
    set_value<<<1, 1>>>(v, 9, 2);
    CHECK(cudaGetLastError());
    int hv[3] = {0, 0, 0};
    CHECK(cudaMemcpy(hv, v, sizeof hv, cudaMemcpyDeviceToHost));
    EXPECT(hv[0] == 42 && hv[1] == 7 && hv[2] == 9);

    /* device code from a header: launched there with defaults, and here */
    const int n = 64;
    float h[n], r[n];
    for (int i = 0; i < n; ++i) h[i] = (float)i;
    float *din = nullptr, *dout = nullptr;
    CHECK(cudaMalloc(&din, sizeof h));
    CHECK(cudaMalloc(&dout, sizeof h));
    CHECK(cudaMemcpy(din, h, sizeof h, cudaMemcpyHostToDevice));
    launch_reverse(din, dout, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(r, dout, sizeof r, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) EXPECT(r[i] == 2.0f * (float)(n - 1 - i));
    reverse_scaled<float><<<1, n, n * sizeof(float)>>>(din, dout, n, 3.0f);
    CHECK(cudaMemcpy(r, dout, sizeof r, cudaMemcpyDeviceToHost));
    EXPECT(r[0] == 3.0f * (float)(n - 1) && r[n - 1] == 0.0f);

    float hx[4] = {1.0f, std::nanf(""), HUGE_VALF, -2.0f}; /* CUDART_NAN_F is device-only */
    float *dx = nullptr;
    unsigned *dm = nullptr, hm[14];
    CHECK(cudaMalloc(&dx, sizeof hx));
    CHECK(cudaMalloc(&dm, sizeof hm));
    CHECK(cudaMemcpy(dx, hx, sizeof hx, cudaMemcpyHostToDevice));
    device_math<<<1, 1>>>(dx, dm);
    CHECK(cudaMemcpy(hm, dm, sizeof hm, cudaMemcpyDeviceToHost));
    const unsigned want[14] = {1, 1, 1, 1, 73, 0, 9, 5, 3000, 2, 44, 32, 9, 314};
    for (int i = 0; i < 14; ++i) {
        if (hm[i] != want[i]) std::printf("device_math[%d] = %u, want %u\n", i, hm[i], want[i]);
        EXPECT(hm[i] == want[i]);
    }

    EXPECT(cudaProfilerStop() == cudaSuccess);
    CHECK(cudaFree(v));
    CHECK(cudaFree(din));
    CHECK(cudaFree(dout));
    CHECK(cudaFree(dx));
    CHECK(cudaFree(dm));
    if (g_failures) return 1;
    std::printf("translation_unit ok\n");
    return 0;
}
