/* harness/gpu_pool.h - the device allocator layer: one pool per GPU case,
 * of one kind (gpu_alloc.h), that every device buffer of the case comes from
 * and that counts the bytes allocated and reserved. Included by the GPU
 * layer alone (CUDA types); compiled as C against the CUDA toolkit and as
 * C++ against emu/.
 */
#ifndef HARNESS_GPU_POOL_H
#define HARNESS_GPU_POOL_H

#include <cuda_runtime.h>
#include <stddef.h>
#include "gpu_alloc.h"

/* BENCH_HAVE_MALLOC_ASYNC: the CUDA layer has cudaMallocAsync and memory
 * pools (the real toolkit; emu/ where its headers declare them, as
 * bench/CMakeLists.txt finds at configure time). */
#ifndef BENCH_HAVE_MALLOC_ASYNC
#define BENCH_HAVE_MALLOC_ASYNC 1
#endif

typedef struct pool_block {
    void *p;
    size_t size;      /* what the device gave (cached: rounded up) */
    size_t asked;     /* what the buffer using it asked for (0: free) */
    cudaStream_t s;   /* the stream it was last used on (cached reuse) */
} pool_block;

typedef struct gpu_pool {
    const gpu_alloc *a;
    pool_block *blk;  /* cached: every block; the others: the live buffers */
    int nblk, cap;
    size_t allocated, reserved;            /* now */
    size_t peak_allocated, peak_reserved;  /* the case's peaks */
    int mallocs;                           /* device allocations made (a note's count) */
#if BENCH_HAVE_MALLOC_ASYNC
    cudaMemPool_t mp;                      /* async-pool: the device's default pool */
#endif
} gpu_pool;

/* Opens pool pl of kind a (NULL: the default). 0; 1 when this CUDA layer
 * lacks the kind (why in skip); -1 on a CUDA error (err_set). */
int gpu_pool_open(gpu_pool *pl, const gpu_alloc *a, char *skip, size_t skipcap);

/* A buffer of n bytes (n > 0) usable in stream order on s. 0, or -1 (err_set). */
int gpu_pool_alloc(gpu_pool *pl, void **p, size_t n, cudaStream_t s);

/* Gives p (NULL: nothing) back after the work queued on s. 0, or -1. */
int gpu_pool_free(gpu_pool *pl, void *p, cudaStream_t s);

/* Returns to the device what no buffer uses (cached blocks, the async pool's
 * free memory), as torch.cuda.empty_cache(). 0, or -1. */
int gpu_pool_trim(gpu_pool *pl);

/* Frees every buffer and the pool's memory; pl is zeroed. Errors ignored. */
void gpu_pool_close(gpu_pool *pl);

#endif
