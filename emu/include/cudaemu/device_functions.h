/* emu/include/cudaemu/device_functions.h - the CUDA kernel language on the host.
 *
 * Execution-space qualifiers become nothing (__shared__ becomes `static`, so a
 * block's shared arrays are ordinary statics that AddressSanitizer guards; the
 * emulator runs one block at a time), threadIdx/blockIdx/blockDim/gridDim are
 * references to the running fiber's coordinates, and the synchronizing
 * primitives (__syncthreads, __syncwarp, __shfl_*_sync, __ballot_sync, ...)
 * call into the fiber scheduler (emu/src/scheduler.cpp).  Atomics are plain
 * read-modify-writes: fibers only switch inside those primitives, so no other
 * CUDA thread can run in between.  Math intrinsics map onto <cmath>.
 * Included by cuda_runtime.h; do not include directly.
 */
#ifndef CUDAEMU_DEVICE_FUNCTIONS_H
#define CUDAEMU_DEVICE_FUNCTIONS_H

#include <climits>
#include <cmath>
#include <cstdint>
#include <cstdio>  /* printf in kernels, as with nvcc */
#include <cstdlib> /* malloc/free in kernels */
#include <cstring>
#include <ctime>
#include <limits>
#include <type_traits>

/* ---- qualifiers --------------------------------------------------------- */
#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __grid_constant__
#define __device_builtin__
#define __shared__ static
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)
#define __maxnreg__(n)
#define __cluster_dims__(...)

/* Dynamic shared memory lives at one fixed, 256-byte aligned address
 * (dyn_smem_base(), room for the 227 KiB opt-in maximum; one block runs at a
 * time), filled with 0xFF bytes before every block; under AddressSanitizer
 * all of it past the launch's dynamicSmemBytes is poisoned.  The translator
 * (emu/tools/cudaemu_translate.cpp) turns `extern __shared__ T name[];` into
 * a `T *const name` initialized from dyn_smem_base(), in a kernel body or at
 * namespace scope.  DYNAMIC_SHARED(T, name) is the older spelling, inside
 * the kernel body (harness/dynamic_shared.h gives nvcc the same). */
#define DYNAMIC_SHARED(T, name)                                                \
    [[maybe_unused]] T *const name = static_cast<T *>(::cudaemu::detail::g_dyn_smem)

