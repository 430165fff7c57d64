/* emu/tests/coop_groups.cu - cooperative groups on the emulator, checked
 * against host-computed expectations: tiles of 4, 8, 16 and 32 lanes
 * (shuffles, ballot, meta_group_rank, cg::reduce with plus and greater,
 * scans), a dynamic tiled_partition, coalesced_threads() under divergence
 * (and labeled_partition, as warp-aggregated atomics use it), a thread_block
 * sync over shared memory, grid_group::sync() in a cooperative launch (a
 * two-phase sum whose phase 2 reads every block's phase-1 result, dynamic
 * shared memory kept across the barrier), and the errors: a cooperative grid
 * too large to be resident, grid sync outside a cooperative launch.
 * Valid CUDA: compiles with nvcc too (-DCUDAEMU_REAL_TESTS=ON). */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <cuda_runtime.h>

#include <cstring>
#include <vector>

#include "test_util.h"

namespace cg = cooperative_groups;

constexpr int kThreads = 96; /* three warps */
constexpr int kFields = 12;

__device__ int value_of(int tid) { return (tid * 37 + 11) % 101 - 50; }

/* out[tid * kFields + f]: the tile's view of thread tid */
template <unsigned N>
__global__ void tiles(int *out)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<N> tile = cg::tiled_partition<N>(block);
    const int tid = (int)block.thread_rank();
    const int v = value_of(tid);
    int *o = out + tid * kFields;
    o[0] = (int)tile.thread_rank();
    o[1] = (int)tile.meta_group_rank();
    o[2] = (int)tile.meta_group_size();
    o[3] = tile.shfl(v, 0);
    o[4] = tile.shfl_down(v, 1);
    o[5] = tile.shfl_up(v, 2);
    o[6] = tile.shfl_xor(v, 1);
    o[7] = cg::reduce(tile, v, cg::plus<int>());
    o[8] = cg::reduce(tile, v, cg::greater<int>());
    o[9] = (int)tile.ballot(v > 0);
    o[10] = cg::inclusive_scan(tile, v);
    o[11] = cg::exclusive_scan(tile, v, cg::plus<int>());
    tile.sync();
}

template <unsigned N>
void check_tiles(const char *name)
{
    int *d = nullptr;
    const size_t bytes = sizeof(int) * kThreads * kFields;
    CK(cudaMalloc(&d, bytes));
    tiles<N><<<1, kThreads>>>(d);
    CK(cudaGetLastError());
    std::vector<int> o(kThreads * kFields);
    CK(cudaMemcpy(o.data(), d, bytes, cudaMemcpyDeviceToHost));
    CK(cudaFree(d));
    auto val = [](int t) { return (t * 37 + 11) % 101 - 50; };
    int bad = 0;
    for (int t = 0; t < kThreads; ++t) {
        const int r = t % (int)N, base = t - r;
        int sum = 0, mx = val(base), inc = 0, exc = 0;
        unsigned ballot = 0;
        for (int k = 0; k < (int)N; ++k) {
            sum += val(base + k);
            mx = val(base + k) > mx ? val(base + k) : mx;
            if (val(base + k) > 0) ballot |= 1u << k;
            if (k <= r) inc += val(base + k);
            if (k < r) exc += val(base + k);
        }
        const int want[kFields] = {r, t / (int)N, kThreads / (int)N, val(base),
                                   r + 1 < (int)N ? val(t + 1) : val(t),
                                   r >= 2 ? val(t - 2) : val(t),
                                   val(base + (r ^ 1) % (int)N), sum, mx, (int)ballot, inc, exc};
        for (int f = 0; f < kFields; ++f)
            if (o[t * kFields + f] != want[f] && bad++ < 5)
                std::fprintf(stderr, "%s: thread %d field %d: %d, want %d\n", name, t, f,
                             o[t * kFields + f], want[f]);
    }
    CHECK_EQ_INT(bad, 0);
}

