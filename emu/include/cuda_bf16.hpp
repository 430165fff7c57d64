/* <cuda_bf16.hpp>: in CUDA the definitions behind cuda_bf16.h; in the CUDA host
 * emulator all of it is in cuda_bf16.h. */
#include "cuda_bf16.h"