namespace cudaemu {
namespace detail {
void *dyn_smem_base();
/* Set by the scheduler before a fiber runs; read through the builtins below. */
inline uint3 g_threadIdx = {0, 0, 0};
inline uint3 g_blockIdx = {0, 0, 0};
inline dim3 g_blockDim;
inline dim3 g_gridDim;
inline void *g_dyn_smem = nullptr;

/* CUDAEMU_INTERLEAVE=1 (scheduler.cpp): several blocks of a launch resident
 * at once, their threads switching among each other at random yield points.
 * The translator puts `::cudaemu::detail::yield_point();` after every
 * statement of a kernel body (and __threadfence() has one), so a thread may
 * be preempted between its read and its write of global memory.  True only
 * while an interleaved launch runs; off, a yield point is a load and a
 * branch. */
inline bool g_interleave = false;
void interleave_point();
inline void yield_point()
{
    if (__builtin_expect(g_interleave, false)) interleave_point();
}

enum WarpOp {
    WOP_SYNC, WOP_IDX, WOP_UP, WOP_DOWN, WOP_XOR, WOP_BALLOT, WOP_ANY, WOP_ALL,
    WOP_MATCH_ANY, WOP_MATCH_ALL, WOP_RADD, WOP_RMIN_S, WOP_RMAX_S, WOP_RMIN_U,
    WOP_RMAX_U, WOP_RAND, WOP_ROR, WOP_RXOR,
    WOP_WMMA_LOAD, WOP_WMMA_STORE, WOP_WMMA_MMA /* nvcuda::wmma (wmma.h): a meeting, no value */
};
enum BlockOp { BOP_SYNC, BOP_COUNT, BOP_AND, BOP_OR };

/* What a launch must know of a kernel before it runs (kernel_info.cpp).
 * The translator (emu/tools/cudaemu_translate.cpp) puts
 *   (void)KernelBounds<&k, (maxThreads)[, (minBlocks)[, (maxCluster)]]>::registered;
 * at the top of the body of a kernel declared __launch_bounds__(...), and
 *   (void)SharedVar<&k, &name>::registered;
 * after each static __shared__ declaration in a kernel's body (&k<T, N> in
 * a template kernel: each instantiation registers itself).  Naming the
 * member instantiates it; its initializer registers at program start, so
 * the launch checks the block size and the shared memory total before
 * anything runs, and the scheduler poisons the variables before every block. */
void register_kernel_bounds(const void *kernel, long long max_threads, long long min_blocks,
                            long long max_cluster);
void register_shared_var(const void *kernel, void *var, size_t bytes);
template <auto K, long long MaxThreads, long long MinBlocks = 0, long long MaxCluster = 0>
struct KernelBounds {
    static const bool registered;
};
template <auto K, long long MaxThreads, long long MinBlocks, long long MaxCluster>
const bool KernelBounds<K, MaxThreads, MinBlocks, MaxCluster>::registered =
    (register_kernel_bounds(reinterpret_cast<const void *>(K), MaxThreads, MinBlocks, MaxCluster),
     true);
template <auto K, auto V> struct SharedVar {
    static const bool registered;
};
template <auto K, auto V>
const bool SharedVar<K, V>::registered =
    (register_shared_var(reinterpret_cast<const void *>(K), (void *)(V), sizeof(*V)), true);

int block_barrier(int op, int pred);
/* The barriers the running block has completed, from a base no other block
 * of the process shares: two reads are equal only with no __syncthreads
 * completed between them (cub_block.h checks TempStorage reuse with it). */
uint64_t block_barrier_epoch();
unsigned long long warp_collective(int op, unsigned mask, unsigned long long value,
                                   int arg, int width);
/* The lanes of the caller's warp at the same __activemask() call site (as
 * coalesced_threads(): grouped once no thread of the block can run on). */
unsigned active_mask(unsigned long long site);
[[noreturn]] void trap();
/* The translator turns calls of malloc and free into these (src/device_heap.cpp):
 * in a kernel, the device heap of cudaLimitMallocHeapSize bytes (NULL past
 * it); elsewhere the host's malloc and free. */
void *device_malloc(size_t size);
void device_free(void *p);

template <typename T>
inline T warp_exchange(int op, unsigned mask, T var, int arg, int width)
{
    static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value,
                  "cudaemu: warp shuffles take values of at most 8 bytes");
    unsigned long long bits = 0;
    std::memcpy(&bits, &var, sizeof(T));
    bits = warp_collective(op, mask, bits, arg, width);
    T out;
    std::memcpy(static_cast<void *>(&out), &bits, sizeof(T));
    return out;
}
} // namespace detail

namespace builtin {
inline const uint3 &threadIdx = ::cudaemu::detail::g_threadIdx;
inline const uint3 &blockIdx = ::cudaemu::detail::g_blockIdx;
inline const dim3 &blockDim = ::cudaemu::detail::g_blockDim;
inline const dim3 &gridDim = ::cudaemu::detail::g_gridDim;
constexpr int warpSize = 32;
} // namespace builtin
} // namespace cudaemu

using cudaemu::builtin::threadIdx;
using cudaemu::builtin::blockIdx;
using cudaemu::builtin::blockDim;
using cudaemu::builtin::gridDim;
using cudaemu::builtin::warpSize;

