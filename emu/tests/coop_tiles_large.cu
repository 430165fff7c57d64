/* emu/tests/coop_tiles_large.cu - cooperative groups' tiles larger than a
 * warp (thread_block_tile<N>, N = 64 ... 1024, with and without
 * block_tile_memory), checked against host-computed expectations:
 * thread_rank/size/num_threads/meta_group_rank/meta_group_size, tiles of
 * such tiles, tile.sync() ordering shared-memory writes and reads within the
 * tile (several phases), a sync that waits for its own tile only (the other
 * tiles of the block return early), a shared-memory tree reduction across a
 * 128-wide tile, shfl/any/all, cg::reduce and the scans, and the free
 * functions cg::sync/thread_rank/group_size on such a tile.
 *
 *   coop_tiles_large                 the checks above
 *   coop_tiles_large partial-tile    a tile cut short by the block: sync fails
 *   coop_tiles_large tile-exit       a thread returns while its tile syncs
 */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>

#include <cstdio>
#include <cstring>
#include <vector>

#include "test_util.h"

namespace cg = cooperative_groups;

/* rank, size, num_threads, meta rank, meta size of a 128-tile of a 256-block
 * made with block_tile_memory, and of the 32- and 64-tiles of that tile */
__global__ void tile_shape(int *out)
{
    __shared__ cg::block_tile_memory<256> scratch;
    cg::thread_block block = cg::this_thread_block(scratch);
    cg::thread_block_tile<128> t128 = cg::tiled_partition<128>(block);
    auto t32 = cg::tiled_partition<32>(t128);
    auto t64 = cg::tiled_partition<64>(t128);
    int *o = out + block.thread_rank() * 11;
    o[0] = (int)t128.thread_rank();
    o[1] = (int)t128.size();
    o[2] = (int)t128.num_threads();
    o[3] = (int)t128.meta_group_rank();
    o[4] = (int)t128.meta_group_size();
    o[5] = (int)t32.meta_group_rank();
    o[6] = (int)t32.meta_group_size();
    o[7] = (int)t64.thread_rank();
    o[8] = (int)t64.meta_group_rank();
    o[9] = (int)t64.meta_group_size();
    o[10] = (int)cg::group_size(t64);
}

/* Phases of write-own / sync / read-another within a tile of N: every read
 * must see this phase's value.  bad[tile] counts stale reads. */
template <unsigned N>
__global__ void sync_order(int *bad, int phases)
{
    __shared__ int s[1024];
    auto tile = cg::tiled_partition<N>(cg::this_thread_block());
    const unsigned t = cg::this_thread_block().thread_rank();
    const unsigned base = t - tile.thread_rank();
    for (int p = 0; p < phases; ++p) {
        s[t] = p * 10000 + (int)t;
        tile.sync();
        const unsigned o = base + (tile.thread_rank() + 37 * (p + 1)) % N;
        if (s[o] != p * 10000 + (int)o) atomicAdd(&bad[tile.meta_group_rank()], 1);
        tile.sync();
    }
}

/* Odd tiles return at once; even tiles sync many times: a tile's sync must
 * not wait for the rest of the block. */
__global__ void own_tile_only(int *count)
{
    auto tile = cg::tiled_partition<64>(cg::this_thread_block());
    if (tile.meta_group_rank() % 2) return;
    for (int i = 0; i < 5; ++i) {
        tile.sync();
        if (tile.thread_rank() == 0) atomicAdd(count, 1);
    }
}

/* Tree reduction in shared memory across a 128-wide tile, synced by the tile. */
__global__ void smem_reduce128(const float *in, float *out)
{
    __shared__ float s[512];
    auto tile = cg::tiled_partition<128>(cg::this_thread_block());
    const unsigned t = cg::this_thread_block().thread_rank();
    const unsigned base = t - tile.thread_rank();
    s[t] = in[blockIdx.x * blockDim.x + t];
    for (unsigned stride = 64; stride > 0; stride /= 2) {
        tile.sync();
        if (tile.thread_rank() < stride) s[t] += s[t + stride];
    }
    tile.sync();
    if (tile.thread_rank() == 0) out[blockIdx.x * tile.meta_group_size() + tile.meta_group_rank()] = s[base];
}

