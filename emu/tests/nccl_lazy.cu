// emu/tests/nccl_lazy.cu - NCCL collectives are stream-ordered and lazy.
//
// The data-parallel pattern: a kernel writes each rank's gradients on a
// compute stream, an all-reduce sums them on a communication stream.  With
// cudaEventRecord + cudaStreamWaitEvent between the two, every rank gets the
// sum.  Without the wait the all-reduce may read the buffers before the
// kernels have written them: with lazy streams (CUDAEMU_PROGRESS_MS=0) it
// always does, so the wrong result shows deterministically (this test asserts
// that it does).  One host thread issues everything (ncclGroupStart/End) and
// synchronizes one rank's stream at a time, in both orders: no deadlock.
#include <nccl.h>

#include <vector>

#include "test_util.h"

static const int kN = 1000;

__global__ void write_grads(float *g, float scale, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) g[i] = scale * float(i % 10 + 1);
}

struct Rank {
    ncclComm_t comm;
    cudaStream_t compute, comm_stream;
    cudaEvent_t written;
    float *grads;
};

// Runs one step; returns how many elements of every rank hold the sum.
static int step(std::vector<Rank> &ranks, bool wait_event, bool reverse_sync)
{
    const int n = int(ranks.size());
    std::vector<float> zeros(kN, 0.0f);
    for (int r = 0; r < n; ++r) {
        CK(cudaSetDevice(r));
        CK(cudaMemcpy(ranks[size_t(r)].grads, zeros.data(), kN * sizeof(float), cudaMemcpyHostToDevice));
        CK(cudaDeviceSynchronize()); /* a pageable upload may land late: CUDAEMU_PAGEABLE_LATE */
        write_grads<<<(kN + 255) / 256, 256, 0, ranks[size_t(r)].compute>>>(ranks[size_t(r)].grads,
                                                                          float(r + 1), kN);
        CK(cudaGetLastError());
        if (wait_event) {
            CK(cudaEventRecord(ranks[size_t(r)].written, ranks[size_t(r)].compute));
            CK(cudaStreamWaitEvent(ranks[size_t(r)].comm_stream, ranks[size_t(r)].written, 0));
        }
    }
    NC(ncclGroupStart());
    for (int r = 0; r < n; ++r) {
        CK(cudaSetDevice(r));
        NC(ncclAllReduce(ranks[size_t(r)].grads, ranks[size_t(r)].grads, kN, ncclFloat, ncclSum,
                         ranks[size_t(r)].comm, ranks[size_t(r)].comm_stream));
    }
    NC(ncclGroupEnd());
    for (int k = 0; k < n; ++k) {
        const int r = reverse_sync ? n - 1 - k : k;
        CK(cudaSetDevice(r));
        CK(cudaStreamSynchronize(ranks[size_t(r)].comm_stream));
    }
    const float total = float(n * (n + 1) / 2);
    int summed = 0, own = 0;
    for (int r = 0; r < n; ++r) {
        CK(cudaSetDevice(r));
        CK(cudaDeviceSynchronize()); // the compute streams too
        std::vector<float> h(kN);
        CK(cudaMemcpy(h.data(), ranks[size_t(r)].grads, kN * sizeof(float), cudaMemcpyDeviceToHost));
        for (int i = 0; i < kN; ++i) {
            summed += h[size_t(i)] == total * float(i % 10 + 1);
            own += h[size_t(i)] == float(r + 1) * float(i % 10 + 1);
        }
    }
    if (!wait_event) CHECK(own == n * kN); // the kernels wrote after the all-reduce had run
    return summed;
}

int main()
{
    int n = 0;
    CK(cudaGetDeviceCount(&n));
    CHECK(n >= 2);
    std::vector<Rank> ranks(static_cast<size_t>(n));
    std::vector<ncclComm_t> comms(static_cast<size_t>(n));
    NC(ncclCommInitAll(comms.data(), n, nullptr));
    for (int r = 0; r < n; ++r) {
        Rank &k = ranks[size_t(r)];
        k.comm = comms[size_t(r)];
        CK(cudaSetDevice(r));
        CK(cudaStreamCreateWithFlags(&k.compute, cudaStreamNonBlocking));
        CK(cudaStreamCreateWithFlags(&k.comm_stream, cudaStreamNonBlocking));
        CK(cudaEventCreateWithFlags(&k.written, cudaEventDisableTiming));
        CK(cudaMalloc(&k.grads, kN * sizeof(float)));
    }
    CHECK(step(ranks, true, false) == n * kN);
    CHECK(step(ranks, true, true) == n * kN);
    CHECK(step(ranks, false, false) == 0); // the missing wait gives a wrong sum
    CHECK(step(ranks, false, true) == 0);
    CHECK(step(ranks, true, true) == n * kN);
    for (int r = 0; r < n; ++r) {
        Rank &k = ranks[size_t(r)];
        CK(cudaSetDevice(r));
        CK(cudaFree(k.grads));
        CK(cudaEventDestroy(k.written));
        CK(cudaStreamDestroy(k.compute));
        CK(cudaStreamDestroy(k.comm_stream));
        NC(ncclCommDestroy(k.comm));
    }
    return test_exit("nccl_lazy");
}
