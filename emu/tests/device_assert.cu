/* emu/tests/device_assert.cu - a failing assert() in a kernel fails the launch
 * with cudaErrorAssert, as on a GPU, instead of aborting the process.
 *
 * Threads 40..63 of a 2x32 grid fail `i < n`.  The launch itself succeeds;
 * the next synchronizing call returns cudaErrorAssert, which is sticky (later
 * calls return it too), and the process lives on to say so.  The message
 * (`file:line: function: block: [1,0,0], thread: [t,0,0] Assertion `i < n`
 * failed.`) is matched by the test's REGEX.
 */
#undef NDEBUG /* Release builds define it; this test needs its assert */
#include <cuda_runtime.h>

#include <cassert>
#include <cstdio>

#include "test_util.h"

__global__ void check_index(int *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    assert(i < n);
    x[i] = i;
}

int main()
{
    const int n = 40;
    int *d = nullptr;
    CK(cudaMalloc(&d, 64 * sizeof(int)));
    check_index<<<2, 32>>>(d, n);
    CHECK(cudaGetLastError() == cudaSuccess); /* the launch is fine; running it is not */
    cudaError_t e = cudaDeviceSynchronize();
    std::printf("device_assert: cudaDeviceSynchronize returned %s\n", cudaGetErrorName(e));
    CHECK(e == cudaErrorAssert);
    CHECK(cudaGetLastError() == cudaErrorAssert);     /* sticky */
    void *p = nullptr;
    CHECK(cudaMalloc(&p, 16) == cudaErrorAssert);     /* every call, until a reset */
    CK(cudaDeviceReset());
    CK(cudaMalloc(&d, 64 * sizeof(int)));
    check_index<<<1, 32>>>(d, 64);                    /* passing asserts cost nothing */
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaFree(d));
    return test_exit("device_assert");
}