/* ---- block and warp synchronization ------------------------------------- */
inline void __syncthreads() { cudaemu::detail::block_barrier(cudaemu::detail::BOP_SYNC, 0); }
inline int __syncthreads_count(int p) { return cudaemu::detail::block_barrier(cudaemu::detail::BOP_COUNT, p); }
inline int __syncthreads_and(int p) { return cudaemu::detail::block_barrier(cudaemu::detail::BOP_AND, p); }
inline int __syncthreads_or(int p) { return cudaemu::detail::block_barrier(cudaemu::detail::BOP_OR, p); }
inline void __syncwarp(unsigned mask = 0xffffffffu)
{ cudaemu::detail::warp_collective(cudaemu::detail::WOP_SYNC, mask, 0, 0, 32); }
inline unsigned __activemask(const char *file = __builtin_FILE(), int line = __builtin_LINE())
{
    return cudaemu::detail::active_mask((unsigned long long)(uintptr_t)file * 1000003ull +
                                        (unsigned)line);
}
[[noreturn]] inline void __trap() { cudaemu::detail::trap(); }
inline void __threadfence() { __asm__ __volatile__("" ::: "memory"); cudaemu::detail::yield_point(); }
inline void __threadfence_block() { __asm__ __volatile__("" ::: "memory"); cudaemu::detail::yield_point(); }
inline void __threadfence_system() { __asm__ __volatile__("" ::: "memory"); cudaemu::detail::yield_point(); }
inline void __nanosleep(unsigned) {}
inline long long clock64() { return (long long)std::clock(); }

template <typename T>
inline T __shfl_sync(unsigned mask, T var, int srcLane, int width = 32)
{ return cudaemu::detail::warp_exchange(cudaemu::detail::WOP_IDX, mask, var, srcLane, width); }
template <typename T>
inline T __shfl_up_sync(unsigned mask, T var, unsigned delta, int width = 32)
{ return cudaemu::detail::warp_exchange(cudaemu::detail::WOP_UP, mask, var, (int)delta, width); }
template <typename T>
inline T __shfl_down_sync(unsigned mask, T var, unsigned delta, int width = 32)
{ return cudaemu::detail::warp_exchange(cudaemu::detail::WOP_DOWN, mask, var, (int)delta, width); }
template <typename T>
inline T __shfl_xor_sync(unsigned mask, T var, int laneMask, int width = 32)
{ return cudaemu::detail::warp_exchange(cudaemu::detail::WOP_XOR, mask, var, laneMask, width); }

inline unsigned __ballot_sync(unsigned mask, int pred)
{ return (unsigned)cudaemu::detail::warp_collective(cudaemu::detail::WOP_BALLOT, mask, pred != 0, 0, 32); }
inline int __any_sync(unsigned mask, int pred)
{ return (int)cudaemu::detail::warp_collective(cudaemu::detail::WOP_ANY, mask, pred != 0, 0, 32); }
inline int __all_sync(unsigned mask, int pred)
{ return (int)cudaemu::detail::warp_collective(cudaemu::detail::WOP_ALL, mask, pred != 0, 0, 32); }
template <typename T>
inline unsigned __match_any_sync(unsigned mask, T value)
{ return (unsigned)cudaemu::detail::warp_exchange(cudaemu::detail::WOP_MATCH_ANY, mask, (unsigned long long)value, 0, 32); }
template <typename T>
inline unsigned __match_all_sync(unsigned mask, T value, int *pred)
{
    unsigned long long r = cudaemu::detail::warp_exchange(
        cudaemu::detail::WOP_MATCH_ALL, mask, (unsigned long long)value, 0, 32);
    *pred = (int)(r >> 32);
    return (unsigned)r;
}
inline unsigned __reduce_add_sync(unsigned mask, unsigned v)
{ return (unsigned)cudaemu::detail::warp_collective(cudaemu::detail::WOP_RADD, mask, v, 0, 32); }
inline int __reduce_add_sync(unsigned mask, int v)
{ return (int)(unsigned)cudaemu::detail::warp_collective(cudaemu::detail::WOP_RADD, mask, (unsigned)v, 0, 32); }
inline unsigned __reduce_min_sync(unsigned mask, unsigned v)
{ return (unsigned)cudaemu::detail::warp_collective(cudaemu::detail::WOP_RMIN_U, mask, v, 0, 32); }
inline int __reduce_min_sync(unsigned mask, int v)
{ return (int)(unsigned)cudaemu::detail::warp_collective(cudaemu::detail::WOP_RMIN_S, mask, (unsigned)v, 0, 32); }
inline unsigned __reduce_max_sync(unsigned mask, unsigned v)
{ return (unsigned)cudaemu::detail::warp_collective(cudaemu::detail::WOP_RMAX_U, mask, v, 0, 32); }
inline int __reduce_max_sync(unsigned mask, int v)
{ return (int)(unsigned)cudaemu::detail::warp_collective(cudaemu::detail::WOP_RMAX_S, mask, (unsigned)v, 0, 32); }
inline unsigned __reduce_and_sync(unsigned mask, unsigned v)
{ return (unsigned)cudaemu::detail::warp_collective(cudaemu::detail::WOP_RAND, mask, v, 0, 32); }
inline unsigned __reduce_or_sync(unsigned mask, unsigned v)
{ return (unsigned)cudaemu::detail::warp_collective(cudaemu::detail::WOP_ROR, mask, v, 0, 32); }
inline unsigned __reduce_xor_sync(unsigned mask, unsigned v)
{ return (unsigned)cudaemu::detail::warp_collective(cudaemu::detail::WOP_RXOR, mask, v, 0, 32); }

