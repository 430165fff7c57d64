/* emu/src/watchdog.cpp - no kernel hangs silently.
 *
 * One background thread (started by the first launch) watches the kernel
 * running now, from its host thread's side, through a signal (SIGURG, which
 * the emulator takes over) sent to that thread:
 *
 *  - time slices: a CUDA thread that has run 20 ms without any fiber
 *    switch is preempted: it stays runnable and the next
 *    thread of its block runs, so a thread spinning on a flag that another
 *    warp of its block sets sees the flag (warps make forward progress, as on
 *    a GPU).  Blocks still run one after another: a block waiting for a
 *    later block of the grid is left to the timeout.
 *  - the timeout: a kernel still running after CUDAEMU_KERNEL_TIMEOUT_S
 *    seconds (default 300; 0: never) fails with the sticky
 *    cudaErrorLaunchTimeout (a display watchdog's error on a GPU) and one
 *    line naming the kernel, the block, the thread that was running and the
 *    threads that had not returned.
 *  - process exit (on_exit): a kernel still running on another host thread
 *    (the progress thread, or a thread of the program) is ended, as a GPU
 *    context's teardown ends its work, so exit never waits for it.
 *
 * The signal acts only where the running CUDA thread is in the program's own
 * code (not inside the emulator's scheduler, nor in a shared library such as
 * libc, which may hold a lock); else it is sent again 10 ms later.  A kernel
 * that cannot be stopped so within 5 s of its timeout (or of exit) ends the
 * process with the same line (status 124, or the exit status).
 */
#include "internal.h"

#include <link.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

namespace cudaemu {

std::atomic<uint64_t> g_kernel_ticks{0};

namespace {

constexpr int kSignal = SIGURG;
constexpr int64_t kSliceNs = 20 * 1000000LL;
constexpr int64_t kGraceNs = 5000 * 1000000LL;

/* never destroyed: the watching thread waits on them while exit runs */
std::mutex &g_mu = *new std::mutex;
std::condition_variable &g_cv = *new std::condition_variable;
std::atomic<bool> g_running{false};      /* a kernel runs now */
std::atomic<int64_t> g_start_ns{0};      /* ... since */
pthread_t g_thread;                       /* ... on this host thread */
std::atomic<const void *> g_func{nullptr}; /* ... this kernel (an interleaved batch: the one
                                           * whose block runs now) */
std::atomic<int> g_request{0};           /* the signal's request (KernelStop) */
std::atomic<bool> g_exiting{false};      /* the process is exiting: end kernels */
std::atomic<int> g_exit_status{1};
uintptr_t g_text_lo = 0, g_text_hi = 0;  /* the program's executable segments */

int64_t now_ns()
{
    using namespace std::chrono;
    return duration_cast<nanoseconds>(steady_clock::now().time_since_epoch()).count();
}

int find_text(struct dl_phdr_info *info, size_t, void *)
{
    /* the first object is the program itself */
    for (int i = 0; i < info->dlpi_phnum; ++i) {
        const ElfW(Phdr) &p = info->dlpi_phdr[i];
        if (p.p_type != PT_LOAD || !(p.p_flags & PF_X)) continue;
        uintptr_t lo = info->dlpi_addr + p.p_vaddr, hi = lo + p.p_memsz;
        if (!g_text_lo || lo < g_text_lo) g_text_lo = lo;
        if (hi > g_text_hi) g_text_hi = hi;
    }
    return 1;
}

void on_signal(int, siginfo_t *, void *uctx)
{
    const int saved = errno;
    const int req = g_request.load();
    uintptr_t pc = 0;
#if defined(__x86_64__)
    pc = uintptr_t(static_cast<ucontext_t *>(uctx)->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
    pc = uintptr_t(static_cast<ucontext_t *>(uctx)->uc_mcontext.pc);
#else
    (void)uctx;
#endif
    if (req && pc >= g_text_lo && pc < g_text_hi && g_request.exchange(0) == req)
        kernel_stop(KernelStop(req)); /* returns after a time slice only */
    errno = saved;
}

[[noreturn]] void give_up(const char *why, int status)
{
    char buf[600];
    std::snprintf(buf, sizeof buf, "cudaemu: kernel %s %s, and it cannot be stopped where it "
                  "runs (outside the program's own code): ending the process\n",
                  function_name(g_func.load()).c_str(), why);
    ssize_t r = write(2, buf, std::strlen(buf));
    (void)r;
    _exit(status);
}

void watch()
{
    uint64_t last_ticks = ~0ull;
    int64_t last_change = now_ns(), stop_since = 0;
    const int64_t timeout_ns = int64_t(config().kernel_timeout_s) * 1000000000LL;
    for (;;) {
        {
            std::unique_lock<std::mutex> lk(g_mu);
            g_cv.wait(lk, [] { return g_running.load(); });
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        std::lock_guard<std::mutex> lk(g_mu);
        if (!g_running.load()) {
            stop_since = 0;
            continue;
        }
        const int64_t now = now_ns();
        const uint64_t ticks = g_kernel_ticks.load(std::memory_order_relaxed);
        if (ticks != last_ticks) {
            last_ticks = ticks;
            last_change = now;
        }
        int req = 0;
        if (g_exiting.load()) req = int(KernelStop::Exit);
        else if (timeout_ns > 0 && now - g_start_ns.load() >= timeout_ns) req = int(KernelStop::Timeout);
        else if (now - last_change >= kSliceNs) req = int(KernelStop::Slice);
        if (!req) continue;
        if (req != int(KernelStop::Slice)) {
            if (!stop_since) stop_since = now;
            if (now - stop_since >= kGraceNs) {
                if (req == int(KernelStop::Exit)) give_up("was still running at exit", g_exit_status.load());
                char why[120];
                std::snprintf(why, sizeof why, "did not finish within CUDAEMU_KERNEL_TIMEOUT_S=%d s",
                              config().kernel_timeout_s);
                give_up(why, 124);
            }
        }
        g_request.store(req);
        pthread_kill(g_thread, kSignal);
    }
}

/* on_exit: end a kernel running on another host thread, wait for it (a
 * little), so that exit never waits for device work. */
void at_exit(int status, void *)
{
    g_exit_status.store(status);
    g_exiting.store(true);
    g_cv.notify_all();
    const int64_t until = now_ns() + kGraceNs + 1000000000LL;
    while (g_running.load() && !pthread_equal(g_thread, pthread_self()) && now_ns() < until)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
}

void start()
{
    dl_iterate_phdr(find_text, nullptr);
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER; /* a preempted thread may be signalled again */
    sigemptyset(&sa.sa_mask);
    sigaction(kSignal, &sa, nullptr);
    on_exit(at_exit, nullptr);
    try {
        std::thread(watch).detach();
    } catch (const std::exception &) {
        report("cannot start the kernel watchdog: a kernel that never ends hangs the program");
    }
}

} // namespace

bool process_exiting() { return g_exiting.load(); }

void watchdog_begin(const void *func)
{
    static std::once_flag once;
    std::call_once(once, start);
    std::lock_guard<std::mutex> lk(g_mu);
    g_thread = pthread_self();
    g_func = func;
    g_request.store(0);
    g_start_ns.store(now_ns());
    g_running.store(true);
    g_cv.notify_all();
}

void watchdog_kernel(const void *func) { g_func.store(func, std::memory_order_relaxed); }

void watchdog_end()
{
    std::lock_guard<std::mutex> lk(g_mu);
    g_running.store(false);
    g_request.store(0);
}

} // namespace cudaemu
