/* emu/tests/managed_hints.cu - managed memory with prefetches and advice, as
 * NVIDIA's "An Even Easier Introduction to CUDA" and the unified-memory
 * samples write it: cudaMemPrefetchAsync in CUDA 13's form (a cudaMemLocation,
 * flags) and in the form before it (a device number, cudaCpuDeviceId),
 * cudaMemAdvise in both; the kernel's results after them, and the errors CUDA
 * gives for a range outside managed memory, a bad location, flags or advice.
 * cudaMemRangeGetAttribute(s) then read back what the advice and prefetches
 * left on each part of a range.
 * CUDA 13's nvcc refuses the older forms, so a real build (CUDAEMU_REAL_TESTS)
 * makes the same calls in CUDA 13's forms (PREFETCH_OLD, ADVISE_OLD).
 */
#include <cuda_runtime.h>

#include <cstdio>

#include "test_util.h"

/* a device number as CUDA 13 names it (cudaCpuDeviceId: the host) */
static cudaMemLocation loc(int device)
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

/* cudaMemRangeGetAttribute(s): what advice and prefetches left on every
 * page of the range asked about (four parts of 64 KiB, advised apart) */
static int attr(cudaMemRangeAttribute a, const void *p, size_t n)
{
    int v = -7;
    CK(cudaMemRangeGetAttribute(&v, sizeof v, a, p, n));
    return v;
}

