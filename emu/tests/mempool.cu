/* emu/tests/mempool.cu - stream-ordered allocation and memory pools (#34):
 * cudaMallocAsync / cudaFreeAsync ordered with the stream's work, the pool
 * attributes (used and reserved bytes, their high marks, the release
 * threshold at a synchronize, cudaMemPoolTrimTo), created pools with
 * maxSize, cudaDeviceSetMemPool, the device memory limit (CUDAEMU_MEM_MB=64
 * when registered) shared with cudaMalloc, and the device limits
 * (cudaDeviceSetLimit/GetLimit); graph memory nodes (cudaMallocAsync and
 * cudaFreeAsync captured, cudaGraphAddMemAllocNode/FreeNode by hand): kernels
 * of the graph compute through the block on every launch, the memory is
 * held while the graph lives and given back after it; a free node of memory
 * the graph did not allocate is refused.  Values asserted throughout.  With the
 * argument `use-after-free`, a kernel queued after cudaFreeAsync on the same
 * stream reads the freed block: the launch must fail as an illegal address.
 */
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "test_util.h"

__global__ void iota_scaled(int *p, int n, int k)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = i * k;
}

__global__ void add_into(int *dst, const int *src, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] += src[i];
}

static uint64_t attr(cudaMemPool_t p, cudaMemPoolAttr a)
{
    uint64_t v = ~0ull;
    CK(cudaMemPoolGetAttribute(p, a, &v));
    return v;
}

static int use_after_free()
{
    const int n = 1000;
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    int *a = nullptr, *b = nullptr;
    CK(cudaMallocAsync(&a, n * sizeof(int), s));
    CK(cudaMallocAsync(&b, n * sizeof(int), s));
    iota_scaled<<<(n + 255) / 256, 256, 0, s>>>(a, n, 1);
    CK(cudaFreeAsync(a, s));
    add_into<<<(n + 255) / 256, 256, 0, s>>>(b, a, n); /* reads a after its free */
    cudaError_t e = cudaStreamSynchronize(s);
    std::printf("use-after-free: %s\n", cudaGetErrorName(e));
    return e == cudaErrorIllegalAddress ? 1 : 0;
}

static const int GN = 300;

