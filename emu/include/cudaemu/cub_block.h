/* emu/include/cudaemu/cub_block.h - the CUDA host emulator's CUB subset,
 * collectives inside a kernel: WarpReduce, BlockReduce, BlockScan, and
 * BlockLoad/BlockStore (and the Load/StoreDirect functions), built on the
 * emulator's shuffles, __syncthreads and the caller's __shared__ TempStorage,
 * so misuse fails where a GPU gives garbage: a block of the wrong size, a
 * TempStorage reused without a __syncthreads between (emu/README.md,
 * "Thrust and CUB").
 *
 * Values of any trivially copyable type travel through the shuffles 4 bytes
 * at a time.  Results are where CUB documents them: a reduction's in thread
 * (lane) 0, a scan's in every thread. */
#pragma once

#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <type_traits>

namespace cub {
/* reduction operators */
struct Sum {
    template <class T> T operator()(const T &a, const T &b) const { return a + b; }
};
struct Max {
    template <class T> T operator()(const T &a, const T &b) const { return a < b ? b : a; }
};
struct Min {
    template <class T> T operator()(const T &a, const T &b) const { return b < a ? b : a; }
};

namespace detail {
/* __shfl_*_sync for any trivially copyable T, one 32-bit word at a time */
enum shfl_kind { SHFL_UP, SHFL_DOWN };
template <class T> T shfl(shfl_kind k, unsigned mask, const T &v, unsigned delta, int width)
{
    static_assert(std::is_trivially_copyable<T>::value, "cub: collectives need trivially copyable values");
    constexpr int words = (int)((sizeof(T) + 3) / 4);
    unsigned w[words] = {};
    std::memcpy(w, &v, sizeof(T));
    for (int i = 0; i < words; ++i)
        w[i] = k == SHFL_UP ? __shfl_up_sync(mask, w[i], delta, width) : __shfl_down_sync(mask, w[i], delta, width);
    T out;
    std::memcpy(static_cast<void *>(&out), w, sizeof(T));
    return out;
}
inline unsigned linear_tid()
{
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
/* A collective made for THREADS threads, used in a block of another size,
 * gives garbage on a GPU: here it stops the kernel with one line. */
inline void check_block(const char *who, int threads)
{
    const unsigned n = blockDim.x * blockDim.y * blockDim.z;
    if (n != (unsigned)threads) {
        std::printf("cudaemu: %s<..., %d threads> used in a block of %u threads\n", who, threads, n);
        __trap();
    }
}
/* the lanes of this thread's warp that the block has (a last warp may be short) */
inline unsigned warp_mask(int threads, unsigned tid)
{
    const int first = (int)(tid / 32u) * 32;
    const int lanes = threads - first < 32 ? threads - first : 32;
    return lanes == 32 ? 0xffffffffu : (1u << lanes) - 1u;
}
/* reduction over the `valid` first lanes of a logical warp of `width` lanes;
 * the result in its lane 0 */
template <class T, class Op> T warp_reduce(T v, Op op, unsigned mask, int width, int lane, int valid)
{
    for (int off = width / 2; off > 0; off /= 2) {
        T other = shfl(SHFL_DOWN, mask, v, (unsigned)off, width);
        if (lane + off < valid) v = op(v, other);
    }
    return v;
}
/* inclusive scan over a warp (lanes of mask), the result in every lane */
template <class T, class Op> T warp_inclusive_scan(T v, Op op, unsigned mask, int lane)
{
    for (int off = 1; off < 32; off *= 2) {
        T other = shfl(SHFL_UP, mask, v, (unsigned)off, 32);
        if (lane >= off) v = op(other, v);
    }
    return v;
}
/* CUB requires a __syncthreads() between one collective's use of a
 * TempStorage and the next one's: a TempStorage records the barrier epoch of
 * its last use (block_barrier_epoch(), device_functions.h), and a use that
 * finds it unchanged stops the kernel, where a GPU's warps would race. */
template <class S> void begin_use(const char *who, const S &t)
{
    if (t.last_use != ::cudaemu::detail::block_barrier_epoch()) return;
    std::printf("cudaemu: %s: thread (%u,%u,%u) reuses a TempStorage with no __syncthreads() since its "
                "last use (CUB requires one: on a GPU the warps race)\n",
                who, threadIdx.x, threadIdx.y, threadIdx.z);
    __trap();
}
template <class S> void end_use(S &t) { t.last_use = ::cudaemu::detail::block_barrier_epoch(); }
template <class T> struct raw_slots {
    alignas(T) unsigned char bytes[sizeof(T)];
};
template <class T> void put(raw_slots<T> *s, int i, const T &v) { std::memcpy(s[i].bytes, &v, sizeof(T)); }
template <class T> T take(const raw_slots<T> *s, int i)
{
    T v;
    std::memcpy(static_cast<void *>(&v), s[i].bytes, sizeof(T));
    return v;
}
} // namespace detail

/* ---- WarpReduce<T, LOGICAL_WARP_THREADS> --------------------------------------- */
template <class T, int LOGICAL_WARP_THREADS = 32> class WarpReduce {
    static_assert(LOGICAL_WARP_THREADS >= 1 && LOGICAL_WARP_THREADS <= 32 &&
                      (LOGICAL_WARP_THREADS & (LOGICAL_WARP_THREADS - 1)) == 0,
                  "cub::WarpReduce: LOGICAL_WARP_THREADS is a power of two up to 32");

public:
    struct TempStorage {
        unsigned char unused;
    };
    explicit WarpReduce(TempStorage &) {}
    T Sum(T v) { return Reduce(v, cub::Sum(), LOGICAL_WARP_THREADS); }
    T Sum(T v, int valid_items) { return Reduce(v, cub::Sum(), valid_items); }
    template <class Op> T Reduce(T v, Op op) { return Reduce(v, op, LOGICAL_WARP_THREADS); }
    template <class Op> T Reduce(T v, Op op, int valid_items)
    {
        const unsigned tid = detail::linear_tid();
        const int threads = (int)(blockDim.x * blockDim.y * blockDim.z);
        const int lane = (int)(tid % 32u) % LOGICAL_WARP_THREADS;
        return detail::warp_reduce(v, op, detail::warp_mask(threads, tid), LOGICAL_WARP_THREADS, lane, valid_items);
    }
};

/* ---- BlockReduce<T, BLOCK_DIM_X, ALGORITHM, BLOCK_DIM_Y, BLOCK_DIM_Z> ------------ */
enum BlockReduceAlgorithm { BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY, BLOCK_REDUCE_RAKING, BLOCK_REDUCE_WARP_REDUCTIONS };

template <class T, int BLOCK_DIM_X, BlockReduceAlgorithm ALGORITHM = BLOCK_REDUCE_WARP_REDUCTIONS,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
class BlockReduce {
    static constexpr int THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
    static constexpr int WARPS = (THREADS + 31) / 32;

public:
    /* the warps' partial results */
    struct TempStorage {
        detail::raw_slots<T> warp[WARPS];
        unsigned long long last_use; /* detail::begin_use */
    };
    explicit BlockReduce(TempStorage &t) : t_(t) { detail::check_block("cub::BlockReduce", THREADS); }
    T Sum(T v) { return Reduce(v, cub::Sum(), THREADS); }
    T Sum(T v, int num_valid) { return Reduce(v, cub::Sum(), num_valid); }
    template <int N> T Sum(T (&items)[N]) { return Reduce(items, cub::Sum()); }
    template <class Op, int N> T Reduce(T (&items)[N], Op op)
    {
        T v = items[0];
        for (int i = 1; i < N; ++i) v = op(v, items[i]);
        return Reduce(v, op, THREADS);
    }
    template <class Op> T Reduce(T v, Op op) { return Reduce(v, op, THREADS); }
    /* over the first num_valid threads; valid in thread 0 */
    template <class Op> T Reduce(T v, Op op, int num_valid)
    {
        const unsigned tid = detail::linear_tid();
        const int warp = (int)(tid / 32u), lane = (int)(tid % 32u);
        const int valid_here = num_valid - warp * 32;
        v = detail::warp_reduce(v, op, detail::warp_mask(THREADS, tid), 32, lane, valid_here);
        detail::begin_use("cub::BlockReduce", t_);
        if (lane == 0 && valid_here > 0) detail::put(t_.warp, warp, v);
        __syncthreads();
        if (tid == 0)
            for (int w = 1; w < WARPS && w * 32 < num_valid; ++w) v = op(v, detail::take(t_.warp, w));
        detail::end_use(t_);
        return v;
    }

private:
    TempStorage &t_;
};

/* ---- BlockScan<T, BLOCK_DIM_X, ALGORITHM, BLOCK_DIM_Y, BLOCK_DIM_Z> -------------- */
enum BlockScanAlgorithm { BLOCK_SCAN_RAKING, BLOCK_SCAN_RAKING_MEMOIZE, BLOCK_SCAN_WARP_SCANS };

template <class T, int BLOCK_DIM_X, BlockScanAlgorithm ALGORITHM = BLOCK_SCAN_RAKING, int BLOCK_DIM_Y = 1,
          int BLOCK_DIM_Z = 1>
class BlockScan {
    static constexpr int THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
    static constexpr int WARPS = (THREADS + 31) / 32;

public:
    /* the warps' totals, and the block prefix of a callback */
    struct TempStorage {
        detail::raw_slots<T> warp[WARPS];
        detail::raw_slots<T> prefix[1];
        unsigned long long last_use; /* detail::begin_use */
    };
    explicit BlockScan(TempStorage &t) : t_(t) { detail::check_block("cub::BlockScan", THREADS); }

