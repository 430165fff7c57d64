/* emu/tests/basics.cu - (i) the runtime basics under the emulator: device
 * properties and attributes, versions, poison in fresh memory, the
 * allocation checks of copies, pointer attributes, pinned/registered host
 * memory, 2D copies, __constant__ symbols, and sticky errors: a kernel that
 * faults (__trap, a lane leaving a full-mask shuffle) fails with
 * cudaErrorLaunchFailure at the next synchronization, every later call
 * returns it until cudaDeviceReset; threads that return before a
 * __syncthreads do not hold it up (sm_70+).
 */
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstring>

#include "test_util.h"

__constant__ float c_coef[4];

__global__ void apply_coef(float *x)
{
    int i = threadIdx.x;
    x[i] = c_coef[i % 4] * float(i);
}

__global__ void trap_kernel(int *x)
{
    if (threadIdx.x == 3) __trap();
    x[threadIdx.x] = 1;
}

/* Threads past n leave early: they count as arrived at the barriers (as on
 * sm_70+), so the others go on. */
__global__ void early_return(float *x, int n)
{
    int i = threadIdx.x;
    if (i >= n) return;
    x[i] = 1.0f + float(i);
    __syncthreads();
    const float right = x[(i + 1) % n];
    __syncthreads();
    x[i] += right;
}

__global__ void shuffle_after_exit(int *x)
{
    if (threadIdx.x == 31) return;
    x[threadIdx.x] = __shfl_down_sync(0xffffffffu, int(threadIdx.x), 1);
}

__global__ void set_one(int *x) { x[threadIdx.x] = 1; }

static cudaError_t run1(void (*k)(int *), int *p, unsigned threads)
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(1);
    cfg.blockDim = dim3(threads);
    return cudaLaunchKernelEx(&cfg, k, p);
}

/* After a kernel fault: sticky everywhere until cudaDeviceReset. */
static void expect_sticky_then_reset(const char *what)
{
    cudaError_t e = cudaDeviceSynchronize();
    if (e != cudaErrorLaunchFailure) std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorName(e));
    CHECK(e == cudaErrorLaunchFailure);
    void *p = nullptr;
    CHECK(cudaMalloc(&p, 16) == cudaErrorLaunchFailure);
    CHECK(cudaGetLastError() == cudaErrorLaunchFailure);
    CHECK(cudaGetLastError() == cudaErrorLaunchFailure); /* sticky: not cleared */
    CHECK(cudaPeekAtLastError() == cudaErrorLaunchFailure);
    CK(cudaDeviceReset());
    CK(cudaGetLastError());
    CK(cudaMalloc(&p, 16));
    CK(cudaFree(p));
}

int main()
{
    int count = 0;
    CK(cudaGetDeviceCount(&count));
    CHECK_EQ_INT(count, 1);
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
#ifdef __CUDAEMU__
    CHECK(std::strstr(prop.name, "emulated") != nullptr);
#endif
    CHECK_EQ_INT(prop.warpSize, 32);
    CHECK_EQ_INT(prop.maxThreadsPerBlock, 1024);
    CHECK(prop.sharedMemPerBlock == 48 * 1024);
    CHECK(prop.sharedMemPerBlockOptin >= prop.sharedMemPerBlock);
    CHECK(prop.multiProcessorCount > 0 && prop.totalGlobalMem > 0 && prop.l2CacheSize > 0);
    int v = 0;
    CK(cudaDeviceGetAttribute(&v, cudaDevAttrMaxThreadsPerBlock, 0));
    CHECK_EQ_INT(v, 1024);
    CK(cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, 0));
    CHECK(v > 0);
    CHECK(cudaGetDeviceProperties(&prop, 1) == cudaErrorInvalidDevice);
    CHECK(cudaGetLastError() == cudaErrorInvalidDevice);
    CHECK(cudaSetDevice(3) == cudaErrorInvalidDevice);
    CHECK(cudaGetLastError() == cudaErrorInvalidDevice);
    int rt = 0, drv = 0;
    CK(cudaRuntimeGetVersion(&rt));
    CK(cudaDriverGetVersion(&drv));
    CHECK(rt >= 12000 && drv >= rt);
    CHECK(std::strcmp(cudaGetErrorName(cudaErrorInvalidValue), "cudaErrorInvalidValue") == 0);
    CHECK(std::strcmp(cudaGetErrorString(cudaErrorMemoryAllocation), "out of memory") == 0);

    /* fresh device memory is NaN, never zero */
    const int n = 64;
    float *d;
    size_t free0 = 0, total = 0, free1 = 0;
    CK(cudaMemGetInfo(&free0, &total));
    CK(cudaMalloc(&d, n * sizeof(float)));
    CK(cudaMemGetInfo(&free1, &total));
    CHECK(free1 + n * sizeof(float) <= free0);
    float h[n];
    CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
#ifdef __CUDAEMU__
    for (int i = 0; i < n; ++i) CHECK(std::isnan(h[i]));
