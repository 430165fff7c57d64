/* emu/src/graph.cpp - CUDA graphs and stream capture.
 *
 * One mechanism makes every node: the work a stream call would queue (an Op
 * of streams.cpp) is recorded instead.  enqueue() hands each op to
 * capture_op() first:
 *   - while a node is being made (t_sink set), the op becomes the node's body:
 *     cudaGraphAddKernelNode calls the typed cudaLaunchKernel, the memcpy,
 *     memset and host nodes cudaMemcpy2DAsync / cudaMemset2DAsync /
 *     cudaLaunchHostFunc, so a node gets exactly the checks, argument
 *     conversion (by value, when the node is made) and launch representation
 *     of the stream call;
 *   - on a capturing stream the op becomes a node that depends on the
 *     stream's capture frontier, and an event record remembers that frontier
 *     (cudaStreamWaitEvent on such an event joins the waiting stream into the
 *     capture, or adds the event's nodes to its frontier).
 * cudaGraphInstantiate copies the graph; cudaGraphLaunch queues the copied
 * ops on the stream in a topological order (the emulator runs one stream's
 * work at a time, so a stream order that respects every dependency is a valid
 * execution): the lowest-numbered ready node first (fwd), the highest (rev),
 * or a random ready node (shuffle), so a missing dependency can show.
 *
 * The calls stream capture forbids return CUDA's errors and invalidate the
 * captures concerned (cudaStreamEndCapture then fails with
 * cudaErrorStreamCaptureInvalidated): synchronizing or querying a capturing
 * stream (cudaErrorStreamCaptureUnsupported), a captured event
 * (cudaErrorCapturedEvent) or the device; using the legacy stream while a
 * blocking stream of its device captures (cudaErrorStreamCaptureImplicit:
 * synchronous cudaMemcpy/cudaMemset too); waiting on an event recorded outside
 * the capture (cudaErrorStreamCaptureIsolation); cudaMalloc, cudaMallocHost,
 * cudaFree & co. under the thread's capture mode
 * (cudaThreadExchangeStreamCaptureMode) as CUDA documents it.
 */
#include "internal.h"

#include <algorithm>
#include <set>
#include <thread>

#include "graph_internal.h"

