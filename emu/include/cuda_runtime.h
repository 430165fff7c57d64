/* emu/include/cuda_runtime.h - drop-in CUDA runtime header of the host emulator (emu/).
 *
 * Put emu/include first on the include path and compile an unchanged .cu file
 * with g++ -std=c++17 -x c++; link the static library `cudaemu`.  This header
 * declares the runtime subset the emulator implements (see emu/README.md),
 * with CUDA's type names, enum values and semantics, and brings in the kernel
 * language (cudaemu/device_functions.h) and the launch templates.
 *
 * Every API function is declared with C++ linkage inside the inline namespace
 * `cudaemu_api`, so its mangled symbol never clashes with libcudart's C symbols:
 * a program may contain the real and the emulated flavour in different
 * binaries of one build without any link-time ambiguity.
 */
#ifndef CUDAEMU_CUDA_RUNTIME_H
#define CUDAEMU_CUDA_RUNTIME_H

#ifndef __cplusplus
#error "the CUDA host emulator is C++: compile .cu files (and host files that include cuda_runtime.h) as C++17"
#endif
#ifndef __CUDAEMU__
#define __CUDAEMU__ 1
#endif

#include <cstddef>
#include <cstdint>
#include <memory>
#include <tuple>
#include <type_traits>
#include <utility>

/* The toolkit version whose API and values this header follows. */
#define CUDART_VERSION 13000
#define __CUDART_API_VERSION CUDART_VERSION
#if defined(__CUDACC__) && !defined(__CUDACC_VER_MAJOR__)
/* nvcc's version macros in a translated .cu (cudaemu-translate defines __CUDACC__) */
#define __CUDACC_VER_MAJOR__ (CUDART_VERSION / 1000)
#define __CUDACC_VER_MINOR__ (CUDART_VERSION % 1000 / 10)
#define __CUDACC_VER_BUILD__ 0
#endif
#define CUDAEMU_VERSION 100

/* The include guards of the toolkit headers whose contents this header
 * provides: code that tests them (cuda-samples' helper_cuda.h declares
 * checkCudaErrors and findCudaDevice only under __DRIVER_TYPES_H__ and
 * __CUDA_RUNTIME_H__) sees the runtime as with nvcc. */
#define __CUDA_RUNTIME_H__
#define __CUDA_RUNTIME_API_H__
#define __DRIVER_TYPES_H__
#define __DRIVER_FUNCTIONS_H__
#define __VECTOR_TYPES_H__
#define __VECTOR_FUNCTIONS_H__
#define __BUILTIN_TYPES_H__
#define __DEVICE_TYPES_H__
#define __HOST_DEFINES_H__
#define __DEVICE_LAUNCH_PARAMETERS_H__
#define __DEVICE_FUNCTIONS_H__
#define __MATH_FUNCTIONS_H__

#include "cudaemu/cuda_enums.h"
#include "cudaemu/vector_types.h"
#include "cudaemu/device_functions.h"
#include "cudaemu/ptx.h" /* what the translator makes of inline PTX */

/* ---- handles, flags, structures ----------------------------------------- */
enum cudaComputeMode : int {
    cudaComputeModeDefault = 0,
    cudaComputeModeExclusive = 1,
    cudaComputeModeProhibited = 2,
    cudaComputeModeExclusiveProcess = 3
};

typedef struct CUstream_st *cudaStream_t;
typedef struct CUevent_st *cudaEvent_t;
typedef void (*cudaHostFn_t)(void *userData);
#define CUDART_CB
typedef void (CUDART_CB *cudaStreamCallback_t)(cudaStream_t stream, cudaError_t status,
                                               void *userData);

#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)
/* the device runtime's per-grid streams (dynamic parallelism) */
#define cudaStreamTailLaunch ((cudaStream_t)0x3)
#define cudaStreamFireAndForget ((cudaStream_t)0x4)
#define cudaHostAllocDefault 0x00
#define cudaHostAllocPortable 0x01
#define cudaHostAllocMapped 0x02
#define cudaHostAllocWriteCombined 0x04
#define cudaHostRegisterDefault 0x00
#define cudaHostRegisterPortable 0x01
#define cudaHostRegisterMapped 0x02
#define cudaHostRegisterIoMemory 0x04
#define cudaHostRegisterReadOnly 0x08
#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02
#define cudaEventInterprocess 0x04
#define cudaEventRecordDefault 0x00
#define cudaEventWaitDefault 0x00
#define cudaMemAttachGlobal 0x01
#define cudaMemAttachHost 0x02
#define cudaMemAttachSingle 0x04
/* cudaSetDeviceFlags: at most one scheduling policy, plus the others */
#define cudaDeviceScheduleAuto 0x00
#define cudaDeviceScheduleSpin 0x01
#define cudaDeviceScheduleYield 0x02
#define cudaDeviceScheduleBlockingSync 0x04
#define cudaDeviceBlockingSync 0x04
#define cudaDeviceScheduleMask 0x07
#define cudaDeviceMapHost 0x08
#define cudaDeviceLmemResizeToMax 0x10
#define cudaDeviceSyncMemops 0x80
#define cudaDeviceMask 0xff

