/* emu/tests/cuda_barrier.cu - libcu++'s <cuda/barrier> and <cuda/pipeline>
 * (the CUDA C++ Programming Guide's patterns) on the emulator.
 *
 *   phases: 2 blocks of 64 threads, 4 rounds of write / arrive_and_wait /
 *       read the neighbour / arrive + wait(token): exact sums; a completion
 *       function counts the phases (16)
 *   drop: a thread leaves with arrive_and_drop after the first phase, the
 *       others go on through 3 more (4 completions, no hang)
 *   staged: the guide's 2-stage cuda::pipeline over a block (make_pipeline
 *       on shared state, producer_acquire/commit, consumer_wait/release,
 *       cuda::memcpy_async(block, ...)) over 7 batches, each thread reading
 *       a neighbour's share: exact sums
 *   copies: cuda::memcpy_async with a barrier, and a thread-scope pipeline
 *       with cuda::aligned_size_t and pipeline_consumer_wait_prior
 */
#include <cstdio>
#include <utility>

#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda_runtime.h>

#include "test_util.h"

namespace cg = cooperative_groups;

/* as the guide: nvcc warns that a __shared__ barrier or pipeline state is not
 * constructed (init and make_pipeline set them up) */
#pragma nv_diag_suppress static_var_with_dynamic_init

#define NT 64
#define ROUNDS 4
#define BATCHES 7
#define STAGES 2

__device__ int g_completions;
struct CountPhase {
    __device__ void operator()() const { atomicAdd(&g_completions, 1); }
};

__global__ void phases(int *out)
{
    __shared__ cuda::barrier<cuda::thread_scope_block, CountPhase> bar;
    __shared__ int buf[NT];
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) init(&bar, block.size(), CountPhase());
    block.sync();
    const int t = threadIdx.x;
    int acc = 0;
    for (int p = 0; p < ROUNDS; p++) {
        buf[t] = t * 10 + p;
        bar.arrive_and_wait();
        acc += buf[(t + 1) % NT];
        auto token = bar.arrive(); /* all have read before anyone writes again */
        bar.wait(std::move(token));
    }
    out[blockIdx.x * NT + t] = acc;
}

__global__ void drop()
{
    __shared__ cuda::barrier<cuda::thread_scope_block, CountPhase> bar;
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) init(&bar, block.size(), CountPhase());
    block.sync();
    if (threadIdx.x == NT - 1) {
        bar.arrive_and_drop();
        return;
    }
    for (int p = 0; p < ROUNDS; p++) bar.arrive_and_wait();
}

__global__ void staged(const int *in, int *out)
{
    __shared__ int buf[STAGES][NT];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, STAGES> state;
    auto block = cg::this_thread_block();
    auto pipe = cuda::make_pipeline(block, &state);
    const int t = threadIdx.x;
    int acc = 0, fetch = 0;
    for (int b = 0; b < BATCHES; b++) {
        for (; fetch < BATCHES && fetch < b + STAGES; fetch++) {
            pipe.producer_acquire();
            cuda::memcpy_async(block, buf[fetch % STAGES], in + fetch * NT, sizeof(int) * NT, pipe);
            pipe.producer_commit();
        }
        pipe.consumer_wait();
        acc += buf[b % STAGES][(t + 1) % NT]; /* copied by other threads */
        pipe.consumer_release();
    }
    out[t] = acc;
}

__global__ void copies(const int *in, int *out)
{
    __shared__ int buf[NT], mine[NT];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) init(&bar, block.size());
    block.sync();
    const int t = threadIdx.x;
    cuda::memcpy_async(block, buf, in, sizeof buf, bar);
    bar.arrive_and_wait();
    auto pipe = cuda::make_pipeline();
    pipe.producer_acquire();
    cuda::memcpy_async(&mine[t], &in[NT + t], cuda::aligned_size_t<4>(sizeof(int)), pipe);
    pipe.producer_commit();
    cuda::pipeline_consumer_wait_prior<0>(pipe);
    pipe.consumer_release();
    out[t] = buf[(t + 1) % NT] * 1000 + mine[t];
}

int main()
{
    int h[BATCHES * NT], got[2 * NT], *in, *out, zero = 0, completions = 0;
    for (int i = 0; i < BATCHES * NT; i++) h[i] = (i * 7) % 101;
    CK(cudaMalloc(&in, sizeof h));
    CK(cudaMalloc(&out, sizeof got));
    CK(cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice));

    CK(cudaMemcpyToSymbol(g_completions, &zero, sizeof zero));
    phases<<<2, NT>>>(out);
    CK(cudaGetLastError());
    CK(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 2 * NT; i++) {
        const int n = (i % NT + 1) % NT;
        int want = 0;
        for (int p = 0; p < ROUNDS; p++) want += n * 10 + p;
        CHECK_EQ_INT(got[i], want);
    }
    CK(cudaMemcpyFromSymbol(&completions, g_completions, sizeof completions));
    CHECK_EQ_INT(completions, 2 * 2 * ROUNDS); /* two phases a round, two blocks */

    CK(cudaMemcpyToSymbol(g_completions, &zero, sizeof zero));
    drop<<<1, NT>>>();
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpyFromSymbol(&completions, g_completions, sizeof completions));
    CHECK_EQ_INT(completions, ROUNDS);

    staged<<<1, NT>>>(in, out);
    CK(cudaGetLastError());
    CK(cudaMemcpy(got, out, NT * sizeof(int), cudaMemcpyDeviceToHost));
    for (int t = 0; t < NT; t++) {
        int want = 0;
        for (int b = 0; b < BATCHES; b++) want += h[b * NT + (t + 1) % NT];
        CHECK_EQ_INT(got[t], want);
    }

    copies<<<1, NT>>>(in, out);
    CK(cudaGetLastError());
    CK(cudaMemcpy(got, out, NT * sizeof(int), cudaMemcpyDeviceToHost));
    for (int t = 0; t < NT; t++) CHECK_EQ_INT(got[t], h[(t + 1) % NT] * 1000 + h[NT + t]);

    CK(cudaFree(in));
    CK(cudaFree(out));
    return test_exit("cuda_barrier");
}
