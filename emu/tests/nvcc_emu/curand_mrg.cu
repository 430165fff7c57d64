/* emu/tests/nvcc_emu/curand_mrg.cu - a cuRAND generator the emulator lacks
 * (MRG32k3a's device API): its curand_init must stop the compile by name. */
#include <curand_kernel.h>

__global__ void init(curandStateMRG32k3a_t *s) { curand_init(1, threadIdx.x, 0, s + threadIdx.x); }

int main() { return 0; }
