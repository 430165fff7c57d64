/* emu/include/cudaemu/cg_multi_warp_tile.h - cooperative groups' tiles of
 * 64 to 1024 threads (CUDA 11+: thread_block_tile<N> with N a power of two
 * > 32) and block_tile_memory.  Included by cooperative_groups.h inside
 * namespace cooperative_groups, after details::warp_tile; not a header of
 * its own.
 *
 * A multi-warp tile is N consecutive threads of the block (by thread_rank()
 * of the block).  sync() is the scheduler's barrier over exactly those
 * threads (tile_barrier in emu/src/scheduler.cpp): it fails the launch, as a
 * GPU would hang, when the block ends inside the tile.  The collectives CUDA
 * gives such tiles (shfl, any, all, and cg::reduce, inclusive_scan,
 * exclusive_scan over them) exchange values of at most 8 bytes, as in CUDA,
 * through one 8-byte slot per thread of the block between two tile barriers:
 * the slots belong to the block's model in the scheduler (a block resident
 * beside others under CUDAEMU_INTERLEAVE=1 has its own), the tiles of a
 * block use disjoint slots, and a thread is in one collective at a time.  Like sm_80+ devices
 * the emulator needs no block_tile_memory: this_thread_block(scratch) accepts
 * one and ignores it.
 */

template <unsigned MaxBlockSize = 1024> struct block_tile_memory {
    unsigned char cudaemu_unused[8]; /* the emulator's tiles need no scratch */
};
template <unsigned MaxBlockSize> inline thread_block this_thread_block(block_tile_memory<MaxBlockSize> &)
{
    return this_thread_block();
}

namespace details {
/* The slot of thread r of the block (r < 1024): the scheduler's, per block. */
inline unsigned char *tile_slot(unsigned r) { return ::cudaemu::detail::tile_slot(r); }
template <typename T> inline void put_slot(unsigned r, const T &v) { std::memcpy(tile_slot(r), &v, sizeof(T)); }
template <typename T> inline T get_slot(unsigned r)
{
    T v;
    std::memcpy(&v, tile_slot(r), sizeof(T));
    return v;
}
template <typename T> inline void check_slot_type()
{
    static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value,
                  "collectives of tiles larger than a warp take trivially copyable types of at "
                  "most 8 bytes (as in CUDA)");
}

/* Not a thread_group (as in CUDA, such a tile does not convert to one). */
template <unsigned N> class multi_warp_tile {
    unsigned meta_rank_, meta_size_;
    static unsigned first() { return block_rank_of_thread() & ~(N - 1); }

public:
    static constexpr bool cudaemu_multi_warp = true;
    multi_warp_tile(unsigned meta_rank, unsigned meta_size)
        : meta_rank_(meta_rank), meta_size_(meta_size) {}

    static constexpr unsigned size() { return N; }
    static constexpr unsigned num_threads() { return N; }
    static unsigned thread_rank() { return block_rank_of_thread() & (N - 1); }
    unsigned meta_group_rank() const { return meta_rank_; }
    unsigned meta_group_size() const { return meta_size_; }
    static void sync() { ::cudaemu::detail::tile_barrier(N); }

    /* var of the thread of rank src (mod N) */
    template <typename T> T shfl(T var, unsigned src) const
    {
        check_slot_type<T>();
        put_slot(block_rank_of_thread(), var);
        sync();
        T r = get_slot<T>(first() + (src & (N - 1)));
        sync();
        return r;
    }
    int any(int pred) const { return cudaemu_reduce(int(pred != 0), [](int a, int b) { return a | b; }); }
    int all(int pred) const { return cudaemu_reduce(int(pred != 0), [](int a, int b) { return a & b; }); }

    /* cg::reduce: each warp reduces its lanes, lane 0 parks the result in
     * its slot, then every thread folds the warps' results in order. */
    template <typename T, typename Op> T cudaemu_reduce(T val, Op op) const
    {
        check_slot_type<T>();
        warp_tile<32> warp(0, 1);
        for (unsigned o = 16; o > 0; o /= 2) val = op(val, warp.shfl_xor(val, o));
        const unsigned me = block_rank_of_thread();
        if ((me & 31u) == 0) put_slot(me, val);
        sync();
        T acc = get_slot<T>(first());
        for (unsigned w = first() + 32; w < first() + N; w += 32) acc = op(acc, get_slot<T>(w));
        sync();
        return acc;
    }
    /* cg::inclusive_scan / exclusive_scan: a scan within each warp, the warp
     * totals parked in the slot of each warp's lane 0, and the totals of the
     * warps before this one folded in front (exclusive rank 0 gets T()). */
    template <typename T, typename Op> T cudaemu_scan(T val, Op op, bool inclusive) const
    {
        check_slot_type<T>();
        warp_tile<32> warp(0, 1);
        const unsigned me = block_rank_of_thread(), lane = me & 31u, w0 = me & ~31u;
        T inc = val;
        for (unsigned d = 1; d < 32; d *= 2) {
            T t = warp.shfl_up(inc, d);
            if (lane >= d) inc = op(inc, t);
        }
        const T ex = warp.shfl_up(inc, 1); /* lane 0: its own value, unused */
        if (lane == 31) put_slot(w0, inc);
        sync();
        bool have = false;
        T prefix{};
        for (unsigned w = first(); w < w0; w += 32) {
            const T s = get_slot<T>(w);
            prefix = have ? op(prefix, s) : s;
            have = true;
        }
        sync();
        if (inclusive) return have ? op(prefix, inc) : inc;
        if (lane == 0) return have ? prefix : T();
        return have ? op(prefix, ex) : ex;
    }
};

template <typename G, typename = void> struct is_multi_warp_tile : std::false_type {};
template <typename G>
struct is_multi_warp_tile<G, std::void_t<decltype(G::cudaemu_multi_warp)>> : std::true_type {};
} // namespace details