    /* one item per thread */
    void InclusiveSum(T in, T &out) { InclusiveScan(in, out, cub::Sum()); }
    void InclusiveSum(T in, T &out, T &aggregate) { InclusiveScan(in, out, cub::Sum(), aggregate); }
    void ExclusiveSum(T in, T &out) { ExclusiveScan(in, out, T(0), cub::Sum()); }
    void ExclusiveSum(T in, T &out, T &aggregate) { ExclusiveScan(in, out, T(0), cub::Sum(), aggregate); }
    template <class Op> void InclusiveScan(T in, T &out, Op op) { T a; InclusiveScan(in, out, op, a); }
    template <class Op> void InclusiveScan(T in, T &out, Op op, T &aggregate)
    {
        T items[1] = {in}, o[1];
        scan(items, o, op, nullptr, true, aggregate);
        out = o[0];
    }
    template <class Op> void ExclusiveScan(T in, T &out, T init, Op op) { T a; ExclusiveScan(in, out, init, op, a); }
    template <class Op> void ExclusiveScan(T in, T &out, T init, Op op, T &aggregate)
    {
        T items[1] = {in}, o[1];
        scan(items, o, op, &init, false, aggregate);
        out = o[0];
    }
    /* with a block prefix callback: warp 0 calls it with the block's
     * aggregate; what lane 0 returns seeds every thread's result */
    template <class Cb> void ExclusiveSum(T in, T &out, Cb &prefix_op) { ExclusiveScan(in, out, cub::Sum(), prefix_op); }
    template <class Cb> void InclusiveSum(T in, T &out, Cb &prefix_op) { InclusiveScan(in, out, cub::Sum(), prefix_op); }
    template <class Op, class Cb> void ExclusiveScan(T in, T &out, Op op, Cb &prefix_op)
    {
        T items[1] = {in}, o[1];
        scan_with_callback(items, o, op, false, prefix_op);
        out = o[0];
    }
    template <class Op, class Cb> void InclusiveScan(T in, T &out, Op op, Cb &prefix_op)
    {
        T items[1] = {in}, o[1];
        scan_with_callback(items, o, op, true, prefix_op);
        out = o[0];
    }

