/* emu/tests/nvcc_emu/inc/part.h - found through -I by nvcc_emu_test.sh */
#ifndef NVCC_EMU_TEST_PART_H
#define NVCC_EMU_TEST_PART_H
/* 0^2 + 1^2 + ... + (n-1)^2, computed by a kernel (part.cu) */
int sum_of_squares(int n);
#endif
