/* emu/tests/cub_basics.cu - CUB as kernels and programs use it, run by the
 * CUDA host emulator's CUB subset: block and warp collectives in kernels
 * (BlockReduce, WarpReduce, BlockScan with BlockLoad/BlockStore and a prefix
 * callback), device-wide DeviceReduce/DeviceScan/DeviceRadixSort with the
 * two-call temporary storage protocol; every value checked against a host
 * computation.  Misuse must stop the kernel: `cub_basics wrong-block` uses a
 * BlockReduce<int, 128> in a block of 64 threads, `cub_basics
 * reuse-without-sync` a BlockScan's TempStorage twice with no __syncthreads
 * between (emu/README.md, "Thrust and CUB"). */
#include <cub/block/block_load.cuh>
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/warp/warp_reduce.cuh>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <vector>

#include "test_util.h"


/* CUB 2's cub::Max/cub::Min (the emulator has them) are gone from CUDA 13's
 * CCCL 3: the test brings its own, so that it is real CUDA for both */
struct max_op {
    template <class T> __host__ __device__ T operator()(const T &a, const T &b) const { return a < b ? b : a; }
};
struct min_op {
    template <class T> __host__ __device__ T operator()(const T &a, const T &b) const { return b < a ? b : a; }
};

static unsigned g_lcg = 777u;
static unsigned next_rand() { return g_lcg = g_lcg * 1664525u + 1013904223u; }

/* one sum per block of 256 (the last block partly valid), and its max */
template <int THREADS>
__global__ void block_sums(const float *in, int n, float *sums, int *maxes)
{
    typedef cub::BlockReduce<float, THREADS> BlockReduceF;
    typedef cub::BlockReduce<int, THREADS> BlockReduceI;
    __shared__ typename BlockReduceF::TempStorage tf;
    __shared__ typename BlockReduceI::TempStorage ti;
    const int i = blockIdx.x * THREADS + threadIdx.x;
    const int valid = min(THREADS, n - (int)blockIdx.x * THREADS);
    const float x = i < n ? in[i] : 1.0e6f; // past num_valid: must not count
    const float s = BlockReduceF(tf).Sum(x, valid);
    const int m = BlockReduceI(ti).Reduce(i < n ? (int)(in[i] * 1000.0f) : -1000000, max_op());
    if (threadIdx.x == 0) {
        sums[blockIdx.x] = s;
        maxes[blockIdx.x] = m;
    }
}

/* a 2-D block (16 x 6 = 96 threads: a short last warp) reusing one
 * TempStorage for two reductions, with the __syncthreads CUB asks for */
__global__ void block_2d(const int *in, int *out)
{
    typedef cub::BlockReduce<int, 16, cub::BLOCK_REDUCE_WARP_REDUCTIONS, 6> BR;
    __shared__ typename BR::TempStorage t;
    const int tid = threadIdx.x + 16 * threadIdx.y;
    const int a = BR(t).Sum(in[tid]);
    __syncthreads();
    const int b = BR(t).Reduce(in[tid], min_op());
    if (tid == 0) { out[0] = a; out[1] = b; }
}

/* each logical warp of 16 lanes sums its lanes */
__global__ void warp_sums(const int *in, int *out)
{
    typedef cub::WarpReduce<int, 16> WR;
    __shared__ typename WR::TempStorage t[4];
    const int lw = threadIdx.x / 16;
    const int s = WR(t[lw]).Sum(in[threadIdx.x]);
    if (threadIdx.x % 16 == 0) out[lw] = s;
}

/* a running exclusive sum over many tiles of 128 x 4 items in one block: the
 * prefix callback carries the total from tile to tile */