/* tiles of tiles and a tile of a size known at run time */
__global__ void nested(int *out)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(warp);
    cg::thread_group dyn = cg::tiled_partition(block, 16);
    const int tid = (int)block.thread_rank();
    out[tid * 4 + 0] = (int)t8.meta_group_rank();
    out[tid * 4 + 1] = (int)t8.meta_group_size();
    out[tid * 4 + 2] = (int)dyn.thread_rank();
    out[tid * 4 + 3] = (int)dyn.size();
    dyn.sync();
    cg::sync(t8);
}

/* Lanes split three ways: each branch's coalesced group holds that branch's
 * lanes of the warp, ranked in lane order. */
__global__ void divergent(int *out, int *counters)
{
    const int tid = (int)threadIdx.x;
    if (tid % 3 == 0) {
        cg::coalesced_group g = cg::coalesced_threads();
        out[tid * 4 + 0] = (int)g.size();
        out[tid * 4 + 1] = (int)g.thread_rank();
        out[tid * 4 + 2] = g.shfl(tid, 0);
        out[tid * 4 + 3] = cg::reduce(g, tid, cg::plus<int>());
    } else if (tid % 3 == 1) {
        cg::coalesced_group g = cg::coalesced_threads();
        out[tid * 4 + 0] = 1000 + (int)g.size();
        out[tid * 4 + 1] = (int)g.thread_rank();
        out[tid * 4 + 2] = g.shfl(tid, g.size() - 1);
        out[tid * 4 + 3] = cg::reduce(g, tid, cg::greater<int>());
    } else {
        /* warp-aggregated atomic increment of counters[tid % 2] */
        cg::coalesced_group active = cg::coalesced_threads();
        cg::coalesced_group same = cg::labeled_partition(active, tid % 2);
        int base = 0;
        if (same.thread_rank() == 0) base = atomicAdd(&counters[tid % 2], (int)same.size());
        base = same.shfl(base, 0);
        out[tid * 4 + 0] = 2000 + (int)same.size();
        out[tid * 4 + 1] = base + (int)same.thread_rank();
        out[tid * 4 + 2] = 0;
        out[tid * 4 + 3] = 0;
    }
}