/* shfl, any, all, reduce, scans over a tile of N; one row of 8 per thread */
template <unsigned N>
__global__ void collectives(const int *in, long long *out)
{
    auto tile = cg::tiled_partition<N>(cg::this_thread_block());
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    const int v = in[t];
    long long *o = out + (size_t)t * 8;
    o[0] = tile.shfl(v, (tile.thread_rank() * 7 + 3) % N);
    o[1] = tile.any(v == 5);
    o[2] = tile.all(v >= 0);
    o[3] = cg::reduce(tile, v, cg::plus<int>());
    o[4] = (long long)cg::reduce(tile, (double)v, cg::greater<double>());
    o[5] = cg::inclusive_scan(tile, v);
    o[6] = cg::exclusive_scan(tile, (long long)v, cg::plus<long long>());
    cg::sync(tile); /* the free functions */
    o[7] = (long long)cg::thread_rank(tile) * 10000 + (long long)cg::group_size(tile);
}

/* 96 threads, tiles of 64: the second tile has 32 threads */
__global__ void partial_tile()
{
    auto tile = cg::tiled_partition<64>(cg::this_thread_block());
    tile.sync();
}

/* one thread returns while the rest of its tile syncs */
__global__ void tile_exit()
{
    auto tile = cg::tiled_partition<128>(cg::this_thread_block());
    if (tile.thread_rank() == 5) return;
    tile.sync();
}

static void check_shape()
{
    const int n = 256;
    int *d = nullptr;
    CK(cudaMalloc(&d, sizeof(int) * n * 11));
    tile_shape<<<1, n>>>(d);
    CK(cudaGetLastError());
    std::vector<int> o(n * 11);
    CK(cudaMemcpy(o.data(), d, sizeof(int) * o.size(), cudaMemcpyDeviceToHost));
    CK(cudaFree(d));
    for (int t = 0; t < n; ++t) {
        const int *r = &o[t * 11];
        CHECK_EQ_INT(r[0], t % 128);
        CHECK_EQ_INT(r[1], 128);
        CHECK_EQ_INT(r[2], 128);
        CHECK_EQ_INT(r[3], t / 128);
        CHECK_EQ_INT(r[4], 2);
        CHECK_EQ_INT(r[5], (t % 128) / 32);
        CHECK_EQ_INT(r[6], 4);
        CHECK_EQ_INT(r[7], t % 64);
        CHECK_EQ_INT(r[8], (t % 128) / 64);
        CHECK_EQ_INT(r[9], 2);
        CHECK_EQ_INT(r[10], 64);
    }
}

template <unsigned N> static void check_sync_order(int threads)
{
    const int tiles = threads / (int)N;
    int *bad = nullptr;
    CK(cudaMalloc(&bad, sizeof(int) * tiles));
    CK(cudaMemset(bad, 0, sizeof(int) * tiles));
    sync_order<N><<<3, threads>>>(bad, 4);
    CK(cudaGetLastError());
    std::vector<int> h(tiles);
    CK(cudaMemcpy(h.data(), bad, sizeof(int) * tiles, cudaMemcpyDeviceToHost));
    CK(cudaFree(bad));
    for (int i = 0; i < tiles; ++i) CHECK_EQ_INT(h[i], 0);
}

