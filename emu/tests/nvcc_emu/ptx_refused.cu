/* emu/tests/nvcc_emu/ptx_refused.cu - inline PTX the emulator lacks, in a
 * __device__ function, stops the compile at its own line with one message
 * naming the instruction (nvcc_emu_test.sh checks file, line and text). */
__device__ unsigned add_carry(unsigned a, unsigned b)
{
    unsigned r;
    asm("add.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}

__global__ void k(unsigned *p) { p[0] = add_carry(p[1], p[2]); }
