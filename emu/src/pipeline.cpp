/* emu/src/pipeline.cpp - the per-thread queues of asynchronous copies behind
 * cuda_pipeline_primitives.h and cuda_pipeline.h (CUDA's cp.async groups).
 *
 * A copy is read from its source when it is issued (so a bad source faults on
 * the line that issued it) and written to its destination only when a
 * wait_prior of the same CUDA thread covers its batch: the latest moment CUDA
 * allows, so a read of the destination before the wait sees the old bytes.
 * Copies issued after the last commit belong to no batch yet and are not
 * waited for (as cp.async.wait_group).
 *
 * The queues belong to the running block's model (block_pipeline_queues,
 * scheduler.cpp): blocks that run one after another share one set (a
 * cooperative block parks only at a grid barrier, and then its threads'
 * queues stay with their index: do not keep copies in flight across
 * grid.sync()); each resident block of an interleaved launch
 * (CUDAEMU_INTERLEAVE=1) has its own, so a block that another one preempts
 * keeps its copies in flight.  A set is indexed by the thread's linear index
 * in its block. A queue remembers the block it was filled in; a
 * thread of another block (or launch shape) that finds copies a finished
 * thread never waited for drops them (they would land in a block that is
 * gone). Copies left by a thread of a launch with the same shape and block
 * index are not told apart from the thread's own: wait for every copy
 * (__pipeline_wait_prior(0)) before a thread returns.
 */
#include "internal.h"

#include <cuda_pipeline_primitives.h>

#include <cstdint>
#include <cstring>
#include <deque>
#include <vector>

namespace cudaemu {
namespace {

struct Copy {
    char *dst;
    std::vector<char> bytes; /* the source as read at the issue, then the zeros */
};

struct Queue {
    uint3 block{0, 0, 0};
    dim3 grid, dims;
    std::vector<Copy> open;                  /* issued since the last commit */
    std::deque<std::vector<Copy>> batches;   /* committed, oldest first */
};

/* The running block's queues, by linear thread index in the block. */
std::vector<Queue> &queues()
{
    std::shared_ptr<void> &p = block_pipeline_queues();
    if (!p) p = std::make_shared<std::vector<Queue>>();
    return *static_cast<std::vector<Queue> *>(p.get());
}

bool same(const uint3 &a, const uint3 &b) { return a.x == b.x && a.y == b.y && a.z == b.z; }
bool same(const dim3 &a, const dim3 &b) { return a.x == b.x && a.y == b.y && a.z == b.z; }

/* The calling CUDA thread's queue, emptied when it was filled in another block. */
Queue &queue()
{
    const uint3 t = detail::g_threadIdx, b = detail::g_blockIdx;
    const dim3 bd = detail::g_blockDim, gd = detail::g_gridDim;
    const size_t lin = t.x + size_t(bd.x) * (t.y + size_t(bd.y) * t.z);
    std::vector<Queue> &all = queues();
    if (all.size() <= lin) all.resize(lin + 1);
    Queue &q = all[lin];
    if (!same(q.block, b) || !same(q.grid, gd) || !same(q.dims, bd)) {
        q.open.clear();
        q.batches.clear();
        q.block = b;
        q.grid = gd;
        q.dims = bd;
    }
    return q;
}

void land(std::vector<Copy> &batch)
{
    for (Copy &c : batch) std::memcpy(c.dst, c.bytes.data(), c.bytes.size());
    batch.clear();
}
} // namespace

namespace detail {

void pipeline_check_copy(const void *dst, const void *src, size_t size, size_t zfill)
{
    if (size != 4 && size != 8 && size != 16)
        kernel_fault("__pipeline_memcpy_async: size_and_align %zu is not 4, 8 or 16", size);
    if (zfill > size)
        kernel_fault("__pipeline_memcpy_async: zfill %zu is more than size_and_align %zu", zfill,
                     size);
    if (reinterpret_cast<uintptr_t>(dst) % size != 0 || reinterpret_cast<uintptr_t>(src) % size != 0)
        kernel_fault("__pipeline_memcpy_async: dst %p or src %p is not aligned to "
                     "size_and_align %zu, as CUDA requires",
                     dst, src, size);
}

void pipeline_copy_async(void *dst, const void *src, size_t bytes, size_t src_bytes)
{
    Queue &q = queue();
    Copy c;
    c.dst = static_cast<char *>(dst);
    c.bytes.assign(bytes, 0);
    if (src_bytes) std::memcpy(c.bytes.data(), src, src_bytes);
    q.open.push_back(std::move(c));
}

void pipeline_commit()
{
    Queue &q = queue();
    q.batches.push_back(std::move(q.open));
    q.open.clear();
}

void pipeline_wait_prior(size_t prior)
{
    if (prior > 8) prior = 8; /* the toolkit's: wait_prior<8> for anything larger */
    Queue &q = queue();
    while (q.batches.size() > prior) {
        land(q.batches.front());
        q.batches.pop_front();
    }
}

} // namespace detail
} // namespace cudaemu