void check_divergent()
{
    int *d = nullptr, *c = nullptr;
    CK(cudaMalloc(&d, sizeof(int) * kThreads * 4));
    CK(cudaMalloc(&c, sizeof(int) * 2));
    CK(cudaMemset(c, 0, sizeof(int) * 2));
    divergent<<<1, kThreads>>>(d, c);
    CK(cudaGetLastError());
    std::vector<int> o(kThreads * 4);
    int cnt[2];
    CK(cudaMemcpy(o.data(), d, sizeof(int) * kThreads * 4, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(cnt, c, sizeof cnt, cudaMemcpyDeviceToHost));
    CK(cudaFree(d));
    CK(cudaFree(c));
    int bad = 0;
    std::vector<int> slots[2];
    for (int t = 0; t < kThreads; ++t) {
        const int w = t / 32 * 32, cls = t % 3;
        std::vector<int> lanes;
        for (int l = w; l < w + 32; ++l)
            if (l % 3 == cls && (cls != 2 || l % 2 == t % 2)) lanes.push_back(l);
        int rank = 0;
        while (lanes[rank] != t) ++rank;
        int sum = 0;
        for (int l : lanes) sum += l;
        const int *g = &o[t * 4];
        int want[4];
        if (cls == 0) {
            want[0] = (int)lanes.size(); want[1] = rank; want[2] = lanes[0]; want[3] = sum;
        } else if (cls == 1) {
            want[0] = 1000 + (int)lanes.size(); want[1] = rank; want[2] = lanes.back();
            want[3] = lanes.back();
        } else {
            want[0] = 2000 + (int)lanes.size(); want[1] = g[1]; want[2] = 0; want[3] = 0;
            slots[t % 2].push_back(g[1]);
        }
        for (int f = 0; f < 4; ++f)
            if (g[f] != want[f] && bad++ < 5)
                std::fprintf(stderr, "divergent: thread %d field %d: %d, want %d\n", t, f, g[f],
                             want[f]);
    }
    CHECK_EQ_INT(bad, 0);
    /* the aggregated increments hand out 0..n-1 exactly once per counter */
    for (int k = 0; k < 2; ++k) {
        CHECK_EQ_INT(cnt[k], (int)slots[k].size());
        std::vector<int> seen(slots[k].size(), 0);
        for (int s : slots[k]) {
            CHECK(s >= 0 && s < (int)seen.size());
            if (s >= 0 && s < (int)seen.size()) ++seen[s];
        }
        for (int x : seen) CHECK_EQ_INT(x, 1);
    }
}

/* thread_block: sync over static shared memory, the block's coordinates */
__global__ void block_sync(int *out)
{
    __shared__ int s[128];
    cg::thread_block b = cg::this_thread_block();
    const unsigned r = b.thread_rank();
    s[r] = (int)(r * r) + (int)b.group_index().x;
    b.sync();
    int v = s[b.size() - 1 - r];
    cg::sync(b);
    s[r] = v + 1;
    b.sync();
    out[b.group_index().x * b.size() + r] =
        s[(r + 1) % b.size()] + (b.thread_index().y * 1000 == 0 ? 0 : 1) +
        (b.dim_threads().x == 64 && b.dim_threads().y == 2 ? 0 : 1000000);
}

void check_block_sync()
{
    const dim3 grid(3), block(64, 2);
    const int n = 128;
    int *d = nullptr;
    CK(cudaMalloc(&d, sizeof(int) * 3 * n));
    block_sync<<<grid, block>>>(d);
    CK(cudaGetLastError());
    std::vector<int> o(3 * n);
    CK(cudaMemcpy(o.data(), d, sizeof(int) * 3 * n, cudaMemcpyDeviceToHost));
    CK(cudaFree(d));
    int bad = 0;
    for (int b = 0; b < 3; ++b)
        for (int r = 0; r < n; ++r) {
            int q = (r + 1) % n, src = n - 1 - q;
            int want = src * src + b + 1 + (r >= 64 ? 1 : 0);
            if (o[b * n + r] != want && bad++ < 5)
                std::fprintf(stderr, "block_sync: block %d rank %d: %d, want %d\n", b, r,
                             o[b * n + r], want);
        }
    CHECK_EQ_INT(bad, 0);
}

/* Two phases: every block sums its slice into partial[block]; after
 * grid.sync() every block sums all the partials.  The block's dynamic shared
 * memory must survive the barrier. */
__global__ void two_phase(const int *in, int n, int *partial, int *total, int *flags)
{
    extern __shared__ int sm[];
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    flags[grid.block_rank()] = grid.is_valid() ? 1 : 0;
    const unsigned r = block.thread_rank();
    int acc = 0;
    for (int i = (int)grid.thread_rank(); i < n; i += (int)grid.size()) acc += in[i];
    sm[r] = acc;
    sm[block.size() + r] = (int)blockIdx.x * 7 + (int)r; /* kept across the barrier */
    block.sync();
    if (r == 0) {
        int s = 0;
        for (unsigned k = 0; k < block.size(); ++k) s += sm[k];
        partial[blockIdx.x] = s;
    }
    grid.sync();
    if (r == 0) {
        int s = 0;
        for (unsigned k = 0; k < gridDim.x; ++k) s += partial[k];
        total[blockIdx.x] = s;
    }
    if (sm[block.size() + r] != (int)blockIdx.x * 7 + (int)r) flags[grid.block_rank()] = 2;
    grid.sync();
    if (grid.thread_rank() == 0) total[gridDim.x] = partial[gridDim.x - 1];
}

__global__ void grid_valid(int *flag) { *flag = cg::this_grid().is_valid() ? 1 : 0; }
__global__ void grid_sync_plain() { cg::this_grid().sync(); }

void check_grid_sync()
{
    const int nb = 6, nt = 64, n = 1000;
    std::vector<int> h(n);
    long long want = 0;
    for (int i = 0; i < n; ++i) {
        h[i] = (i * 13) % 17 - 5;
        want += h[i];
    }
    int *in = nullptr, *partial = nullptr, *total = nullptr, *flags = nullptr;
    CK(cudaMalloc(&in, sizeof(int) * n));
    CK(cudaMalloc(&partial, sizeof(int) * nb));
    CK(cudaMalloc(&total, sizeof(int) * (nb + 1)));
    CK(cudaMalloc(&flags, sizeof(int) * nb));
    CK(cudaMemcpy(in, h.data(), sizeof(int) * n, cudaMemcpyHostToDevice));
    int dev = 0, coop = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    CHECK_EQ_INT(coop, 1);
    int nn = n;
    void *args[] = {(void *)&in, (void *)&nn, (void *)&partial, (void *)&total, (void *)&flags};
    const size_t smem = 2 * nt * sizeof(int);
    CK(cudaLaunchCooperativeKernel((void *)two_phase, dim3(nb), dim3(nt), args, smem, 0));
    std::vector<int> tot(nb + 1), fl(nb);
    CK(cudaMemcpy(tot.data(), total, sizeof(int) * (nb + 1), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(fl.data(), flags, sizeof(int) * nb, cudaMemcpyDeviceToHost));
    for (int b = 0; b < nb; ++b) {
        CHECK_EQ_INT(tot[b], want);
        CHECK_EQ_INT(fl[b], 1);
    }
    std::vector<int> part(nb);
    CK(cudaMemcpy(part.data(), partial, sizeof(int) * nb, cudaMemcpyDeviceToHost));
    CHECK_EQ_INT(tot[nb], part[nb - 1]);

    /* is_valid() is false in an ordinary launch */
    grid_valid<<<1, 1>>>(flags);
    CK(cudaGetLastError());
    CK(cudaMemcpy(fl.data(), flags, sizeof(int), cudaMemcpyDeviceToHost));
    CHECK_EQ_INT(fl[0], 0);

    /* a grid that cannot be resident at once */
    int per_sm = 0, sms = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, two_phase, 1024, smem));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CHECK(per_sm > 0);
    cudaError_t e = cudaLaunchCooperativeKernel((void *)two_phase, dim3(per_sm * sms + 1),
                                                dim3(1024), args, smem, 0);
    CHECK_EQ_INT(e, cudaErrorCooperativeLaunchTooLarge);
    CHECK_EQ_INT(cudaGetLastError(), cudaErrorCooperativeLaunchTooLarge);
    CHECK_EQ_INT(cudaGetLastError(), cudaSuccess);
    CK(cudaFree(in));
    CK(cudaFree(partial));
    CK(cudaFree(total));
    CK(cudaFree(flags));
}

