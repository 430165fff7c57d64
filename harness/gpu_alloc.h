/* harness/gpu_alloc.h - the device allocator kinds by name (no CUDA types,
 * so every build knows them); harness/gpu_pool.c runs them.
 *
 * Every device buffer of a GPU case comes from one pool of one kind. A
 * training step's own products (its activations and gradients: the layout's
 * device-resident OUT buffers, its scratch, the workspace) are given back to
 * the pool and taken anew before each step, as a framework frees them after
 * a step and allocates them for the next (the last step's stay readable for
 * the check); everything else is taken once when the case opens. The kind is an axis of the step
 * suites' GPU cases (`--alloc`); other suites run the default alone.
 *
 *   cached      a caching pool like PyTorch's: blocks cudaMalloc'd once
 *               (rounded up to 512 bytes) and reused by later requests on the
 *               same stream; given back to the driver only when the case
 *               closes
 *   per-step    cudaMalloc and cudaFree for every request: the cost of not
 *               caching (cudaFree synchronizes the device)
 *   async-pool  cudaMallocFromPoolAsync / cudaFreeAsync on the step's stream
 *               from a pool of the case's own (release threshold: never), the
 *               stream-ordered allocator of CUDA 11.2
 *
 * Rows report the peak bytes allocated (peak_dev_mb: requested bytes in use
 * at once) and the peak bytes reserved (reserved_dev_mb: what the pool held
 * from the device at once), as torch.cuda.max_memory_allocated and
 * max_memory_reserved do. Adding a kind: its value, its row in GPU_ALLOCS
 * (gpu_alloc.c), its operations in gpu_pool.c's table.
 */
#ifndef HARNESS_GPU_ALLOC_H
#define HARNESS_GPU_ALLOC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { GPU_ALLOC_CACHED, GPU_ALLOC_PER_STEP, GPU_ALLOC_ASYNC_POOL, GPU_ALLOC_COUNT } gpu_alloc_kind;

typedef struct gpu_alloc {
    const char *name;    /* as --alloc names it, and the mode column's suffix */
    gpu_alloc_kind kind;
    const char *doc;     /* one line, for --help and the README */
} gpu_alloc;

/* Every kind, the default (cached) first; terminated by name NULL. */
extern const gpu_alloc GPU_ALLOCS[];
const gpu_alloc *gpu_alloc_find(const char *name);

/* The cached pool's block: requests rounded up to 512 bytes (PyTorch's
 * smallest block). */
#define GPU_POOL_ROUND 512u
#define GPU_POOL_ROUNDED(n) (((size_t)(n) + GPU_POOL_ROUND - 1) / GPU_POOL_ROUND * GPU_POOL_ROUND)

/* The separator of a mode column that names an allocator: `resident+per-step`. */
#define GPU_ALLOC_SEP '+'

/* The mode column of GPU mode `mode` under allocator a: the mode's own name
 * under the default (NULL or cached), `<mode>+<alloc>` otherwise. */
void gpu_alloc_mode_name(const char *mode, const gpu_alloc *a, char *out, size_t cap);

/* The allocator a mode column names (NULL: none, the default) and the length
 * of the mode's own name before it (*baselen; NULL: not wanted). */
const gpu_alloc *gpu_alloc_of_mode(const char *mode, size_t *baselen);

#ifdef __cplusplus
}
#endif
#endif