namespace cudaemu {
namespace {


struct StreamCap {
    std::shared_ptr<CUstream_st> stream;     /* kept alive while it captures */
    std::vector<CUgraphNode_st *> frontier;  /* what its next node depends on */
    std::vector<cudaGraphEdgeData> edges;    /* all default, for cudaStreamGetCaptureInfo */
};

struct Capture {
    uint64_t id = 0;
    CUgraph_st *graph = nullptr;
    cudaStreamCaptureMode mode = cudaStreamCaptureModeGlobal;
    std::thread::id thread;
    bool invalidated = false;
    CUstream_st *origin = nullptr;
    std::map<CUstream_st *, StreamCap> streams; /* the origin and the streams that joined */
};

/* An event whose latest record happened in a capture. */
struct CapturedEvent {
    std::weak_ptr<CUevent_st> event;
    uint64_t capture = 0;
    std::vector<CUgraphNode_st *> nodes;
};

struct Registry {
    std::map<CUgraph_st *, std::unique_ptr<CUgraph_st>> graphs;
    std::map<CUgraphNode_st *, CUgraph_st *> nodes; /* the nodes of those graphs */
    std::map<CUgraphExec_st *, std::unique_ptr<CUgraphExec_st>> execs;
    std::vector<std::unique_ptr<Capture>> captures; /* active capture sequences */
    std::map<CUevent_st *, CapturedEvent> events;
    uint64_t next_capture = 1;
};

Registry &reg()
{
    static Registry *r = new Registry; /* never destroyed, like st() */
    return *r;
}

/* Set while an API call runs to make a node: its ops go here. */
thread_local std::vector<Op> *t_sink = nullptr;
/* cudaThreadExchangeStreamCaptureMode */
thread_local cudaStreamCaptureMode t_mode = cudaStreamCaptureModeGlobal;

/* Runs an API call with the work it queues recorded into ops. */
template <class F> cudaError_t record(std::vector<Op> &ops, F call)
{
    std::vector<Op> *saved = t_sink;
    t_sink = &ops;
    cudaError_t e = call();
    t_sink = saved;
    return e;
}

Capture *capture_of(const CUstream_st *s)
{
    for (auto &c : reg().captures)
        if (c->streams.count(const_cast<CUstream_st *>(s))) return c.get();
    return nullptr;
}

Capture *capture_by_id(uint64_t id)
{
    for (auto &c : reg().captures)
        if (c->id == id) return c.get();
    return nullptr;
}

/* The captures a use of device d's legacy stream would depend on (its
 * blocking streams'); invalidates them when `invalidate`. */
bool blocking_capture(int d, bool invalidate)
{
    bool any = false;
    for (auto &c : reg().captures)
        for (auto &kv : c->streams)
            if (kv.first->device == d && !(kv.first->flags & cudaStreamNonBlocking)) {
                if (invalidate) c->invalidated = true;
                any = true;
                break;
            }
    return any;
}

CapturedEvent *captured(CUevent_st *x)
{
    auto it = reg().events.find(x);
    if (it == reg().events.end()) return nullptr;
    auto sp = it->second.event.lock();
    if (sp.get() != x) { /* destroyed; x is a new event at the same address */
        reg().events.erase(it);
        return nullptr;
    }
    return &it->second;
}

CUgraph_st *graph_of(cudaGraph_t g)
{
    auto it = reg().graphs.find(g);
    return it == reg().graphs.end() ? nullptr : it->second.get();
}

CUgraphNode_st *node_of(cudaGraphNode_t n)
{
    return reg().nodes.count(n) ? n : nullptr;
}

CUgraphNode_st *new_node(CUgraph_st *g, int type, std::vector<CUgraphNode_st *> deps)
{
    auto n = std::make_unique<CUgraphNode_st>();
    n->type = type;
    n->graph = g;
    n->deps = std::move(deps);
    CUgraphNode_st *p = n.get();
    g->nodes.push_back(std::move(n));
    if (reg().graphs.count(g)) reg().nodes[p] = g;
    return p;
}

/* Copies src's nodes and edges into dst. */
void clone_into(CUgraph_st *dst, const CUgraph_st &src)
{
    std::map<const CUgraphNode_st *, CUgraphNode_st *> m;
    for (auto &n : src.nodes) {
        CUgraphNode_st *c = new_node(dst, n->type, {});
        c->ops = n->ops;
        c->attrs = n->attrs;
        if (n->child) {
            c->child = std::make_unique<CUgraph_st>();
            clone_into(c->child.get(), *n->child);
        }
        m[n.get()] = c;
    }
    for (auto &n : src.nodes)
        for (CUgraphNode_st *d : n->deps) m[n.get()]->deps.push_back(m[d]);
}

CUgraph_st *register_graph()
{
    auto g = std::make_unique<CUgraph_st>();
    CUgraph_st *p = g.get();
    reg().graphs[p] = std::move(g);
    return p;
}

void destroy_graph(CUgraph_st *g)
{
    for (auto &n : g->nodes) reg().nodes.erase(n.get());
    reg().graphs.erase(g);
}

/* The dependency list of a new node of g: nodes of g, no repeats. */
cudaError_t check_deps(CUgraph_st *g, const cudaGraphNode_t *deps, size_t n,
                       std::vector<CUgraphNode_st *> *out)
{
    if (n && !deps) return cudaErrorInvalidValue;
    for (size_t i = 0; i < n; ++i) {
        auto it = reg().nodes.find(deps[i]);
        if (it == reg().nodes.end() || it->second != g) return cudaErrorInvalidValue;
        if (std::find(out->begin(), out->end(), deps[i]) != out->end())
            return cudaErrorInvalidValue;
        out->push_back(deps[i]);
    }
    return cudaSuccess;
}

/* Adds a node of `type` to graph after deps, its ops made by body(ops). */
template <class Body>
cudaError_t add_node(cudaGraphNode_t *pNode, cudaGraph_t graph, const cudaGraphNode_t *deps,
                     size_t n, int type, Body body)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    if (!pNode) return ret(cudaErrorInvalidValue);
    CUgraph_st *g = graph_of(graph);
    if (!g) return ret(cudaErrorInvalidValue);
    std::vector<CUgraphNode_st *> d;
    if (cudaError_t e = check_deps(g, deps, n, &d)) return ret(e);
    std::vector<Op> ops;
    if (cudaError_t e = body(ops)) return ret(e);
    CUgraphNode_st *node = new_node(g, type, std::move(d));
    node->ops = std::move(ops);
    *pNode = node;
    return cudaSuccess;
}

cudaError_t kernel_body(const cudaKernelNodeParams *p, std::vector<Op> &ops)
{
    if (!p || (p->kernelParams && p->extra)) return cudaErrorInvalidValue;
    if (p->extra) {
        report("a kernel node's arguments in the `extra` format are not emulated (use kernelParams)");
        return cudaErrorNotSupported;
    }
    if (!p->func.ptr) return cudaErrorInvalidDeviceFunction;
    if (!p->func.launch) {
        report("kernel node: %s is only a void * here, the emulator needs its type to "
               "convert kernelParams (assign the kernel itself to func)",
               function_name(p->func.ptr).c_str());
        return cudaErrorInvalidDeviceFunction;
    }
    cudaLaunchConfig_t cfg{p->gridDim, p->blockDim, p->sharedMemBytes, nullptr, nullptr, 0};
    return record(ops, [&] { return p->func.launch(p->func.typed, &cfg, p->kernelParams); });
}

/* A 3D copy of linear memory: one 2D copy per slice. */
cudaError_t memcpy_body(const cudaMemcpy3DParms *p, std::vector<Op> &ops)
{
    if (!p) return cudaErrorInvalidValue;
    if (p->srcArray || p->dstArray) {
        report("graph memcpy node: copies from or to CUDA arrays are not emulated");
        return cudaErrorNotSupported;
    }
    const cudaExtent x = p->extent;
    if (x.depth > 1 && (x.height > p->srcPtr.ysize || x.height > p->dstPtr.ysize))
        return cudaErrorInvalidValue;
    const size_t sslice = p->srcPtr.pitch * p->srcPtr.ysize;
    const size_t dslice = p->dstPtr.pitch * p->dstPtr.ysize;
    return record(ops, [&]() -> cudaError_t {
        for (size_t z = 0; z < x.depth; ++z) {
            const char *src = static_cast<const char *>(p->srcPtr.ptr);
            char *dst = static_cast<char *>(p->dstPtr.ptr);
            if (src) src += (p->srcPos.z + z) * sslice + p->srcPos.y * p->srcPtr.pitch + p->srcPos.x;
            if (dst) dst += (p->dstPos.z + z) * dslice + p->dstPos.y * p->dstPtr.pitch + p->dstPos.x;
            if (cudaError_t e = cudaMemcpy2DAsync(dst, p->dstPtr.pitch, src, p->srcPtr.pitch,
                                                  x.width, x.height, p->kind, 0))
                return e;
        }
        return cudaSuccess;
    });
}

/* cudaMemset2DAsync checks the span and sets bytes; 2- and 4-byte elements
 * whose bytes differ are then filled element by element instead. */
cudaError_t memset_body(const cudaMemsetParams *p, std::vector<Op> &ops)
{
    if (!p) return cudaErrorInvalidValue;
    const size_t es = p->elementSize;
    if (es != 1 && es != 2 && es != 4) return cudaErrorInvalidValue;
    const size_t row = p->width * es, height = p->height;
    const size_t pitch = height > 1 ? p->pitch : row;
    const uint32_t v = es == 4 ? p->value : es == 2 ? (p->value & 0xffffu) : (p->value & 0xffu);
    if (cudaError_t e = record(ops, [&] {
            return cudaMemset2DAsync(p->dst, pitch, int(v & 0xff), row, height, 0);
        }))
        return e;
    const uint32_t bytes = (v & 0xff) * 0x01010101u;
    if (es > 1 && v != (es == 4 ? bytes : (bytes & 0xffffu)) && !ops.empty()) {
        char *dst = static_cast<char *>(p->dst);
        const size_t width = p->width;
        ops.back().work = [dst, pitch, width, height, es, v]() {
            for (size_t r = 0; r < height; ++r)
                for (size_t i = 0; i < width; ++i) {
                    if (es == 2) {
                        const uint16_t h = uint16_t(v);
                        std::memcpy(dst + r * pitch + i * 2, &h, 2);
                    } else {
                        std::memcpy(dst + r * pitch + i * 4, &v, 4);
                    }
                }
            for (size_t r = 0; r < height; ++r) sanitize_written(dst + r * pitch, width * es);
            return cudaSuccess;
        };
    }
    return cudaSuccess;
}

/* Fills order with the node indices of x in an order that respects the
 * dependencies, chosen by CUDAEMU_ORDER; false when x has a cycle. */
bool topo_order(const CUgraphExec_st &x, std::vector<uint32_t> &order)
{
    const size_t n = x.nodes.size();
    std::vector<uint32_t> pending(n), ready;
    std::vector<std::vector<uint32_t>> users(n);
    for (uint32_t i = 0; i < n; ++i) {
        pending[i] = uint32_t(x.nodes[i].deps.size());
        for (uint32_t d : x.nodes[i].deps) users[d].push_back(i);
        if (!pending[i]) ready.push_back(i);
    }
    order.clear();
    while (!ready.empty()) {
        size_t k = 0;
        switch (config().order) {
        case Order::Fwd: k = size_t(std::min_element(ready.begin(), ready.end()) - ready.begin()); break;
        case Order::Rev: k = size_t(std::max_element(ready.begin(), ready.end()) - ready.begin()); break;
        case Order::Shuffle: k = size_t(rng()() % ready.size()); break;
        }
        const uint32_t v = ready[k];
        ready.erase(ready.begin() + long(k));
        order.push_back(v);
        for (uint32_t u : users[v])
            if (--pending[u] == 0) ready.push_back(u);
    }
    return order.size() == n;
}

cudaError_t instantiate(const CUgraph_st &g, std::unique_ptr<CUgraphExec_st> *out)
{
    auto x = std::make_unique<CUgraphExec_st>();
    std::map<const CUgraphNode_st *, uint32_t> index;
    for (uint32_t i = 0; i < g.nodes.size(); ++i) index[g.nodes[i].get()] = i;
    x->nodes.resize(g.nodes.size());
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        const CUgraphNode_st &n = *g.nodes[i];
        CUgraphExec_st::Node &e = x->nodes[i];
        e.type = n.type;
        e.ops = n.ops;
        e.origin = &n;
        for (const CUgraphNode_st *d : n.deps) e.deps.push_back(index.at(d));
        if (n.child)
            if (cudaError_t err = instantiate(*n.child, &e.child)) return err;
    }
    std::vector<uint32_t> order;
    if (!topo_order(*x, order)) return cudaErrorInvalidValue; /* a cycle */
    *out = std::move(x);
    return cudaSuccess;
}

