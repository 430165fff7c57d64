/* emu/tests/nvcc_emu_cmake/report.cpp - C++ (not CUDA) source of the
 * project: g++ compiles it against the toolkit's include dir (the emulated
 * root's), and its presence makes CMake link the program with g++, not
 * through cudaemu-ld: the runtime must then come from lib64's cudart. */
#include <cuda_runtime.h>
const char *status_name(cudaError_t e) { return cudaGetErrorName(e); }
