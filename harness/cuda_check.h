/* harness/cuda_check.h - checking every CUDA and cuBLAS call and launch.
 *
 * Library code returns a status and cleans up along one goto path:
 *
 *     int f(void) {
 *         float *d = NULL;
 *         CUDA_TRY(cudaMalloc((void **)&d, bytes));
 *         kernel<<<grid, block, 0, stream>>>(d, n);
 *         LAUNCH_CHECK();
 *         cudaFree(d);
 *         return 0;
 *     fail:
 *         cudaFree(d);
 *         return -1;
 *     }
 *
 * A failure records "cudaMalloc((void **)&d, bytes): cudaErrorMemoryAllocation
 * (out of memory) at kernels/x.cu:12" with err_set (harness/errmsg.h) and jumps
 * to `fail`.  A <<<>>> launch returns nothing: LAUNCH_CHECK(), the statement
 * after it, checks cudaGetLastError() (where the launch's error lands) and,
 * when bench_cuda_sync_launches is set (BENCH_CUDA_SYNC=1, bench --cuda-sync),
 * synchronizes so an asynchronous fault lands on its launch.  LAUNCH_TRY(call)
 * does the same for a launch call that returns an error (cudaLaunchKernelEx),
 * checking that return first.
 *
 * Works with the real toolkit and with emu/ (whose headers define __CUDAEMU__).
 * DYNAMIC_SHARED(T, name) declares dynamic shared memory (harness/dynamic_shared.h).
 */
#ifndef KERNELS_CUDA_CHECK_H
#define KERNELS_CUDA_CHECK_H

#include <cuda_runtime.h>
#include <cublas_v2.h>
#include "errmsg.h"
#include "dynamic_shared.h"

#define CUDA_TRY(call)                                                         \
    do {                                                                       \
        cudaError_t e_ = (call);                                               \
        if (e_ != cudaSuccess) {                                               \
            err_set("%s: %s (%s) at %s:%d", #call, cudaGetErrorName(e_),       \
                    cudaGetErrorString(e_), __FILE__, __LINE__);               \
            goto fail;                                                         \
        }                                                                      \
    } while (0)

#define CUBLAS_TRY(call)                                                       \
    do {                                                                       \
        cublasStatus_t s_ = (call);                                            \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                     \
            err_set("%s: %s (%s) at %s:%d", #call, cublasGetStatusName(s_),    \
                    cublasGetStatusString(s_), __FILE__, __LINE__);            \
            goto fail;                                                         \
        }                                                                      \
    } while (0)

#define LAUNCH_CHECK()                                                         \
    do {                                                                       \
        CUDA_TRY(cudaGetLastError());                                          \
        if (bench_cuda_sync_launches)                                          \
            CUDA_TRY(cudaDeviceSynchronize());                                 \
    } while (0)

#define LAUNCH_TRY(launch)                                                     \
    do {                                                                       \
        CUDA_TRY(launch);                                                      \
        LAUNCH_CHECK();                                                        \
    } while (0)

#endif
