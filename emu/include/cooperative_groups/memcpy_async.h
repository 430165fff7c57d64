/* emu/include/cooperative_groups/memcpy_async.h - part of the emulator's cooperative
 * groups: everything is in <cooperative_groups.h>. */
#ifndef CUDAEMU_CG_MEMCPY_ASYNC_H
#define CUDAEMU_CG_MEMCPY_ASYNC_H
#include "../cooperative_groups.h"
#endif
