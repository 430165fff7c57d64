/* emu/include/cuda.h - the CUDA driver API's types and its cheap calls, for
 * programs that include <cuda.h> for its types or query the device through it.
 *
 * Implemented on the emulated runtime: cuInit, cuDriverGetVersion,
 * cuDeviceGet, cuDeviceGetCount, cuDeviceGetName, cuDeviceTotalMem,
 * cuDeviceGetAttribute (the attributes cudaDeviceGetAttribute knows: the enum
 * values are the same; the driver-only capabilities, reserved numbers in the
 * runtime's enum, are 0), cuCtxGetCurrent (the device's primary context, a
 * handle that only compares), cuCtxGetDevice, cuCtxSynchronize, cuGetErrorName,
 * cuGetErrorString, cuDeviceCanAccessPeer.  Every other driver call the toolkit's cuda.h declares
 * that programs commonly reach for (modules, cuLaunchKernel, driver-API
 * memory, contexts, streams, events, linking) stops the compile where it is
 * called with one line naming it: `cudaemu: cuModuleLoad (CUDA driver API) is
 * not emulated`.  CUresult values are CUDA's (the runtime's error codes share
 * them).  C++ linkage (inline namespace cudaemu_api), as the runtime.
 */
#ifndef CUDAEMU_CUDA_H
#define CUDAEMU_CUDA_H
/* the toolkit's guard: helper_cuda_drvapi.h and others key on it */
#define __cuda_cuda_h__

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
typedef unsigned long long CUmemGenericAllocationHandle;

