/* emu/tests/decl_forms.cu - declaration and launch forms of the CUDA in books
 * and public repositories (#34 item 3) through the translator and the
 * emulator's headers: a 2-D dynamic shared array (`extern __shared__ T s[][N]`),
 * `static __shared__` in a kernel, a kernel and a host function of the same
 * name (the launch takes the kernel), the `<< <`...`>> >` spelling of
 * C++03 code, cublas_v2.h bringing the half types, __CUDACC__ / __NVCC__
 * defined with __CUDA_ARCH__ not (the host pass), <cuda.h> for its types and
 * cheap calls, and NVTX ranges as no-ops.  Prints "decl_forms: all checks
 * passed".
 */
#include <cuda.h>
#include <cublas_v2.h>
#include <nvtx3/nvToolsExt.h>
#include <nvToolsExt.h>

#include <cstdio>
#include <cstring>

#include "test_util.h"

#if !defined(__CUDACC__) || !defined(__NVCC__) || __CUDACC_VER_MAJOR__ < 11
#error "a translated .cu must see nvcc's macros"
#endif
#ifdef __CUDA_ARCH__
#error "__CUDA_ARCH__ names a device pass: never defined on the host"
#endif

constexpr int W = 5; /* row length of the 2-D shared array */

/* out[r][c] = in[c][r] through shared rows of W, transposed on the way out */
__global__ void transpose_rows(const int *in, int *out)
{
    extern __shared__ int rows[][W];
    const int r = threadIdx.y, c = threadIdx.x;
    rows[r][c] = in[r * W + c];
    __syncthreads();
    out[c * blockDim.y + r] = rows[r][c];
}

/* a block-wide sum through a static __shared__ accumulator */
__global__ void block_total(const int *in, int *out)
{
    static __shared__ int total;
    __shared__ static int touched;
    if (threadIdx.x == 0) total = 0, touched = 0;
    __syncthreads();
    atomicAdd(&total, in[blockIdx.x * blockDim.x + threadIdx.x]);
    atomicAdd(&touched, 1);
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = total * 1000 + touched;
}

/* a kernel and a host function of one name: <<<>>> launches the kernel */
__global__ void scale(int *x, int k)
{
    x[threadIdx.x] *= k;
}
void scale(int *host, int n, int k)
{
    for (int i = 0; i < n; ++i) host[i] *= k;
}

