/* emu/tests/perf.cu - how fast the emulator runs a 256x256x256 shared-memory
 * tiled SGEMM (16x16 blocks: 256 blocks x 256 fibers x 33 barrier phases).
 * Prints the host time and checks the result; it asserts nothing about the
 * time, and the figure says nothing about any GPU. */
#include <cuda_runtime.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "test_util.h"

#define TILE 16

__global__ void sgemm_tiled(const float *__restrict__ A, const float *__restrict__ B,
                            float *__restrict__ C, int n)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < n; t += TILE) {
        As[ty][tx] = A[row * n + t + tx];
        Bs[ty][tx] = B[(t + ty) * n + col];
        __syncthreads();
        for (int p = 0; p < TILE; ++p) acc = fmaf(As[ty][p], Bs[p][tx], acc);
        __syncthreads();
    }
    C[row * n + col] = acc;
}

int main()
{
    const int n = 256;
    const size_t bytes = size_t(n) * n * 4;
    std::vector<float> a(size_t(n) * n), b(size_t(n) * n), c(size_t(n) * n);
    for (int i = 0; i < n * n; ++i) {
        a[size_t(i)] = float(i % 7) - 3.0f;
        b[size_t(i)] = float(i % 5) - 2.0f;
    }
    float *dA, *dB, *dC;
    CK(cudaMalloc(&dA, bytes));
    CK(cudaMalloc(&dB, bytes));
    CK(cudaMalloc(&dC, bytes));
    CK(cudaMemcpy(dA, a.data(), bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dB, b.data(), bytes, cudaMemcpyHostToDevice));
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(n / TILE, n / TILE);
    cfg.blockDim = dim3(TILE, TILE);
    double best = 1e30;
    for (int rep = 0; rep < 3; ++rep) {
        auto t0 = std::chrono::steady_clock::now();
        CK(cudaLaunchKernelEx(&cfg, sgemm_tiled, dA, dB, dC, n));
        CK(cudaDeviceSynchronize());
        auto t1 = std::chrono::steady_clock::now();
        best = std::fmin(best, std::chrono::duration<double>(t1 - t0).count());
    }
    CK(cudaMemcpy(c.data(), dC, bytes, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i += 17)
        for (int j = 0; j < n; j += 13) {
            double r = 0;
            for (int p = 0; p < n; ++p) r += double(a[size_t(i) * n + p]) * b[size_t(p) * n + j];
            CHECK(std::fabs(c[size_t(i) * n + j] - r) <= 1e-3);
        }
    std::printf("cudaemu: 256x256x256 tiled SGEMM (16x16 blocks) took %.1f ms on the host "
                "(best of 3; emulator time, not GPU time)\n", best * 1e3);
    CK(cudaFree(dA));
    CK(cudaFree(dB));
    CK(cudaFree(dC));
    return test_exit("perf");
}
