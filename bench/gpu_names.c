/* bench/gpu_names.c - names of the GPU backends and transfer modes, known to every
 * build (also one without the CUDA toolkit, so --list and validation agree). */
#include "gpu_cases.h"

#include <stddef.h>

const gpu_gemm_desc GPU_GEMM_DESCS[] = {
    {"cuda-naive", DTYPE_FP32},  {"cuda-tiled", DTYPE_FP32}, {"cuda-regtile", DTYPE_FP32},
    {"cublas", DTYPE_FP32},      {"cublas-tf32", DTYPE_TF32}, {NULL, DTYPE_FP32},
};

const char *const GPU_TRANSFER_MODES[] = {
    "h2d-pageable-sync", "h2d-pinned-sync", "h2d-pageable-async", "h2d-pinned-async",
    "d2h-pageable-sync", "d2h-pinned-sync", "d2h-pageable-async", "d2h-pinned-async",
    "d2d",               NULL};