/* ---- atomics (no fiber switch can happen inside one) -------------------- */
/* Not instrumented in a racecheck/initcheck build (-fsanitize=thread:
 * src/sanitize.cpp): racecheck does not report atomics, as compute-sanitizer's. */
#if defined(__SANITIZE_THREAD__)
#define CUDAEMU_ATOMIC_FN __attribute__((no_sanitize("thread"))) inline
#else
#define CUDAEMU_ATOMIC_FN inline
#endif
CUDAEMU_ATOMIC_FN int atomicAdd(int *a, int v) { int o = *a; *a = (int)((unsigned)o + (unsigned)v); return o; }
CUDAEMU_ATOMIC_FN unsigned atomicAdd(unsigned *a, unsigned v) { unsigned o = *a; *a = o + v; return o; }
CUDAEMU_ATOMIC_FN unsigned long long atomicAdd(unsigned long long *a, unsigned long long v)
{ unsigned long long o = *a; *a = o + v; return o; }
CUDAEMU_ATOMIC_FN float atomicAdd(float *a, float v) { float o = *a; *a = o + v; return o; }
CUDAEMU_ATOMIC_FN double atomicAdd(double *a, double v) { double o = *a; *a = o + v; return o; }
CUDAEMU_ATOMIC_FN float2 atomicAdd(float2 *a, float2 v) { float2 o = *a; a->x += v.x; a->y += v.y; return o; }
CUDAEMU_ATOMIC_FN float4 atomicAdd(float4 *a, float4 v)
{ float4 o = *a; a->x += v.x; a->y += v.y; a->z += v.z; a->w += v.w; return o; }
CUDAEMU_ATOMIC_FN int atomicSub(int *a, int v) { int o = *a; *a = (int)((unsigned)o - (unsigned)v); return o; }
CUDAEMU_ATOMIC_FN unsigned atomicSub(unsigned *a, unsigned v) { unsigned o = *a; *a = o - v; return o; }
#define CUDAEMU_ATOMIC_MINMAX(T)                                               \
    CUDAEMU_ATOMIC_FN T atomicMin(T *a, T v) { T o = *a; if (v < o) *a = v; return o; }   \
    CUDAEMU_ATOMIC_FN T atomicMax(T *a, T v) { T o = *a; if (v > o) *a = v; return o; }
CUDAEMU_ATOMIC_MINMAX(int)
CUDAEMU_ATOMIC_MINMAX(unsigned)
CUDAEMU_ATOMIC_MINMAX(long long)
CUDAEMU_ATOMIC_MINMAX(unsigned long long)
#undef CUDAEMU_ATOMIC_MINMAX
#define CUDAEMU_ATOMIC_BITS(T)                                                 \
    CUDAEMU_ATOMIC_FN T atomicExch(T *a, T v) { T o = *a; *a = v; return o; }             \
    CUDAEMU_ATOMIC_FN T atomicCAS(T *a, T cmp, T v) { T o = *a; if (o == cmp) *a = v; return o; } \
    CUDAEMU_ATOMIC_FN T atomicAnd(T *a, T v) { T o = *a; *a = o & v; return o; }          \
    CUDAEMU_ATOMIC_FN T atomicOr(T *a, T v) { T o = *a; *a = o | v; return o; }           \
    CUDAEMU_ATOMIC_FN T atomicXor(T *a, T v) { T o = *a; *a = o ^ v; return o; }
