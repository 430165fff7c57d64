/* emu/tests/nvcc_emu_cmake/scale.h - the kernel main.cu launches (compiled
 * apart in scale.cu: separable compilation). SCALE_BY is what the test edits
 * to see that a header change rebuilds its users (nvcc-emu's -MD). */
#pragma once
#define SCALE_BY 3
__global__ void scale(float *x, int n);
