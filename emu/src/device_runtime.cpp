/* emu/src/device_runtime.cpp - the device runtime: dynamic parallelism.
 *
 * A kernel that launches a kernel (`<<<>>>` or cudaLaunchKernel(Ex) in device
 * code) reaches launch.cpp's launch() inside a kernel fiber, which hands the
 * checked launch here: the child grid is recorded on the parent grid, not
 * queued on a host stream.  When every block of the parent has returned,
 * run_grid runs its children, each to completion with its own children
 * (depth first), then its tail launches; only then is the parent grid
 * complete and the stream goes on.  So CUDA's guarantees hold: a child grid
 * completes before its parent grid does (the host sees its writes after the
 * parent's synchronization), launches into one device stream of one block run
 * in launch order (the block's NULL stream, a stream the block made with
 * cudaStreamCreateWithFlags(cudaStreamNonBlocking)), a fire-and-forget launch
 * (cudaStreamFireAndForget) runs independently, a tail launch
 * (cudaStreamTailLaunch) after the grid and all its other work, one block's
 * tail launches in order.  Which queue runs next comes from CUDAEMU_ORDER: launch
 * order with fwd, a random queue with shuffle, so an order CUDA does not
 * promise gives different results.  A child cannot start while its parent
 * runs: the parent could wait for it only with CUDA 11's device-side
 * cudaDeviceSynchronize, refused here (the launch fails, one line).
 *
 * Limits as CUDA: a grid at depth kMaxDepth (the host's grids are depth 0)
 * cannot launch (cudaErrorLaunchMaxDepthExceeded); at most
 * cudaLimitDevRuntimePendingLaunchCount (2048) device launches outstanding
 * (launched and not complete) per device, past it
 * cudaErrorLaunchPendingCountExceeded.  A failed device launch runs nothing
 * and is the launching CUDA thread's last error (cudaGetLastError and
 * cudaPeekAtLastError in device code read the CUDA thread's own).
 */
#include "internal.h"

#include <algorithm>
#include <unordered_map>

