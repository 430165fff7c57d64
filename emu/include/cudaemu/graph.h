/* emu/include/cudaemu/graph.h - CUDA graphs and stream capture in the host
 * emulator (implemented in emu/src/graph.cpp; see emu/README.md).  Included
 * at the end of cuda_runtime.h: kernel nodes launch through its typed
 * cudaLaunchKernel.
 *
 * A node holds what the matching stream call would queue (the same checks,
 * argument conversion and launch representation: a kernel node's arguments
 * are copied by value when the node is made); a graph launch queues the
 * nodes on the stream in an order that respects the dependencies (the
 * emulator runs one stream's work at a time), the lowest-numbered ready node
 * first, or a random ready node with CUDAEMU_ORDER=shuffle.
 *
 * cudaKernelNodeParams::func is not a plain `void *` here: it must carry the
 * kernel's type so that kernelParams can be converted.  Assign the kernel
 * itself (`p.func = k;`); `p.func = (void *)k;` works too, since the
 * translator drops that cast when k is a kernel it has seen.  It still
 * converts to `void *`.
 */
#ifndef CUDAEMU_GRAPH_H
#define CUDAEMU_GRAPH_H

/* the 3D copy descriptors (cudaPos, cudaPitchedPtr, cudaExtent, cudaMemcpy3DParms) come
 * from cudaemu/texture.h, included by cuda_runtime.h before this header */

typedef struct CUgraph_st *cudaGraph_t;
typedef struct CUgraphNode_st *cudaGraphNode_t;
typedef struct CUgraphExec_st *cudaGraphExec_t;

/* Names and values as in CUDA 13.0's driver_types.h. */
enum cudaStreamCaptureStatus : int {
    cudaStreamCaptureStatusNone = 0,
    cudaStreamCaptureStatusActive = 1,
    cudaStreamCaptureStatusInvalidated = 2
};

enum cudaStreamCaptureMode : int {
    cudaStreamCaptureModeGlobal = 0,
    cudaStreamCaptureModeThreadLocal = 1,
    cudaStreamCaptureModeRelaxed = 2
};

enum cudaGraphNodeType : int {
    cudaGraphNodeTypeKernel = 0x00,
    cudaGraphNodeTypeMemcpy = 0x01,
    cudaGraphNodeTypeMemset = 0x02,
    cudaGraphNodeTypeHost = 0x03,
    cudaGraphNodeTypeGraph = 0x04,
    cudaGraphNodeTypeEmpty = 0x05,
    cudaGraphNodeTypeWaitEvent = 0x06,
    cudaGraphNodeTypeEventRecord = 0x07,
    cudaGraphNodeTypeExtSemaphoreSignal = 0x08,
    cudaGraphNodeTypeExtSemaphoreWait = 0x09,
    cudaGraphNodeTypeMemAlloc = 0x0a,
    cudaGraphNodeTypeMemFree = 0x0b,
    cudaGraphNodeTypeConditional = 0x0d,
    cudaGraphNodeTypeCount
};

enum cudaGraphExecUpdateResult : int {
    cudaGraphExecUpdateSuccess = 0x0,
    cudaGraphExecUpdateError = 0x1,
    cudaGraphExecUpdateErrorTopologyChanged = 0x2,
    cudaGraphExecUpdateErrorNodeTypeChanged = 0x3,
    cudaGraphExecUpdateErrorFunctionChanged = 0x4,
    cudaGraphExecUpdateErrorParametersChanged = 0x5,
    cudaGraphExecUpdateErrorNotSupported = 0x6,
    cudaGraphExecUpdateErrorUnsupportedFunctionChange = 0x7,
    cudaGraphExecUpdateErrorAttributesChanged = 0x8
};

enum cudaGraphInstantiateFlags : int {
    cudaGraphInstantiateFlagAutoFreeOnLaunch = 1,
    cudaGraphInstantiateFlagUpload = 2,
    cudaGraphInstantiateFlagDeviceLaunch = 4,
    cudaGraphInstantiateFlagUseNodePriority = 8
};

typedef enum cudaGraphDependencyType_enum : int {
    cudaGraphDependencyTypeDefault = 0,
    cudaGraphDependencyTypeProgrammatic = 1
} cudaGraphDependencyType;

