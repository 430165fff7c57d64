/* emu/include/cuda.h - the CUDA driver API's types and its cheap calls, for
 * programs that include <cuda.h> for its types or query the device through it.
 *
 * Implemented on the emulated runtime: cuInit, cuDriverGetVersion,
 * cuDeviceGet, cuDeviceGetCount, cuDeviceGetName, cuDeviceTotalMem,
 * cuDeviceGetAttribute (the attributes cudaDeviceGetAttribute knows: the enum
 * values are the same), cuCtxGetCurrent (the device's primary context, a
 * handle that only compares), cuCtxGetDevice, cuCtxSynchronize, cuGetErrorName,
 * cuGetErrorString.  Every other driver call the toolkit's cuda.h declares
 * that programs commonly reach for (modules, cuLaunchKernel, driver-API
 * memory, contexts, streams, events, linking) stops the compile where it is
 * called with one line naming it: `cudaemu: cuModuleLoad (CUDA driver API) is
 * not emulated`.  CUresult values are CUDA's (the runtime's error codes share
 * them).  C++ linkage (inline namespace cudaemu_api), as the runtime.
 */
#ifndef CUDAEMU_CUDA_H
#define CUDAEMU_CUDA_H

#include "cuda_runtime.h"

#include <cstdint>
#include <cstdio>

#define CUDA_VERSION CUDART_VERSION
#define __CUDA_API_VERSION CUDA_VERSION

typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUlib_st *CUlibrary;
typedef struct CUkern_st *CUkernel;
typedef struct CUarray_st *CUarray;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;
typedef struct CUlinkState_st *CUlinkState;
typedef struct CUstream_st *CUstream;     /* the runtime's cudaStream_t */
typedef struct CUevent_st *CUevent;       /* the runtime's cudaEvent_t */
typedef unsigned long long CUtexObject;
typedef unsigned long long CUsurfObject;
typedef struct CUuuid_st CUuuid;
typedef cudaDeviceAttr CUdevice_attribute; /* same values */

typedef enum cudaError_enum : int {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_DEINITIALIZED = 4,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_DEVICE = 101,
    CUDA_ERROR_INVALID_CONTEXT = 201,
    CUDA_ERROR_INVALID_HANDLE = 400,
    CUDA_ERROR_NOT_FOUND = 500,
    CUDA_ERROR_NOT_READY = 600,
    CUDA_ERROR_ILLEGAL_ADDRESS = 700,
    CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
    CUDA_ERROR_LAUNCH_TIMEOUT = 702,
    CUDA_ERROR_ASSERT = 710,
    CUDA_ERROR_MISALIGNED_ADDRESS = 716,
    CUDA_ERROR_LAUNCH_FAILED = 719,
    CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE = 720,
    CUDA_ERROR_NOT_SUPPORTED = 801,
    CUDA_ERROR_UNKNOWN = 999
} CUresult;

/* the runtime's attribute names carry the driver's values */
#define CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK cudaDevAttrMaxThreadsPerBlock
#define CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT cudaDevAttrMultiProcessorCount
#define CU_DEVICE_ATTRIBUTE_WARP_SIZE cudaDevAttrWarpSize
#define CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK cudaDevAttrMaxSharedMemoryPerBlock
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR cudaDevAttrComputeCapabilityMajor
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR cudaDevAttrComputeCapabilityMinor
#define CU_DEVICE_ATTRIBUTE_CLOCK_RATE cudaDevAttrClockRate

