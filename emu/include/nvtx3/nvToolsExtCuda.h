/* emu/include/nvtx3/nvToolsExtCuda.h - forwards to the no-op NVTX of the CUDA host emulator */
#include "nvToolsExt.h"
