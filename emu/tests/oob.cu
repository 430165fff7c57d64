/* emu/tests/oob.cu - (d) out-of-bounds device memory accesses.
 *
 *   oob kernel     a kernel writes one element past a cudaMalloc'd block:
 *                  AddressSanitizer reports it (sanitizer build only; CTest
 *                  expects "AddressSanitizer" in the output).
 *   oob hostderef  host code reads a device pointer directly: ASan reports it
 *                  too, because device memory is poisoned outside device work.
 *   oob copy       cudaMemcpy / cudaMemset overrunning an allocation are
 *                  refused with cudaErrorInvalidValue by the allocation table
 *                  (every build).
 *   oob guard      (builds without ASan) the kernel writes one element past a
 *                  block, guard-before one before it, guard-smem past its
 *                  dynamic shared memory: the guard zones catch it, the launch
 *                  fails with the sticky cudaErrorIllegalAddress and a message
 *                  naming kernel, block and thread; the program sees the error
 *                  and exits 1 (CTest checks message and status with
 *                  expect_fail.sh; 0 means the write went unnoticed).
 *                  guard-far-before / -far-after / -page-before / -page-after
 *                  write hundreds or thousands of bytes away: still reported,
 *                  the emulator's own memory untouched.
 */
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

#include "test_util.h"

__global__ void write_n_plus_one(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) x[i] = 1.0f; /* off by one: i == n is past the end */
}

template <int OFFSET>
__global__ void write_at(float *x, int who)
{
    if (int(blockIdx.y * blockDim.x + threadIdx.x) == who) x[OFFSET] = 2.0f;
}

__global__ void smem_overrun(float *out, int n)
{
    extern __shared__ float s[];
    s[threadIdx.x] = float(threadIdx.x); /* n floats were asked for, blockDim.x > n */
    __syncthreads();
    if (threadIdx.x == 0) out[0] = s[0] + float(n);
}

/* The launch must fail with the sticky cudaErrorIllegalAddress: exit 1. */
static int expect_illegal_address(const char *what)
{
    cudaError_t e = cudaDeviceSynchronize();
    std::printf("oob %s: cudaDeviceSynchronize: %s\n", what, cudaGetErrorName(e));
    if (e != cudaErrorIllegalAddress) {
        std::printf("oob %s: the out-of-bounds write went unnoticed\n", what);
        return 0;
    }
    void *p = nullptr;
    CHECK(cudaMalloc(&p, 16) == cudaErrorIllegalAddress); /* sticky */
    CK(cudaDeviceReset());
    return g_test_failures ? 3 : 1;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "copy";
    const int n = 37;
    float *d;
    CK(cudaMalloc(&d, n * sizeof(float)));

    if (!std::strcmp(mode, "kernel")) {
        cudaLaunchConfig_t cfg = {};
        cfg.gridDim = dim3(2);
        cfg.blockDim = dim3(32);
        CK(cudaLaunchKernelEx(&cfg, write_n_plus_one, d, n));
        CK(cudaDeviceSynchronize());
        std::printf("oob kernel: the out-of-bounds write went unnoticed\n");
        return 1;
    }
    if (!std::strcmp(mode, "guard")) {
        write_n_plus_one<<<2, 32>>>(d, n);
        return expect_illegal_address(mode);
    }
    if (!std::strcmp(mode, "guard-before")) {
        write_at<-1><<<dim3(1, 3), 64>>>(d, 2 * 64 + 17); /* block (0,2,0), thread (17,0,0) */
        return expect_illegal_address(mode);
    }
    /* further away (#33 C3): 320 bytes before the block (the front zone),
     * 1000 bytes past its end (the back zone, checked after the kernel), and
     * beyond both zones (the inaccessible pages around the block) */
    if (!std::strcmp(mode, "guard-far-before")) {
        write_at<-80><<<dim3(1, 2), 64>>>(d, 64 + 5); /* block (0,1,0), thread (5,0,0) */
        return expect_illegal_address(mode);
    }
    if (!std::strcmp(mode, "guard-far-after")) {
        write_at<n + 250><<<dim3(1, 2), 64>>>(d, 3);
        return expect_illegal_address(mode);
    }
    if (!std::strcmp(mode, "guard-page-before")) {
        write_at<-200><<<dim3(1, 3), 64>>>(d, 2 * 64 + 9); /* block (0,2,0), thread (9,0,0) */
        return expect_illegal_address(mode);
    }
    if (!std::strcmp(mode, "guard-page-after")) {
        write_at<n + 1100><<<dim3(1, 2), 64>>>(d, 64 + 40); /* block (0,1,0), thread (40,0,0) */
        return expect_illegal_address(mode);
    }
    if (!std::strcmp(mode, "guard-smem")) {
        smem_overrun<<<3, 64, 60 * sizeof(float)>>>(d, 60);
        return expect_illegal_address(mode);
    }
    if (!std::strcmp(mode, "hostderef")) {
        volatile float *p = d;
        float x = p[3]; /* a host read of device memory */
        std::printf("oob hostderef: the host read a device pointer unnoticed (%f)\n", x);
        return 1;
    }

    float h[n + 1] = {};
    CHECK(cudaMemcpy(d, h, (n + 1) * sizeof(float), cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    CHECK(cudaMemcpy(h, d + 1, n * sizeof(float), cudaMemcpyDeviceToHost) == cudaErrorInvalidValue);
    CHECK(cudaMemcpy(d + n, h, sizeof(float), cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
    CHECK(cudaMemset(d + 2, 0, n * sizeof(float)) == cudaErrorInvalidValue);
    CHECK(cudaMemcpyAsync(d, h, (n + 1) * sizeof(float), cudaMemcpyHostToDevice, 0) ==
          cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    /* the exact size is fine */
    CK(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(h, d + 1, (n - 1) * sizeof(float), cudaMemcpyDeviceToHost));
    CK(cudaMemset(d + 2, 0, (n - 2) * sizeof(float)));
    CK(cudaFree(d));
    return test_exit("oob");
}