int main()
{
    nvtxRangePushA("decl_forms");
    nvtxEventAttributes_t ea;
    std::memset(&ea, 0, sizeof ea);
    ea.version = NVTX_VERSION;
    ea.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    ea.colorType = NVTX_COLOR_ARGB;
    ea.color = 0xff00ff00u;
    ea.messageType = NVTX_MESSAGE_TYPE_ASCII;
    ea.message.ascii = "marked";
    nvtxMarkEx(&ea);
    nvtxRangeId_t rid = nvtxRangeStartA("whole");

    /* 2-D dynamic shared memory: 3 rows of W */
    const int R = 3;
    int hin[R * W], hout[R * W];
    for (int i = 0; i < R * W; ++i) hin[i] = 10 * i + 1;
    int *din = nullptr, *dout = nullptr;
    CHECK(cudaMalloc(&din, 64 * sizeof(int)) == cudaSuccess);
    CHECK(cudaMalloc(&dout, 64 * sizeof(int)) == cudaSuccess);
    cudaMemcpy(din, hin, sizeof hin, cudaMemcpyHostToDevice);
    transpose_rows<<<1, dim3(W, R), R * W * sizeof(int)>>>(din, dout);
    CHECK(cudaGetLastError() == cudaSuccess);
    cudaMemcpy(hout, dout, sizeof hout, cudaMemcpyDeviceToHost);
    for (int r = 0; r < R; ++r)
        for (int c = 0; c < W; ++c) CHECK_EQ_INT(hout[c * R + r], hin[r * W + c]);

    /* static __shared__: 2 blocks of 8 threads summing 1..16 */
    int hv[16], tot[2];
    for (int i = 0; i < 16; ++i) hv[i] = i + 1;
    cudaMemcpy(din, hv, sizeof hv, cudaMemcpyHostToDevice);
    block_total<<<2, 8>>>(din, dout);
    CHECK(cudaGetLastError() == cudaSuccess);
    cudaMemcpy(tot, dout, sizeof tot, cudaMemcpyDeviceToHost);
    CHECK_EQ_INT(tot[0], 36 * 1000 + 8);
    CHECK_EQ_INT(tot[1], 100 * 1000 + 8);

    /* the kernel named like a host function, once in the old spelling */
    int hx[4] = {1, 2, 3, 4};
    cudaMemcpy(din, hx, sizeof hx, cudaMemcpyHostToDevice);
    scale<<<1, 4>>>(din, 3);
    scale<< <1, 4>> >(din, 2);
    CHECK(cudaGetLastError() == cudaSuccess);
    scale(hx, 4, 5); /* the host function */
    int back[4];
    cudaMemcpy(back, din, sizeof back, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 4; ++i) {
        CHECK_EQ_INT(back[i], 6 * (i + 1));
        CHECK_EQ_INT(hx[i], 5 * (i + 1));
    }

    /* cublas_v2.h brought cuda_fp16.h and cuda_bf16.h */
    __half h = __float2half(1.5f);
    __nv_bfloat16 b = __float2bfloat16(2.5f);
    CHECK(__half2float(h) == 1.5f && __bfloat162float(b) == 2.5f);

    /* <cuda.h>: the cheap driver calls */
    CUdevice dev = -1;
    int count = 0;
    CHECK(cuDeviceGetCount(&count) == CUDA_ERROR_NOT_INITIALIZED);
    CHECK(cuInit(0) == CUDA_SUCCESS);
    CHECK(cuDeviceGetCount(&count) == CUDA_SUCCESS && count >= 1);
    CHECK(cuDeviceGet(&dev, 0) == CUDA_SUCCESS && dev == 0);
    CHECK(cuDeviceGet(&dev, count) == CUDA_ERROR_INVALID_DEVICE);
    CUcontext ctx = nullptr;
    CHECK(cuCtxGetCurrent(&ctx) == CUDA_SUCCESS && ctx != nullptr);
    CHECK(cuCtxSynchronize() == CUDA_SUCCESS);
    const char *msg = nullptr, *name = nullptr;
    CHECK(cuGetErrorString(CUDA_ERROR_INVALID_DEVICE, &msg) == CUDA_SUCCESS && msg &&
          std::strcmp(msg, cudaGetErrorString(cudaErrorInvalidDevice)) == 0);
    CHECK(cuGetErrorName(CUDA_ERROR_ILLEGAL_ADDRESS, &name) == CUDA_SUCCESS &&
          std::strcmp(name, "CUDA_ERROR_ILLEGAL_ADDRESS") == 0);
    /* deviceQueryDrv's attributes: the runtime's, and the driver-only ones as 0 */
    int sms = 0, multi = -1, can = -1;
    CHECK(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev) == CUDA_SUCCESS &&
          sms == 132);
    CHECK(cuDeviceGetAttribute(&multi, CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH, dev) ==
              CUDA_SUCCESS && multi == 0);
    CHECK(cuDeviceGetAttribute(&multi, CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH, count) ==
          CUDA_ERROR_INVALID_DEVICE);
    CHECK(cuDeviceCanAccessPeer(&can, dev, dev) == CUDA_SUCCESS && can == 0);
    CHECK(CU_LAUNCH_PARAM_BUFFER_SIZE == (void *)2 && CU_LAUNCH_PARAM_END == nullptr);
    cudaEvent_t ev = nullptr; /* the C++ overload with flags: no timing */
    float ms = 0;
    CHECK(cudaEventCreate(&ev, cudaEventDisableTiming) == cudaSuccess);
    CHECK(cudaEventRecord(ev) == cudaSuccess && cudaEventSynchronize(ev) == cudaSuccess);
    CHECK(cudaEventElapsedTime(&ms, ev, ev) == cudaErrorInvalidResourceHandle);
    cudaGetLastError();
    CHECK(cudaEventDestroy(ev) == cudaSuccess);
#ifndef __cuda_cuda_h__
    CHECK(!"cuda.h defines __cuda_cuda_h__");
#endif
    /* every CUresult of CUDA 13.0 has its name (threadMigration names INVALID_IMAGE) */
    CHECK(cuGetErrorName(CUDA_ERROR_INVALID_IMAGE, &name) == CUDA_SUCCESS &&
          std::strcmp(name, "CUDA_ERROR_INVALID_IMAGE") == 0);
    CHECK(cuGetErrorName((CUresult)12345, &name) == CUDA_ERROR_INVALID_VALUE && !name);
    CUstream st = nullptr; /* the runtime's stream type */
    cudaStream_t rst = st;
    (void)rst;

    nvtxRangeEnd(rid);
    CHECK(nvtxRangePop() == NVTX_NO_PUSH_POP_TRACKING);
    cudaFree(din);
    cudaFree(dout);
    if (g_test_failures == 0) std::printf("decl_forms: all checks passed\n");
    return g_test_failures ? 1 : 0;
}
