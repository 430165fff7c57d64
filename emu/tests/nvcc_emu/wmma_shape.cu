// A wmma fragment the emulator does not implement (SHAPE_* picks which):
// nvcc-emu must stop at one static_assert line naming what is emulated.
#include <mma.h>
using namespace nvcuda;

__global__ void k(float *out)
{
#if defined(SHAPE_DOUBLE)
    wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> a;
#elif defined(SHAPE_INT8)
    wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> a;
#else
    wmma::fragment<wmma::matrix_a, 32, 8, 16, __half, wmma::row_major> a;
#endif
    wmma::fill_fragment(a, 0);
    out[0] = (float)a.x[0];
}