enum cudaMemcpyKind : int {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4
};

enum cudaMemoryType : int {
    cudaMemoryTypeUnregistered = 0,
    cudaMemoryTypeHost = 1,
    cudaMemoryTypeDevice = 2,
    cudaMemoryTypeManaged = 3
};

struct CUuuid_st { char bytes[16]; };
typedef struct CUuuid_st cudaUUID_t;

/* Field names and layout as in CUDA 13.0's driver_types.h. */
struct cudaDeviceProp
{
    char         name[256];
    cudaUUID_t   uuid;
    char         luid[8];
    unsigned int luidDeviceNodeMask;
    size_t       totalGlobalMem;
    size_t       sharedMemPerBlock;
    int          regsPerBlock;
    int          warpSize;
    size_t       memPitch;
    int          maxThreadsPerBlock;
    int          maxThreadsDim[3];
    int          maxGridSize[3];
    size_t       totalConstMem;
    int          major;
    int          minor;
    size_t       textureAlignment;
    size_t       texturePitchAlignment;
    int          multiProcessorCount;
    int          integrated;
    int          canMapHostMemory;
    int          maxTexture1D;
    int          maxTexture1DMipmap;
    int          maxTexture2D[2];
    int          maxTexture2DMipmap[2];
    int          maxTexture2DLinear[3];
    int          maxTexture2DGather[2];
    int          maxTexture3D[3];
    int          maxTexture3DAlt[3];
    int          maxTextureCubemap;
    int          maxTexture1DLayered[2];
    int          maxTexture2DLayered[3];
    int          maxTextureCubemapLayered[2];
    int          maxSurface1D;
    int          maxSurface2D[2];
    int          maxSurface3D[3];
    int          maxSurface1DLayered[2];
    int          maxSurface2DLayered[3];
    int          maxSurfaceCubemap;
    int          maxSurfaceCubemapLayered[2];
    size_t       surfaceAlignment;
    int          concurrentKernels;
    int          ECCEnabled;
    int          pciBusID;
    int          pciDeviceID;
    int          pciDomainID;
    int          tccDriver;
    int          asyncEngineCount;
    int          unifiedAddressing;
    int          memoryBusWidth;
    int          l2CacheSize;
    int          persistingL2CacheMaxSize;
    int          maxThreadsPerMultiProcessor;
    int          streamPrioritiesSupported;
    int          globalL1CacheSupported;
    int          localL1CacheSupported;
    size_t       sharedMemPerMultiprocessor;
    int          regsPerMultiprocessor;
    int          managedMemory;
    int          isMultiGpuBoard;
    int          multiGpuBoardGroupID;
    int          hostNativeAtomicSupported;
    int          pageableMemoryAccess;
    int          concurrentManagedAccess;
    int          computePreemptionSupported;
    int          canUseHostPointerForRegisteredMem;
    int          cooperativeLaunch;
    size_t       sharedMemPerBlockOptin;
    int          pageableMemoryAccessUsesHostPageTables;
    int          directManagedMemAccessFromHost;
    int          maxBlocksPerMultiProcessor;
    int          accessPolicyMaxWindowSize;
    size_t       reservedSharedMemPerBlock;
    int          hostRegisterSupported;
    int          sparseCudaArraySupported;
    int          hostRegisterReadOnlySupported;
    int          timelineSemaphoreInteropSupported;
    int          memoryPoolsSupported;
    int          gpuDirectRDMASupported;
    unsigned int gpuDirectRDMAFlushWritesOptions;
    int          gpuDirectRDMAWritesOrdering;
    unsigned int memoryPoolSupportedHandleTypes;
    int          deferredMappingCudaArraySupported;
    int          ipcEventSupported;
    int          clusterLaunch;
    int          unifiedFunctionPointers;
    int          deviceNumaConfig;
    int          deviceNumaId;
    int          mpsEnabled;
    int          hostNumaId;
    unsigned int gpuPciDeviceID;
    unsigned int gpuPciSubsystemID;
    int          hostNumaMultinodeIpcSupported;
    int          reserved[56];
};

