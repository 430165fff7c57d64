/* emu/tests/nvcc_emu/inc/scaled_launch.cuh - a kernel and its launch in a
 * header found only through -I (nvcc-emu passes -I to the translator). */
#ifndef NVCC_EMU_TEST_SCALED_LAUNCH_CUH
#define NVCC_EMU_TEST_SCALED_LAUNCH_CUH

__global__ void scaled(int *x, int n, int k)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= k;
}

inline void launch_scaled(int *x, int n, int k)
{
    scaled<<<(n + 31) / 32, 32>>>(x, n, k);
}
#endif