static int wrong(const int *d, int per_index)
{
    std::vector<int> h(GN);
    CK(cudaMemcpy(h.data(), d, GN * sizeof(int), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < GN; ++i) bad += h[i] != per_index * i;
    return bad;
}

static size_t free_bytes()
{
    CK(cudaDeviceSynchronize()); /* pools trimmed to their threshold (0) */
    size_t f = 0, t = 0;
    CK(cudaMemGetInfo(&f, &t));
    return f;
}

/* cudaMallocAsync and cudaFreeAsync captured: an allocation and a free node */
static void graph_captured(int *out, int launches)
{
    const size_t before = free_bytes();
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    int *tmp = nullptr;
    cudaGraph_t g;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CK(cudaMallocAsync(&tmp, GN * sizeof(int), s));
    CHECK(tmp != nullptr);
    iota_scaled<<<(GN + 127) / 128, 128, 0, s>>>(tmp, GN, 2);
    add_into<<<(GN + 127) / 128, 128, 0, s>>>(out, tmp, GN);
    CK(cudaFreeAsync(tmp, s));
    CK(cudaGetLastError());
    CK(cudaStreamEndCapture(s, &g));
    size_t n = 0;
    CK(cudaGraphGetNodes(g, nullptr, &n));
    CHECK_EQ_INT(n, 4);
    cudaGraphExec_t ex;
    CK(cudaGraphInstantiate(&ex, g, 0));
    CK(cudaMemsetAsync(out, 0, GN * sizeof(int), s));
    for (int k = 0; k < launches; ++k) CK(cudaGraphLaunch(ex, s));
    CK(cudaStreamSynchronize(s));
    CHECK_EQ_INT(wrong(out, 2 * launches), 0);
    CHECK(free_bytes() < before); /* the graph holds its block */
    CK(cudaGraphExecDestroy(ex));
    CK(cudaGraphDestroy(g));
    CHECK_EQ_INT(free_bytes(), before); /* given back with the graph */
    CK(cudaStreamDestroy(s));
}

/* the same nodes by hand */
static void graph_by_hand(int *out, int launches, int dev)
{
    cudaGraph_t g;
    CK(cudaGraphCreate(&g, 0));
    cudaMemAllocNodeParams ap;
    std::memset(&ap, 0, sizeof ap);
    ap.poolProps.allocType = cudaMemAllocationTypePinned;
    ap.poolProps.location.type = cudaMemLocationTypeDevice;
    ap.poolProps.location.id = dev;
    ap.bytesize = GN * sizeof(int);
    cudaGraphNode_t alloc, k1, k2, fr;
    CK(cudaGraphAddMemAllocNode(&alloc, g, nullptr, 0, &ap));
    CHECK(ap.dptr != nullptr);
    int *tmp = static_cast<int *>(ap.dptr);
    int n = GN, k = 3;
    void *a1[] = {&tmp, &n, &k};
    void *a2[] = {&out, &tmp, &n};
    cudaKernelNodeParams kp = {};
    kp.func = (void *)iota_scaled;
    kp.gridDim = dim3((GN + 127) / 128);
    kp.blockDim = dim3(128);
    kp.kernelParams = a1;
    CK(cudaGraphAddKernelNode(&k1, g, &alloc, 1, &kp));
    kp.func = (void *)add_into;
    kp.kernelParams = a2;
    CK(cudaGraphAddKernelNode(&k2, g, &k1, 1, &kp));
    CK(cudaGraphAddMemFreeNode(&fr, g, &k2, 1, tmp));
    cudaGraphNodeType t;
    CK(cudaGraphNodeGetType(alloc, &t));
    CHECK_EQ_INT(t, cudaGraphNodeTypeMemAlloc);
    CK(cudaGraphNodeGetType(fr, &t));
    CHECK_EQ_INT(t, cudaGraphNodeTypeMemFree);
    cudaGraphExec_t ex;
    CK(cudaGraphInstantiate(&ex, g, 0));
    CK(cudaMemset(out, 0, GN * sizeof(int)));
    for (int r = 0; r < launches; ++r) CK(cudaGraphLaunch(ex, 0));
    CK(cudaDeviceSynchronize());
    CHECK_EQ_INT(wrong(out, 3 * launches), 0);
    /* what CUDA refuses: no bytes, a host pool, freeing memory the graph did not allocate */
    cudaGraphNode_t bad;
    ap.bytesize = 0;
    CHECK_EQ_INT(cudaGraphAddMemAllocNode(&bad, g, nullptr, 0, &ap), cudaErrorInvalidValue);
    ap.bytesize = 16;
    ap.poolProps.location.type = cudaMemLocationTypeHost;
    CHECK_EQ_INT(cudaGraphAddMemAllocNode(&bad, g, nullptr, 0, &ap), cudaErrorInvalidValue);
    CHECK_EQ_INT(cudaGraphAddMemFreeNode(&bad, g, nullptr, 0, out), cudaErrorStreamCaptureUnsupported);
    CHECK_EQ_INT(cudaGetLastError(), cudaErrorStreamCaptureUnsupported);
    CK(cudaGraphExecDestroy(ex));
    CK(cudaGraphDestroy(g));
}

int main(int argc, char **argv)
{
    if (argc > 1 && std::strcmp(argv[1], "use-after-free") == 0) return use_after_free();

    int dev = 0, supported = 0;
    CK(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, dev));
    CHECK_EQ_INT(supported, 1);
    size_t free0 = 0, total = 0;
    CK(cudaMemGetInfo(&free0, &total));

    /* the default pool is the current one; stream-ordered allocate, use, free */
    cudaMemPool_t def = nullptr, cur = nullptr;
    CK(cudaDeviceGetDefaultMemPool(&def, dev));
    CK(cudaDeviceGetMemPool(&cur, dev));
    CHECK(def != nullptr && def == cur);
    CHECK_EQ_INT(attr(def, cudaMemPoolAttrReleaseThreshold), 0);

    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const int n = 3000;
    const size_t bytes = n * sizeof(int);
    int *a = nullptr, *b = nullptr;
    CK(cudaMallocAsync(&a, bytes, s));
    CK(cudaMallocAsync((void **)&b, bytes, def, s)); /* the C++ overload with a pool */
    CHECK(a && b && a != b);
    CHECK_EQ_INT(attr(def, cudaMemPoolAttrUsedMemCurrent), 2 * bytes);
    CHECK_EQ_INT(attr(def, cudaMemPoolAttrReservedMemCurrent), 2 * bytes);
    size_t free1 = 0;
    CK(cudaMemGetInfo(&free1, &total));
    CHECK_EQ_INT(free0 - free1, 2 * bytes); /* reserved bytes are device memory */
    iota_scaled<<<(n + 127) / 128, 128, 0, s>>>(a, n, 3);
    iota_scaled<<<(n + 127) / 128, 128, 0, s>>>(b, n, -1);
    add_into<<<(n + 127) / 128, 128, 0, s>>>(a, b, n);
    CK(cudaFreeAsync(b, s));
    CHECK(cudaFreeAsync(b, s) == cudaErrorInvalidValue); /* already freed */
    CHECK(cudaFreeAsync(a + 1, s) == cudaErrorInvalidValue);
    std::vector<int> h(n, -7);
    CK(cudaMemcpyAsync(h.data(), a, bytes, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    int good = 0;
    for (int i = 0; i < n; ++i) good += h[i] == 2 * i;
    CHECK_EQ_INT(good, n);
    /* threshold 0: the synchronize gave the freed bytes back */
    CHECK_EQ_INT(attr(def, cudaMemPoolAttrUsedMemCurrent), bytes);
    CHECK_EQ_INT(attr(def, cudaMemPoolAttrReservedMemCurrent), bytes);
    CHECK_EQ_INT(attr(def, cudaMemPoolAttrUsedMemHigh), 2 * bytes);
    CHECK_EQ_INT(attr(def, cudaMemPoolAttrReservedMemHigh), 2 * bytes);
    CK(cudaFreeAsync(a, s));
    CK(cudaStreamSynchronize(s));
    CHECK_EQ_INT(attr(def, cudaMemPoolAttrUsedMemCurrent), 0);
    CHECK_EQ_INT(attr(def, cudaMemPoolAttrReservedMemCurrent), 0);
    size_t free2 = 0;
    CK(cudaMemGetInfo(&free2, &total));
    CHECK_EQ_INT(free2, free0);

    /* high marks reset to the current value; a non-zero value is refused */
    uint64_t zero = 0, one = 1;
    CK(cudaMemPoolSetAttribute(def, cudaMemPoolAttrUsedMemHigh, &zero));
    CK(cudaMemPoolSetAttribute(def, cudaMemPoolAttrReservedMemHigh, &zero));
    CHECK_EQ_INT(attr(def, cudaMemPoolAttrUsedMemHigh), 0);
    CHECK_EQ_INT(attr(def, cudaMemPoolAttrReservedMemHigh), 0);
    CHECK(cudaMemPoolSetAttribute(def, cudaMemPoolAttrUsedMemHigh, &one) == cudaErrorInvalidValue);
    CHECK(cudaMemPoolSetAttribute(def, cudaMemPoolAttrUsedMemCurrent, &zero) ==
          cudaErrorInvalidValue); /* read-only */
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);

    /* a threshold keeps freed bytes reserved across synchronizes; a new
     * allocation takes them instead of reserving more; TrimTo gives them back */
    uint64_t keep = 1ull << 20;
    CK(cudaMemPoolSetAttribute(def, cudaMemPoolAttrReleaseThreshold, &keep));
    CHECK_EQ_INT(attr(def, cudaMemPoolAttrReleaseThreshold), keep);
    const size_t big = 3 << 20; /* above the threshold */
    void *p = nullptr, *q = nullptr;
    CK(cudaMallocAsync(&p, 4096, s));
    CK(cudaFreeAsync(p, s));
    CK(cudaDeviceSynchronize());
    CHECK_EQ_INT(attr(def, cudaMemPoolAttrReservedMemCurrent), 4096);
    CK(cudaMallocAsync(&q, 1024, s));
    CHECK_EQ_INT(attr(def, cudaMemPoolAttrReservedMemCurrent), 4096);
    CHECK_EQ_INT(attr(def, cudaMemPoolAttrUsedMemCurrent), 1024);
    CK(cudaMallocAsync(&p, big, s));
    CHECK_EQ_INT(attr(def, cudaMemPoolAttrReservedMemCurrent), big + 1024);
    CK(cudaFreeAsync(p, s));
    CK(cudaFreeAsync(q, s));
    cudaEvent_t ev;
    CK(cudaEventCreate(&ev));
    CK(cudaEventRecord(ev, s));
    CK(cudaEventSynchronize(ev)); /* trims to the threshold */
    CHECK_EQ_INT(attr(def, cudaMemPoolAttrReservedMemCurrent), keep);
    CK(cudaMemPoolTrimTo(def, 4096));
    CHECK_EQ_INT(attr(def, cudaMemPoolAttrReservedMemCurrent), 4096);
    CK(cudaMemPoolTrimTo(def, 0));
    CHECK_EQ_INT(attr(def, cudaMemPoolAttrReservedMemCurrent), 0);

    /* a created pool: maxSize bounds it; it becomes the device's pool */
    cudaMemPoolProps props;
    std::memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = dev;
    props.maxSize = 1 << 20;
    cudaMemPool_t mine = nullptr;
    CK(cudaMemPoolCreate(&mine, &props));
    int *c = nullptr;
    CK(cudaMallocFromPoolAsync(&c, 512 << 10, mine, s));
    void *over = &over;
    CHECK(cudaMallocFromPoolAsync(&over, 600 << 10, mine, s) == cudaErrorMemoryAllocation);
    CHECK(over == nullptr);
    CHECK(cudaMallocAsync(&over, 0, s) == cudaErrorInvalidValue);
    CK(cudaDeviceSetMemPool(dev, mine));
    CK(cudaDeviceGetMemPool(&cur, dev));
    CHECK(cur == mine);
    int *d = nullptr;
    CK(cudaMallocAsync(&d, 256 << 10, s)); /* from the current pool: mine */
    CHECK_EQ_INT(attr(mine, cudaMemPoolAttrUsedMemCurrent), 768 << 10);
    CHECK_EQ_INT(attr(def, cudaMemPoolAttrUsedMemCurrent), 0);
    cudaMemAccessFlags fl = cudaMemAccessFlagsProtNone;
    cudaMemLocation loc = {cudaMemLocationTypeDevice, dev};
    CK(cudaMemPoolGetAccess(&fl, mine, &loc));
    CHECK_EQ_INT(fl, cudaMemAccessFlagsProtReadWrite);
    iota_scaled<<<2, 128, 0, s>>>(d, 256, 5);
    CK(cudaMemcpyAsync(h.data(), d, 256 * sizeof(int), cudaMemcpyDeviceToHost, s));
    CK(cudaFreeAsync(d, s));
    CK(cudaStreamSynchronize(s));
    CHECK_EQ_INT(h[255], 255 * 5);
    /* destroying the current pool makes the default current again; the pool
     * lives on until its last block (c, freed by cudaFree) goes */
    CK(cudaMemPoolDestroy(mine));
    CK(cudaDeviceGetMemPool(&cur, dev));
    CHECK(cur == def);
    CHECK(cudaMemPoolGetAttribute(mine, cudaMemPoolAttrUsedMemCurrent, &one) ==
          cudaErrorInvalidValue);
    CHECK(cudaMemPoolDestroy(def) == cudaErrorInvalidValue); /* a default pool stays */
    CK(cudaFree(c));
    size_t free3 = 0;
    CK(cudaMemGetInfo(&free3, &total));
    CHECK_EQ_INT(free3, free0);

    /* the device memory limit: pools and cudaMalloc share it; a pool's
     * unused reserved bytes are given back when an allocation needs them */
    CHECK(total == 64u << 20); /* CUDAEMU_MEM_MB=64 in the registration */
    uint64_t all = ~0ull;
    CK(cudaMemPoolSetAttribute(def, cudaMemPoolAttrReleaseThreshold, &all));
    void *x = nullptr, *y = nullptr;
    CK(cudaMallocAsync(&x, 40 << 20, s));
    CHECK(cudaMalloc(&y, 40 << 20) == cudaErrorMemoryAllocation);
    CK(cudaFreeAsync(x, s));
    CK(cudaStreamSynchronize(s));
    CHECK_EQ_INT(attr(def, cudaMemPoolAttrReservedMemCurrent), 40 << 20); /* kept */
    props.maxSize = 0; /* no bound of its own */
    CK(cudaMemPoolCreate(&mine, &props));
    CK(cudaMallocFromPoolAsync(&y, 40 << 20, mine, s)); /* takes def's unused bytes */
    CHECK_EQ_INT(attr(def, cudaMemPoolAttrReservedMemCurrent), 0);
    CHECK(cudaMallocAsync(&x, 30 << 20, s) == cudaErrorMemoryAllocation);
    CK(cudaFreeAsync(y, s));
    CK(cudaStreamSynchronize(s));
    CK(cudaMemPoolDestroy(mine));
    CK(cudaMemGetInfo(&free3, &total));
    CHECK_EQ_INT(free3, free0);

    /* device limits: the malloc heap defaults to 8 MiB, as CUDA's */
    size_t lim = 0;
    CK(cudaDeviceGetLimit(&lim, cudaLimitMallocHeapSize));
    CHECK_EQ_INT(lim, 8 << 20);
    CK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 1 << 20));
    CK(cudaDeviceGetLimit(&lim, cudaLimitMallocHeapSize));
    CHECK_EQ_INT(lim, 1 << 20);
    CHECK(cudaDeviceSetLimit((cudaLimit)99, 1) == cudaErrorUnsupportedLimit);
    CHECK_EQ_INT(cudaGetLastError(), cudaErrorUnsupportedLimit);

    /* graph memory nodes, the default pool trimmed at every synchronize again */
    zero = 0;
    CK(cudaMemPoolSetAttribute(def, cudaMemPoolAttrReleaseThreshold, &zero));
    int *gout = nullptr;
    CK(cudaMalloc(&gout, GN * sizeof(int)));
    graph_captured(gout, 3);
    graph_by_hand(gout, 2, dev);
    CK(cudaFree(gout));

    CK(cudaEventDestroy(ev));
    CK(cudaStreamDestroy(s));
    return test_exit("mempool");
}
