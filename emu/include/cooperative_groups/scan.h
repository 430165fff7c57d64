/* emu/include/cooperative_groups/scan.h - part of the emulator's cooperative
 * groups: everything is in <cooperative_groups.h>. */
#ifndef CUDAEMU_CG_SCAN_H
#define CUDAEMU_CG_SCAN_H
#include "../cooperative_groups.h"
#endif