    /* N items per thread, in a blocked arrangement */
    template <int N> void InclusiveSum(T (&in)[N], T (&out)[N]) { T a; scan(in, out, cub::Sum(), nullptr, true, a); }
    template <int N> void ExclusiveSum(T (&in)[N], T (&out)[N])
    {
        T a, z = T(0);
        scan(in, out, cub::Sum(), &z, false, a);
    }
    template <int N> void ExclusiveSum(T (&in)[N], T (&out)[N], T &aggregate)
    {
        T z = T(0);
        scan(in, out, cub::Sum(), &z, false, aggregate);
    }
    template <int N, class Cb> void ExclusiveSum(T (&in)[N], T (&out)[N], Cb &prefix_op)
    {
        scan_with_callback(in, out, cub::Sum(), false, prefix_op);
    }
    template <int N, class Cb> void InclusiveSum(T (&in)[N], T (&out)[N], Cb &prefix_op)
    {
        scan_with_callback(in, out, cub::Sum(), true, prefix_op);
    }
    template <int N, class Op> void InclusiveScan(T (&in)[N], T (&out)[N], Op op) { T a; scan(in, out, op, nullptr, true, a); }
    template <int N, class Op> void ExclusiveScan(T (&in)[N], T (&out)[N], T init, Op op) { T a; scan(in, out, op, &init, false, a); }

private:
    /* The combination of the totals of the threads before this one (has:
     * there are some) and of all threads (aggregate), from each thread's
     * total: a warp scan, the warps' totals through TempStorage, one barrier. */
    template <class Op> T prefix_of(T total, Op op, bool &has, T &aggregate)
    {
        const unsigned tid = detail::linear_tid();
        const int warp = (int)(tid / 32u), lane = (int)(tid % 32u);
        const unsigned mask = detail::warp_mask(THREADS, tid);
        const T incl = detail::warp_inclusive_scan(total, op, mask, lane);
        const T excl = detail::shfl(detail::SHFL_UP, mask, incl, 1u, 32);
        const int last = (THREADS - warp * 32 < 32 ? THREADS - warp * 32 : 32) - 1;
        detail::begin_use("cub::BlockScan", t_);
        if (lane == last) detail::put(t_.warp, warp, incl);
        __syncthreads();
        T before = excl; /* lane 0 of warp 0: nothing before it */
        if (warp > 0) {
            T v = detail::take(t_.warp, 0);
            for (int w = 1; w < warp; ++w) v = op(v, detail::take(t_.warp, w));
            before = lane > 0 ? op(v, excl) : v;
        }
        has = tid > 0;
        aggregate = detail::take(t_.warp, 0);
        for (int w = 1; w < WARPS; ++w) aggregate = op(aggregate, detail::take(t_.warp, w));
        detail::end_use(t_);
        return before;
    }
    /* seed (init, or the callback's prefix) then each item, exclusive or inclusive */
    template <int N, class Op> void apply(T (&in)[N], T (&out)[N], Op op, const T *seed, bool has, const T &before, bool inclusive)
    {
        bool run_has = seed != nullptr || has;
        T run = seed ? (has ? op(*seed, before) : *seed) : before;
        for (int i = 0; i < N; ++i) {
            const T x = in[i];
            if (inclusive) {
                run = run_has ? op(run, x) : x;
                run_has = true;
                out[i] = run;
            } else {
                out[i] = run; /* undefined for thread 0 without a seed, as in CUB */
                run = run_has ? op(run, x) : x;
                run_has = true;
            }
        }
    }
    template <int N, class Op> void scan(T (&in)[N], T (&out)[N], Op op, const T *seed, bool inclusive, T &aggregate)
    {
        T total = in[0];
        for (int i = 1; i < N; ++i) total = op(total, in[i]);
        bool has = false;
        const T before = prefix_of(total, op, has, aggregate);
        apply(in, out, op, seed, has, before, inclusive);
    }
    template <int N, class Op, class Cb> void scan_with_callback(T (&in)[N], T (&out)[N], Op op, bool inclusive, Cb &cb)
    {
        T total = in[0];
        for (int i = 1; i < N; ++i) total = op(total, in[i]);
        bool has = false;
        T aggregate;
        const T before = prefix_of(total, op, has, aggregate);
        const unsigned tid = detail::linear_tid();
        if (tid < 32u) {
            const T p = cb(aggregate);
            if (tid == 0) detail::put(t_.prefix, 0, p);
        }
        __syncthreads();
        const T seed = detail::take(t_.prefix, 0);
        detail::end_use(t_);
        apply(in, out, op, &seed, has, before, inclusive);
    }
    TempStorage &t_;
};
} // namespace cub

#include "cudaemu/cub_block_io.h"