CUDAEMU_ATOMIC_BITS(int)
CUDAEMU_ATOMIC_BITS(unsigned)
CUDAEMU_ATOMIC_BITS(unsigned long long)
#undef CUDAEMU_ATOMIC_BITS
CUDAEMU_ATOMIC_FN unsigned short atomicCAS(unsigned short *a, unsigned short cmp, unsigned short v)
{ unsigned short o = *a; if (o == cmp) *a = v; return o; }
CUDAEMU_ATOMIC_FN float atomicExch(float *a, float v) { float o = *a; *a = v; return o; }
CUDAEMU_ATOMIC_FN unsigned atomicInc(unsigned *a, unsigned lim) { unsigned o = *a; *a = (o >= lim) ? 0 : o + 1; return o; }
CUDAEMU_ATOMIC_FN unsigned atomicDec(unsigned *a, unsigned lim)
{ unsigned o = *a; *a = (o == 0 || o > lim) ? lim : o - 1; return o; }
/* The block- and system-scope forms: every atomic is atomic at every scope
 * here (no fiber switch inside one, one host thread runs the kernels), so
 * each takes the types of its plain form (half types too, through ADL). */
#define CUDAEMU_ATOMIC_SCOPED(op)                                                          \
    template <typename T, typename U> inline T op##_block(T *a, U v) { return op(a, (T)v); } \
    template <typename T, typename U> inline T op##_system(T *a, U v) { return op(a, (T)v); }
CUDAEMU_ATOMIC_SCOPED(atomicAdd)
CUDAEMU_ATOMIC_SCOPED(atomicSub)
CUDAEMU_ATOMIC_SCOPED(atomicExch)
CUDAEMU_ATOMIC_SCOPED(atomicMin)
CUDAEMU_ATOMIC_SCOPED(atomicMax)
CUDAEMU_ATOMIC_SCOPED(atomicInc)
CUDAEMU_ATOMIC_SCOPED(atomicDec)
CUDAEMU_ATOMIC_SCOPED(atomicAnd)
CUDAEMU_ATOMIC_SCOPED(atomicOr)
CUDAEMU_ATOMIC_SCOPED(atomicXor)
#undef CUDAEMU_ATOMIC_SCOPED
template <typename T, typename U> inline T atomicCAS_block(T *a, U c, U v) { return atomicCAS(a, (T)c, (T)v); }
template <typename T, typename U> inline T atomicCAS_system(T *a, U c, U v) { return atomicCAS(a, (T)c, (T)v); }

/* ---- cached / streaming loads and stores -------------------------------- */
template <typename T> inline T __ldg(const T *p) { return *p; }
template <typename T> inline T __ldca(const T *p) { return *p; }
template <typename T> inline T __ldcg(const T *p) { return *p; }
template <typename T> inline T __ldcs(const T *p) { return *p; }
template <typename T> inline T __ldlu(const T *p) { return *p; }
template <typename T> inline T __ldcv(const T *p) { return *p; }
template <typename T> inline void __stwb(T *p, T v) { *p = v; }
template <typename T> inline void __stcg(T *p, T v) { *p = v; }
template <typename T> inline void __stcs(T *p, T v) { *p = v; }
template <typename T> inline void __stwt(T *p, T v) { *p = v; }

/* ---- min / max: CUDA's overload set (crt/math_functions.hpp) ------------ */
#define CUDAEMU_MINMAX(R, A, B)                                                \
    inline R min(const A a, const B b) { return ((R)a < (R)b) ? (R)a : (R)b; } \
    inline R max(const A a, const B b) { return ((R)a > (R)b) ? (R)a : (R)b; }
