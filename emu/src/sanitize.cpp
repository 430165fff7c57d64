/* emu/src/sanitize.cpp - racecheck and initcheck, as compute-sanitizer's
 * tools of those names report them, and what fresh device memory holds
 * (emu/README.md, "Races and uninitialised memory").
 *
 * The accesses are seen through GCC's ThreadSanitizer instrumentation: a
 * translated unit compiled with -fsanitize=thread (nvcc-emu --sanitize=...,
 * cudaemu_test(... SANITIZE ...)) calls __tsan_read4(p), __tsan_write8(p),
 * __tsan_read_range(p, n), ... before every load and store.  This file
 * defines those entry points (libtsan is never linked: the program is not
 * a ThreadSanitizer program).  Outside a CUDA thread's own code, or while no
 * checked launch runs, they return at once.  Inside one:
 *
 *  racecheck: a shadow of the launch's shared memory (the dynamic shared
 *   memory and the kernel's static __shared__ variables) keeps for every
 *   byte its last writer and last reader: linear thread id, the block's
 *   barrier epoch (unique to the block and the barrier phase), the warp-sync
 *   serial at the access and the code address.  An access by another thread
 *   in the same barrier epoch, with no warp primitive completed since over
 *   both lanes (__syncwarp, a shuffle, a vote), is a hazard: a read after the
 *   other's write RAW, a write after its read WAR, after its write WAW.
 *  initcheck: every device block (cudaMalloc, cudaMallocPitch,
 *   cudaMallocAsync) has a map of the bytes written; copies, memsets,
 *   library calls (their operands) and kernel stores set it; a kernel load,
 *   or a copy, of a byte nothing has written is reported, naming the block
 *   and where it was allocated.
 *
 * Reports are bounded (kMaxShown lines per launch, one per kind and pair of
 * code addresses).  In bench's own builds a reported launch fails with the
 * sticky cudaErrorLaunchFailure; in programs built by nvcc-emu the reports
 * are warnings and the program goes on.  Atomics are not instrumented
 * (device_functions.h): racecheck does not report them.
 */
#include "internal.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <tuple>

