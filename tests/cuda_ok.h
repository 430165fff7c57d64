/* tests/cuda_ok.h - CUDA_OK(call) for the GPU test programs: a failed CUDA
 * call is a broken test setup, not a finding, so it prints and exits 1. */
#ifndef TESTS_GPU_CUDA_OK_H
#define TESTS_GPU_CUDA_OK_H

#include <stdio.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#define CUDA_OK(call)                                                                  \
    do {                                                                               \
        cudaError_t e_ = (call);                                                       \
        if (e_ != cudaSuccess) {                                                       \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,              \
                    cudaGetErrorString(e_));                                           \
            exit(1);                                                                   \
        }                                                                              \
    } while (0)

#endif
