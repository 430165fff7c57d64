/* emu/tests/nvcc_emu/rdc_kernels.cu - separate compilation (nvcc -dc): a
 * __device__ function and a kernel that rdc_main.cu uses and launches. */
__device__ int twice(int x)
{
    return 2 * x;
}

__global__ void fill(int *out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = i + 1;
}