cudaError_t launch_exec(const CUgraphExec_st &x, CUstream_st *s)
{
    std::vector<uint32_t> order;
    topo_order(x, order);
    for (uint32_t v : order) {
        const CUgraphExec_st::Node &n = x.nodes[v];
        if (n.child)
            if (cudaError_t e = launch_exec(*n.child, s)) return e;
        for (const Op &op : n.ops)
            if (cudaError_t e = enqueue(s, op)) return e;
    }
    return cudaSuccess;
}

/* The nodes reachable backwards from the origin stream's frontier: all of
 * them unless a forked stream was not joined back. */
bool joined(const Capture &c)
{
    std::set<const CUgraphNode_st *> seen;
    std::vector<const CUgraphNode_st *> todo(c.streams.at(c.origin).frontier.begin(),
                                             c.streams.at(c.origin).frontier.end());
    while (!todo.empty()) {
        const CUgraphNode_st *n = todo.back();
        todo.pop_back();
        if (!seen.insert(n).second) continue;
        todo.insert(todo.end(), n->deps.begin(), n->deps.end());
    }
    return seen.size() == c.graph->nodes.size();
}

cudaError_t get_nodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *num, bool roots)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    CUgraph_st *g = graph_of(graph);
    if (!g || !num) return ret(cudaErrorInvalidValue);
    std::vector<cudaGraphNode_t> v;
    for (auto &n : g->nodes)
        if (!roots || n->deps.empty()) v.push_back(n.get());
    if (nodes) {
        for (size_t i = 0; i < *num; ++i) nodes[i] = i < v.size() ? v[i] : nullptr;
        *num = std::min(*num, v.size());
    } else {
        *num = v.size();
    }
    return cudaSuccess;
}