static void check_own_tile_only()
{
    int *count = nullptr;
    CK(cudaMalloc(&count, sizeof(int)));
    CK(cudaMemset(count, 0, sizeof(int)));
    own_tile_only<<<2, 256>>>(count);
    CK(cudaGetLastError());
    int h = 0;
    CK(cudaMemcpy(&h, count, sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaFree(count));
    CHECK_EQ_INT(h, 2 * 2 * 5); /* 2 blocks x 2 even tiles x 5 syncs */
}

static void check_smem_reduce()
{
    const int blocks = 3, threads = 512, tiles = threads / 128;
    std::vector<float> h(blocks * threads);
    for (size_t i = 0; i < h.size(); ++i) h[i] = float(i % 97);
    float *in = nullptr, *out = nullptr;
    CK(cudaMalloc(&in, sizeof(float) * h.size()));
    CK(cudaMalloc(&out, sizeof(float) * blocks * tiles));
    CK(cudaMemcpy(in, h.data(), sizeof(float) * h.size(), cudaMemcpyHostToDevice));
    smem_reduce128<<<blocks, threads>>>(in, out);
    CK(cudaGetLastError());
    std::vector<float> o(blocks * tiles);
    CK(cudaMemcpy(o.data(), out, sizeof(float) * o.size(), cudaMemcpyDeviceToHost));
    for (int k = 0; k < blocks * tiles; ++k) {
        float want = 0;
        for (int i = 0; i < 128; ++i) want += h[k * 128 + i];
        CHECK_EQ_INT((long long)o[k], (long long)want);
    }
    CK(cudaFree(in));
    CK(cudaFree(out));
}

template <unsigned N> static void check_collectives(int threads)
{
    const int blocks = 2, n = blocks * threads;
    std::vector<int> h(n);
    for (int i = 0; i < n; ++i) h[i] = (i * 37 + 11) % 23;
    int *in = nullptr;
    long long *out = nullptr;
    CK(cudaMalloc(&in, sizeof(int) * n));
    CK(cudaMalloc(&out, sizeof(long long) * n * 8));
    CK(cudaMemcpy(in, h.data(), sizeof(int) * n, cudaMemcpyHostToDevice));
    collectives<N><<<blocks, threads>>>(in, out);
    CK(cudaGetLastError());
    std::vector<long long> o((size_t)n * 8);
    CK(cudaMemcpy(o.data(), out, sizeof(long long) * o.size(), cudaMemcpyDeviceToHost));
    for (int t = 0; t < n; ++t) {
        const int base = t - t % (int)N, r = t % (int)N;
        long long sum = 0, mx = 0, inc = 0, exc = 0;
        int any5 = 0;
        for (int i = 0; i < (int)N; ++i) {
            const int v = h[base + i];
            sum += v;
            mx = v > mx ? v : mx;
            any5 |= v == 5;
            if (i <= r) inc += v;
            if (i < r) exc += v;
        }
        const long long *row = &o[(size_t)t * 8];
        CHECK_EQ_INT(row[0], h[base + (r * 7 + 3) % (int)N]);
        CHECK_EQ_INT(row[1], any5);
        CHECK_EQ_INT(row[2], 1);
        CHECK_EQ_INT(row[3], sum);
        CHECK_EQ_INT(row[4], mx);
        CHECK_EQ_INT(row[5], inc);
        CHECK_EQ_INT(row[6], exc);
        CHECK_EQ_INT(row[7], (long long)r * 10000 + N);
    }
    CK(cudaFree(in));
    CK(cudaFree(out));
}

int main(int argc, char **argv)
{
    if (argc > 1 && (std::strcmp(argv[1], "partial-tile") == 0 ||
                     std::strcmp(argv[1], "tile-exit") == 0)) {
        if (argv[1][0] == 'p') partial_tile<<<1, 96>>>();
        else tile_exit<<<1, 256>>>();
        cudaError_t e = cudaDeviceSynchronize();
        std::printf("%s: %s\n", argv[1], cudaGetErrorName(e));
        return e == cudaSuccess ? 0 : 1;
    }
    check_shape();
    check_sync_order<64>(256);
    check_sync_order<128>(384);
    check_sync_order<1024>(1024);
    check_own_tile_only();
    check_smem_reduce();
    check_collectives<64>(192);
    check_collectives<256>(512);
    return test_exit("coop_tiles_large");
}
