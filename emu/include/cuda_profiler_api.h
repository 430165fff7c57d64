/* emu/include/cuda_profiler_api.h - the profiler control calls of the CUDA
 * runtime for the host emulator: there is no profiler to start or stop, so
 * both succeed and do nothing (as they do on a GPU with no profiler attached).
 * C++ linkage in the inline namespace cudaemu_api, as every emulated call. */
#ifndef CUDAEMU_CUDA_PROFILER_API_H
#define CUDAEMU_CUDA_PROFILER_API_H
#define __CUDA_PROFILER_API_H__

#include "cuda_runtime.h"

inline namespace cudaemu_api {
inline cudaError_t cudaProfilerStart(void) { return cudaSuccess; }
inline cudaError_t cudaProfilerStop(void) { return cudaSuccess; }
} // namespace cudaemu_api

#endif
