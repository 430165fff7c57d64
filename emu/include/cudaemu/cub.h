/* emu/include/cudaemu/cub.h - the CUDA host emulator's CUB subset, all of
 * it: every <cub/...> header the emulator provides forwards here (generated
 * by emu/tools/gen_header_stubs.sh; emu/README.md, "Thrust and CUB"). */
#pragma once

#include "cudaemu/cub_block.h"
#include "cudaemu/cub_device.h"