/* CUresult: every code of CUDA 13.0's cuda.h (the runtime's share the values) */
#define CUDAEMU_CU_RESULTS(X) \
    X(CUDA_SUCCESS, 0) \
    X(CUDA_ERROR_INVALID_VALUE, 1) \
    X(CUDA_ERROR_OUT_OF_MEMORY, 2) \
    X(CUDA_ERROR_NOT_INITIALIZED, 3) \
    X(CUDA_ERROR_DEINITIALIZED, 4) \
    X(CUDA_ERROR_PROFILER_DISABLED, 5) \
    X(CUDA_ERROR_PROFILER_NOT_INITIALIZED, 6) \
    X(CUDA_ERROR_PROFILER_ALREADY_STARTED, 7) \
    X(CUDA_ERROR_PROFILER_ALREADY_STOPPED, 8) \
    X(CUDA_ERROR_STUB_LIBRARY, 34) \
    X(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER, 36) \
    X(CUDA_ERROR_DEVICE_UNAVAILABLE, 46) \
    X(CUDA_ERROR_NO_DEVICE, 100) \
    X(CUDA_ERROR_INVALID_DEVICE, 101) \
    X(CUDA_ERROR_DEVICE_NOT_LICENSED, 102) \
    X(CUDA_ERROR_INVALID_IMAGE, 200) \
    X(CUDA_ERROR_INVALID_CONTEXT, 201) \
    X(CUDA_ERROR_CONTEXT_ALREADY_CURRENT, 202) \
    X(CUDA_ERROR_MAP_FAILED, 205) \
    X(CUDA_ERROR_UNMAP_FAILED, 206) \
    X(CUDA_ERROR_ARRAY_IS_MAPPED, 207) \
    X(CUDA_ERROR_ALREADY_MAPPED, 208) \
    X(CUDA_ERROR_NO_BINARY_FOR_GPU, 209) \
    X(CUDA_ERROR_ALREADY_ACQUIRED, 210) \
    X(CUDA_ERROR_NOT_MAPPED, 211) \
    X(CUDA_ERROR_NOT_MAPPED_AS_ARRAY, 212) \
    X(CUDA_ERROR_NOT_MAPPED_AS_POINTER, 213) \
    X(CUDA_ERROR_ECC_UNCORRECTABLE, 214) \
    X(CUDA_ERROR_UNSUPPORTED_LIMIT, 215) \
    X(CUDA_ERROR_CONTEXT_ALREADY_IN_USE, 216) \
    X(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, 217) \
    X(CUDA_ERROR_INVALID_PTX, 218) \
    X(CUDA_ERROR_INVALID_GRAPHICS_CONTEXT, 219) \
    X(CUDA_ERROR_NVLINK_UNCORRECTABLE, 220) \
    X(CUDA_ERROR_JIT_COMPILER_NOT_FOUND, 221) \
    X(CUDA_ERROR_UNSUPPORTED_PTX_VERSION, 222) \
    X(CUDA_ERROR_JIT_COMPILATION_DISABLED, 223) \
    X(CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY, 224) \
    X(CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC, 225) \
    X(CUDA_ERROR_CONTAINED, 226) \
    X(CUDA_ERROR_INVALID_SOURCE, 300) \
    X(CUDA_ERROR_FILE_NOT_FOUND, 301) \
    X(CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND, 302) \
    X(CUDA_ERROR_SHARED_OBJECT_INIT_FAILED, 303) \
    X(CUDA_ERROR_OPERATING_SYSTEM, 304) \
    X(CUDA_ERROR_INVALID_HANDLE, 400) \
    X(CUDA_ERROR_ILLEGAL_STATE, 401) \
    X(CUDA_ERROR_LOSSY_QUERY, 402) \
    X(CUDA_ERROR_NOT_FOUND, 500) \
    X(CUDA_ERROR_NOT_READY, 600) \
    X(CUDA_ERROR_ILLEGAL_ADDRESS, 700) \
    X(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, 701) \
    X(CUDA_ERROR_LAUNCH_TIMEOUT, 702) \
    X(CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING, 703) \
    X(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, 704) \
    X(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED, 705) \
    X(CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE, 708) \
    X(CUDA_ERROR_CONTEXT_IS_DESTROYED, 709) \
    X(CUDA_ERROR_ASSERT, 710) \
    X(CUDA_ERROR_TOO_MANY_PEERS, 711) \
    X(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, 712) \
    X(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, 713) \
    X(CUDA_ERROR_HARDWARE_STACK_ERROR, 714) \
    X(CUDA_ERROR_ILLEGAL_INSTRUCTION, 715) \
    X(CUDA_ERROR_MISALIGNED_ADDRESS, 716) \
    X(CUDA_ERROR_INVALID_ADDRESS_SPACE, 717) \
    X(CUDA_ERROR_INVALID_PC, 718) \
    X(CUDA_ERROR_LAUNCH_FAILED, 719) \
    X(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, 720) \
    X(CUDA_ERROR_TENSOR_MEMORY_LEAK, 721) \
    X(CUDA_ERROR_NOT_PERMITTED, 800) \
    X(CUDA_ERROR_NOT_SUPPORTED, 801) \
    X(CUDA_ERROR_SYSTEM_NOT_READY, 802) \
    X(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH, 803) \
    X(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE, 804) \
    X(CUDA_ERROR_MPS_CONNECTION_FAILED, 805) \
    X(CUDA_ERROR_MPS_RPC_FAILURE, 806) \
    X(CUDA_ERROR_MPS_SERVER_NOT_READY, 807) \
    X(CUDA_ERROR_MPS_MAX_CLIENTS_REACHED, 808) \
    X(CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED, 809) \
    X(CUDA_ERROR_MPS_CLIENT_TERMINATED, 810) \
    X(CUDA_ERROR_CDP_NOT_SUPPORTED, 811) \
    X(CUDA_ERROR_CDP_VERSION_MISMATCH, 812) \
    X(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, 900) \
    X(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, 901) \
    X(CUDA_ERROR_STREAM_CAPTURE_MERGE, 902) \
    X(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED, 903) \
    X(CUDA_ERROR_STREAM_CAPTURE_UNJOINED, 904) \
    X(CUDA_ERROR_STREAM_CAPTURE_ISOLATION, 905) \
    X(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT, 906) \
    X(CUDA_ERROR_CAPTURED_EVENT, 907) \
    X(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD, 908) \
    X(CUDA_ERROR_TIMEOUT, 909) \
    X(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE, 910) \
    X(CUDA_ERROR_EXTERNAL_DEVICE, 911) \
    X(CUDA_ERROR_INVALID_CLUSTER_SIZE, 912) \
    X(CUDA_ERROR_FUNCTION_NOT_LOADED, 913) \
    X(CUDA_ERROR_INVALID_RESOURCE_TYPE, 914) \
    X(CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION, 915) \
    X(CUDA_ERROR_KEY_ROTATION, 916) \
    X(CUDA_ERROR_UNKNOWN, 999)
typedef enum cudaError_enum : int {
#define CUDAEMU_CU_ENUM(name, value) name = value,
    CUDAEMU_CU_RESULTS(CUDAEMU_CU_ENUM)
#undef CUDAEMU_CU_ENUM
} CUresult;

