/* emu/include/cuda_runtime_api.h - thin forwarding header of the CUDA host emulator:
 * the real toolkit splits the runtime API across headers; here everything is
 * in cuda_runtime.h. */
#include "cuda_runtime.h"
