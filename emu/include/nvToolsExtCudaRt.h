/* emu/include/nvToolsExtCudaRt.h - forwards to the no-op NVTX of the CUDA host emulator */
#include "nvtx3/nvToolsExt.h"
