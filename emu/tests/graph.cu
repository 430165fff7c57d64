/* emu/tests/graph.cu - CUDA graphs and stream capture.
 *
 * (1) A graph built by hand: memcpy, memset (4-byte elements), kernel and host
 *     nodes in a diamond, launched several times with new input each time;
 *     kernel arguments are copied when the node is made; clone,
 *     cudaGraphExecKernelNodeSetParams.
 * (2) Host node order: a chain keeps its order, the middle of a fan may run
 *     in any order (creation order with CUDAEMU_ORDER=fwd, several orders with
 *     shuffle).
 * (3) Stream capture from two streams forked and joined with events
 *     (<<<>>>, cudaLaunchKernel, cudaMemcpyAsync to pageable memory,
 *     cudaMemsetAsync, cudaLaunchHostFunc), nothing running while captured.
 * (4) Errors: a destroyed exec, calls stream capture forbids, unjoined forks,
 *     cycles, a kernel node whose kernel is only a void *.
 */
#include <cuda_runtime.h>

#include <cstdlib>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "test_util.h"

__global__ void scale(const float *in, float *out, int n, float factor)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = factor * in[i];
}

__global__ void add3(const float *a, const float *b, const float *c, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] + b[i] + c[i];
}

static const int N = 300;

struct HostCheck {
    const float *out; /* host copy of the result */
    const float *in;  /* the input of this launch */
    float a, b, c;    /* out must be (a + b) * in + c */
    int calls, bad;
};

static void check_result(void *p)
{
    HostCheck *h = static_cast<HostCheck *>(p);
    ++h->calls;
    for (int i = 0; i < N; ++i)
        if (h->out[i] != (h->a + h->b) * h->in[i] + h->c) ++h->bad;
}

static void fill_input(float *in, int round)
{
    for (int i = 0; i < N; ++i) in[i] = float(i % 17) + float(round);
}

static bool shuffled() { const char *o = std::getenv("CUDAEMU_ORDER"); return o && !std::strcmp(o, "shuffle"); }

