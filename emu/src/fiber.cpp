/* emu/src/fiber.cpp - user-space fibers: one per CUDA thread of a block.
 *
 * Each fiber owns an mmap'd stack with a PROT_NONE guard region below it;
 * stacks are pooled and reused across blocks and launches.  On x86-64 the
 * context switch is a few instructions of assembly that save the callee-saved
 * registers and rsp (no system call); elsewhere
 * ucontext is the fallback.  The host enters a fiber (enter), a fiber goes
 * straight on to another (switch_to: one switch instead of two through the
 * host, and the return addresses the CPU predicts match when both fibers
 * stopped at the same place) or back to the host (leave).  Under
 * AddressSanitizer every switch is announced with
 * __sanitizer_start/finish_switch_fiber.  A SIGSEGV handler running on
 * an alternate signal stack turns a hit on a guard region into a clear
 * "stack overflow in a kernel" message; other faults inside a kernel get a
 * one-line note and then go to the previous handler (ASan's or the default).
 */
#include "internal.h"

#include <algorithm>
#include <csignal>
#include <pthread.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sys/mman.h>
#include <unistd.h>

/* The assembly switch on x86-64; ucontext elsewhere (or with -DCUDAEMU_UCONTEXT). */
#if defined(__x86_64__) && !defined(CUDAEMU_UCONTEXT)
#define CUDAEMU_ASM_SWITCH 1
#else
#include <ucontext.h>
#endif

#ifdef CUDAEMU_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

namespace cudaemu {
namespace fiber {

constexpr size_t kGuard = 64 << 10;

struct Fiber {
    void *sp = nullptr;       /* saved stack pointer while switched out */
#if !defined(CUDAEMU_ASM_SWITCH)
    char *low = nullptr;      /* below every live frame while switched out (park) */
#endif
    char *map = nullptr;      /* guard + stack */
    size_t map_size = 0;
    char *lo = nullptr;       /* usable stack [lo, lo + size) */
    size_t size = 0;
    Entry entry = nullptr;
    void *user = nullptr;
    void *asan_fake = nullptr;
#if !defined(CUDAEMU_ASM_SWITCH)
    ucontext_t uc;
#endif
};

namespace {
/* The host side of the current switch; kernels run on one host thread at a time. */
#if defined(CUDAEMU_ASM_SWITCH)
void *g_host_sp = nullptr;
#endif
Fiber *g_running = nullptr;
/* The host stack's bounds (ASan), learnt when a fiber is entered from it. */
const void *g_host_bottom = nullptr;
size_t g_host_size = 0;
bool g_from_host = false; /* the switch under way came from the host stack */
std::vector<Fiber *> *g_all = nullptr; /* every fiber, for the fault handler */
#if !defined(CUDAEMU_ASM_SWITCH)
ucontext_t g_host_uc;
#endif

inline void asan_start(void **fake, const void *bottom, size_t size)
{
#ifdef CUDAEMU_ASAN
    __sanitizer_start_switch_fiber(fake, bottom, size);
#else
    (void)fake, (void)bottom, (void)size;
#endif
}
inline void asan_finish(void *fake, const void **bottom, size_t *size)
{
#ifdef CUDAEMU_ASAN
    __sanitizer_finish_switch_fiber(fake, bottom, size);
#else
    (void)fake, (void)bottom, (void)size;
#endif
}
/* On a fiber that has just been switched to: finish ASan's switch and, when
 * the switch came from the host, remember the host stack to go back to. */
inline void asan_arrived(void *fake)
{
#ifdef CUDAEMU_ASAN
    const void *bottom = nullptr;
    size_t size = 0;
    asan_finish(fake, &bottom, &size);
    if (g_from_host) {
        g_host_bottom = bottom;
        g_host_size = size;
        g_from_host = false;
    }
#else
    (void)fake;
#endif
}
} // namespace
} // namespace fiber
} // namespace cudaemu

#if defined(CUDAEMU_ASM_SWITCH)
/* cudaemu_fiber_switch(save, next): push the callee-saved registers on the
 * current stack, store rsp in *save, load next as rsp and pop the same frame
 * from there.  MXCSR and the x87 control word are not switched: every fiber
 * runs on the host thread that enters it and takes that thread's floating-point
 * environment (device code has no way to change it), and saving them cost
 * more than the rest of the switch.  A fresh fiber's frame "returns" into
 * cudaemu_fiber_start, which calls entry(fiber) with rsp 16-byte aligned. */
