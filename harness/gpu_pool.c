/* harness/gpu_pool.c - the device allocator kinds (gpu_alloc.h), one table of
 * operations, and the pool's bookkeeping (gpu_pool.h): bytes allocated (what
 * the buffers asked for) and reserved (what the pool holds from the device),
 * now and at the peak. Compiled as C against the CUDA toolkit and as C++
 * against emu/: every variable declared before the first CUDA_TRY. */
#include "gpu_pool.h"
#include "cuda_check.h"
#include "errmsg.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One kind's operations. alloc fills blk->p and blk->size for blk->asked
 * bytes (the cached kind may hand back a free block of its own instead: it
 * returns the block's index, or -1 for a new one); release gives blk back;
 * trim returns unused memory; reserved says what the pool holds now. */
typedef struct pool_ops {
    int (*alloc)(gpu_pool *pl, pool_block *blk);
    int (*release)(gpu_pool *pl, pool_block *blk);
    int (*trim)(gpu_pool *pl);
    size_t (*reserved)(const gpu_pool *pl);
} pool_ops;

/* ---- cached and per-step: cudaMalloc'd blocks ----------------------------- */

static int device_alloc(gpu_pool *pl, pool_block *blk)
{
    size_t n = pl->a->kind == GPU_ALLOC_CACHED ? GPU_POOL_ROUNDED(blk->asked) : blk->asked;
    CUDA_TRY(cudaMalloc(&blk->p, n));
    blk->size = n;
    pl->mallocs++;
    return 0;
fail:
    return -1;
}

static int device_free(gpu_pool *pl, pool_block *blk)
{
    (void)pl;
    CUDA_TRY(cudaFree(blk->p));
    return 0;
fail:
    return -1;
}

/* cached: a free block is kept; trim frees them all. */
static int cached_release(gpu_pool *pl, pool_block *blk)
{
    (void)pl;
    (void)blk;
    return 0;
}

static int cached_trim(gpu_pool *pl)
{
    int k = 0;
    for (int i = 0; i < pl->nblk; i++) {
        if (pl->blk[i].asked) {
            pl->blk[k++] = pl->blk[i];
            continue;
        }
        CUDA_TRY(cudaFree(pl->blk[i].p));
    }
    pl->nblk = k;
    return 0;
fail:
    return -1;
}

static size_t blocks_reserved(const gpu_pool *pl)
{
    size_t n = 0;
    for (int i = 0; i < pl->nblk; i++) n += pl->blk[i].size;
    return n;
}

static int no_trim(gpu_pool *pl)
{
    (void)pl;
    return 0;
}

/* ---- async-pool: the stream-ordered allocator ----------------------------- */

#if BENCH_HAVE_MALLOC_ASYNC
static int async_alloc(gpu_pool *pl, pool_block *blk)
{
    CUDA_TRY(cudaMallocAsync(&blk->p, blk->asked, blk->s));
    blk->size = blk->asked;
    pl->mallocs++;
    return 0;
fail:
    return -1;
}

static int async_release(gpu_pool *pl, pool_block *blk)
{
    (void)pl;
    CUDA_TRY(cudaFreeAsync(blk->p, blk->s));
    return 0;
fail:
    return -1;
}

static int async_trim(gpu_pool *pl)
{
    CUDA_TRY(cudaDeviceSynchronize());   /* the frees queued on every stream land first */
    CUDA_TRY(cudaMemPoolTrimTo(pl->mp, 0));
    return 0;
fail:
    return -1;
}

static size_t async_reserved(const gpu_pool *pl)
{
    uint64_t v = 0;
    if (cudaMemPoolGetAttribute(pl->mp, cudaMemPoolAttrReservedMemCurrent, &v) != cudaSuccess)
        return blocks_reserved(pl);
    return (size_t)v;
}
#endif

/* The operations of each kind, by gpu_alloc_kind. */
static const pool_ops OPS[GPU_ALLOC_COUNT] = {
    /* [GPU_ALLOC_CACHED] */ {device_alloc, cached_release, cached_trim, blocks_reserved},
    /* [GPU_ALLOC_PER_STEP] */ {device_alloc, device_free, no_trim, blocks_reserved},
#if BENCH_HAVE_MALLOC_ASYNC
    /* [GPU_ALLOC_ASYNC_POOL] */ {async_alloc, async_release, async_trim, async_reserved},
#else
    /* [GPU_ALLOC_ASYNC_POOL] */ {NULL, NULL, NULL, NULL},
#endif
};

/* ---- the pool ------------------------------------------------------------- */

int gpu_pool_open(gpu_pool *pl, const gpu_alloc *a, char *skip, size_t skipcap)
{
    memset(pl, 0, sizeof *pl);
    pl->a = a ? a : &GPU_ALLOCS[0];
    if (!OPS[pl->a->kind].alloc) {
        snprintf(skip, skipcap, "allocator %s: this CUDA layer has no cudaMallocAsync or memory "
                 "pools", pl->a->name);
        return 1;
    }
#if BENCH_HAVE_MALLOC_ASYNC
    if (pl->a->kind == GPU_ALLOC_ASYNC_POOL) {
        int dev = 0;
        uint64_t keep = UINT64_MAX;   /* cache across synchronizations, as PyTorch's backend */
        CUDA_TRY(cudaGetDevice(&dev));
        CUDA_TRY(cudaDeviceGetDefaultMemPool(&pl->mp, dev));
        CUDA_TRY(cudaMemPoolTrimTo(pl->mp, 0));
        CUDA_TRY(cudaMemPoolSetAttribute(pl->mp, cudaMemPoolAttrReleaseThreshold, &keep));
    }
#endif
    return 0;
#if BENCH_HAVE_MALLOC_ASYNC
fail:
    return -1;
#endif
}

static void count(gpu_pool *pl)
{
    pl->reserved = OPS[pl->a->kind].reserved(pl);
    if (pl->allocated > pl->peak_allocated) pl->peak_allocated = pl->allocated;
    if (pl->reserved > pl->peak_reserved) pl->peak_reserved = pl->reserved;
}

int gpu_pool_alloc(gpu_pool *pl, void **p, size_t n, cudaStream_t s)
{
    int best = -1;
    if (pl->a->kind == GPU_ALLOC_CACHED) /* the smallest free block of s that fits */
        for (int i = 0; i < pl->nblk; i++) {
            const pool_block *b = &pl->blk[i];
            if (!b->asked && b->s == s && b->size >= n && (best < 0 || b->size < pl->blk[best].size))
                best = i;
        }
    if (best < 0) {
        if (pl->nblk == pl->cap) {
            int cap = pl->cap ? 2 * pl->cap : 16;
            pool_block *g = (pool_block *)realloc(pl->blk, (size_t)cap * sizeof *g);
            if (!g) {
                err_set("out of host memory (the device pool's table)");
                return -1;
            }
            pl->blk = g;
            pl->cap = cap;
        }
        best = pl->nblk;
        memset(&pl->blk[best], 0, sizeof pl->blk[best]);
        pl->blk[best].asked = n;
        pl->blk[best].s = s;
        if (OPS[pl->a->kind].alloc(pl, &pl->blk[best])) return -1;
        pl->nblk++;
    }
    pl->blk[best].asked = n;
    pl->blk[best].s = s;
    pl->allocated += n;
    count(pl);
    *p = pl->blk[best].p;
    return 0;
}

int gpu_pool_free(gpu_pool *pl, void *p, cudaStream_t s)
{
    if (!p) return 0;
    for (int i = 0; i < pl->nblk; i++) {
        pool_block *b = &pl->blk[i];
        if (b->p != p || !b->asked) continue;
        pl->allocated -= b->asked;
        b->s = s;
        if (OPS[pl->a->kind].release(pl, b)) return -1;
        if (pl->a->kind == GPU_ALLOC_CACHED) {
            b->asked = 0;
        } else {
            *b = pl->blk[--pl->nblk];
        }
        count(pl);
        return 0;
    }
    err_set("device pool: %p was not allocated by it", p);
    return -1;
}

int gpu_pool_trim(gpu_pool *pl)
{
    if (!pl->a || OPS[pl->a->kind].trim(pl)) return -1;
    pl->reserved = OPS[pl->a->kind].reserved(pl);
    return 0;
}

void gpu_pool_close(gpu_pool *pl)
{
    if (!pl->a) return;
    /* work still queued on any stream (a prefetch's copy) may use a buffer:
     * a stream-ordered free on the buffer's own stream would not wait for it */
    cudaDeviceSynchronize();
    for (int i = pl->nblk - 1; i >= 0; i--) {
        if (pl->a->kind == GPU_ALLOC_CACHED) {
            cudaFree(pl->blk[i].p);
        } else if (pl->blk[i].asked) {
            gpu_pool_free(pl, pl->blk[i].p, pl->blk[i].s);
        }
    }
#if BENCH_HAVE_MALLOC_ASYNC
    if (pl->a->kind == GPU_ALLOC_ASYNC_POOL && pl->mp) {
        uint64_t none = 0;
        cudaDeviceSynchronize();   /* the frees land */
        cudaMemPoolTrimTo(pl->mp, 0);
        cudaMemPoolSetAttribute(pl->mp, cudaMemPoolAttrReleaseThreshold, &none);
    }
#endif
    free(pl->blk);
    memset(pl, 0, sizeof *pl);
}
