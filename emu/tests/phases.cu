/* emu/tests/phases.cu - the scheduler's fast paths give exact results:
 * threads that run straight through (not recorded one by one until one of
 * them calls a primitive), fibers that go on to each other at barriers and
 * warp primitives, blocks that change between barrier-free and barrier runs.
 *
 *   phases                 values (any CUDAEMU_ORDER): "phases: all checks passed"
 *   phases early-return    the tail block's last threads return before its
 *                          barriers: they count as arrived (sm_70+), the
 *                          survivors' values are checked
 *   phases divergent-barrier  a thread waits at __syncthreads() while its
 *                          warp waits for it in a shuffle: the launch fails
 *   phases exited-lane     lane 31 returns, the others shuffle with it
 */
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "test_util.h"

/* Many barrier phases with per-thread state: each phase publishes the
 * thread's value and mixes in another thread's value of the same phase. */
constexpr int kPhases = 100;

__device__ unsigned mix(unsigned acc, unsigned other, int phase)
{
    return acc * 2654435761u + other + unsigned(phase);
}

__global__ void many_phases(unsigned *out, int *counts)
{
    __shared__ unsigned s[256];
    const unsigned n = blockDim.x * blockDim.y * blockDim.z;
    const unsigned lin = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    unsigned acc = lin * 7u + blockIdx.x;
    for (int p = 0; p < kPhases; ++p) {
        s[lin] = acc;
        int c = __syncthreads_count((acc & 3u) == 0);
        acc = mix(acc, s[(lin + unsigned(p) + 1u) % n], p);
        if (lin == 0) counts[blockIdx.x * kPhases + p] = c;
        __syncthreads();
    }
    out[blockIdx.x * n + lin] = acc;
}

static void many_phases_host(unsigned nthreads, unsigned block, std::vector<unsigned> &out,
                             std::vector<int> &counts)
{
    std::vector<unsigned> acc(nthreads), s(nthreads);
    for (unsigned i = 0; i < nthreads; ++i) acc[i] = i * 7u + block;
    for (int p = 0; p < kPhases; ++p) {
        int c = 0;
        for (unsigned i = 0; i < nthreads; ++i) {
            s[i] = acc[i];
            c += (acc[i] & 3u) == 0;
        }
        for (unsigned i = 0; i < nthreads; ++i)
            acc[i] = mix(acc[i], s[(i + unsigned(p) + 1u) % nthreads], p);
        counts.push_back(c);
    }
    out.insert(out.end(), acc.begin(), acc.end());
}

/* Lanes below 16 meet in warp primitives, the upper lanes return at once
 * (they run through without being recorded). */
__global__ void half_warps(int *out)
{
    const int lane = threadIdx.x & 31;
    if (lane >= 16) {
        out[threadIdx.x] = -lane;
        return;
    }
    int v = lane * 10 + int(threadIdx.x >> 5);
    __syncwarp(0xffffu);
    v += __shfl_xor_sync(0xffffu, v, 1);
    v += __shfl_down_sync(0xffffu, v, 2, 16);
    out[threadIdx.x] = v;
}

/* Every thread takes a ticket in the order the emulator runs them; lanes
 * that are a multiple of 4 also ask which lanes are active.  As on a GPU the
 * answer is the lanes that took that branch together (0x11111111), whatever
 * the order the emulator ran the others in (which the tickets record). */
__global__ void tickets(unsigned *ticket, unsigned *mask, unsigned *counter)
{
    const unsigned i = threadIdx.x;
    ticket[i] = atomicAdd(counter, 1u);
    if (i % 4 == 0) mask[i] = __activemask();
}

/* Odd blocks reduce with barriers, even blocks run through: the block model
 * is reset correctly between the two kinds. */
__global__ void odd_blocks_sync(int *out)
{
    __shared__ int s[128];
    const int t = threadIdx.x;
    if (blockIdx.x % 2 == 0) {
        out[blockIdx.x * 128 + t] = t + int(blockIdx.x);
        return;
    }
    s[t] = t + int(blockIdx.x);
    for (int w = 64; w > 0; w /= 2) {
        __syncthreads();
        if (t < w) s[t] += s[t + w];
    }
    __syncthreads();
    out[blockIdx.x * 128 + t] = s[0] + t;
}

