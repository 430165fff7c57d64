/* emu/tests/watchdog.cu - no kernel hangs silently (#33 H4, H5).
 *
 *   watchdog spin      thread 0 of a block spins on a volatile flag that a
 *                      thread of another warp sets, then on an atomic one: the
 *                      time slices let the setter run (as warps make forward
 *                      progress on a GPU); exits 0 with the right values.
 *   watchdog endless   one thread of block 1 loops forever: with
 *                      CUDAEMU_KERNEL_TIMEOUT_S=1 the launch fails with
 *                      cudaErrorLaunchTimeout and a line naming kernel, block
 *                      and thread; exits 1.
 *   watchdog barrier   every thread but one waits at __syncthreads(), that
 *                      one spins forever: the line counts the waiting ones.
 *   watchdog exit      (progress thread on, watchdog off) main returns 3
 *                      while the progress thread runs an endless kernel: the
 *                      process exits with 3 at once, saying the kernel ended.
 */
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>

#include "test_util.h"

__global__ void spin_on_flags(int *out, int *flag)
{
    if (threadIdx.x == 0) {
        while (*(volatile int *)flag == 0) { /* set by thread 40, another warp */ }
        while (atomicAdd(flag + 1, 0) == 0) { /* set by thread 63 */ }
        out[0] = *(volatile int *)flag + flag[1];
    } else if (threadIdx.x == 40) {
        *(volatile int *)flag = 5;
    } else if (threadIdx.x == 63) {
        atomicExch(flag + 1, 7);
    }
}

__global__ void endless(volatile int *never, int who_block, int who_thread)
{
    if (int(blockIdx.x) == who_block && int(threadIdx.x) == who_thread)
        while (*never == 0) { }
}

__global__ void barrier_never_reached(volatile int *never)
{
    if (threadIdx.x == 7)
        while (*never == 0) { }
    else
        __syncthreads();
}

static int expect_timeout(const char *what)
{
    cudaError_t e = cudaDeviceSynchronize();
    std::printf("watchdog %s: cudaDeviceSynchronize: %s\n", what, cudaGetErrorName(e));
    CHECK(e == cudaErrorLaunchTimeout);
    void *p = nullptr;
    CHECK(cudaMalloc(&p, 16) == cudaErrorLaunchTimeout); /* sticky */
    return g_test_failures ? 3 : 1;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "spin";
    int *flag;
    CK(cudaMalloc(&flag, 2 * sizeof(int)));
    CK(cudaMemset(flag, 0, 2 * sizeof(int)));
    if (!std::strcmp(mode, "spin")) {
        int *out, h = 0;
        CK(cudaMalloc(&out, sizeof(int)));
        spin_on_flags<<<2, 64>>>(out, flag);
        CK(cudaGetLastError());
        CK(cudaMemcpy(&h, out, sizeof h, cudaMemcpyDeviceToHost));
        CHECK_EQ_INT(h, 12);
        CK(cudaFree(out));
        CK(cudaFree(flag));
        return test_exit("watchdog spin");
    }
    if (!std::strcmp(mode, "endless")) {
        endless<<<3, 32>>>(flag, 1, 3);
        return expect_timeout(mode);
    }
    if (!std::strcmp(mode, "barrier")) {
        barrier_never_reached<<<1, 64>>>(flag);
        return expect_timeout(mode);
    }
    if (!std::strcmp(mode, "exit")) {
        endless<<<1, 32>>>(flag, 0, 0);
        /* outside the API: the progress thread picks the kernel up */
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        std::printf("watchdog exit: returning 3 from main while the kernel runs\n");
        std::fflush(stdout);
        return 3;
    }
    std::fprintf(stderr, "unknown mode %s\n", mode);
    return 2;
}
