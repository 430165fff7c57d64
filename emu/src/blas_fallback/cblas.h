/* emu/src/blas_fallback/cblas.h - the CBLAS subset the emulator's cuBLAS calls
 * (emu/src/cublas.cpp), for a build without OpenBLAS: emu/CMakeLists.txt puts
 * this folder on the include path in OpenBLAS's place and compiles
 * emu/src/blas_fallback.cpp, plain loops over ops/gemm_ref.h's reference dot
 * product. Names, enum values and argument order are CBLAS's.
 *
 * CUDAEMU_BLAS_FALLBACK_NAME(name) names the functions: cblas_<name> (the
 * default), or another name where a test links the fallback beside OpenBLAS
 * (emu/tests/blas_fallback_test.cpp); the enums are then OpenBLAS's own. */
#ifndef CUDAEMU_BLAS_FALLBACK_CBLAS_H
#define CUDAEMU_BLAS_FALLBACK_CBLAS_H

#ifndef CUDAEMU_BLAS_FALLBACK_NAME
#define CUDAEMU_BLAS_FALLBACK_NAME(name) cblas_##name
#endif

#ifdef __cplusplus
extern "C" {
#endif

#ifndef CBLAS_H /* OpenBLAS's cblas.h (a test) has them already */
typedef enum CBLAS_ORDER { CblasRowMajor = 101, CblasColMajor = 102 } CBLAS_ORDER;
typedef enum CBLAS_TRANSPOSE {
    CblasNoTrans = 111, CblasTrans = 112, CblasConjTrans = 113, CblasConjNoTrans = 114
} CBLAS_TRANSPOSE;
#endif

/* C = alpha op(A) op(B) + beta C; beta == 0 never reads C. */
void CUDAEMU_BLAS_FALLBACK_NAME(sgemm)(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE ta,
                                       enum CBLAS_TRANSPOSE tb, int m, int n, int k, float alpha,
                                       const float *A, int lda, const float *B, int ldb,
                                       float beta, float *C, int ldc);
/* y = alpha op(A) x + beta y; beta == 0 never reads y. */
void CUDAEMU_BLAS_FALLBACK_NAME(sgemv)(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE trans, int m,
                                       int n, float alpha, const float *A, int lda,
                                       const float *x, int incx, float beta, float *y, int incy);
void CUDAEMU_BLAS_FALLBACK_NAME(dgemv)(enum CBLAS_ORDER order, enum CBLAS_TRANSPOSE trans, int m,
                                       int n, double alpha, const double *A, int lda,
                                       const double *x, int incx, double beta, double *y,
                                       int incy);
void CUDAEMU_BLAS_FALLBACK_NAME(saxpy)(int n, float alpha, const float *x, int incx, float *y,
                                       int incy);
void CUDAEMU_BLAS_FALLBACK_NAME(sscal)(int n, float alpha, float *x, int incx);
float CUDAEMU_BLAS_FALLBACK_NAME(sdot)(int n, const float *x, int incx, const float *y, int incy);
float CUDAEMU_BLAS_FALLBACK_NAME(snrm2)(int n, const float *x, int incx);

#ifdef __cplusplus
}
#endif
#endif
