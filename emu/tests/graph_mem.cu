/* emu/tests/graph_mem.cu - graph memory nodes (#34): cudaMallocAsync and
 * cudaFreeAsync captured into a graph, and cudaGraphAddMemAllocNode /
 * cudaGraphAddMemFreeNode by hand.  The graph's block has its address when
 * the node is made; kernels of the graph compute through it on every launch;
 * it is given back when the graph and its executable graph are destroyed
 * (cudaMemGetInfo after a synchronize); a free node of memory the graph did
 * not allocate is refused.
 */
#include <cuda_runtime.h>

#include <vector>

#include "test_util.h"

__global__ void fill(float *x, int n, float v)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v * float(i);
}

__global__ void add_into(const float *x, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] += x[i];
}

static const int N = 300;

static int wrong(const float *d, float per_index)
{
    std::vector<float> h(N);
    CK(cudaMemcpy(h.data(), d, N * sizeof(float), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < N; ++i) bad += h[i] != per_index * float(i);
    return bad;
}

static size_t free_bytes()
{
    CK(cudaDeviceSynchronize()); /* pools trimmed to their threshold (0) */
    size_t f = 0, t = 0;
    CK(cudaMemGetInfo(&f, &t));
    return f;
}

static void captured(float *out, int launches)
{
    const size_t before = free_bytes();
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *tmp = nullptr;
    cudaGraph_t g;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CK(cudaMallocAsync(&tmp, N * sizeof(float), s));
    CHECK(tmp != nullptr);
    fill<<<(N + 127) / 128, 128, 0, s>>>(tmp, N, 2.0f);
    add_into<<<(N + 127) / 128, 128, 0, s>>>(tmp, out, N);
    CK(cudaFreeAsync(tmp, s));
    CK(cudaGetLastError());
    CK(cudaStreamEndCapture(s, &g));
    size_t n = 0;
    CK(cudaGraphGetNodes(g, nullptr, &n));
    CHECK_EQ_INT(n, 4);
    cudaGraphExec_t ex;
    CK(cudaGraphInstantiate(&ex, g, 0));
    CK(cudaMemsetAsync(out, 0, N * sizeof(float), s));
    for (int k = 0; k < launches; ++k) CK(cudaGraphLaunch(ex, s));
    CK(cudaStreamSynchronize(s));
    CHECK_EQ_INT(wrong(out, 2.0f * float(launches)), 0);
    CHECK(free_bytes() < before); /* the graph holds its block */
    CK(cudaGraphExecDestroy(ex));
    CK(cudaGraphDestroy(g));
    CHECK_EQ_INT(free_bytes(), before); /* given back with the graph */
    CK(cudaStreamDestroy(s));
}

static void by_hand(float *out, int launches)
{
    cudaGraph_t g;
    CK(cudaGraphCreate(&g, 0));
    cudaMemAllocNodeParams ap = {};
    ap.poolProps.allocType = cudaMemAllocationTypePinned;
    ap.poolProps.location.type = cudaMemLocationTypeDevice;
    ap.poolProps.location.id = 0;
    ap.bytesize = N * sizeof(float);
    cudaGraphNode_t alloc, k1, k2, fr;
    CK(cudaGraphAddMemAllocNode(&alloc, g, nullptr, 0, &ap));
    CHECK(ap.dptr != nullptr);
    float *tmp = static_cast<float *>(ap.dptr);
    int n = N;
    float v = 3.0f;
    void *a1[] = {&tmp, &n, &v};
    void *a2[] = {&tmp, &out, &n};
    cudaKernelNodeParams kp = {};
    kp.func = fill;
    kp.gridDim = dim3((N + 127) / 128);
    kp.blockDim = dim3(128);
    kp.kernelParams = a1;
    CK(cudaGraphAddKernelNode(&k1, g, &alloc, 1, &kp));
    kp.func = add_into;
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
    CK(cudaMemset(out, 0, N * sizeof(float)));
    for (int k = 0; k < launches; ++k) CK(cudaGraphLaunch(ex, 0));
    CK(cudaDeviceSynchronize());
    CHECK_EQ_INT(wrong(out, 3.0f * float(launches)), 0);

    /* what CUDA refuses: no bytes, a host pool, freeing memory the graph did not allocate */
    cudaGraphNode_t bad;
    ap.bytesize = 0;
    CHECK_EQ_INT(cudaGraphAddMemAllocNode(&bad, g, nullptr, 0, &ap), cudaErrorInvalidValue);
    ap.bytesize = 16;
    ap.poolProps.location.type = cudaMemLocationTypeHost;
    CHECK_EQ_INT(cudaGraphAddMemAllocNode(&bad, g, nullptr, 0, &ap), cudaErrorInvalidValue);
    CHECK(cudaGraphAddMemFreeNode(&bad, g, nullptr, 0, out) != cudaSuccess);
    cudaGetLastError();
    CK(cudaGraphExecDestroy(ex));
    CK(cudaGraphDestroy(g));
}

int main()
{
    float *out;
    CK(cudaMalloc(&out, N * sizeof(float)));
    captured(out, 3);
    by_hand(out, 2);
    CK(cudaFree(out));
    if (g_test_failures) return 1;
    std::printf("graph_mem: all checks passed\n");
    return 0;
}
