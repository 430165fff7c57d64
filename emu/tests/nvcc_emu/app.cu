/* emu/tests/nvcc_emu/app.cu - a small ordinary CUDA program that
 * nvcc_emu_test.sh builds with nvcc-emu (with part.cu, compiled apart with -c)
 * and runs: a template kernel with extern __shared__, <<<>>> launches, a
 * macro from -D and a header from -I.  Prints values the test compares. */
#include <cstdio>

#include <cuda_runtime.h>

#include "part.h"

#ifndef SCALE
#error "the test passes -DSCALE=3"
#endif

template <typename T>
__global__ void block_sum(const T *in, T *out)
{
    extern __shared__ __align__(16) unsigned char raw[];
    T *s = reinterpret_cast<T *>(raw);
    const unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
        if (t < half) s[t] += s[t + half];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

int main()
{
    const int n = 256;
    int h[n], sums[2] = {0, 0};
    for (int i = 0; i < n; ++i) h[i] = SCALE * (i + 1);
    int *d = nullptr, *dsum = nullptr;
    if (cudaMalloc(&d, sizeof h) != cudaSuccess || cudaMalloc(&dsum, sizeof sums) != cudaSuccess)
        return 1;
    cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
    block_sum<int><<<2, n / 2, (n / 2) * sizeof(int)>>>(d, dsum);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
        std::printf("launch: %s\n", cudaGetErrorString(e));
        return 1;
    }
    cudaMemcpy(sums, dsum, sizeof sums, cudaMemcpyDeviceToHost);
    std::printf("sums %d %d\n", sums[0], sums[1]);
    std::printf("squares %d\n", sum_of_squares(10));
    cudaFree(d);
    cudaFree(dsum);
    return 0;
}