struct cudaFuncAttributes
{
   size_t sharedSizeBytes;
   size_t constSizeBytes;
   size_t localSizeBytes;
   int maxThreadsPerBlock;
   int numRegs;
   int ptxVersion;
   int binaryVersion;
   int cacheModeCA;
   int maxDynamicSharedSizeBytes;
   int preferredShmemCarveout;
   int clusterDimMustBeSet;
   int requiredClusterWidth;
   int requiredClusterHeight;
   int requiredClusterDepth;
   int clusterSchedulingPolicyPreference;
   int nonPortableClusterSizeAllowed;
   int reserved[16];
};

struct cudaPointerAttributes
{
    enum cudaMemoryType type;
    int device;
    void *devicePointer;
    void *hostPointer;
    long reserved[8];
};


/* Launch attributes: the emulator accepts them and ignores all but
 * cudaLaunchAttributeCooperative (every block resident: grid_group::sync()
 * works; a grid too large to be resident gives
 * cudaErrorCooperativeLaunchTooLarge) and cudaLaunchAttributeClusterDimension,
 * which it refuses (cudaErrorNotSupported) as the emulated device lacks it. */
/* L2 persistence: an access policy window is a cache hint, accepted,
 * validated and returned by cudaStreamGetAttribute; it changes no result
 * (the emulator has no cache to keep lines in). */
enum cudaAccessProperty : int {
    cudaAccessPropertyNormal = 0,
    cudaAccessPropertyStreaming = 1,
    cudaAccessPropertyPersisting = 2
};
struct cudaAccessPolicyWindow {
    void *base_ptr;
    size_t num_bytes;
    float hitRatio;
    enum cudaAccessProperty hitProp;
    enum cudaAccessProperty missProp;
};
union cudaLaunchAttributeValue {
    char pad[64];
    struct cudaAccessPolicyWindow accessPolicyWindow;
    int cooperative;
    unsigned int priority;
    int programmaticStreamSerializationAllowed;
    unsigned char memSyncDomain;
    struct { unsigned int x, y, z; } clusterDim;
};
typedef struct cudaLaunchAttribute_st {
    cudaLaunchAttributeID id;
    char pad[8 - sizeof(cudaLaunchAttributeID)];
    cudaLaunchAttributeValue val;
} cudaLaunchAttribute;

/* stream attributes are launch attributes, as in the toolkit's driver_types.h */
#define cudaStreamAttrID cudaLaunchAttributeID
#define cudaStreamAttrValue cudaLaunchAttributeValue
#define cudaStreamAttributeAccessPolicyWindow cudaLaunchAttributeAccessPolicyWindow
#define cudaStreamAttributeSynchronizationPolicy cudaLaunchAttributeSynchronizationPolicy
#define cudaStreamAttributeMemSyncDomainMap cudaLaunchAttributeMemSyncDomainMap
#define cudaStreamAttributeMemSyncDomain cudaLaunchAttributeMemSyncDomain
#define cudaStreamAttributePriority cudaLaunchAttributePriority

/* peers (cudaDeviceGetP2PAttribute) */
enum cudaDeviceP2PAttr : int {
    cudaDevP2PAttrPerformanceRank = 1,
    cudaDevP2PAttrAccessSupported = 2,
    cudaDevP2PAttrNativeAtomicSupported = 3,
    cudaDevP2PAttrCudaArrayAccessSupported = 4,
    cudaDevP2PAttrOnlyPartialNativeAtomicSupported = 5
};

/* interprocess handles: the types, for the calls that refuse them */
#define CUDA_IPC_HANDLE_SIZE 64
#define cudaIpcMemLazyEnablePeerAccess 0x01
typedef struct cudaIpcEventHandle_st {
    char reserved[CUDA_IPC_HANDLE_SIZE];
} cudaIpcEventHandle_t;
typedef struct cudaIpcMemHandle_st {
    char reserved[CUDA_IPC_HANDLE_SIZE];
} cudaIpcMemHandle_t;

typedef struct cudaLaunchConfig_st {
    dim3 gridDim;
    dim3 blockDim;
    size_t dynamicSmemBytes;
    cudaStream_t stream;
    cudaLaunchAttribute *attrs;
    unsigned int numAttrs;
} cudaLaunchConfig_t;