namespace cudaemu {

namespace {

constexpr unsigned kRace = 1, kInit = 2;
constexpr size_t kMaxShown = 10;

bool g_instrumented = false; /* __tsan_init ran: a unit is instrumented */
bool g_user_build = false;   /* built by nvcc-emu (note_build) */
unsigned g_tools = 0;        /* asked for by the build (note_build) */
std::atomic<bool> g_active{false}; /* a checked launch runs */
size_t g_total_races = 0, g_total_uninit = 0;

struct Cell { /* a byte of shared memory: its last write and last read */
    uint64_t wep = 0, rep = 0;   /* barrier epoch (0: none) */
    uint64_t wser = 0, rser = 0; /* warp-sync serial at the access */
    uint32_t wlin = 0, rlin = 0; /* linear thread id */
    const void *wpc = nullptr, *rpc = nullptr;
};
struct SmemRange {
    uintptr_t base;
    size_t size, cell, offset; /* first cell; offset in the block's shared window */
    bool dynamic;
};
struct LaneSync { uint64_t ep = 0, ser = 0; unsigned mask = 0; };
struct DevBlock {
    uintptr_t base;
    size_t size;
    std::shared_ptr<std::vector<unsigned char>> written;
    const Alloc *alloc;
};

struct Checked {
    const Launch *l = nullptr;
    bool race = false, init = false;
    std::string kname;
    std::vector<SmemRange> smem;
    std::vector<Cell> cells;
    std::vector<DevBlock> blocks; /* sorted by base */
    size_t races = 0, uninit = 0, shown = 0;
    std::set<std::tuple<int, const void *, const void *>> seen;
} g_k;
LaneSync g_lanes[kMaxThreads];
uint64_t g_serial = 0;

const std::string &kernel_name()
{
    if (g_k.kname.empty()) g_k.kname = function_name(g_k.l->func);
    return g_k.kname;
}

uint32_t current_lin()
{
    const uint3 t = detail::g_threadIdx;
    const dim3 b = detail::g_blockDim;
    return t.x + b.x * (t.y + b.y * t.z);
}

std::string thread_of(uint32_t lin)
{
    const dim3 b = detail::g_blockDim;
    char buf[48];
    std::snprintf(buf, sizeof buf, "(%u,%u,%u)", lin % b.x, (lin / b.x) % b.y, lin / (b.x * b.y));
    return buf;
}

std::string block_now()
{
    const uint3 b = detail::g_blockIdx;
    char buf[48];
    std::snprintf(buf, sizeof buf, "(%u,%u,%u)", b.x, b.y, b.z);
    return buf;
}

/* Has a warp primitive over lanes a and b completed since serial ser (in epoch ep)? */
bool warp_ordered(uint32_t a, uint64_t ser, uint32_t b, uint64_t ep)
{
    if ((a >> 5) != (b >> 5)) return false;
    const LaneSync &s = g_lanes[b];
    return s.ep == ep && s.ser > ser && ((s.mask >> (a & 31u)) & 1u);
}

/* Shows a report unless kMaxShown are out or one like it was shown. */
bool show(int kind, const void *pc1, const void *pc2)
{
    if (g_k.shown >= kMaxShown || !g_k.seen.insert(std::make_tuple(kind, pc1, pc2)).second)
        return false;
    ++g_k.shown;
    return true;
}

enum { RAW, WAR, WAW };
void hazard(int kind, uint32_t other, const void *opc, uint32_t me, const void *pc,
            const SmemRange &r, uintptr_t a)
{
    ++g_k.races;
    if (!show(kind, opc, pc)) return;
    static const char *names[] = {"RAW", "WAR", "WAW"};
    const char *first = kind == WAR ? "Read" : "Write", *second = kind == RAW ? "Read" : "Write";
    char where[96];
    if (r.dynamic)
        std::snprintf(where, sizeof where, "byte %zu of the dynamic shared memory",
                      size_t(a - r.base));
    else
        std::snprintf(where, sizeof where, "byte %zu of a %zu-byte static __shared__ variable",
                      size_t(a - r.base), r.size);
    report("racecheck: %s hazard at __shared__ 0x%zx (%s) in kernel %s, block %s: %s by "
           "thread %s at %s, then %s by thread %s at %s, with no __syncthreads() or "
           "__syncwarp() between them", names[kind], r.offset + size_t(a - r.base), where,
           kernel_name().c_str(), block_now().c_str(), first, thread_of(other).c_str(),
           code_location(opc).c_str(), second, thread_of(me).c_str(),
           code_location(pc).c_str());
}

void race_access(uintptr_t a, size_t n, bool write, const void *pc)
{
    for (const SmemRange &r : g_k.smem) {
        if (a + n <= r.base || a >= r.base + r.size) continue;
        const uintptr_t lo = std::max(a, r.base), hi = std::min(a + n, r.base + r.size);
        const uint32_t me = current_lin();
        const uint64_t ep = detail::block_barrier_epoch();
        bool reported = false;
        for (uintptr_t x = lo; x < hi; ++x) {
            Cell &c = g_k.cells[r.cell + (x - r.base)];
            const bool wconflict = c.wep == ep && c.wlin != me && !warp_ordered(c.wlin, c.wser, me, ep);
            if (!write) {
                if (wconflict && !reported) {
                    hazard(RAW, c.wlin, c.wpc, me, pc, r, x);
                    reported = true;
                }
                c.rep = ep, c.rlin = me, c.rser = g_serial, c.rpc = pc;
                continue;
            }
            if (!reported) {
                if (wconflict) {
                    hazard(WAW, c.wlin, c.wpc, me, pc, r, x);
                    reported = true;
                } else if (c.rep == ep && c.rlin != me && !warp_ordered(c.rlin, c.rser, me, ep)) {
                    hazard(WAR, c.rlin, c.rpc, me, pc, r, x);
                    reported = true;
                }
            }
            c.wep = ep, c.wlin = me, c.wser = g_serial, c.wpc = pc;
        }
    }
}

const DevBlock *dev_block(uintptr_t a)
{
    auto it = std::upper_bound(g_k.blocks.begin(), g_k.blocks.end(), a,
                               [](uintptr_t x, const DevBlock &b) { return x < b.base; });
    if (it == g_k.blocks.begin()) return nullptr;
    --it;
    return a < it->base + it->size ? &*it : nullptr;
}

/* The first unwritten byte of [a, a + n) in block b, or null. */
const unsigned char *first_unwritten(const DevBlock &b, uintptr_t a, size_t n)
{
    const unsigned char *w = b.written->data() + (a - b.base);
    const size_t m = std::min(n, b.base + b.size - a);
    const void *z = std::memchr(w, 0, m);
    return static_cast<const unsigned char *>(z);
}

std::string block_desc(const Alloc &al, uintptr_t a)
{
    std::string where = code_location(al.caller);
    char buf[256];
    std::snprintf(buf, sizeof buf, "byte %zu of the %zu-byte %s block at %p%s%s",
                  size_t(a - al.base), al.size, alloc_what(al),
                  reinterpret_cast<void *>(al.base), where.empty() ? "" : ", allocated at ",
                  where.c_str());
    return buf;
}

void init_access(uintptr_t a, size_t n, bool write, const void *pc)
{
    const DevBlock *b = dev_block(a);
    if (!b) return;
    const size_t m = std::min(n, b->base + b->size - a);
    unsigned char *w = b->written->data() + (a - b->base);
    if (write) {
        std::memset(w, 1, m);
        return;
    }
    const unsigned char *u = first_unwritten(*b, a, m);
    if (!u) return;
    ++g_k.uninit;
    if (!show(3, pc, b->alloc)) return;
    const uintptr_t at = b->base + size_t(u - b->written->data());
    report("initcheck: kernel %s, block %s, thread %s at %s: %zu-byte read of uninitialized "
           "device memory at %p (%s): nothing has written it since it was allocated",
           kernel_name().c_str(), block_now().c_str(), thread_of(current_lin()).c_str(),
           code_location(pc).c_str(), n, reinterpret_cast<void *>(at),
           block_desc(*b->alloc, at).c_str());
}

inline void on_access(const void *p, size_t n, bool write, const void *pc)
{
    if (!g_active.load(std::memory_order_relaxed) || !in_user_kernel_code()) return;
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    if (g_k.race) race_access(a, n, write, pc);
    if (g_k.init) init_access(a, n, write, pc);
}

const char *tools_name(bool race, bool init)
{
    return race && init ? "racecheck+initcheck" : race ? "racecheck" : "initcheck";
}

std::string counts(bool race, size_t races, bool init, size_t uninit)
{
    char buf[96];
    if (race && init)
        std::snprintf(buf, sizeof buf, "%zu race hazard(s), %zu uninitialized read(s)", races,
                      uninit);
    else if (race)
        std::snprintf(buf, sizeof buf, "%zu race hazard(s)", races);
    else
        std::snprintf(buf, sizeof buf, "%zu uninitialized read(s)", uninit);
    return buf;
}

void summary()
{
    if (!g_instrumented || !g_tools) return;
    std::fprintf(stderr, "cudaemu: %s ERROR SUMMARY: %zu error(s) (%s)\n",
                 tools_name(g_tools & kRace, g_tools & kInit), g_total_races + g_total_uninit,
                 counts(g_tools & kRace, g_total_races, g_tools & kInit, g_total_uninit).c_str());
}

} // namespace

unsigned char fresh_byte()
{
    const int f = config().fresh;
    if (f >= 0) return (unsigned char)f;
    return g_user_build ? 0x00 : 0xff;
}

bool initcheck_on() { return g_instrumented && (g_tools & kInit); }

std::shared_ptr<std::vector<unsigned char>> new_written_map(const Alloc &a)
{
    if (!initcheck_on() || a.kind != Alloc::Device || a.array) return nullptr;
    return std::make_shared<std::vector<unsigned char>>(a.size, 0);
}

void sanitize_written(const void *p, size_t n)
{
    if (!initcheck_on() || !n) return;
    const Alloc *a = find_alloc(p);
    if (!a || !a->written) return;
    const uintptr_t x = reinterpret_cast<uintptr_t>(p);
    std::memset(a->written->data() + (x - a->base), 1, std::min(n, a->base + a->size - x));
}

void sanitize_copy_read(const void *p, size_t n, const char *call)
{
    if (!initcheck_on() || !n) return;
    const Alloc *a = find_alloc(p);
    if (!a || !a->written) return;
    const uintptr_t x = reinterpret_cast<uintptr_t>(p);
    const size_t m = std::min(n, a->base + a->size - x);
    const unsigned char *w = a->written->data() + (x - a->base);
    const size_t bad = m - size_t(std::count(w, w + m, (unsigned char)1));
    if (!bad) return;
    ++g_total_uninit;
    const uintptr_t at = a->base + size_t(static_cast<const unsigned char *>(std::memchr(w, 0, m)) -
                                          a->written->data());
    report("initcheck: %s reads %zu uninitialized byte(s) of device memory, the first at %p "
           "(%s): nothing has written them since it was allocated", call, bad,
           reinterpret_cast<void *>(at), block_desc(*a, at).c_str());
}

void sanitize_launch_begin(const Launch &l)
{
    g_k = Checked();
    if (!g_instrumented || !g_tools) return;
    g_k.l = &l;
    g_k.race = g_tools & kRace;
    g_k.init = g_tools & kInit;
    if (g_k.race) {
        size_t off = 0;
        if (const KernelStatic *ks = kernel_static(l.func))
            for (const auto &v : ks->shared) {
                g_k.smem.push_back({reinterpret_cast<uintptr_t>(v.first), v.second,
                                    g_k.cells.size(), off, false});
                g_k.cells.resize(g_k.cells.size() + v.second);
                off += v.second;
            }
        if (l.smem) {
            g_k.smem.push_back({reinterpret_cast<uintptr_t>(detail::dyn_smem_base()), l.smem,
                                g_k.cells.size(), off, true});
            g_k.cells.resize(g_k.cells.size() + l.smem);
        }
        std::fill(std::begin(g_lanes), std::end(g_lanes), LaneSync());
    }
    if (g_k.init)
        for (const auto &kv : st().allocs)
            if (kv.second.written)
                g_k.blocks.push_back({kv.second.base, kv.second.size, kv.second.written,
                                      &kv.second});
    g_active.store(true, std::memory_order_relaxed);
}

cudaError_t sanitize_launch_end(cudaError_t e)
{
    if (!g_active.load(std::memory_order_relaxed)) return e;
    g_active.store(false, std::memory_order_relaxed);
    g_total_races += g_k.races;
    g_total_uninit += g_k.uninit;
    const size_t n = g_k.races + g_k.uninit;
    if (n == 0) return e;
    report("%s: kernel %s: %s (%zu shown)%s", tools_name(g_k.race, g_k.init),
           kernel_name().c_str(), counts(g_k.race, g_k.races, g_k.init, g_k.uninit).c_str(),
           g_k.shown, g_user_build ? "" : ": the launch fails (cudaErrorLaunchFailure)");
    g_k = Checked();
    return g_user_build || e != cudaSuccess ? e : cudaErrorLaunchFailure;
}

void sanitize_warp_sync(uint32_t warp_base, unsigned mask)
{
    if (!g_k.race || !g_active.load(std::memory_order_relaxed)) return;
    const uint64_t ep = detail::block_barrier_epoch();
    ++g_serial;
    for (unsigned l = 0; l < 32; ++l)
        if ((mask >> l) & 1u) g_lanes[warp_base + l] = LaneSync{ep, g_serial, mask};
}

namespace detail {
void note_build(int user_build, const char *tools)
{
    if (user_build) g_user_build = true;
    if (!tools) return;
    unsigned t = 0;
    for (const char *p = tools; *p;) {
        const char *e = std::strchr(p, ',');
        const size_t len = e ? size_t(e - p) : std::strlen(p);
        if (len == 9 && !std::strncmp(p, "racecheck", 9)) t |= kRace;
        else if (len == 9 && !std::strncmp(p, "initcheck", 9)) t |= kInit;
        if (!e) break;
        p = e + 1;
    }
    if (t && !g_tools) std::atexit(summary);
    g_tools |= t;
}
} // namespace detail

} // namespace cudaemu

