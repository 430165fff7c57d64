/* emu/include/cooperative_groups.h - CUDA's cooperative groups on the host emulator.
 *
 * Every group is built on the emulator's primitives (emu/src/scheduler.cpp):
 * a thread_block syncs with __syncthreads(); a thread_block_tile<N> (N a power
 * of two <= 32) is N consecutive lanes of a warp, so its collectives are the
 * warp primitives with the tile's lane mask and width N; a thread_block_tile<N>
 * with N a power of two from 64 to 1024 (CUDA 11+'s multi-warp tiles, with or
 * without block_tile_memory) is N consecutive threads of the block: its sync()
 * is the scheduler's barrier over those threads (tile_barrier), its shfl, any,
 * all, cg::reduce and scans go through one static scratch slot per thread of
 * the block between two such barriers (one block runs at a time); a
 * coalesced_group is
 * the set of lanes of a warp that reached the same coalesced_threads() call
 * (the emulator groups the lanes waiting there once no other lane of the
 * block can run on: the lanes a GPU would run together); a grid_group syncs
 * with a grid-wide barrier, only in a cooperative launch
 * (cudaLaunchCooperativeKernel), which keeps every block of the grid resident.
 * Collectives: shfl, shfl_up/down/xor, any, all, ballot, match_any/all,
 * cg::reduce, cg::inclusive_scan/exclusive_scan (cooperative_groups/reduce.h
 * and scan.h include this header), cg::memcpy_async/wait.
 * Not emulated: multi-grid groups, cluster groups, invoke_one, the
 * asynchronous barriers of <cuda/...>.
 */
#ifndef CUDAEMU_COOPERATIVE_GROUPS_H
#define CUDAEMU_COOPERATIVE_GROUPS_H

#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace cudaemu {
namespace detail {
/* scheduler.cpp: the lanes of this warp at the same coalesced_threads() site */
unsigned coalesce(unsigned long long site);
/* scheduler.cpp: grid-wide barrier (cooperative launches only; else the launch fails) */
void grid_barrier();
bool grid_is_cooperative();
/* scheduler.cpp: a barrier over the n threads of the caller's tile (n a power of two > 32) */
void tile_barrier(unsigned n);
/* scheduler.cpp: the 8-byte exchange slot of thread r (< 1024) of the caller's
 * block, for the collectives of tiles larger than a warp (cg_multi_warp_tile.h);
 * each block its own, also when several are resident (CUDAEMU_INTERLEAVE=1) */
unsigned char *tile_slot(unsigned r);
} // namespace detail
} // namespace cudaemu

