/* emu/include/cudaemu/library_kernel.h - runs the work of a Thrust algorithm
 * or a CUB device-wide call as a one-thread kernel on a stream of the CUDA
 * host emulator (emu/README.md, "Thrust and CUB").
 *
 * A kernel is where device memory may be touched (under AddressSanitizer the
 * emulator keeps device blocks poisoned outside stream work), it is ordered
 * on its stream after earlier work, it fails as a kernel fails (the sticky
 * error, the watchdog), and its closure is captured by value at the launch,
 * so an asynchronous CUB call needs no heap state of its own. */
#pragma once

#include <cuda_runtime.h>

namespace cudaemu {
namespace detail {
/* The kernel: the library's closure, run by the block's only thread. */
template <class F> void library_kernel(F f) { f(); }

/* Queues f on stream s; the launch's status (a queued kernel fails later). */
template <class F> cudaError_t launch_library_work(cudaStream_t s, const F &f)
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(1, 1, 1);
    cfg.blockDim = dim3(1, 1, 1);
    cfg.dynamicSmemBytes = 0;
    cfg.stream = s;
    return cudaLaunchKernelEx(&cfg, &library_kernel<F>, f);
}
} // namespace detail
} // namespace cudaemu
