/* emu/tests/nvcc_emu/rdc_main.cu - the other unit of the separate compilation
 * test: launches rdc_kernels.cu's kernel, calls its __device__ function from a
 * kernel of its own, and launches a kernel of a header found only through -I
 * (the translator must see that header).  Prints "rdc 2 4 6 8 | 30 60 90 120". */
#include <cstdio>

#include "scaled_launch.cuh"

extern __device__ int twice(int x);
__global__ void fill(int *out, int n);

__global__ void apply_twice(int *x, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = twice(x[i]);
}

int main()
{
    const int n = 4;
    int *d = nullptr, h[n];
    if (cudaMalloc(&d, sizeof h) != cudaSuccess) return 1;
    fill<<<1, 32>>>(d, n);
    apply_twice<<<1, 32>>>(d, n);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    std::printf("rdc %d %d %d %d |", h[0], h[1], h[2], h[3]);
    launch_scaled(d, n, 15);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    std::printf(" %d %d %d %d\n", h[0], h[1], h[2], h[3]);
    cudaFree(d);
    return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
