/* emu/tests/nvcc_emu/graph_refused.cu - graph calls the emulator does not
 * provide (conditional nodes, the getters of graph memory nodes) stop the compile with one
 * line naming the call. */
#include <cuda_runtime.h>

int main()
{
    cudaGraph_t g;
    if (cudaGraphCreate(&g, 0) != cudaSuccess) return 1;
    cudaGraphConditionalHandle handle;
    return cudaGraphConditionalHandleCreate(&handle, g, 1u, 1u) == cudaSuccess ? 0 : 1;
}
