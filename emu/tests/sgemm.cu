/* emu/tests/sgemm.cu - naive and shared-memory tiled SGEMM kernels under the emulator.
 *
 * (a) Both kernels match a double-precision reference at awkward sizes.
 * (b) The tiled kernel with either of its two __syncthreads() removed
 *     (template parameter SYNC_LOAD / SYNC_COMPUTE) must give a wrong result:
 *     the emulator runs the threads of a block as fibers in CUDAEMU_ORDER, so
 *     a missing barrier lets a thread read a tile that is not loaded yet or
 *     already overwritten.  The test asserts the broken variants are caught.
 * Row-major C[m x n] = A[m x k] * B[k x n].
 */
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "test_util.h"

#define TILE 16

__global__ void sgemm_naive(const float *__restrict__ A, const float *__restrict__ B,
                            float *__restrict__ C, int m, int n, int k)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < m && col < n) {
        float acc = 0.0f;
        for (int p = 0; p < k; ++p) acc = fmaf(A[row * k + p], B[p * n + col], acc);
        C[row * n + col] = acc;
    }
}

template <bool SYNC_LOAD, bool SYNC_COMPUTE>
__global__ void __launch_bounds__(TILE * TILE)
sgemm_tiled(const float *__restrict__ A, const float *__restrict__ B, float *__restrict__ C,
            int m, int n, int k)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (int t = 0; t < k; t += TILE) {
        As[ty][tx] = (row < m && t + tx < k) ? A[row * k + t + tx] : 0.0f;
        Bs[ty][tx] = (t + ty < k && col < n) ? B[(t + ty) * n + col] : 0.0f;
        if (SYNC_LOAD) __syncthreads();
        for (int p = 0; p < TILE; ++p) acc = fmaf(As[ty][p], Bs[p][tx], acc);
        if (SYNC_COMPUTE) __syncthreads();
    }
    if (row < m && col < n) C[row * n + col] = acc;
}

struct Problem {
    int m, n, k;
    std::vector<float> a, b;
    std::vector<double> ref;
};

static Problem make_problem(int m, int n, int k)
{
    Problem p{m, n, k, std::vector<float>(size_t(m) * k), std::vector<float>(size_t(k) * n),
              std::vector<double>(size_t(m) * n)};
    unsigned s = 12345u + unsigned(m * 31 + n * 7 + k);
    auto rnd = [&s]() { s = s * 1664525u + 1013904223u; return float(int(s >> 9) % 2001 - 1000) / 1000.0f; };
    for (float &x : p.a) x = rnd();
    for (float &x : p.b) x = rnd();
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
            double acc = 0;
            for (int q = 0; q < k; ++q) acc += double(p.a[size_t(i) * k + q]) * p.b[size_t(q) * n + j];
            p.ref[size_t(i) * n + j] = acc;
        }
    return p;
}

/* Runs kernel on p; returns the largest error relative to the bound k * 2^-22 * sum|a||b|. */
template <typename K>
static double run(K kernel, const Problem &p, dim3 block)
{
    float *dA, *dB, *dC;
    const size_t sa = p.a.size() * 4, sb = p.b.size() * 4, sc = size_t(p.m) * p.n * 4;
    CK(cudaMalloc(&dA, sa));
    CK(cudaMalloc(&dB, sb));
    CK(cudaMalloc(&dC, sc));
    CK(cudaMemcpy(dA, p.a.data(), sa, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dB, p.b.data(), sb, cudaMemcpyHostToDevice));
    const dim3 grid((p.n + block.x - 1) / block.x, (p.m + block.y - 1) / block.y);
    kernel<<<grid, block>>>(dA, dB, dC, p.m, p.n, p.k);
    CK(cudaGetLastError());
    std::vector<float> c(size_t(p.m) * p.n);
    CK(cudaMemcpy(c.data(), dC, sc, cudaMemcpyDeviceToHost));
    CK(cudaFree(dA));
    CK(cudaFree(dB));
    CK(cudaFree(dC));
    double worst = 0;
    const double tol = 1e-5 * (p.k + 1);
    for (size_t i = 0; i < c.size(); ++i) {
        double err = std::fabs(double(c[i]) - p.ref[i]);
        if (!(err <= tol)) err = std::isnan(err) ? 1e30 : err;
        worst = std::fmax(worst, err / tol);
    }
    return worst; /* <= 1 means correct */
}

int main()
{
    const int sizes[][3] = {{1, 1, 1}, {7, 13, 5}, {33, 65, 17}, {64, 64, 64}, {100, 37, 129}};
    for (const auto &s : sizes) {
        Problem p = make_problem(s[0], s[1], s[2]);
        double naive = run(sgemm_naive, p, dim3(16, 8));
        double tiled = run(sgemm_tiled<true, true>, p, dim3(TILE, TILE));
        std::printf("m=%d n=%d k=%d: naive err/tol %.3g, tiled err/tol %.3g\n", s[0], s[1], s[2],
                    naive, tiled);
        CHECK(naive <= 1.0);
        CHECK(tiled <= 1.0);
    }

    /* (b) Removing either barrier must be caught (k > TILE: several tiles). */
    Problem p = make_problem(33, 65, 40);
    double no_load = run(sgemm_tiled<false, true>, p, dim3(TILE, TILE));
    double no_compute = run(sgemm_tiled<true, false>, p, dim3(TILE, TILE));
    double both = run(sgemm_tiled<true, true>, p, dim3(TILE, TILE));
    std::printf("missing barrier after load: err/tol %.3g; after compute: %.3g; correct: %.3g\n",
                no_load, no_compute, both);
    CHECK(no_load > 1.0);    /* detected as wrong */
    CHECK(no_compute > 1.0); /* detected as wrong */
    CHECK(both <= 1.0);
    return test_exit("sgemm");
}
