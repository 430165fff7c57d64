/* emu/tests/device_heap.cu - malloc, free, memset and memcpy inside kernels
 * (#34): per-thread buffers filled with memset and memcpy and checked; a
 * block that outlives its kernel; the heap limit (cudaLimitMallocHeapSize,
 * 8 MiB by default): set to 1 MiB, exactly limit / size allocations of a
 * grid succeed and the others get NULL, freeing makes room again, and the
 * limit can no longer change once a kernel has allocated.
 */
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "test_util.h"

__device__ int *g_kept;
__device__ char *g_blocks[256];

/* each thread: a buffer of (i % 7 + 1) ints set to -1 by memset, the first
 * copied from src by memcpy; writes the sum to out */
__global__ void scratch(const int *src, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int len = i % 7 + 1;
    int *buf = (int *)malloc(len * sizeof(int));
    if (buf == NULL) {
        out[i] = 123456789;
        return;
    }
    memset(buf, 0xff, len * sizeof(int));
    memcpy(buf, src + i, sizeof(int));
    int s = 0;
    for (int k = 0; k < len; ++k) s += buf[k];
    out[i] = s;
    free(buf);
}

__global__ void keep(int v)
{
    g_kept = (int *)malloc(4 * sizeof(int));
    for (int k = 0; k < 4; ++k) g_kept[k] = v + k;
}

__global__ void use_kept(int *out)
{
    for (int k = 0; k < 4; ++k) out[k] = g_kept[k];
    free(g_kept);
}

__global__ void grab(size_t bytes, int *got)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    g_blocks[i] = (char *)malloc(bytes);
    if (g_blocks[i]) {
        atomicAdd(got, 1);
        g_blocks[i][bytes - 1] = 1; /* the whole block is usable */
    }
}

__global__ void release()
{
    free(g_blocks[blockIdx.x * blockDim.x + threadIdx.x]); /* free(NULL) is a no-op */
}

int main()
{
    size_t lim = 0;
    CK(cudaDeviceGetLimit(&lim, cudaLimitMallocHeapSize));
    CHECK_EQ_INT(lim, 8 << 20);
    const size_t heap = 1 << 20;
    CK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, heap));

    const int n = 1000;
    int *h = (int *)malloc(n * sizeof(int)); /* host code: the host's malloc */
    for (int i = 0; i < n; ++i) h[i] = 3 * i + 1;
    int *src, *out;
    CK(cudaMalloc(&src, n * sizeof(int)));
    CK(cudaMalloc(&out, n * sizeof(int)));
    CK(cudaMemcpy(src, h, n * sizeof(int), cudaMemcpyHostToDevice));
    scratch<<<(n + 127) / 128, 128>>>(src, out, n);
    CK(cudaGetLastError());
    CK(cudaMemcpy(h, out, n * sizeof(int), cudaMemcpyDeviceToHost));
    int good = 0;
    for (int i = 0; i < n; ++i) good += h[i] == 3 * i + 1 - (i % 7); /* the others are -1 */
    CHECK_EQ_INT(good, n);

    /* the heap outlives the kernel */
    keep<<<1, 1>>>(40);
    use_kept<<<1, 1>>>(out);
    CK(cudaMemcpy(h, out, 4 * sizeof(int), cudaMemcpyDeviceToHost));
    for (int k = 0; k < 4; ++k) CHECK_EQ_INT(h[k], 40 + k);

    /* the limit: 256 threads ask for 64 KiB each from a 1 MiB heap */
    const size_t bytes = 64 << 10;
    const int expect = (int)(heap / bytes);
    int *got;
    CK(cudaMalloc(&got, sizeof(int)));
    for (int round = 0; round < 2; ++round) {
        CK(cudaMemset(got, 0, sizeof(int)));
        grab<<<2, 128>>>(bytes, got);
        int g = -1;
        CK(cudaMemcpy(&g, got, sizeof(int), cudaMemcpyDeviceToHost));
        CHECK_EQ_INT(g, expect); /* the rest got NULL */
        release<<<2, 128>>>();   /* room again for the next round */
        CK(cudaDeviceSynchronize());
    }
    /* too late to change the heap: a kernel has allocated */
    CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 2 << 20) == cudaErrorInvalidValue);
    CK(cudaDeviceGetLimit(&lim, cudaLimitMallocHeapSize));
    CHECK_EQ_INT(lim, heap);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);

    free(h);
    CK(cudaFree(got));
    CK(cudaFree(src));
    CK(cudaFree(out));
    return test_exit("device_heap");
}
