/* emu/tests/runtime_ext.cu - the runtime calls ordinary CUDA code uses beyond
 * the basics: the typed T** forms of cudaMallocPitch, cudaMallocManaged and
 * cudaHostGetDevicePointer; managed memory read and written by host and
 * kernels; cudaMemset2D(Async); cudaMemcpyToSymbolAsync /
 * FromSymbolAsync, cudaGetSymbolAddress / Size; cudaOccupancyMaxPotentialBlockSize;
 * cudaStreamAddCallback (stream-ordered, told the stream, the status and
 * userData, also after a failure).  Values asserted throughout.
 */
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>

#include "test_util.h"

__device__ int dev_table[16];

__global__ void scale_int(int *p, int n, int k)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] *= k;
}

__global__ void gather_table(int *out, int n)
{
    int i = threadIdx.x;
    if (i < n) out[i] = dev_table[i] + 1;
}

__global__ void store_value(int *p, int v) { *p = v; }

__global__ void trapper() { __trap(); }

struct CallbackLog {
    int calls = 0;
    cudaStream_t stream = nullptr;
    cudaError_t status = cudaErrorUnknown;
    int seen = -1;
    const int *watch = nullptr;
};

static void CUDART_CB on_stream(cudaStream_t stream, cudaError_t status, void *user)
{
    CallbackLog *log = static_cast<CallbackLog *>(user);
    ++log->calls;
    log->stream = stream;
    log->status = status;
    log->seen = log->watch ? *log->watch : -1;
}