/* CUdevice_attribute: the toolkit's names; the values are cudaDeviceAttr's */
typedef enum CUdevice_attribute_enum : int {
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y = 3,
    CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z = 4, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8, CU_DEVICE_ATTRIBUTE_SHARED_MEMORY_PER_BLOCK = 8,
    CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY = 9, CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10, CU_DEVICE_ATTRIBUTE_MAX_PITCH = 11,
    CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK = 12, CU_DEVICE_ATTRIBUTE_REGISTERS_PER_BLOCK = 12, CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13,
    CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT = 14, CU_DEVICE_ATTRIBUTE_GPU_OVERLAP = 15, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
    CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT = 17, CU_DEVICE_ATTRIBUTE_INTEGRATED = 18, CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY = 19,
    CU_DEVICE_ATTRIBUTE_COMPUTE_MODE = 20, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH = 21, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH = 22,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT = 23, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH = 24, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT = 25,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH = 26, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH = 27, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT = 28,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS = 29, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_ARRAY_WIDTH = 27, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_ARRAY_HEIGHT = 28,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_ARRAY_NUMSLICES = 29, CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT = 30, CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS = 31,
    CU_DEVICE_ATTRIBUTE_ECC_ENABLED = 32, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID = 33, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID = 34,
    CU_DEVICE_ATTRIBUTE_TCC_DRIVER = 35, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = 36, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH = 37,
    CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39, CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT = 40,
    CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING = 41, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH = 42, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS = 43,
    CU_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER = 44, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_WIDTH = 45, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_HEIGHT = 46,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE = 47, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE = 48, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE = 49,
    CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID = 50, CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT = 51, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_WIDTH = 52,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH = 53, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS = 54, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH = 55,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH = 56, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT = 57, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH = 58,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT = 59, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH = 60, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_WIDTH = 61,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_LAYERS = 62, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_WIDTH = 63, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_HEIGHT = 64,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS = 65, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_WIDTH = 66, CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH = 67,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS = 68, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH = 69, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH = 70,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT = 71, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH = 72, CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH = 73,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT = 74, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
    CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH = 77, CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED = 78, CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED = 79,
    CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED = 80, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR = 81, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR = 82,
    CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY = 83, CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD = 84, CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID = 85,
    CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED = 86, CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO = 87, CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS = 88,
    CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS = 89, CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED = 90, CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM = 91,
    CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1 = 92, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS_V1 = 93, CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR_V1 = 94,
    CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH = 95, CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH = 96, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
    CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES = 98, CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED = 99, CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES = 100,
    CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST = 101, CU_DEVICE_ATTRIBUTE_VIRTUAL_ADDRESS_MANAGEMENT_SUPPORTED = 102, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 102,
    CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED = 103, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_HANDLE_SUPPORTED = 104, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED = 105,
    CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR = 106, CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED = 107, CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE = 108,
    CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE = 109, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED = 110, CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK = 111,
    CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED = 112, CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED = 113, CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED = 114,
    CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED = 115, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED = 116, CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS = 117,
    CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING = 118, CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES = 119, CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH = 120,
    CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED = 121, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS = 122, CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR = 123,
    CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED = 124, CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED = 125, CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT = 126,
    CU_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED = 127, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED = 128, CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS = 129,
    CU_DEVICE_ATTRIBUTE_NUMA_CONFIG = 130, CU_DEVICE_ATTRIBUTE_NUMA_ID = 131, CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED = 132,
    CU_DEVICE_ATTRIBUTE_MPS_ENABLED = 133, CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID = 134, CU_DEVICE_ATTRIBUTE_D3D12_CIG_SUPPORTED = 135,
    CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_ALGORITHM_MASK = 136, CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_MAXIMUM_LENGTH = 137, CU_DEVICE_ATTRIBUTE_VULKAN_CIG_SUPPORTED = 138,
    CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID = 139, CU_DEVICE_ATTRIBUTE_GPU_PCI_SUBSYSTEM_ID = 140, CU_DEVICE_ATTRIBUTE_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 141,
    CU_DEVICE_ATTRIBUTE_HOST_NUMA_MEMORY_POOLS_SUPPORTED = 142, CU_DEVICE_ATTRIBUTE_HOST_NUMA_MULTINODE_IPC_SUPPORTED = 143, CU_DEVICE_ATTRIBUTE_HOST_MEMORY_POOLS_SUPPORTED = 144,
    CU_DEVICE_ATTRIBUTE_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 145, CU_DEVICE_ATTRIBUTE_HOST_ALLOC_DMA_BUF_SUPPORTED = 146, CU_DEVICE_ATTRIBUTE_ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED = 147,
} CUdevice_attribute;

