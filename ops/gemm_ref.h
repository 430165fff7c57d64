/* ops/gemm_ref.h - the reference dot product, the one loop every reference
 * GEMM is built from: cpu/gemm_naive.c's gemm_ref_element (cpu-naive and the
 * checker's reference) and the emulator's plain BLAS (emu/src/blas_fallback.cpp,
 * its cuBLAS where OpenBLAS is absent).
 *
 * gemm_ref_dot(n, x, incx, y, incy) = sum over k < n of x[k*incx] * y[k*incy],
 * each product and the sum in double, in k order (increments may be negative:
 * x then points at the element taken first). gemm_ref_dot_f64: the same over
 * doubles. C and C++. */
#ifndef OPS_GEMM_REF_H
#define OPS_GEMM_REF_H

#define GEMM_REF_DOT(T, name)                                                              \
    static inline double name(long n, const T *x, long incx, const T *y, long incy)        \
    {                                                                                      \
        double acc = 0.0;                                                                  \
        for (long k = 0; k < n; k++) acc += (double)x[k * incx] * (double)y[k * incy];     \
        return acc;                                                                        \
    }
GEMM_REF_DOT(float, gemm_ref_dot)
GEMM_REF_DOT(double, gemm_ref_dot_f64)
#undef GEMM_REF_DOT

#endif
