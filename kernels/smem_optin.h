/* kernels/smem_optin.h - dynamic shared memory above the default 48 KiB: a
 * kernel must opt in (cudaFuncSetAttribute MaxDynamicSharedMemorySize) up to
 * the device's cudaDevAttrMaxSharedMemoryPerBlockOptin (227 KiB on sm_80 /
 * sm_90), as a GPU (and the emulator) require. Included by the .cu files of
 * kernels/ that launch with large dynamic shared memory (after cuda_check.h).
 */
#ifndef KERNELS_SMEM_OPTIN_H
#define KERNELS_SMEM_OPTIN_H

#include <stddef.h>

#include "cuda_check.h"

/* Lets kernel f launch with `bytes` of dynamic shared memory on the current
 * device: nothing to do up to 48 KiB; above, opted in when the device allows
 * it. 0, or -1 with err_set (who: the caller; hint: why it may be too much). */
static inline int kernel_smem_optin(const char *who, const void *f, size_t bytes,
                                    const char *hint)
{
    int dev = 0, optin = 0;
    if (bytes <= 48 * 1024) return 0;
    CUDA_TRY(cudaGetDevice(&dev));
    CUDA_TRY(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    if (bytes > (size_t)optin) {
        err_set("%s: the kernel needs %zu bytes of shared memory, more than the device's %d%s",
                who, bytes, optin, hint);
        return -1;
    }
    CUDA_TRY(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)bytes));
    return 0;
fail:
    return -1;
}

#endif
