/* emu/include/vector_types.h - thin forwarding header of the CUDA host emulator:
 * everything the real vector_types.h provides lives in cuda_runtime.h here. */
#include "cuda_runtime.h"
