/* emu/include/device_launch_parameters.h - thin forwarding header of the CUDA host emulator:
 * everything the real device_launch_parameters.h provides lives in cuda_runtime.h here. */
#include "cuda_runtime.h"