extern "C" void cudaemu_fiber_switch(void **save, void *next);
extern "C" void cudaemu_fiber_start();
__asm__(".text\n"
        ".p2align 4\n"
        ".globl cudaemu_fiber_switch\n"
        ".hidden cudaemu_fiber_switch\n"
        ".type cudaemu_fiber_switch,@function\n"
        "cudaemu_fiber_switch:\n"
        "    pushq %rbp\n"
        "    pushq %rbx\n"
        "    pushq %r12\n"
        "    pushq %r13\n"
        "    pushq %r14\n"
        "    pushq %r15\n"
        "    movq %rsp, (%rdi)\n"
        "    movq %rsi, %rsp\n"
        "    popq %r15\n"
        "    popq %r14\n"
        "    popq %r13\n"
        "    popq %r12\n"
        "    popq %rbx\n"
        "    popq %rbp\n"
        "    ret\n"
        ".size cudaemu_fiber_switch, .-cudaemu_fiber_switch\n"
        ".p2align 4\n"
        ".globl cudaemu_fiber_start\n"
        ".hidden cudaemu_fiber_start\n"
        ".type cudaemu_fiber_start,@function\n"
        "cudaemu_fiber_start:\n"
        "    movq %r12, %rdi\n"
        "    callq *%rbx\n"
        "    ud2\n"
        ".size cudaemu_fiber_start, .-cudaemu_fiber_start\n");
#endif