/* ---- the runtime API ---------------------------------------------------- */
inline namespace cudaemu_api {
/* errors */
cudaError_t cudaGetLastError();
cudaError_t cudaPeekAtLastError();
const char *cudaGetErrorName(cudaError_t error);
const char *cudaGetErrorString(cudaError_t error);

/* versions and devices */
cudaError_t cudaDriverGetVersion(int *driverVersion);
cudaError_t cudaRuntimeGetVersion(int *runtimeVersion);
cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int device);
cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int device);
cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority);
cudaError_t cudaDeviceSynchronize();
cudaError_t cudaDeviceReset();
cudaError_t cudaMemGetInfo(size_t *free, size_t *total);
/* Validated and kept per device; cudaGetDeviceFlags adds cudaDeviceMapHost
 * (implicit in the runtime API).  Bad flags: cudaErrorInvalidValue. */
cudaError_t cudaSetDeviceFlags(unsigned int flags);
cudaError_t cudaGetDeviceFlags(unsigned int *flags);

/* peer access: bookkeeping with the runtime's errors (all memory is host
 * memory, so every device reaches every other's anyway) */
cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice);
cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags);
cudaError_t cudaDeviceDisablePeerAccess(int peerDevice);
/* a pair of different emulated devices: access 1, native atomics 1, arrays
 * 1, rank 0, partial atomics 0; a device and itself or a missing one:
 * cudaErrorInvalidDevice, as CUDA */
cudaError_t cudaDeviceGetP2PAttribute(int *value, cudaDeviceP2PAttr attr, int srcDevice,
                                      int dstDevice);
/* Interprocess memory and events are not emulated (each process has its own
 * host memory): each call prints one cudaemu line naming itself and returns
 * cudaErrorNotSupported (cudaDevAttrIpcEventSupport is 0). */
cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *handle, void *devPtr);
cudaError_t cudaIpcOpenMemHandle(void **devPtr, cudaIpcMemHandle_t handle, unsigned int flags);
cudaError_t cudaIpcCloseMemHandle(void *devPtr);
cudaError_t cudaIpcGetEventHandle(cudaIpcEventHandle_t *handle, cudaEvent_t event);
cudaError_t cudaIpcOpenEventHandle(cudaEvent_t *event, cudaIpcEventHandle_t handle);

/* memory */
cudaError_t cudaMalloc(void **devPtr, size_t size);
cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height);
/* Managed memory is host memory like the rest (flags cudaMemAttachGlobal or
 * cudaMemAttachHost): kernels and, after synchronizing, host code use it. */
cudaError_t cudaMallocManaged(void **devPtr, size_t size,
                              unsigned int flags = cudaMemAttachGlobal);
cudaError_t cudaFree(void *devPtr);
cudaError_t cudaMallocHost(void **ptr, size_t size);
cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags);
cudaError_t cudaFreeHost(void *ptr);
cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags);
cudaError_t cudaHostUnregister(void *ptr);
cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags);
cudaError_t cudaPointerGetAttributes(cudaPointerAttributes *attributes, const void *ptr);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, cudaMemcpyKind kind,
                            cudaStream_t stream = 0);
cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch,
                         size_t width, size_t height, cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                              size_t width, size_t height, cudaMemcpyKind kind,
                              cudaStream_t stream = 0);
cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice,
                           size_t count);
cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice,
                                size_t count, cudaStream_t stream = 0);
cudaError_t cudaMemset(void *devPtr, int value, size_t count);
cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream = 0);
cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height);
cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width,
                              size_t height, cudaStream_t stream = 0);

/* streams and events */
cudaError_t cudaStreamCreate(cudaStream_t *pStream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags);
cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int priority);
cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags);
cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int *priority);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamQuery(cudaStream_t stream);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags = 0);
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData);
/* Stream attributes (access policy window, synchronization policy, priority,
 * memory sync domain): validated and kept; Get returns what Set stored (a
 * zero value, or the stream's priority, before any Set).  Hints only: no
 * result changes.  cudaCtxResetPersistingL2Cache: cudaSuccess, nothing to reset. */
cudaError_t cudaStreamSetAttribute(cudaStream_t stream, cudaStreamAttrID attr,
                                   const cudaStreamAttrValue *value);
cudaError_t cudaStreamGetAttribute(cudaStream_t stream, cudaStreamAttrID attr,
                                   cudaStreamAttrValue *value_out);
cudaError_t cudaCtxResetPersistingL2Cache();
/* managed memory only, whole allocations (length 0 or its size); ordered on
 * the stream, where it does nothing: every stream may touch managed memory */
cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr, size_t length = 0,
                                     unsigned int flags = cudaMemAttachSingle);
