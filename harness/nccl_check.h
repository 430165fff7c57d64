/* harness/nccl_check.h - NCCL for the GPU layer: BENCH_NCCL says whether this
 * flavour has it (the emulator always; the real toolkit when CMake found
 * libnccl: BENCH_HAVE_NCCL), and NCCL_TRY checks every call as CUDA_TRY does
 * (err_set naming the call, NCCL's error string and last error, then goto
 * fail). */
#ifndef HARNESS_NCCL_CHECK_H
#define HARNESS_NCCL_CHECK_H

#include "cuda_check.h"   /* defines __CUDAEMU__ in the emulated flavour */

#if defined(__CUDAEMU__) || BENCH_HAVE_NCCL
#define BENCH_NCCL 1
#include <nccl.h>

#define NCCL_TRY(call)                                                                   \
    do {                                                                                 \
        ncclResult_t r_ = (call);                                                        \
        if (r_ != ncclSuccess) {                                                         \
            err_set("%s: %s (%s) at %s:%d", #call, ncclGetErrorString(r_),               \
                    ncclGetLastError(NULL), __FILE__, __LINE__);                         \
            goto fail;                                                                   \
        }                                                                                \
    } while (0)
#else
#define BENCH_NCCL 0
#endif

/* The skip reason of a flavour without NCCL. */
#define NCCL_MISSING "NCCL not found at build time (libnccl beside the CUDA toolkit)"

#endif