/* ---- ThreadSanitizer's entry points, as GCC's instrumentation calls them ---- */
using cudaemu::on_access;
#define CUDAEMU_TSAN_SIZE(n)                                                            \
    extern "C" void __tsan_read##n(void *p) { on_access(p, n, false, __builtin_return_address(0)); } \
    extern "C" void __tsan_write##n(void *p) { on_access(p, n, true, __builtin_return_address(0)); } \
    extern "C" void __tsan_unaligned_read##n(void *p)                                   \
    { on_access(p, n, false, __builtin_return_address(0)); }                               \
    extern "C" void __tsan_unaligned_write##n(void *p)                                  \
    { on_access(p, n, true, __builtin_return_address(0)); }                                \
    extern "C" void __tsan_volatile_read##n(void *p)                                    \
    { on_access(p, n, false, __builtin_return_address(0)); }                               \
    extern "C" void __tsan_volatile_write##n(void *p)                                   \
    { on_access(p, n, true, __builtin_return_address(0)); }
CUDAEMU_TSAN_SIZE(1)
CUDAEMU_TSAN_SIZE(2)
CUDAEMU_TSAN_SIZE(4)
CUDAEMU_TSAN_SIZE(8)
CUDAEMU_TSAN_SIZE(16)
#undef CUDAEMU_TSAN_SIZE
extern "C" void __tsan_read_range(void *p, unsigned long n)
{
    on_access(p, n, false, __builtin_return_address(0));
}
extern "C" void __tsan_write_range(void *p, unsigned long n)
{
    on_access(p, n, true, __builtin_return_address(0));
}
extern "C" void __tsan_init() { cudaemu::g_instrumented = true; }
extern "C" void __tsan_func_entry(void *) {}
extern "C" void __tsan_func_exit() {}
extern "C" void __tsan_vptr_update(void **, void *) {}
extern "C" void __tsan_vptr_read(void **) {}

