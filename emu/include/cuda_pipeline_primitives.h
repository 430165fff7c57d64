/* emu/include/cuda_pipeline_primitives.h - CUDA's pipeline primitives for the
 * CUDA host emulator: __pipeline_memcpy_async, __pipeline_commit,
 * __pipeline_wait_prior (on sm_80+ the cp.async instructions).
 *
 * Each CUDA thread has its own queue (emu/src/pipeline.cpp): a copy is read
 * from global memory when it is issued and written to shared memory only when
 * a __pipeline_wait_prior of the thread covers its batch, the latest moment
 * CUDA allows; so a kernel that reads the destination before waiting reads
 * what was there before (the stale data a GPU may give it). See emu/README.md,
 * "Asynchronous copies". Not emulated: __pipeline_arrive_on (it needs the
 * asynchronous barriers of cuda_awbarrier_primitives.h, a stub).
 */
#ifndef CUDAEMU_PIPELINE_PRIMITIVES_H
#define CUDAEMU_PIPELINE_PRIMITIVES_H

#include <cuda_runtime.h>

#include <cstddef>

namespace cudaemu {
namespace detail {
/* pipeline.cpp: the calling CUDA thread's queue. copy_async queues a copy of
 * src_bytes from src followed by (bytes - src_bytes) zeros to dst (any size;
 * the checks of __pipeline_memcpy_async are made by its caller); commit closes
 * the open batch; wait_prior lands every batch but the newest `prior`. */
void pipeline_copy_async(void *dst, const void *src, size_t bytes, size_t src_bytes);
void pipeline_check_copy(const void *dst, const void *src, size_t size_and_align, size_t zfill);
void pipeline_commit();
void pipeline_wait_prior(size_t prior);
} // namespace detail
} // namespace cudaemu

/* Copies size_and_align (4, 8 or 16) bytes, both pointers aligned to it; the
 * last zfill of them are zeros instead (src is read for size_and_align -
 * zfill bytes). A wrong size, zfill > size or a misaligned pointer fails the
 * launch (CUDA: undefined behaviour). */
static inline void __pipeline_memcpy_async(void *__restrict__ dst_shared,
                                           const void *__restrict__ src_global,
                                           size_t size_and_align, size_t zfill = 0)
{
    cudaemu::detail::pipeline_check_copy(dst_shared, src_global, size_and_align, zfill);
    cudaemu::detail::pipeline_copy_async(dst_shared, src_global, size_and_align,
                                         size_and_align - zfill);
}

/* Closes the batch of the copies issued since the last commit. */
static inline void __pipeline_commit() { cudaemu::detail::pipeline_commit(); }

/* Waits until at most `prior` of the thread's most recent batches are still in
 * flight (as CUDA, at most 8 are left: a larger prior counts as 8). */
static inline void __pipeline_wait_prior(size_t prior)
{
    cudaemu::detail::pipeline_wait_prior(prior);
}

#endif
