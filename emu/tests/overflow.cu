/* emu/tests/overflow.cu - (j) a kernel that overflows its thread's stack ends
 * with the emulator's clear message (CTest matches it), not a bare segfault.
 * Deep recursion with a real frame per call walks into the guard page. */
#include <cuda_runtime.h>

#include <cstdio>

#include "test_util.h"

__device__ __noinline__ int deep(int depth, volatile int *sink)
{
    volatile char frame[512];
    frame[depth % 512] = char(depth);
    if (depth == 0) return frame[0];
    int r = deep(depth - 1, sink) + frame[depth % 512];
    *sink = r;
    return r;
}

__global__ void recurse(int *out, int depth)
{
    out[threadIdx.x] = deep(depth, out + blockDim.x);
}

int main()
{
    int *d;
    CK(cudaMalloc(&d, 64 * sizeof(int)));
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(1);
    cfg.blockDim = dim3(32);
    CK(cudaLaunchKernelEx(&cfg, recurse, d, 1 << 20));
    cudaError_t e = cudaDeviceSynchronize();
    std::printf("overflow: the kernel returned %s instead of overflowing\n", cudaGetErrorName(e));
    return 1;
}
