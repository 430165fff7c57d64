/* emu/src/device.cpp - what the emulated device says about itself:
 * cudaGetDeviceProperties, cudaDeviceGetAttribute and the stream priority
 * range.  The limits are those of an sm_90 part (1024 threads per block,
 * 48 KiB static / 227 KiB opt-in shared memory, 132 SMs, ...) so that code
 * sizing its launches from them behaves as on a GPU; the name says plainly
 * that this is an emulator, not a GPU.
 */
#include "internal.h"

#include <cstdio>
#include <cstring>

namespace cudaemu {
namespace {

void fill(cudaDeviceProp &p, int d)
{
    std::memset(&p, 0, sizeof p);
    std::snprintf(p.name, sizeof p.name, "CUDA host emulator (emulated, not a GPU)");
    std::memcpy(p.uuid.bytes, "cudaemu-device", 14);
    const int phys = config().physical[size_t(d)]; /* CUDA_VISIBLE_DEVICES renumbers */
    p.uuid.bytes[15] = char(phys);
    p.totalGlobalMem = config().mem_bytes;
    p.sharedMemPerBlock = kSmemPerBlock;
    p.regsPerBlock = 65536;
    p.warpSize = 32;
    p.memPitch = 2147483647;
    p.maxThreadsPerBlock = kMaxThreads;
    p.maxThreadsDim[0] = 1024;
    p.maxThreadsDim[1] = 1024;
    p.maxThreadsDim[2] = 64;
    p.maxGridSize[0] = 2147483647;
    p.maxGridSize[1] = 65535;
    p.maxGridSize[2] = 65535;
    p.totalConstMem = 65536;
    p.major = 9;
    p.minor = 0;
    p.multiProcessorCount = kSmCount;
    p.integrated = 0;
    p.canMapHostMemory = 1;
    p.concurrentKernels = 1;
    p.ECCEnabled = 0;
    p.pciBusID = 1 + phys;
    p.pciDeviceID = 0;
    p.pciDomainID = 0;
    p.asyncEngineCount = 2;
    p.unifiedAddressing = 1;
    p.memoryBusWidth = 5120;
    p.l2CacheSize = 50 * 1024 * 1024;
    p.persistingL2CacheMaxSize = 0;
    p.accessPolicyMaxWindowSize = 134213632; /* an sm_90 part's; windows are hints (stream_attrs.cpp) */
    p.maxThreadsPerMultiProcessor = 2048;
    p.streamPrioritiesSupported = 1;
    p.globalL1CacheSupported = 1;
    p.localL1CacheSupported = 1;
    p.sharedMemPerMultiprocessor = kSmemPerSM;
    p.regsPerMultiprocessor = 65536;
    p.managedMemory = 1; /* host memory, see cudaMallocManaged */
    p.isMultiGpuBoard = 0;
    p.computePreemptionSupported = 1;
    p.cooperativeLaunch = 1; /* scheduler_coop.h */
    p.sharedMemPerBlockOptin = kSmemOptin;
    p.maxBlocksPerMultiProcessor = 32;
    p.reservedSharedMemPerBlock = 1024;
    p.hostRegisterSupported = 1;
    p.memoryPoolsSupported = 1; /* cudaMallocAsync and pools (mempool.cpp) */
    p.clusterLaunch = 0;
    p.deviceNumaId = -1;
    p.hostNumaId = -1;
    texture_limits(p);
}

} // namespace
} // namespace cudaemu

using namespace cudaemu;

