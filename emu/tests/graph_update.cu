/* emu/tests/graph_update.cu - cudaGraphExecUpdate (#34).
 *
 * (1) The common use: capture a stream's work once, instantiate, capture it
 *     again with other kernel arguments, buffers and memset values, update the
 *     executable graph in place; the next launch computes with the new ones,
 *     a launch queued before the update with the old.
 * (2) What CUDA refuses, nothing updated (the exec keeps computing as
 *     before): another node count, a dependency moved, a node of another type
 *     (a memset or a copy for a kernel); the cudaGraphExecUpdateResultInfo
 *     names the result and the nodes, as CUDA documents.
 * (3) A graph built by hand: kernel nodes with new parameters, another kernel.
 */
#include <cuda_runtime.h>

#include <cstring>
#include <vector>

#include "test_util.h"

__global__ void axpb(float *x, int n, float a, float b)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = a * x[i] + b;
}

__global__ void square(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * x[i];
}

static const int N = 200;

/* x = 0 (memset of value v), x = a x + b, x = x * x: every element (a*v+b)^2 */
static cudaGraph_t capture(cudaStream_t s, float *x, int v, float a, float b, int extra)
{
    cudaGraph_t g = nullptr;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CK(cudaMemsetAsync(x, v, N * sizeof(float), s));
    if (extra == 2) /* a memset where the kernel was: another node type */
        CK(cudaMemsetAsync(x, 0, N * sizeof(float), s));
    else
        axpb<<<(N + 127) / 128, 128, 0, s>>>(x, N, a, b);
    square<<<(N + 127) / 128, 128, 0, s>>>(x, N);
    if (extra == 1) square<<<1, 32, 0, s>>>(x, 32); /* one node more */
    CK(cudaGetLastError());
    CK(cudaStreamEndCapture(s, &g));
    return g;
}

static float expect(int v, float a, float b)
{
    const unsigned char bytes[4] = {(unsigned char)v, (unsigned char)v, (unsigned char)v,
                                     (unsigned char)v};
    float f;
    std::memcpy(&f, bytes, 4);
    f = a * f + b;
    return f * f;
}