static void manual_graph()
{
    float *h_in, *h_out, *d_in, *d_a, *d_b, *d_c, *d_out;
    CK(cudaMallocHost(&h_in, N * sizeof(float)));
    CK(cudaMallocHost(&h_out, N * sizeof(float)));
    CK(cudaMalloc(&d_in, N * sizeof(float)));
    CK(cudaMalloc(&d_a, N * sizeof(float)));
    CK(cudaMalloc(&d_b, N * sizeof(float)));
    CK(cudaMalloc(&d_c, N * sizeof(float)));
    CK(cudaMalloc(&d_out, N * sizeof(float)));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));

    cudaGraph_t g;
    CK(cudaGraphCreate(&g, 0));
    cudaGraphNode_t copy_in, set_c, k_a, k_b, k_sum, copy_out, host;
    CK(cudaGraphAddMemcpyNode1D(&copy_in, g, nullptr, 0, d_in, h_in, N * sizeof(float),
                                cudaMemcpyHostToDevice));

    float one_point_five = 1.5f;
    cudaMemsetParams ms;
    std::memset(&ms, 0, sizeof ms);
    ms.dst = d_c;
    std::memcpy(&ms.value, &one_point_five, 4); /* bytes that differ: an element fill */
    ms.elementSize = 4;
    ms.width = N;
    ms.height = 1;
    CK(cudaGraphAddMemsetNode(&set_c, g, nullptr, 0, &ms));

    /* arguments are copied when the node is made: changing them later changes nothing */
    float factor = 2.0f;
    int n = N;
    float *in_arg = d_in, *out_arg = d_a;
    void *args[] = {&in_arg, &out_arg, &n, &factor};
    cudaKernelNodeParams kp = {};
    kp.func = (void *)scale;
    kp.gridDim = dim3((N + 127) / 128);
    kp.blockDim = dim3(128);
    kp.kernelParams = args;
    CK(cudaGraphAddKernelNode(&k_a, g, &copy_in, 1, &kp));
    factor = 3.0f;
    out_arg = d_b;
    CK(cudaGraphAddKernelNode(&k_b, g, &copy_in, 1, &kp));
    factor = 100.0f;
    out_arg = d_in;

    const float *a_arg = d_a, *b_arg = d_b, *c_arg = d_c;
    float *sum_arg = d_out;
    void *args3[] = {&a_arg, &b_arg, &c_arg, &sum_arg, &n};
    kp.func = (void *)add3;
    kp.kernelParams = args3;
    cudaGraphNode_t sum_deps[] = {k_a, k_b};
    CK(cudaGraphAddKernelNode(&k_sum, g, sum_deps, 2, &kp));
    CK(cudaGraphAddDependencies(g, &set_c, &k_sum, nullptr, 1)); /* CUDA 13's form */

    cudaMemcpy3DParms cp;
    std::memset(&cp, 0, sizeof cp);
    cp.srcPtr = make_cudaPitchedPtr(d_out, N * sizeof(float), N, 1);
    cp.dstPtr = make_cudaPitchedPtr(h_out, N * sizeof(float), N, 1);
    cp.srcPos = make_cudaPos(0, 0, 0);
    cp.dstPos = make_cudaPos(0, 0, 0);
    cp.extent = make_cudaExtent(N * sizeof(float), 1, 1);
    cp.kind = cudaMemcpyDeviceToHost;
    CK(cudaGraphAddMemcpyNode(&copy_out, g, &k_sum, 1, &cp));

    HostCheck hc = {h_out, h_in, 2.0f, 3.0f, 1.5f, 0, 0};
    cudaHostNodeParams hp = {check_result, &hc};
    CK(cudaGraphAddHostNode(&host, g, &copy_out, 1, &hp));

    size_t count = 0;
    CK(cudaGraphGetNodes(g, nullptr, &count));
    CHECK_EQ_INT(count, 7);
    cudaGraphNode_t roots[4] = {};
    count = 4;
    CK(cudaGraphGetRootNodes(g, roots, &count));
    CHECK_EQ_INT(count, 2);
    CHECK(roots[0] == copy_in && roots[1] == set_c);
    cudaGraphNodeType type;
    CK(cudaGraphNodeGetType(set_c, &type));
    CHECK_EQ_INT(type, cudaGraphNodeTypeMemset);

    cudaGraphExec_t x;
    CK(cudaGraphInstantiate(&x, g, nullptr, nullptr, 0)); /* the pre-CUDA 12 form */
    for (int round = 0; round < 3; ++round) {
        fill_input(h_in, round); /* the copy node reads the input when it runs */
        CK(cudaGraphLaunch(x, s));
        CK(cudaStreamSynchronize(s));
        CHECK_EQ_INT(hc.calls, round + 1);
    }
    CHECK_EQ_INT(hc.bad, 0);
    CHECK(h_out[5] == 5.0f * (5.0f + 2.0f) + 1.5f);

    /* a clone runs the same; an exec's kernel node takes new arguments */
    cudaGraph_t g2;
    cudaGraphExec_t x2;
    CK(cudaGraphClone(&g2, g));
    CK(cudaGraphDestroy(g)); /* the clone and the exec are independent of it */
    CK(cudaGraphInstantiate(&x2, g2, 0));
    fill_input(h_in, 7);
    CK(cudaGraphLaunch(x2, s));
    CK(cudaStreamSynchronize(s));
    CHECK_EQ_INT(hc.calls, 4);
    CHECK_EQ_INT(hc.bad, 0);

    factor = 4.0f;
    out_arg = d_a;
    in_arg = d_in;
    kp.func = (void *)scale;
    kp.kernelParams = args;
    CK(cudaGraphExecKernelNodeSetParams(x, k_a, &kp));
    hc.a = 4.0f;
    fill_input(h_in, 9);
    CK(cudaGraphLaunch(x, s));
    CK(cudaStreamSynchronize(s));
    CHECK_EQ_INT(hc.calls, 5);
    CHECK_EQ_INT(hc.bad, 0);

#ifdef __CUDAEMU__
    /* streams are lazy: a launched graph runs when something waits for it */
    CK(cudaGraphLaunch(x, s));
    CHECK_EQ_INT(hc.calls, 5);
    CK(cudaStreamSynchronize(s));
    CHECK_EQ_INT(hc.calls, 6);
#endif

    /* the exec's node, not the graph's: launching x2 still uses factor 2 */
    hc.a = 2.0f;
    CK(cudaGraphLaunch(x2, s));
    CK(cudaStreamSynchronize(s));
    CHECK_EQ_INT(hc.bad, 0);

    CK(cudaGraphExecDestroy(x));
    CK(cudaGraphExecDestroy(x2));
    CK(cudaGraphDestroy(g2));
    CK(cudaStreamDestroy(s));
    CK(cudaFree(d_in));
    CK(cudaFree(d_a));
    CK(cudaFree(d_b));
    CK(cudaFree(d_c));
    CK(cudaFree(d_out));
    CK(cudaFreeHost(h_in));
    CK(cudaFreeHost(h_out));
}

