/* emu/tests/reduce.cu - warp-synchronous code under the emulator.
 *
 * (c) A block reduction with __shfl_down_sync inside warps, warp partials in
 * dynamic shared memory, a second shuffle stage and one atomicAdd per block:
 * exact on integers, within a tight bound on floats.  Also the other warp
 * primitives (xor butterfly, up-scan, broadcast, ballot/any/all,
 * __syncthreads_count), partial warps and the integer atomics.
 */
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "test_util.h"

template <typename T> __device__ T warp_sum(T v)
{
    for (int off = 16; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off);
    return v;
}

template <typename T>
__global__ void block_reduce(const T *__restrict__ in, int n, T *out)
{
    /* one slot per warp; untyped so that block_reduce<int> and <float> can
     * both be instantiated under nvcc */
    extern __shared__ __align__(16) unsigned char partial_raw[];
    T *partial = reinterpret_cast<T *>(partial_raw);
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
    T v = i < n ? in[i] : T(0);
    v = warp_sum(v);
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    if (warp == 0) {
        const int nwarps = (blockDim.x + warpSize - 1) / warpSize;
        v = lane < nwarps ? partial[lane] : T(0);
        v = warp_sum(v);
        if (lane == 0) atomicAdd(out, v);
    }
}

/* Per-lane results of the other primitives, for one warp-sized block or more. */
__global__ void warp_ops(const int *__restrict__ in, int *__restrict__ out, int *counters)
{
    const int t = threadIdx.x, lane = t % 32;
    const int v = in[t];
    int x = v;
    for (int m = 16; m > 0; m >>= 1) x += __shfl_xor_sync(0xffffffffu, x, m);
    int scan = v;
    for (int d = 1; d < 32; d <<= 1) {
        int y = __shfl_up_sync(0xffffffffu, scan, d);
        if (lane >= d) scan += y;
    }
    int bcast = __shfl_sync(0xffffffffu, v, 5);
    unsigned ballot = __ballot_sync(0xffffffffu, v % 3 == 0);
    int any = __any_sync(0xffffffffu, v == 7);
    int all = __all_sync(0xffffffffu, v >= 0);
    int count = __syncthreads_count(v % 2 == 0);
    out[t * 6 + 0] = x;
    out[t * 6 + 1] = scan;
    out[t * 6 + 2] = bcast;
    out[t * 6 + 3] = int(ballot);
    out[t * 6 + 4] = any * 2 + all;
    out[t * 6 + 5] = count;
    atomicMax(&counters[0], v);
    atomicMin(&counters[1], v);
    atomicAdd(reinterpret_cast<unsigned *>(&counters[2]), 1u);
    if (atomicCAS(&counters[3], 0, t + 1) == 0) atomicExch(&counters[4], t);
    atomicSub(&counters[5], 2);
}

/* 48 threads: the second warp has 16 lanes; width-16 shuffles stay inside halves. */
__global__ void partial_warp(int *out)
{
    const int t = threadIdx.x;
    int v = t;
    for (int off = 8; off > 0; off >>= 1) v += __shfl_down_sync(0xffffffffu, v, off, 16);
    out[t] = v;
}

