/* emu/src/device_ext.cpp - the device calls cuda-samples make beyond the
 * basics of device.cpp: device flags (cudaSetDeviceFlags/cudaGetDeviceFlags),
 * peer access between the emulated devices and the attributes of
 * cudaDeviceGetAttribute that device.cpp's switch leaves to us.
 *
 * Device flags are validated and remembered per device as the runtime does;
 * the emulator has nothing to schedule differently (one host thread runs
 * everything), and host memory is always mapped (cudaDeviceMapHost is
 * implicit, so cudaGetDeviceFlags reports it, as CUDA documents).  Peer
 * access is bookkeeping with the runtime's errors: every device sees every
 * other's memory anyway (it is all host memory); cudaDeviceGetP2PAttribute
 * answers from that.  The interprocess calls (cudaIpc*) are refused with one
 * cudaemu line and cudaErrorNotSupported.
 */
#include "texture_internal.h" /* kMaxTex1DLinear; includes internal.h */

namespace cudaemu {
namespace {

bool valid_device(int d) { return d >= 0 && d < config().ndev; }

} // namespace

void reset_peers(int d)
{
    dev(d).peers = 0;
    for (int i = 0; i < config().ndev; ++i) dev(i).peers &= ~(uint64_t(1) << d);
}

bool device_attribute_ext(cudaDeviceAttr attr, const cudaDeviceProp &p, int *v)
{
    switch (attr) {
    /* one engine can copy while a kernel runs (asyncEngineCount > 0) */
    case cudaDevAttrGpuOverlap: *v = p.asyncEngineCount > 0; return true;
    case cudaDevAttrTextureAlignment: *v = int(p.textureAlignment); return true;
    case cudaDevAttrTexturePitchAlignment: *v = int(p.texturePitchAlignment); return true;
    case cudaDevAttrSurfaceAlignment: *v = int(p.surfaceAlignment); return true;
    /* the limits of cudaDeviceProp (arrays.cpp's texture_limits: 0 for the
     * layered, cubemap, mipmapped and gather textures not emulated) */
    case cudaDevAttrMaxTexture1DWidth: *v = p.maxTexture1D; return true;
    case cudaDevAttrMaxTexture2DWidth: *v = p.maxTexture2D[0]; return true;
    case cudaDevAttrMaxTexture2DHeight: *v = p.maxTexture2D[1]; return true;
    case cudaDevAttrMaxTexture3DWidth: *v = p.maxTexture3D[0]; return true;
    case cudaDevAttrMaxTexture3DHeight: *v = p.maxTexture3D[1]; return true;
    case cudaDevAttrMaxTexture3DDepth: *v = p.maxTexture3D[2]; return true;
    case cudaDevAttrMaxTexture2DLayeredWidth: *v = p.maxTexture2DLayered[0]; return true;
    case cudaDevAttrMaxTexture2DLayeredHeight: *v = p.maxTexture2DLayered[1]; return true;
    case cudaDevAttrMaxTexture2DLayeredLayers: *v = p.maxTexture2DLayered[2]; return true;
    case cudaDevAttrMaxTexture1DLayeredWidth: *v = p.maxTexture1DLayered[0]; return true;
    case cudaDevAttrMaxTexture1DLayeredLayers: *v = p.maxTexture1DLayered[1]; return true;
    case cudaDevAttrMaxTexture2DGatherWidth: *v = p.maxTexture2DGather[0]; return true;
    case cudaDevAttrMaxTexture2DGatherHeight: *v = p.maxTexture2DGather[1]; return true;
    case cudaDevAttrMaxTexture3DWidthAlt: *v = p.maxTexture3DAlt[0]; return true;
    case cudaDevAttrMaxTexture3DHeightAlt: *v = p.maxTexture3DAlt[1]; return true;
    case cudaDevAttrMaxTexture3DDepthAlt: *v = p.maxTexture3DAlt[2]; return true;
    case cudaDevAttrMaxTextureCubemapWidth: *v = p.maxTextureCubemap; return true;
    case cudaDevAttrMaxTextureCubemapLayeredWidth: *v = p.maxTextureCubemapLayered[0]; return true;
    case cudaDevAttrMaxTextureCubemapLayeredLayers: *v = p.maxTextureCubemapLayered[1]; return true;
    case cudaDevAttrMaxSurface1DWidth: *v = p.maxSurface1D; return true;
    case cudaDevAttrMaxSurface2DWidth: *v = p.maxSurface2D[0]; return true;
    case cudaDevAttrMaxSurface2DHeight: *v = p.maxSurface2D[1]; return true;
    case cudaDevAttrMaxSurface3DWidth: *v = p.maxSurface3D[0]; return true;
    case cudaDevAttrMaxSurface3DHeight: *v = p.maxSurface3D[1]; return true;
    case cudaDevAttrMaxSurface3DDepth: *v = p.maxSurface3D[2]; return true;
    case cudaDevAttrMaxSurface1DLayeredWidth: *v = p.maxSurface1DLayered[0]; return true;
    case cudaDevAttrMaxSurface1DLayeredLayers: *v = p.maxSurface1DLayered[1]; return true;
    case cudaDevAttrMaxSurface2DLayeredWidth: *v = p.maxSurface2DLayered[0]; return true;
    case cudaDevAttrMaxSurface2DLayeredHeight: *v = p.maxSurface2DLayered[1]; return true;
    case cudaDevAttrMaxSurface2DLayeredLayers: *v = p.maxSurface2DLayered[2]; return true;
    case cudaDevAttrMaxSurfaceCubemapWidth: *v = p.maxSurfaceCubemap; return true;
    case cudaDevAttrMaxSurfaceCubemapLayeredWidth: *v = p.maxSurfaceCubemapLayered[0]; return true;
    case cudaDevAttrMaxSurfaceCubemapLayeredLayers: *v = p.maxSurfaceCubemapLayered[1]; return true;
    case cudaDevAttrMaxTexture1DLinearWidth: *v = kMaxTex1DLinear; return true;
    case cudaDevAttrMaxTexture2DLinearWidth: *v = p.maxTexture2DLinear[0]; return true;
    case cudaDevAttrMaxTexture2DLinearHeight: *v = p.maxTexture2DLinear[1]; return true;
    case cudaDevAttrMaxTexture2DLinearPitch: *v = p.maxTexture2DLinear[2]; return true;
    case cudaDevAttrMaxTexture2DMipmappedWidth: *v = p.maxTexture2DMipmap[0]; return true;
    case cudaDevAttrMaxTexture2DMipmappedHeight: *v = p.maxTexture2DMipmap[1]; return true;
    case cudaDevAttrMaxTexture1DMipmappedWidth: *v = p.maxTexture1DMipmap; return true;
    case cudaDevAttrTccDriver: *v = p.tccDriver; return true;
    case cudaDevAttrMultiGpuBoardGroupID: *v = p.multiGpuBoardGroupID; return true;
    case cudaDevAttrHostNativeAtomicSupported: *v = p.hostNativeAtomicSupported; return true;
    case cudaDevAttrSingleToDoublePrecisionPerfRatio: *v = 2; return true; /* as an H100 */
    case cudaDevAttrPageableMemoryAccess: *v = p.pageableMemoryAccess; return true;
    case cudaDevAttrConcurrentManagedAccess: *v = p.concurrentManagedAccess; return true;
    case cudaDevAttrCanUseHostPointerForRegisteredMem:
        *v = p.canUseHostPointerForRegisteredMem;
        return true;
    case cudaDevAttrCanFlushRemoteWrites: *v = 0; return true;
    case cudaDevAttrPageableMemoryAccessUsesHostPageTables:
        *v = p.pageableMemoryAccessUsesHostPageTables;
        return true;
    case cudaDevAttrDirectManagedMemAccessFromHost: *v = p.directManagedMemAccessFromHost; return true;
    case cudaDevAttrMaxPersistingL2CacheSize: *v = p.persistingL2CacheMaxSize; return true;
    case cudaDevAttrMaxAccessPolicyWindowSize: *v = p.accessPolicyMaxWindowSize; return true;
    case cudaDevAttrSparseCudaArraySupported: *v = p.sparseCudaArraySupported; return true;
    case cudaDevAttrHostRegisterReadOnlySupported: *v = p.hostRegisterReadOnlySupported; return true;
    case cudaDevAttrTimelineSemaphoreInteropSupported:
        *v = p.timelineSemaphoreInteropSupported;
        return true;
    case cudaDevAttrGPUDirectRDMASupported: *v = p.gpuDirectRDMASupported; return true;
    case cudaDevAttrGPUDirectRDMAFlushWritesOptions:
        *v = int(p.gpuDirectRDMAFlushWritesOptions);
        return true;
    case cudaDevAttrGPUDirectRDMAWritesOrdering: *v = p.gpuDirectRDMAWritesOrdering; return true;
    case cudaDevAttrMemoryPoolSupportedHandleTypes:
        *v = int(p.memoryPoolSupportedHandleTypes);
        return true;
    case cudaDevAttrDeferredMappingCudaArraySupported:
        *v = p.deferredMappingCudaArraySupported;
        return true;
    case cudaDevAttrIpcEventSupport: *v = p.ipcEventSupported; return true;
    case cudaDevAttrMemSyncDomainCount: *v = 1; return true;
    case cudaDevAttrNumaConfig: *v = p.deviceNumaConfig; return true;
    case cudaDevAttrNumaId: *v = p.deviceNumaId; return true;
    case cudaDevAttrMpsEnabled: *v = p.mpsEnabled; return true;
    case cudaDevAttrHostNumaId: *v = p.hostNumaId; return true;
    case cudaDevAttrD3D12CigSupported: *v = 0; return true;
    case cudaDevAttrVulkanCigSupported: *v = 0; return true;
    case cudaDevAttrGpuPciDeviceId: *v = int(p.gpuPciDeviceID); return true;
    case cudaDevAttrGpuPciSubsystemId: *v = int(p.gpuPciSubsystemID); return true;
    case cudaDevAttrHostNumaMemoryPoolsSupported: *v = 0; return true;
    case cudaDevAttrHostNumaMultinodeIpcSupported: *v = p.hostNumaMultinodeIpcSupported; return true;
    case cudaDevAttrHostMemoryPoolsSupported: *v = 0; return true;
    case cudaDevAttrOnlyPartialHostNativeAtomicSupported: *v = 0; return true;
    default: return false; /* the Reserved* values and numbers outside the enum */
    }
}

} // namespace cudaemu