static std::string g_trace;
static void trace(void *p) { g_trace += *static_cast<const char *>(p); }

static void host_order()
{
    static const char names[] = "rABCDs";
    cudaGraph_t g;
    CK(cudaGraphCreate(&g, 0));
    cudaGraphNode_t node[6];
    cudaHostNodeParams hp = {trace, (void *)&names[0]};
    CK(cudaGraphAddHostNode(&node[0], g, nullptr, 0, &hp));
    for (int i = 1; i <= 4; ++i) {
        hp.userData = (void *)&names[i];
        CK(cudaGraphAddHostNode(&node[i], g, &node[0], 1, &hp));
    }
    cudaGraphNode_t join;
    CK(cudaGraphAddEmptyNode(&join, g, &node[1], 4));
    hp.userData = (void *)&names[5];
    CK(cudaGraphAddHostNode(&node[5], g, &join, 1, &hp));
    cudaGraphExec_t x;
    CK(cudaGraphInstantiateWithFlags(&x, g, cudaGraphInstantiateFlagAutoFreeOnLaunch));
    std::set<std::string> seen;
    for (int i = 0; i < 20; ++i) {
        g_trace.clear();
        CK(cudaGraphLaunch(x, 0));
        CK(cudaDeviceSynchronize());
        CHECK_EQ_INT(g_trace.size(), 6);
        CHECK(g_trace[0] == 'r' && g_trace[5] == 's');
        seen.insert(g_trace);
    }
#ifdef __CUDAEMU__
    if (shuffled()) CHECK(seen.size() > 1);
    else CHECK(seen.size() == 1 && *seen.begin() == "rABCDs");
#endif
    CK(cudaGraphExecDestroy(x));
    CK(cudaGraphDestroy(g));
}

/* a child graph node, a kernel node's new parameters, a 3D box copy */
static void child_params_box()
{
    static const char names[] = "xyz";
    cudaGraph_t child, g;
    CK(cudaGraphCreate(&child, 0));
    cudaGraphNode_t cx, cy, cn, cz;
    cudaHostNodeParams hp = {trace, (void *)&names[0]};
    CK(cudaGraphAddHostNode(&cx, child, nullptr, 0, &hp));
    hp.userData = (void *)&names[1];
    CK(cudaGraphAddHostNode(&cy, child, &cx, 1, &hp));
    CK(cudaGraphCreate(&g, 0));
    CK(cudaGraphAddChildGraphNode(&cn, g, nullptr, 0, child));
    CK(cudaGraphDestroy(child)); /* the node has its own copy */
    hp.userData = (void *)&names[2];
    CK(cudaGraphAddHostNode(&cz, g, &cn, 1, &hp));
    cudaGraphNodeType type;
    CK(cudaGraphNodeGetType(cn, &type));
    CHECK_EQ_INT(type, cudaGraphNodeTypeGraph);

    /* a kernel node whose parameters change before instantiation */
    float *d, h[4];
    CK(cudaMalloc(&d, sizeof h));
    int n = 4;
    float factor = 2.0f;
    void *args[] = {&d, &d, &n, &factor};
    cudaKernelNodeParams kp = {};
    kp.func = (void *)scale;
    kp.gridDim = dim3(1);
    kp.blockDim = dim3(4);
    kp.kernelParams = args;
    cudaGraphNode_t set, k;
    CK(cudaGraphAddMemcpyNode1D(&set, g, &cz, 1, d, names, 0, cudaMemcpyHostToDevice));
    const float ones[4] = {1.0f, 1.0f, 1.0f, 1.0f};
    CK(cudaGraphDestroyNode(set));
    CK(cudaGraphAddMemcpyNode1D(&set, g, &cz, 1, d, ones, sizeof ones, cudaMemcpyHostToDevice));
    CK(cudaGraphAddKernelNode(&k, g, &set, 1, &kp));
    factor = 5.0f;
    CK(cudaGraphKernelNodeSetParams(k, &kp));

    /* a 2 x 2 x 2 box at (1, 1, 1) of a 4 x 3 x 3 float array, into the corner
     * of a 2 x 2 x 2 one (host to host: pageable memory read when the node runs) */
    std::vector<float> src(4 * 3 * 3), dst(8, -1.0f);
    cudaMemcpy3DParms cp = {};
    cp.srcPtr = make_cudaPitchedPtr(src.data(), 4 * sizeof(float), 4, 3);
    cp.srcPos = make_cudaPos(1 * sizeof(float), 1, 1);
    cp.dstPtr = make_cudaPitchedPtr(dst.data(), 2 * sizeof(float), 2, 2);
    cp.extent = make_cudaExtent(2 * sizeof(float), 2, 2);
    cp.kind = cudaMemcpyHostToHost;
    cudaGraphNode_t box;
    CK(cudaGraphAddMemcpyNode(&box, g, nullptr, 0, &cp));
    for (size_t i = 0; i < src.size(); ++i) src[i] = float(i);

    cudaGraphExec_t x;
    CK(cudaGraphInstantiate(&x, g, 0));
    g_trace.clear();
    CK(cudaGraphLaunch(x, 0));
    CK(cudaStreamSynchronize(0));
    CHECK(g_trace == "xyz");
    CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    CHECK(h[0] == 5.0f && h[3] == 5.0f);
    for (int z = 0; z < 2; ++z)
        for (int y = 0; y < 2; ++y)
            for (int xx = 0; xx < 2; ++xx)
                CHECK(dst[(z * 2 + y) * 2 + xx] == float(((z + 1) * 3 + (y + 1)) * 4 + xx + 1));
    CK(cudaGraphExecDestroy(x));
    CK(cudaGraphDestroy(g));
    CK(cudaFree(d));
}