/* cuLaunchKernel's `extra` markers (the launch itself is refused below) */
#define CU_LAUNCH_PARAM_END_AS_INT 0x00
#define CU_LAUNCH_PARAM_END ((void *)CU_LAUNCH_PARAM_END_AS_INT)
#define CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT 0x01
#define CU_LAUNCH_PARAM_BUFFER_POINTER ((void *)CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT)
#define CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT 0x02
#define CU_LAUNCH_PARAM_BUFFER_SIZE ((void *)CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT)

/* Arrays, 2-D copies and texture objects of the driver API: the types, so a
 * program using them meets the refusal of cuArrayCreate, cuMemcpy2D,
 * cuTexObjectCreate by name below (the runtime's arrays and textures are
 * emulated: see emu/README.md, Textures and surfaces). */
typedef struct CUmipmappedArray_st *CUmipmappedArray;
typedef enum CUarray_format_enum : int {
    CU_AD_FORMAT_UNSIGNED_INT8 = 0x01, CU_AD_FORMAT_UNSIGNED_INT16 = 0x02,
    CU_AD_FORMAT_UNSIGNED_INT32 = 0x03, CU_AD_FORMAT_SIGNED_INT8 = 0x08,
    CU_AD_FORMAT_SIGNED_INT16 = 0x09, CU_AD_FORMAT_SIGNED_INT32 = 0x0a,
    CU_AD_FORMAT_HALF = 0x10, CU_AD_FORMAT_FLOAT = 0x20
} CUarray_format;
typedef enum CUmemorytype_enum : int {
    CU_MEMORYTYPE_HOST = 1, CU_MEMORYTYPE_DEVICE = 2, CU_MEMORYTYPE_ARRAY = 3,
    CU_MEMORYTYPE_UNIFIED = 4
} CUmemorytype;
typedef enum CUaddress_mode_enum : int {
    CU_TR_ADDRESS_MODE_WRAP = 0, CU_TR_ADDRESS_MODE_CLAMP = 1, CU_TR_ADDRESS_MODE_MIRROR = 2,
    CU_TR_ADDRESS_MODE_BORDER = 3
} CUaddress_mode;
typedef enum CUfilter_mode_enum : int {
    CU_TR_FILTER_MODE_POINT = 0, CU_TR_FILTER_MODE_LINEAR = 1
} CUfilter_mode;
typedef enum CUresourcetype_enum : int {
    CU_RESOURCE_TYPE_ARRAY = 0, CU_RESOURCE_TYPE_MIPMAPPED_ARRAY = 1, CU_RESOURCE_TYPE_LINEAR = 2,
    CU_RESOURCE_TYPE_PITCH2D = 3
} CUresourcetype;
#define CU_TRSF_READ_AS_INTEGER 0x01
#define CU_TRSF_NORMALIZED_COORDINATES 0x02
typedef struct CUDA_ARRAY_DESCRIPTOR_st {
    size_t Width;
    size_t Height;
    CUarray_format Format;
    unsigned int NumChannels;
} CUDA_ARRAY_DESCRIPTOR;
typedef struct CUDA_MEMCPY2D_st {
    size_t srcXInBytes, srcY;
    CUmemorytype srcMemoryType;
    const void *srcHost;
    CUdeviceptr srcDevice;
    CUarray srcArray;
    size_t srcPitch;
    size_t dstXInBytes, dstY;
    CUmemorytype dstMemoryType;
    void *dstHost;
    CUdeviceptr dstDevice;
    CUarray dstArray;
    size_t dstPitch;
    size_t WidthInBytes;
    size_t Height;
} CUDA_MEMCPY2D;
typedef struct CUDA_RESOURCE_DESC_st {
    CUresourcetype resType;
    union {
        struct { CUarray hArray; } array;
        struct { CUmipmappedArray hMipmappedArray; } mipmap;
        struct {
            CUdeviceptr devPtr;
            CUarray_format format;
            unsigned int numChannels;
            size_t sizeInBytes;
        } linear;
        struct {
            CUdeviceptr devPtr;
            CUarray_format format;
            unsigned int numChannels;
            size_t width, height, pitchInBytes;
        } pitch2D;
        struct { int reserved[32]; } reserved;
    } res;
    unsigned int flags;
} CUDA_RESOURCE_DESC;
typedef struct CUDA_TEXTURE_DESC_st {
    CUaddress_mode addressMode[3];
    CUfilter_mode filterMode;
    unsigned int flags;
    unsigned int maxAnisotropy;
    CUfilter_mode mipmapFilterMode;
    float mipmapLevelBias, minMipmapLevelClamp, maxMipmapLevelClamp;
    float borderColor[4];
    int reserved[12];
} CUDA_TEXTURE_DESC;

