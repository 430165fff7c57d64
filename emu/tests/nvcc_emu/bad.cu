/* emu/tests/nvcc_emu/bad.cu - does not compile: the error must name line 9. */
__global__ void k(int *p) { *p = 1; }

int main()
{
    int *p = nullptr;
    k<<<1,
        1>>>(p);
    undeclared_function(p);
    return 0;
}