static int g_captured_calls = 0;
static void count_call(void *p)
{
    ++g_captured_calls;
    HostCheck *h = static_cast<HostCheck *>(p);
    check_result(h);
}

static void capture_two_streams()
{
    float *h_in, *d_in, *d_a, *d_b, *d_c, *d_out;
    std::vector<float> h_out(N, -1.0f); /* pageable */
    CK(cudaMallocHost(&h_in, N * sizeof(float)));
    CK(cudaMalloc(&d_in, N * sizeof(float)));
    CK(cudaMalloc(&d_a, N * sizeof(float)));
    CK(cudaMalloc(&d_b, N * sizeof(float)));
    CK(cudaMalloc(&d_c, N * sizeof(float)));
    CK(cudaMalloc(&d_out, N * sizeof(float)));
    cudaStream_t s1, s2, run;
    cudaEvent_t fork, joined;
    CK(cudaStreamCreate(&s1));
    CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    CK(cudaStreamCreate(&run));
    CK(cudaEventCreate(&fork));
    CK(cudaEventCreateWithFlags(&joined, cudaEventDisableTiming));
    HostCheck hc = {h_out.data(), h_in, 2.0f, 0.0f, 0.0f, 0, 0};

    CK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    cudaStreamCaptureStatus st;
    CK(cudaStreamIsCapturing(s1, &st));
    CHECK_EQ_INT(st, cudaStreamCaptureStatusActive);
    CK(cudaStreamIsCapturing(s2, &st));
    CHECK_EQ_INT(st, cudaStreamCaptureStatusNone);
    CK(cudaEventRecord(fork, s1));
    CK(cudaStreamWaitEvent(s2, fork, 0)); /* s2 joins the capture */
    CK(cudaStreamIsCapturing(s2, &st));
    CHECK_EQ_INT(st, cudaStreamCaptureStatusActive);
    CK(cudaMemcpyAsync(d_in, h_in, N * sizeof(float), cudaMemcpyHostToDevice, s1));
    CK(cudaMemsetAsync(d_b, 0, N * sizeof(float), s2)); /* b = 0 */
    CK(cudaMemsetAsync(d_c, 0, N * sizeof(float), s2)); /* c = 0 */
    CK(cudaEventRecord(joined, s2));
    scale<<<(N + 127) / 128, 128, 0, s1>>>(d_in, d_a, N, 2.0f);
    CK(cudaGetLastError());
    CK(cudaStreamWaitEvent(s1, joined, 0)); /* join */
    int n = N;
    void *args[] = {&d_a, &d_b, &d_c, &d_out, &n};
    CK(cudaLaunchKernel((void *)add3, dim3((N + 127) / 128), dim3(128), args, 0, s1));
    CK(cudaMemcpyAsync(h_out.data(), d_out, N * sizeof(float), cudaMemcpyDeviceToHost, s1));
    CK(cudaLaunchHostFunc(s1, count_call, &hc));
    unsigned long long id = 0;
    size_t ndeps = 0;
    const cudaGraphNode_t *deps = nullptr;
    CK(cudaStreamGetCaptureInfo(s1, &st, &id, nullptr, &deps, nullptr, &ndeps));
    CHECK(st == cudaStreamCaptureStatusActive && id != 0 && ndeps == 1 && deps != nullptr);
    cudaGraph_t g;
    CK(cudaStreamEndCapture(s1, &g));
    CK(cudaStreamIsCapturing(s2, &st));
    CHECK_EQ_INT(st, cudaStreamCaptureStatusNone);
    CHECK_EQ_INT(g_captured_calls, 0); /* captured, not run */
    CHECK(h_out[0] == -1.0f);
    size_t count = 0;
    CK(cudaGraphGetNodes(g, nullptr, &count));
    CHECK_EQ_INT(count, 7);

    cudaGraphExec_t x;
    CK(cudaGraphInstantiate(&x, g, 0));
    for (int round = 0; round < 3; ++round) {
        fill_input(h_in, round);
        CK(cudaGraphLaunch(x, run));
        CK(cudaStreamSynchronize(run));
        CHECK_EQ_INT(g_captured_calls, round + 1);
    }
    CHECK_EQ_INT(hc.bad, 0);
    CHECK(h_out[3] == 2.0f * 5.0f);
    /* captured work ran in the graph only: s1 and s2 have nothing left */
    CK(cudaStreamQuery(s1));
    CK(cudaStreamQuery(s2));

    CK(cudaGraphExecDestroy(x));
    CK(cudaGraphDestroy(g));
    CK(cudaEventDestroy(fork));
    CK(cudaEventDestroy(joined));
    CK(cudaStreamDestroy(s1));
    CK(cudaStreamDestroy(s2));
    CK(cudaStreamDestroy(run));
    CK(cudaFree(d_in));
    CK(cudaFree(d_a));
    CK(cudaFree(d_b));
    CK(cudaFree(d_c));
    CK(cudaFree(d_out));
    CK(cudaFreeHost(h_in));
}