/* cuModuleLoadDataEx's and cuLinkCreate's options (both calls are refused) */
typedef enum CUjit_option_enum : int {
    CU_JIT_MAX_REGISTERS = 0,
    CU_JIT_THREADS_PER_BLOCK = 1,
    CU_JIT_WALL_TIME = 2,
    CU_JIT_INFO_LOG_BUFFER = 3,
    CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
    CU_JIT_ERROR_LOG_BUFFER = 5,
    CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
    CU_JIT_OPTIMIZATION_LEVEL = 7,
    CU_JIT_TARGET_FROM_CUCONTEXT = 8,
    CU_JIT_TARGET = 9,
    CU_JIT_FALLBACK_STRATEGY = 10,
    CU_JIT_GENERATE_DEBUG_INFO = 11,
    CU_JIT_LOG_VERBOSE = 12,
    CU_JIT_GENERATE_LINE_INFO = 13,
    CU_JIT_CACHE_MODE = 14,
} CUjit_option;

typedef enum CUjitInputType_enum : int {
    CU_JIT_INPUT_CUBIN = 0, CU_JIT_INPUT_PTX = 1, CU_JIT_INPUT_FATBINARY = 2,
    CU_JIT_INPUT_OBJECT = 3, CU_JIT_INPUT_LIBRARY = 4, CU_JIT_INPUT_NVVM = 5
} CUjitInputType;
/* the driver's stream and event flags (the runtime's values) */
typedef enum CUstream_flags_enum : int { CU_STREAM_DEFAULT = 0, CU_STREAM_NON_BLOCKING = 1 } CUstream_flags;
typedef enum CUevent_flags_enum : int {
    CU_EVENT_DEFAULT = 0, CU_EVENT_BLOCKING_SYNC = 1, CU_EVENT_DISABLE_TIMING = 2,
    CU_EVENT_INTERPROCESS = 4
} CUevent_flags;

typedef enum CUcomputemode_enum : int {
    CU_COMPUTEMODE_DEFAULT = 0, CU_COMPUTEMODE_PROHIBITED = 2, CU_COMPUTEMODE_EXCLUSIVE_PROCESS = 3
} CUcomputemode;

/* CUDA 12.5+'s cuCtxCreate (cuCtxCreate_v4) takes these; contexts are refused below */
typedef struct CUexecAffinityParam_st CUexecAffinityParam;
typedef struct CUctxCigParam_st CUctxCigParam;
typedef struct CUctxCreateParams_st {
    CUexecAffinityParam *execAffinityParams;
    int numExecAffinityParams;
    CUctxCigParam *cigParams;
} CUctxCreateParams;

/* Virtual memory management (cuMemCreate, cuMemMap, ...): the types, so a
 * program using them meets the refusal of the call by name below. */