int main()
{
    /* cudaMallocPitch (typed) and cudaMemset2D: the rows are set, the pitch padding not */
    const size_t W = 100 * sizeof(float), H = 7;
    float *pm = nullptr;
    size_t pitch = 0;
    CK(cudaMallocPitch(&pm, &pitch, W, H));
    CHECK(pm != nullptr);
    CHECK(pitch >= W && pitch % 256 == 0);
    CK(cudaMemset2D(pm, pitch, 0x3f, W, H));
    unsigned char *rows = new unsigned char[pitch * H];
    CK(cudaMemcpy(rows, pm, pitch * H, cudaMemcpyDeviceToHost));
    int set_ok = 0, pad_ok = 0;
    for (size_t r = 0; r < H; ++r)
        for (size_t c = 0; c < pitch; ++c) {
            if (c < W) set_ok += rows[r * pitch + c] == 0x3f;
            else pad_ok += rows[r * pitch + c] == 0xff; /* untouched since cudaMalloc */
        }
    CHECK_EQ_INT(set_ok, W * H);
    CHECK_EQ_INT(pad_ok, (pitch - W) * H);
    CHECK(cudaMemset2D(pm, pitch, 0, pitch + 1, 2) == cudaErrorInvalidValue); /* width > pitch */
    CHECK(cudaMemset2D(pm, pitch, 0, W, H + 1) == cudaErrorInvalidValue);     /* past the end */
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaMemset2DAsync(pm, pitch, 0, 8, H, s)); /* the first 8 bytes of each row */
    CK(cudaStreamSynchronize(s));
    CK(cudaMemcpy(rows, pm, pitch * H, cudaMemcpyDeviceToHost));
    for (size_t r = 0; r < H; ++r) {
        CHECK_EQ_INT(rows[r * pitch + 7], 0);
        CHECK_EQ_INT(rows[r * pitch + 8], 0x3f);
    }
    delete[] rows;
    CK(cudaFree(pm));

    /* managed memory: the host writes, a kernel scales, the host reads */
    const int n = 300;
    int *m = nullptr;
    CK(cudaMallocManaged(&m, n * sizeof(int)));
    for (int i = 0; i < n; ++i) m[i] = i - 50;
    scale_int<<<(n + 127) / 128, 128>>>(m, n, 3);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int ok = 0;
    for (int i = 0; i < n; ++i) ok += m[i] == 3 * (i - 50);
    CHECK_EQ_INT(ok, n);
    cudaPointerAttributes pa;
    CK(cudaPointerGetAttributes(&pa, m + 5));
    CHECK(pa.type == cudaMemoryTypeManaged);
    CHECK(pa.devicePointer == m + 5 && pa.hostPointer == m + 5);
    int back[4] = {0, 0, 0, 0}, four[4] = {7, 8, 9, 10};
    CK(cudaMemcpy(m, four, sizeof four, cudaMemcpyHostToDevice)); /* either direction works */
    CK(cudaMemcpy(back, m, sizeof back, cudaMemcpyDeviceToHost));
    CHECK(back[0] == 7 && back[3] == 10);
    int val = 0;
    CK(cudaDeviceGetAttribute(&val, cudaDevAttrManagedMemory, 0));
    CHECK_EQ_INT(val, 1);
    int *bad = m;
    CHECK(cudaMallocManaged(&bad, 64, 0x10) == cudaErrorInvalidValue);
    CHECK(bad == nullptr);
    CK(cudaFree(m));

    /* cudaHostGetDevicePointer (typed): a kernel writes mapped pinned memory */
    int *hp = nullptr, *dp = nullptr;
    CK(cudaHostAlloc(&hp, n * sizeof(int), cudaHostAllocMapped));
    for (int i = 0; i < n; ++i) hp[i] = i;
    CK(cudaHostGetDevicePointer(&dp, hp, 0));
    CHECK(dp == hp);
    scale_int<<<(n + 127) / 128, 128>>>(dp, n, -2);
    CK(cudaDeviceSynchronize());
    CHECK_EQ_INT(hp[n - 1], -2 * (n - 1));
    int local = 0;
    CHECK(cudaHostGetDevicePointer(&dp, &local, 0) == cudaErrorInvalidValue); /* not pinned */

    /* symbols: an async copy in (the pageable source staged at the call), the
     * address usable as device memory, an async copy out */
    int src[16], out16[16];
    for (int i = 0; i < 16; ++i) src[i] = 100 + i;
    CK(cudaMemcpyToSymbolAsync(dev_table, src, sizeof src, 0, cudaMemcpyHostToDevice, s));
    src[0] = -1; /* too late to matter */
    int *dout = nullptr;
    CK(cudaMalloc(&dout, sizeof out16));
    gather_table<<<1, 16, 0, s>>>(dout, 16);
    CK(cudaStreamSynchronize(s));
    CK(cudaMemcpy(out16, dout, sizeof out16, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 16; ++i) CHECK_EQ_INT(out16[i], 101 + i);
    void *addr = nullptr;
    CK(cudaGetSymbolAddress(&addr, dev_table));
    CHECK(addr == static_cast<void *>(dev_table));
    size_t ssize = 0;
    CK(cudaGetSymbolSize(&ssize, dev_table));
    CHECK_EQ_INT(ssize, sizeof dev_table);
    CK(cudaMemcpy(out16, addr, sizeof out16, cudaMemcpyDeviceToHost)); /* device memory now */
    CHECK_EQ_INT(out16[15], 115);
    CK(cudaPointerGetAttributes(&pa, addr));
    CHECK(pa.type == cudaMemoryTypeDevice);
    scale_int<<<1, 16, 0, s>>>(static_cast<int *>(addr), 16, 2);
    CK(cudaMemcpyFromSymbolAsync(hp, dev_table, 4 * sizeof(int), 8 * sizeof(int),
                                 cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    CHECK_EQ_INT(hp[0], 2 * 108);
    CHECK_EQ_INT(hp[3], 2 * 111);
    CHECK(cudaMemcpyToSymbolAsync(dev_table, src, sizeof src, 4, cudaMemcpyHostToDevice, s) ==
          cudaErrorInvalidValue); /* past the end of the symbol */

    /* occupancy: 1024 threads fill an SM of the emulated sm_90 (2 x 1024 threads) */
    int min_grid = 0, block = 0, per_sm = 0, sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, scale_int));
    CHECK_EQ_INT(block, 1024);
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, scale_int, block, 0));
    CHECK_EQ_INT(min_grid, per_sm * sms);
    CHECK_EQ_INT(min_grid, 2 * 132);
    /* at most 100 threads: 64 (32 blocks, 2048 threads) beats 100 (16 blocks) and 96 (21) */
    CK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, scale_int, 0, 100));
    CHECK_EQ_INT(block, 64);
    CHECK_EQ_INT(min_grid, 32 * 132);
    /* 100 KiB of dynamic shared memory: two blocks per SM, so 1024 threads again */
    CK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, scale_int, 100 << 10));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, scale_int, block, 100 << 10));
    CHECK_EQ_INT(block, 1024);
    CHECK_EQ_INT(min_grid, per_sm * sms);
    CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, static_cast<int *>(nullptr),
                                             scale_int) == cudaErrorInvalidValue);

    /* stream callbacks: in stream order, lazily, with the stream and the status */
    int *pin = nullptr;
    CK(cudaMallocHost(&pin, sizeof(int)));
    *pin = 0;
    CallbackLog log;
    log.watch = pin;
    store_value<<<1, 1, 0, s>>>(pin, 1);
    CK(cudaStreamAddCallback(s, on_stream, &log, 0));
    store_value<<<1, 1, 0, s>>>(pin, 2);
    CHECK_EQ_INT(log.calls, 0); /* nothing ran yet: the stream is lazy */
    CK(cudaStreamSynchronize(s));
    CHECK_EQ_INT(log.calls, 1);
    CHECK_EQ_INT(log.seen, 1); /* after the first kernel, before the second */
    CHECK(log.stream == s);
    CHECK(log.status == cudaSuccess);
    CHECK_EQ_INT(*pin, 2);
    CHECK(cudaStreamAddCallback(s, on_stream, &log, 1) == cudaErrorInvalidValue);
    CHECK(cudaStreamAddCallback(s, nullptr, &log, 0) == cudaErrorInvalidValue);

    /* after a fault the callback still runs and is told the error */
    CallbackLog flog;
    trapper<<<1, 1, 0, s>>>();
    CK(cudaStreamAddCallback(s, on_stream, &flog, 0));
    CHECK(cudaStreamSynchronize(s) == cudaErrorLaunchFailure);
    CHECK_EQ_INT(flog.calls, 1);
    CHECK(flog.status == cudaErrorLaunchFailure);
    CHECK(flog.stream == s);

    CK(cudaDeviceReset()); /* frees everything, clears the sticky error */
    return test_exit("runtime_ext");
}
