/* <cuda_fp16.hpp>: in CUDA the definitions behind cuda_fp16.h; in the CUDA host
 * emulator all of it is in cuda_fp16.h. */
#include "cuda_fp16.h"
