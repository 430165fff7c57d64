/* emu/src/graph_update.cpp - cudaGraphExecUpdate: an executable graph takes
 * the node parameters of a topologically identical graph.
 *
 * Nodes pair by creation order (stream capture and explicit construction
 * make them in the order the program issues them).  The update is refused,
 * nothing changed, with CUDA's cudaErrorGraphExecUpdateFailure and the
 * reason in cudaGraphExecUpdateResultInfo: another node count
 * (TopologyChanged, no node), another number of dependencies or another
 * dependency in edge order (TopologyChanged; errorNode the node of the new
 * graph, errorFromNode the dependency), another node type (NodeTypeChanged;
 * a captured kernel launch for other captured work counts as one), other
 * work than the node's kind can change to (ParametersChanged: a copy between
 * other kinds of memory, a different number of copy slices, a captured
 * library call for another).  A kernel may change its function, grid, block,
 * shared memory and arguments, as since CUDA 11.2; memcpy, memset and host
 * nodes their parameters; child graph nodes follow the same rules inside.
 * Otherwise every node's work is replaced at once; launches already queued
 * keep the work they were queued with.
 */
#include "graph_internal.h"

#include <typeinfo>

namespace cudaemu {
namespace {

/* Why x cannot take g's parameters (cudaGraphExecUpdateSuccess: it can). */
cudaGraphExecUpdateResult mismatch(const CUgraphExec_st &x, const CUgraph_st &g,
                                   cudaGraphExecUpdateResultInfo *info)
{
    if (x.nodes.size() != g.nodes.size()) return cudaGraphExecUpdateErrorTopologyChanged;
    std::map<const CUgraphNode_st *, uint32_t> index;
    for (uint32_t i = 0; i < g.nodes.size(); ++i) index[g.nodes[i].get()] = i;
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        CUgraphNode_st *gn = g.nodes[i].get();
        const CUgraphExec_st::Node &xn = x.nodes[i];
        info->errorNode = gn;
        if (gn->deps.size() != xn.deps.size()) return cudaGraphExecUpdateErrorTopologyChanged;
        for (size_t k = 0; k < gn->deps.size(); ++k)
            if (index.at(gn->deps[k]) != xn.deps[k]) {
                info->errorFromNode = gn->deps[k];
                return cudaGraphExecUpdateErrorTopologyChanged;
            }
        if (gn->type != xn.type) return cudaGraphExecUpdateErrorNodeTypeChanged;
        if (gn->child) {
            if (cudaGraphExecUpdateResult r = mismatch(*xn.child, *gn->child, info)) return r;
            info->errorNode = gn;
        }
        if (gn->ops.size() != xn.ops.size()) return cudaGraphExecUpdateErrorParametersChanged;
        for (size_t k = 0; k < gn->ops.size(); ++k) {
            const Op &a = gn->ops[k], &b = xn.ops[k];
            if ((a.kernel != nullptr) != (b.kernel != nullptr))
                return cudaGraphExecUpdateErrorNodeTypeChanged;
            /* the call that queued the work (a kind of copy, a library call) */
            if (a.kind != b.kind || a.work.target_type() != b.work.target_type())
                return cudaGraphExecUpdateErrorParametersChanged;
        }
    }
    info->errorNode = nullptr;
    return cudaGraphExecUpdateSuccess;
}

void update(CUgraphExec_st &x, const CUgraph_st &g)
{
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        x.nodes[i].ops = g.nodes[i]->ops;
        if (g.nodes[i]->child) update(*x.nodes[i].child, *g.nodes[i]->child);
    }
}

} // namespace
} // namespace cudaemu

using namespace cudaemu;

inline namespace cudaemu_api {

cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                                cudaGraphExecUpdateResultInfo *resultInfo)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    if (!resultInfo) return ret(cudaErrorInvalidValue);
    *resultInfo = cudaGraphExecUpdateResultInfo{cudaGraphExecUpdateError, nullptr, nullptr};
    CUgraphExec_st *x = find_exec(hGraphExec);
    CUgraph_st *g = find_graph(hGraph);
    if (!x || !g) return ret(cudaErrorInvalidValue);
    resultInfo->result = mismatch(*x, *g, resultInfo);
    if (resultInfo->result != cudaGraphExecUpdateSuccess)
        return ret(cudaErrorGraphExecUpdateFailure);
    update(*x, *g);
    return cudaSuccess;
}

} // inline namespace cudaemu_api