static void nothing(void *) {}

static void errors()
{
    cudaStream_t s, s2;
    CK(cudaStreamCreate(&s));
    CK(cudaStreamCreate(&s2));
    float *d;
    CK(cudaMalloc(&d, 64));
    cudaGraph_t g = nullptr;

    /* a destroyed exec */
    CK(cudaGraphCreate(&g, 0));
    cudaGraphNode_t a, b;
    CK(cudaGraphAddEmptyNode(&a, g, nullptr, 0));
    cudaGraphExec_t x;
    CK(cudaGraphInstantiate(&x, g, 0));
    CK(cudaGraphExecDestroy(x));
    CHECK(cudaGraphLaunch(x, s) != cudaSuccess);
    CHECK(cudaGetLastError() != cudaSuccess);
    CHECK_EQ_INT(cudaGetLastError(), cudaSuccess);

    /* a cycle cannot be instantiated */
    CK(cudaGraphAddEmptyNode(&b, g, &a, 1));
#ifdef __CUDAEMU__
    CHECK_EQ_INT(cudaGraphAddDependencies(g, &a, &b, 1), cudaErrorInvalidValue); /* CUDA 12's form */
#endif
    CHECK_EQ_INT(cudaGraphAddDependencies(g, &a, &b, nullptr, 1), cudaErrorInvalidValue); /* exists */
    CK(cudaGraphAddDependencies(g, &b, &a, nullptr, 1));
    CHECK(cudaGraphInstantiate(&x, g, 0) != cudaSuccess);
    CK(cudaGraphDestroy(g));
    (void)cudaGetLastError();

    /* synchronizing a capturing stream invalidates the capture */
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK_EQ_INT(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaErrorIllegalState);
    CK(cudaMemsetAsync(d, 0, 64, s));
    CHECK_EQ_INT(cudaStreamSynchronize(s), cudaErrorStreamCaptureUnsupported);
    cudaStreamCaptureStatus st;
    CK(cudaStreamIsCapturing(s, &st));
    CHECK_EQ_INT(st, cudaStreamCaptureStatusInvalidated);
    CHECK_EQ_INT(cudaMemsetAsync(d, 0, 64, s), cudaErrorStreamCaptureInvalidated);
    g = (cudaGraph_t)1;
    CHECK_EQ_INT(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);
    CHECK(g == nullptr);
    CHECK_EQ_INT(cudaStreamEndCapture(s, &g), cudaErrorIllegalState); /* not capturing */

    /* cudaMalloc in a global-mode capture; allowed after switching this thread to relaxed */
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    float *p = nullptr;
    CHECK_EQ_INT(cudaMalloc(&p, 16), cudaErrorStreamCaptureUnsupported);
    CHECK_EQ_INT(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    CK(cudaThreadExchangeStreamCaptureMode(&mode));
    CK(cudaMalloc(&p, 16));
    CK(cudaThreadExchangeStreamCaptureMode(&mode));
    CHECK_EQ_INT(mode, cudaStreamCaptureModeRelaxed);
    CK(cudaLaunchHostFunc(s, nothing, nullptr));
    CK(cudaStreamEndCapture(s, &g));
    CK(cudaGraphDestroy(g));

    /* the legacy stream (a synchronous copy too) would depend on a capturing blocking stream */
    float h[16];
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK_EQ_INT(cudaMemcpy(h, p, 16, cudaMemcpyDeviceToHost), cudaErrorStreamCaptureImplicit);
    CHECK_EQ_INT(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);

    /* the device cannot be synchronized, a captured event not queried */
    cudaEvent_t ev;
    CK(cudaEventCreate(&ev));
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CK(cudaEventRecord(ev, s));
    CHECK_EQ_INT(cudaEventQuery(ev), cudaErrorCapturedEvent);
    CHECK_EQ_INT(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK_EQ_INT(cudaDeviceSynchronize(), cudaErrorStreamCaptureUnsupported);
    CHECK_EQ_INT(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);

    /* waiting on an event recorded outside the capture */
    CK(cudaEventRecord(ev, s2));
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK_EQ_INT(cudaStreamWaitEvent(s, ev, 0), cudaErrorStreamCaptureIsolation);
    CHECK_EQ_INT(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);

    /* a fork that is not joined back; ending on a stream that did not begin */
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CK(cudaEventRecord(ev, s));
    CK(cudaStreamWaitEvent(s2, ev, 0));
    CK(cudaMemsetAsync(d, 0, 64, s2));
    CHECK_EQ_INT(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureUnjoined);
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CK(cudaEventRecord(ev, s));
    CK(cudaStreamWaitEvent(s2, ev, 0));
    CHECK_EQ_INT(cudaStreamEndCapture(s2, &g), cudaErrorStreamCaptureUnmatched);
    CHECK_EQ_INT(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);
    CHECK_EQ_INT(cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal),
                 cudaErrorStreamCaptureUnsupported);
    (void)cudaGetLastError();

    /* node arguments checked as a launch's */
    CK(cudaGraphCreate(&g, 0));
    int n = 4;
    float f = 1.0f;
    void *args[] = {&d, &d, &n, &f};
    cudaKernelNodeParams kp = {};
    kp.func = (void *)scale;
    kp.gridDim = dim3(1);
    kp.blockDim = dim3(2048);
    kp.kernelParams = args;
    CHECK_EQ_INT(cudaGraphAddKernelNode(&a, g, nullptr, 0, &kp), cudaErrorInvalidConfiguration);
    cudaMemsetParams ms;
    std::memset(&ms, 0, sizeof ms);
    ms.dst = d;
    ms.elementSize = 3;
    ms.width = 4;
    ms.height = 1;
    CHECK_EQ_INT(cudaGraphAddMemsetNode(&a, g, nullptr, 0, &ms), cudaErrorInvalidValue);
    ms.elementSize = 4;
    ms.width = 17; /* 68 bytes: past the 64-byte block */
    CHECK_EQ_INT(cudaGraphAddMemsetNode(&a, g, nullptr, 0, &ms), cudaErrorInvalidValue);
#ifdef __CUDAEMU__
    /* a kernel known only as a void *: its arguments cannot be converted */
    void *untyped = (void *)scale;
    kp.func = untyped;
    kp.blockDim = dim3(2);
    CHECK_EQ_INT(cudaGraphAddKernelNode(&a, g, nullptr, 0, &kp), cudaErrorInvalidDeviceFunction);
#endif
    /* a `func` member that is not a kernel node's keeps its cast (the translator
     * drops it only before a kernel's name) */
    struct Job {
        void *func;
    } job;
    job.func = (void *)nothing;
    CHECK(job.func != nullptr);
    size_t count = 1;
    CK(cudaGraphGetNodes(g, nullptr, &count));
    CHECK_EQ_INT(count, 0);
    CK(cudaGraphDestroy(g));
    (void)cudaGetLastError();

    CK(cudaEventDestroy(ev));
    CK(cudaFree(p));
    CK(cudaFree(d));
    CK(cudaStreamDestroy(s));
    CK(cudaStreamDestroy(s2));
}

/* a kernel node's access policy window (#34): kept, cloned, returned; a
 * hint only (the node computes as without it); what would change the
 * launch (cooperative) is refused */
static void kernel_node_attributes()
{
    float *d_in, *d_out;
    CK(cudaMalloc(&d_in, N * sizeof(float)));
    CK(cudaMalloc(&d_out, N * sizeof(float)));
    std::vector<float> h(N);
    for (int i = 0; i < N; ++i) h[i] = float(i);
    CK(cudaMemcpy(d_in, h.data(), N * sizeof(float), cudaMemcpyHostToDevice));
    cudaGraph_t g;
    CK(cudaGraphCreate(&g, 0));
    float factor = 3.0f;
    int n = N;
    void *args[] = {&d_in, &d_out, &n, &factor};
    cudaKernelNodeParams kp = {};
    kp.func = (void *)scale;
    kp.gridDim = dim3((N + 127) / 128);
    kp.blockDim = dim3(128);
    kp.kernelParams = args;
    cudaGraphNode_t k;
    CK(cudaGraphAddKernelNode(&k, g, nullptr, 0, &kp));
    cudaKernelNodeAttrValue v, got;
    std::memset(&v, 0, sizeof v);
    v.accessPolicyWindow.base_ptr = d_in;
    v.accessPolicyWindow.num_bytes = N * sizeof(float);
    v.accessPolicyWindow.hitRatio = 0.5f;
    v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    CK(cudaGraphKernelNodeSetAttribute(k, cudaKernelNodeAttributeAccessPolicyWindow, &v));
    cudaGraph_t c;
    CK(cudaGraphClone(&c, g));
    size_t count = 1;
    cudaGraphNode_t ck;
    CK(cudaGraphGetNodes(c, &ck, &count));
    CK(cudaGraphKernelNodeGetAttribute(ck, cudaKernelNodeAttributeAccessPolicyWindow, &got));
    CHECK(got.accessPolicyWindow.base_ptr == d_in && got.accessPolicyWindow.hitRatio == 0.5f);
    CHECK_EQ_INT(got.accessPolicyWindow.num_bytes, N * sizeof(float));
    CHECK_EQ_INT(got.accessPolicyWindow.hitProp, cudaAccessPropertyPersisting);
    v.accessPolicyWindow.missProp = cudaAccessPropertyPersisting;
    CHECK_EQ_INT(cudaGraphKernelNodeSetAttribute(k, cudaKernelNodeAttributeAccessPolicyWindow, &v),
                 cudaErrorInvalidValue);
    cudaKernelNodeAttrValue coop;
    std::memset(&coop, 0, sizeof coop);
    coop.cooperative = 1;
    CHECK_EQ_INT(cudaGraphKernelNodeSetAttribute(k, cudaKernelNodeAttributeCooperative, &coop),
                 cudaErrorNotSupported);
    cudaGetLastError();
    cudaGraphExec_t x;
    CK(cudaGraphInstantiate(&x, c, 0));
    CK(cudaGraphLaunch(x, 0));
    CK(cudaMemcpy(h.data(), d_out, N * sizeof(float), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < N; ++i) bad += h[i] != 3.0f * float(i);
    CHECK_EQ_INT(bad, 0);
    CK(cudaGraphExecDestroy(x));
    CK(cudaGraphDestroy(c));
    CK(cudaGraphDestroy(g));
    CK(cudaFree(d_in));
    CK(cudaFree(d_out));
}

int main()
{
    manual_graph();
    kernel_node_attributes();
    host_order();
    child_params_box();
    capture_two_streams();
    errors();
    CK(cudaDeviceSynchronize());
    return test_exit("graph");
}