struct running_prefix {
    int total;
    __device__ int operator()(int block_aggregate)
    {
        const int old = total;
        total += block_aggregate;
        return old;
    }
};
__global__ void tiled_scan(const int *in, int *out, int n)
{
    typedef cub::BlockLoad<int, 128, 4, cub::BLOCK_LOAD_WARP_TRANSPOSE> BL;
    typedef cub::BlockStore<int, 128, 4, cub::BLOCK_STORE_WARP_TRANSPOSE> BS;
    typedef cub::BlockScan<int, 128> BSc;
    __shared__ typename BL::TempStorage tl;
    __shared__ typename BS::TempStorage ts;
    __shared__ typename BSc::TempStorage tsc;
    running_prefix prefix = {0};
    for (int base = 0; base < n; base += 512) {
        int items[4], outs[4];
        const int valid = min(512, n - base);
        BL(tl).Load(in + base, items, valid, 0);
        BSc(tsc).ExclusiveSum(items, outs, prefix);
        __syncthreads();
        BS(ts).Store(out + base, outs, valid);
    }
}
/* one inclusive max-scan of one item per thread, and its aggregate */
__global__ void scan_max(const int *in, int *out, int *aggregate)
{
    typedef cub::BlockScan<int, 100> BSc;
    __shared__ typename BSc::TempStorage t;
    int agg = 0;
    BSc(t).InclusiveScan(in[threadIdx.x], out[threadIdx.x], max_op(), agg);
    if (threadIdx.x == 0) *aggregate = agg;
}

__global__ void wrong_block(int *out)
{
    typedef cub::BlockReduce<int, 128> BR;
    __shared__ typename BR::TempStorage t;
    const int s = BR(t).Sum(1);
    if (threadIdx.x == 0) *out = s;
}

/* two scans through one TempStorage with no __syncthreads between */
__global__ void reuse_without_sync(int *out)
{
    typedef cub::BlockScan<int, 64> BSc;
    __shared__ typename BSc::TempStorage t;
    int a, b;
    BSc(t).ExclusiveSum(1, a);
    BSc(t).InclusiveSum(a, b);
    out[threadIdx.x] = b;
}