cudaError_t instantiate_api(cudaGraphExec_t *pExec, cudaGraph_t graph, unsigned long long flags)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    if (!pExec) return ret(cudaErrorInvalidValue);
    CUgraph_st *g = graph_of(graph);
    if (!g) return ret(cudaErrorInvalidValue);
    if (flags & cudaGraphInstantiateFlagDeviceLaunch) {
        report("cudaGraphInstantiate: graphs launched from the device are not emulated");
        return ret(cudaErrorNotSupported);
    }
    if (flags & ~(unsigned long long)(cudaGraphInstantiateFlagAutoFreeOnLaunch |
                                      cudaGraphInstantiateFlagUseNodePriority))
        return ret(cudaErrorInvalidValue);
    std::unique_ptr<CUgraphExec_st> x;
    if (cudaError_t e = instantiate(*g, &x)) return ret(e);
    CUgraphExec_st *p = x.get();
    reg().execs[p] = std::move(x);
    *pExec = p;
    return cudaSuccess;
}

cudaError_t add_dependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                             const cudaGraphNode_t *to, const cudaGraphEdgeData *edgeData,
                             size_t n)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    CUgraph_st *g = graph_of(graph);
    if (!g || (n && (!from || !to))) return ret(cudaErrorInvalidValue);
    static const cudaGraphEdgeData zero = {};
    for (size_t i = 0; i < n; ++i) {
        auto a = reg().nodes.find(from[i]), b = reg().nodes.find(to[i]);
        if (a == reg().nodes.end() || b == reg().nodes.end() || a->second != g ||
            b->second != g || from[i] == to[i])
            return ret(cudaErrorInvalidValue);
        if (edgeData && std::memcmp(&edgeData[i], &zero, sizeof zero) != 0) {
            report("cudaGraphAddDependencies: edges other than default ones are not emulated");
            return ret(cudaErrorNotSupported);
        }
        auto &d = to[i]->deps;
        if (std::find(d.begin(), d.end(), from[i]) != d.end()) return ret(cudaErrorInvalidValue);
    }
    for (size_t i = 0; i < n; ++i) to[i]->deps.push_back(from[i]);
    return cudaSuccess;
}

} // namespace

CUgraph_st *find_graph(cudaGraph_t g) { return graph_of(g); }

CUgraphExec_st *find_exec(cudaGraphExec_t x)
{
    auto it = reg().execs.find(x);
    return it == reg().execs.end() ? nullptr : it->second.get();
}

/* ---- the hooks of streams.cpp, state.cpp and memory.cpp ---- */

