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
