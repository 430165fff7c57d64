/* emu/tests/interleave.cu - CUDAEMU_INTERLEAVE=1 (issue #29 item 3, check 6):
 * the blocks of a launch run interleaved, so a race between blocks gives the
 * wrong result it can give on a GPU.  Registered with the option off and on
 * (emu.interleave.* and emu.interleave.on.*); the program reads the option
 * to know what to expect.
 *
 *   interleave        every check below
 *   interleave race   prints the racy kernel's sum (the check runs it twice
 *                     as a child: the same seed gives the same sum)
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include "test_util.h"

constexpr int kBlocks = 64, kThreads = 32, kWork = 48;

/* Each block adds blockIdx.x + 1 to *total, read and written apart: a lost
 * update when another block writes in between.  The work between the read
 * and the write depends on the block, as a GPU's would. */
__global__ void racy_sum(int *total, int *sink)
{
    if (threadIdx.x != 0) return;
    int tmp = *total;
    int w = 0;
    for (int i = 0; i < kWork; ++i) w += (i * 7 + int(blockIdx.x)) & 3;
    *total = tmp + int(blockIdx.x) + 1;
    sink[blockIdx.x] = w;
}

__global__ void atomic_sum(int *total, int *sink)
{
    if (threadIdx.x != 0) return;
    int w = 0;
    for (int i = 0; i < kWork; ++i) w += (i * 7 + int(blockIdx.x)) & 3;
    atomicAdd(total, int(blockIdx.x) + 1);
    sink[blockIdx.x] = w;
}

/* How many blocks are inside at once (one when blocks run one after another). */
__global__ void resident(int *inside, int *most)
{
    if (threadIdx.x == 0) {
        int now = atomicAdd(inside, 1) + 1;
        atomicMax(most, now);
    }
    __syncthreads();
    int w = 0;
    for (int i = 0; i < kWork; ++i) w += i & int(threadIdx.x);
    __syncthreads();
    if (threadIdx.x == 0) atomicSub(inside, 1 + (w & 0));
}

/* Shared memory is the block's own while other blocks run in between: static
 * and dynamic, written, kept across yield points and a barrier, read back. */
__global__ void shared_own(int *bad)
{
    __shared__ int st[kThreads];
    extern __shared__ int dyn[];
    st[threadIdx.x] = int(blockIdx.x * 1000 + threadIdx.x);
    dyn[threadIdx.x] = int(blockIdx.x * 2000 + threadIdx.x);
    int w = 0;
    for (int i = 0; i < kWork; ++i) w += i & 1;
    __syncthreads();
    const int o = (threadIdx.x + 1) % kThreads;
    if (st[o] != int(blockIdx.x * 1000 + o) || dyn[o] != int(blockIdx.x * 2000 + o) ||
        w != kWork / 2)
        atomicAdd(bad, 1);
}

/* cp.async copies in flight stay the block's own while other blocks run in
 * between (each resident block has its own queues, as its shared memory). */
__global__ void async_own(const int *src, int *bad)
{
    __shared__ __align__(16) int buf[kThreads];
    const int base = int(blockIdx.x) * kThreads;
    __pipeline_memcpy_async(&buf[threadIdx.x], src + base + threadIdx.x, sizeof(int));
    __pipeline_commit();
    int w = 0;
    for (int i = 0; i < kWork; ++i) w += i & 1;
    __pipeline_wait_prior(0);
    __syncthreads();
    const int o = (threadIdx.x + 1) % kThreads;
    if (buf[o] != base + o || w != kWork / 2) atomicAdd(bad, 1);
}

static int run_sum(bool atomic)
{
    int *total, *sink;
    CK(cudaMalloc(&total, sizeof(int)));
    CK(cudaMalloc(&sink, kBlocks * sizeof(int)));
    CK(cudaMemset(total, 0, sizeof(int)));
    if (atomic) atomic_sum<<<kBlocks, kThreads>>>(total, sink);
    else racy_sum<<<kBlocks, kThreads>>>(total, sink);
    CK(cudaGetLastError());
    int h = 0;
    CK(cudaMemcpy(&h, total, sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaFree(total));
    CK(cudaFree(sink));
    return h;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !std::strcmp(argv[1], "race")) {
        std::printf("%d\n", run_sum(false));
        return 0;
    }
    const char *il = std::getenv("CUDAEMU_INTERLEAVE");
    const bool on = il && !std::strcmp(il, "1");
    const int right = kBlocks * (kBlocks + 1) / 2;

    const int racy = run_sum(false);
    std::printf("racy sum %d (right %d), interleave %s\n", racy, right, on ? "on" : "off");
    if (on) {
        CHECK(racy != right);
        /* deterministic given the seed: the same program prints the same sum */
        check_same_again(argv[0], "race", racy);
    } else {
        CHECK_EQ_INT(racy, right);
    }
    CHECK_EQ_INT(run_sum(true), right);

    int *inside, *most;
    CK(cudaMalloc(&inside, sizeof(int)));
    CK(cudaMalloc(&most, sizeof(int)));
    CK(cudaMemset(inside, 0, sizeof(int)));
    CK(cudaMemset(most, 0, sizeof(int)));
    resident<<<kBlocks, kThreads>>>(inside, most);
    CK(cudaGetLastError());
    int h_most = 0, h_inside = -1;
    CK(cudaMemcpy(&h_most, most, sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&h_inside, inside, sizeof(int), cudaMemcpyDeviceToHost));
    std::printf("at most %d block(s) resident at once\n", h_most);
    CHECK_EQ_INT(h_inside, 0);
    if (on) CHECK(h_most > 1 && h_most <= 8);
    else CHECK_EQ_INT(h_most, 1);

    int *bad;
    CK(cudaMalloc(&bad, sizeof(int)));
    CK(cudaMemset(bad, 0, sizeof(int)));
    shared_own<<<kBlocks, kThreads, kThreads * sizeof(int)>>>(bad);
    CK(cudaGetLastError());
    int h_bad = -1;
    CK(cudaMemcpy(&h_bad, bad, sizeof(int), cudaMemcpyDeviceToHost));
    CHECK_EQ_INT(h_bad, 0);

    int *src;
    std::vector<int> h_src(kBlocks * kThreads);
    for (size_t i = 0; i < h_src.size(); ++i) h_src[i] = int(i);
    CK(cudaMalloc(&src, h_src.size() * sizeof(int)));
    CK(cudaMemcpy(src, h_src.data(), h_src.size() * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemset(bad, 0, sizeof(int)));
    async_own<<<kBlocks, kThreads>>>(src, bad);
    CK(cudaGetLastError());
    CK(cudaMemcpy(&h_bad, bad, sizeof(int), cudaMemcpyDeviceToHost));
    std::printf("cp.async: %d thread(s) read a wrong value\n", h_bad);
    CHECK_EQ_INT(h_bad, 0);
    CK(cudaFree(src));
    CK(cudaFree(inside));
    CK(cudaFree(most));
    CK(cudaFree(bad));
    if (g_test_failures) return 1;
    std::printf("interleave: all checks passed\n");
    return 0;
}