bool capturing(const CUstream_st *s) { return t_sink || capture_of(s); }

bool capture_op(CUstream_st *s, Op &op, cudaError_t *err)
{
    *err = cudaSuccess;
    if (t_sink) {
        if (op.kind == Op::Work) t_sink->push_back(op);
        return true;
    }
    Registry &r = reg();
    Capture *c = r.captures.empty() ? nullptr : capture_of(s);
    if (!c) {
        if (s->legacy && !r.captures.empty() && blocking_capture(s->device, true)) {
            *err = cudaErrorStreamCaptureImplicit;
            return true;
        }
        if (op.kind == Op::Record && !r.events.empty()) r.events.erase(op.event.get());
        return false;
    }
    if (c->invalidated) {
        *err = cudaErrorStreamCaptureInvalidated;
        return true;
    }
    StreamCap &sc = c->streams[s];
    if (op.kind == Op::Record) {
        CapturedEvent &ce = r.events[op.event.get()];
        ce.event = op.event;
        ce.capture = c->id;
        ce.nodes = sc.frontier;
        return true;
    }
    CUgraphNode_st *n = new_node(c->graph, kCaptured, sc.frontier);
    n->ops.push_back(std::move(op));
    sc.frontier.assign(1, n);
    return true;
}

bool capture_wait(const std::shared_ptr<CUstream_st> &s, CUevent_st *x, unsigned flags,
                  cudaError_t *err)
{
    *err = cudaSuccess;
    if (reg().captures.empty() && reg().events.empty()) return false;
    Capture *c = capture_of(s.get());
    CapturedEvent *ce = captured(x);
    if (!ce) {
        if (!c) return false;
        if (c->invalidated) *err = cudaErrorStreamCaptureInvalidated;
        else if (!x->recorded) *err = cudaSuccess; /* nothing to wait for */
        else if (flags & cudaEventWaitExternal) {
            report("cudaStreamWaitEvent(cudaEventWaitExternal) in a capture: external event "
                   "wait nodes are not emulated");
            *err = cudaErrorNotSupported;
        } else {
            c->invalidated = true; /* a dependency on work outside the capture */
            *err = cudaErrorStreamCaptureIsolation;
        }
        return true;
    }
    Capture *ec = capture_by_id(ce->capture);
    if (!ec) { /* recorded in a capture that has ended */
        if (c) c->invalidated = true;
        *err = c ? cudaErrorStreamCaptureIsolation : cudaErrorCapturedEvent;
        return true;
    }
    if (c && c != ec) {
        c->invalidated = ec->invalidated = true;
        *err = cudaErrorStreamCaptureMerge;
        return true;
    }
    if (ec->invalidated) {
        *err = cudaErrorStreamCaptureInvalidated;
        return true;
    }
    if (!c && s->legacy) { /* the legacy stream cannot capture */
        ec->invalidated = true;
        *err = cudaErrorStreamCaptureImplicit;
        return true;
    }
    StreamCap &sc = ec->streams[s.get()];
    if (!c) { /* s joins the capture */
        sc.stream = s;
        sc.frontier = ce->nodes;
        return true;
    }
    for (CUgraphNode_st *n : ce->nodes)
        if (std::find(sc.frontier.begin(), sc.frontier.end(), n) == sc.frontier.end())
            sc.frontier.push_back(n);
    return true;
}

cudaError_t capture_check_stream_sync(CUstream_st *s)
{
    if (reg().captures.empty()) return cudaSuccess;
    if (Capture *c = capture_of(s)) {
        c->invalidated = true;
        return cudaErrorStreamCaptureUnsupported;
    }
    if (s->legacy && blocking_capture(s->device, true)) return cudaErrorStreamCaptureImplicit;
    return cudaSuccess;
}

cudaError_t capture_check_event_sync(CUevent_st *x)
{
    if (reg().events.empty()) return cudaSuccess;
    CapturedEvent *ce = captured(x);
    if (!ce) return cudaSuccess;
    if (Capture *c = capture_by_id(ce->capture)) c->invalidated = true;
    return cudaErrorCapturedEvent;
}

cudaError_t capture_check_device_sync(int d)
{
    bool any = false;
    for (auto &c : reg().captures)
        for (auto &kv : c->streams)
            if (kv.first->device == d) {
                c->invalidated = true;
                any = true;
            }
    return any ? cudaErrorStreamCaptureUnsupported : cudaSuccess;
}

cudaError_t capture_check_unsafe_call()
{
    if (reg().captures.empty() || t_mode == cudaStreamCaptureModeRelaxed) return cudaSuccess;
    bool any = false;
    for (auto &c : reg().captures) {
        const bool local = c->thread == std::this_thread::get_id();
        if ((local && c->mode != cudaStreamCaptureModeRelaxed) ||
            (!local && c->mode == cudaStreamCaptureModeGlobal &&
             t_mode == cudaStreamCaptureModeGlobal)) {
            c->invalidated = true;
            any = true;
        }
    }
    return any ? cudaErrorStreamCaptureUnsupported : cudaSuccess;
}

} // namespace cudaemu