inline namespace cudaemu_api {

namespace cudaemu_driver {
inline CUresult of(cudaError_t e) { return (CUresult)(int)e; } /* shared codes */
inline bool &initialized()
{
    static bool done = false;
    return done;
}
inline CUresult ready(bool need_init = true)
{
    return need_init && !initialized() ? CUDA_ERROR_NOT_INITIALIZED : CUDA_SUCCESS;
}
} // namespace cudaemu_driver

inline CUresult cuInit(unsigned int flags)
{
    if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
    int n = 0;
    if (cudaError_t e = cudaGetDeviceCount(&n)) return cudaemu_driver::of(e);
    cudaemu_driver::initialized() = true;
    return CUDA_SUCCESS;
}
inline CUresult cuDriverGetVersion(int *v)
{
    return v ? cudaemu_driver::of(cudaDriverGetVersion(v)) : CUDA_ERROR_INVALID_VALUE;
}
inline CUresult cuDeviceGetCount(int *count)
{
    if (CUresult r = cudaemu_driver::ready()) return r;
    return count ? cudaemu_driver::of(cudaGetDeviceCount(count)) : CUDA_ERROR_INVALID_VALUE;
}
inline CUresult cuDeviceGet(CUdevice *dev, int ordinal)
{
    if (CUresult r = cudaemu_driver::ready()) return r;
    int n = 0;
    if (!dev) return CUDA_ERROR_INVALID_VALUE;
    cudaGetDeviceCount(&n);
    if (ordinal < 0 || ordinal >= n) return CUDA_ERROR_INVALID_DEVICE;
    *dev = ordinal;
    return CUDA_SUCCESS;
}
inline CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
    if (CUresult r = cudaemu_driver::ready()) return r;
    cudaDeviceProp p;
    if (!name || len <= 0) return CUDA_ERROR_INVALID_VALUE;
    if (cudaGetDeviceProperties(&p, dev) != cudaSuccess) return CUDA_ERROR_INVALID_DEVICE;
    std::snprintf(name, (size_t)len, "%s", p.name);
    return CUDA_SUCCESS;
}
inline CUresult cuDeviceTotalMem(size_t *bytes, CUdevice dev)
{
    if (CUresult r = cudaemu_driver::ready()) return r;
    cudaDeviceProp p;
    if (!bytes) return CUDA_ERROR_INVALID_VALUE;
    if (cudaGetDeviceProperties(&p, dev) != cudaSuccess) return CUDA_ERROR_INVALID_DEVICE;
    *bytes = p.totalGlobalMem;
    return CUDA_SUCCESS;
}
inline CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice dev)
{
    if (CUresult r = cudaemu_driver::ready()) return r;
    return cudaemu_driver::of(cudaDeviceGetAttribute(v, a, dev));
}
/* the device's primary context: a handle that names the device and only compares */
inline CUresult cuCtxGetCurrent(CUcontext *ctx)
{
    if (CUresult r = cudaemu_driver::ready()) return r;
    int d = 0;
    if (!ctx) return CUDA_ERROR_INVALID_VALUE;
    cudaGetDevice(&d);
    *ctx = reinterpret_cast<CUcontext>(static_cast<std::uintptr_t>(0x1000 + d));
    return CUDA_SUCCESS;
}
inline CUresult cuCtxGetDevice(CUdevice *dev)
{
    if (CUresult r = cudaemu_driver::ready()) return r;
    return dev ? cudaemu_driver::of(cudaGetDevice(dev)) : CUDA_ERROR_INVALID_VALUE;
}
inline CUresult cuCtxSynchronize()
{
    if (CUresult r = cudaemu_driver::ready()) return r;
    return cudaemu_driver::of(cudaDeviceSynchronize());
}
inline CUresult cuGetErrorName(CUresult e, const char **s)
{
    if (!s) return CUDA_ERROR_INVALID_VALUE;
    switch (e) {
#define CUDAEMU_CU_NAME(x) case x: *s = #x; return CUDA_SUCCESS;
    CUDAEMU_CU_NAME(CUDA_SUCCESS) CUDAEMU_CU_NAME(CUDA_ERROR_INVALID_VALUE)
    CUDAEMU_CU_NAME(CUDA_ERROR_OUT_OF_MEMORY) CUDAEMU_CU_NAME(CUDA_ERROR_NOT_INITIALIZED)
    CUDAEMU_CU_NAME(CUDA_ERROR_DEINITIALIZED) CUDAEMU_CU_NAME(CUDA_ERROR_NO_DEVICE)
    CUDAEMU_CU_NAME(CUDA_ERROR_INVALID_DEVICE) CUDAEMU_CU_NAME(CUDA_ERROR_INVALID_CONTEXT)
    CUDAEMU_CU_NAME(CUDA_ERROR_INVALID_HANDLE) CUDAEMU_CU_NAME(CUDA_ERROR_NOT_FOUND)
    CUDAEMU_CU_NAME(CUDA_ERROR_NOT_READY) CUDAEMU_CU_NAME(CUDA_ERROR_ILLEGAL_ADDRESS)
    CUDAEMU_CU_NAME(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES) CUDAEMU_CU_NAME(CUDA_ERROR_LAUNCH_TIMEOUT)
    CUDAEMU_CU_NAME(CUDA_ERROR_ASSERT) CUDAEMU_CU_NAME(CUDA_ERROR_MISALIGNED_ADDRESS)
    CUDAEMU_CU_NAME(CUDA_ERROR_LAUNCH_FAILED) CUDAEMU_CU_NAME(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE)
    CUDAEMU_CU_NAME(CUDA_ERROR_NOT_SUPPORTED) CUDAEMU_CU_NAME(CUDA_ERROR_UNKNOWN)
#undef CUDAEMU_CU_NAME
    }
    *s = nullptr;
    return CUDA_ERROR_INVALID_VALUE;
}
/* the runtime's message for the same code (they share their values) */
inline CUresult cuGetErrorString(CUresult e, const char **s)
{
    const char *name = nullptr;
    if (!s) return CUDA_ERROR_INVALID_VALUE;
    if (cuGetErrorName(e, &name) != CUDA_SUCCESS) {
        *s = nullptr;
        return CUDA_ERROR_INVALID_VALUE;
    }
    *s = cudaGetErrorString((cudaError_t)(int)e);
    return CUDA_SUCCESS;
}