/* The tail block's last threads return before the barriers (`if (i >= n)
 * return;`): on sm_70+ they count as arrived, so the survivors go on. */
__global__ void early_return(const int *in, int *out, int *counts, int n)
{
    __shared__ int s[256];
    const int t = threadIdx.y * blockDim.x + threadIdx.x;
    const int i = blockIdx.x * 256 + t;
    if (i >= n) return;
    s[t] = in[i];
    __syncthreads();
    const int right = t + 1 < 256 && i + 1 < n ? s[t + 1] : 0;
    const int c = __syncthreads_count(in[i] % 2); /* the survivors' odd inputs */
    out[i] = s[t] + right;
    if (t == 0) counts[blockIdx.x] = c;
}

/* A divergent barrier a GPU hangs on: lane 31 of warp 1 waits at
 * __syncthreads() while its warp's other lanes wait for it in a shuffle. */
__global__ void divergent_barrier(int *x)
{
    if (threadIdx.x == 63) {
        __syncthreads();
        return;
    }
    x[threadIdx.x] = __shfl_sync(0xffffffffu, int(threadIdx.x), 31);
}

__global__ void exited_lane(int *x)
{
    if (threadIdx.x == 31) return;
    x[threadIdx.x] = __shfl_down_sync(0xffffffffu, int(threadIdx.x), 1);
}

static int run_failing(const char *mode)
{
    int *d = nullptr;
    CK(cudaMalloc(&d, 256 * sizeof(int)));
    if (!std::strcmp(mode, "divergent-barrier")) divergent_barrier<<<1, 64>>>(d);
    else exited_lane<<<1, 64>>>(d);
    CK(cudaGetLastError());
    cudaError_t e = cudaDeviceSynchronize();
    std::printf("phases %s: %s\n", mode, cudaGetErrorName(e));
    return e == cudaErrorLaunchFailure ? 1 : 0;
}