/* Stream-ordered like cudaLaunchHostFunc, but it also runs after a failure
 * and is told: status is cudaSuccess or the device's sticky error; flags must be 0. */
cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback,
                                  void *userData, unsigned int flags);
cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
/* the C++ overload of the toolkit's cuda_runtime.h (simpleIPC) */
inline cudaError_t cudaEventCreate(cudaEvent_t *event, unsigned int flags)
{
    return cudaEventCreateWithFlags(event, flags);
}
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream = 0);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventQuery(cudaEvent_t event);
/* Host time (ms) between the moments the two records executed on the host,
 * never GPU time: emulated timings mean nothing. */
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaEventDestroy(cudaEvent_t event);

/* functions: the C forms take the kernel's address */
cudaError_t cudaFuncSetAttribute(const void *func, cudaFuncAttribute attr, int value);
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *attr, const void *func);
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func,
                                                          int blockSize, size_t dynamicSMemSize);
} // inline namespace cudaemu_api

#include "cudaemu/mempool.h" /* cudaMallocAsync, memory pools, device limits */

/* Managed memory hints (managed_hints.cpp). Every byte is host memory here, so a
 * prefetch moves nothing and advice changes no result: both check what CUDA
 * checks (a range inside one cudaMallocManaged allocation, a valid location,
 * flags 0, the stream) and return its errors; a prefetch is ordered on its
 * stream like any work. CUDA 13's forms take a cudaMemLocation; the forms
 * before it (a device number, cudaCpuDeviceId for the host), which the
 * tutorials use, are accepted too.  Both are recorded page by page, and
 * cudaMemRangeGetAttribute(s) read them back as CUDA documents. */
#define cudaCpuDeviceId ((int)-1)
#define cudaInvalidDeviceId ((int)-2)
enum cudaMemoryAdvise : int {
    cudaMemAdviseSetReadMostly = 1,
    cudaMemAdviseUnsetReadMostly = 2,
    cudaMemAdviseSetPreferredLocation = 3,
    cudaMemAdviseUnsetPreferredLocation = 4,
    cudaMemAdviseSetAccessedBy = 5,
    cudaMemAdviseUnsetAccessedBy = 6
};
enum cudaMemRangeAttribute : int {
    cudaMemRangeAttributeReadMostly = 1,
    cudaMemRangeAttributePreferredLocation = 2,
    cudaMemRangeAttributeAccessedBy = 3,
    cudaMemRangeAttributeLastPrefetchLocation = 4,
    cudaMemRangeAttributePreferredLocationType = 5,
    cudaMemRangeAttributePreferredLocationId = 6,
    cudaMemRangeAttributeLastPrefetchLocationType = 7,
    cudaMemRangeAttributeLastPrefetchLocationId = 8
};
inline namespace cudaemu_api {
cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, struct cudaMemLocation location,
                                 unsigned int flags, cudaStream_t stream = 0);
cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, int dstDevice,
                                 cudaStream_t stream = 0);
cudaError_t cudaMemAdvise(const void *devPtr, size_t count, enum cudaMemoryAdvise advice,
                          struct cudaMemLocation location);
cudaError_t cudaMemAdvise(const void *devPtr, size_t count, enum cudaMemoryAdvise advice,
                          int device);
cudaError_t cudaMemRangeGetAttribute(void *data, size_t dataSize,
                                     enum cudaMemRangeAttribute attribute, const void *devPtr,
                                     size_t count);
cudaError_t cudaMemRangeGetAttributes(void **data, size_t *dataSizes,
                                      enum cudaMemRangeAttribute *attributes,
                                      size_t numAttributes, const void *devPtr, size_t count);
} // inline namespace cudaemu_api
#include "cudaemu/texture.h" /* arrays, texture and surface objects */

namespace cudaemu {
namespace detail {
/* Type-erased kernel call: the arguments, converted to the kernel's parameter
 * types, are captured by value at launch; run() calls the kernel once for the
 * CUDA thread the scheduler has made current. */
struct KernelCall {
    virtual ~KernelCall() = default;
    virtual void run() = 0;
};
template <typename... P> struct KernelCallT final : KernelCall {
    void (*fn)(P...);
    std::tuple<typename std::decay<P>::type...> args;
    template <typename... A>
    explicit KernelCallT(void (*f)(P...), A &&...a) : fn(f), args(std::forward<A>(a)...) {}
    void run() override { std::apply(fn, args); }
};
cudaError_t launch(const cudaLaunchConfig_t *config, const void *func,
                   std::unique_ptr<KernelCall> call);
cudaError_t memcpy_symbol(void *sym, size_t symSize, const void *src, size_t count,
                          size_t offset, cudaMemcpyKind kind, bool to_symbol,
                          bool async, cudaStream_t stream);
/* Enters a __device__/__constant__ variable in the allocation table as device
 * memory of the current device, so its address works in copies and cuBLAS. */
cudaError_t register_symbol(void *sym, size_t size);
} // namespace detail
} // namespace cudaemu

