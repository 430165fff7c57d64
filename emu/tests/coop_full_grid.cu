/* emu/tests/coop_full_grid.cu - a cooperative launch as large as the emulated
 * device holds (2 blocks of 1024 threads per SM x 132 SMs = 270336 threads):
 * every block parks at grid.sync() while the others run on the same fiber
 * stacks, so each thread's stack (locals, a pointer to one of them, frames of
 * a recursion whose depth differs per thread) must come back intact, and
 * values written before a grid barrier must be seen by other blocks after it.
 * Prints "coop_full_grid: all checks passed".
 */
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <vector>

#include "test_util.h"

namespace cg = cooperative_groups;

constexpr int kShift = 1000; /* a thread reads a value another block wrote */

/* Frames of depth + 1 levels, each with its own locals, are parked at the
 * grid barrier at the bottom; the sums of their locals must survive it. */
__device__ __noinline__ int deep(int depth, cg::grid_group &grid, unsigned g)
{
    volatile int local[8];
    for (int k = 0; k < 8; ++k) local[k] = int(g % 1000u) * 31 + depth * 7 + k;
    int below = 0;
    if (depth > 0) below = deep(depth - 1, grid, g);
    else grid.sync();
    int s = 0;
    for (int k = 0; k < 8; ++k) s += local[k];
    return below + s;
}

static int deep_host(int depth, unsigned g)
{
    int r = 0;
    for (int d = depth; d >= 0; --d)
        for (int k = 0; k < 8; ++k) r += int(g % 1000u) * 31 + d * 7 + k;
    return r;
}

__global__ void full_grid(const int *in, int *out, int *res, int *blocksum)
{
    extern __shared__ int part[];
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    const unsigned g = unsigned(grid.thread_rank());
    const unsigned n = unsigned(grid.size());
    int mine = in[g];
    int *self = &mine; /* an address in this thread's stack, used after the barriers */
    out[g] = 2 * mine;
    part[block.thread_rank()] = mine; /* dynamic shared memory across grid barriers */
    grid.sync();
    const int other = out[(g + kShift) % n];
    block.sync();
    grid.sync();
    const int d = deep(int(g % 5u), grid, g);
    if (block.thread_rank() == 0) {
        int s = 0;
        for (unsigned i = 0; i < block.size(); ++i) s += part[i];
        blocksum[blockIdx.x] = s;
    }
    res[g] = other + *self + d;
}

int main()
{
    int per_sm = 0, sms = 0, dev = 0;
    const int nt = 1024;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, full_grid, nt, nt * sizeof(int)));
    const int nb = per_sm * sms;
    CHECK_EQ_INT(nb, 264);
    const unsigned n = unsigned(nb) * nt;

    std::vector<int> h_in(n);
    for (unsigned i = 0; i < n; ++i) h_in[i] = int((i * 2654435761u) >> 20);
    int *in = nullptr, *out = nullptr, *res = nullptr, *blocksum = nullptr;
    CK(cudaMalloc(&in, n * sizeof(int)));
    CK(cudaMalloc(&out, n * sizeof(int)));
    CK(cudaMalloc(&res, n * sizeof(int)));
    CK(cudaMalloc(&blocksum, nb * sizeof(int)));
    CK(cudaMemcpy(in, h_in.data(), n * sizeof(int), cudaMemcpyHostToDevice));

    /* the full device, then a smaller grid on the same (reused) frame store */
    for (const int grid : {nb, 40}) {
        const unsigned m = unsigned(grid) * nt;
        CK(cudaMemset(res, 0, m * sizeof(int)));
        void *args[] = {(void *)&in, (void *)&out, (void *)&res, (void *)&blocksum};
        CK(cudaLaunchCooperativeKernel((void *)full_grid, dim3(grid), dim3(nt), args,
                                       nt * sizeof(int), 0));
        std::vector<int> h_res(m), h_sum(grid);
        CK(cudaMemcpy(h_res.data(), res, m * sizeof(int), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(h_sum.data(), blocksum, grid * sizeof(int), cudaMemcpyDeviceToHost));
        unsigned bad = 0, first = m;
        for (unsigned g = 0; g < m; ++g) {
            const int want = 2 * h_in[(g + kShift) % m] + h_in[g] + deep_host(int(g % 5u), g);
            if (h_res[g] != want) {
                if (!bad) first = g;
                ++bad;
            }
        }
        if (bad)
            std::fprintf(stderr, "%u wrong results, the first for thread %u of the grid\n", bad,
                         first);
        CHECK_EQ_INT(bad, 0);
        for (int b = 0; b < grid; ++b) {
            int s = 0;
            for (int i = 0; i < nt; ++i) s += h_in[unsigned(b) * nt + unsigned(i)];
            CHECK_EQ_INT(h_sum[b], s);
        }
    }
    CK(cudaFree(in));
    CK(cudaFree(out));
    CK(cudaFree(res));
    CK(cudaFree(blocksum));
    return test_exit("coop_full_grid");
}
