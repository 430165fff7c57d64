/* emu/tests/devices.cu - (h) several emulated devices (run with CUDAEMU_DEVICES=2):
 * each has its own memory table and accounting, its own streams, and
 * cudaPointerGetAttributes names the device a pointer belongs to.
 * `devices none` runs with CUDAEMU_DEVICES=0 and expects cudaErrorNoDevice. */
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

#include "test_util.h"

__global__ void iota(int *x, int base) { x[threadIdx.x] = base + int(threadIdx.x); }

int main(int argc, char **argv)
{
    int count = -1;
    if (argc > 1 && !std::strcmp(argv[1], "none")) {
        CHECK(cudaGetDeviceCount(&count) == cudaErrorNoDevice);
        CHECK_EQ_INT(count, 0);
        void *p;
        CHECK(cudaMalloc(&p, 16) == cudaErrorNoDevice);
        CHECK(cudaSetDevice(0) == cudaErrorNoDevice);
        CHECK(cudaGetLastError() == cudaErrorNoDevice);
        return test_exit("devices none");
    }
    CK(cudaGetDeviceCount(&count));
    CHECK_EQ_INT(count, 2);
    CHECK(cudaSetDevice(2) == cudaErrorInvalidDevice);
    CHECK(cudaGetLastError() == cudaErrorInvalidDevice);

    int *p0, *p1;
    size_t free0a, free1a, free0b, free1b, total;
    CK(cudaSetDevice(1));
    CK(cudaMemGetInfo(&free1a, &total));
    CK(cudaSetDevice(0));
    CK(cudaMemGetInfo(&free0a, &total));
    CK(cudaMalloc(&p0, 1 << 20));
    CK(cudaSetDevice(1));
    int cur = -1;
    CK(cudaGetDevice(&cur));
    CHECK_EQ_INT(cur, 1);
    CK(cudaMalloc(&p1, 2 << 20));
    CK(cudaMemGetInfo(&free1b, &total));
    CK(cudaSetDevice(0));
    CK(cudaMemGetInfo(&free0b, &total));
    CHECK(free0a - free0b == size_t(1) << 20); /* each device counts its own allocations */
    CHECK(free1a - free1b == size_t(2) << 20);

    cudaPointerAttributes a;
    CK(cudaPointerGetAttributes(&a, p0));
    CHECK(a.type == cudaMemoryTypeDevice);
    CHECK_EQ_INT(a.device, 0);
    CK(cudaPointerGetAttributes(&a, p1 + 100));
    CHECK(a.type == cudaMemoryTypeDevice);
    CHECK_EQ_INT(a.device, 1);
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 1));
    CHECK_EQ_INT(prop.pciBusID, 2);

    /* a kernel on each device's default stream, a peer copy between them */
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(1);
    cfg.blockDim = dim3(64);
    CK(cudaLaunchKernelEx(&cfg, iota, p0, 1000));
    CK(cudaSetDevice(1));
    cudaStream_t s1;
    CK(cudaStreamCreate(&s1));
    cfg.stream = s1;
    CK(cudaLaunchKernelEx(&cfg, iota, p1, 2000));
    CK(cudaStreamSynchronize(s1));
    CK(cudaMemcpy(p1 + 64, p0, 64 * sizeof(int), cudaMemcpyDeviceToDevice));
    CK(cudaSetDevice(0));
    CK(cudaDeviceSynchronize());
    CK(cudaSetDevice(1));
    CK(cudaDeviceSynchronize());
    int h[128];
    CK(cudaMemcpy(h, p1, sizeof h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 64; ++i) {
        CHECK_EQ_INT(h[i], 2000 + i);
        CHECK_EQ_INT(h[64 + i], 1000 + i);
    }
    /* resetting device 1 frees only its memory */
    CK(cudaDeviceReset());
    CK(cudaPointerGetAttributes(&a, p1));
    CHECK(a.type == cudaMemoryTypeUnregistered);
    CK(cudaPointerGetAttributes(&a, p0));
    CHECK(a.type == cudaMemoryTypeDevice && a.device == 0);
    CK(cudaSetDevice(0));
    CK(cudaFree(p0));
    return test_exit("devices");
}