CUDAEMU_MINMAX(int, int, int)
CUDAEMU_MINMAX(unsigned int, unsigned int, unsigned int)
CUDAEMU_MINMAX(unsigned int, int, unsigned int)
CUDAEMU_MINMAX(unsigned int, unsigned int, int)
CUDAEMU_MINMAX(long, long, long)
CUDAEMU_MINMAX(unsigned long, unsigned long, unsigned long)
CUDAEMU_MINMAX(unsigned long, long, unsigned long)
CUDAEMU_MINMAX(unsigned long, unsigned long, long)
CUDAEMU_MINMAX(long long, long long, long long)
CUDAEMU_MINMAX(unsigned long long, unsigned long long, unsigned long long)
CUDAEMU_MINMAX(unsigned long long, long long, unsigned long long)
CUDAEMU_MINMAX(unsigned long long, unsigned long long, long long)
#undef CUDAEMU_MINMAX
inline float min(const float a, const float b) { return std::fmin(a, b); }
inline float max(const float a, const float b) { return std::fmax(a, b); }
inline double min(const double a, const double b) { return std::fmin(a, b); }
inline double max(const double a, const double b) { return std::fmax(a, b); }
inline double min(const float a, const double b) { return std::fmin((double)a, b); }
inline double max(const float a, const double b) { return std::fmax((double)a, b); }
inline double min(const double a, const float b) { return std::fmin(a, (double)b); }
inline double max(const double a, const float b) { return std::fmax(a, (double)b); }

/* CUDA's named integer min/max (crt/math_functions.h). */
inline unsigned int umin(const unsigned int a, const unsigned int b) { return a < b ? a : b; }
inline unsigned int umax(const unsigned int a, const unsigned int b) { return a > b ? a : b; }
inline long long llmin(const long long a, const long long b) { return a < b ? a : b; }
inline long long llmax(const long long a, const long long b) { return a > b ? a : b; }
inline unsigned long long ullmin(const unsigned long long a, const unsigned long long b) { return a < b ? a : b; }
inline unsigned long long ullmax(const unsigned long long a, const unsigned long long b) { return a > b ? a : b; }

/* nvcc's device math puts the classification functions in the global
 * namespace (C++'s <cmath> has them only in std::); the float forms sqrtf,
 * fminf, ... are global through glibc's math.h already. */
using std::fpclassify;
using std::isfinite;
using std::isinf;
using std::isnan;
using std::isnormal;
using std::signbit;

/* ---- float intrinsics ----------------------------------------------------
 * glibc's math.h already declares __expf & co. (extern "C", noexcept, not
 * exported); these inline definitions complete those declarations. */
inline float __expf(float x) noexcept { return ::expf(x); }
inline float __exp10f(float x) noexcept { return ::powf(10.0f, x); }
inline float __logf(float x) noexcept { return ::logf(x); }
inline float __log2f(float x) noexcept { return ::log2f(x); }
inline float __log10f(float x) noexcept { return ::log10f(x); }
inline float __powf(float x, float y) noexcept { return ::powf(x, y); }
inline float __sinf(float x) noexcept { return ::sinf(x); }
inline float __cosf(float x) noexcept { return ::cosf(x); }
inline float __tanf(float x) noexcept { return ::tanf(x); }
inline void __sincosf(float x, float *s, float *c) noexcept { *s = ::sinf(x); *c = ::cosf(x); }
inline float __fdividef(float a, float b) { return a / b; }
inline float fdividef(float a, float b) { return a / b; }
inline float rsqrtf(float x) { return 1.0f / ::sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline float rcbrtf(float x) { return 1.0f / ::cbrtf(x); }
inline float __saturatef(float x) { return x != x ? 0.0f : (x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x)); }

namespace cudaemu {
namespace detail {
/* Saturating float->integer conversion as PTX cvt does (NaN gives 0). */
template <typename I, typename F> inline I cvt_sat(F r)
{
    if (r != r) return 0;
    if (r <= (F)std::numeric_limits<I>::min()) return std::numeric_limits<I>::min();
    if (r >= (F)std::numeric_limits<I>::max()) return std::numeric_limits<I>::max();
    return (I)r;
}
template <typename To, typename From> inline To bit_cast(From f)
{
    static_assert(sizeof(To) == sizeof(From), "bit_cast size");
    static_assert(std::is_trivially_copyable<To>::value && std::is_trivially_copyable<From>::value,
                  "bit_cast of trivially copyable types");
    To t;
    std::memcpy(static_cast<void *>(&t), &f, sizeof t); /* (a class type's protected bits too) */
    return t;
}
} // namespace detail
} // namespace cudaemu

