/* emu/include/cudaemu/library_kernel.h - runs the work of a Thrust algorithm
 * or a CUB device-wide call as a one-thread kernel on a stream of the CUDA
 * host emulator (emu/README.md, "Thrust and CUB").
 *
 * A kernel is where device memory may be touched (under AddressSanitizer the
 * emulator keeps device blocks poisoned outside stream work), it is ordered
 * on its stream after earlier work, and it fails as a kernel fails (the
 * sticky error, the watchdog). */
#pragma once

#include <cuda_runtime.h>

namespace cudaemu {
namespace detail {
inline cudaLaunchConfig_t library_config(cudaStream_t s)
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(1, 1, 1);
    cfg.blockDim = dim3(1, 1, 1);
    cfg.dynamicSmemBytes = 0;
    cfg.stream = s;
    return cfg;
}

/* Queues f, captured by value at the launch (so an asynchronous CUB call
 * needs no state of its own), on stream s; the launch's status. */
template <class F> void library_kernel(F f) { f(); }
template <class F> cudaError_t launch_library_work(cudaStream_t s, const F &f)
{
    const cudaLaunchConfig_t cfg = library_config(s);
    return cudaLaunchKernelEx(&cfg, &library_kernel<F>, f);
}

/* The same for a closure at *f that outlives the kernel (the caller
 * synchronizes before it returns): one kernel for every closure type, so a
 * call site instantiates a trampoline, not the launch machinery (Thrust's
 * algorithms, each call its own lambda: thrust_basics.cu at -O1 took 4.99 s
 * of CPU to compile with a launch per closure type, 4.25 s so). */
struct library_call {
    void (*fn)(void *);
    void *closure;
};
inline void library_kernel_at(library_call c) { c.fn(c.closure); }
template <class F> cudaError_t launch_library_work_at(cudaStream_t s, F *f)
{
    library_call c;
    c.fn = [](void *p) { (*static_cast<F *>(p))(); };
    c.closure = f;
    const cudaLaunchConfig_t cfg = library_config(s);
    return cudaLaunchKernelEx(&cfg, &library_kernel_at, c);
}
} // namespace detail
} // namespace cudaemu
