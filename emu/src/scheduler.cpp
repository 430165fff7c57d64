/* emu/src/scheduler.cpp - runs a kernel grid: blocks one after another, the
 * threads of a block as fibers scheduled round-robin.
 *
 * A fiber runs until it reaches a barrier (__syncthreads*), a warp primitive
 * (__syncwarp, __shfl_*_sync, __ballot_sync, ...) or returns.  It then goes
 * on itself to the next thread of the round that can run (the scheduler's
 * loop, run_block, only starts a round and sees where it ended): a thread
 * that returns hands its fiber to the next thread when that one has not
 * started (run-through), else switches straight to that thread's fiber, as
 * does a thread that waits (switch_next).  Fibers are bound to threads from
 * their first wait to their return only.  Threads that run through without
 * calling any primitive are not even recorded one by one (the lazy segment,
 * run_fresh): barrier-free kernels cost a call per CUDA thread.  A block barrier
 * releases when every thread of the block waits on it; a warp primitive
 * completes when every lane named in its mask has reached it, and then all
 * those lanes exchange at once.  The order in which threads (and blocks) run
 * comes from CUDAEMU_ORDER (fwd, rev, shuffle), so code that relies on an
 * order CUDA does not promise gives different, wrong results.  Threads that
 * have returned count as arrived at a block barrier (as on sm_70+).  A lane
 * waiting for an exited lane,
 * mismatched warp primitives and __trap() end the launch with
 * cudaErrorLaunchFailure (sticky) and a message on stderr; a failing assert()
 * (device_assert.cpp) ends it with cudaErrorAssert and the GPU's message.
 *
 * Out-of-bounds writes (builds without ASan): after every block the guard
 * zones around device and managed blocks (memory.cpp) and after the launch's
 * dynamic shared memory are checked.  A damaged one fails the launch with the
 * sticky cudaErrorIllegalAddress; to name the thread, the block is run once
 * more from the same thread order with the guards repaired and checked after
 * every fiber switch (the launch is lost anyway, as after a fault on a GPU).
 * With more than kGuardBlockLimit device blocks allocated the guards are
 * checked once per kernel instead, and the message names the kernel only.
 */
#include "internal.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <unordered_map>

