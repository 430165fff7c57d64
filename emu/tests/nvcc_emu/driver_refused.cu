/* emu/tests/nvcc_emu/driver_refused.cu - <cuda.h>'s calls the emulator does
 * not provide stop the compile with one line naming the call. */
#include <cuda.h>

int main()
{
    CUmodule m;
    return cuModuleLoad(&m, "kernels.cubin") == CUDA_SUCCESS ? 0 : 1;
}