int main()
{
    /* integer reduction, exact */
    const int n = 100003;
    std::vector<int> hi(n);
    long long isum = 0;
    for (int i = 0; i < n; ++i) {
        hi[size_t(i)] = (i * 7919) % 2001 - 1000;
        isum += hi[size_t(i)];
    }
    int *di, *dsum;
    CK(cudaMalloc(&di, n * sizeof(int)));
    CK(cudaMalloc(&dsum, sizeof(int)));
    CK(cudaMemcpy(di, hi.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemset(dsum, 0, sizeof(int)));
    block_reduce<int><<<(n + 255) / 256, 256, (256 / 32) * sizeof(int)>>>(di, n, dsum);
    CK(cudaGetLastError());
    int got = 0;
    CK(cudaMemcpy(&got, dsum, sizeof(int), cudaMemcpyDeviceToHost));
    std::printf("int reduction: %d (expected %lld)\n", got, isum);
    CHECK_EQ_INT(got, isum);

    /* float reduction, 7 warps per block, n not a multiple of it, tight bound */
    const int nf = 77777;
    std::vector<float> hf(nf);
    double fsum = 0, fabs_sum = 0;
    for (int i = 0; i < nf; ++i) {
        hf[size_t(i)] = std::sin(0.001f * float(i)) * 3.0f;
        fsum += hf[size_t(i)];
        fabs_sum += std::fabs(hf[size_t(i)]);
    }
    float *df, *dfsum;
    CK(cudaMalloc(&df, nf * sizeof(float)));
    CK(cudaMalloc(&dfsum, sizeof(float)));
    CK(cudaMemcpy(df, hf.data(), nf * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemset(dfsum, 0, sizeof(float)));
    block_reduce<float><<<(nf + 223) / 224, 224, 7 * sizeof(float)>>>(df, nf, dfsum);
    CK(cudaGetLastError());
    float fgot = 0;
    CK(cudaMemcpy(&fgot, dfsum, sizeof(float), cudaMemcpyDeviceToHost));
    const double bound = 1e-6 * fabs_sum; /* ~ (log2(224) + 348 atomics) * 2^-24 */
    std::printf("float reduction: %.6f (expected %.6f, bound %.3g)\n", fgot, fsum, bound);
    CHECK(std::fabs(fgot - fsum) <= bound);

    /* the other warp primitives, two warps */
    const int nt = 64;
    std::vector<int> in(nt);
    for (int t = 0; t < nt; ++t) in[size_t(t)] = (t * 5 + 3) % 17;
    int *din, *dout, *dcnt;
    CK(cudaMalloc(&din, nt * sizeof(int)));
    CK(cudaMalloc(&dout, nt * 6 * sizeof(int)));
    CK(cudaMalloc(&dcnt, 6 * sizeof(int)));
    CK(cudaMemcpy(din, in.data(), nt * sizeof(int), cudaMemcpyHostToDevice));
    int cinit[6] = {-1, 1000, 0, 0, -1, 100};
    CK(cudaMemcpy(dcnt, cinit, sizeof cinit, cudaMemcpyHostToDevice));
    warp_ops<<<1, nt>>>(din, dout, dcnt);
    CK(cudaGetLastError());
    std::vector<int> out(nt * 6);
    int cnt[6];
    CK(cudaMemcpy(out.data(), dout, out.size() * sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(cnt, dcnt, sizeof cnt, cudaMemcpyDeviceToHost));
    int evens = 0, vmax = -1, vmin = 1000;
    for (int t = 0; t < nt; ++t) {
        evens += in[size_t(t)] % 2 == 0;
        vmax = in[size_t(t)] > vmax ? in[size_t(t)] : vmax;
        vmin = in[size_t(t)] < vmin ? in[size_t(t)] : vmin;
    }
    for (int t = 0; t < nt; ++t) {
        const int w = t / 32 * 32, lane = t % 32;
        int total = 0, scan = 0, any = 0, all = 1;
        unsigned ballot = 0;
        for (int l = 0; l < 32; ++l) {
            int v = in[size_t(w + l)];
            total += v;
            if (l <= lane) scan += v;
            if (v % 3 == 0) ballot |= 1u << l;
            any |= v == 7;
            all &= v >= 0;
        }
        CHECK_EQ_INT(out[size_t(t) * 6 + 0], total);
        CHECK_EQ_INT(out[size_t(t) * 6 + 1], scan);
        CHECK_EQ_INT(out[size_t(t) * 6 + 2], in[size_t(w + 5)]);
        CHECK_EQ_INT(out[size_t(t) * 6 + 3], int(ballot));
        CHECK_EQ_INT(out[size_t(t) * 6 + 4], any * 2 + all);
        CHECK_EQ_INT(out[size_t(t) * 6 + 5], evens);
    }
    CHECK_EQ_INT(cnt[0], vmax);
    CHECK_EQ_INT(cnt[1], vmin);
    CHECK_EQ_INT(cnt[2], nt);
    CHECK(cnt[3] >= 1 && cnt[3] <= nt);
    CHECK_EQ_INT(cnt[4], cnt[3] - 1); /* exactly one thread won the CAS */
    CHECK_EQ_INT(cnt[5], 100 - 2 * nt);

    /* partial warp with width-16 segments */
    int *dp;
    CK(cudaMalloc(&dp, 48 * sizeof(int)));
    partial_warp<<<1, 48>>>(dp);
    CK(cudaGetLastError());
    int hp[48];
    CK(cudaMemcpy(hp, dp, sizeof hp, cudaMemcpyDeviceToHost));
    for (int seg = 0; seg < 3; ++seg) {
        int s = 0;
        for (int l = 0; l < 16; ++l) s += seg * 16 + l;
        CHECK_EQ_INT(hp[seg * 16], s); /* lane 0 of each 16-lane segment has its sum */
    }

#ifdef __CUDAEMU__
    /* A full-mask shuffle in a block of 200 threads reads lanes that do not
     * exist in the last warp: undefined on a GPU, NaN poison here. */
    CK(cudaMemset(dfsum, 0, sizeof(float)));
    block_reduce<float><<<(nf + 199) / 200, 200, 7 * sizeof(float)>>>(df, nf, dfsum);
    CK(cudaGetLastError());
    CK(cudaMemcpy(&fgot, dfsum, sizeof(float), cudaMemcpyDeviceToHost));
    std::printf("float reduction with a partial warp: %f (the emulator poisons absent lanes)\n", fgot);
    CHECK(std::isnan(fgot));
#endif

    CK(cudaFree(di));
    CK(cudaFree(dsum));
    CK(cudaFree(df));
    CK(cudaFree(dfsum));
    CK(cudaFree(din));
    CK(cudaFree(dout));
    CK(cudaFree(dcnt));
    CK(cudaFree(dp));
    return test_exit("reduce");
}
