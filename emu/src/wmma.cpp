/* emu/src/wmma.cpp - the warp meetings of nvcuda::wmma (include/cudaemu/wmma.h):
 * the checks CUDA states for load/store_matrix_sync, the full-warp rule, and
 * the per-warp staging buffer mma_sync exchanges its fragments through.
 *
 * The buffers belong to the running block's model (block_wmma_stage,
 * scheduler.cpp): blocks that run one after another share one per warp index
 * (a cooperative block parks only in grid sync, never between the two
 * meetings of an mma_sync); each resident block of an interleaved launch
 * (CUDAEMU_INTERLEAVE=1) has its own, as another block may run between the
 * meetings.  A warp writes its a, b, c after a meeting of all 32 lanes (so
 * every lane has finished reading the previous mma_sync's) and reads them
 * after the next.
 */
#include "internal.h"

#include <mma.h>

#include <cstdint>

namespace cudaemu {
namespace {
const char *fn_name(int op)
{
    return op == detail::WOP_WMMA_LOAD    ? "load_matrix_sync"
           : op == detail::WOP_WMMA_STORE ? "store_matrix_sync"
                                          : "mma_sync";
}
} // namespace

namespace wmma {
Lane begin(int op, const void *p, unsigned ldm, unsigned elem_bytes)
{
    const uint3 t = detail::g_threadIdx;
    const dim3 bd = detail::g_blockDim;
    const unsigned lin = t.x + bd.x * (t.y + bd.y * t.z), n = bd.x * bd.y * bd.z;
    const unsigned base = lin & ~31u;
    if (base + 32 > n)
        kernel_fault("nvcuda::wmma::%s needs all 32 lanes of a warp: warp %u of this block of %u "
                     "threads has only %u",
                     fn_name(op), lin >> 5, n, n - base);
    if (p) {
        if (reinterpret_cast<uintptr_t>(p) % 32 != 0)
            kernel_fault("nvcuda::wmma::%s: pointer %p is not 256-bit (32-byte) aligned, as CUDA "
                         "requires",
                         fn_name(op), p);
        if ((size_t(ldm) * elem_bytes) % 16 != 0)
            kernel_fault("nvcuda::wmma::%s: ldm %u is not a multiple of 16 bytes (%u elements of "
                         "%u bytes), as CUDA requires",
                         fn_name(op), ldm, 16 / elem_bytes, elem_bytes);
    }
    detail::warp_collective(op, ~0u, 0, 0, 32);
    return Lane{block_wmma_stage(lin >> 5, size_t(wmma::STAGE)), lin & 31u};
}

void meet(int op) { detail::warp_collective(op, ~0u, 0, 0, 32); }
} // namespace wmma
} // namespace cudaemu
