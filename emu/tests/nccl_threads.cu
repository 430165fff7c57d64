// emu/tests/nccl_threads.cu - NCCL communicators made by ncclCommInitRank:
// from one host thread per rank (each after cudaSetDevice; each call waits
// for the others), and for every rank from one thread inside
// ncclGroupStart/ncclGroupEnd.  A rank's thread may synchronize before the
// other ranks have even called the collective (they start late on purpose):
// it waits for them, with the emulator's lock released.
//
//   nccl_threads            the checks above ("nccl_threads: all checks passed")
//   nccl_threads timeout    rank 1's thread is alive but never calls: rank 0's
//                           synchronize fails after CUDAEMU_NCCL_TIMEOUT_MS
#include <nccl.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "test_util.h"

static const size_t kCount = 300;

static void rank_main(int r, int n, ncclUniqueId id, int delay_ms, int *failures)
{
    int bad = 0;
    CK(cudaSetDevice(r));
    ncclComm_t comm;
    NC(ncclCommInitRank(&comm, n, id, r));
    int rank = -1, dev = -1;
    NC(ncclCommUserRank(comm, &rank));
    NC(ncclCommCuDevice(comm, &dev));
    bad += rank != r || dev != r;
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    int32_t *buf, *all;
    CK(cudaMalloc(&buf, kCount * sizeof(int32_t)));
    CK(cudaMalloc(&all, n * kCount * sizeof(int32_t)));
    std::vector<int32_t> h(kCount);
    for (size_t i = 0; i < kCount; ++i) h[i] = int32_t(i) * (r + 1);
    CK(cudaMemcpy(buf, h.data(), kCount * sizeof(int32_t), cudaMemcpyHostToDevice));
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    NC(ncclAllGather(buf, all, kCount, ncclInt32, comm, s));
    NC(ncclAllReduce(buf, buf, kCount, ncclInt32, ncclSum, comm, s));
    CK(cudaStreamSynchronize(s));
    CK(cudaMemcpy(h.data(), buf, kCount * sizeof(int32_t), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < kCount; ++i) bad += h[i] != int32_t(i) * (n * (n + 1) / 2);
    std::vector<int32_t> g(n * kCount);
    CK(cudaMemcpy(g.data(), all, g.size() * sizeof(int32_t), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < g.size(); ++i) bad += g[i] != int32_t(i % kCount) * int32_t(i / kCount + 1);
    CK(cudaFree(buf));
    CK(cudaFree(all));
    CK(cudaStreamDestroy(s));
    NC(ncclCommDestroy(comm));
    *failures = bad;
}

// one thread per rank; rank 0 starts first and synchronizes before the others call
static void threads(int n)
{
    ncclUniqueId id;
    NC(ncclGetUniqueId(&id));
    std::vector<int> failures(static_cast<size_t>(n), -1);
    std::vector<std::thread> t;
    for (int r = 0; r < n; ++r) t.emplace_back(rank_main, r, n, id, r * 30, &failures[size_t(r)]);
    for (auto &x : t) x.join();
    for (int r = 0; r < n; ++r) CHECK_EQ_INT(failures[size_t(r)], 0);
}

// ncclCommInitRank for every rank from this thread, in a group
static void group_init(int n)
{
    ncclUniqueId id;
    NC(ncclGetUniqueId(&id));
    std::vector<ncclComm_t> comms(static_cast<size_t>(n));
    std::vector<double *> buf(static_cast<size_t>(n));
    NC(ncclGroupStart());
    for (int r = 0; r < n; ++r) {
        CK(cudaSetDevice(r));
        NC(ncclCommInitRank(&comms[size_t(r)], n, id, r));
    }
    NC(ncclGroupEnd());
    for (int r = 0; r < n; ++r) {
        CK(cudaSetDevice(r));
        CK(cudaMalloc(&buf[size_t(r)], sizeof(double)));
        const double v = r == 1 ? 42.5 : -1;
        CK(cudaMemcpy(buf[size_t(r)], &v, sizeof v, cudaMemcpyHostToDevice));
    }
    NC(ncclGroupStart());
    for (int r = 0; r < n; ++r) // the legacy stream of each comm's device
        NC(ncclBroadcast(buf[size_t(r)], buf[size_t(r)], 1, ncclDouble, 1, comms[size_t(r)], 0));
    NC(ncclGroupEnd());
    for (int r = n - 1; r >= 0; --r) {
        CK(cudaSetDevice(r));
        double v = 0;
        CK(cudaMemcpy(&v, buf[size_t(r)], sizeof v, cudaMemcpyDeviceToHost));
        CHECK(v == 42.5);
        CK(cudaFree(buf[size_t(r)]));
        NC(ncclCommDestroy(comms[size_t(r)]));
    }
}

// rank 1's thread joins, stays alive, and never calls the all-reduce
static void timeout()
{
    ncclUniqueId id;
    NC(ncclGetUniqueId(&id));
    ncclComm_t c1 = nullptr;
    std::atomic<bool> done{false};
    std::thread t([&] {
        CK(cudaSetDevice(1));
        NC(ncclCommInitRank(&c1, 2, id, 1));
        while (!done.load()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    });
    ncclComm_t c0;
    CK(cudaSetDevice(0));
    NC(ncclCommInitRank(&c0, 2, id, 0));
    float *x;
    CK(cudaMalloc(&x, sizeof(float)));
    NC(ncclAllReduce(x, x, 1, ncclFloat, ncclSum, c0, 0));
    const auto t0 = std::chrono::steady_clock::now();
    cudaError_t e = cudaDeviceSynchronize();
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    done = true;
    t.join();
    CHECK(e == cudaErrorLaunchFailure);
    CHECK(ms >= 150);
    ncclResult_t async = ncclSuccess;
    NC(ncclCommGetAsyncError(c0, &async));
    CHECK(async == ncclInvalidUsage);
    NC(ncclCommAbort(c0));
    NC(ncclCommAbort(c1));
    CK(cudaDeviceReset()); // the sticky error goes, and x with it
    std::printf("timeout: error after %.0f ms\n", ms);
}

int main(int argc, char **argv)
{
    int n = 0;
    CK(cudaGetDeviceCount(&n));
    CHECK(n >= 2);
    if (argc > 1 && !std::strcmp(argv[1], "timeout")) {
        timeout();
        return test_exit("nccl_threads timeout");
    }
    threads(n);
    group_init(n);
    threads(n);
    return test_exit("nccl_threads");
}
