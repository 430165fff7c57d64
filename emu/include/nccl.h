/* emu/include/nccl.h - the NCCL subset of the CUDA host emulator.
 *
 * Communicators of one process over the emulated devices (CUDAEMU_DEVICES=N):
 * ncclCommInitAll, or ncclCommInitRank per rank (inside ncclGroupStart/End
 * from one thread, or from one host thread per rank).  Collectives are queued
 * on each rank's stream, lazily as everything else, and run once every rank's
 * call is at the head of its stream; reductions go in rank order 0..N-1
 * (emu/src/nccl.cpp, emu/README.md "NCCL").  Names, types and values are those
 * of NCCL 2.28's nccl.h; functions have C++ linkage (inline namespace
 * cudaemu_api), so they never clash with libnccl.  Not emulated: communicators
 * across processes, ncclCommSplit/Shrink, ncclConfig_t, user buffer and window
 * registration, the device API (the nccl_device headers).
 */
#ifndef CUDAEMU_NCCL_H
#define CUDAEMU_NCCL_H

#include "cuda_runtime.h"

/* the guard of NCCL's own header */
#define NCCL_H_

#define NCCL_MAJOR 2
#define NCCL_MINOR 28
#define NCCL_PATCH 9
#define NCCL_SUFFIX ""
#define NCCL_VERSION_CODE 22809
#define NCCL_VERSION(X, Y, Z) \
    (((X) <= 2 && (Y) <= 8) ? (X) * 1000 + (Y) * 100 + (Z) : (X) * 10000 + (Y) * 100 + (Z))

typedef struct ncclComm *ncclComm_t;
#define NCCL_COMM_NULL NULL

#define NCCL_UNIQUE_ID_BYTES 128
typedef struct {
    char internal[NCCL_UNIQUE_ID_BYTES];
} ncclUniqueId;

typedef enum : int {
    ncclSuccess = 0,
    ncclUnhandledCudaError = 1,
    ncclSystemError = 2,
    ncclInternalError = 3,
    ncclInvalidArgument = 4,
    ncclInvalidUsage = 5,
    ncclRemoteError = 6,
    ncclInProgress = 7,
    ncclNumResults = 8
} ncclResult_t;

typedef enum : int { ncclNumOps_dummy = 5 } ncclRedOp_dummy_t;
typedef enum : int {
    ncclSum = 0,
    ncclProd = 1,
    ncclMax = 2,
    ncclMin = 3,
    ncclAvg = 4,
    ncclNumOps = 5, /* the first value ncclRedOpCreatePreMulSum hands out */
    ncclMaxRedOp = 0x7fffffff
} ncclRedOp_t;

typedef enum : int {
    ncclInt8 = 0,
    ncclChar = 0,
    ncclUint8 = 1,
    ncclInt32 = 2,
    ncclInt = 2,
    ncclUint32 = 3,
    ncclInt64 = 4,
    ncclUint64 = 5,
    ncclFloat16 = 6,
    ncclHalf = 6,
    ncclFloat32 = 7,
    ncclFloat = 7,
    ncclFloat64 = 8,
    ncclDouble = 8,
    ncclBfloat16 = 9,
    ncclFloat8e4m3 = 10,
    ncclFloat8e5m2 = 11,
    ncclNumTypes = 12
} ncclDataType_t;

typedef enum : int {
    ncclScalarDevice = 0,        /* read when the collective runs */
    ncclScalarHostImmediate = 1  /* read by ncclRedOpCreatePreMulSum */
} ncclScalarResidence_t;

inline namespace cudaemu_api {

ncclResult_t ncclGetVersion(int *version);
ncclResult_t ncclGetUniqueId(ncclUniqueId *uniqueId);
ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank);
ncclResult_t ncclCommInitAll(ncclComm_t *comm, int ndev, const int *devlist);
ncclResult_t ncclCommFinalize(ncclComm_t comm);
ncclResult_t ncclCommDestroy(ncclComm_t comm);
ncclResult_t ncclCommAbort(ncclComm_t comm);
ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *asyncError);
ncclResult_t ncclCommCount(const ncclComm_t comm, int *count);
ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int *device);
ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank);
const char *ncclGetErrorString(ncclResult_t result);
const char *ncclGetLastError(ncclComm_t comm);

ncclResult_t ncclRedOpCreatePreMulSum(ncclRedOp_t *op, void *scalar, ncclDataType_t datatype,
                                      ncclScalarResidence_t residence, ncclComm_t comm);
ncclResult_t ncclRedOpDestroy(ncclRedOp_t op, ncclComm_t comm);

ncclResult_t ncclReduce(const void *sendbuff, void *recvbuff, size_t count,
                        ncclDataType_t datatype, ncclRedOp_t op, int root, ncclComm_t comm,
                        cudaStream_t stream);
ncclResult_t ncclBcast(void *buff, size_t count, ncclDataType_t datatype, int root,
                       ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count,
                           ncclDataType_t datatype, int root, ncclComm_t comm,
                           cudaStream_t stream);
ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count,
                           ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                           cudaStream_t stream);
ncclResult_t ncclReduceScatter(const void *sendbuff, void *recvbuff, size_t recvcount,
                               ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                               cudaStream_t stream);
ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount,
                           ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclGroupStart();
ncclResult_t ncclGroupEnd();

/* Declared by NCCL, not emulated: a call stops the compile with one line. */
#define CUDAEMU_NCCL_MISSING(what) __attribute__((error("cudaemu: " what " is not emulated")))
CUDAEMU_NCCL_MISSING("ncclSend (point-to-point)")
ncclResult_t ncclSend(const void *sendbuff, size_t count, ncclDataType_t datatype, int peer,
                      ncclComm_t comm, cudaStream_t stream);
CUDAEMU_NCCL_MISSING("ncclRecv (point-to-point)")
ncclResult_t ncclRecv(void *recvbuff, size_t count, ncclDataType_t datatype, int peer,
                      ncclComm_t comm, cudaStream_t stream);
CUDAEMU_NCCL_MISSING("ncclAlltoAll")
ncclResult_t ncclAlltoAll(const void *sendbuff, void *recvbuff, size_t count,
                          ncclDataType_t datatype, ncclComm_t comm, cudaStream_t stream);
CUDAEMU_NCCL_MISSING("ncclGather")
ncclResult_t ncclGather(const void *sendbuff, void *recvbuff, size_t count,
                        ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream);
CUDAEMU_NCCL_MISSING("ncclScatter")
ncclResult_t ncclScatter(const void *sendbuff, void *recvbuff, size_t count,
                         ncclDataType_t datatype, int root, ncclComm_t comm, cudaStream_t stream);
CUDAEMU_NCCL_MISSING("ncclCommSplit")
ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t *newcomm, void *config);
CUDAEMU_NCCL_MISSING("ncclCommRegister (buffer registration)")
ncclResult_t ncclCommRegister(const ncclComm_t comm, void *buff, size_t size, void **handle);
CUDAEMU_NCCL_MISSING("ncclCommDeregister (buffer registration)")
ncclResult_t ncclCommDeregister(const ncclComm_t comm, void *handle);
CUDAEMU_NCCL_MISSING("ncclMemAlloc")
ncclResult_t ncclMemAlloc(void **ptr, size_t size);
CUDAEMU_NCCL_MISSING("ncclMemFree")
ncclResult_t ncclMemFree(void *ptr);
#undef CUDAEMU_NCCL_MISSING

} // inline namespace cudaemu_api

#endif
