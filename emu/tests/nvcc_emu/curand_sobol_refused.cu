/* emu/tests/nvcc_emu/curand_sobol_refused.cu - a cuRAND generator whose
 * device API the emulator lacks (Sobol32: its 20,000-dimension direction
 * table is not written): its curand_init must stop the compile by name. */
#include <curand_kernel.h>

__global__ void init(curandDirectionVectors32_t *v, curandStateSobol32_t *s)
{
    curand_init(v[threadIdx.x], 0, s + threadIdx.x);
}

int main() { return 0; }
