/* emu/include/cudaemu/cuda_sync.h - what libcu++'s <cuda/barrier> and
 * <cuda/pipeline> share in the CUDA host emulator: cuda::thread_scope,
 * cuda::aligned_size_t, the waiting primitive and the group's share of a
 * collective copy (cooperative_groups::memcpy_async: each thread of the group
 * copies its bytes at the call).
 */
#ifndef CUDAEMU_CUDA_SYNC_H
#define CUDAEMU_CUDA_SYNC_H

#include <cooperative_groups.h>

#include <cstddef>
#include <cstring>

namespace cudaemu {
namespace detail {
/* the calling CUDA thread lets the others of its block run (scheduler.cpp) */
void thread_yield();
/* waits, letting the block's other threads run, until done() */
template <class F> inline void wait_until(F done)
{
    while (!done()) thread_yield();
}
} // namespace detail
} // namespace cudaemu

namespace cuda {
enum thread_scope {
    thread_scope_system = 0,
    thread_scope_device = 1,
    thread_scope_block = 2,
    thread_scope_thread = 3
};

/* a size whose pointers are aligned to Alignment (a hint on a GPU) */
template <std::size_t Alignment> struct aligned_size_t {
    static constexpr std::size_t align = Alignment;
    std::size_t value;
    explicit constexpr aligned_size_t(std::size_t size) : value(size) {}
    constexpr operator std::size_t() const { return value; }
};
} // namespace cuda

#endif
