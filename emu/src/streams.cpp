/* emu/src/streams.cpp - lazy streams and events.
 *
 * A stream is a FIFO of Ops (work, event record, wait).  Nothing runs when it
 * is queued: work runs only when something waits on it (stream, event or
 * device synchronization, a blocking copy, a second query), in issue order.
 * cudaStreamWaitEvent queues a Wait op: draining the waiting stream first
 * drains the recorded stream up to the record.  The legacy default stream
 * follows CUDA's implicit rules: work queued on it waits for all work already
 * queued on the device's blocking streams, and work queued on a blocking
 * stream waits for work already queued on it.  A missing synchronization or a
 * missing cudaStreamWaitEvent therefore gives wrong results here, as it may on
 * a GPU.  Event times are host times taken when the record executes.  Work
 * queued on a capturing stream is recorded into a graph instead (graph.cpp).
 */
#include "internal.h"

#include <algorithm>
#include <thread>

namespace cudaemu {
namespace {

void push(CUstream_st *s, Op op)
{
    s->q.push_back(std::move(op));
    ++s->issued;
    s->queried = false;
    progress_kick();
}

void push_wait(CUstream_st *s, const std::shared_ptr<CUstream_st> &other)
{
    if (other.get() == s || other->issued == other->done) return;
    Op w;
    w.kind = Op::Wait;
    w.other = other;
    w.upto = other->issued;
    push(s, std::move(w));
}

void execute(CUstream_st *s, Op &op)
{
    switch (op.kind) {
    case Op::Work:
        if (dev(s->device).sticky == cudaSuccess || op.after_failure) {
            cudaError_t e = op.work();
            if (e != cudaSuccess) set_sticky(s->device, e);
        }
        break;
    case Op::Record:
        if (op.gen == op.event->gen) {
            op.event->done = true;
            op.event->t_ms = now_ms();
        }
        break;
    case Op::Wait:
        drain(op.other.get(), op.upto);
        break;
    }
}

CUevent_st *event_of(cudaEvent_t e)
{
    auto it = st().event_reg.find(e);
    return it == st().event_reg.end() ? nullptr : it->second.get();
}

cudaError_t create_stream(cudaStream_t *p, unsigned flags, int priority)
{
    CUDAEMU_LOCK;
    if (!p) return ret(cudaErrorInvalidValue);
    if (cudaError_t e = usable()) return ret(e);
    if (flags & ~unsigned(cudaStreamNonBlocking)) return ret(cudaErrorInvalidValue);
    auto s = std::make_shared<CUstream_st>();
    s->device = cur_dev();
    s->flags = flags;
    s->priority = std::max(-5, std::min(0, priority));
    dev(s->device).streams.push_back(s);
    st().stream_reg[s.get()] = s;
    *p = s.get();
    return cudaSuccess;
}

} // namespace

std::shared_ptr<CUstream_st> stream_of(cudaStream_t h, cudaError_t *err)
{
    if (h == nullptr || h == cudaStreamLegacy) return dev(cur_dev()).legacy;
    if (h == cudaStreamPerThread) return dev(cur_dev()).per_thread;
    auto it = st().stream_reg.find(h);
    if (it == st().stream_reg.end()) {
        *err = cudaErrorInvalidResourceHandle;
        return nullptr;
    }
    return it->second;
}

cudaError_t enqueue(CUstream_st *s, Op op)
{
    cudaError_t ce = cudaSuccess;
    if (capture_op(s, op, &ce)) return ce;
    Device &d = dev(s->device);
    if (s->legacy) {
        if (!(d.per_thread->flags & cudaStreamNonBlocking)) push_wait(s, d.per_thread);
        for (auto &t : d.streams)
            if (!(t->flags & cudaStreamNonBlocking)) push_wait(s, t);
    } else if (!(s->flags & cudaStreamNonBlocking)) {
        push_wait(s, d.legacy);
    }
    push(s, std::move(op));
    return cudaSuccess;
}

cudaError_t enqueue_work(CUstream_st *s, std::function<cudaError_t()> fn)
{
    Op op;
    op.kind = Op::Work;
    op.work = std::move(fn);
    return enqueue(s, std::move(op));
}

cudaError_t submit(CUstream_st *s, std::function<cudaError_t()> fn, bool wait)
{
    if (cudaError_t e = enqueue_work(s, std::move(fn))) return e;
    if (wait && !capturing(s)) drain_all(s);
    return dev(s->device).sticky;
}

namespace {

/* Runs s's ops in issue order until upto have been done (or its queue is
 * empty, or an op cannot run now), one at a time. */
void drain_serial(CUstream_st *s, uint64_t upto)
{
    if (s->done >= upto) return;
    device_memory_access(true);
    const std::thread::id me = std::this_thread::get_id();
    while (s->done < upto && !s->q.empty()) {
        if (s->started > s->done) {
            /* An op of s is executing: in this thread (a collective meeting
             * its ranks came back here: a cycle, the collective reports it)
             * or in another one that released the lock in api_wait. */
            if (s->runner == me || on_progress_thread()) break;
            /* its waits end within CUDAEMU_NCCL_TIMEOUT_MS; longer: threads wait for each other */
            const int ms = 2 * config().nccl_timeout_ms + 1000;
            if (!api_wait([s] { return s->started == s->done; }, now_ms() + ms)) {
                report("a stream of device %d has waited %d ms for an operation another host "
                       "thread is running on it (host threads waiting for each other's streams: "
                       "on a GPU this would hang)", s->device, ms);
                set_sticky(s->device, cudaErrorLaunchFailure);
                break;
            }
            continue;
        }
        if (s->q.front().gate) {
            const uint64_t at = s->done;
            /* a copy: while it waits, another thread may run and pop the op */
            const std::function<bool()> gate = s->q.front().gate;
            if (!gate()) break;
            if (s->done != at || s->started != at) continue; /* another thread went on meanwhile */
        }
        Op op = std::move(s->q.front());
        s->q.pop_front();
        ++s->started;
        s->runner = me;
        execute(s, op);
        ++s->done;
        api_notify();
    }
    device_memory_access(false);
}

/* A stream to drain up to an op count; stuck: it cannot go on now (a gate,
 * another thread's op), left as drain_serial leaves it. */
struct Goal {
    CUstream_st *s;
    uint64_t upto;
    bool stuck;
};

bool met(const Goal &g) { return g.stuck || g.s->done >= g.upto || g.s->q.empty(); }

/* Raises s's goal to upto, or adds one (false: it was there already). */
bool add_goal(std::vector<Goal> &goals, CUstream_st *s, uint64_t upto)
{
    for (Goal &g : goals)
        if (g.s == s) {
            if (g.upto >= upto) return false;
            g.upto = upto;
            return true;
        }
    goals.push_back(Goal{s, upto, false});
    return true;
}

/* A wait not met yet, on a stream that is not stuck (a wait on a stuck
 * stream runs as drain_serial runs it). */
bool waits_on(const std::vector<Goal> &goals, const Op &w)
{
    if (w.kind != Op::Wait || met(Goal{w.other.get(), w.upto, false})) return false;
    for (const Goal &g : goals)
        if (g.s == w.other.get() && g.stuck) return false;
    return true;
}

/* A kernel at the head of a stream that may run together with others. */
bool batchable(const Op &h)
{
    return h.kind == Op::Work && h.launch && !h.launch->cooperative && !h.gate &&
           dev(h.launch->device).sticky == cudaSuccess;
}

/* Runs the kernels at the heads of goals[at[...]] (on one device) as one
 * interleaved batch (run_launches), as execute would run each. */
void run_batch(std::vector<Goal> &goals, const std::vector<size_t> &at)
{
    const std::thread::id me = std::this_thread::get_id();
    std::vector<Op> ops;
    std::vector<const Launch *> ls;
    for (size_t i : at) {
        CUstream_st *s = goals[i].s;
        ops.push_back(std::move(s->q.front()));
        s->q.pop_front();
        ++s->started;
        s->runner = me;
        ls.push_back(ops.back().launch.get());
    }
    std::vector<cudaError_t> out(ls.size(), cudaSuccess);
    run_launches(ls.data(), ls.size(), out.data());
    for (size_t k = 0; k < at.size(); ++k) {
        CUstream_st *s = goals[at[k]].s;
        if (out[k] != cudaSuccess) set_sticky(s->device, out[k]);
        ++s->done;
    }
    api_notify();
}

/* CUDAEMU_INTERLEAVE=1: drains the goals' streams together.  Each round
 * runs, one at a time, the ops at the heads that are not kernels (records,
 * waits met, copies, host functions, gated ops: drain_serial); a wait not
 * met makes its event's stream a goal too; when every head left is a kernel
 * or a wait, the kernels at the heads (those of the first one's device) run
 * as one interleaved batch: their dependencies are met, as on a GPU that
 * runs them at once.  A lone kernel runs alone, as drain_serial runs it. */
void drain_together(std::vector<Goal> goals)
{
    device_memory_access(true);
    std::vector<size_t> batch;
    for (;;) {
        constexpr size_t kNone = ~size_t(0);
        size_t single = kNone; /* a head that runs alone */
        bool grew = false;
        batch.clear();
        for (size_t i = 0; i < goals.size(); ++i) { /* goals may grow meanwhile */
            if (met(goals[i])) continue;
            CUstream_st *s = goals[i].s;
            const Op &h = s->q.front();
            if (s->started == s->done && waits_on(goals, h)) {
                /* the waits queued together (the legacy stream's, one per
                 * blocking stream) all join: their kernels may run together */
                for (const Op &w : s->q) {
                    if (w.kind != Op::Wait) break;
                    if (waits_on(goals, w)) grew |= add_goal(goals, w.other.get(), w.upto);
                }
                continue;
            }
            if (s->started == s->done && batchable(h)) {
                if (batch.empty() ||
                    h.launch->device == goals[batch[0]].s->q.front().launch->device)
                    batch.push_back(i);
                continue;
            }
            single = i;
            break;
        }
        if (single == kNone && batch.size() == 1) single = batch[0];
        if (single != kNone) {
            Goal &g = goals[single];
            const uint64_t at = g.s->done;
            drain_serial(g.s, at + 1);
            if (g.s->done == at) g.stuck = true;
            continue;
        }
        if (batch.size() > 1) {
            run_batch(goals, batch);
            continue;
        }
        /* nothing runs: every goal is met (a wait on a stuck stream ran above) */
        if (!grew) break;
    }
    device_memory_access(false);
}

} // namespace

void drain(CUstream_st *s, uint64_t upto)
{
    if (s->done >= upto) return;
    if (config().interleave) drain_together({Goal{s, upto, false}});
    else drain_serial(s, upto);
}

void drain_all(CUstream_st *s) { drain(s, s->issued); }

void sync_device(int d)
{
    Device &dv = dev(d);
    std::vector<std::shared_ptr<CUstream_st>> all{dv.legacy, dv.per_thread};
    all.insert(all.end(), dv.streams.begin(), dv.streams.end());
    if (config().order == Order::Rev) std::reverse(all.begin(), all.end());
    if (config().order == Order::Shuffle) std::shuffle(all.begin(), all.end(), rng());
    if (config().interleave) { /* kernels of different streams run together */
        std::vector<Goal> goals;
        for (auto &s : all) goals.push_back(Goal{s.get(), s->issued, false});
        drain_together(std::move(goals));
        return;
    }
    for (auto &s : all) drain_all(s.get());
}

void reset_streams(int d)
{
    Device &dv = dev(d);
    auto clear = [](CUstream_st *s) {
        s->q.clear();
        s->done = s->started = s->issued;
    };
    clear(dv.legacy.get());
    clear(dv.per_thread.get());
    for (auto &s : dv.streams) {
        clear(s.get());
        st().stream_reg.erase(s.get());
    }
    dv.streams.clear();
    for (auto it = st().event_reg.begin(); it != st().event_reg.end();)
        it = it->second->device == d ? st().event_reg.erase(it) : std::next(it);
}

} // namespace cudaemu