using namespace cudaemu;

inline namespace cudaemu_api {

cudaError_t cudaSetDeviceFlags(unsigned int flags)
{
    CUDAEMU_LOCK;
    if (config().ndev == 0) return ret(cudaErrorNoDevice);
    const unsigned sched = flags & cudaDeviceScheduleMask;
    const unsigned known = cudaDeviceScheduleMask | cudaDeviceMapHost |
                           cudaDeviceLmemResizeToMax | cudaDeviceSyncMemops;
    /* one scheduling policy at most, and no unknown bit */
    if ((flags & ~known) || (sched & (sched - 1))) return ret(cudaErrorInvalidValue);
    dev(cur_dev()).flags = flags;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceFlags(unsigned int *flags)
{
    CUDAEMU_LOCK;
    if (!flags) return ret(cudaErrorInvalidValue);
    if (config().ndev == 0) return ret(cudaErrorNoDevice);
    /* mapping host memory is implicit in the runtime API */
    *flags = dev(cur_dev()).flags | cudaDeviceMapHost;
    return cudaSuccess;
}

cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice)
{
    CUDAEMU_LOCK;
    if (!canAccessPeer) return ret(cudaErrorInvalidValue);
    if (config().ndev == 0) return ret(cudaErrorNoDevice);
    if (!valid_device(device) || !valid_device(peerDevice)) return ret(cudaErrorInvalidDevice);
    *canAccessPeer = device != peerDevice; /* a device is not its own peer */
    return cudaSuccess;
}

cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    if (!valid_device(peerDevice) || peerDevice == cur_dev()) return ret(cudaErrorInvalidDevice);
    if (flags != 0) return ret(cudaErrorInvalidValue);
    uint64_t bit = uint64_t(1) << peerDevice;
    if (dev(cur_dev()).peers & bit) return ret(cudaErrorPeerAccessAlreadyEnabled);
    dev(cur_dev()).peers |= bit;
    return cudaSuccess;
}