inline namespace cudaemu_api {
/* CUDA 12+'s typed extensible launch: our single launch idiom. */
template <typename... ExpTypes, typename... ActTypes>
inline cudaError_t cudaLaunchKernelEx(const cudaLaunchConfig_t *config,
                                      void (*kernel)(ExpTypes...), ActTypes &&...args)
{
    return [&](ExpTypes... coercedArgs) {
        return ::cudaemu::detail::launch(
            config, reinterpret_cast<const void *>(kernel),
            std::unique_ptr<::cudaemu::detail::KernelCall>(
                new ::cudaemu::detail::KernelCallT<ExpTypes...>(kernel, coercedArgs...)));
    }(std::forward<ActTypes>(args)...);
}

} // inline namespace cudaemu_api

namespace cudaemu {
namespace detail {
/* kernel<<<g, b, s, st>>>(args...) as emu/tools/cudaemu_translate.cpp rewrites
 * it: kernel | chevron(g, b, s, st) | [&](auto &&l) { l(args...); }.  The
 * first | binds the kernel (its parameter types P...) to the configuration;
 * the second hands that binding to the lambda, whose call `l(args...)` is an
 * ordinary call of operator()(P...): the arguments convert to the kernel's
 * parameter types exactly as in a call of the kernel (NULL or 0 for a
 * pointer, an int for a float, a derived-class pointer for a base one), as
 * nvcc's <<<>>> does.  cudaLaunchKernelEx then captures them by value, queues
 * the launch on `st` and records a failure as the last error; like <<<>>>
 * the expression is void (check with cudaGetLastError()). */
struct Chevron {
    cudaLaunchConfig_t cfg;
};
inline Chevron chevron(dim3 grid, dim3 block, size_t smem = 0, cudaStream_t stream = 0)
{
    return Chevron{cudaLaunchConfig_t{grid, block, smem, stream, nullptr, 0}};
}
template <typename... P> struct BoundLaunch {
    void (*kernel)(P...);
    cudaLaunchConfig_t cfg;
    void operator()(P... args) const { (void)cudaLaunchKernelEx(&cfg, kernel, args...); }
};
template <typename... P>
inline BoundLaunch<P...> operator|(void (*kernel)(P...), const Chevron &c)
{
    return BoundLaunch<P...>{kernel, c.cfg};
}
template <typename... P, typename Args>
inline void operator|(const BoundLaunch<P...> &launch, Args &&args)
{
    std::forward<Args>(args)(launch);
}
template <typename... P, std::size_t... I>
inline cudaError_t launch_from_array(const cudaLaunchConfig_t *cfg, void (*kernel)(P...),
                                     void **args, std::index_sequence<I...>)
{
    return cudaLaunchKernelEx(cfg, kernel,
                              *static_cast<typename std::decay<P>::type *>(args[I])...);
}
} // namespace detail
} // namespace cudaemu