/* std::atomic and the __atomic builtins in an instrumented unit: the same
 * operations, sequentially consistent (one host thread runs a kernel's
 * fibers; other host threads may share the variable). */
#define CUDAEMU_TSAN_RMW(bits, T, op, builtin)                                              \
    extern "C" T __tsan_atomic##bits##_##op(volatile T *a, T v, int)                        \
    { return builtin(a, v, __ATOMIC_SEQ_CST); }
#define CUDAEMU_TSAN_CAS(bits, T, kind)                                                     \
    extern "C" int __tsan_atomic##bits##_compare_exchange_##kind(volatile T *a, T *c, T v, int, int) \
    { return __atomic_compare_exchange_n(a, c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); }
#define CUDAEMU_TSAN_ATOMIC(bits, T)                                                        \
    extern "C" T __tsan_atomic##bits##_load(const volatile T *a, int)                       \
    { return __atomic_load_n(a, __ATOMIC_SEQ_CST); }                                        \
    extern "C" void __tsan_atomic##bits##_store(volatile T *a, T v, int)                    \
    { __atomic_store_n(a, v, __ATOMIC_SEQ_CST); }                                           \
    CUDAEMU_TSAN_RMW(bits, T, exchange, __atomic_exchange_n)                                \
    CUDAEMU_TSAN_RMW(bits, T, fetch_add, __atomic_fetch_add)                                \
    CUDAEMU_TSAN_RMW(bits, T, fetch_sub, __atomic_fetch_sub)                                \
    CUDAEMU_TSAN_RMW(bits, T, fetch_and, __atomic_fetch_and)                                \
    CUDAEMU_TSAN_RMW(bits, T, fetch_or, __atomic_fetch_or)                                  \
    CUDAEMU_TSAN_RMW(bits, T, fetch_xor, __atomic_fetch_xor)                                \
    CUDAEMU_TSAN_RMW(bits, T, fetch_nand, __atomic_fetch_nand)                              \
    CUDAEMU_TSAN_CAS(bits, T, strong)                                                       \
    CUDAEMU_TSAN_CAS(bits, T, weak)                                                         \
    extern "C" T __tsan_atomic##bits##_compare_exchange_val(volatile T *a, T c, T v, int, int) \
    {                                                                                       \
        __atomic_compare_exchange_n(a, &c, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);   \
        return c;                                                                           \
    }
CUDAEMU_TSAN_ATOMIC(8, unsigned char)
CUDAEMU_TSAN_ATOMIC(16, unsigned short)
CUDAEMU_TSAN_ATOMIC(32, unsigned)
CUDAEMU_TSAN_ATOMIC(64, unsigned long long)
#undef CUDAEMU_TSAN_ATOMIC
#undef CUDAEMU_TSAN_CAS
#undef CUDAEMU_TSAN_RMW
extern "C" void __tsan_atomic_thread_fence(int) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
extern "C" void __tsan_atomic_signal_fence(int) { __atomic_signal_fence(__ATOMIC_SEQ_CST); }