using namespace cudaemu;

inline namespace cudaemu_api {

cudaError_t cudaStreamCreate(cudaStream_t *p) { return create_stream(p, 0, 0); }

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *p, unsigned int flags)
{
    cudaError_t de;
    if (device_stream_create(p, flags, &de)) return de; /* in device code */
    return create_stream(p, flags, 0);
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *p, unsigned int flags, int priority)
{
    return create_stream(p, flags, priority);
}

cudaError_t cudaStreamGetFlags(cudaStream_t h, unsigned int *flags)
{
    CUDAEMU_LOCK;
    cudaError_t e = usable();
    if (e) return ret(e);
    if (!flags) return ret(cudaErrorInvalidValue);
    auto s = stream_of(h, &e);
    if (!s) return ret(e);
    *flags = s->flags;
    return cudaSuccess;
}

cudaError_t cudaStreamGetPriority(cudaStream_t h, int *priority)
{
    CUDAEMU_LOCK;
    cudaError_t e = usable();
    if (e) return ret(e);
    if (!priority) return ret(cudaErrorInvalidValue);
    auto s = stream_of(h, &e);
    if (!s) return ret(e);
    *priority = s->priority;
    return cudaSuccess;
}

cudaError_t cudaStreamDestroy(cudaStream_t h)
{
    cudaError_t de;
    if (device_stream_destroy(h, &de)) return de; /* in device code */
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    auto it = st().stream_reg.find(h);
    if (it == st().stream_reg.end()) return ret(cudaErrorInvalidResourceHandle);
    auto s = it->second;
    drain_all(s.get()); /* CUDA finishes queued work after a destroy */
    st().stream_reg.erase(it);
    auto &v = dev(s->device).streams;
    v.erase(std::remove(v.begin(), v.end(), s), v.end());
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t h)
{
    CUDAEMU_LOCK;
    cudaError_t e = usable();
    if (e) return ret(e);
    auto s = stream_of(h, &e);
    if (!s) return ret(e);
    if ((e = capture_check_stream_sync(s.get()))) return ret(e);
    drain_all(s.get());
    pools_after_sync(s->device);
    return ret(dev(s->device).sticky);
}