inline namespace cudaemu_api {
/* cudaLaunchKernel with the kernel's type known: args[i] points at parameter i. */
template <typename... ExpTypes>
inline cudaError_t cudaLaunchKernel(void (*kernel)(ExpTypes...), dim3 gridDim, dim3 blockDim,
                                    void **args, size_t sharedMem = 0, cudaStream_t stream = 0)
{
    cudaLaunchConfig_t cfg{gridDim, blockDim, sharedMem, stream, nullptr, 0};
    if (sizeof...(ExpTypes) > 0 && args == nullptr)
        return cudaErrorInvalidValue;
    return ::cudaemu::detail::launch_from_array(&cfg, kernel, args,
                                                std::index_sequence_for<ExpTypes...>{});
}

/* cudaLaunchCooperativeKernel with the kernel's type known (the translator
 * drops a `(void *)` cast on its first argument): every block of the grid is
 * resident at once, so cooperative_groups' grid_group::sync() works. */
template <typename... ExpTypes>
inline cudaError_t cudaLaunchCooperativeKernel(void (*kernel)(ExpTypes...), dim3 gridDim,
                                               dim3 blockDim, void **args, size_t sharedMem = 0,
                                               cudaStream_t stream = 0)
{
    cudaLaunchAttribute attr;
    std::memset(&attr, 0, sizeof attr);
    attr.id = cudaLaunchAttributeCooperative;
    attr.val.cooperative = 1;
    cudaLaunchConfig_t cfg{gridDim, blockDim, sharedMem, stream, &attr, 1};
    if (sizeof...(ExpTypes) > 0 && args == nullptr)
        return cudaErrorInvalidValue;
    return ::cudaemu::detail::launch_from_array(&cfg, kernel, args,
                                                std::index_sequence_for<ExpTypes...>{});
}

template <class T>
inline cudaError_t cudaFuncSetAttribute(T *entry, cudaFuncAttribute attr, int value)
{ return cudaFuncSetAttribute(reinterpret_cast<const void *>(entry), attr, value); }
template <class T>
inline cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *attr, T *entry)
{ return cudaFuncGetAttributes(attr, reinterpret_cast<const void *>(entry)); }
template <class T>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, T func,
                                                                 int blockSize,
                                                                 size_t dynamicSMemSize)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        numBlocks, reinterpret_cast<const void *>(func), blockSize, dynamicSMemSize);
}
template <class T>
inline cudaError_t cudaMallocHost(T **ptr, size_t size)
{ return cudaMallocHost(reinterpret_cast<void **>(ptr), size); }
template <class T>
inline cudaError_t cudaMalloc(T **devPtr, size_t size)
{ return cudaMalloc(reinterpret_cast<void **>(devPtr), size); }
template <class T>
inline cudaError_t cudaHostAlloc(T **ptr, size_t size, unsigned int flags)
{ return cudaHostAlloc(reinterpret_cast<void **>(ptr), size, flags); }
template <class T>
inline cudaError_t cudaMallocPitch(T **devPtr, size_t *pitch, size_t width, size_t height)
{ return cudaMallocPitch(reinterpret_cast<void **>(devPtr), pitch, width, height); }
template <class T>
inline cudaError_t cudaMallocManaged(T **devPtr, size_t size,
                                     unsigned int flags = cudaMemAttachGlobal)
{ return cudaMallocManaged(reinterpret_cast<void **>(devPtr), size, flags); }
template <class T>
inline cudaError_t cudaHostGetDevicePointer(T **pDevice, void *pHost, unsigned int flags)
{ return cudaHostGetDevicePointer(reinterpret_cast<void **>(pDevice), pHost, flags); }

/* CUDA's occupancy-based block size (as its header computes it): the block
 * size, a multiple of the warp size up to blockSizeLimit (0: the device's
 * and the kernel's limit), with the most resident threads per SM
 * (cudaOccupancyMaxActiveBlocksPerMultiprocessor), the largest on a tie;
 * *minGridSize = those blocks per SM times the SM count. */
template <typename UnaryFunction, class T>
inline cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMem(
    int *minGridSize, int *blockSize, T func, UnaryFunction blockSizeToDynamicSMemSize,
    int blockSizeLimit = 0)
{
    if (!minGridSize || !blockSize || !func) return cudaErrorInvalidValue;
    int dev = 0, max_threads = 0, sms = 0, warp = 0, sm_threads = 0;
    cudaError_t e;
    if ((e = cudaGetDevice(&dev)) != cudaSuccess) return e;
    if ((e = cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerBlock, dev)) ||
        (e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) ||
        (e = cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, dev)) ||
        (e = cudaDeviceGetAttribute(&sm_threads, cudaDevAttrMaxThreadsPerMultiProcessor, dev)))
        return e;
    cudaFuncAttributes attr;
    if ((e = cudaFuncGetAttributes(&attr, func)) != cudaSuccess) return e;
    int limit = max_threads < attr.maxThreadsPerBlock ? max_threads : attr.maxThreadsPerBlock;
    if (blockSizeLimit > 0 && blockSizeLimit < limit) limit = blockSizeLimit;
    int best = 0, best_blocks = 0, best_threads = 0;
    for (int aligned = (limit + warp - 1) / warp * warp; aligned > 0; aligned -= warp) {
        const int bs = limit < aligned ? limit : aligned;
        int blocks = 0;
        if ((e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                 &blocks, func, bs, size_t(blockSizeToDynamicSMemSize(bs)))) != cudaSuccess)
            return e;
        if (blocks * bs > best_threads) {
            best = bs;
            best_blocks = blocks;
            best_threads = blocks * bs;
        }
        if (best_threads == sm_threads) break;
    }
    *blockSize = best;
    *minGridSize = best_blocks * sms;
    return cudaSuccess;
}
template <class T>
inline cudaError_t cudaOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, T func,
                                                      size_t dynamicSMemSize = 0,
                                                      int blockSizeLimit = 0)
{
    return cudaOccupancyMaxPotentialBlockSizeVariableSMem(
        minGridSize, blockSize, func, [dynamicSMemSize](int) { return dynamicSMemSize; },
        blockSizeLimit);
}