static int wrong(const float *d, float want)
{
    std::vector<float> h(N);
    CK(cudaMemcpy(h.data(), d, N * sizeof(float), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < N; ++i) bad += h[i] != want;
    return bad;
}

static void update_captured()
{
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *x, *y;
    CK(cudaMalloc(&x, N * sizeof(float)));
    CK(cudaMalloc(&y, N * sizeof(float)));
    CK(cudaMemsetAsync(y, 0, N * sizeof(float), s));
    cudaGraph_t g1 = capture(s, x, 0, 2.0f, 3.0f, 0);
    cudaGraphExec_t ex;
    CK(cudaGraphInstantiate(&ex, g1, 0));
    CK(cudaGraphLaunch(ex, s)); /* queued with the first parameters... */

    cudaGraph_t g2 = capture(s, y, 0, 5.0f, 3.0f, 0);
    cudaGraphExecUpdateResultInfo info;
    info.result = cudaGraphExecUpdateError;
    CK(cudaGraphExecUpdate(ex, g2, &info));
    CHECK_EQ_INT(info.result, cudaGraphExecUpdateSuccess);
    CHECK(info.errorNode == nullptr);
    CK(cudaStreamSynchronize(s)); /* ...and ran with them */
    CHECK_EQ_INT(wrong(x, expect(0, 2.0f, 3.0f)), 0);
    CHECK_EQ_INT(wrong(y, 0.0f), 0);
    CK(cudaGraphLaunch(ex, s));
    CK(cudaStreamSynchronize(s));
    CHECK_EQ_INT(wrong(y, expect(0, 5.0f, 3.0f)), 0);

    /* refused: nothing changes, the exec computes as after the last update */
    cudaGraph_t bad[2] = {capture(s, x, 0, 7.0f, 7.0f, 1), capture(s, x, 0, 7.0f, 7.0f, 2)};
    const cudaGraphExecUpdateResult why[2] = {cudaGraphExecUpdateErrorTopologyChanged,
                                              cudaGraphExecUpdateErrorNodeTypeChanged};
    for (int k = 0; k < 2; ++k) {
        info.result = cudaGraphExecUpdateSuccess;
        CHECK_EQ_INT(cudaGraphExecUpdate(ex, bad[k], &info), cudaErrorGraphExecUpdateFailure);
        CHECK_EQ_INT(cudaGetLastError(), cudaErrorGraphExecUpdateFailure);
        CHECK_EQ_INT(info.result, why[k]);
        size_t n = 0;
        CK(cudaGraphGetNodes(bad[k], nullptr, &n));
        std::vector<cudaGraphNode_t> nodes(n);
        CK(cudaGraphGetNodes(bad[k], nodes.data(), &n));
        /* another count: no node; another type: the memset in the kernel's place */
        CHECK(info.errorNode == (k == 0 ? nullptr : nodes[1]));
    }
    CK(cudaMemsetAsync(y, 0, N * sizeof(float), s));
    CK(cudaGraphLaunch(ex, s));
    CK(cudaStreamSynchronize(s));
    CHECK_EQ_INT(wrong(y, expect(0, 5.0f, 3.0f)), 0);

    /* a memset value is a parameter too */
    cudaGraph_t g3 = capture(s, x, 0x3f, 1.0f, 0.0f, 0);
    CK(cudaGraphExecUpdate(ex, g3, &info));
    CK(cudaGraphLaunch(ex, s));
    CK(cudaStreamSynchronize(s));
    CHECK_EQ_INT(wrong(x, expect(0x3f, 1.0f, 0.0f)), 0);

    /* a library call where a kernel was: another node type */
    cudaGraph_t c1 = capture(s, x, 0, 1.0f, 0.0f, 0), c2;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CK(cudaMemsetAsync(x, 0, N * sizeof(float), s));
    CK(cudaMemcpyAsync(y, x, N * sizeof(float), cudaMemcpyDeviceToDevice, s));
    square<<<(N + 127) / 128, 128, 0, s>>>(x, N);
    CK(cudaStreamEndCapture(s, &c2));
    cudaGraphExec_t cx;
    CK(cudaGraphInstantiate(&cx, c1, 0));
    CHECK_EQ_INT(cudaGraphExecUpdate(cx, c2, &info), cudaErrorGraphExecUpdateFailure);
    CHECK_EQ_INT(info.result, cudaGraphExecUpdateErrorNodeTypeChanged);
    CHECK_EQ_INT(cudaGetLastError(), cudaErrorGraphExecUpdateFailure);

    CHECK_EQ_INT(cudaGraphExecUpdate(ex, g2, nullptr), cudaErrorInvalidValue);
    CK(cudaGraphExecDestroy(cx));
    CHECK_EQ_INT(cudaGraphExecUpdate(cx, c2, &info), cudaErrorInvalidValue);
    CHECK_EQ_INT(info.result, cudaGraphExecUpdateError);
    CHECK_EQ_INT(cudaGetLastError(), cudaErrorInvalidValue);
    for (cudaGraph_t g : {g1, g2, bad[0], bad[1], g3, c1, c2}) CK(cudaGraphDestroy(g));
    CK(cudaGraphExecDestroy(ex));
    CK(cudaStreamDestroy(s));
    CK(cudaFree(x));
    CK(cudaFree(y));
}

/* a -> b -> c by hand; c's dependency moved to a: TopologyChanged naming both */
static cudaGraph_t chain(float *x, float a, float b, bool moved, cudaGraphNode_t *nodes)
{
    cudaGraph_t g;
    CK(cudaGraphCreate(&g, 0));
    int n = N;
    void *p1[] = {&x, &n, &a, &b};
    void *p2[] = {&x, &n};
    cudaKernelNodeParams k1 = {}, k2 = {};
    k1.func = (void *)axpb;
    k1.gridDim = dim3((N + 127) / 128);
    k1.blockDim = dim3(128);
    k1.kernelParams = p1;
    k2 = k1;
    k2.func = (void *)square;
    k2.kernelParams = p2;
    CK(cudaGraphAddKernelNode(&nodes[0], g, nullptr, 0, &k1));
    CK(cudaGraphAddKernelNode(&nodes[1], g, &nodes[0], 1, &k2));
    CK(cudaGraphAddKernelNode(&nodes[2], g, &nodes[moved ? 0 : 1], 1, moved ? &k1 : &k2));
    return g;
}

static void update_by_hand()
{
    float *x;
    CK(cudaMalloc(&x, N * sizeof(float)));
    cudaGraphNode_t n1[3], n2[3], n3[3];
    cudaGraph_t g1 = chain(x, 1.0f, 1.0f, false, n1), g2 = chain(x, 1.0f, 2.0f, false, n2);
    cudaGraph_t g3 = chain(x, 1.0f, 2.0f, true, n3);
    cudaGraphExec_t ex;
    CK(cudaGraphInstantiate(&ex, g1, 0));
    cudaGraphExecUpdateResultInfo info;
    CHECK_EQ_INT(cudaGraphExecUpdate(ex, g3, &info), cudaErrorGraphExecUpdateFailure);
    CHECK_EQ_INT(info.result, cudaGraphExecUpdateErrorTopologyChanged);
    CHECK(info.errorNode == n3[2]);
    CHECK(info.errorFromNode == n3[0]);
    CHECK_EQ_INT(cudaGetLastError(), cudaErrorGraphExecUpdateFailure);
    CK(cudaGraphExecUpdate(ex, g2, &info));
    CK(cudaMemset(x, 0, N * sizeof(float)));
    CK(cudaGraphLaunch(ex, 0));
    CK(cudaDeviceSynchronize());
    const float once = (0.0f * 1.0f + 2.0f) * (0.0f * 1.0f + 2.0f); /* axpb, square */
    CHECK_EQ_INT(wrong(x, once * once), 0);                         /* square again */
    for (cudaGraph_t g : {g1, g2, g3}) CK(cudaGraphDestroy(g));
    CK(cudaGraphExecDestroy(ex));
    CK(cudaFree(x));
}

int main()
{
    update_captured();
    update_by_hand();
    if (g_test_failures) return 1;
    std::printf("graph_update: all checks passed\n");
    return 0;
}