inline namespace cudaemu_api {

cudaError_t cudaGetDeviceProperties(cudaDeviceProp *prop, int device)
{
    if (!prop) return ret(cudaErrorInvalidValue);
    if (config().ndev == 0) return ret(cudaErrorNoDevice);
    if (device < 0 || device >= config().ndev) return ret(cudaErrorInvalidDevice);
    fill(*prop, device);
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *value, cudaDeviceAttr attr, int device)
{
    if (!value) return ret(cudaErrorInvalidValue);
    if (config().ndev == 0) return ret(cudaErrorNoDevice);
    if (device < 0 || device >= config().ndev) return ret(cudaErrorInvalidDevice);
    cudaDeviceProp p;
    fill(p, device);
    int v;
    switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: v = p.maxThreadsPerBlock; break;
    case cudaDevAttrMaxBlockDimX: v = p.maxThreadsDim[0]; break;
    case cudaDevAttrMaxBlockDimY: v = p.maxThreadsDim[1]; break;
    case cudaDevAttrMaxBlockDimZ: v = p.maxThreadsDim[2]; break;
    case cudaDevAttrMaxGridDimX: v = p.maxGridSize[0]; break;
    case cudaDevAttrMaxGridDimY: v = p.maxGridSize[1]; break;
    case cudaDevAttrMaxGridDimZ: v = p.maxGridSize[2]; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: v = int(p.sharedMemPerBlock); break;
    case cudaDevAttrTotalConstantMemory: v = int(p.totalConstMem); break;
    case cudaDevAttrWarpSize: v = p.warpSize; break;
    case cudaDevAttrMaxPitch: v = int(p.memPitch); break;
    case cudaDevAttrMaxRegistersPerBlock: v = p.regsPerBlock; break;
    case cudaDevAttrClockRate: v = kClockKHz; break;        /* kHz: the rate clock64() ticks at */
    case cudaDevAttrMemoryClockRate: v = 2619000; break;    /* kHz */
    case cudaDevAttrMultiProcessorCount: v = p.multiProcessorCount; break;
    case cudaDevAttrKernelExecTimeout: v = 0; break;
    case cudaDevAttrIntegrated: v = p.integrated; break;
    case cudaDevAttrCanMapHostMemory: v = p.canMapHostMemory; break;
    case cudaDevAttrComputeMode: v = 0; break;
    case cudaDevAttrConcurrentKernels: v = p.concurrentKernels; break;
    case cudaDevAttrEccEnabled: v = p.ECCEnabled; break;
    case cudaDevAttrPciBusId: v = p.pciBusID; break;
    case cudaDevAttrPciDeviceId: v = p.pciDeviceID; break;
    case cudaDevAttrPciDomainId: v = p.pciDomainID; break;
    case cudaDevAttrGlobalMemoryBusWidth: v = p.memoryBusWidth; break;
    case cudaDevAttrL2CacheSize: v = p.l2CacheSize; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: v = p.maxThreadsPerMultiProcessor; break;
    case cudaDevAttrAsyncEngineCount: v = p.asyncEngineCount; break;
    case cudaDevAttrUnifiedAddressing: v = p.unifiedAddressing; break;
    case cudaDevAttrComputeCapabilityMajor: v = p.major; break;
    case cudaDevAttrComputeCapabilityMinor: v = p.minor; break;
    case cudaDevAttrStreamPrioritiesSupported: v = p.streamPrioritiesSupported; break;
    case cudaDevAttrGlobalL1CacheSupported: v = p.globalL1CacheSupported; break;
    case cudaDevAttrLocalL1CacheSupported: v = p.localL1CacheSupported; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: v = int(p.sharedMemPerMultiprocessor); break;
    case cudaDevAttrMaxRegistersPerMultiprocessor: v = p.regsPerMultiprocessor; break;
    case cudaDevAttrManagedMemory: v = p.managedMemory; break;
    case cudaDevAttrIsMultiGpuBoard: v = p.isMultiGpuBoard; break;
    case cudaDevAttrComputePreemptionSupported: v = p.computePreemptionSupported; break;
    case cudaDevAttrCooperativeLaunch: v = p.cooperativeLaunch; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: v = int(p.sharedMemPerBlockOptin); break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: v = p.maxBlocksPerMultiProcessor; break;
    case cudaDevAttrReservedSharedMemoryPerBlock: v = int(p.reservedSharedMemPerBlock); break;
    case cudaDevAttrHostRegisterSupported: v = p.hostRegisterSupported; break;
    case cudaDevAttrMemoryPoolsSupported: v = p.memoryPoolsSupported; break;
    case cudaDevAttrClusterLaunch: v = p.clusterLaunch; break;
    default:
        if (!device_attribute_ext(attr, p, &v)) return ret(cudaErrorInvalidValue);
    }
    *value = v;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
    if (config().ndev == 0) return ret(cudaErrorNoDevice);
    if (leastPriority) *leastPriority = 0;
    if (greatestPriority) *greatestPriority = -5;
    return cudaSuccess;
}

} // inline namespace cudaemu_api