cudaError_t cudaStreamQuery(cudaStream_t h)
{
    CUDAEMU_LOCK;
    cudaError_t e = usable();
    if (e) return ret(e);
    auto s = stream_of(h, &e);
    if (!s) return ret(e);
    if ((e = capture_check_stream_sync(s.get()))) return ret(e);
    if (s->done < s->issued) {
        /* The first query after new work says "not ready" without running
         * anything; asking again runs it, so polling loops terminate. */
        if (!s->queried) {
            s->queried = true;
            return cudaErrorNotReady;
        }
        drain_all(s.get());
    }
    return ret(dev(s->device).sticky);
}

cudaError_t cudaStreamWaitEvent(cudaStream_t h, cudaEvent_t ev, unsigned int flags)
{
    CUDAEMU_LOCK;
    cudaError_t e = usable();
    if (e) return ret(e);
    auto s = stream_of(h, &e);
    if (!s) return ret(e);
    CUevent_st *x = event_of(ev);
    if (!x) return ret(cudaErrorInvalidResourceHandle);
    if (flags & ~1u) return ret(cudaErrorInvalidValue);
    if (capture_wait(s, x, flags, &e)) return ret(e);
    if (x->recorded && x->stream.get() != s.get()) {
        Op w;
        w.kind = Op::Wait;
        w.other = x->stream;
        w.upto = x->upto;
        s->q.push_back(std::move(w));
        ++s->issued;
        s->queried = false;
    }
    return cudaSuccess;
}

