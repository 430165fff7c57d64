// emu/tests/nccl_errors.cu - what the emulated NCCL refuses, and how.
//
//   nccl_errors               argument checks (NCCL's codes, ncclGetLastError's
//                             text), buffers that are not the comm's device
//                             memory, an id from another process (a forked
//                             child): "nccl_errors: all checks passed"
//   nccl_errors never-called  rank 1 never calls the all-reduce: the
//                             synchronize fails with one line, no hang
//   nccl_errors cycle         rank 1's stream waits for an event recorded
//                             after rank 0's all-reduce before its own: a
//                             dependency cycle, one line, no hang
//   nccl_errors mismatch      ranks disagree on the count: one line
#include <nccl.h>

#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "test_util.h"

static bool last_error_has(const char *text)
{
    const char *e = ncclGetLastError(nullptr);
    if (std::strstr(e, text)) return true;
    std::fprintf(stderr, "ncclGetLastError: \"%s\" lacks \"%s\"\n", e, text);
    return false;
}

static void arguments(ncclComm_t *comms, cudaStream_t *streams)
{
    int v = 0;
    NC(ncclGetVersion(&v));
    CHECK(v == NCCL_VERSION_CODE && v == NCCL_VERSION(2, 28, 9));
    CHECK(ncclGetVersion(nullptr) == ncclInvalidArgument);
    CHECK(!std::strcmp(ncclGetErrorString(ncclSuccess), "no error"));
    CHECK(std::strlen(ncclGetErrorString(ncclInvalidUsage)) > 0);
    CHECK(std::strlen(ncclGetErrorString(ncclResult_t(99))) > 0);

    float *d0, *d1, *pinned;
    CK(cudaSetDevice(1));
    CK(cudaMalloc(&d1, 64 * sizeof(float)));
    CK(cudaSetDevice(0));
    CK(cudaMalloc(&d0, 64 * sizeof(float)));
    CK(cudaMallocHost(&pinned, 64 * sizeof(float)));
    std::vector<float> host(64);
    ncclComm_t c = comms[0];
    cudaStream_t s = streams[0];

    CHECK(ncclAllReduce(d0, d0, 64, ncclFloat, ncclSum, nullptr, s) == ncclInvalidArgument);
    CHECK(last_error_has("comm is NULL"));
    CHECK(ncclAllReduce(d0, d0, 64, ncclDataType_t(12), ncclSum, c, s) == ncclInvalidArgument);
    CHECK(last_error_has("invalid data type 12"));
    CHECK(ncclAllReduce(d0, d0, 64, ncclFloat, ncclRedOp_t(5), c, s) == ncclInvalidArgument);
    CHECK(last_error_has("invalid reduction operation 5"));
    CHECK(ncclReduce(d0, d0, 64, ncclFloat, ncclSum, 2, c, s) == ncclInvalidArgument);
    CHECK(last_error_has("invalid root 2"));
    CHECK(ncclBroadcast(d0, d0, 64, ncclFloat, -1, c, s) == ncclInvalidArgument);
    CHECK(ncclAllReduce(d0, nullptr, 64, ncclFloat, ncclSum, c, s) == ncclInvalidArgument);
    CHECK(last_error_has("recvbuff (nil) (256 bytes) is NULL"));
    // not the comm's device memory (each also prints one line)
    CHECK(ncclAllReduce(host.data(), d0, 64, ncclFloat, ncclSum, c, s) == ncclInvalidArgument);
    CHECK(last_error_has("is not device memory"));
    CHECK(ncclAllReduce(pinned, d0, 64, ncclFloat, ncclSum, c, s) == ncclInvalidArgument);
    CHECK(last_error_has("is pinned host memory"));
    CHECK(ncclAllReduce(d1, d0, 64, ncclFloat, ncclSum, c, s) == ncclInvalidArgument);
    CHECK(last_error_has("is memory of device 1, not of the comm's device 0"));
    CHECK(ncclAllGather(d0, d0, 64, ncclFloat, c, s) == ncclInvalidArgument); // needs 2 x 64
    CHECK(last_error_has("overruns its allocation"));
    CHECK(ncclAllReduce(d0, d0, 64, ncclFloat, ncclSum, c, streams[1]) == ncclInvalidArgument);
    CHECK(last_error_has("belongs to device 1"));
    CHECK(ncclAllReduce(d0, d0, 64, ncclFloat8e4m3, ncclSum, c, s) == ncclInvalidArgument);
    CHECK(last_error_has("not emulated"));
    // a premultiplied sum is made for one data type and one comm
    ncclRedOp_t op;
    float two = 2;
    NC(ncclRedOpCreatePreMulSum(&op, &two, ncclFloat, ncclScalarHostImmediate, c));
    CHECK(ncclAllReduce(d0, d0, 32, ncclDouble, op, c, s) == ncclInvalidArgument);
    CHECK(last_error_has("was made for ncclFloat32, not ncclFloat64"));
    CHECK(ncclAllReduce(d1, d1, 64, ncclFloat, op, comms[1], streams[1]) == ncclInvalidArgument);
    CHECK(ncclRedOpDestroy(ncclSum, c) == ncclInvalidArgument);
    CHECK(ncclRedOpDestroy(op, comms[1]) == ncclInvalidArgument);
    NC(ncclRedOpDestroy(op, c));
    CHECK(ncclRedOpDestroy(op, c) == ncclInvalidArgument);
    CHECK(ncclRedOpCreatePreMulSum(&op, host.data(), ncclFloat, ncclScalarDevice, c) ==
          ncclInvalidArgument);
    // queries
    int k;
    CHECK(ncclCommCount(nullptr, &k) == ncclInvalidArgument);
    CHECK(ncclCommCount(c, nullptr) == ncclInvalidArgument);
    CHECK(ncclCommUserRank(c, nullptr) == ncclInvalidArgument);
    CHECK(ncclCommCuDevice(nullptr, &k) == ncclInvalidArgument);
    // groups
    CHECK(ncclGroupEnd() == ncclInvalidUsage);
    NC(ncclGroupStart());
    CHECK(ncclAllReduce(d0, d0, 64, ncclFloat, ncclMax, nullptr, s) == ncclInvalidArgument);
    CHECK(ncclGroupEnd() == ncclInvalidArgument); // the group's error again
    // communicator creation
    ncclComm_t extra[2];
    int twice[2] = {1, 1}, bad[2] = {0, 7};
    CHECK(ncclCommInitAll(extra, 2, twice) == ncclInvalidUsage);
    CHECK(ncclCommInitAll(extra, 2, bad) == ncclInvalidArgument);
    CHECK(ncclCommInitAll(extra, 0, nullptr) == ncclInvalidArgument);
    CHECK(ncclCommInitAll(nullptr, 2, nullptr) == ncclInvalidArgument);
    ncclUniqueId id;
    CHECK(ncclGetUniqueId(nullptr) == ncclInvalidArgument);
    NC(ncclGetUniqueId(&id));
    ncclComm_t one;
    CHECK(ncclCommInitRank(&one, 2, id, 2) == ncclInvalidArgument);
    CHECK(ncclCommInitRank(&one, 0, id, 0) == ncclInvalidArgument);
    ncclUniqueId junk;
    std::memset(&junk, 7, sizeof junk);
    CHECK(ncclCommInitRank(&one, 1, junk, 0) == ncclInvalidArgument);
    CHECK(last_error_has("not made by ncclGetUniqueId"));
    NC(ncclCommInitRank(&one, 1, id, 0)); // a comm of one rank needs no one else
    NC(ncclAllReduce(d0, d0, 64, ncclFloat, ncclSum, one, s));
    NC(ncclCommDestroy(one));
    NC(ncclCommDestroy(nullptr));
    CHECK(ncclCommDestroy(one) == ncclInvalidArgument); // destroyed already

    CK(cudaStreamSynchronize(s));
    CK(cudaFree(d0));
    CK(cudaFree(d1));
    CK(cudaFreeHost(pinned));
}