/* Edge annotations: the emulator has only default (all-zero) edges. */
typedef struct cudaGraphEdgeData_st {
    unsigned char from_port;
    unsigned char to_port;
    unsigned char type;
    unsigned char reserved[5];
} cudaGraphEdgeData;

#define cudaEventRecordExternal 0x01
#define cudaEventWaitExternal 0x01

namespace cudaemu {
namespace detail {
/* Launches kernel (really a void (*)(P...)) with args[i] pointing at
 * parameter i, through the typed cudaLaunchKernel. */
template <typename... P>
cudaError_t launch_kernel_node(void (*kernel)(), const cudaLaunchConfig_t *cfg, void **args)
{
    return ::cudaLaunchKernel(reinterpret_cast<void (*)(P...)>(kernel), cfg->gridDim,
                              cfg->blockDim, args, cfg->dynamicSmemBytes, cfg->stream);
}
/* cudaKernelNodeParams::func: a kernel with its type (assigned from the
 * kernel), or only an address (assigned from a void *: such a node is
 * refused, the emulator cannot convert its arguments).  Trivial, so the
 * parameter structure may be zeroed with memset or `= {0}`. */
struct KernelRef {
    const void *ptr;
    void (*typed)();
    cudaError_t (*launch)(void (*)(), const cudaLaunchConfig_t *, void **);
    KernelRef() = default;
    KernelRef(const void *p) : ptr(p), typed(nullptr), launch(nullptr) {}
    template <typename... P>
    KernelRef(void (*k)(P...))
        : ptr(reinterpret_cast<const void *>(k)), typed(reinterpret_cast<void (*)()>(k)),
          launch(&launch_kernel_node<P...>)
    {
    }
    operator void *() const { return const_cast<void *>(ptr); }
};
} // namespace detail
} // namespace cudaemu

struct cudaKernelNodeParams {
    ::cudaemu::detail::KernelRef func;
    dim3 gridDim;
    dim3 blockDim;
    unsigned int sharedMemBytes;
    void **kernelParams;
    void **extra; /* not emulated: must be null */
};

/* width elements of elementSize (1, 2 or 4) bytes, height rows pitch bytes apart */
struct cudaMemsetParams {
    void *dst;
    size_t pitch;
    unsigned int value;
    unsigned int elementSize;
    size_t width;
    size_t height;
};

struct cudaHostNodeParams {
    cudaHostFn_t fn;
    void *userData;
};

inline namespace cudaemu_api {
/* graphs and nodes */
cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags);
cudaError_t cudaGraphDestroy(cudaGraph_t graph);
cudaError_t cudaGraphClone(cudaGraph_t *pGraphClone, cudaGraph_t originalGraph);
cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                   const cudaKernelNodeParams *pNodeParams);
cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node,
                                         const cudaKernelNodeParams *pNodeParams);
/* kernel node attributes: the launch attribute types, as in the toolkit */
#define cudaKernelNodeAttrID cudaLaunchAttributeID
#define cudaKernelNodeAttrValue cudaLaunchAttributeValue
#define cudaKernelNodeAttributeAccessPolicyWindow cudaLaunchAttributeAccessPolicyWindow
#define cudaKernelNodeAttributeCooperative cudaLaunchAttributeCooperative
#define cudaKernelNodeAttributePriority cudaLaunchAttributePriority
/* the access policy window and the priority: hints, kept and returned (no
 * result changes); other attributes: cudaErrorNotSupported and one line */
cudaError_t cudaGraphKernelNodeSetAttribute(cudaGraphNode_t hNode, cudaKernelNodeAttrID attr,
                                            const cudaKernelNodeAttrValue *value);
cudaError_t cudaGraphKernelNodeGetAttribute(cudaGraphNode_t hNode, cudaKernelNodeAttrID attr,
                                            cudaKernelNodeAttrValue *value_out);
/* linear memory only (srcArray and dstArray null) */
cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                   const cudaMemcpy3DParms *pCopyParams);
cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                     const cudaGraphNode_t *pDependencies,
                                     size_t numDependencies, void *dst, const void *src,
                                     size_t count, cudaMemcpyKind kind);
cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                   const cudaMemsetParams *pMemsetParams);
cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                 const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                 const cudaHostNodeParams *pNodeParams);
/* the node holds its own copy of childGraph */
cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                       const cudaGraphNode_t *pDependencies,
                                       size_t numDependencies, cudaGraph_t childGraph);
/* graph memory nodes: what cudaMallocFromPoolAsync (the device's default
 * pool) and cudaFreeAsync queue in stream capture; the block (dptr, made
 * now) lives as long as the graph, its clones and executable graphs */
cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                     const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                     cudaMemAllocNodeParams *nodeParams);
cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                    const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                    void *dptr);
cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                  const cudaGraphNode_t *pDependencies, size_t numDependencies);
/* CUDA 13's form (edgeData null or all zero) and CUDA 12's */
cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                     const cudaGraphNode_t *to, const cudaGraphEdgeData *edgeData,
                                     size_t numDependencies);
cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                     const cudaGraphNode_t *to, size_t numDependencies);
cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node);
/* nodes made by stream capture: cudaErrorNotSupported (their kind is not kept) */
cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, cudaGraphNodeType *pType);
cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *numNodes);
cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *pRootNodes,
                                  size_t *pNumRootNodes);

/* executable graphs: a snapshot of the graph; flags AutoFreeOnLaunch and
 * UseNodePriority are accepted (no effect), DeviceLaunch is not emulated */
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                 unsigned long long flags = 0);
cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                          unsigned long long flags = 0);
/* the pre-CUDA 12 form, as the toolkit's C++ header keeps it */
inline cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                        cudaGraphNode_t *pErrorNode, char *pLogBuffer,
                                        size_t bufferSize)
{
    (void)pErrorNode;
    if (pLogBuffer && bufferSize) pLogBuffer[0] = '\0';
    return cudaGraphInstantiate(pGraphExec, graph, 0ull);
}
cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const cudaKernelNodeParams *pNodeParams);
/* an executable graph takes the parameters of a topologically identical
 * graph (graph_update.cpp), else cudaErrorGraphExecUpdateFailure and why */
typedef struct cudaGraphExecUpdateResultInfo_st {
    enum cudaGraphExecUpdateResult result;
    cudaGraphNode_t errorNode;
    cudaGraphNode_t errorFromNode;
} cudaGraphExecUpdateResultInfo;
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                                cudaGraphExecUpdateResultInfo *resultInfo);
cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream);
cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream);
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec);

/* stream capture */
cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode);
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph);
cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus *pCaptureStatus);
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream,
                                     cudaStreamCaptureStatus *captureStatus_out,
                                     unsigned long long *id_out = 0, cudaGraph_t *graph_out = 0,
                                     const cudaGraphNode_t **dependencies_out = 0,
                                     const cudaGraphEdgeData **edgeData_out = 0,
                                     size_t *numDependencies_out = 0);
cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode *mode);

/* Not emulated yet: the getters of graph memory nodes, their trim, and
 * conditional nodes stop the compile where they are called, naming the call. */
typedef unsigned long long cudaGraphConditionalHandle;
template <class... A> struct cudaemu_graph_refused { static constexpr bool no = false; };
#define CUDAEMU_GRAPH_REFUSED(fn, what)                                                     \
    template <class... A> cudaError_t fn(A...)                                              \
    {                                                                                       \
        static_assert(cudaemu_graph_refused<A...>::no, "cudaemu: " #fn " (" what ") is not emulated"); \
        return cudaErrorNotSupported;                                                       \
    }
CUDAEMU_GRAPH_REFUSED(cudaGraphMemAllocNodeGetParams, "graph memory nodes")
CUDAEMU_GRAPH_REFUSED(cudaGraphMemFreeNodeGetParams, "graph memory nodes")
CUDAEMU_GRAPH_REFUSED(cudaDeviceGraphMemTrim, "graph memory nodes")
CUDAEMU_GRAPH_REFUSED(cudaGraphConditionalHandleCreate, "conditional graph nodes")
CUDAEMU_GRAPH_REFUSED(cudaGraphSetConditional, "conditional graph nodes")
CUDAEMU_GRAPH_REFUSED(cudaGraphAddNode, "cudaGraphNodeParams: conditional and memory nodes")
#undef CUDAEMU_GRAPH_REFUSED
} // inline namespace cudaemu_api

#endif
