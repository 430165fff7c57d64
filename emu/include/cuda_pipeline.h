/* emu/include/cuda_pipeline.h - CUDA's nvcuda::experimental::pipeline for the
 * CUDA host emulator, over the primitives of cuda_pipeline_primitives.h (the
 * same per-thread queue: copies land at the wait that covers their batch).
 * Not emulated: pipeline::arrive_on (asynchronous barriers are a stub).
 */
#ifndef CUDAEMU_PIPELINE_H
#define CUDAEMU_PIPELINE_H

#include <cuda_pipeline_primitives.h>

#include <cstddef>
#include <type_traits>

namespace nvcuda {
namespace experimental {

template <size_t N, typename T> inline auto segment(T *ptr) -> T (*)[N]
{
    return (T(*)[N])ptr;
}

class pipeline {
public:
    pipeline(const pipeline &) = delete;
    pipeline(pipeline &&) = delete;
    pipeline &operator=(const pipeline &) = delete;
    pipeline &operator=(pipeline &&) = delete;

    pipeline() : current_batch(0) {}
    /* closes the batch; returns its index (0, 1, ...) */
    size_t commit()
    {
        ::cudaemu::detail::pipeline_commit();
        return current_batch++;
    }
    void commit_and_wait()
    {
        (void)commit();
        wait_prior<0>();
    }
    /* as the toolkit's: wait_prior(current - batch), so the batch `commit`
     * just returned (current - 1) may still be in flight after wait(it) */
    void wait(size_t batch)
    {
        ::cudaemu::detail::pipeline_wait_prior(current_batch > batch ? current_batch - batch : 0);
    }
    template <unsigned N> void wait_prior() { ::cudaemu::detail::pipeline_wait_prior(N); }

private:
    size_t current_batch;
};

/* dst = src, asynchronously (a trivially copyable T: at the wait; else now) */
template <class T> inline void memcpy_async(T &dst, const T &src, pipeline &)
{
    if (std::is_trivially_copyable<T>::value)
        ::cudaemu::detail::pipeline_copy_async(&dst, &src, sizeof(T), sizeof(T));
    else
        dst = src;
}

/* the first min(DstN, SrcN) elements of src to dst */
template <class T, size_t DstN, size_t SrcN>
inline void memcpy_async(T (*dst)[DstN], const T (*src)[SrcN], pipeline &pipe)
{
    constexpr size_t n = DstN < SrcN ? DstN : SrcN;
    for (size_t i = 0; i < n; ++i) memcpy_async((*dst)[i], (*src)[i], pipe);
}

} // namespace experimental
} // namespace nvcuda

#endif