static void range_attributes(int dev, cudaStream_t s)
{
    const size_t part = 64 << 10, bytes = 4 * part;
    char *m = nullptr;
    CK(cudaMallocManaged(&m, bytes));
    char *last = m + 3 * part;
    /* nothing advised yet */
    CHECK_EQ_INT(attr(cudaMemRangeAttributeReadMostly, m, bytes), 0);
    CHECK_EQ_INT(attr(cudaMemRangeAttributePreferredLocation, m, bytes), cudaInvalidDeviceId);
    CHECK_EQ_INT(attr(cudaMemRangeAttributeLastPrefetchLocation, m, bytes), cudaInvalidDeviceId);
    /* read-mostly: all of the range, or 0 */
    CK(cudaMemAdvise(m, bytes, cudaMemAdviseSetReadMostly, loc(dev)));
    CK(cudaMemAdvise(m + part, part, cudaMemAdviseUnsetReadMostly, loc(dev)));
    CHECK_EQ_INT(attr(cudaMemRangeAttributeReadMostly, m, bytes), 0);
    CHECK_EQ_INT(attr(cudaMemRangeAttributeReadMostly, m, part), 1);
    CHECK_EQ_INT(attr(cudaMemRangeAttributeReadMostly, last, part), 1);
    CHECK_EQ_INT(attr(cudaMemRangeAttributeReadMostly, m + part, 1), 0);
    /* preferred location: the device for three parts, the host for the last */
    CK(cudaMemAdvise(m, 3 * part, cudaMemAdviseSetPreferredLocation, loc(dev)));
    CK(cudaMemAdvise(last, part, cudaMemAdviseSetPreferredLocation, loc(cudaCpuDeviceId)));
    CHECK_EQ_INT(attr(cudaMemRangeAttributePreferredLocation, m, 3 * part), dev);
    CHECK_EQ_INT(attr(cudaMemRangeAttributePreferredLocation, last, part), cudaCpuDeviceId);
    CHECK_EQ_INT(attr(cudaMemRangeAttributePreferredLocation, m, bytes), cudaInvalidDeviceId);
    CHECK_EQ_INT(attr(cudaMemRangeAttributePreferredLocationType, m, part), cudaMemLocationTypeDevice);
    CHECK_EQ_INT(attr(cudaMemRangeAttributePreferredLocationId, m, part), dev);
    CHECK_EQ_INT(attr(cudaMemRangeAttributePreferredLocationType, last, part), cudaMemLocationTypeHost);
    CHECK_EQ_INT(attr(cudaMemRangeAttributePreferredLocationType, m, bytes), cudaMemLocationTypeInvalid);
    CK(cudaMemAdvise(m, part, cudaMemAdviseUnsetPreferredLocation, loc(dev)));
    CHECK_EQ_INT(attr(cudaMemRangeAttributePreferredLocation, m, 3 * part), cudaInvalidDeviceId);
    CHECK_EQ_INT(attr(cudaMemRangeAttributePreferredLocation, m + part, 2 * part), dev);
    /* accessed by: the devices advised for the whole range, then cudaInvalidDeviceId */
    CK(cudaMemAdvise(m, bytes, cudaMemAdviseSetAccessedBy, loc(dev)));
    CK(cudaMemAdvise(last, part, cudaMemAdviseSetAccessedBy, loc(cudaCpuDeviceId)));
    int by[3] = {-7, -7, -7};
    CK(cudaMemRangeGetAttribute(by, sizeof by, cudaMemRangeAttributeAccessedBy, m, bytes));
    CHECK_EQ_INT(by[0], dev);
    CHECK_EQ_INT(by[1], cudaInvalidDeviceId);
    CHECK_EQ_INT(by[2], cudaInvalidDeviceId);
    CK(cudaMemRangeGetAttribute(by, sizeof by, cudaMemRangeAttributeAccessedBy, last, part));
    CHECK_EQ_INT(by[0], dev);
    CHECK_EQ_INT(by[1], cudaCpuDeviceId);
    CHECK_EQ_INT(by[2], cudaInvalidDeviceId);
    CK(cudaMemAdvise(m, bytes, cudaMemAdviseUnsetAccessedBy, loc(dev)));
    CK(cudaMemRangeGetAttribute(by, sizeof by, cudaMemRangeAttributeAccessedBy, m, bytes));
    CHECK_EQ_INT(by[0], cudaInvalidDeviceId);
    /* the last prefetch location asked for, both at once with cudaMemRangeGetAttributes */
    CK(cudaMemPrefetchAsync(m, bytes, loc(dev), 0, s));
    CK(cudaMemPrefetchAsync(last, part, loc(cudaCpuDeviceId), 0, s));
    int where = -7, type = -7, rm = -7;
    void *data[3] = {&where, &type, &rm};
    size_t sizes[3] = {sizeof where, sizeof type, sizeof rm};
    cudaMemRangeAttribute which[3] = {cudaMemRangeAttributeLastPrefetchLocation,
                                      cudaMemRangeAttributeLastPrefetchLocationType,
                                      cudaMemRangeAttributeReadMostly};
    CK(cudaMemRangeGetAttributes(data, sizes, which, 3, m, 3 * part));
    CHECK_EQ_INT(where, dev);
    CHECK_EQ_INT(type, cudaMemLocationTypeDevice);
    CHECK_EQ_INT(rm, 0);
    CK(cudaMemRangeGetAttributes(data, sizes, which, 3, last, part));
    CHECK_EQ_INT(where, cudaCpuDeviceId);
    CHECK_EQ_INT(type, cudaMemLocationTypeHost);
    CHECK_EQ_INT(rm, 1);
    CHECK_EQ_INT(attr(cudaMemRangeAttributeLastPrefetchLocation, m, bytes), cudaInvalidDeviceId);
    CHECK_EQ_INT(attr(cudaMemRangeAttributeLastPrefetchLocationId, m, part), dev);
    /* what CUDA refuses: a size the attribute does not take, memory that is
     * not managed, a range past the allocation, an attribute not in the enum */
    long long wide = 0;
    CHECK(cudaMemRangeGetAttribute(&wide, sizeof wide, cudaMemRangeAttributeReadMostly, m, bytes) ==
          cudaErrorInvalidValue);
    CHECK(cudaMemRangeGetAttribute(by, 6, cudaMemRangeAttributeAccessedBy, m, bytes) ==
          cudaErrorInvalidValue);
    CHECK(cudaMemRangeGetAttribute(by, 0, cudaMemRangeAttributeAccessedBy, m, bytes) ==
          cudaErrorInvalidValue);
    CHECK(cudaMemRangeGetAttribute(&where, sizeof where, cudaMemRangeAttributeReadMostly, m,
                                   bytes + 1) == cudaErrorInvalidValue);
    CHECK(cudaMemRangeGetAttribute(&where, sizeof where, cudaMemRangeAttribute(9), m, bytes) ==
          cudaErrorInvalidValue);
    char *plain = nullptr;
    CK(cudaMalloc(&plain, part));
    CHECK(cudaMemRangeGetAttribute(&where, sizeof where, cudaMemRangeAttributeReadMostly, plain,
                                   part) == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    CK(cudaStreamSynchronize(s));
    CK(cudaFree(plain));
    CK(cudaFree(m));
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

    range_attributes(dev, s);

    CK(cudaStreamDestroy(s));
    CK(cudaFree(d));
    CK(cudaFree(y));
    CK(cudaFree(x));
    if (g_test_failures) return 1;
    std::printf("managed_hints: all checks passed\n");
    return 0;
}
