/* emu/tests/unroll.cu - CUDA's loop pragmas in kernels, compiled with -Wall
 * -Werror (emu/tests/CMakeLists.txt): the translator turns `#pragma unroll`
 * and `_Pragma("unroll")` into g++'s spelling or drops them, so g++ has no
 * unknown pragma to warn about, and the loops still compute the same sums.
 * The forms: bare, a count, a count in parentheses, 1 (no unrolling), a
 * template parameter and a constexpr variable (dropped: expressions), a
 * count above GCC's limit, a trailing comment, _Pragma in a macro, and
 * `# pragma  unroll` spaced; and nvcc's own nv_diag_suppress / diag_suppress,
 * which g++ would also warn about.  (nvcc takes no macro as the count.)
 */
#include <cstdio>

#include <cuda_runtime.h>

#include "test_util.h"

constexpr int kTile = 4;
/* nvcc's own pragmas: dropped too */
#pragma nv_diag_suppress 177
#pragma diag_suppress 550
_Pragma("nv_diag_default 177")
#define SUM_LOOP(n, acc, a)                                                   \
    _Pragma("unroll") for (int k_ = 0; k_ < (n); k_++) acc += (a)[k_]

/* out[t] = the sum of in[0 .. 15] computed by nine loops, each with a pragma */
template <int N> __global__ void sums(const int *in, int *out)
{
    int s = 0;
#pragma unroll
    for (int i = 0; i < 16; i++) s += in[i];
#pragma unroll 4
    for (int i = 0; i < 16; i++) s += in[i];
#pragma unroll (8)
    for (int i = 0; i < 16; i++) s += in[i];
#pragma unroll 1
    for (int i = 0; i < 16; i++) s += in[i];
#pragma unroll N
    for (int i = 0; i < 16; i++) s += in[i];
#pragma unroll kTile // a constant
    for (int i = 0; i < 16; i++) s += in[i];
#pragma unroll 100000 /* above GCC's 65534 */
    for (int i = 0; i < 16; i++) s += in[i];
    SUM_LOOP(16, s, in);
  # pragma  unroll  2u
    for (int i = 0; i < 16; i++) s += in[i];
    out[threadIdx.x] = s;
}

int main()
{
    int h[16], *in, *out, got[32];
    int want = 0;
    for (int i = 0; i < 16; i++) want += h[i] = 3 * i - 7;
    want *= 9;
    CK(cudaMalloc(&in, sizeof h));
    CK(cudaMalloc(&out, sizeof got));
    CK(cudaMemcpy(in, h, sizeof h, cudaMemcpyHostToDevice));
    sums<8><<<1, 32>>>(in, out);
    CK(cudaGetLastError());
    CK(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
    for (int t = 0; t < 32; t++) CHECK_EQ_INT(got[t], want);
    CK(cudaFree(in));
    CK(cudaFree(out));
    return test_exit("unroll");
}