// A child process (fork) tries to join with the parent's id.
static void cross_process()
{
    ncclUniqueId id;
    NC(ncclGetUniqueId(&id));
    std::fflush(nullptr);
    pid_t pid = fork();
    if (pid == 0) {
        ncclComm_t c = nullptr;
        ncclResult_t r = ncclCommInitRank(&c, 2, id, 1);
        _exit(r == ncclInvalidUsage && c == nullptr &&
                      std::strstr(ncclGetLastError(nullptr), "across processes are not emulated")
                  ? 0
                  : 1);
    }
    int status = -1;
    CHECK(pid > 0 && waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static float *alloc_on(int d)
{
    float *p;
    CK(cudaSetDevice(d));
    CK(cudaMalloc(&p, 16 * sizeof(float)));
    return p;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    std::vector<ncclComm_t> comms(2);
    cudaStream_t streams[2];
    NC(ncclCommInitAll(comms.data(), 2, nullptr));
    for (int r = 0; r < 2; ++r) {
        CK(cudaSetDevice(r));
        CK(cudaStreamCreate(&streams[r]));
    }
    if (!std::strcmp(mode, "never-called")) {
        float *x = alloc_on(0);
        NC(ncclAllReduce(x, x, 16, ncclFloat, ncclSum, comms[0], streams[0]));
        cudaError_t e = cudaStreamSynchronize(streams[0]);
        CHECK(e == cudaErrorLaunchFailure);
        ncclResult_t async = ncclSuccess;
        NC(ncclCommGetAsyncError(comms[0], &async));
        CHECK(async == ncclInvalidUsage);
        CK(cudaDeviceReset());
        return test_exit("nccl_errors never-called");
    }
    if (!std::strcmp(mode, "cycle")) {
        float *x0 = alloc_on(0), *x1 = alloc_on(1);
        cudaEvent_t after0;
        CK(cudaSetDevice(0));
        CK(cudaEventCreate(&after0));
        NC(ncclAllReduce(x0, x0, 16, ncclFloat, ncclSum, comms[0], streams[0]));
        CK(cudaEventRecord(after0, streams[0]));
        CK(cudaSetDevice(1));
        CK(cudaStreamWaitEvent(streams[1], after0, 0));
        NC(ncclAllReduce(x1, x1, 16, ncclFloat, ncclSum, comms[1], streams[1]));
        CK(cudaSetDevice(0));
        CHECK(cudaStreamSynchronize(streams[0]) == cudaErrorLaunchFailure);
        CK(cudaDeviceReset());
        CK(cudaSetDevice(1));
        CK(cudaDeviceReset());
        return test_exit("nccl_errors cycle");
    }
    if (!std::strcmp(mode, "mismatch")) {
        float *x0 = alloc_on(0), *x1 = alloc_on(1);
        NC(ncclAllReduce(x0, x0, 16, ncclFloat, ncclSum, comms[0], streams[0]));
        CHECK(ncclAllReduce(x1, x1, 15, ncclFloat, ncclSum, comms[1], streams[1]) == ncclInvalidUsage);
        CK(cudaSetDevice(0)); // rank 1 never joins: rank 0's all-reduce fails
        CHECK(cudaStreamSynchronize(streams[0]) == cudaErrorLaunchFailure);
        CK(cudaDeviceReset());
        CK(cudaSetDevice(1));
        CK(cudaFree(x1));
        return test_exit("nccl_errors mismatch");
    }
    arguments(comms.data(), streams);
    cross_process();
    for (int r = 0; r < 2; ++r) {
        CK(cudaSetDevice(r));
        CK(cudaStreamDestroy(streams[r]));
        NC(ncclCommDestroy(comms[size_t(r)]));
    }
    return test_exit("nccl_errors");
}
