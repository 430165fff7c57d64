/* emu/tests/runtime_more.cu - the runtime calls of include/cudaemu/runtime_more.h
 * (#34: calls public programs make that change nothing on the host): each
 * answers as CUDA does, refuses what CUDA refuses, and remembers what CUDA
 * remembers. Prints "runtime_more: all checks passed". */
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

static int failures = 0;
#define EXPECT(cond) \
    do { if (!(cond)) { std::printf("FAIL line %d: %s\n", __LINE__, #cond); ++failures; } } while (0)

__global__ void probe_kernel(float *x) { x[threadIdx.x] = 1.0f; }

int main()
{
    /* cache and bank preferences: kept per device, bad values refused */
    cudaFuncCache c = cudaFuncCachePreferNone;
    EXPECT(cudaDeviceSetCacheConfig(cudaFuncCachePreferShared) == cudaSuccess);
    EXPECT(cudaDeviceGetCacheConfig(&c) == cudaSuccess && c == cudaFuncCachePreferShared);
    EXPECT(cudaDeviceSetCacheConfig(cudaFuncCache(7)) == cudaErrorInvalidValue);
    EXPECT(cudaGetLastError() == cudaErrorInvalidValue);
    EXPECT(cudaFuncSetCacheConfig(probe_kernel, cudaFuncCachePreferL1) == cudaSuccess);
    EXPECT(cudaFuncSetCacheConfig((const void *)nullptr, cudaFuncCachePreferL1) ==
           cudaErrorInvalidDeviceFunction);
    cudaSharedMemConfig b = cudaSharedMemBankSizeDefault;
    EXPECT(cudaDeviceSetSharedMemConfig(cudaSharedMemBankSizeEightByte) == cudaSuccess);
    EXPECT(cudaDeviceGetSharedMemConfig(&b) == cudaSuccess && b == cudaSharedMemBankSizeEightByte);
    EXPECT(cudaFuncSetSharedMemConfig(probe_kernel, cudaSharedMemConfig(3)) == cudaErrorInvalidValue);
    cudaGetLastError();
    /* the carveout, by its enum's name */
    EXPECT(cudaFuncSetAttribute(probe_kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                cudaSharedmemCarveoutMaxShared) == cudaSuccess);
    cudaFuncAttributes fa;
    EXPECT(cudaFuncGetAttributes(&fa, probe_kernel) == cudaSuccess &&
           fa.preferredShmemCarveout == int(cudaSharedmemCarveoutMaxShared));

    /* PCI bus id: round trip; a malformed id refused */
    int n = 0;
    EXPECT(cudaGetDeviceCount(&n) == cudaSuccess && n >= 1);
    for (int d = 0; d < n; ++d) {
        char id[32] = {0};
        int back = -1;
        EXPECT(cudaDeviceGetPCIBusId(id, sizeof id, d) == cudaSuccess && std::strlen(id) == 12);
        EXPECT(cudaDeviceGetByPCIBusId(&back, id) == cudaSuccess && back == d);
    }
    int dd = -1;
    EXPECT(cudaDeviceGetByPCIBusId(&dd, "not-a-bus-id") == cudaErrorInvalidValue);
    EXPECT(cudaDeviceGetPCIBusId((char *)nullptr, 32, 0) == cudaErrorInvalidValue);
    EXPECT(cudaDeviceGetPCIBusId(nullptr, 0, n) == cudaErrorInvalidValue);
    char id[32];
    EXPECT(cudaDeviceGetPCIBusId(id, sizeof id, n) == cudaErrorInvalidDevice);
    cudaDeviceProp want;
    std::memset(&want, 0, sizeof want);
    want.major = 9;
    EXPECT(cudaChooseDevice(&dd, &want) == cudaSuccess && dd >= 0 && dd < n);
    cudaGetLastError();

    /* host allocation flags */
    void *h = nullptr;
    float *dptr = nullptr;
    unsigned flags = 99;
    EXPECT(cudaHostAlloc(&h, 64, cudaHostAllocMapped | cudaHostAllocPortable) == cudaSuccess);
    EXPECT(cudaHostGetFlags(&flags, h) == cudaSuccess &&
           flags == (cudaHostAllocMapped | cudaHostAllocPortable));
    EXPECT(cudaMalloc(&dptr, 64 * sizeof(float)) == cudaSuccess);
    EXPECT(cudaHostGetFlags(&flags, dptr) == cudaErrorInvalidValue);
    cudaGetLastError();

    /* occupancy: the WithFlags forms equal the plain ones; bad flags refused */
    int nb = -1, nb2 = -2;
    EXPECT(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, probe_kernel, 128, 0) == cudaSuccess);
    EXPECT(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&nb2, probe_kernel, 128, 0,
                                                                  cudaOccupancyDefault) == cudaSuccess);
    EXPECT(nb > 0 && nb == nb2);
    EXPECT(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&nb2, probe_kernel, 128, 0, 2) ==
           cudaErrorInvalidValue);
    int g1 = 0, b1 = 0, g2 = 0, b2 = 0;
    EXPECT(cudaOccupancyMaxPotentialBlockSize(&g1, &b1, probe_kernel) == cudaSuccess);
    EXPECT(cudaOccupancyMaxPotentialBlockSizeWithFlags(&g2, &b2, probe_kernel, 0, 0,
                                                       cudaOccupancyDisableCachingOverride) == cudaSuccess);
    EXPECT(g1 > 0 && b1 > 0 && g1 == g2 && b1 == b2);
    /* dynamic shared memory available to 2 blocks of 128 threads per SM:
     * half the SM's, less 1 KiB reserved per block, within the kernel's limit */
    int sm_smem = 0;
    EXPECT(cudaDeviceGetAttribute(&sm_smem, cudaDevAttrMaxSharedMemoryPerMultiprocessor, 0) == cudaSuccess);
    size_t avail = 0;
    EXPECT(cudaOccupancyAvailableDynamicSMemPerBlock(&avail, probe_kernel, 2, 128) == cudaSuccess);
    EXPECT(avail == size_t(fa.maxDynamicSharedSizeBytes)); /* 48 KiB without the opt-in */
    EXPECT(cudaFuncSetAttribute(probe_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                200 * 1024) == cudaSuccess);
    EXPECT(cudaOccupancyAvailableDynamicSMemPerBlock(&avail, probe_kernel, 2, 128) == cudaSuccess);
    EXPECT(avail == size_t(sm_smem) / 2 - 1024);

    /* streams: distinct ids, their device; events recorded with flags */
    cudaStream_t s1, s2;
    unsigned long long i1 = 0, i2 = 0;
    int sd = -1;
    EXPECT(cudaStreamCreate(&s1) == cudaSuccess && cudaStreamCreate(&s2) == cudaSuccess);
    EXPECT(cudaStreamGetId(s1, &i1) == cudaSuccess && cudaStreamGetId(s2, &i2) == cudaSuccess);
    EXPECT(i1 != i2);
    EXPECT(cudaStreamGetDevice(s2, &sd) == cudaSuccess && sd == 0);
    cudaEvent_t ev;
    EXPECT(cudaEventCreate(&ev) == cudaSuccess);
    probe_kernel<<<1, 64, 0, s1>>>(dptr);
    EXPECT(cudaEventRecordWithFlags(ev, s1, cudaEventRecordDefault) == cudaSuccess);
    EXPECT(cudaEventRecordWithFlags(ev, s1, 4) == cudaErrorInvalidValue);
    cudaGetLastError();
    EXPECT(cudaEventSynchronize(ev) == cudaSuccess);
    float back[64];
    EXPECT(cudaMemcpy(back, dptr, sizeof back, cudaMemcpyDeviceToHost) == cudaSuccess);
    EXPECT(back[0] == 1.0f && back[63] == 1.0f);

    /* the kernel's name */
    const char *name = nullptr;
    EXPECT(cudaFuncGetName(&name, probe_kernel) == cudaSuccess && name && std::strstr(name, "probe_kernel"));
    /* device lists and initialisation */
    int valid[1] = {0}, invalid[1] = {n};
    EXPECT(cudaSetValidDevices(valid, 1) == cudaSuccess);
    EXPECT(cudaSetValidDevices(invalid, 1) == cudaErrorInvalidDevice);
    EXPECT(cudaInitDevice(0, 0, 0) == cudaSuccess);
    EXPECT(cudaInitDevice(n, 0, 0) == cudaErrorInvalidDevice);
    cudaGetLastError();

    cudaEventDestroy(ev);
    cudaStreamDestroy(s1);
    cudaStreamDestroy(s2);
    cudaFree(dptr);
    cudaFreeHost(h);
    if (failures) {
        std::printf("runtime_more: %d check(s) failed\n", failures);
        return 1;
    }
    std::printf("runtime_more: all checks passed\n");
    return 0;
}