#include "cudaemu/rounding.h" /* __fadd_rz, __dmul_ru, __float2int_rd, __int2float_ru, ... */
inline int __float_as_int(float x) { return cudaemu::detail::bit_cast<int>(x); }
inline unsigned __float_as_uint(float x) { return cudaemu::detail::bit_cast<unsigned>(x); }
inline float __int_as_float(int x) { return cudaemu::detail::bit_cast<float>(x); }
inline float __uint_as_float(unsigned x) { return cudaemu::detail::bit_cast<float>(x); }
inline long long __double_as_longlong(double x) { return cudaemu::detail::bit_cast<long long>(x); }
inline double __longlong_as_double(long long x) { return cudaemu::detail::bit_cast<double>(x); }
inline int __double2hiint(double x) { return (int)(unsigned)((unsigned long long)__double_as_longlong(x) >> 32); }
inline int __double2loint(double x) { return (int)(unsigned)(unsigned long long)__double_as_longlong(x); }
inline double __hiloint2double(int hi, int lo)
{ return __longlong_as_double((long long)(((unsigned long long)(unsigned)hi << 32) | (unsigned)lo)); }

/* ---- integer intrinsics ------------------------------------------------- */
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz((unsigned)x); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll((unsigned long long)x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned __brev(unsigned x)
{
    unsigned r = 0;
    for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
    return r;
}
inline unsigned long long __brevll(unsigned long long x)
{ return ((unsigned long long)__brev((unsigned)x) << 32) | __brev((unsigned)(x >> 32)); }
inline int __mul24(int a, int b)
{ return (int)((unsigned)((int)((unsigned)a << 8) >> 8) * (unsigned)((int)((unsigned)b << 8) >> 8)); }
inline unsigned __umul24(unsigned a, unsigned b) { return (a & 0xffffffu) * (b & 0xffffffu); }
inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
inline unsigned __umulhi(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a * b) >> 32); }
inline long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b)
{ return (unsigned long long)(((unsigned __int128)a * b) >> 64); }
inline int __hadd(int a, int b) { return (int)(((long long)a + b) >> 1); }
inline int __rhadd(int a, int b) { return (int)(((long long)a + b + 1) >> 1); }
inline unsigned __uhadd(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a + b) >> 1); }
inline unsigned __urhadd(unsigned a, unsigned b) { return (unsigned)(((unsigned long long)a + b + 1) >> 1); }
inline unsigned __sad(int a, int b, unsigned c)
{ return c + (unsigned)(a > b ? (long long)a - b : (long long)b - a); }
inline unsigned __usad(unsigned a, unsigned b, unsigned c) { return c + (a > b ? a - b : b - a); }
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s)
{
    unsigned long long v = ((unsigned long long)y << 32) | x;
    unsigned r = 0;
    for (int i = 0; i < 4; ++i) r |= (unsigned)((v >> (8 * ((s >> (4 * i)) & 7u))) & 0xffu) << (8 * i);
    return r;
}
inline unsigned __funnelshift_l(unsigned lo, unsigned hi, unsigned s)
{ return (unsigned)(((((unsigned long long)hi << 32) | lo) << (s & 31u)) >> 32); }
inline unsigned __funnelshift_r(unsigned lo, unsigned hi, unsigned s)
{ return (unsigned)((((unsigned long long)hi << 32) | lo) >> (s & 31u)); }
inline unsigned __funnelshift_lc(unsigned lo, unsigned hi, unsigned s)
{ return (unsigned)(((((unsigned long long)hi << 32) | lo) << (s > 32 ? 32 : s)) >> 32); }
inline unsigned __funnelshift_rc(unsigned lo, unsigned hi, unsigned s)
{ return (unsigned)((((unsigned long long)hi << 32) | lo) >> (s > 32 ? 32 : s)); }

#endif