namespace cudaemu {
namespace fiber {
namespace {

void trampoline(Fiber *f)
{
    asan_arrived(nullptr);
    f->entry(f);
    std::fprintf(stderr, "cudaemu: internal error: a fiber's entry returned\n");
    std::abort();
}

#if !defined(CUDAEMU_ASM_SWITCH)
Fiber *g_starting = nullptr;
void uc_trampoline() { trampoline(g_starting); }
#endif

void build_initial_frame(Fiber *f)
{
#if defined(CUDAEMU_ASM_SWITCH)
    uintptr_t top = (reinterpret_cast<uintptr_t>(f->lo) + f->size) & ~uintptr_t(15);
    uintptr_t x = top - 16;       /* rsp when cudaemu_fiber_start runs: 16-aligned */
    uint64_t *frame = reinterpret_cast<uint64_t *>(x - 56);
    frame[0] = 0;                                           /* r15 */
    frame[1] = 0;                                           /* r14 */
    frame[2] = 0;                                           /* r13 */
    frame[3] = reinterpret_cast<uint64_t>(f);               /* r12: argument */
    frame[4] = reinterpret_cast<uint64_t>(&trampoline);     /* rbx: function */
    frame[5] = 0;                                           /* rbp */
    frame[6] = reinterpret_cast<uint64_t>(&cudaemu_fiber_start); /* return address */
    reinterpret_cast<uint64_t *>(x)[0] = 0;
    reinterpret_cast<uint64_t *>(x)[1] = 0;
    f->sp = frame;
#else
    getcontext(&f->uc);
    f->uc.uc_stack.ss_sp = f->lo;
    f->uc.uc_stack.ss_size = f->size;
    f->uc.uc_link = nullptr;
    makecontext(&f->uc, uc_trampoline, 0);
#endif
}

inline void raw_switch_in(Fiber *f)
{
#if defined(CUDAEMU_ASM_SWITCH)
    cudaemu_fiber_switch(&g_host_sp, f->sp);
#else
    g_starting = f;
    swapcontext(&g_host_uc, &f->uc);
#endif
}

#if !defined(CUDAEMU_ASM_SWITCH)
/* swapcontext's frames and the red zone lie below the caller's locals */
constexpr size_t kLowMargin = 4096;
inline void note_low(Fiber *f)
{
    char here;
    f->low = std::max(f->lo, &here - kLowMargin);
}
#endif

inline void raw_switch_out(Fiber *f)
{
#if defined(CUDAEMU_ASM_SWITCH)
    cudaemu_fiber_switch(&f->sp, g_host_sp);
#else
    note_low(f);
    swapcontext(&f->uc, &g_host_uc);
#endif
}

inline void raw_switch(Fiber *from, Fiber *to)
{
#if defined(CUDAEMU_ASM_SWITCH)
    cudaemu_fiber_switch(&from->sp, to->sp);
#else
    note_low(from);
    g_starting = to;
    swapcontext(&from->uc, &to->uc);
#endif
}

/* ---- fault handling ---- */
struct sigaction g_old_segv;
bool g_handler_installed = false;

void put(const char *s) { ssize_t r = write(2, s, std::strlen(s)); (void)r; }
void put_u(unsigned long v)
{
    char buf[24];
    int i = 23;
    buf[i] = 0;
    do { buf[--i] = char('0' + v % 10); v /= 10; } while (v && i > 0);
    put(buf + i);
}
void put_hex(uintptr_t v)
{
    char buf[24];
    int i = 23;
    buf[i] = 0;
    do { buf[--i] = "0123456789abcdef"[v & 15]; v >>= 4; } while (v && i > 2);
    buf[--i] = 'x';
    buf[--i] = '0';
    put(buf + i);
}
void put_coords(const uint3 &v)
{
    put("(");
    put_u(v.x); put(","); put_u(v.y); put(","); put_u(v.z);
    put(")");
}

void on_segv(int sig, siginfo_t *info, void *uctx)
{
    (void)uctx;
    uintptr_t a = reinterpret_cast<uintptr_t>(info->si_addr);
    if (g_running && g_all) {
        bool guard = false;
        for (Fiber *f : *g_all) {
            uintptr_t lo = reinterpret_cast<uintptr_t>(f->map);
            if (a >= lo && a < lo + kGuard) { guard = true; break; }
        }
        if (guard) {
            put("cudaemu: stack overflow in a kernel: CUDA thread ");
            put_coords(detail::g_threadIdx);
            put(" of block ");
            put_coords(detail::g_blockIdx);
            put(" ran off its ");
            put_u(g_running->size >> 10);
            put(" KiB fiber stack (fault at ");
            put_hex(a);
            put(" in the guard page). Large local arrays or deep recursion? "
                "Set CUDAEMU_STACK_KB to a larger stack.\n");
            _exit(134);
        }
        /* past a device block's guard zone: the launch fails, the process lives */
        sigset_t unblock;
        sigemptyset(&unblock);
        sigaddset(&unblock, sig);
        pthread_sigmask(SIG_UNBLOCK, &unblock, nullptr);
        kernel_guard_fault(a);
        put("cudaemu: memory fault at ");
        put_hex(a);
        put(" in a kernel: CUDA thread ");
        put_coords(detail::g_threadIdx);
        put(" of block ");
        put_coords(detail::g_blockIdx);
        put(" (on a GPU: cudaErrorIllegalAddress)\n");
    }
    /* Not ours: hand the fault to whoever handled it before us. */
    sigaction(sig, &g_old_segv, nullptr);
}

void ensure_altstack()
{
    static thread_local bool done = false;
    if (done) return;
    done = true;
    stack_t cur;
    if (sigaltstack(nullptr, &cur) == 0 && !(cur.ss_flags & SS_DISABLE) && cur.ss_size >= 16384)
        return; /* e.g. AddressSanitizer's */
    size_t sz = 256 << 10;
    void *p = mmap(nullptr, sz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return;
    stack_t ss;
    ss.ss_sp = p;
    ss.ss_size = sz;
    ss.ss_flags = 0;
    sigaltstack(&ss, nullptr);
}

} // namespace

Fiber *create(Entry entry, void *user)
{
    Fiber *f = new Fiber;
    f->entry = entry;
    f->user = user;
    /* Stack colouring: each fiber's stack top sits at a different offset
     * (a multiple of 64 bytes, below 128 KiB) so that the frames of a block's
     * fibers, touched at every switch, fall into different L1 and L2 cache
     * sets.  Page-aligned tops put all of them into one set each and made a
     * barrier cost a cache miss per thread. */
    static unsigned n_created = 0;
    const size_t colour = size_t((n_created++ * 37u) % 2048u) * 64u;
    f->size = ((config().stack_bytes + 4095) & ~size_t(4095)) + colour;
    f->map_size = (f->size + kGuard + 4095) & ~size_t(4095);
    void *m = mmap(nullptr, f->map_size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) {
        report("cannot map a %zu KiB fiber stack", f->map_size >> 10);
        std::abort();
    }
    f->map = static_cast<char *>(m);
    mprotect(f->map, kGuard, PROT_NONE);
    f->lo = f->map + kGuard;
    build_initial_frame(f);
    if (!g_all) g_all = new std::vector<Fiber *>;
    g_all->push_back(f);
    return f;
}

void *user(Fiber *f) { return f->user; }

Fiber *running() { return g_running; }

void prefetch(const Fiber *f)
{
    const char *sp = static_cast<const char *>(f->sp);
    for (int i = 0; i < 4; ++i) __builtin_prefetch(sp + 64 * i, 1);
}

void enter(Fiber *f)
{
    g_running = f;
    void *fake = nullptr;
    g_from_host = true;
    asan_start(&fake, f->lo, f->size);
    raw_switch_in(f);
    asan_finish(fake, nullptr, nullptr);
    g_running = nullptr;
}

void leave(Fiber *f)
{
    asan_start(&f->asan_fake, g_host_bottom, g_host_size);
    raw_switch_out(f);
    asan_arrived(f->asan_fake);
}

void switch_to(Fiber *from, Fiber *to)
{
    g_running = to;
    asan_start(&from->asan_fake, to->lo, to->size);
    raw_switch(from, to);
    asan_arrived(from->asan_fake);
}

namespace {
char *stack_top(const Fiber *f)
{
    return reinterpret_cast<char *>((reinterpret_cast<uintptr_t>(f->lo) + f->size) &
                                    ~uintptr_t(15));
}
/* Switched-out f: every live frame lies in [live_low(f), stack_top(f)). */
char *live_low(const Fiber *f)
{
#if defined(CUDAEMU_ASM_SWITCH)
    return static_cast<char *>(f->sp);
#else
    return f->low ? f->low : f->lo;
#endif
}
} // namespace

void reset(Fiber *f)
{
#ifdef CUDAEMU_ASAN
    /* The abandoned frames left their redzones poisoned (frames below them
     * have returned, which unpoisoned theirs). */
    char *low = live_low(f);
    ASAN_UNPOISON_MEMORY_REGION(low, size_t(stack_top(f) - low));
#endif
    f->asan_fake = nullptr;
    build_initial_frame(f);
}

/* A parked context: this header, then the bytes of its live frames. */
struct ParkedHeader {
    size_t n;            /* bytes of frames, [top - n, top) */
    void *sp;
    void *asan_fake;
#if !defined(CUDAEMU_ASM_SWITCH)
    char *low;
    ucontext_t uc;
#endif
};

size_t park(Fiber *f, std::vector<char> &out)
{
    char *top = stack_top(f);
    char *low = live_low(f);
    ParkedHeader h;
    h.n = size_t(top - low);
    h.sp = f->sp;
    h.asan_fake = f->asan_fake;
#if !defined(CUDAEMU_ASM_SWITCH)
    h.low = f->low;
    h.uc = f->uc;
#endif
    const size_t at = out.size();
    const size_t rec = (sizeof h + h.n + 15) & ~size_t(15);
    out.resize(at + rec);
#ifdef CUDAEMU_ASAN
    ASAN_UNPOISON_MEMORY_REGION(low, h.n); /* the frames' redzones */
#endif
    std::memcpy(out.data() + at, &h, sizeof h);
    std::memcpy(out.data() + at + sizeof h, low, h.n);
    return at;
}

void unpark(Fiber *f, const char *rec)
{
    ParkedHeader h;
    std::memcpy(&h, rec, sizeof h);
    char *top = stack_top(f);
#ifdef CUDAEMU_ASAN
    ASAN_UNPOISON_MEMORY_REGION(top - h.n, h.n); /* frames come back without redzones */
#endif
    std::memcpy(top - h.n, rec + sizeof h, h.n);
    f->sp = h.sp;
    f->asan_fake = h.asan_fake;
#if !defined(CUDAEMU_ASM_SWITCH)
    f->low = h.low;
    f->uc = h.uc;
#endif
}

void install_fault_handler()
{
    ensure_altstack();
    if (g_handler_installed) return;
    g_handler_installed = true;
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_segv;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &g_old_segv);
}

} // namespace fiber
} // namespace cudaemu
