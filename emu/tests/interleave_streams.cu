/* emu/tests/interleave_streams.cu - CUDAEMU_INTERLEAVE=1 runs kernels of
 * different streams interleaved (issue #29 item 3): two kernels on two
 * non-blocking streams, with no dependency between them, are resident
 * together, so a non-atomic read-modify-write of one global counter loses
 * updates as on a GPU; with a cudaStreamWaitEvent between them, on the
 * legacy stream after a blocking one, or with atomics, the count is right.
 * Registered with the option off and on (emu.interleave_streams.* and
 * emu.interleave_streams.on.*); the program reads the option to know what
 * to expect.
 *
 *   interleave_streams         every check below
 *   interleave_streams race    prints the racy count (the check runs it twice
 *                              as a child: the same seed gives the same count)
 *   interleave_streams fault   (on only) kernel `faulty` traps while kernel
 *                              `steady` of another stream is resident: the
 *                              message must name `faulty`, the sync fail
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#include "test_util.h"

constexpr int kAdds = 64;

/* One thread adds 1 to *count kAdds times, read and written apart: a lost
 * update when the other stream's kernel writes in between.  inside/most:
 * how many of these kernels run at once. */
__global__ void add_racy(int *count, int *inside, int *most)
{
    atomicMax(most, atomicAdd(inside, 1) + 1);
    for (int i = 0; i < kAdds; ++i) {
        int tmp = *count;
        int w = (i * 7) & 3;
        *count = tmp + 1 + (w & 0);
    }
    atomicSub(inside, 1);
}

__global__ void add_atomic(int *count)
{
    for (int i = 0; i < kAdds; ++i) atomicAdd(count, 1);
}

/* How the two kernels are ordered: not at all (two non-blocking streams
 * and a device synchronize, or two blocking streams that the legacy
 * stream's blocking copy waits for), an event wait, the legacy stream
 * after a blocking one; or their adds are atomic. */
enum Mode { NO_DEP, BLOCKING_PAIR, WAIT_EVENT, LEGACY_AFTER, ATOMIC };

struct Result {
    int count, most;
};

static Result run_pair(Mode mode)
{
    int *d;
    CK(cudaMalloc(&d, 3 * sizeof(int)));
    CK(cudaMemset(d, 0, 3 * sizeof(int)));
    CK(cudaDeviceSynchronize()); /* non-blocking streams do not wait for the legacy stream */
    cudaStream_t a, b;
    const bool blocking = mode == BLOCKING_PAIR;
    CK(cudaStreamCreateWithFlags(&a, blocking || mode == LEGACY_AFTER ? cudaStreamDefault
                                                                     : cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&b, blocking ? cudaStreamDefault : cudaStreamNonBlocking));
    cudaEvent_t done_a;
    CK(cudaEventCreateWithFlags(&done_a, cudaEventDisableTiming));
    if (mode == ATOMIC) add_atomic<<<1, 1, 0, a>>>(d);
    else add_racy<<<1, 1, 0, a>>>(d, d + 1, d + 2);
    CK(cudaGetLastError());
    CK(cudaEventRecord(done_a, a));
    if (mode == WAIT_EVENT) CK(cudaStreamWaitEvent(b, done_a, 0));
    cudaStream_t second = mode == LEGACY_AFTER ? cudaStreamLegacy : b;
    if (mode == ATOMIC) add_atomic<<<1, 1, 0, second>>>(d);
    else add_racy<<<1, 1, 0, second>>>(d, d + 1, d + 2);
    CK(cudaGetLastError());
    if (!blocking) CK(cudaDeviceSynchronize()); /* else the copy waits for both streams */
    int h[3] = {-1, -1, -1};
    CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    CHECK_EQ_INT(h[1], 0);
    CK(cudaEventDestroy(done_a));
    CK(cudaStreamDestroy(a));
    CK(cudaStreamDestroy(b));
    CK(cudaFree(d));
    return Result{h[0], h[2]};
}

/* steady counts on until faulty has seen it start; faulty then traps. */
__global__ void steady(volatile int *progress)
{
    for (int i = 0; i < 4 * kAdds; ++i) {
        int v = *progress;
        *progress = v + 1;
    }
}

__global__ void faulty(volatile int *progress)
{
    int spins = 0;
    while (*progress == 0) {
        ++spins;
    }
    if (spins >= 0) __trap();
}

static int run_fault()
{
    int *progress;
    CK(cudaMallocManaged(&progress, sizeof(int)));
    *progress = 0;
    cudaStream_t a, b;
    CK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
    faulty<<<1, 1, 0, a>>>(progress);
    CK(cudaGetLastError());
    steady<<<1, 1, 0, b>>>(progress);
    CK(cudaGetLastError());
    const cudaError_t e = cudaDeviceSynchronize();
    std::printf("cudaDeviceSynchronize: %s, steady's progress %d\n", cudaGetErrorName(e),
                *progress);
    CHECK_EQ_INT(e, cudaErrorLaunchFailure);
    CHECK(*progress > 0); /* steady ran before faulty's trap: both were resident */
    return g_test_failures ? 3 : 1; /* 1: the fault, as expected */
}

int main(int argc, char **argv)
{
    if (argc > 1 && !std::strcmp(argv[1], "race")) {
        std::printf("%d\n", run_pair(NO_DEP).count);
        return 0;
    }
    if (argc > 1 && !std::strcmp(argv[1], "fault")) return run_fault();
    const char *il = std::getenv("CUDAEMU_INTERLEAVE");
    const bool on = il && !std::strcmp(il, "1");
    const int right = 2 * kAdds;

    const Result racy = run_pair(NO_DEP);
    std::printf("racy count %d (right %d), %d kernel(s) at once, interleave %s\n", racy.count,
                right, racy.most, on ? "on" : "off");
    if (on) {
        CHECK(racy.count < right && racy.count >= kAdds);
        CHECK_EQ_INT(racy.most, 2);
        check_same_again(argv[0], "race", racy.count); /* the same seed, the same count */
    } else {
        CHECK_EQ_INT(racy.count, right);
        CHECK_EQ_INT(racy.most, 1);
    }
    const Result pair = run_pair(BLOCKING_PAIR);
    std::printf("blocking pair: count %d, %d kernel(s) at once\n", pair.count, pair.most);
    if (on) {
        CHECK(pair.count < right && pair.count >= kAdds);
        CHECK_EQ_INT(pair.most, 2);
    } else {
        CHECK_EQ_INT(pair.count, right);
        CHECK_EQ_INT(pair.most, 1);
    }
    for (Mode m : {WAIT_EVENT, LEGACY_AFTER, ATOMIC}) {
        const Result r = run_pair(m);
        std::printf("mode %d: count %d, %d kernel(s) at once\n", int(m), r.count, r.most);
        CHECK_EQ_INT(r.count, right);
        if (m != ATOMIC) CHECK_EQ_INT(r.most, 1);
    }
    if (g_test_failures) return 1;
    std::printf("interleave_streams: all checks passed\n");
    return 0;
}
