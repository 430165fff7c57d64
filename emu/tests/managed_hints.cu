/* emu/tests/managed_hints.cu - managed memory with prefetches and advice, as
 * NVIDIA's "An Even Easier Introduction to CUDA" and the unified-memory
 * samples write it: cudaMemPrefetchAsync in CUDA 13's form (a cudaMemLocation,
 * flags) and in the form before it (a device number, cudaCpuDeviceId),
 * cudaMemAdvise in both; the kernel's results after them, and the errors CUDA
 * gives for a range outside managed memory, a bad location, flags or advice.
 * CUDA 13's nvcc refuses the older forms, so a real build (CUDAEMU_REAL_TESTS)
 * makes the same calls in CUDA 13's forms (PREFETCH_OLD, ADVISE_OLD).
 */
#include <cuda_runtime.h>

#include <cstdio>

#include "test_util.h"

/* a device number as CUDA 13 names it (cudaCpuDeviceId: the host) */
[[maybe_unused]] static cudaMemLocation loc(int device)
{
    cudaMemLocation l = {device == cudaCpuDeviceId ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice,
                         device == cudaCpuDeviceId ? 0 : device};
    return l;
}
#ifdef __CUDAEMU__
#define PREFETCH_OLD(p, n, device, s) cudaMemPrefetchAsync(p, n, device, s)
#define ADVISE_OLD(p, n, advice, device) cudaMemAdvise(p, n, advice, device)
#else
#define PREFETCH_OLD(p, n, device, s) cudaMemPrefetchAsync(p, n, loc(device), 0, s)
#define ADVISE_OLD(p, n, advice, device) cudaMemAdvise(p, n, advice, loc(device))
#endif

__global__ void add(int n, float *x, float *y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = x[i] + y[i];
}

int main()
{
    const int n = 1 << 16;
    float *x = nullptr, *y = nullptr, *d = nullptr;
    CK(cudaMallocManaged(&x, n * sizeof(float)));
    CK(cudaMallocManaged(&y, n * sizeof(float)));
    CK(cudaMalloc(&d, n * sizeof(float)));
    for (int i = 0; i < n; i++) {
        x[i] = 1.0f;
        y[i] = float(i);
    }
    int dev = 0;
    CK(cudaGetDevice(&dev));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    /* the tutorial's form (before CUDA 13), then CUDA 13's */
    CK(PREFETCH_OLD(x, n * sizeof(float), dev, s));
    cudaMemLocation on_dev = {cudaMemLocationTypeDevice, dev};
    CK(cudaMemPrefetchAsync(y, n * sizeof(float), on_dev, 0, s));
    CK(ADVISE_OLD(x, n * sizeof(float), cudaMemAdviseSetReadMostly, dev));
    CK(cudaMemAdvise(y, n * sizeof(float), cudaMemAdviseSetPreferredLocation, on_dev));
    CK(ADVISE_OLD(y, n * sizeof(float), cudaMemAdviseSetAccessedBy, cudaCpuDeviceId));
    add<<<64, 256, 0, s>>>(n, x, y);
    CK(cudaGetLastError());
    cudaMemLocation host = {cudaMemLocationTypeHost, 0};
    CK(cudaMemPrefetchAsync(y, n * sizeof(float), host, 0, s));
    CK(PREFETCH_OLD(x, n * sizeof(float), cudaCpuDeviceId, s));
    CK(cudaStreamSynchronize(s));
    int wrong = 0;
    for (int i = 0; i < n; i++) wrong += y[i] != float(i) + 1.0f;
    CHECK(wrong == 0);

    /* what CUDA refuses: memory that is not managed, a range past the
     * allocation, no bytes, a device that is not there, flags, advice */
    const size_t bytes = n * sizeof(float);
    CHECK(PREFETCH_OLD(d, bytes, dev, s) == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    CHECK(PREFETCH_OLD(x + 1, bytes, dev, s) == cudaErrorInvalidValue);
    CHECK(PREFETCH_OLD(x, 0, dev, s) == cudaErrorInvalidValue);
    int ndev = 0;
    CK(cudaGetDeviceCount(&ndev));
    CHECK(PREFETCH_OLD(x, bytes, ndev, s) == cudaErrorInvalidDevice);
    cudaMemLocation none = {cudaMemLocationTypeInvalid, 0};
    CHECK(cudaMemPrefetchAsync(x, bytes, none, 0, s) == cudaErrorInvalidValue);
    CHECK(cudaMemPrefetchAsync(x, bytes, on_dev, 1, s) == cudaErrorInvalidValue);
    CHECK(ADVISE_OLD(d, bytes, cudaMemAdviseSetReadMostly, dev) == cudaErrorInvalidValue);
    CHECK(ADVISE_OLD(x, bytes, cudaMemoryAdvise(7), dev) == cudaErrorInvalidValue);
    CHECK(ADVISE_OLD(x, bytes, cudaMemAdviseSetPreferredLocation, ndev) == cudaErrorInvalidDevice);
    /* read-mostly takes no location: any is accepted */
    CK(cudaMemAdvise(x, bytes, cudaMemAdviseUnsetReadMostly, none));
    /* the last error stays until read, successes between do not clear it */
    CHECK(cudaGetLastError() == cudaErrorInvalidDevice);
    CK(cudaGetLastError());

    CK(cudaStreamDestroy(s));
    CK(cudaFree(d));
    CK(cudaFree(y));
    CK(cudaFree(x));
    if (g_test_failures) return 1;
    std::printf("managed_hints: all checks passed\n");
    return 0;
}
