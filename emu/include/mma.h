/* emu/include/mma.h - CUDA's warp matrix functions (nvcuda::wmma) for the
 * CUDA host emulator: fragments m16n16k16 of __half and __nv_bfloat16 and
 * m16n16k8 of precision::tf32 (see cudaemu/wmma.h and emu/README.md).
 */
#ifndef CUDAEMU_MMA_H
#define CUDAEMU_MMA_H

/* C++ only, as CUDA's (in C it declares nothing) */
#ifdef __cplusplus
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#include "cudaemu/wmma.h"
#endif

#endif