template <class T> static T *to_device(const std::vector<T> &h)
{
    T *d = nullptr;
    CK(cudaMalloc(&d, h.size() * sizeof(T)));
    CK(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}
template <class T> static std::vector<T> to_host(const T *d, size_t n)
{
    std::vector<T> h(n);
    CK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
}

static void block_collectives()
{
    const int n = 256 * 9 + 77, blocks = (n + 255) / 256;
    std::vector<float> h(n);
    for (float &x : h) x = (float)(next_rand() % 2001u) / 1000.0f - 1.0f;
    float *d = to_device(h), *sums = nullptr;
    int *maxes = nullptr;
    CK(cudaMalloc(&sums, blocks * sizeof(float)));
    CK(cudaMalloc(&maxes, blocks * sizeof(int)));
    block_sums<256><<<blocks, 256>>>(d, n, sums, maxes);
    CK(cudaGetLastError());
    std::vector<float> gs = to_host(sums, blocks);
    std::vector<int> gm = to_host(maxes, blocks);
    int bad = 0;
    for (int b = 0; b < blocks; ++b) {
        double s = 0;
        int m = -1000000;
        for (int i = b * 256; i < std::min(n, (b + 1) * 256); ++i) {
            s += h[i];
            m = std::max(m, (int)(h[i] * 1000.0f));
        }
        bad += std::fabs(gs[b] - s) > 1e-4 || gm[b] != m;
    }
    CHECK(bad == 0);

    std::vector<int> hi(96);
    for (int &x : hi) x = (int)(next_rand() % 1000u) - 500;
    int *di = to_device(hi), *o2 = nullptr;
    CK(cudaMalloc(&o2, 2 * sizeof(int)));
    block_2d<<<1, dim3(16, 6)>>>(di, o2);
    CK(cudaGetLastError());
    std::vector<int> g2 = to_host(o2, 2);
    CHECK(g2[0] == std::accumulate(hi.begin(), hi.end(), 0));
    CHECK(g2[1] == *std::min_element(hi.begin(), hi.end()));

    int *ow = nullptr;
    CK(cudaMalloc(&ow, 4 * sizeof(int)));
    warp_sums<<<1, 64>>>(di, ow);
    CK(cudaGetLastError());
    std::vector<int> gw = to_host(ow, 4);
    for (int w = 0; w < 4; ++w) CHECK(gw[w] == std::accumulate(hi.begin() + 16 * w, hi.begin() + 16 * w + 16, 0));

    std::vector<int> hs(100);
    for (int &x : hs) x = (int)(next_rand() % 1000u) - 500;
    int *ds = to_device(hs), *om = nullptr, *agg = nullptr;
    CK(cudaMalloc(&om, 100 * sizeof(int)));
    CK(cudaMalloc(&agg, sizeof(int)));
    scan_max<<<1, 100>>>(ds, om, agg);
    CK(cudaGetLastError());
    std::vector<int> gmx = to_host(om, 100);
    int run = hs[0];
    bad = 0;
    for (int i = 0; i < 100; ++i) { run = std::max(run, hs[i]); bad += gmx[i] != run; }
    CHECK(bad == 0 && to_host(agg, 1)[0] == run);
    for (int *p : {ds, om, agg}) CK(cudaFree(p));

    const int nt = 3 * 512 + 100;
    std::vector<int> ht(nt);
    for (int &x : ht) x = (int)(next_rand() % 10u);
    int *dt = to_device(ht), *ot = nullptr;
    CK(cudaMalloc(&ot, nt * sizeof(int)));
    tiled_scan<<<1, 128>>>(dt, ot, nt);
    CK(cudaGetLastError());
    std::vector<int> gt = to_host(ot, nt);
    std::vector<int> want(nt);
    std::exclusive_scan(ht.begin(), ht.end(), want.begin(), 0);
    CHECK(gt == want);
    for (void *p : {(void *)d, (void *)sums, (void *)maxes, (void *)di, (void *)o2, (void *)ow, (void *)dt, (void *)ot})
        CK(cudaFree(p));
}

/* the two-call protocol: the size first, then the work; too little storage
 * is cudaErrorInvalidValue */
static void device_wide()
{
    const int n = 100000;
    std::vector<float> h(n);
    for (float &x : h) x = (float)(next_rand() % 20001u) / 10000.0f - 1.0f;
    float *d = to_device(h), *out = nullptr;
    CK(cudaMalloc(&out, 3 * sizeof(float)));
    void *temp = nullptr;
    size_t bytes = 0;
    CK(cub::DeviceReduce::Sum(temp, bytes, d, out, n));
    CHECK(bytes > 0);
    CK(cudaMalloc(&temp, bytes));
    size_t small = bytes - 1;
    CHECK(cub::DeviceReduce::Sum(temp, small, d, out, n) == cudaErrorInvalidValue);
    std::vector<char> host_temp(bytes); /* host memory is no temporary storage */
    size_t host_bytes = bytes;
    CHECK(cub::DeviceReduce::Sum(host_temp.data(), host_bytes, d, out, n) == cudaErrorInvalidValue);
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    CK(cub::DeviceReduce::Sum(temp, bytes, d, out, n, s));
    CK(cub::DeviceReduce::Max(temp, bytes, d, out + 1, n, s));
    CK(cub::DeviceReduce::Min(temp, bytes, d, out + 2, n, s));
    CK(cudaStreamSynchronize(s));
    std::vector<float> g = to_host(out, 3);
    const double sum = std::accumulate(h.begin(), h.end(), 0.0);
    CHECK(std::fabs(g[0] - sum) < 1e-6 * n);
    CHECK(g[1] == *std::max_element(h.begin(), h.end()));
    CHECK(g[2] == *std::min_element(h.begin(), h.end()));
    CK(cudaFree(temp));

    /* scans of ints, out of place and in place */
    std::vector<int> hi(n);
    for (int &x : hi) x = (int)(next_rand() % 7u) - 3;
    int *di = to_device(hi), *oi = nullptr;
    CK(cudaMalloc(&oi, n * sizeof(int)));
    temp = nullptr;
    bytes = 0;
    CK(cub::DeviceScan::ExclusiveSum(temp, bytes, di, oi, n));
    CK(cudaMalloc(&temp, bytes));
    CK(cub::DeviceScan::ExclusiveSum(temp, bytes, di, oi, n));
    std::vector<int> want(n);
    std::exclusive_scan(hi.begin(), hi.end(), want.begin(), 0);
    CHECK(to_host(oi, n) == want);
    CK(cub::DeviceScan::InclusiveSum(temp, bytes, di, di, n));
    std::inclusive_scan(hi.begin(), hi.end(), want.begin());
    CHECK(to_host(di, n) == want);
    CK(cub::DeviceScan::ExclusiveScan(temp, bytes, oi, oi, max_op(), -1000, n));
    std::vector<int> mx(n);
    int run = -1000;
    for (int i = 0; i < n; ++i) { mx[i] = run; run = std::max(run, want[i] - hi[i]); }
    CHECK(to_host(oi, n) == mx);
    CK(cudaFree(temp));

    /* radix sort: float keys (negatives, -0.0) with values; keys only on bits */
    const int m = 20000;
    std::vector<float> hk(m);
    std::vector<int> hv(m);
    for (int i = 0; i < m; ++i) {
        hk[i] = (float)((int)(next_rand() % 401u) - 200) / 8.0f;
        hv[i] = i;
    }
    hk[5] = -0.0f;
    float *dk = to_device(hk), *dko = nullptr;
    int *dv = to_device(hv), *dvo = nullptr;
    CK(cudaMalloc(&dko, m * sizeof(float)));
    CK(cudaMalloc(&dvo, m * sizeof(int)));
    temp = nullptr;
    bytes = 0;
    CK(cub::DeviceRadixSort::SortPairs(temp, bytes, dk, dko, dv, dvo, m));
    CK(cudaMalloc(&temp, bytes));
    CK(cub::DeviceRadixSort::SortPairs(temp, bytes, dk, dko, dv, dvo, m));
    std::vector<int> order(m);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return hk[a] < hk[b]; });
    std::vector<float> gk = to_host(dko, m);
    std::vector<int> gv = to_host(dvo, m);
    int bad = 0;
    for (int i = 0; i < m; ++i) bad += gk[i] != hk[order[i]] || gv[i] != order[i];
    CHECK(bad == 0);
    /* descending on the low 8 bits of unsigned keys, through a DoubleBuffer */
    std::vector<unsigned> hu(m);
    for (unsigned &x : hu) x = next_rand();
    unsigned *du = to_device(hu), *dalt = nullptr;
    CK(cudaMalloc(&dalt, m * sizeof(unsigned)));
    cub::DoubleBuffer<unsigned> keys(du, dalt);
    CK(cub::DeviceRadixSort::SortKeysDescending(temp, bytes, keys, m, 0, 8));
    CHECK(keys.Current() == dalt);
    std::vector<unsigned> wu = hu;
    std::stable_sort(wu.begin(), wu.end(), [](unsigned a, unsigned b) { return (a & 255u) > (b & 255u); });
    CHECK(to_host(keys.Current(), m) == wu);
    size_t tiny = bytes;
    CHECK(cub::DeviceRadixSort::SortKeys(temp, tiny, du, dalt, m, 0, 40) == cudaErrorInvalidValue);
    CK(cudaStreamDestroy(s));
    for (void *p : {(void *)d, (void *)out, (void *)di, (void *)oi, temp, (void *)dk, (void *)dko, (void *)dv,
                    (void *)dvo, (void *)du, (void *)dalt})
        CK(cudaFree(p));
}

int main(int argc, char **argv)
{
    if (argc > 1) { /* misuse that must stop the kernel */
        int *o = nullptr;
        CK(cudaMalloc(&o, 64 * sizeof(int)));
        if (std::strcmp(argv[1], "wrong-block") == 0) wrong_block<<<1, 64>>>(o);
        else if (std::strcmp(argv[1], "reuse-without-sync") == 0) reuse_without_sync<<<1, 64>>>(o);
        else return 2;
        const cudaError_t e = cudaDeviceSynchronize();
        std::printf("cub_basics %s: %s\n", argv[1], cudaGetErrorName(e));
        return e == cudaSuccess ? 0 : 1;
    }
    block_collectives();
    device_wide();
    CK(cudaDeviceSynchronize());
    return test_exit("cub_basics");
}