cudaError_t cudaDeviceDisablePeerAccess(int peerDevice)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    if (!valid_device(peerDevice) || peerDevice == cur_dev()) return ret(cudaErrorInvalidDevice);
    uint64_t bit = uint64_t(1) << peerDevice;
    if (!(dev(cur_dev()).peers & bit)) return ret(cudaErrorPeerAccessNotEnabled);
    dev(cur_dev()).peers &= ~bit;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetP2PAttribute(int *value, cudaDeviceP2PAttr attr, int srcDevice,
                                      int dstDevice)
{
    CUDAEMU_LOCK;
    if (!value) return ret(cudaErrorInvalidValue);
    if (config().ndev == 0) return ret(cudaErrorNoDevice);
    if (!valid_device(srcDevice) || !valid_device(dstDevice) || srcDevice == dstDevice)
        return ret(cudaErrorInvalidDevice);
    switch (attr) {
    case cudaDevP2PAttrPerformanceRank: *value = 0; return cudaSuccess;
    case cudaDevP2PAttrAccessSupported: /* all memory is host memory: */
    case cudaDevP2PAttrNativeAtomicSupported:
    case cudaDevP2PAttrCudaArrayAccessSupported: *value = 1; return cudaSuccess;
    case cudaDevP2PAttrOnlyPartialNativeAtomicSupported: *value = 0; return cudaSuccess;
    }
    return ret(cudaErrorInvalidValue);
}

/* Interprocess handles: each process's "device memory" is its own host
 * memory, so no handle could reach another process: refused by name. */
static cudaError_t ipc_refused(const char *fn)
{
    report("%s: interprocess memory and event handles are not emulated "
           "(emulated device memory is the process's own host memory)", fn);
    return ret(cudaErrorNotSupported);
}
cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *, void *)
{
    return ipc_refused("cudaIpcGetMemHandle");
}
cudaError_t cudaIpcOpenMemHandle(void **, cudaIpcMemHandle_t, unsigned int)
{
    return ipc_refused("cudaIpcOpenMemHandle");
}
cudaError_t cudaIpcCloseMemHandle(void *) { return ipc_refused("cudaIpcCloseMemHandle"); }
cudaError_t cudaIpcGetEventHandle(cudaIpcEventHandle_t *, cudaEvent_t)
{
    return ipc_refused("cudaIpcGetEventHandle");
}
cudaError_t cudaIpcOpenEventHandle(cudaEvent_t *, cudaIpcEventHandle_t)
{
    return ipc_refused("cudaIpcOpenEventHandle");
}

} // inline namespace cudaemu_api
