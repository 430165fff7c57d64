/* emu/include/cudaemu/runtime_more.h - runtime calls that public programs
 * make and that change nothing on the host (src/runtime_more.cpp): cache
 * and shared-memory bank preferences (checked and remembered, as CUDA keeps
 * them), device choice and PCI bus ids, host allocation flags, the occupancy
 * calls' WithFlags forms, stream ids and devices, cudaEventRecordWithFlags,
 * cudaFuncGetName, cudaSetValidDevices, cudaInitDevice. Included by
 * cuda_runtime.h. Names and values of the enums: the CUDA 13.0 toolkit's
 * driver_types.h. */
#ifndef CUDAEMU_RUNTIME_MORE_H
#define CUDAEMU_RUNTIME_MORE_H

enum cudaFuncCache : int {
    cudaFuncCachePreferNone = 0,
    cudaFuncCachePreferShared = 1,
    cudaFuncCachePreferL1 = 2,
    cudaFuncCachePreferEqual = 3
};
enum cudaSharedMemConfig : int {
    cudaSharedMemBankSizeDefault = 0,
    cudaSharedMemBankSizeFourByte = 1,
    cudaSharedMemBankSizeEightByte = 2
};
enum cudaSharedCarveout : int {
    cudaSharedmemCarveoutDefault = -1,
    cudaSharedmemCarveoutMaxShared = 100,
    cudaSharedmemCarveoutMaxL1 = 0
};
#define cudaEventRecordDefault 0x00
#define cudaEventRecordExternal 0x01
#define cudaOccupancyDefault 0x00
#define cudaOccupancyDisableCachingOverride 0x01
#define cudaInitDeviceFlagsAreValid 0x01

inline namespace cudaemu_api {
cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache cacheConfig);
cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache *pCacheConfig);
cudaError_t cudaFuncSetCacheConfig(const void *func, cudaFuncCache cacheConfig);
cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig config);
cudaError_t cudaDeviceGetSharedMemConfig(cudaSharedMemConfig *pConfig);
cudaError_t cudaFuncSetSharedMemConfig(const void *func, cudaSharedMemConfig config);
cudaError_t cudaChooseDevice(int *device, const cudaDeviceProp *prop);
cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device);
cudaError_t cudaDeviceGetByPCIBusId(int *device, const char *pciBusId);
cudaError_t cudaHostGetFlags(unsigned int *pFlags, void *pHost);
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize, unsigned int flags);
cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, const void *func,
                                                      int numBlocks, int blockSize);
cudaError_t cudaStreamGetId(cudaStream_t hStream, unsigned long long *streamId);
cudaError_t cudaStreamGetDevice(cudaStream_t hStream, int *device);
cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream = 0,
                                     unsigned int flags = 0);
cudaError_t cudaFuncGetName(const char **name, const void *func);
cudaError_t cudaSetValidDevices(int *device_arr, int len);
cudaError_t cudaInitDevice(int device, unsigned int deviceFlags, unsigned int flags);

template <class T>
inline cudaError_t cudaFuncSetCacheConfig(T *func, cudaFuncCache cacheConfig)
{ return cudaFuncSetCacheConfig(reinterpret_cast<const void *>(func), cacheConfig); }
template <class T>
inline cudaError_t cudaFuncSetSharedMemConfig(T *func, cudaSharedMemConfig config)
{ return cudaFuncSetSharedMemConfig(reinterpret_cast<const void *>(func), config); }
template <class T>
inline cudaError_t cudaFuncGetName(const char **name, T *func)
{ return cudaFuncGetName(name, reinterpret_cast<const void *>(func)); }
template <class T>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, T func, int blockSize, size_t dynamicSMemSize, unsigned int flags)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
        numBlocks, reinterpret_cast<const void *>(func), blockSize, dynamicSMemSize, flags);
}
template <class T>
inline cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, T func,
                                                             int numBlocks, int blockSize)
{
    return cudaOccupancyAvailableDynamicSMemPerBlock(
        dynamicSmemSize, reinterpret_cast<const void *>(func), numBlocks, blockSize);
}
/* the WithFlags forms of the block-size helpers (the flag changes nothing here) */
template <typename UnaryFunction, class T>
inline cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
    int *minGridSize, int *blockSize, T func, UnaryFunction blockSizeToDynamicSMemSize,
    int blockSizeLimit = 0, unsigned int flags = 0)
{
    if (flags & ~unsigned(cudaOccupancyDisableCachingOverride)) return cudaErrorInvalidValue;
    return cudaOccupancyMaxPotentialBlockSizeVariableSMem(minGridSize, blockSize, func,
                                                          blockSizeToDynamicSMemSize,
                                                          blockSizeLimit);
}
template <class T>
inline cudaError_t cudaOccupancyMaxPotentialBlockSizeWithFlags(
    int *minGridSize, int *blockSize, T func, size_t dynamicSMemSize = 0,
    int blockSizeLimit = 0, unsigned int flags = 0)
{
    if (flags & ~unsigned(cudaOccupancyDisableCachingOverride)) return cudaErrorInvalidValue;
    return cudaOccupancyMaxPotentialBlockSize(minGridSize, blockSize, func, dynamicSMemSize,
                                              blockSizeLimit);
}
} // inline namespace cudaemu_api

#endif
