/* emu/src/progress.cpp - streams make progress without a host synchronize.
 *
 * Streams are lazy (streams.cpp): queued work runs when something waits on
 * it.  A program whose host thread waits outside the CUDA API (a condition
 * variable, a barrier, a pipe) for a stream callback would then wait forever,
 * although it ends on a GPU.  So, unless CUDAEMU_PROGRESS_MS=0, one
 * background thread per process runs queued work once no host thread has been
 * inside the runtime for CUDAEMU_PROGRESS_MS milliseconds (default 20): it
 * takes the API lock only when it is free, then drains every stream of every
 * device as cudaDeviceSynchronize does (same CUDAEMU_ORDER).  A host that
 * keeps calling the runtime, or reads results right after queuing work,
 * still sees lazy streams; a host that does nothing for a while sees the
 * work done, as a GPU would have done it.  Our own tests run with
 * CUDAEMU_PROGRESS_MS=0 (purely lazy, deterministic).
 *
 * The thread sleeps on a condition variable while no work is queued; at exit
 * it is stopped after any drain in progress has finished, before static
 * destructors run.  It never waits for other host threads (api_wait): work
 * that must (an NCCL collective missing a rank) stays queued.
 *
 * Also here: api_wait (a host thread waiting, the API lock released, for
 * another host thread's call: NCCL's ranks meeting) and the count of live
 * host threads (whether anyone else could still make that call).
 */
#include "internal.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <thread>

namespace cudaemu {
namespace {

std::atomic<int64_t> g_last_api_ns{0};   /* steady clock, last entry/exit of the API */
std::atomic<bool> g_has_work{false};     /* set by progress_kick, cleared when drained */
std::atomic<bool> g_stopping{false};
std::mutex g_wake_mu;
std::condition_variable g_wake;
std::once_flag g_started;
thread_local bool t_progress = false;
std::atomic<int> g_live_threads{0};
int g_waiters = 0; /* host threads in api_wait (changed with the API lock held) */

/* Counts a host thread from its first API call to its exit. */
struct HostThread {
    HostThread() { g_live_threads.fetch_add(1); }
    ~HostThread() { g_live_threads.fetch_sub(1); }
};

std::condition_variable_any &api_cv()
{
    static auto *cv = new std::condition_variable_any;
    return *cv;
}

int64_t now_ns()
{
    using namespace std::chrono;
    return duration_cast<nanoseconds>(steady_clock::now().time_since_epoch()).count();
}

bool work_queued()
{
    for (Device &d : st().devs) {
        if (d.legacy->done < d.legacy->issued || d.per_thread->done < d.per_thread->issued)
            return true;
        for (auto &s : d.streams)
            if (s->done < s->issued) return true;
    }
    return false;
}

/* With the API lock held: runs everything queued; false when nothing is left. */
bool drain_everything()
{
    if (!work_queued()) {
        g_has_work.store(false);
        return false;
    }
    for (size_t d = 0; d < st().devs.size(); ++d) sync_device(int(d));
    if (!work_queued()) g_has_work.store(false);
    return true;
}

void progress_main()
{
    t_progress = true;
    const int64_t idle_ns = int64_t(config().progress_ms) * 1000000;
    const auto poll = std::chrono::milliseconds(config().progress_ms > 4 ? config().progress_ms / 4 : 1);
    for (;;) {
        {
            std::unique_lock<std::mutex> lk(g_wake_mu);
            g_wake.wait(lk, [] { return g_has_work.load() || g_stopping.load(); });
        }
        if (g_stopping.load()) return;
        std::this_thread::sleep_for(poll);
        if (now_ns() - g_last_api_ns.load() < idle_ns) continue;
        std::unique_lock<std::recursive_mutex> lk(st().mu, std::try_to_lock);
        if (!lk.owns_lock()) continue;
        if (g_stopping.load()) return;
        if (now_ns() - g_last_api_ns.load() < idle_ns) continue; /* raced with a call */
        drain_everything();
    }
}

/* atexit: no drain may run while the program's static objects are destroyed. */
void stop_progress()
{
    g_stopping.store(true);
    {
        std::lock_guard<std::mutex> lk(g_wake_mu);
        g_wake.notify_all();
    }
    std::lock_guard<std::recursive_mutex> wait_for_drain(st().mu);
}

void start_progress()
{
    if (std::atexit(stop_progress) != 0) {
        report("cannot register the progress thread's exit handler; streams stay lazy");
        return;
    }
    try {
        std::thread(progress_main).detach();
    } catch (const std::exception &) {
        report("cannot start the progress thread; streams stay lazy (a host thread waiting "
               "outside the CUDA API for a stream callback will wait forever)");
    }
}

} // namespace

void note_host_thread()
{
    if (t_progress) return;
    static thread_local HostThread counted;
    t_host_thread = true;
}

int live_host_threads() { return g_live_threads.load(); }

bool on_progress_thread() { return t_progress; }

void api_notify()
{
    if (g_waiters) api_cv().notify_all();
}

bool api_wait(const std::function<bool()> &pred, double deadline_ms)
{
    /* the lock is held t_api_depth times (recursive): released and retaken whole */
    struct Relock {
        int n;
        void lock() { for (int i = 0; i < n; ++i) st().mu.lock(); }
        void unlock() { for (int i = 0; i < n; ++i) st().mu.unlock(); }
    } relock{t_api_depth};
    bool ok;
    ++g_waiters;
    for (;;) {
        if ((ok = pred())) break;
        const double left = deadline_ms - now_ms();
        if (t_progress || relock.n <= 0 || left <= 0) break;
        api_cv().wait_for(relock, std::chrono::duration<double, std::milli>(left < 100 ? left : 100));
    }
    --g_waiters;
    return ok;
}

void note_api_call() { g_last_api_ns.store(now_ns(), std::memory_order_relaxed); }

void progress_kick()
{
    if (config().progress_ms == 0) return;
    std::call_once(g_started, start_progress);
    if (!g_has_work.exchange(true)) {
        std::lock_guard<std::mutex> lk(g_wake_mu);
        g_wake.notify_one();
    }
}

} // namespace cudaemu