cudaError_t cudaLaunchHostFunc(cudaStream_t h, cudaHostFn_t fn, void *userData)
{
    CUDAEMU_LOCK;
    cudaError_t e = usable();
    if (e) return ret(e);
    if (!fn) return ret(cudaErrorInvalidValue);
    auto s = stream_of(h, &e);
    if (!s) return ret(e);
    return ret(enqueue_work(s.get(), [fn, userData]() {
        fn(userData);
        return cudaSuccess;
    }));
}

cudaError_t cudaStreamAddCallback(cudaStream_t h, cudaStreamCallback_t cb, void *userData,
                                  unsigned int flags)
{
    CUDAEMU_LOCK;
    cudaError_t e = usable();
    if (e) return ret(e);
    if (!cb || flags != 0) return ret(cudaErrorInvalidValue);
    auto s = stream_of(h, &e);
    if (!s) return ret(e);
    const int d = s->device;
    Op op;
    op.kind = Op::Work;
    op.after_failure = true; /* CUDA calls it with the error status */
    op.work = [h, cb, userData, d]() {
        cb(h, dev(d).sticky, userData);
        return cudaSuccess;
    };
    return ret(enqueue(s.get(), std::move(op)));
}

cudaError_t cudaEventCreate(cudaEvent_t *event) { return cudaEventCreateWithFlags(event, 0); }

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    CUDAEMU_LOCK;
    if (!event) return ret(cudaErrorInvalidValue);
    if (cudaError_t e = usable()) return ret(e);
    if (flags & ~0x7u) return ret(cudaErrorInvalidValue);
    if ((flags & cudaEventInterprocess) && !(flags & cudaEventDisableTiming))
        return ret(cudaErrorInvalidValue);
    auto x = std::make_shared<CUevent_st>();
    x->device = cur_dev();
    x->flags = flags;
    st().event_reg[x.get()] = x;
    *event = x.get();
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t ev, cudaStream_t h)
{
    CUDAEMU_LOCK;
    cudaError_t e = usable();
    if (e) return ret(e);
    auto it = st().event_reg.find(ev);
    if (it == st().event_reg.end()) return ret(cudaErrorInvalidResourceHandle);
    auto s = stream_of(h, &e);
    if (!s) return ret(e);
    CUevent_st *x = it->second.get();
    Op r;
    r.kind = Op::Record;
    r.event = it->second;
    r.gen = x->gen + 1;
    if ((e = enqueue(s.get(), std::move(r)))) return ret(e);
    ++x->gen;
    x->recorded = true;
    x->done = false;
    x->queried = false;
    x->stream = s;
    x->upto = s->issued;
    return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t ev)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    CUevent_st *x = event_of(ev);
    if (!x) return ret(cudaErrorInvalidResourceHandle);
    if (cudaError_t e = capture_check_event_sync(x)) return ret(e);
    if (x->recorded && !x->done) drain(x->stream.get(), x->upto);
    pools_after_sync(x->device);
    return ret(dev(x->device).sticky);
}