/* __constant__ / __device__ variables are ordinary globals under the emulator. */
template <class T>
inline cudaError_t cudaMemcpyToSymbol(const T &symbol, const void *src, size_t count,
                                      size_t offset = 0,
                                      cudaMemcpyKind kind = cudaMemcpyHostToDevice)
{
    return ::cudaemu::detail::memcpy_symbol(const_cast<T *>(&symbol), sizeof(T), src, count,
                                            offset, kind, true, false, 0);
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t count,
                                        size_t offset = 0,
                                        cudaMemcpyKind kind = cudaMemcpyDeviceToHost)
{
    return ::cudaemu::detail::memcpy_symbol(const_cast<T *>(&symbol), sizeof(T), dst, count,
                                            offset, kind, false, false, 0);
}
template <class T>
inline cudaError_t cudaMemcpyToSymbolAsync(const T &symbol, const void *src, size_t count,
                                           size_t offset = 0,
                                           cudaMemcpyKind kind = cudaMemcpyHostToDevice,
                                           cudaStream_t stream = 0)
{
    return ::cudaemu::detail::memcpy_symbol(const_cast<T *>(&symbol), sizeof(T), src, count,
                                            offset, kind, true, true, stream);
}
template <class T>
inline cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const T &symbol, size_t count,
                                             size_t offset = 0,
                                             cudaMemcpyKind kind = cudaMemcpyDeviceToHost,
                                             cudaStream_t stream = 0)
{
    return ::cudaemu::detail::memcpy_symbol(const_cast<T *>(&symbol), sizeof(T), dst, count,
                                            offset, kind, false, true, stream);
}
/* The variable's own address, entered in the allocation table as device memory. */
template <class T>
inline cudaError_t cudaGetSymbolAddress(void **devPtr, const T &symbol)
{
    if (!devPtr) return cudaErrorInvalidValue;
    cudaError_t e = ::cudaemu::detail::register_symbol(const_cast<T *>(&symbol), sizeof(T));
    *devPtr = e == cudaSuccess ? const_cast<T *>(&symbol) : nullptr;
    return e;
}
template <class T>
inline cudaError_t cudaGetSymbolSize(size_t *size, const T &symbol)
{
    (void)symbol;
    if (!size) return cudaErrorInvalidValue;
    *size = sizeof(T);
    return cudaSuccess;
}
} // inline namespace cudaemu_api
#include "cudaemu/runtime_more.h" /* cache/bank configs, PCI ids, stream ids, ... */

/* graphs and stream capture (after the launch templates their kernel nodes use) */
#include "cudaemu/graph.h"

/* How the program was built, said by every unit that includes this header
 * (emu/README.md, "Races and uninitialised memory"): nvcc-emu defines
 * CUDAEMU_USER_BUILD (fresh device memory is zero, as GPUs give in practice;
 * racecheck and initcheck reports are warnings); CUDAEMU_SANITIZE names the
 * checks ("racecheck", "initcheck" or both, comma-separated) of a unit
 * compiled with -fsanitize=thread, whose accesses src/sanitize.cpp sees. */
#if defined(CUDAEMU_SANITIZE) && !defined(__SANITIZE_THREAD__)
#error "CUDAEMU_SANITIZE (racecheck, initcheck) needs the unit compiled with -fsanitize=thread (nvcc-emu --sanitize=...)"
#endif
#if defined(CUDAEMU_USER_BUILD) || defined(CUDAEMU_SANITIZE)
#ifdef CUDAEMU_USER_BUILD
#define CUDAEMU_BUILD_USER_ 1
#else
#define CUDAEMU_BUILD_USER_ 0
#endif
#ifdef CUDAEMU_SANITIZE
#define CUDAEMU_BUILD_SANITIZE_ CUDAEMU_SANITIZE
#else
#define CUDAEMU_BUILD_SANITIZE_ nullptr
#endif
namespace cudaemu {
namespace detail {
void note_build(int user_build, const char *sanitize);
[[maybe_unused]] static const int build_noted_ = (note_build(CUDAEMU_BUILD_USER_, CUDAEMU_BUILD_SANITIZE_), 0);
} // namespace detail
} // namespace cudaemu
#endif

#endif