typedef enum CUmemAllocationType_enum : int {
    CU_MEM_ALLOCATION_TYPE_INVALID = 0, CU_MEM_ALLOCATION_TYPE_PINNED = 1
} CUmemAllocationType;
typedef enum CUmemAllocationHandleType_enum : int {
    CU_MEM_HANDLE_TYPE_NONE = 0, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR = 1,
    CU_MEM_HANDLE_TYPE_WIN32 = 2, CU_MEM_HANDLE_TYPE_WIN32_KMT = 4, CU_MEM_HANDLE_TYPE_FABRIC = 8
} CUmemAllocationHandleType;
typedef enum CUmemLocationType_enum : int {
    CU_MEM_LOCATION_TYPE_INVALID = 0, CU_MEM_LOCATION_TYPE_DEVICE = 1, CU_MEM_LOCATION_TYPE_HOST = 2,
    CU_MEM_LOCATION_TYPE_HOST_NUMA = 3, CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT = 4
} CUmemLocationType;
typedef enum CUmemAccess_flags_enum : int {
    CU_MEM_ACCESS_FLAGS_PROT_NONE = 0, CU_MEM_ACCESS_FLAGS_PROT_READ = 1,
    CU_MEM_ACCESS_FLAGS_PROT_READWRITE = 3
} CUmemAccess_flags;
typedef enum CUmemAllocationGranularity_flags_enum : int {
    CU_MEM_ALLOC_GRANULARITY_MINIMUM = 0, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED = 1
} CUmemAllocationGranularity_flags;
#define CU_MEM_ALLOCATION_COMP_NONE 0x0
#define CU_MEM_ALLOCATION_COMP_GENERIC 0x1
typedef struct CUmemLocation_st {
    CUmemLocationType type;
    int id;
} CUmemLocation;
typedef struct CUmemAllocationProp_st {
    CUmemAllocationType type;
    CUmemAllocationHandleType requestedHandleTypes;
    CUmemLocation location;
    void *win32HandleMetaData;
    struct {
        unsigned char compressionType;
        unsigned char gpuDirectRDMACapable;
        unsigned short usage;
        unsigned char reserved[4];
    } allocFlags;
} CUmemAllocationProp;
typedef struct CUmemAccessDesc_st {
    CUmemLocation location;
    CUmemAccess_flags flags;
} CUmemAccessDesc;

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
    switch (a) {
    /* the driver's own capabilities (reserved numbers in the runtime's
     * cudaDeviceAttr): the emulator has none of them */
    case CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1:
    case CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS_V1:
    case CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR_V1:
    case CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH:
    case CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS:
    case CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR:
    case CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS:
    case CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED: {
        int warp = 0; /* the device must exist */
        if (cudaError_t e = cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, dev))
            return cudaemu_driver::of(e);
        if (!v) return CUDA_ERROR_INVALID_VALUE;
        *v = 0;
        return CUDA_SUCCESS;
    }
    default:
        return cudaemu_driver::of(cudaDeviceGetAttribute(v, (cudaDeviceAttr)(int)a, dev));
    }
}
inline CUresult cuDeviceCanAccessPeer(int *can, CUdevice dev, CUdevice peer)
{
    if (CUresult r = cudaemu_driver::ready()) return r;
    return can ? cudaemu_driver::of(cudaDeviceCanAccessPeer(can, dev, peer))
               : CUDA_ERROR_INVALID_VALUE;
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
#define CUDAEMU_CU_NAME(name, value) case name: *s = #name; return CUDA_SUCCESS;
    CUDAEMU_CU_RESULTS(CUDAEMU_CU_NAME)
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
CUDAEMU_DRIVER_REFUSED(cuCtxCreate_v4)
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
CUDAEMU_DRIVER_REFUSED(cuMemCreate)
CUDAEMU_DRIVER_REFUSED(cuMemRelease)
CUDAEMU_DRIVER_REFUSED(cuMemMap)
CUDAEMU_DRIVER_REFUSED(cuMemUnmap)
CUDAEMU_DRIVER_REFUSED(cuMemSetAccess)
CUDAEMU_DRIVER_REFUSED(cuMemAddressReserve)
CUDAEMU_DRIVER_REFUSED(cuMemAddressFree)
CUDAEMU_DRIVER_REFUSED(cuMemGetAllocationGranularity)
CUDAEMU_DRIVER_REFUSED(cuMemGetAllocationPropertiesFromHandle)
CUDAEMU_DRIVER_REFUSED(cuMemRetainAllocationHandle)
CUDAEMU_DRIVER_REFUSED(cuMemExportToShareableHandle)
CUDAEMU_DRIVER_REFUSED(cuMemImportFromShareableHandle)
CUDAEMU_DRIVER_REFUSED(cuMemcpy2D)
CUDAEMU_DRIVER_REFUSED(cuArrayCreate)
CUDAEMU_DRIVER_REFUSED(cuArrayDestroy)
CUDAEMU_DRIVER_REFUSED(cuTexObjectCreate)
CUDAEMU_DRIVER_REFUSED(cuTexObjectDestroy)
CUDAEMU_DRIVER_REFUSED(cuOccupancyMaxPotentialBlockSize)
CUDAEMU_DRIVER_REFUSED(cuOccupancyMaxActiveBlocksPerMultiprocessor)
CUDAEMU_DRIVER_REFUSED(cuCtxEnablePeerAccess)
CUDAEMU_DRIVER_REFUSED(cuCtxDisablePeerAccess)
#undef CUDAEMU_DRIVER_REFUSED

} // inline namespace cudaemu_api

#endif