cudaError_t cudaEventQuery(cudaEvent_t ev)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    CUevent_st *x = event_of(ev);
    if (!x) return ret(cudaErrorInvalidResourceHandle);
    if (cudaError_t e = capture_check_event_sync(x)) return ret(e);
    if (x->recorded && !x->done) {
        if (!x->queried) {
            x->queried = true;
            return cudaErrorNotReady;
        }
        drain(x->stream.get(), x->upto);
    }
    return ret(dev(x->device).sticky);
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    if (!ms) return ret(cudaErrorInvalidValue);
    CUevent_st *a = event_of(start), *b = event_of(end);
    if (!a || !b) return ret(cudaErrorInvalidResourceHandle);
    if ((a->flags | b->flags) & cudaEventDisableTiming) return ret(cudaErrorInvalidResourceHandle);
    if (!a->recorded || !b->recorded) return ret(cudaErrorInvalidResourceHandle);
    if (!a->done || !b->done) return cudaErrorNotReady;
    *ms = float(b->t_ms - a->t_ms);
    return cudaSuccess;
}

cudaError_t cudaEventDestroy(cudaEvent_t ev)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    if (!st().event_reg.erase(ev)) return ret(cudaErrorInvalidResourceHandle);
    return cudaSuccess;
}

} // inline namespace cudaemu_api