namespace cudaemu {
namespace {

constexpr int kMaxDepth = 24; /* CUDA's nesting limit */
constexpr uint64_t kFireAndForget = ~uint64_t(0);

struct Child {
    Launch l;
    /* launches of one queue run in launch order: (block, 0) its NULL stream,
     * (block, 1 + i) device stream i, (kFireAndForget, n) launch n alone */
    std::pair<uint64_t, uint64_t> queue;
};

/* A device stream: CUstream_st objects that no host registry knows. */
struct DevStream {
    std::unique_ptr<CUstream_st> s;
    uint64_t block;
    bool destroyed = false;
};

/* A grid running now, or having run and waiting for its children. */
struct Grid {
    int depth = 0;
    int device = 0;
    std::vector<Child> work, tails;
    std::vector<DevStream> streams;
    std::unordered_map<uint64_t, cudaError_t> last; /* CUDA thread -> its last error */
};

thread_local Grid *t_grid = nullptr;
std::map<int, size_t> g_pending; /* device -> outstanding device launches */

uint64_t block_lin()
{
    const uint3 b = detail::g_blockIdx;
    const dim3 g = detail::g_gridDim;
    return b.x + uint64_t(g.x) * (b.y + uint64_t(g.y) * b.z);
}

uint64_t thread_lin()
{
    const uint3 t = detail::g_threadIdx;
    const dim3 d = detail::g_blockDim;
    return block_lin() * (uint64_t(d.x) * d.y * d.z) + t.x + uint64_t(d.x) * (t.y + uint64_t(d.y) * t.z);
}

/* Runs the launches of v, each queue in order: the queue chosen by the
 * thread order (launch order, or a random queue with shuffle).  The first
 * error stops the rest (they are no longer outstanding). */
cudaError_t run_queues(std::vector<Child> &v, int depth)
{
    std::map<std::pair<uint64_t, uint64_t>, std::deque<size_t>> q;
    for (size_t i = 0; i < v.size(); ++i) q[v[i].queue].push_back(i);
    cudaError_t e = cudaSuccess;
    size_t left = v.size();
    while (left) {
        auto it = q.begin();
        if (config().order == Order::Shuffle) {
            std::advance(it, long(rng()() % q.size()));
        } else {
            for (auto j = q.begin(); j != q.end(); ++j)
                if (j->second.front() < it->second.front()) it = j;
        }
        const size_t i = it->second.front();
        it->second.pop_front();
        if (it->second.empty()) q.erase(it);
        --left;
        if (e == cudaSuccess) e = run_grid(v[i].l, depth);
        --g_pending[v[i].l.device];
    }
    return e;
}

DevStream *device_stream(Grid &g, cudaStream_t h)
{
    for (DevStream &d : g.streams)
        if (d.s.get() == h) return &d;
    return nullptr;
}

} // namespace

cudaError_t run_grid(const Launch &l, int depth)
{
    if (process_exiting()) return cudaErrorLaunchFailure; /* as a GPU context's teardown */
    Grid g;
    g.depth = depth;
    g.device = l.device;
    Grid *saved = t_grid;
    t_grid = &g;
    watchdog_begin(l.func);
    t_kernel_device = l.device; /* device-side malloc's heap */
    sanitize_launch_begin(l);
    cudaError_t e = l.cooperative ? run_cooperative_kernel(l) : run_kernel(l);
    e = sanitize_launch_end(e);
    watchdog_end();
    t_grid = saved;
    if (e != cudaSuccess) { /* a failed grid's children never run */
        g_pending[l.device] -= g.work.size() + g.tails.size();
        return e;
    }
    e = run_queues(g.work, depth + 1);
    if (e != cudaSuccess) {
        g_pending[l.device] -= g.tails.size();
        return e;
    }
    return run_queues(g.tails, depth + 1);
}

cudaError_t device_launch(const Launch &l, cudaStream_t stream)
{
    Grid *g = t_grid;
    if (!g) {
        report("a kernel launch in device code outside a grid the emulator runs");
        return ret(cudaErrorNotSupported);
    }
    const uint64_t blk = block_lin();
    std::pair<uint64_t, uint64_t> queue{blk, 0}; /* the block's NULL stream */
    bool tail = false;
    if (stream == cudaStreamTailLaunch) {
        tail = true;
    } else if (stream == cudaStreamFireAndForget) {
        queue = {kFireAndForget, g->work.size()};
    } else if (stream) {
        DevStream *d = device_stream(*g, stream);
        if (!d || d->destroyed || d->block != blk) {
            report("a kernel launched in device code on stream %p, which is not a device stream "
                   "of its block (the NULL stream, cudaStreamTailLaunch, cudaStreamFireAndForget "
                   "or one cudaStreamCreateWithFlags(cudaStreamNonBlocking) made in this block)",
                   static_cast<void *>(stream));
            return ret(cudaErrorInvalidResourceHandle);
        }
        queue.second = 1 + uint64_t(d - g->streams.data());
    }
    if (g->depth >= kMaxDepth) {
        report("a kernel launched in device code at nesting depth %d: CUDA's limit is %d "
               "(cudaErrorLaunchMaxDepthExceeded)", g->depth + 1, kMaxDepth);
        return ret(cudaErrorLaunchMaxDepthExceeded);
    }
    size_t &pending = g_pending[l.device];
    const size_t limit = device_limit(l.device, cudaLimitDevRuntimePendingLaunchCount);
    if (pending >= limit) {
        report("a kernel launched in device code with %zu device launches outstanding: the limit "
               "is cudaLimitDevRuntimePendingLaunchCount = %zu (cudaErrorLaunchPendingCountExceeded; "
               "raise it with cudaDeviceSetLimit)", pending, limit);
        return ret(cudaErrorLaunchPendingCountExceeded);
    }
    ++pending;
    (tail ? g->tails : g->work).push_back(Child{l, queue});
    return cudaSuccess;
}

bool device_ret(cudaError_t e)
{
    if (!t_grid || !in_kernel_code()) return false;
    if (e != cudaSuccess) t_grid->last[thread_lin()] = e;
    return true;
}

bool device_last_error(bool take, cudaError_t *e)
{
    if (!t_grid || !in_kernel_code()) return false;
    auto it = t_grid->last.find(thread_lin());
    *e = it == t_grid->last.end() ? cudaSuccess : it->second;
    if (take && it != t_grid->last.end()) t_grid->last.erase(it);
    return true;
}

bool device_stream_create(cudaStream_t *p, unsigned flags, cudaError_t *e)
{
    if (!t_grid || !in_kernel_code()) return false;
    if (!p || flags != cudaStreamNonBlocking) {
        if (p && flags != cudaStreamNonBlocking)
            report("cudaStreamCreateWithFlags in device code with flags %#x: a device stream "
                   "must be made with cudaStreamNonBlocking", flags);
        *e = ret(cudaErrorInvalidValue);
        return true;
    }
    DevStream d;
    d.s = std::make_unique<CUstream_st>();
    d.s->device = t_grid->device;
    d.s->flags = flags;
    d.block = block_lin();
    *p = d.s.get();
    t_grid->streams.push_back(std::move(d));
    *e = cudaSuccess;
    return true;
}

bool device_stream_destroy(cudaStream_t h, cudaError_t *e)
{
    if (!t_grid || !in_kernel_code()) return false;
    DevStream *d = device_stream(*t_grid, h);
    /* its pending launches still run (as CUDA: the stream is released after them) */
    if (!d || d->destroyed) *e = ret(cudaErrorInvalidResourceHandle);
    else d->destroyed = true, *e = cudaSuccess;
    return true;
}

} // namespace cudaemu
