/* kernels/train_launch.h - what the training-step kernel files share
 * (train_elem.cu, train_seq_*.cu): the 1-D grid-stride launch shape, the
 * argument checks of their entry points, and the warp reductions.
 * Included by those .cu files only. */
#ifndef KERNELS_TRAIN_LAUNCH_H
#define KERNELS_TRAIN_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

#include "errmsg.h"
#include "gemm_launch.h" /* UNROLL */

#define ELEM_THREADS 256
#define ELEM_GRID_MAX 65536u
#define ROW_WARPS (ELEM_THREADS / 32) /* one warp per row: rows per block */

/* Blocks of a 1-D grid-stride launch over n >= 1 items. */
static inline unsigned elem_grid(size_t n)
{
    size_t b = (n + ELEM_THREADS - 1) / ELEM_THREADS;
    return b < ELEM_GRID_MAX ? (unsigned)b : ELEM_GRID_MAX;
}

/* Blocks of ELEM_THREADS threads for one warp per row, rows >= 1 (the
 * kernels stride over the rows beyond). */
static inline unsigned row_grid(size_t rows)
{
    size_t b = (rows + ROW_WARPS - 1) / ROW_WARPS;
    return b < ELEM_GRID_MAX ? (unsigned)b : ELEM_GRID_MAX;
}

/* n >= min (0, or 1 where the op needs one) */
static inline int size_ok(const char *who, long long n, const char *what, long long min)
{
    if (n < min) {
        err_set("%s: bad size %s=%lld (must be >= %lld)", who, what, n, min);
        return 0;
    }
    return 1;
}

static inline int ptrs_ok(const char *who, const void *a, const void *b, const void *c)
{
    if (!a || !b || !c) {
        err_set("%s: null device pointer (%p, %p, %p)", who, a, b, c);
        return 0;
    }
    return 1;
}

/* Whether every pointer given is 16-byte aligned (NULL counts as aligned). */
static inline int aligned16(const void *a, const void *b = NULL, const void *c = NULL,
                            const void *d = NULL)
{
    return (((uintptr_t)a | (uintptr_t)b | (uintptr_t)c | (uintptr_t)d) % 16) == 0;
}

/* xor butterflies over the 32 lanes: every lane ends with the same value,
 * reached in the same order (deterministic) */
static __device__ __forceinline__ float warp_max(float v)
{
UNROLL
    for (int o = 16; o > 0; o /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

static __device__ __forceinline__ float warp_sum(float v)
{
UNROLL
    for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

#endif