using namespace cudaemu;

inline namespace cudaemu_api {

cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    if (!pGraph || flags) return ret(cudaErrorInvalidValue);
    *pGraph = register_graph();
    return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    CUgraph_st *g = graph_of(graph);
    if (!g) return ret(cudaErrorInvalidValue);
    for (auto &c : reg().captures)
        if (c->graph == g) return ret(cudaErrorIllegalState); /* still being captured */
    destroy_graph(g);
    return cudaSuccess;
}

cudaError_t cudaGraphClone(cudaGraph_t *pGraphClone, cudaGraph_t originalGraph)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    CUgraph_st *g = graph_of(originalGraph);
    if (!pGraphClone || !g) return ret(cudaErrorInvalidValue);
    CUgraph_st *c = register_graph();
    clone_into(c, *g);
    *pGraphClone = c;
    return cudaSuccess;
}

cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                   const cudaKernelNodeParams *pNodeParams)
{
    return add_node(pGraphNode, graph, pDependencies, numDependencies, cudaGraphNodeTypeKernel,
                    [&](std::vector<Op> &ops) { return kernel_body(pNodeParams, ops); });
}

cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node,
                                         const cudaKernelNodeParams *pNodeParams)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    CUgraphNode_st *n = node_of(node);
    if (!n || n->type != cudaGraphNodeTypeKernel) return ret(cudaErrorInvalidValue);
    std::vector<Op> ops;
    if (cudaError_t e = kernel_body(pNodeParams, ops)) return ret(e);
    n->ops = std::move(ops);
    return cudaSuccess;
}

/* A kernel node's access policy window and priority are hints, kept and
 * returned as a stream's (stream_attrs.cpp); the attributes that would
 * change how the kernel runs (cooperative, clusters, ...) are refused. */
cudaError_t cudaGraphKernelNodeSetAttribute(cudaGraphNode_t node, cudaKernelNodeAttrID attr,
                                            const cudaKernelNodeAttrValue *value)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    CUgraphNode_st *n = node_of(node);
    if (!n || n->type != cudaGraphNodeTypeKernel || !value) return ret(cudaErrorInvalidValue);
    if (attr != cudaLaunchAttributeAccessPolicyWindow && attr != cudaLaunchAttributePriority) {
        report("cudaGraphKernelNodeSetAttribute: attribute %d is not emulated (only the "
               "access policy window and the priority, which are hints)", (int)attr);
        return ret(cudaErrorNotSupported);
    }
    return ret(cudaemu::set_hint(n->attrs, attr, *value, cur_dev()));
}

cudaError_t cudaGraphKernelNodeGetAttribute(cudaGraphNode_t node, cudaKernelNodeAttrID attr,
                                            cudaKernelNodeAttrValue *value_out)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    CUgraphNode_st *n = node_of(node);
    if (!n || n->type != cudaGraphNodeTypeKernel || !value_out) return ret(cudaErrorInvalidValue);
    cudaemu::get_hint(n->attrs, attr, value_out);
    return cudaSuccess;
}

cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                   const cudaMemcpy3DParms *pCopyParams)
{
    return add_node(pGraphNode, graph, pDependencies, numDependencies, cudaGraphNodeTypeMemcpy,
                    [&](std::vector<Op> &ops) { return memcpy_body(pCopyParams, ops); });
}

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                     const cudaGraphNode_t *pDependencies,
                                     size_t numDependencies, void *dst, const void *src,
                                     size_t count, cudaMemcpyKind kind)
{
    return add_node(pGraphNode, graph, pDependencies, numDependencies, cudaGraphNodeTypeMemcpy,
                    [&](std::vector<Op> &ops) {
                        return record(ops, [&] { return cudaMemcpyAsync(dst, src, count, kind, 0); });
                    });
}

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                   const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                   const cudaMemsetParams *pMemsetParams)
{
    return add_node(pGraphNode, graph, pDependencies, numDependencies, cudaGraphNodeTypeMemset,
                    [&](std::vector<Op> &ops) { return memset_body(pMemsetParams, ops); });
}

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                 const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                 const cudaHostNodeParams *pNodeParams)
{
    return add_node(pGraphNode, graph, pDependencies, numDependencies, cudaGraphNodeTypeHost,
                    [&](std::vector<Op> &ops) {
                        if (!pNodeParams) return cudaErrorInvalidValue;
                        return record(ops, [&] {
                            return cudaLaunchHostFunc(0, pNodeParams->fn, pNodeParams->userData);
                        });
                    });
}

cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                       const cudaGraphNode_t *pDependencies,
                                       size_t numDependencies, cudaGraph_t childGraph)
{
    CUDAEMU_LOCK;
    CUgraph_st *child = graph_of(childGraph);
    if (!child || childGraph == graph) return ret(cudaErrorInvalidValue);
    cudaError_t e = add_node(pGraphNode, graph, pDependencies, numDependencies,
                             cudaGraphNodeTypeGraph, [](std::vector<Op> &) { return cudaSuccess; });
    if (e == cudaSuccess) {
        (*pGraphNode)->child = std::make_unique<CUgraph_st>();
        clone_into((*pGraphNode)->child.get(), *child);
    }
    return e;
}

/* A graph memory node is what cudaMallocFromPoolAsync / cudaFreeAsync
 * queue in stream capture (mempool.cpp): the block is made now, at a fixed
 * address, and lives as long as the graph, its copies and executable graphs. */
cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                     const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                     cudaMemAllocNodeParams *nodeParams)
{
    return add_node(pGraphNode, graph, pDependencies, numDependencies, cudaGraphNodeTypeMemAlloc,
                    [&](std::vector<Op> &ops) -> cudaError_t {
                        if (!nodeParams || nodeParams->bytesize == 0 ||
                            (nodeParams->accessDescCount && !nodeParams->accessDescs))
                            return cudaErrorInvalidValue;
                        const cudaMemPoolProps &p = nodeParams->poolProps;
                        if (p.allocType != cudaMemAllocationTypePinned ||
                            p.location.type != cudaMemLocationTypeDevice)
                            return cudaErrorInvalidValue;
                        if (p.location.id < 0 || p.location.id >= config().ndev)
                            return cudaErrorInvalidDevice;
                        cudaMemPool_t pool;
                        if (cudaError_t e = cudaDeviceGetDefaultMemPool(&pool, p.location.id))
                            return e;
                        return record(ops, [&] {
                            return cudaMallocFromPoolAsync(&nodeParams->dptr, nodeParams->bytesize,
                                                           pool, 0);
                        });
                    });
}

cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                    const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                    void *dptr)
{
    return add_node(pGraphNode, graph, pDependencies, numDependencies, cudaGraphNodeTypeMemFree,
                    [&](std::vector<Op> &ops) {
                        return record(ops, [&] { return cudaFreeAsync(dptr, 0); });
                    });
}

cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                  const cudaGraphNode_t *pDependencies, size_t numDependencies)
{
    return add_node(pGraphNode, graph, pDependencies, numDependencies, cudaGraphNodeTypeEmpty,
                    [](std::vector<Op> &) { return cudaSuccess; });
}

cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                     const cudaGraphNode_t *to, const cudaGraphEdgeData *edgeData,
                                     size_t numDependencies)
{
    return add_dependencies(graph, from, to, edgeData, numDependencies);
}

cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                     const cudaGraphNode_t *to, size_t numDependencies)
{
    return add_dependencies(graph, from, to, nullptr, numDependencies);
}

cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    CUgraphNode_st *n = node_of(node);
    if (!n) return ret(cudaErrorInvalidValue);
    CUgraph_st *g = n->graph;
    for (auto &m : g->nodes) m->deps.erase(std::remove(m->deps.begin(), m->deps.end(), n), m->deps.end());
    reg().nodes.erase(n);
    g->nodes.erase(std::find_if(g->nodes.begin(), g->nodes.end(),
                                [n](const std::unique_ptr<CUgraphNode_st> &p) { return p.get() == n; }));
    return cudaSuccess;
}

cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, cudaGraphNodeType *pType)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    CUgraphNode_st *n = node_of(node);
    if (!n || !pType) return ret(cudaErrorInvalidValue);
    if (n->type == kCaptured) {
        report("cudaGraphNodeGetType: the emulator does not keep the kind of a node made by "
               "stream capture");
        return ret(cudaErrorNotSupported);
    }
    *pType = cudaGraphNodeType(n->type);
    return cudaSuccess;
}

cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *numNodes)
{
    return get_nodes(graph, nodes, numNodes, false);
}

cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *pRootNodes,
                                  size_t *pNumRootNodes)
{
    return get_nodes(graph, pRootNodes, pNumRootNodes, true);
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                 unsigned long long flags)
{
    return instantiate_api(pGraphExec, graph, flags);
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                          unsigned long long flags)
{
    return instantiate_api(pGraphExec, graph, flags);
}

cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                             const cudaKernelNodeParams *pNodeParams)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    auto it = reg().execs.find(hGraphExec);
    if (it == reg().execs.end()) return ret(cudaErrorInvalidValue);
    for (CUgraphExec_st::Node &n : it->second->nodes)
        if (n.origin == node && node) {
            if (n.type != cudaGraphNodeTypeKernel) return ret(cudaErrorInvalidValue);
            std::vector<Op> ops;
            if (cudaError_t e = kernel_body(pNodeParams, ops)) return ret(e);
            n.ops = std::move(ops);
            return cudaSuccess;
        }
    return ret(cudaErrorInvalidValue);
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    CUDAEMU_LOCK;
    cudaError_t e = usable();
    if (e) return ret(e);
    if (!graphExec) return ret(cudaErrorInvalidValue);
    auto it = reg().execs.find(graphExec);
    if (it == reg().execs.end()) return ret(cudaErrorInvalidResourceHandle);
    auto s = stream_of(stream, &e);
    if (!s) return ret(e);
    return ret(launch_exec(*it->second, s.get()));
}

cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    CUDAEMU_LOCK;
    cudaError_t e = usable();
    if (e) return ret(e);
    if (!graphExec) return ret(cudaErrorInvalidValue);
    if (!reg().execs.count(graphExec)) return ret(cudaErrorInvalidResourceHandle);
    if (!stream_of(stream, &e)) return ret(e);
    return cudaSuccess; /* nothing to upload */
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    if (!graphExec) return ret(cudaErrorInvalidValue);
    if (!reg().execs.erase(graphExec)) return ret(cudaErrorInvalidResourceHandle);
    return cudaSuccess;
}

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode)
{
    CUDAEMU_LOCK;
    cudaError_t e = usable();
    if (e) return ret(e);
    if (unsigned(mode) > unsigned(cudaStreamCaptureModeRelaxed)) return ret(cudaErrorInvalidValue);
    auto s = stream_of(stream, &e);
    if (!s) return ret(e);
    if (s->legacy) return ret(cudaErrorStreamCaptureUnsupported);
    if (capture_of(s.get())) return ret(cudaErrorIllegalState);
    auto c = std::make_unique<Capture>();
    c->id = reg().next_capture++;
    c->graph = register_graph();
    c->mode = mode;
    c->thread = std::this_thread::get_id();
    c->origin = s.get();
    c->streams[s.get()].stream = s;
    reg().captures.push_back(std::move(c));
    return cudaSuccess;
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph)
{
    CUDAEMU_LOCK;
    cudaError_t e = usable();
    if (e) return ret(e);
    if (!pGraph) return ret(cudaErrorInvalidValue);
    auto s = stream_of(stream, &e);
    if (!s) return ret(e);
    Capture *c = capture_of(s.get());
    if (!c) return ret(cudaErrorIllegalState);
    if (c->origin != s.get()) {
        c->invalidated = true;
        return ret(cudaErrorStreamCaptureUnmatched);
    }
    if (c->mode != cudaStreamCaptureModeRelaxed && c->thread != std::this_thread::get_id())
        return ret(cudaErrorStreamCaptureWrongThread);
    e = c->invalidated ? cudaErrorStreamCaptureInvalidated
                       : joined(*c) ? cudaSuccess : cudaErrorStreamCaptureUnjoined;
    CUgraph_st *g = c->graph;
    auto &v = reg().captures;
    v.erase(std::find_if(v.begin(), v.end(),
                         [c](const std::unique_ptr<Capture> &p) { return p.get() == c; }));
    if (e) {
        destroy_graph(g);
        *pGraph = nullptr;
        return ret(e);
    }
    *pGraph = g;
    return cudaSuccess;
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus *pCaptureStatus)
{
    return cudaStreamGetCaptureInfo(stream, pCaptureStatus);
}

cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream,
                                     cudaStreamCaptureStatus *captureStatus_out,
                                     unsigned long long *id_out, cudaGraph_t *graph_out,
                                     const cudaGraphNode_t **dependencies_out,
                                     const cudaGraphEdgeData **edgeData_out,
                                     size_t *numDependencies_out)
{
    CUDAEMU_LOCK;
    cudaError_t e = usable();
    if (e) return ret(e);
    if (!captureStatus_out || (edgeData_out && !dependencies_out)) return ret(cudaErrorInvalidValue);
    auto s = stream_of(stream, &e);
    if (!s) return ret(e);
    if (s->legacy && blocking_capture(s->device, false)) return ret(cudaErrorStreamCaptureImplicit);
    Capture *c = capture_of(s.get());
    *captureStatus_out = !c ? cudaStreamCaptureStatusNone
                            : c->invalidated ? cudaStreamCaptureStatusInvalidated
                                             : cudaStreamCaptureStatusActive;
    if (!c) return cudaSuccess;
    StreamCap &sc = c->streams[s.get()];
    if (id_out) *id_out = c->id;
    if (graph_out) *graph_out = c->graph;
    if (dependencies_out) *dependencies_out = sc.frontier.data();
    if (edgeData_out) {
        sc.edges.assign(sc.frontier.size(), cudaGraphEdgeData{});
        *edgeData_out = sc.edges.data();
    }
    if (numDependencies_out) *numDependencies_out = sc.frontier.size();
    return cudaSuccess;
}

cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode *mode)
{
    if (!mode || unsigned(*mode) > unsigned(cudaStreamCaptureModeRelaxed))
        return ret(cudaErrorInvalidValue);
    std::swap(*mode, t_mode);
    return cudaSuccess;
}

} // inline namespace cudaemu_api
