/* emu/include/cooperative_groups/reduce.h - part of the emulator's cooperative
 * groups: everything is in <cooperative_groups.h>. */
#ifndef CUDAEMU_CG_REDUCE_H
#define CUDAEMU_CG_REDUCE_H
#include "../cooperative_groups.h"
#endif