namespace cooperative_groups {

namespace details {
inline unsigned block_rank_of_thread()
{
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
inline unsigned lane() { return block_rank_of_thread() & 31u; }
inline unsigned lanemask_lt() { return (1u << lane()) - 1u; }
/* The lane of the r-th set bit of mask (r < popcount(mask)). */
inline int nth_lane(unsigned mask, unsigned r)
{
    for (unsigned i = 0; i < r; ++i) mask &= mask - 1;
    return mask ? __builtin_ctz(mask) : 0;
}
/* Bits of m at the positions of mask, packed to the low end (PEXT). */
inline unsigned compress(unsigned m, unsigned mask)
{
    unsigned r = 0, k = 0;
    for (int l = 0; l < 32; ++l)
        if ((mask >> l) & 1u) r |= ((m >> l) & 1u) << k++;
    return r;
}
/* A warp exchange of any trivially copyable T, 8 bytes at a time. */
template <typename T> inline T exchange(int op, unsigned mask, T v, int arg, int width)
{
    static_assert(std::is_trivially_copyable<T>::value,
                  "cooperative groups shuffle trivially copyable values");
    if constexpr (sizeof(T) <= 8) {
        return ::cudaemu::detail::warp_exchange(op, mask, v, arg, width);
    } else {
        unsigned char b[sizeof(T)];
        std::memcpy(b, &v, sizeof(T));
        for (size_t o = 0; o < sizeof(T); o += 8) {
            unsigned long long c = 0;
            size_t n = sizeof(T) - o < 8 ? sizeof(T) - o : 8;
            std::memcpy(&c, b + o, n);
            c = ::cudaemu::detail::warp_collective(op, mask, c, arg, width);
            std::memcpy(b + o, &c, n);
        }
        T out;
        std::memcpy(static_cast<void *>(&out), b, sizeof(T));
        return out;
    }
}
inline unsigned long long grid_block_rank()
{
    return blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
}
inline unsigned long long grid_num_blocks()
{
    return (unsigned long long)gridDim.x * gridDim.y * gridDim.z;
}
inline unsigned block_size() { return blockDim.x * blockDim.y * blockDim.z; }
[[noreturn]] inline void unsupported(const char *what)
{
    printf("cudaemu: cooperative groups: %s is not emulated\n", what);
    __trap();
}
} // namespace details

/* The type-erased group every group converts to. */
class thread_group {
protected:
    enum kind_t : unsigned { k_block, k_tile, k_coalesced, k_grid };
    kind_t kind_;
    unsigned mask_;      /* tiles and coalesced groups: their lanes of the warp */
    unsigned tile_size_; /* tiles: N */
    unsigned meta_rank_, meta_size_;
    thread_group(kind_t k, unsigned mask, unsigned n, unsigned mr = 0, unsigned ms = 1)
        : kind_(k), mask_(mask), tile_size_(n), meta_rank_(mr), meta_size_(ms) {}

public:
    void sync() const
    {
        switch (kind_) {
        case k_block: __syncthreads(); break;
        case k_grid: ::cudaemu::detail::grid_barrier(); break;
        default: __syncwarp(mask_); break;
        }
    }
    unsigned long long size() const
    {
        switch (kind_) {
        case k_block: return details::block_size();
        case k_grid: return details::grid_num_blocks() * details::block_size();
        case k_tile: return tile_size_;
        default: return (unsigned)__builtin_popcount(mask_);
        }
    }
    unsigned long long num_threads() const { return size(); }
    unsigned long long thread_rank() const
    {
        switch (kind_) {
        case k_block: return details::block_rank_of_thread();
        case k_grid:
            return details::grid_block_rank() * details::block_size() + details::block_rank_of_thread();
        case k_tile: return details::lane() & (tile_size_ - 1);
        default: return (unsigned)__builtin_popcount(mask_ & details::lanemask_lt());
        }
    }
    unsigned get_type() const { return kind_; }
    /* cudaemu: for building partitions of a type-erased group */
    unsigned cudaemu_mask() const { return mask_; }
    bool cudaemu_is_warp_group() const { return kind_ == k_tile || kind_ == k_coalesced; }
};

class thread_block : public thread_group {
    friend thread_block this_thread_block();
    thread_block() : thread_group(k_block, 0, 0) {}

public:
    static void sync() { __syncthreads(); }
    static unsigned size() { return details::block_size(); }
    static unsigned num_threads() { return details::block_size(); }
    static unsigned thread_rank() { return details::block_rank_of_thread(); }
    static dim3 group_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    static dim3 thread_index() { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
    static dim3 dim_threads() { return blockDim; }
    static dim3 group_dim() { return blockDim; }
};
inline thread_block this_thread_block() { return thread_block(); }

class grid_group : public thread_group {
    friend grid_group this_grid();
    grid_group() : thread_group(k_grid, 0, 0) {}

public:
    /* true only in a cooperative launch: there the grid can sync */
    static bool is_valid() { return ::cudaemu::detail::grid_is_cooperative(); }
    static void sync() { ::cudaemu::detail::grid_barrier(); }
    static unsigned long long size() { return details::grid_num_blocks() * details::block_size(); }
    static unsigned long long num_threads() { return size(); }
    static unsigned long long thread_rank()
    {
        return details::grid_block_rank() * details::block_size() + details::block_rank_of_thread();
    }
    static unsigned long long block_rank() { return details::grid_block_rank(); }
    static unsigned long long num_blocks() { return details::grid_num_blocks(); }
    static dim3 block_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    static dim3 dim_blocks() { return gridDim; }
    static dim3 group_dim() { return gridDim; }
    static dim3 dim_threads()
    {
        return dim3(gridDim.x * blockDim.x, gridDim.y * blockDim.y, gridDim.z * blockDim.z);
    }
};
inline grid_group this_grid() { return grid_group(); }

/* ---- tiles ---- */
template <unsigned N, typename Parent = void> class thread_block_tile;

namespace details {
/* A tile of N <= 32 lanes: N consecutive lanes of a warp. */
template <unsigned N> class warp_tile : public thread_group {
protected:
    static unsigned tile_mask()
    {
        unsigned m = N == 32 ? 0xffffffffu : ((1u << N) - 1u);
        return m << (details::lane() & ~(N - 1));
    }
    unsigned base() const { return details::lane() & ~(N - 1); }

public:
    warp_tile(unsigned meta_rank, unsigned meta_size)
        : thread_group(k_tile, tile_mask(), N, meta_rank, meta_size) {}

    static constexpr unsigned size() { return N; }
    static constexpr unsigned num_threads() { return N; }
    static unsigned thread_rank() { return details::lane() & (N - 1); }
    unsigned meta_group_rank() const { return meta_rank_; }
    unsigned meta_group_size() const { return meta_size_; }
    void sync() const { __syncwarp(mask_); }

    template <typename T> T shfl(T var, int srcRank) const
    { return details::exchange(::cudaemu::detail::WOP_IDX, mask_, var, srcRank, (int)N); }
    template <typename T> T shfl_up(T var, unsigned delta) const
    { return details::exchange(::cudaemu::detail::WOP_UP, mask_, var, (int)delta, (int)N); }
    template <typename T> T shfl_down(T var, unsigned delta) const
    { return details::exchange(::cudaemu::detail::WOP_DOWN, mask_, var, (int)delta, (int)N); }
    template <typename T> T shfl_xor(T var, unsigned laneMask) const
    { return details::exchange(::cudaemu::detail::WOP_XOR, mask_, var, (int)laneMask, (int)N); }
    int any(int pred) const { return __any_sync(mask_, pred); }
    int all(int pred) const { return __all_sync(mask_, pred); }
    unsigned ballot(int pred) const { return __ballot_sync(mask_, pred) >> base(); }
    template <typename T> unsigned match_any(T v) const { return __match_any_sync(mask_, v) >> base(); }
    template <typename T> unsigned match_all(T v, int &pred) const
    { return __match_all_sync(mask_, v, &pred) >> base(); }
};
} // namespace details

/* Tiles of 64 to 1024 threads: details::multi_warp_tile, block_tile_memory. */
#include "cudaemu/cg_multi_warp_tile.h"

template <unsigned N> class thread_block_tile<N, void>
    : public std::conditional_t<(N <= 32), details::warp_tile<N>, details::multi_warp_tile<N>> {
    static_assert(N >= 1 && N <= 1024 && (N & (N - 1)) == 0,
                  "cudaemu: thread_block_tile<N> needs N a power of two <= 1024");
    using base_t = std::conditional_t<(N <= 32), details::warp_tile<N>, details::multi_warp_tile<N>>;

public:
    thread_block_tile(unsigned meta_rank, unsigned meta_size) : base_t(meta_rank, meta_size) {}
};

template <unsigned N, typename Parent>
class thread_block_tile : public thread_block_tile<N, void> {
public:
    thread_block_tile(unsigned meta_rank, unsigned meta_size)
        : thread_block_tile<N, void>(meta_rank, meta_size) {}
};

template <unsigned N>
inline thread_block_tile<N, thread_block> tiled_partition(const thread_block &)
{
    return thread_block_tile<N, thread_block>(details::block_rank_of_thread() / N,
                                              (details::block_size() + N - 1) / N);
}
template <unsigned N, unsigned M, typename P>
inline thread_block_tile<N, thread_block_tile<M, P>> tiled_partition(const thread_block_tile<M, P> &)
{
    static_assert(N <= M, "tiled_partition<N>(thread_block_tile<M>) needs N <= M");
    return thread_block_tile<N, thread_block_tile<M, P>>(
        (details::block_rank_of_thread() & (M - 1)) / N, M / N);
}
inline thread_block_tile<1, void> this_thread() { return thread_block_tile<1, void>(0, 1); }

/* ---- coalesced groups ---- */
class coalesced_group : public thread_group {
    int src_lane(unsigned rank) const { return details::nth_lane(mask_, rank); }
    unsigned rank() const { return (unsigned)__builtin_popcount(mask_ & details::lanemask_lt()); }

public:
    explicit coalesced_group(unsigned mask) : thread_group(k_coalesced, mask, 0) {}
    unsigned size() const { return (unsigned)__builtin_popcount(mask_); }
    unsigned num_threads() const { return size(); }
    unsigned thread_rank() const { return rank(); }
    unsigned meta_group_rank() const { return 0; }
    unsigned meta_group_size() const { return 1; }
    void sync() const { __syncwarp(mask_); }
    template <typename T> T shfl(T var, unsigned srcRank) const
    { return details::exchange(::cudaemu::detail::WOP_IDX, mask_, var, src_lane(srcRank % size()), 32); }
    template <typename T> T shfl_up(T var, unsigned delta) const
    {
        unsigned r = rank();
        int src = r >= delta ? src_lane(r - delta) : (int)details::lane();
        return details::exchange(::cudaemu::detail::WOP_IDX, mask_, var, src, 32);
    }
    template <typename T> T shfl_down(T var, unsigned delta) const
    {
        unsigned r = rank();
        int src = r + delta < size() ? src_lane(r + delta) : (int)details::lane();
        return details::exchange(::cudaemu::detail::WOP_IDX, mask_, var, src, 32);
    }
    int any(int pred) const { return __any_sync(mask_, pred); }
    int all(int pred) const { return __all_sync(mask_, pred); }
    unsigned ballot(int pred) const { return details::compress(__ballot_sync(mask_, pred), mask_); }
    template <typename T> unsigned match_any(T v) const
    { return details::compress(__match_any_sync(mask_, v), mask_); }
    template <typename T> unsigned match_all(T v, int &pred) const
    { return details::compress(__match_all_sync(mask_, v, &pred), mask_); }
};

/* The lanes of this warp that reach this call together.  The default
 * arguments name the call site: lanes at different calls form different groups. */
inline coalesced_group coalesced_threads(const char *file = __builtin_FILE(),
                                         int line = __builtin_LINE())
{
    unsigned long long site = (unsigned long long)(uintptr_t)file * 1000003ull + (unsigned)line;
    return coalesced_group(::cudaemu::detail::coalesce(site));
}

template <typename Label> inline coalesced_group labeled_partition(const coalesced_group &g, Label label)
{ return coalesced_group(__match_any_sync(g.cudaemu_mask(), label)); }
template <unsigned N, typename P, typename Label>
inline coalesced_group labeled_partition(const thread_block_tile<N, P> &g, Label label)
{
    static_assert(N <= 32, "labeled_partition of a tile larger than a warp (as in CUDA)");
    return coalesced_group(__match_any_sync(g.cudaemu_mask(), label));
}
inline coalesced_group binary_partition(const coalesced_group &g, bool pred)
{ return labeled_partition(g, (int)pred); }
template <unsigned N, typename P>
inline coalesced_group binary_partition(const thread_block_tile<N, P> &g, bool pred)
{ return labeled_partition(g, (int)pred); }

/* tiled_partition(parent, n) at run time: n a power of two <= 32. */
class cudaemu_dynamic_tile : public thread_group {
public:
    cudaemu_dynamic_tile(unsigned n, unsigned mr, unsigned ms)
        : thread_group(k_tile, (n == 32 ? 0xffffffffu : ((1u << n) - 1u)) << (details::lane() & ~(n - 1)),
                       n, mr, ms) {}
};
inline thread_group tiled_partition(const thread_group &parent, unsigned n)
{
    if (n == 0 || n > 32 || (n & (n - 1)))
        details::unsupported("tiled_partition(parent, n) with n not a power of two <= 32");
    if (parent.get_type() == 0) /* a block */
        return cudaemu_dynamic_tile(n, details::block_rank_of_thread() / n,
                                    (details::block_size() + n - 1) / n);
    if (!parent.cudaemu_is_warp_group() || parent.size() < n ||
        __builtin_popcount(parent.cudaemu_mask()) != (int)parent.size())
        details::unsupported("tiled_partition(parent, n) of this parent");
    unsigned ps = (unsigned)parent.size();
    return cudaemu_dynamic_tile(n, (details::lane() & (ps - 1)) / n, ps / n);
}
inline thread_group tiled_partition(const thread_block &parent, unsigned n)
{ return tiled_partition(static_cast<const thread_group &>(parent), n); }

/* ---- free functions ---- */
template <typename G> inline void sync(const G &g) { g.sync(); }
template <typename G> inline unsigned long long thread_rank(const G &g) { return g.thread_rank(); }
template <typename G> inline unsigned long long group_size(const G &g) { return g.size(); }
template <typename G> inline unsigned long long num_threads(const G &g) { return g.num_threads(); }

/* ---- the operators of reduce and scan ---- */
template <typename T> struct plus { T operator()(const T &a, const T &b) const { return a + b; } };
template <typename T> struct less { T operator()(const T &a, const T &b) const { return b < a ? b : a; } };
template <typename T> struct greater { T operator()(const T &a, const T &b) const { return a < b ? b : a; } };
template <typename T> struct bit_and { T operator()(const T &a, const T &b) const { return a & b; } };
template <typename T> struct bit_or { T operator()(const T &a, const T &b) const { return a | b; } };
template <typename T> struct bit_xor { T operator()(const T &a, const T &b) const { return a ^ b; } };

/* reduce: every thread of the group gets op over all its threads' values. */
template <unsigned N, typename T, typename Op>
inline T reduce(const thread_block_tile<N, void> &g, T val, Op op)
{
    if constexpr (N > 32) {
        return g.cudaemu_reduce(val, op);
    } else {
        for (unsigned o = N / 2; o > 0; o /= 2) val = op(val, g.shfl_xor(val, o));
        return val;
    }
}
template <typename T, typename Op> inline T reduce(const coalesced_group &g, T val, Op op)
{
    T acc = g.shfl(val, 0);
    for (unsigned r = 1; r < g.size(); ++r) acc = op(acc, g.shfl(val, r));
    return acc;
}

/* inclusive_scan / exclusive_scan (rank 0 of an exclusive scan gets T()). */
template <typename G, typename T, typename Op> inline T inclusive_scan(const G &g, T val, Op op)
{
    if constexpr (details::is_multi_warp_tile<G>::value) {
        return g.cudaemu_scan(val, op, true);
    } else {
        const unsigned r = (unsigned)g.thread_rank();
        for (unsigned d = 1; d < (unsigned)g.size(); d *= 2) {
            T t = g.shfl_up(val, d);
            if (r >= d) val = op(val, t);
        }
        return val;
    }
}
template <typename G, typename T> inline T inclusive_scan(const G &g, T val)
{ return inclusive_scan(g, val, plus<T>()); }
template <typename G, typename T, typename Op> inline T exclusive_scan(const G &g, T val, Op op)
{
    if constexpr (details::is_multi_warp_tile<G>::value) {
        return g.cudaemu_scan(val, op, false);
    } else {
        T inc = inclusive_scan(g, val, op);
        T prev = g.shfl_up(inc, 1);
        return g.thread_rank() == 0 ? T() : prev;
    }
}
template <typename G, typename T> inline T exclusive_scan(const G &g, T val)
{ return exclusive_scan(g, val, plus<T>()); }

/* ---- memcpy_async: the group's threads copy at the call, wait() syncs ---- */
template <typename G>
inline void memcpy_async(const G &g, void *dst, const void *src, size_t bytes)
{
    const unsigned long long n = g.size(), r = g.thread_rank();
    for (unsigned long long i = r; i < bytes; i += n)
        static_cast<char *>(dst)[i] = static_cast<const char *>(src)[i];
}
template <typename G, typename T>
inline void memcpy_async(const G &g, T *dst, size_t dst_count, const T *src, size_t src_count)
{
    memcpy_async(g, (void *)dst, (const void *)src,
                 (dst_count < src_count ? dst_count : src_count) * sizeof(T));
}
template <typename G> inline void wait(const G &g) { g.sync(); }
template <unsigned Count, typename G> inline void wait_prior(const G &g) { g.sync(); }

} // namespace cooperative_groups

#endif
