/* emu/tests/launch_config.cu - (f) launch configurations are validated with
 * CUDA's error codes, returned by cudaLaunchKernelEx and visible through
 * cudaPeekAtLastError / cudaGetLastError (which clears them); a rejected
 * launch runs nothing.  Also: dynamic shared memory above 48 KiB after
 * cudaFuncSetAttribute, its 0xFF fill, argument conversion, template kernels
 * and the typed cudaLaunchKernel form.
 */
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstring>

#include "test_util.h"

#include "../../harness/dynamic_shared.h"

__global__ void mark(int *out) { out[0] = 1; }

/* Each block checks that its dynamic smem starts as 0xFF bytes, fills it, sums it. */
__global__ void use_smem(int *out, int words)
{
    DYNAMIC_SHARED(unsigned, smem);
    int bad = 0;
    for (int i = threadIdx.x; i < words; i += blockDim.x) bad += smem[i] != 0xffffffffu;
    __syncthreads();
    for (int i = threadIdx.x; i < words; i += blockDim.x) smem[i] = unsigned(i);
    __syncthreads();
    if (threadIdx.x == 0) {
        long long s = 0;
        for (int i = 0; i < words; ++i) s += smem[i];
        out[blockIdx.x * 2] = int(s % 1000003);
    }
    atomicAdd(&out[blockIdx.x * 2 + 1], bad);
}

template <typename T, int SCALE>
__global__ void scale(T *x, T factor, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * factor * T(SCALE);
}

static cudaError_t launch(dim3 grid, dim3 block, size_t smem, int *out)
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = smem;
    return cudaLaunchKernelEx(&cfg, mark, out);
}

static void expect_launch_error(dim3 grid, dim3 block, size_t smem, int *d, cudaError_t want,
                                const char *what)
{
    cudaError_t e = launch(grid, block, smem, d);
    if (e != want)
        std::fprintf(stderr, "%s: got %s, want %s\n", what, cudaGetErrorName(e), cudaGetErrorName(want));
    CHECK(e == want);
    CHECK(cudaPeekAtLastError() == want); /* peek does not clear */
    CHECK(cudaGetLastError() == want);     /* get returns it and clears */
    CHECK(cudaGetLastError() == cudaSuccess);
}

int main()
{
    int *d;
    CK(cudaMalloc(&d, sizeof(int)));
    CK(cudaMemset(d, 0, sizeof(int)));

    expect_launch_error(dim3(1), dim3(1025), 0, d, cudaErrorInvalidConfiguration, "1025 threads");
    expect_launch_error(dim3(1), dim3(32, 32, 2), 0, d, cudaErrorInvalidConfiguration, "32x32x2 threads");
    expect_launch_error(dim3(1), dim3(1, 1, 65), 0, d, cudaErrorInvalidConfiguration, "blockDim.z 65");
    expect_launch_error(dim3(1), dim3(0, 1, 1), 0, d, cudaErrorInvalidConfiguration, "zero block");
    expect_launch_error(dim3(0, 1, 1), dim3(32), 0, d, cudaErrorInvalidConfiguration, "zero grid x");
    expect_launch_error(dim3(4, 0, 1), dim3(32), 0, d, cudaErrorInvalidConfiguration, "zero grid y");
    expect_launch_error(dim3(1, 65536, 1), dim3(32), 0, d, cudaErrorInvalidConfiguration, "grid y 65536");
    expect_launch_error(dim3(1, 1, 65536), dim3(32), 0, d, cudaErrorInvalidConfiguration, "grid z 65536");
    expect_launch_error(dim3(1), dim3(32), 48 * 1024 + 1, d, cudaErrorInvalidValue, "48 KiB + 1 smem");

    cudaLaunchConfig_t bad_stream = {};
    bad_stream.gridDim = dim3(1);
    bad_stream.blockDim = dim3(1);
    bad_stream.stream = reinterpret_cast<cudaStream_t>(0x1234);
    CHECK(cudaLaunchKernelEx(&bad_stream, mark, d) == cudaErrorInvalidResourceHandle);
    CHECK(cudaGetLastError() == cudaErrorInvalidResourceHandle);

    /* nothing ran */
    int h = -1;
    CK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    CHECK_EQ_INT(h, 0);
    CK(launch(dim3(1), dim3(1024), 0, d)); /* the largest legal block */
    CK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    CHECK_EQ_INT(h, 1);

    /* dynamic shared memory: 100000 bytes needs the attribute */
    const int words = 25000, blocks = 3;
    int *out;
    CK(cudaMalloc(&out, blocks * 2 * sizeof(int)));
    CK(cudaMemset(out, 0, blocks * 2 * sizeof(int)));
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(blocks);
    cfg.blockDim = dim3(128);
    cfg.dynamicSmemBytes = words * 4;
    CHECK(cudaLaunchKernelEx(&cfg, use_smem, out, words) == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    CHECK(cudaFuncSetAttribute(use_smem, cudaFuncAttributeMaxDynamicSharedMemorySize, 300 * 1024) ==
          cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    CK(cudaFuncSetAttribute(use_smem, cudaFuncAttributeMaxDynamicSharedMemorySize, words * 4));
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, use_smem));
    CHECK_EQ_INT(fa.maxDynamicSharedSizeBytes, words * 4);
    CK(cudaLaunchKernelEx(&cfg, use_smem, out, words));
    int hout[blocks * 2];
    CK(cudaMemcpy(hout, out, sizeof hout, cudaMemcpyDeviceToHost));
    long long expect = 0;
    for (int i = 0; i < words; ++i) expect += i;
    for (int b = 0; b < blocks; ++b) {
        CHECK_EQ_INT(hout[b * 2], expect % 1000003);
#ifdef __CUDAEMU__
        CHECK_EQ_INT(hout[b * 2 + 1], 0); /* every block started from 0xFF bytes */
#endif
    }
    cfg.dynamicSmemBytes = words * 4 + 4;
    CHECK(cudaLaunchKernelEx(&cfg, use_smem, out, words + 1) == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);

    /* a template kernel; arguments converted to the parameter types (int -> float, double -> float) */
    float hx[5] = {1, 2, 3, 4, 5};
    float *x;
    CK(cudaMalloc(&x, sizeof hx));
    CK(cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice));
    cudaLaunchConfig_t c3 = {};
    c3.gridDim = dim3(1);
    c3.blockDim = dim3(8);
    CK(cudaLaunchKernelEx(&c3, scale<float, 2>, x, 1.5, 5L));
    float f2 = 0.5f;
    int n5 = 5;
    void *args[] = {&x, &f2, &n5};
    CK(cudaLaunchKernel(scale<float, 2>, dim3(1), dim3(8), args, 0, 0));
    CK(cudaMemcpy(hx, x, sizeof hx, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 5; ++i) CHECK(hx[i] == float(i + 1) * 3.0f * 1.0f);

    int nb = -1;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, mark, 256, 0));
    CHECK(nb >= 1 && nb <= 32);

    CK(cudaFree(d));
    CK(cudaFree(out));
    CK(cudaFree(x));
    return test_exit("launch_config");
}