int main(int argc, char **argv)
{
    if (argc > 1 && std::strcmp(argv[1], "plain-grid-sync") == 0) {
        /* grid sync without a cooperative launch: the launch fails (emulator) */
        grid_sync_plain<<<2, 32>>>();
        cudaError_t e = cudaDeviceSynchronize();
        std::printf("plain grid sync: %s\n", cudaGetErrorName(e));
        return e == cudaSuccess ? 0 : 1;
    }
    check_tiles<4>("tile4");
    check_tiles<8>("tile8");
    check_tiles<16>("tile16");
    check_tiles<32>("tile32");
    {
        int *d = nullptr;
        CK(cudaMalloc(&d, sizeof(int) * kThreads * 4));
        nested<<<1, kThreads>>>(d);
        CK(cudaGetLastError());
        std::vector<int> o(kThreads * 4);
        CK(cudaMemcpy(o.data(), d, sizeof(int) * kThreads * 4, cudaMemcpyDeviceToHost));
        CK(cudaFree(d));
        for (int t = 0; t < kThreads; ++t) {
            CHECK_EQ_INT(o[t * 4 + 0], (t % 32) / 8);
            CHECK_EQ_INT(o[t * 4 + 1], 4);
            CHECK_EQ_INT(o[t * 4 + 2], t % 16);
            CHECK_EQ_INT(o[t * 4 + 3], 16);
        }
    }
    check_divergent();
    check_block_sync();
    check_grid_sync();
    return test_exit("coop_groups");
}