/* What is not emulated stops the compile where it is called, naming the call. */
template <class... A> struct cudaemu_driver_refused { static constexpr bool no = false; };
#define CUDAEMU_DRIVER_REFUSED(fn)                                                                 \
    template <class... A> CUresult fn(A...)                                                        \
    {                                                                                              \
        static_assert(cudaemu_driver_refused<A...>::no,                                            \
                      "cudaemu: " #fn " (CUDA driver API) is not emulated");                        \
        return CUDA_ERROR_NOT_SUPPORTED;                                                           \
    }
CUDAEMU_DRIVER_REFUSED(cuModuleLoad)
CUDAEMU_DRIVER_REFUSED(cuModuleLoadData)
CUDAEMU_DRIVER_REFUSED(cuModuleLoadDataEx)
CUDAEMU_DRIVER_REFUSED(cuModuleLoadFatBinary)
CUDAEMU_DRIVER_REFUSED(cuModuleUnload)
CUDAEMU_DRIVER_REFUSED(cuModuleGetFunction)
CUDAEMU_DRIVER_REFUSED(cuModuleGetGlobal)
CUDAEMU_DRIVER_REFUSED(cuLibraryLoadData)
CUDAEMU_DRIVER_REFUSED(cuLibraryLoadFromFile)
CUDAEMU_DRIVER_REFUSED(cuLibraryGetKernel)
CUDAEMU_DRIVER_REFUSED(cuLaunchKernel)
CUDAEMU_DRIVER_REFUSED(cuLaunchKernelEx)
CUDAEMU_DRIVER_REFUSED(cuLaunchCooperativeKernel)
CUDAEMU_DRIVER_REFUSED(cuFuncGetAttribute)
CUDAEMU_DRIVER_REFUSED(cuFuncSetAttribute)
CUDAEMU_DRIVER_REFUSED(cuLinkCreate)
CUDAEMU_DRIVER_REFUSED(cuLinkAddData)
CUDAEMU_DRIVER_REFUSED(cuLinkAddFile)
CUDAEMU_DRIVER_REFUSED(cuLinkComplete)
CUDAEMU_DRIVER_REFUSED(cuLinkDestroy)
CUDAEMU_DRIVER_REFUSED(cuCtxCreate)
CUDAEMU_DRIVER_REFUSED(cuCtxDestroy)
CUDAEMU_DRIVER_REFUSED(cuCtxSetCurrent)
CUDAEMU_DRIVER_REFUSED(cuCtxPushCurrent)
CUDAEMU_DRIVER_REFUSED(cuCtxPopCurrent)
CUDAEMU_DRIVER_REFUSED(cuDevicePrimaryCtxRetain)
CUDAEMU_DRIVER_REFUSED(cuDevicePrimaryCtxRelease)
CUDAEMU_DRIVER_REFUSED(cuMemAlloc)
CUDAEMU_DRIVER_REFUSED(cuMemFree)
CUDAEMU_DRIVER_REFUSED(cuMemAllocHost)
CUDAEMU_DRIVER_REFUSED(cuMemFreeHost)
CUDAEMU_DRIVER_REFUSED(cuMemAllocManaged)
CUDAEMU_DRIVER_REFUSED(cuMemcpy)
CUDAEMU_DRIVER_REFUSED(cuMemcpyHtoD)
CUDAEMU_DRIVER_REFUSED(cuMemcpyDtoH)
CUDAEMU_DRIVER_REFUSED(cuMemcpyDtoD)
CUDAEMU_DRIVER_REFUSED(cuMemcpyHtoDAsync)
CUDAEMU_DRIVER_REFUSED(cuMemcpyDtoHAsync)
CUDAEMU_DRIVER_REFUSED(cuMemsetD8)
CUDAEMU_DRIVER_REFUSED(cuMemsetD32)
CUDAEMU_DRIVER_REFUSED(cuMemGetInfo)
CUDAEMU_DRIVER_REFUSED(cuMemGetAddressRange)
CUDAEMU_DRIVER_REFUSED(cuPointerGetAttribute)
CUDAEMU_DRIVER_REFUSED(cuStreamCreate)
CUDAEMU_DRIVER_REFUSED(cuStreamDestroy)
CUDAEMU_DRIVER_REFUSED(cuStreamSynchronize)
CUDAEMU_DRIVER_REFUSED(cuEventCreate)
CUDAEMU_DRIVER_REFUSED(cuEventRecord)
CUDAEMU_DRIVER_REFUSED(cuEventSynchronize)
CUDAEMU_DRIVER_REFUSED(cuEventElapsedTime)
CUDAEMU_DRIVER_REFUSED(cuEventDestroy)
CUDAEMU_DRIVER_REFUSED(cuGetProcAddress)
#undef CUDAEMU_DRIVER_REFUSED

} // inline namespace cudaemu_api

#endif
