/* emu/tests/nvcc_emu_cmake/scale.cu - x[i] *= SCALE_BY */
#include "scale.h"
__global__ void scale(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= SCALE_BY;
}
