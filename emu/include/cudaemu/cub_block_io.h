/* emu/include/cudaemu/cub_block_io.h - the CUDA host emulator's CUB subset,
 * block-wide loads and stores (included by cub_block.h): BlockLoad and
 * BlockStore, and the LoadDirect/StoreDirect functions.  Every algorithm
 * gives its documented arrangement (blocked, or striped for the _STRIPED
 * ones); the transposing ones (which only change how a GPU moves the data)
 * read and write directly (emu/README.md, "Thrust and CUB"). */
#pragma once

namespace cub {
enum BlockLoadAlgorithm {
    BLOCK_LOAD_DIRECT,
    BLOCK_LOAD_STRIPED,
    BLOCK_LOAD_VECTORIZE,
    BLOCK_LOAD_TRANSPOSE,
    BLOCK_LOAD_WARP_TRANSPOSE,
    BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED
};
enum BlockStoreAlgorithm {
    BLOCK_STORE_DIRECT,
    BLOCK_STORE_STRIPED,
    BLOCK_STORE_VECTORIZE,
    BLOCK_STORE_TRANSPOSE,
    BLOCK_STORE_WARP_TRANSPOSE,
    BLOCK_STORE_WARP_TRANSPOSE_TIMESLICED
};

/* item i of thread tid: blocked tid*N + i, striped i*threads + tid; only the
 * first `valid` of the block's tile are touched */
template <class T, int N, class It> void LoadDirectBlocked(int tid, It in, T (&items)[N])
{
    for (int i = 0; i < N; ++i) items[i] = in[tid * N + i];
}
template <class T, int N, class It> void LoadDirectBlocked(int tid, It in, T (&items)[N], int valid)
{
    for (int i = 0; i < N; ++i)
        if (tid * N + i < valid) items[i] = in[tid * N + i];
}
template <class T, int N, class It, class D> void LoadDirectBlocked(int tid, It in, T (&items)[N], int valid, D oob)
{
    for (int i = 0; i < N; ++i) items[i] = tid * N + i < valid ? T(in[tid * N + i]) : T(oob);
}
template <int THREADS, class T, int N, class It> void LoadDirectStriped(int tid, It in, T (&items)[N])
{
    for (int i = 0; i < N; ++i) items[i] = in[i * THREADS + tid];
}
template <int THREADS, class T, int N, class It> void LoadDirectStriped(int tid, It in, T (&items)[N], int valid)
{
    for (int i = 0; i < N; ++i)
        if (i * THREADS + tid < valid) items[i] = in[i * THREADS + tid];
}
template <int THREADS, class T, int N, class It, class D>
void LoadDirectStriped(int tid, It in, T (&items)[N], int valid, D oob)
{
    for (int i = 0; i < N; ++i) items[i] = i * THREADS + tid < valid ? T(in[i * THREADS + tid]) : T(oob);
}
template <class T, int N, class It> void StoreDirectBlocked(int tid, It out, T (&items)[N])
{
    for (int i = 0; i < N; ++i) out[tid * N + i] = items[i];
}
template <class T, int N, class It> void StoreDirectBlocked(int tid, It out, T (&items)[N], int valid)
{
    for (int i = 0; i < N; ++i)
        if (tid * N + i < valid) out[tid * N + i] = items[i];
}
template <int THREADS, class T, int N, class It> void StoreDirectStriped(int tid, It out, T (&items)[N])
{
    for (int i = 0; i < N; ++i) out[i * THREADS + tid] = items[i];
}
template <int THREADS, class T, int N, class It> void StoreDirectStriped(int tid, It out, T (&items)[N], int valid)
{
    for (int i = 0; i < N; ++i)
        if (i * THREADS + tid < valid) out[i * THREADS + tid] = items[i];
}

template <class T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, BlockLoadAlgorithm ALGORITHM = BLOCK_LOAD_DIRECT,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
class BlockLoad {
    static constexpr int THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
    static constexpr bool STRIPED = ALGORITHM == BLOCK_LOAD_STRIPED;

public:
    struct TempStorage {
        unsigned char unused;
    };
    BlockLoad() { detail::check_block("cub::BlockLoad", THREADS); }
    explicit BlockLoad(TempStorage &) : BlockLoad() {}
    template <class It> void Load(It in, T (&items)[ITEMS_PER_THREAD])
    {
        const int tid = (int)detail::linear_tid();
        if (STRIPED) LoadDirectStriped<THREADS>(tid, in, items);
        else LoadDirectBlocked(tid, in, items);
    }
    template <class It> void Load(It in, T (&items)[ITEMS_PER_THREAD], int valid)
    {
        const int tid = (int)detail::linear_tid();
        if (STRIPED) LoadDirectStriped<THREADS>(tid, in, items, valid);
        else LoadDirectBlocked(tid, in, items, valid);
    }
    template <class It, class D> void Load(It in, T (&items)[ITEMS_PER_THREAD], int valid, D oob)
    {
        const int tid = (int)detail::linear_tid();
        if (STRIPED) LoadDirectStriped<THREADS>(tid, in, items, valid, oob);
        else LoadDirectBlocked(tid, in, items, valid, oob);
    }
};

template <class T, int BLOCK_DIM_X, int ITEMS_PER_THREAD, BlockStoreAlgorithm ALGORITHM = BLOCK_STORE_DIRECT,
          int BLOCK_DIM_Y = 1, int BLOCK_DIM_Z = 1>
class BlockStore {
    static constexpr int THREADS = BLOCK_DIM_X * BLOCK_DIM_Y * BLOCK_DIM_Z;
    static constexpr bool STRIPED = ALGORITHM == BLOCK_STORE_STRIPED;

public:
    struct TempStorage {
        unsigned char unused;
    };
    BlockStore() { detail::check_block("cub::BlockStore", THREADS); }
    explicit BlockStore(TempStorage &) : BlockStore() {}
    template <class It> void Store(It out, T (&items)[ITEMS_PER_THREAD])
    {
        const int tid = (int)detail::linear_tid();
        if (STRIPED) StoreDirectStriped<THREADS>(tid, out, items);
        else StoreDirectBlocked(tid, out, items);
    }
    template <class It> void Store(It out, T (&items)[ITEMS_PER_THREAD], int valid)
    {
        const int tid = (int)detail::linear_tid();
        if (STRIPED) StoreDirectStriped<THREADS>(tid, out, items, valid);
        else StoreDirectBlocked(tid, out, items, valid);
    }
};
} // namespace cub
