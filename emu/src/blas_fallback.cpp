/* emu/src/blas_fallback.cpp - the CBLAS subset of blas_fallback/cblas.h on
 * plain loops, for an emulator built where OpenBLAS is absent (a bare GPU
 * machine): every element is ops/gemm_ref.h's reference dot product (the one
 * cpu-naive and the checker use), in double, rounded once to the result's
 * type, so results are as exact as OpenBLAS's fp32 or finer. Slow (no
 * blocking): the emulator is for correctness. Increments follow CBLAS: a
 * negative one walks the vector from its end; incx <= 0 makes sscal and
 * snrm2 do nothing (0), as in the reference BLAS. Compiled with
 * CUDAEMU_BLAS_FALLBACK=1 only (emu/CMakeLists.txt, nvcc-emu). */
#if CUDAEMU_BLAS_FALLBACK /* only where OpenBLAS is absent: else it would shadow it */
#include "blas_fallback/cblas.h"
#include "blas_fallback/gemm_ref.h"

#include <cmath>

namespace {

double dot(long n, const float *x, long incx, const float *y, long incy)
{
    return gemm_ref_dot(n, x, incx, y, incy);
}
double dot(long n, const double *x, long incx, const double *y, long incy)
{
    return gemm_ref_dot_f64(n, x, incx, y, incy);
}

/* Where element (i, j) of a matrix with leading dimension ld is: i * rs + j * cs. */
struct Strides {
    long rs, cs;
};
Strides strides(CBLAS_ORDER order, CBLAS_TRANSPOSE t, int ld)
{
    Strides s = order == CblasColMajor ? Strides{1, ld} : Strides{ld, 1};
    if (t == CblasTrans || t == CblasConjTrans) return Strides{s.cs, s.rs}; /* real data */
    return s;
}

/* The first element a CBLAS walk of n elements with step inc reads. */
template <typename T> T *first(T *x, int n, int inc)
{
    return inc < 0 ? x + static_cast<long>(n - 1) * -static_cast<long>(inc) : x;
}

/* out = alpha * acc + beta * out, in double, once rounded; beta 0 never reads out. */
template <typename T> void store(T *out, double alpha, double acc, double beta)
{
    *out = static_cast<T>(beta == 0.0 ? alpha * acc : alpha * acc + beta * static_cast<double>(*out));
}

template <typename T>
void gemv(CBLAS_ORDER order, CBLAS_TRANSPOSE trans, int m, int n, T alpha, const T *A, int lda,
          const T *x, int incx, T beta, T *y, int incy)
{
    const Strides a = strides(order, trans, lda);
    const bool no_trans = trans == CblasNoTrans || trans == CblasConjNoTrans;
    const int ylen = no_trans ? m : n, xlen = no_trans ? n : m;
    const T *x0 = first(x, xlen, incx);
    T *y0 = first(y, ylen, incy);
    for (int i = 0; i < ylen; ++i) {
        const double acc = alpha == T(0) ? 0.0 : dot(xlen, A + i * a.rs, a.cs, x0, incx);
        store(y0 + static_cast<long>(i) * incy, alpha, acc, beta);
    }
}

} // namespace

extern "C" {

void CUDAEMU_BLAS_FALLBACK_NAME(sgemm)(CBLAS_ORDER order, CBLAS_TRANSPOSE ta, CBLAS_TRANSPOSE tb,
                                       int m, int n, int k, float alpha, const float *A, int lda,
                                       const float *B, int ldb, float beta, float *C, int ldc)
{
    const Strides a = strides(order, ta, lda), b = strides(order, tb, ldb);
    const Strides c = strides(order, CblasNoTrans, ldc);
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) {
            const double acc = alpha == 0.0f ? 0.0 : dot(k, A + i * a.rs, a.cs, B + j * b.cs, b.rs);
            store(C + i * c.rs + j * c.cs, alpha, acc, beta);
        }
}

void CUDAEMU_BLAS_FALLBACK_NAME(sgemv)(CBLAS_ORDER order, CBLAS_TRANSPOSE trans, int m, int n,
                                       float alpha, const float *A, int lda, const float *x,
                                       int incx, float beta, float *y, int incy)
{
    gemv(order, trans, m, n, alpha, A, lda, x, incx, beta, y, incy);
}

void CUDAEMU_BLAS_FALLBACK_NAME(dgemv)(CBLAS_ORDER order, CBLAS_TRANSPOSE trans, int m, int n,
                                       double alpha, const double *A, int lda, const double *x,
                                       int incx, double beta, double *y, int incy)
{
    gemv(order, trans, m, n, alpha, A, lda, x, incx, beta, y, incy);
}

void CUDAEMU_BLAS_FALLBACK_NAME(saxpy)(int n, float alpha, const float *x, int incx, float *y,
                                       int incy)
{
    const float *x0 = first(x, n, incx);
    float *y0 = first(y, n, incy);
    for (int i = 0; i < n; ++i)
        store(y0 + static_cast<long>(i) * incy, alpha, x0[static_cast<long>(i) * incx], 1.0);
}

void CUDAEMU_BLAS_FALLBACK_NAME(sscal)(int n, float alpha, float *x, int incx)
{
    for (long i = 0; incx > 0 && i < n; ++i) store(x + i * incx, alpha, x[i * incx], 0.0);
}

float CUDAEMU_BLAS_FALLBACK_NAME(sdot)(int n, const float *x, int incx, const float *y, int incy)
{
    if (n <= 0) return 0.0f;
    return static_cast<float>(dot(n, first(x, n, incx), incx, first(y, n, incy), incy));
}

float CUDAEMU_BLAS_FALLBACK_NAME(snrm2)(int n, const float *x, int incx)
{
    if (n <= 0 || incx <= 0) return 0.0f;
    return static_cast<float>(std::sqrt(dot(n, x, incx, x, incx)));
}

} // extern "C"
#endif