#endif
    void *huge = nullptr;
    CHECK(cudaMalloc(&huge, size_t(1) << 62) == cudaErrorMemoryAllocation);
    CHECK(cudaGetLastError() == cudaErrorMemoryAllocation);

    /* copies are checked against the allocation table */
    CHECK(cudaMemcpy(d, h, sizeof h + 4, cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
    CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyHostToDevice) == cudaErrorInvalidValue); /* direction */
    CHECK(cudaMemcpy(d, h, sizeof h, cudaMemcpyDeviceToHost) == cudaErrorInvalidValue);
    CHECK(cudaMemcpy(d, h, sizeof h, cudaMemcpyKind(9)) == cudaErrorInvalidMemcpyDirection);
    CHECK(cudaMemset(h, 0, sizeof h) == cudaErrorInvalidValue);   /* pageable host memory */
    CHECK(cudaFree(h) == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    CK(cudaMemcpy(d, h, sizeof h, cudaMemcpyDefault)); /* direction inferred */

    /* pointer attributes */
    cudaPointerAttributes pa;
    CK(cudaPointerGetAttributes(&pa, d + 5));
    CHECK(pa.type == cudaMemoryTypeDevice && pa.device == 0);
    CK(cudaPointerGetAttributes(&pa, h));
    CHECK(pa.type == cudaMemoryTypeUnregistered);
    float *pinned;
    CK(cudaHostAlloc(&pinned, 256, cudaHostAllocDefault));
    CK(cudaPointerGetAttributes(&pa, pinned));
    CHECK(pa.type == cudaMemoryTypeHost && pa.hostPointer == pinned);
    CK(cudaHostRegister(h, sizeof h, cudaHostRegisterDefault));
    CHECK(cudaHostRegister(h, sizeof h, cudaHostRegisterDefault) == cudaErrorHostMemoryAlreadyRegistered);
    CHECK(cudaGetLastError() == cudaErrorHostMemoryAlreadyRegistered);
    CK(cudaPointerGetAttributes(&pa, h + 3));
    CHECK(pa.type == cudaMemoryTypeHost);
    CK(cudaHostUnregister(h));
    CHECK(cudaHostUnregister(h) == cudaErrorHostMemoryNotRegistered);
    CHECK(cudaGetLastError() == cudaErrorHostMemoryNotRegistered);
    CK(cudaFreeHost(pinned));

    /* 2D copy: a 3x5 window of a 8-wide host matrix into a 4-wide device one */
    float src[6 * 8], back[6 * 4];
    for (int i = 0; i < 48; ++i) src[i] = float(i);
    float *d2;
    CK(cudaMalloc(&d2, sizeof back));
    CK(cudaMemset(d2, 0, sizeof back));
    CK(cudaMemcpy2D(d2, 4 * sizeof(float), src + 1, 8 * sizeof(float), 3 * sizeof(float), 5,
                    cudaMemcpyHostToDevice));
    CK(cudaMemcpy(back, d2, sizeof back, cudaMemcpyDeviceToHost));
    for (int r = 0; r < 5; ++r)
        for (int c = 0; c < 3; ++c) CHECK(back[r * 4 + c] == src[r * 8 + 1 + c]);
    CHECK(back[3] == 0.0f);
    CHECK(cudaMemcpy2D(d2, 2, src, 8, 3, 2, cudaMemcpyHostToDevice) == cudaErrorInvalidPitchValue);
    CHECK(cudaGetLastError() == cudaErrorInvalidPitchValue);

    /* __constant__ memory */
    const float coef[4] = {1.0f, -1.0f, 0.5f, 2.0f};
    CK(cudaMemcpyToSymbol(c_coef, coef, sizeof coef));
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(1);
    cfg.blockDim = dim3(n);
    CK(cudaLaunchKernelEx(&cfg, apply_coef, d));
    CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) CHECK(h[i] == coef[i % 4] * float(i));
    float coef_back[4];
    CK(cudaMemcpyFromSymbol(coef_back, c_coef, sizeof coef_back));
    CHECK(coef_back[3] == 2.0f);

    /* sticky errors */
    int *di;
    CK(cudaMalloc(&di, 64 * sizeof(int)));
    CK(run1(trap_kernel, di, 32)); /* the launch itself succeeds */
    /* cudaFree synchronizes, so it reports the fault (d2 and di go with the reset) */
    CHECK(cudaFree(d) == cudaErrorLaunchFailure);
    expect_sticky_then_reset("__trap");

    /* threads that returned do not hold up a barrier: the survivors' values */
    float *df;
    CK(cudaMalloc(&df, 64 * sizeof(float)));
    cudaLaunchConfig_t c2 = {};
    c2.gridDim = dim3(1);
    c2.blockDim = dim3(64);
    const int nsurv = 50;
    CK(cudaLaunchKernelEx(&c2, early_return, df, nsurv));
    float hf[64];
    CK(cudaMemcpy(hf, df, sizeof hf, cudaMemcpyDeviceToHost));
    int good = 0;
    for (int i = 0; i < 64; ++i)
        good += i < nsurv ? hf[i] == 2.0f + float(i) + float((i + 1) % nsurv) : std::isnan(hf[i]);
    CHECK_EQ_INT(good, 64);
    CK(cudaFree(df));

#ifdef __CUDAEMU__
    /* the emulator reports a lane leaving a full-mask shuffle (a GPU hangs) */
    CK(cudaMalloc(&di, 64 * sizeof(int)));
    CK(run1(shuffle_after_exit, di, 32));
    expect_sticky_then_reset("shuffle after exit");
#endif

    /* after the reset everything works again */
    CK(cudaMalloc(&di, 64 * sizeof(int)));
    CK(run1(set_one, di, 64));
    int hi[64];
    CK(cudaMemcpy(hi, di, sizeof hi, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 64; ++i) CHECK_EQ_INT(hi[i], 1);
    CK(cudaFree(di));
    return test_exit("basics");
}