#ifdef CUDAEMU_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace cudaemu {
namespace {

enum TState : uint8_t { RUNNABLE, AT_BARRIER, AT_WARP, DONE, AT_COALESCE, AT_GRID, AT_TILE };

struct Group;

struct Thread {
    fiber::Fiber *f = nullptr;     /* bound from its start until it returns */
    uint3 tid = {0, 0, 0};
    uint32_t lin = 0;
    TState state = DONE;
    bool mid = false;              /* inside the kernel body */
    unsigned long long wout = 0;   /* result of the last warp primitive */
    Group *group = nullptr;        /* while AT_WARP */
    unsigned long long site = 0;   /* while AT_COALESCE: the coalesced_threads() call */
    uint32_t tile_n = 0;           /* while AT_TILE: the size of the tile it syncs */
};

struct Group {
    bool active = false;
    int op = 0;
    unsigned mask = 0, arrived = 0;
    int width = 32;
    unsigned long long in[32];
    int arg[32];
};

struct Warp {
    unsigned exists = 0;          /* lanes that exist in this block */
    std::deque<Group> groups;     /* stable addresses: waiting threads point here */
};

struct Block {
    const Launch *launch = nullptr;
    std::vector<Thread> threads;  /* indexed by linear thread id */
    std::vector<uint3> tids;      /* threads[i].tid, dense (the run-through reads it) */
    std::vector<Warp> warps;
    uint32_t n = 0, ndone = 0;
    uint32_t ngrid = 0;           /* threads waiting in grid_group::sync() */
    bool cooperative = false;     /* run by run_cooperative_kernel (scheduler_coop.h) */
    /* Each thread owns its fiber from start to return, recorded one by one (no
     * run-through): cooperative and interleaved launches park blocks. */
    bool owned = false;
    bool interleaved = false;     /* run by run_interleaved_kernel (scheduler_interleave.h) */
    bool paused = false;          /* interleaved: a yield point handed the block back */
    uint32_t bar_arrived = 0, bar_count = 0; /* accumulating barrier */
    uint64_t bar_epoch = 0;       /* barriers completed: a base unique to the block, + 1 each */
    std::unordered_map<uint64_t, uint32_t> tile_arrived; /* tile barriers: (size, first) -> count */
    std::vector<unsigned long long> tile_slots; /* multi-warp tiles' exchange slots (tile_slot) */
    std::shared_ptr<void> pipeline; /* its threads' cp.async queues (block_pipeline_queues) */
    std::vector<float> wmma_stage;  /* its warps' mma_sync staging buffers (block_wmma_stage) */
    bool bar_and = true, bar_or = false;
    int res_count = 0, res_and = 0, res_or = 0; /* the last completed barrier */
    Thread *cur = nullptr;        /* the thread running now (stale in a lazy segment) */
    const std::vector<uint32_t> *order = nullptr; /* this pass's thread order ... */
    size_t pos = 0;                               /* ... and the entry running now */
    /* Lazy segment: the threads at order[seg, pos) have returned and the one
     * at pos runs, none of them recorded in `threads` (current() records
     * them when one calls a primitive). */
    bool lazy = false;
    size_t seg = 0;
    bool dirty = false;           /* `threads` changed since the block began */
    std::vector<fiber::Fiber *> free;             /* pool fibers free in this block */
    size_t next_fiber = 0;                        /* pool fibers [next_fiber, end) unused */
    std::string error;
    cudaError_t code = cudaErrorLaunchFailure; /* what a failure means (cudaErrorAssert) */
};

Block g_blk;
std::vector<fiber::Fiber *> g_pool;
thread_local bool t_on_fiber = false; /* this host thread runs a CUDA thread's fiber now */
/* ... and that thread's own code (not a primitive of the scheduler): where
 * the watchdog's signal may switch fibers or end the launch (kernel_stop) */
thread_local bool t_user = false;
struct InEmu { /* a primitive called from the kernel: not the thread's own code */
    bool saved = t_user;
    InEmu() { t_user = false; }
    ~InEmu() { t_user = saved; }
};

#ifdef CUDAEMU_ASAN
constexpr bool kGuards = false; /* ASan reports the access itself */
#else
constexpr bool kGuards = true;
#endif
constexpr size_t kGuardBlockLimit = 256; /* per-block checks up to this many blocks */
constexpr size_t kSmemGuard = kDynSmemBytes - size_t(kSmemOptin);
/* Interleaved launches (scheduler_interleave.h): a thread runs up to
 * kIlMaxRun yield points before it is preempted (a seeded random count), and
 * one preemption in kIlBlockSwitch pauses its whole block for another. */
constexpr int kIlMaxRun = 16;
constexpr uint64_t kIlBlockSwitch = 4;
int g_il_countdown = 1;
uint64_t g_il_state = 0;
uint64_t il_random() /* splitmix64, seeded by CUDAEMU_SEED at each launch */
{
    uint64_t z = (g_il_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
bool g_check_slices = false;             /* replay: check after every fiber switch */
bool g_slice_damage = false;

void write_smem_guard(char *smem, size_t n)
{
    for (size_t i = 0; i < kSmemGuard; ++i) smem[n + i] = char(canary(i));
}

/* The first damaged guard zone, described, or "". */
std::string damaged(int device, const char *smem, size_t n, bool full = false)
{
    if (!kGuards) return std::string();
    if (canary_intact(smem + n, kSmemGuard)) return damaged_guard(device, full);
    for (size_t i = 0; i < kSmemGuard; ++i)
        if ((unsigned char)smem[n + i] != canary(i)) {
            char buf[160];
            std::snprintf(buf, sizeof buf, "the guard zone after the %zu byte(s) of dynamic "
                          "shared memory was overwritten, from byte %zu on", n, n + i);
            return buf;
        }
    return damaged_guard(device, full);
}

const char *op_name(int op)
{
    static const char *names[] = {"__syncwarp", "__shfl_sync", "__shfl_up_sync",
        "__shfl_down_sync", "__shfl_xor_sync", "__ballot_sync", "__any_sync", "__all_sync",
        "__match_any_sync", "__match_all_sync", "__reduce_add_sync", "__reduce_min_sync",
        "__reduce_max_sync", "__reduce_min_sync", "__reduce_max_sync", "__reduce_and_sync",
        "__reduce_or_sync", "__reduce_xor_sync", "nvcuda::wmma::load_matrix_sync",
        "nvcuda::wmma::store_matrix_sync", "nvcuda::wmma::mma_sync"};
    return (op >= 0 && op < int(sizeof names / sizeof names[0])) ? names[op] : "?";
}

std::string coords(const uint3 &v)
{
    char b[64];
    std::snprintf(b, sizeof b, "(%u,%u,%u)", v.x, v.y, v.z);
    return b;
}

void set_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void set_error(const char *fmt, ...)
{
    if (!g_blk.error.empty()) return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    g_blk.error = buf;
}

/* Records the lazy segment (run_fresh): its returned threads are DONE, the
 * running one is b.cur, bound to the running fiber and inside the kernel. */
void materialize()
{
    Block &b = g_blk;
    b.lazy = false;
    b.dirty = true;
    const std::vector<uint32_t> &o = *b.order;
    for (size_t q = b.seg; q < b.pos; ++q) b.threads[o[q]].state = DONE;
    b.ndone += uint32_t(b.pos - b.seg);
    Thread *t = &b.threads[o[b.pos]];
    t->f = fiber::running();
    t->mid = true;
    b.cur = t;
}

/* The thread running now, for the primitives called from a kernel. */
inline Thread *current()
{
    if (g_blk.lazy) materialize();
    return g_blk.cur;
}

/* The next thread of this round that can run, after the current entry; b.pos
 * moves to it (or to the last entry when there is none: null). */
Thread *next_runnable()
{
    Block &b = g_blk;
    const std::vector<uint32_t> &o = *b.order;
    size_t p = b.pos + 1;
    while (p < o.size() && b.threads[o[p]].state != RUNNABLE) ++p;
    if (p == o.size()) {
        b.pos = p - 1;
        return nullptr;
    }
    b.pos = p;
    return &b.threads[o[p]];
}

fiber::Fiber *take_fiber();

/* Called on fiber self when its thread waits (or has returned and self is
 * free), with n = next_runnable() or null: goes on to thread n, on its own
 * fiber or a free one, else back to the scheduler.  Returns when self is
 * resumed.  The one place where fibers switch to each other, so that a
 * fiber resumes at the place it left from: the return addresses the CPU
 * predicts are right when both threads wait at the same barrier. */
__attribute__((noinline)) void go_on(fiber::Fiber *self, Thread *n)
{
    if (!n) {
        fiber::leave(self);
        return;
    }
    Block &b = g_blk;
    b.cur = n;
    detail::g_threadIdx = n->tid;
    kernel_tick();
    /* the thread after n will most likely run next: its stack toward the cache */
    const std::vector<uint32_t> &o = *b.order;
    if (b.pos + 3 < o.size()) {
        const Thread &after = b.threads[o[b.pos + 3]];
        if (after.f) fiber::prefetch(after.f);
    }
    fiber::switch_to(self, n->f ? n->f : take_fiber());
}

/* Called on a fiber: the thread waits until made runnable again (the
 * replay that checks the guards after every switch goes through the
 * scheduler each time). */
inline void yield(Thread *t) { go_on(t->f, g_check_slices ? nullptr : next_runnable()); }

/* Called on a fiber after set_error: the scheduler abandons the block. */
[[noreturn]] void fail(Thread *t)
{
    t->state = DONE;
    fiber::leave(t->f);
    std::fprintf(stderr, "cudaemu: internal error: a failed fiber was resumed\n");
    std::abort();
}

/* A block barrier completes once every thread of the block has arrived at
 * it or returned: on sm_70+ exited threads count as arrived at bar.sync
 * (the PTX ISA), and `if (i >= n) return; ... __syncthreads();` relies on
 * it.  Releases the waiters; the results stay until the next barrier. */
void release_barrier_if_complete()
{
    Block &b = g_blk;
    if (b.bar_arrived == 0 || b.bar_arrived + b.ndone != b.n) return;
    b.res_count = int(b.bar_count);
    b.res_and = b.bar_and;
    b.res_or = b.bar_or;
    b.bar_arrived = 0;
    ++b.bar_epoch;
    for (Thread &o : b.threads)
        if (o.state == AT_BARRIER) o.state = RUNNABLE;
}

/* Runs the fresh thread at b.pos on this fiber, and after it each following
 * entry of the order (all fresh: this is the first round) as a lazy segment,
 * until one calls a primitive (current() records the segment; true: that
 * thread, b.cur, has now returned) or the order ends (false: all returned). */
bool run_fresh()
{
    Block &b = g_blk;
    const uint32_t *o = b.order->data();
    const size_t end = b.order->size();
    const uint3 *tids = b.tids.data();
    detail::KernelCall *call = b.launch->call.get();
    size_t p = b.pos;
    b.seg = p;
    b.lazy = true;
    for (;;) {
        kernel_tick();
        t_user = true;
        call->run();
        t_user = false;
        if (!b.lazy) return true;
        if (++p == end) break;
        b.pos = p;
        detail::g_threadIdx = tids[o[p]];
    }
    b.lazy = false;
    b.ndone += uint32_t(end - b.seg);
    if (b.ndone + b.ngrid != b.n) { /* others wait: the round goes on, record them */
        b.dirty = true;
        for (size_t q = b.seg; q < end; ++q) b.threads[o[q]].state = DONE;
        release_barrier_if_complete();
    }
    return false;
}

/* Every fiber runs this: the fresh thread b.cur (at b.pos), and after it
 * the threads that run through on the same fiber; then hands the fiber on. */
void fiber_main(fiber::Fiber *f)
{
    Block &b = g_blk;
    for (;;) {
        bool returned;
        if (!b.owned && !g_check_slices) {
            returned = run_fresh();
        } else { /* one thread, recorded (each cooperative thread owns its fiber) */
            b.cur->f = f;
            b.cur->mid = true;
            t_user = true;
            b.launch->call->run();
            t_user = false;
            returned = true;
        }
        Thread *n = nullptr;
        if (returned) {
            Thread *t = b.cur;
            t->mid = false;
            t->state = DONE;
            ++b.ndone;
            release_barrier_if_complete();
            if (!b.owned) t->f = nullptr;
            if (!g_check_slices) n = next_runnable();
            if (n && !n->f && !b.owned) { /* fresh: run it on f */
                b.cur = n;
                detail::g_threadIdx = n->tid;
                continue;
            }
        }
        if (!b.owned) b.free.push_back(f);
        go_on(f, n);
    }
}

unsigned long long lane_value(const Group &g, int src)
{
    if (src < 0 || src > 31 || !((g.mask >> src) & 1u))
        return ~0ull; /* an inactive source lane: undefined on a GPU, poison here */
    return g.in[src];
}

/* Every lane of g has arrived: compute all results at once. */
void complete(Group &g, uint32_t warp_base)
{
    unsigned m = g.mask;
    unsigned ballot = 0;
    for (int l = 0; l < 32; ++l)
        if ((m >> l) & 1u && g.in[l]) ballot |= 1u << l;
    unsigned long long red = 0;
    bool first = true;
    if (g.op >= detail::WOP_RADD && g.op <= detail::WOP_RXOR) {
        for (int l = 0; l < 32; ++l) {
            if (!((m >> l) & 1u)) continue;
            uint32_t v = uint32_t(g.in[l]);
            if (first) { red = v; first = false; continue; }
            uint32_t r = uint32_t(red);
            switch (g.op) {
            case detail::WOP_RADD: r += v; break;
            case detail::WOP_RMIN_S: r = int32_t(v) < int32_t(r) ? v : r; break;
            case detail::WOP_RMAX_S: r = int32_t(v) > int32_t(r) ? v : r; break;
            case detail::WOP_RMIN_U: r = v < r ? v : r; break;
            case detail::WOP_RMAX_U: r = v > r ? v : r; break;
            case detail::WOP_RAND: r &= v; break;
            case detail::WOP_ROR: r |= v; break;
            case detail::WOP_RXOR: r ^= v; break;
            }
            red = r;
        }
    }
    bool all_equal = true;
    int any_lane = __builtin_ctz(m);
    for (int l = 0; l < 32; ++l)
        if ((m >> l) & 1u && g.in[l] != g.in[any_lane]) all_equal = false;

    const int wd = g.width;
    for (int l = 0; l < 32; ++l) {
        if (!((m >> l) & 1u)) continue;
        Thread &t = g_blk.threads[warp_base + l];
        int seg = l & ~(wd - 1);
        int a = g.arg[l];
        unsigned long long out = 0;
        switch (g.op) {
        case detail::WOP_SYNC: out = 0; break;
        case detail::WOP_IDX: out = lane_value(g, seg + (a & (wd - 1))); break;
        case detail::WOP_UP: out = (l - seg) < a ? g.in[l] : lane_value(g, l - a); break;
        case detail::WOP_DOWN: out = (l - seg) + a >= wd ? g.in[l] : lane_value(g, l + a); break;
        case detail::WOP_XOR: {
            int src = l ^ (a & 31);
            out = src >= seg + wd ? g.in[l] : lane_value(g, src);
            break;
        }
        case detail::WOP_BALLOT: out = ballot; break;
        case detail::WOP_ANY: out = ballot != 0; break;
        case detail::WOP_ALL: out = ballot == m; break;
        case detail::WOP_MATCH_ANY: {
            unsigned r = 0;
            for (int k = 0; k < 32; ++k)
                if ((m >> k) & 1u && g.in[k] == g.in[l]) r |= 1u << k;
            out = r;
            break;
        }
        case detail::WOP_MATCH_ALL: out = all_equal ? (m | (1ull << 32)) : 0; break;
        default: out = red; break;
        }
        t.wout = out;
        if (t.state == AT_WARP) {
            t.state = RUNNABLE;
            t.group = nullptr;
        }
    }
    g.active = false;
    sanitize_warp_sync(warp_base, m); /* racecheck: the lanes of m are ordered */
}

/* Why is nothing runnable?  Describe the first stuck thread. */
void diagnose_deadlock()
{
    Block &b = g_blk;
    const Thread *exited = nullptr;
    for (const Thread &t : b.threads)
        if (t.state == DONE) { exited = &t; break; }
    for (const Thread &t : b.threads) {
        if (t.state == AT_WARP && t.group) {
            const Group &g = *t.group;
            unsigned missing = g.mask & ~g.arrived;
            int lane = __builtin_ctz(missing);
            const Thread &o = b.threads[(t.lin & ~31u) + unsigned(lane)];
            const char *why = o.state == DONE ? "has already returned"
                              : o.state == AT_BARRIER ? "waits at __syncthreads()"
                                                      : "waits in another warp primitive";
            set_error("deadlock: thread %s waits in %s(mask 0x%08x) for lane %d, thread %s, "
                      "which %s", coords(t.tid).c_str(), op_name(g.op), g.mask, lane,
                      coords(o.tid).c_str(), why);
            return;
        }
    }
    for (const Thread &t : b.threads) {
        if (t.state != AT_TILE) continue;
        const uint32_t base = t.lin & ~(t.tile_n - 1);
        for (uint32_t i = base; i < base + t.tile_n; ++i) {
            const Thread &o = b.threads[i];
            if (o.state == AT_TILE && o.tile_n == t.tile_n) continue;
            const char *why = o.state == DONE ? "has already returned"
                              : o.state == AT_BARRIER ? "waits at __syncthreads()"
                              : o.state == AT_TILE ? "waits in the sync of a tile of another size"
                                                   : "waits in a warp primitive or grid sync";
            set_error("deadlock: thread %s waits in thread_block_tile<%u>::sync() for thread %s "
                      "of its tile, which %s", coords(t.tid).c_str(), t.tile_n,
                      coords(o.tid).c_str(), why);
            return;
        }
    }
    for (const Thread &t : b.threads)
        if (t.state == AT_GRID) {
            set_error("deadlock: thread %s waits in grid_group::sync() while other threads of "
                      "its block wait at __syncthreads() or in a warp primitive",
                      coords(t.tid).c_str());
            return;
        }
    if (exited) {
        set_error("thread %s returned while %u other thread(s) of the block wait at "
                  "__syncthreads(): every thread of a block must reach each barrier",
                  coords(exited->tid).c_str(), b.bar_arrived);
        return;
    }
    set_error("deadlock: no thread of the block can make progress");
}

/* Nothing can run: the lanes of each warp waiting at the same
 * coalesced_threads() call form one coalesced group (cooperative groups).
 * False when no lane waits there. */
bool resolve_coalesced()
{
    Block &b = g_blk;
    bool any = false;
    for (uint32_t base = 0; base < b.n; base += 32) {
        const uint32_t end = std::min<uint32_t>(base + 32, b.n);
        for (uint32_t i = base; i < end; ++i) {
            if (b.threads[i].state != AT_COALESCE) continue;
            const unsigned long long site = b.threads[i].site;
            unsigned m = 0;
            for (uint32_t j = i; j < end; ++j)
                if (b.threads[j].state == AT_COALESCE && b.threads[j].site == site)
                    m |= 1u << (j - base);
            for (uint32_t j = i; j < end; ++j)
                if ((m >> (j - base)) & 1u) {
                    b.threads[j].wout = m;
                    b.threads[j].state = RUNNABLE;
                }
            any = true;
        }
    }
    return any;
}

/* A cooperative launch's fibers: n of them in the pool (scheduler_coop.h). */
void ensure_pool(uint32_t n)
{
    while (g_pool.size() < n) g_pool.push_back(fiber::create(fiber_main, nullptr));
}

/* A fiber for a thread that starts now: one freed in this block, else an
 * unused one of the pool, else a new one. */
fiber::Fiber *take_fiber()
{
    Block &b = g_blk;
    if (!b.free.empty()) {
        fiber::Fiber *f = b.free.back();
        b.free.pop_back();
        return f;
    }
    if (b.next_fiber == g_pool.size()) g_pool.push_back(fiber::create(fiber_main, nullptr));
    return g_pool[b.next_fiber++];
}

/* Runs one block; false on failure (g_blk.error says why).  resume: an
 * interleaved block that a yield point paused (b.paused) goes on where it was. */
bool run_block(std::vector<uint32_t> &order, bool resume = false)
{
    Block &b = g_blk;
    b.order = &order;
    b.paused = false;
    if (!resume) {
        b.ndone = 0;
        b.ngrid = 0;
        b.bar_arrived = 0;
        b.bar_count = 0;
        b.bar_and = true;
        b.bar_or = false;
        static uint64_t epoch_base = 0; /* each block its own range of epochs */
        b.bar_epoch = epoch_base += uint64_t(1) << 32;
        b.tile_arrived.clear();
        /* A block whose threads all ran through lazily left `threads` as it was. */
        if (b.dirty || b.owned || g_check_slices) {
            for (Thread &t : b.threads) {
                t.state = RUNNABLE;
                t.group = nullptr;
                if (!b.owned) t.f = nullptr; /* a cooperative block's fibers are its own */
            }
            for (Warp &w : b.warps)
                for (Group &g : w.groups) g.active = false;
            b.dirty = b.owned || g_check_slices;
        }
        b.lazy = false;
        b.free.clear();
        b.next_fiber = 0;
    }

    for (;;) {
        bool progressed = false;
        for (b.pos = 0; b.pos < order.size(); ++b.pos) {
            Thread &t = b.threads[order[b.pos]];
            if (t.state != RUNNABLE) continue;
            progressed = true;
            b.cur = &t;
            detail::g_threadIdx = t.tid;
            t_on_fiber = true;
            /* runs t, and after it the rest of the round (the fibers go on to
             * each other); b.pos, b.cur: where the round stopped */
            fiber::enter(t.f ? t.f : take_fiber());
            t_on_fiber = false;
            if (!b.error.empty()) return false;
            if (b.paused) return true;
            if (g_check_slices &&
                !damaged(b.launch->device, static_cast<const char *>(detail::g_dyn_smem),
                         b.launch->smem).empty()) {
                g_slice_damage = true;
                set_error("%s", coords(b.cur->tid).c_str());
                return false;
            }
        }
        if (b.ndone + b.ngrid == b.n) return true; /* done, or parked at a grid barrier */
        if (!progressed) {
            if (resolve_coalesced()) continue;
            diagnose_deadlock();
            return false;
        }
        if (config().order == Order::Shuffle) reshuffle(order);
    }
}

void abandon_block()
{
    for (Thread &t : g_blk.threads) {
        if (t.mid) {
            fiber::reset(t.f);
            t.mid = false;
        }
        t.state = DONE;
    }
}

} // namespace

/* ---- primitives called from kernels ---- */
namespace detail {

void *dyn_smem_base()
{
    /* allocated once, never freed; poisoned under ASan outside a launch's span */
    static void *base = [] {
        void *p = nullptr;
        if (posix_memalign(&p, 256, kDynSmemBytes) != 0) return static_cast<void *>(nullptr);
#ifdef CUDAEMU_ASAN
        ASAN_POISON_MEMORY_REGION(p, kDynSmemBytes);
#endif
        return p;
    }();
    return base;
}

int block_barrier(int op, int pred)
{
    Block &b = g_blk;
    InEmu in_emu_;
    Thread *t = current();
    if (b.bar_arrived == 0) {
        b.bar_count = 0;
        b.bar_and = true;
        b.bar_or = false;
    }
    b.bar_count += pred != 0;
    b.bar_and = b.bar_and && pred != 0;
    b.bar_or = b.bar_or || pred != 0;
    t->state = AT_BARRIER;
    ++b.bar_arrived;
    /* everyone is here (or has returned): release all; the last arriver
     * yields too so that the next phase starts in the configured order */
    release_barrier_if_complete();
    yield(t);
    /* The results stay until the next barrier completes, which needs us. */
    return op == BOP_COUNT ? b.res_count : op == BOP_AND ? b.res_and : b.res_or;
}

uint64_t block_barrier_epoch() { return g_blk.bar_epoch; }

/* thread_block_tile<n>::sync() for n a power of two > 32 (cooperative groups):
 * a barrier over the n threads [lin & ~(n - 1), ... + n) of the block, counted
 * per tile as block_barrier counts the block. */
void tile_barrier(unsigned n)
{
    Block &b = g_blk;
    InEmu in_emu_;
    Thread *t = current();
    const uint32_t base = t->lin & ~(n - 1);
    if (base + n > b.n) {
        set_error("thread %s calls thread_block_tile<%u>::sync() in a tile that has only %u of "
                  "its %u threads (a block of %u threads): on a GPU it never completes",
                  coords(t->tid).c_str(), n, b.n - base, n, b.n);
        fail(t);
    }
    t->state = AT_TILE;
    t->tile_n = n;
    uint32_t &arrived = b.tile_arrived[(uint64_t(n) << 32) | base];
    if (++arrived == n) { /* release the tile; the last arriver yields too, as in block_barrier */
        arrived = 0;
        for (uint32_t i = base; i < base + n; ++i) b.threads[i].state = RUNNABLE;
    }
    yield(t);
}

/* The exchange slot of thread r of the running block (cg_multi_warp_tile.h):
 * part of the block model, which an interleaved launch swaps per resident
 * block (scheduler_interleave.h), so resident blocks never share slots. */
unsigned char *tile_slot(unsigned r)
{
    Block &b = g_blk;
    if (b.tile_slots.size() < 1024) b.tile_slots.resize(1024);
    return reinterpret_cast<unsigned char *>(&b.tile_slots[r & 1023u]);
}

} // namespace detail

/* The running block's cp.async queues (pipeline.cpp): part of the block
 * model, so each resident block of an interleaved launch has its own. */
std::shared_ptr<void> &block_pipeline_queues() { return g_blk.pipeline; }

/* Warp w's mma_sync staging buffer of per_warp floats (wmma.cpp), in the
 * running block's model as above. */
float *block_wmma_stage(unsigned w, size_t per_warp)
{
    std::vector<float> &v = g_blk.wmma_stage;
    if (v.size() < 32 * per_warp) v.resize(32 * per_warp);
    return v.data() + size_t(w) * per_warp;
}

namespace detail {

unsigned long long warp_collective(int op, unsigned mask, unsigned long long value, int arg,
                                   int width)
{
    Block &b = g_blk;
    InEmu in_emu_;
    Thread *t = current();
    const int lane = int(t->lin & 31u);
    Warp &w = b.warps[t->lin >> 5];
    const unsigned eff = mask & w.exists;
    if (!((eff >> lane) & 1u)) {
        set_error("thread %s calls %s with mask 0x%08x, which does not name its own lane %d",
                  coords(t->tid).c_str(), op_name(op), mask, lane);
        fail(t);
    }
    if (width <= 0 || width > 32 || (width & (width - 1))) {
        set_error("thread %s calls %s with width %d: it must be a power of two <= 32",
                  coords(t->tid).c_str(), op_name(op), width);
        fail(t);
    }
    Group *g = nullptr;
    for (Group &c : w.groups)
        if (c.active && c.mask == eff) { g = &c; break; }
    if (!g) {
        for (Group &c : w.groups)
            if (!c.active) { g = &c; break; }
        if (!g) {
            w.groups.emplace_back();
            g = &w.groups.back();
        }
        g->active = true;
        g->op = op;
        g->mask = eff;
        g->arrived = 0;
        g->width = width;
    } else if (g->op != op || g->width != width) {
        set_error("thread %s calls %s (width %d) while other lanes of mask 0x%08x wait in "
                  "%s (width %d): the lanes of a warp primitive must all call the same one",
                  coords(t->tid).c_str(), op_name(op), width, eff, op_name(g->op), g->width);
        fail(t);
    }
    g->in[lane] = value;
    g->arg[lane] = arg;
    g->arrived |= 1u << lane;
    if (g->arrived == eff) {
        complete(*g, t->lin & ~31u);
        return t->wout;
    }
    t->state = AT_WARP;
    t->group = g;
    yield(t);
    return t->wout;
}


unsigned coalesce(unsigned long long site)
{
    InEmu in_emu_;
    Thread *t = current();
    t->state = AT_COALESCE;
    t->site = site;
    yield(t); /* resolve_coalesced() makes it runnable with the group in wout */
    return unsigned(t->wout);
}

/* __activemask(): the lanes a GPU runs together at this call are those of
 * the warp that reach the same call site, not those a fiber order happens
 * to have left unfinished: grouped as coalesced_threads() is. */
unsigned active_mask(unsigned long long site) { return coalesce(site); }

bool grid_is_cooperative() { return g_blk.cooperative; }

/* A yield point of an interleaved launch (CUDAEMU_INTERLEAVE=1): after a
 * seeded random number of points the thread is preempted, staying runnable:
 * either the next thread of its block's round runs, or the whole block is
 * paused and the scheduler runs another resident block
 * (scheduler_interleave.h). */
void interleave_point()
{
    Block &b = g_blk;
    if (!t_on_fiber || !t_user || !b.cur || !b.interleaved) return;
    if (--g_il_countdown > 0) return;
    const uint64_t r = il_random();
    g_il_countdown = 1 + int(r % kIlMaxRun);
    InEmu in_emu_;
    Thread *t = current();
    if ((r >> 32) % kIlBlockSwitch == 0) {
        b.paused = true;
        go_on(t->f, nullptr);
    } else {
        go_on(t->f, next_runnable());
    }
}

/* A thread waiting for another's progress outside the CUDA primitives
 * (libcu++'s cuda::barrier and cuda::pipeline, cuda_barrier.h): it stays
 * runnable and the others of its round go first, as after a time slice;
 * a wait no thread will ever end spins until the kernel watchdog. */
void thread_yield()
{
    if (!t_on_fiber || !t_user || !g_blk.cur) return;
    InEmu in_emu_;
    go_on(current()->f, g_check_slices ? nullptr : next_runnable());
}

void grid_barrier()
{
    InEmu in_emu_;
    Thread *t = current();
    if (!g_blk.cooperative) {
        set_error("thread %s calls grid_group::sync() in a kernel not launched with "
                  "cudaLaunchCooperativeKernel (or the cooperative launch attribute)",
                  coords(t->tid).c_str());
        fail(t);
    }
    t->state = AT_GRID;
    ++g_blk.ngrid;
    yield(t); /* run_cooperative_kernel resumes the block once every block is here */
}

void trap()
{
    InEmu in_emu_;
    Thread *t = current();
    set_error("__trap() called by thread %s", coords(t->tid).c_str());
    fail(t);
}

} // namespace detail

static void kernel_fault_v(cudaError_t code, const char *fmt, va_list ap)
{
    char buf[768];
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    if (!t_on_fiber || !g_blk.cur) {
        report("%s (outside a kernel)", buf);
        std::abort();
    }
    InEmu in_emu_;
    Thread *t = current();
    set_error("thread %s: %s", coords(t->tid).c_str(), buf);
    g_blk.code = code;
    fail(t);
}

void kernel_fault(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kernel_fault_v(cudaErrorLaunchFailure, fmt, ap);
    va_end(ap);
    std::abort(); /* not reached */
}

void kernel_fault_code(cudaError_t code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    kernel_fault_v(code, fmt, ap);
    va_end(ap);
    std::abort(); /* not reached */
}

bool in_kernel_code() { return t_on_fiber && g_blk.cur; }

bool in_user_kernel_code() { return t_on_fiber && t_user; }

void kernel_stop(KernelStop why)
{
    if (!t_on_fiber || !t_user || !g_blk.cur || why == KernelStop::None) return;
    InEmu in_emu_;
    Block &b = g_blk;
    Thread *t = current();
    if (why == KernelStop::Slice) { /* stays runnable: the others of the round go first */
        go_on(t->f, g_check_slices ? nullptr : next_runnable());
        return;
    }
    uint32_t left = 0, at_bar = 0, at_warp = 0, runnable = 0;
    char list[200] = "";
    size_t len = 0;
    for (const Thread &o : b.threads) {
        if (o.state == DONE || &o == t) continue;
        ++left;
        at_bar += o.state == AT_BARRIER || o.state == AT_TILE || o.state == AT_GRID;
        at_warp += o.state == AT_WARP || o.state == AT_COALESCE;
        runnable += o.state == RUNNABLE;
        if (left <= 6 && len < sizeof list - 40)
            len += size_t(std::snprintf(list + len, sizeof list - len, " %s",
                                        coords(o.tid).c_str()));
    }
    if (left > 6) std::snprintf(list + len, sizeof list - len, " ...");
    char others[360];
    std::snprintf(others, sizeof others, "; %u other thread(s) of the block had not returned "
                  "(%u waiting at a barrier, %u in a warp primitive, %u runnable)%s%s", left,
                  at_bar, at_warp, runnable, left ? ":" : "", list);
    if (why == KernelStop::Timeout) {
        set_error("did not finish within CUDAEMU_KERNEL_TIMEOUT_S=%d s (the kernel watchdog): "
                  "thread %s was running%s", config().kernel_timeout_s,
                  coords(t->tid).c_str(), others);
        b.code = cudaErrorLaunchTimeout;
    } else {
        set_error("the process exited while it ran (ended, as a GPU context's teardown ends "
                  "its work): thread %s was running%s", coords(t->tid).c_str(), others);
    }
    fail(t);
}

bool kernel_guard_fault(uintptr_t addr)
{
    char what[320];
    if (!t_on_fiber || !g_blk.cur || !guard_page_fault(addr, what, sizeof what)) return false;
    InEmu in_emu_;
    Thread *t = current();
    set_error("thread %s: %s (on a GPU: cudaErrorIllegalAddress)",
              coords(t->tid).c_str(), what);
    g_blk.code = cudaErrorIllegalAddress;
    fail(t);
}

bool kernel_assert_failed(const char *expr, const char *file, unsigned line, const char *func)
{
    if (!t_on_fiber || !g_blk.cur) return false;
    InEmu in_emu_;
    Thread *t = current();
    const uint3 b = detail::g_blockIdx;
    /* as a GPU prints it; the launch fails with cudaErrorAssert */
    set_error("%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.", file,
              line, func, b.x, b.y, b.z, t->tid.x, t->tid.y, t->tid.z, expr);
    g_blk.code = cudaErrorAssert;
    fail(t);
}

/* ---- a whole grid ---- */

/* A block's shared memory before it starts: the launch's dynamic shared
 * memory and the kernel's static __shared__ variables (kernel_info.cpp)
 * filled with 0xFF bytes, as uninitialised shared memory on a GPU holds
 * whatever was there: a float reads NaN, an int -1, an unsigned 0xFFFFFFFF,
 * a pointer an address that faults. */
static void poison_shared(const KernelStatic *ks, char *smem, size_t dyn)
{
    std::memset(smem, 0xff, dyn);
    if (ks)
        for (const auto &v : ks->shared) std::memset(v.first, 0xff, v.second);
}

/* The image of a block's shared memory (cooperative launches park blocks). */
static void save_shared(const KernelStatic *ks, const char *smem, size_t dyn,
                        std::vector<char> &out)
{
    out.assign(smem, smem + dyn);
    if (ks)
        for (const auto &v : ks->shared)
            out.insert(out.end(), static_cast<char *>(v.first),
                       static_cast<char *>(v.first) + v.second);
}

static void load_shared(const KernelStatic *ks, char *smem, size_t dyn,
                        const std::vector<char> &in)
{
    std::memcpy(smem, in.data(), dyn);
    size_t at = dyn;
    if (ks)
        for (const auto &v : ks->shared) {
            std::memcpy(v.first, in.data() + at, v.second);
            at += v.second;
        }
}

/* Begins a launch, for run_kernel and run_cooperative_kernel alike: the
 * block model (threads, warps) and the dynamic shared memory. The shared
 * memory, or null with *err set (nothing begun). */
static char *begin_launch(const Launch &l, cudaError_t *err)
{
    Block &b = g_blk;
    if (b.launch) {
        report("a kernel (or a stream callback inside one) called the CUDA runtime, "
               "which CUDA does not allow");
        *err = cudaErrorNotPermitted;
        return nullptr;
    }
    fiber::install_fault_handler();
    const uint32_t n = l.block.x * l.block.y * l.block.z;
    b.launch = &l;
    b.n = n;
    b.threads.assign(n, Thread());
    b.tids.resize(n);
    for (uint32_t i = 0; i < n; ++i) {
        Thread &t = b.threads[i];
        t.lin = i;
        t.state = RUNNABLE;
        t.tid = uint3{i % l.block.x, (i / l.block.x) % l.block.y, i / (l.block.x * l.block.y)};
        b.tids[i] = t.tid;
    }
    b.dirty = false;
    const uint32_t nw = (n + 31) / 32;
    b.warps.assign(nw, Warp());
    for (uint32_t w = 0; w < nw; ++w) {
        uint32_t lanes = std::min<uint32_t>(32, n - w * 32);
        b.warps[w].exists = lanes == 32 ? ~0u : ((1u << lanes) - 1);
        b.warps[w].groups.resize(2);
    }
    b.error.clear();
    b.code = cudaErrorLaunchFailure;

    char *smem = static_cast<char *>(detail::dyn_smem_base());
    if (!smem) {
        b.launch = nullptr;
        *err = cudaErrorLaunchOutOfResources;
        return nullptr;
    }
#ifdef CUDAEMU_ASAN
    ASAN_UNPOISON_MEMORY_REGION(smem, l.smem);
#endif
    detail::g_dyn_smem = smem;
    detail::g_gridDim = l.grid;
    detail::g_blockDim = l.block;
    return smem;
}

/* Before a launch: a guard zone damaged outside any kernel is reported and
 * repaired (true: the launch fails with cudaErrorIllegalAddress). */
static bool guards_damaged_before(const Launch &l, char *smem, const std::string &kname)
{
    if (!kGuards) return false;
    write_smem_guard(smem, l.smem);
    std::string pre = damaged(l.device, smem, l.smem);
    if (pre.empty()) return false;
    report("before kernel %s ran: %s; written outside any kernel (host code through a "
           "device or managed pointer?)", kname.c_str(), pre.c_str());
    repair_guards(l.device);
    return true;
}

/* After a launch whose blocks did not run one by one (cooperative,
 * interleaved: `kind`), the guard zones once: the kernel is named, not the
 * block or thread. */
static cudaError_t guards_after(const Launch &l, char *smem, const std::string &kname,
                                const char *kind)
{
    if (!kGuards) return cudaSuccess;
    std::string d = damaged(l.device, smem, l.smem);
    if (d.empty()) return cudaSuccess;
    repair_guards(l.device);
    report("out-of-bounds write by kernel %s (block and thread unknown: %s launches check "
           "the guards once per kernel): %s", kname.c_str(), kind, d.c_str());
    return cudaErrorIllegalAddress;
}

/* The coordinates of linear block bi of the grid (x fastest). */
static uint3 block_coords(const dim3 &grid, uint64_t bi)
{
    return uint3{uint32_t(bi % grid.x), uint32_t((bi / grid.x) % grid.y),
                 uint32_t(bi / (uint64_t(grid.x) * grid.y))};
}

/* Ends any launch begun by begin_launch. */
static void end_launch(char *smem)
{
#ifdef CUDAEMU_ASAN
    ASAN_POISON_MEMORY_REGION(smem, kDynSmemBytes);
#else
    (void)smem;
#endif
    Block &b = g_blk;
    b.launch = nullptr;
    b.cur = nullptr;
    b.cooperative = b.owned = b.interleaved = b.paused = false;
}

/* A launch whose blocks do not run one after another (cooperative,
 * interleaved) once begun (begin_launch): its dynamic shared memory (null:
 * nothing begun, err says why), threads per block, blocks in the grid, the
 * kernel's name and its static shared memory. */
struct GridLaunch {
    char *smem;
    cudaError_t err;
    uint32_t n;
    uint64_t nblocks;
    std::string kname;
    const KernelStatic *ks;
};
static GridLaunch begin_grid_launch(const Launch &l)
{
    GridLaunch g{nullptr, cudaSuccess, 0, 0, std::string(), nullptr};
    g.smem = begin_launch(l, &g.err);
    if (!g.smem) return g;
    g.n = g_blk.n;
    g.nblocks = uint64_t(l.grid.x) * l.grid.y * l.grid.z;
    g.kname = function_name(l.func);
    g.ks = kernel_static(l.func);
    return g;
}

cudaError_t run_interleaved_kernel(const Launch &l);

cudaError_t run_kernel(const Launch &l)
{
    if (config().interleave) return run_interleaved_kernel(l);
    Block &b = g_blk;
    cudaError_t begun = cudaSuccess;
    char *smem = begin_launch(l, &begun);
    if (!smem) return begun;
    const uint32_t n = b.n;

    std::vector<uint32_t> order, saved_order;
    make_order(order, n);
    const KernelStatic *ks = kernel_static(l.func);
    const std::string kname_unset = "\x01";
    std::string kname = kname_unset;
    auto kernel_name = [&]() -> const std::string & {
        if (kname == kname_unset) kname = function_name(l.func);
        return kname;
    };
    const bool per_block = kGuards && guarded_blocks(l.device) <= kGuardBlockLimit;
    std::mt19937_64 saved_rng;
    if (guards_damaged_before(l, smem, kernel_name())) {
        end_launch(smem);
        return cudaErrorIllegalAddress;
    }
    const uint64_t nblocks = uint64_t(l.grid.x) * l.grid.y * l.grid.z;
    std::vector<uint64_t> border;
    const bool shuffle_blocks = config().order == Order::Shuffle && nblocks <= (1u << 22);
    if (shuffle_blocks) {
        border.resize(nblocks);
        for (uint64_t i = 0; i < nblocks; ++i) border[i] = i;
        std::shuffle(border.begin(), border.end(), rng());
    }
    cudaError_t result = cudaSuccess;
    for (uint64_t k = 0; k < nblocks; ++k) {
        uint64_t bi = shuffle_blocks ? border[k]
                      : config().order == Order::Rev ? nblocks - 1 - k : k;
        detail::g_blockIdx = block_coords(l.grid, bi);
        poison_shared(ks, smem, l.smem);
        if (per_block) {
            saved_order = order;
            saved_rng = rng();
        }
        if (config().order == Order::Shuffle) reshuffle(order);
        if (!run_block(order)) {
            if (b.code == cudaErrorAssert)
                std::fprintf(stderr, "%s\n", b.error.c_str());
            else
                report("kernel %s failed in block %s: %s", kernel_name().c_str(),
                       coords(detail::g_blockIdx).c_str(), b.error.c_str());
            abandon_block();
            result = b.code;
            break;
        }
        if (!per_block) continue;
        std::string d = damaged(l.device, smem, l.smem);
        if (d.empty()) continue;
        /* replay the block, checking after every fiber switch, to name the thread */
        repair_guards(l.device);
        write_smem_guard(smem, l.smem);
        poison_shared(ks, smem, l.smem);
        order = saved_order;
        rng() = saved_rng;
        if (config().order == Order::Shuffle) reshuffle(order);
        b.error.clear();
        g_check_slices = true;
        g_slice_damage = false;
        run_block(order);
        g_check_slices = false;
        std::string who = g_slice_damage ? b.error
                                         : std::string("unknown (a second run of the block "
                                                       "did not repeat the write)");
        abandon_block();
        repair_guards(l.device);
        report("out-of-bounds write by kernel %s, block %s, thread %s: %s",
               kernel_name().c_str(), coords(detail::g_blockIdx).c_str(), who.c_str(),
               d.c_str());
        result = cudaErrorIllegalAddress;
        break;
    }
    if (kGuards && result == cudaSuccess) { /* the whole zones, once per kernel */
        std::string d = damaged(l.device, smem, l.smem, true);
        if (!d.empty()) {
            repair_guards(l.device);
            if (per_block)
                report("out-of-bounds write by kernel %s (block and thread unknown: beyond "
                       "the part of the guard zone checked after every block): %s",
                       kernel_name().c_str(), d.c_str());
            else
                report("out-of-bounds write by kernel %s (block and thread unknown: with more "
                       "than %zu device blocks allocated guards are checked once per kernel): %s",
                       kernel_name().c_str(), kGuardBlockLimit, d.c_str());
            result = cudaErrorIllegalAddress;
        }
    }
    end_launch(smem);
    return result;
}

/* Cooperative launches: every block resident, grid_group::sync(). */
#include "scheduler_coop.h"

/* CUDAEMU_INTERLEAVE=1: several blocks resident, switching at yield points. */
#include "scheduler_interleave.h"

} // namespace cudaemu
