/* emu/tests/nvcc_emu/unterminated.cu - a launch without >>>: line 5. */
__global__ void k(int *p) { *p = 1; }
int main()
{
    k<<<1, 1(nullptr);
    return 0;
}
