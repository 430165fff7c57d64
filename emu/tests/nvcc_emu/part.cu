/* emu/tests/nvcc_emu/part.cu - the second translation unit of the nvcc-emu test. */
#include <cuda_runtime.h>

#include "part.h"

__global__ void squares(int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out, i * i);
}

int sum_of_squares(int n)
{
    int *d = nullptr, r = -1;
    cudaMalloc(&d, sizeof(int));
    cudaMemset(d, 0, sizeof(int));
    squares<<<(n + 31) / 32, 32>>>(d,
                                   n);
    if (cudaGetLastError() == cudaSuccess)
        cudaMemcpy(&r, d, sizeof(int), cudaMemcpyDeviceToHost);
    cudaFree(d);
    return r;
}