/* early_return over n = 2 blocks and 100 more: the survivors' values */
static int run_early_return()
{
    const int n = 2 * 256 + 100, nb = (n + 255) / 256;
    std::vector<int> in(n), out(n, -1), counts(nb, -1);
    for (int i = 0; i < n; ++i) in[i] = (i * 37) % 101;
    int *d_in = nullptr, *d_out = nullptr, *d_counts = nullptr;
    CK(cudaMalloc(&d_in, n * sizeof(int)));
    CK(cudaMalloc(&d_out, n * sizeof(int)));
    CK(cudaMalloc(&d_counts, nb * sizeof(int)));
    CK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    early_return<<<nb, dim3(128, 2)>>>(d_in, d_out, d_counts, n);
    CK(cudaGetLastError());
    CK(cudaMemcpy(out.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(counts.data(), d_counts, nb * sizeof(int), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; ++i) {
        const bool last_of_block = i % 256 == 255 || i + 1 == n;
        bad += out[i] != in[i] + (last_of_block ? 0 : in[i + 1]);
    }
    CHECK_EQ_INT(bad, 0);
    for (int b = 0; b < nb; ++b) {
        int odd = 0;
        for (int i = b * 256; i < n && i < (b + 1) * 256; ++i) odd += in[i] % 2;
        CHECK_EQ_INT(counts[b], odd);
    }
    CK(cudaFree(d_in));
    CK(cudaFree(d_out));
    CK(cudaFree(d_counts));
    return test_exit("phases early-return");
}

int main(int argc, char **argv)
{
    if (argc > 1 && !std::strcmp(argv[1], "early-return")) return run_early_return();
    if (argc > 1) return run_failing(argv[1]);

    /* many barrier phases, 3-D blocks, twice (fibers reused) */
    const dim3 block(16, 4, 2);
    const unsigned nt = 128, nb = 3;
    unsigned *d_out = nullptr;
    int *d_counts = nullptr;
    CK(cudaMalloc(&d_out, nb * nt * sizeof(unsigned)));
    CK(cudaMalloc(&d_counts, nb * kPhases * sizeof(int)));
    std::vector<unsigned> want;
    std::vector<int> want_counts;
    for (unsigned b = 0; b < nb; ++b) many_phases_host(nt, b, want, want_counts);
    for (int rep = 0; rep < 2; ++rep) {
        many_phases<<<nb, block>>>(d_out, d_counts);
        CK(cudaGetLastError());
        std::vector<unsigned> got(nb * nt);
        std::vector<int> counts(nb * kPhases);
        CK(cudaMemcpy(got.data(), d_out, got.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(counts.data(), d_counts, counts.size() * sizeof(int),
                      cudaMemcpyDeviceToHost));
        int bad = 0;
        for (size_t i = 0; i < got.size(); ++i) bad += got[i] != want[i];
        for (size_t i = 0; i < counts.size(); ++i) bad += counts[i] != want_counts[i];
        CHECK_EQ_INT(bad, 0);
    }

    /* half warps: partial masks beside threads that run through */
    int *d_half = nullptr;
    CK(cudaMalloc(&d_half, 96 * sizeof(int)));
    half_warps<<<1, 96>>>(d_half);
    CK(cudaGetLastError());
    int half[96];
    CK(cudaMemcpy(half, d_half, sizeof half, cudaMemcpyDeviceToHost));
    for (int t = 0; t < 96; ++t) {
        const int lane = t % 32, w = t / 32;
        if (lane >= 16) {
            CHECK_EQ_INT(half[t], -lane);
            continue;
        }
        auto v0 = [&](int l) { return l * 10 + w; };
        auto v1 = [&](int l) { return v0(l) + v0(l ^ 1); };
        const int want_v = v1(lane) + (lane % 16 + 2 < 16 ? v1(lane + 2) : v1(lane));
        CHECK_EQ_INT(half[t], want_v);
    }

    /* __activemask() sees exactly the lanes in the branch, in every order */
    unsigned *d_ticket = nullptr, *d_mask = nullptr, *d_counter = nullptr;
    CK(cudaMalloc(&d_ticket, 64 * sizeof(unsigned)));
    CK(cudaMalloc(&d_mask, 64 * sizeof(unsigned)));
    CK(cudaMalloc(&d_counter, sizeof(unsigned)));
    CK(cudaMemset(d_counter, 0, sizeof(unsigned)));
    tickets<<<1, 64>>>(d_ticket, d_mask, d_counter);
    CK(cudaGetLastError());
    unsigned ticket[64], mask[64];
    CK(cudaMemcpy(ticket, d_ticket, sizeof ticket, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(mask, d_mask, sizeof mask, cudaMemcpyDeviceToHost));
    bool in_order = true; /* the tickets: did the others run around the callers? */
    for (int t = 1; t < 64; ++t) in_order = in_order && ticket[t] > ticket[t - 1];
    std::printf("phases: tickets taken %s\n", in_order ? "in thread order" : "out of order");
    for (int t = 0; t < 64; t += 4) {
        const unsigned want_mask = 0x11111111u;
        if (mask[t] != want_mask)
            std::fprintf(stderr, "thread %d: __activemask() 0x%08x, expected 0x%08x\n", t,
                         mask[t], want_mask);
        CHECK(mask[t] == want_mask);
    }

    /* barrier blocks and run-through blocks in one grid, then again */
    int *d_odd = nullptr;
    CK(cudaMalloc(&d_odd, 6 * 128 * sizeof(int)));
    for (int rep = 0; rep < 2; ++rep) {
        odd_blocks_sync<<<6, 128>>>(d_odd);
        CK(cudaGetLastError());
        std::vector<int> odd(6 * 128);
        CK(cudaMemcpy(odd.data(), d_odd, odd.size() * sizeof(int), cudaMemcpyDeviceToHost));
        int bad = 0;
        for (int b = 0; b < 6; ++b)
            for (int t = 0; t < 128; ++t) {
                const int sum = 128 * 127 / 2 + 128 * b;
                bad += odd[b * 128 + t] != (b % 2 ? sum + t : t + b);
            }
        CHECK_EQ_INT(bad, 0);
    }

    CK(cudaFree(d_out));
    CK(cudaFree(d_counts));
    CK(cudaFree(d_half));
    CK(cudaFree(d_ticket));
    CK(cudaFree(d_mask));
    CK(cudaFree(d_counter));
    CK(cudaFree(d_odd));
    return test_exit("phases");
}
