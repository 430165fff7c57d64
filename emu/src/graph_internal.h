/* emu/src/graph_internal.h - the graph structures graph.cpp builds and
 * graph_update.cpp (cudaGraphExecUpdate) reads; not installed. */
#ifndef CUDAEMU_GRAPH_INTERNAL_H
#define CUDAEMU_GRAPH_INTERNAL_H

#include "internal.h"

using cudaemu::Op;

struct CUgraph_st;

struct CUgraphNode_st {
    int type = cudaGraphNodeTypeEmpty;  /* a cudaGraphNodeType, or kCaptured */
    CUgraph_st *graph = nullptr;
    std::vector<Op> ops;                /* what the node queues, in order */
    std::vector<CUgraphNode_st *> deps; /* the nodes it waits for */
    std::unique_ptr<CUgraph_st> child;  /* cudaGraphNodeTypeGraph: its own copy */
    std::map<int, cudaLaunchAttributeValue> attrs; /* a kernel node's hints (access policy) */
};

struct CUgraph_st {
    std::vector<std::unique_ptr<CUgraphNode_st>> nodes; /* creation order */
};

struct CUgraphExec_st {
    struct Node {
        int type = cudaGraphNodeTypeEmpty;
        std::vector<Op> ops;
        std::vector<uint32_t> deps;
        std::unique_ptr<CUgraphExec_st> child;
        const CUgraphNode_st *origin = nullptr; /* for cudaGraphExec*SetParams */
    };
    std::vector<Node> nodes;
};

namespace cudaemu {
constexpr int kCaptured = -1; /* a node made by stream capture: its kind is not kept */
/* graph.cpp: a live graph, a live executable graph; null when unknown */
CUgraph_st *find_graph(cudaGraph_t g);
CUgraphExec_st *find_exec(cudaGraphExec_t x);
} // namespace cudaemu

#endif
