/* cpu/train_blas.c - TRAIN_OPS_CPU_BLAS (cpu/train_cpu.h; contract:
 * ops/train_ops.h): what a C programmer with OpenBLAS would write.
 *   gemm        OpenBLAS cblas_sgemm, row-major, CblasTrans for ta / tb
 *   conv        CONV_OPS_CPU_BLAS (im2col + sgemm, Caffe's)
 *   the rest    cpu/train_elem.c (OpenBLAS has no such ops), on ONE thread:
 *               Debian's OpenBLAS runs its own pthreads, and GNU OpenMP's
 *               workers keep spinning for a while after each parallel region
 *               (GOMP's default wait policy), taking the cores OpenBLAS's next
 *               call needs: an mlp-b256 step measured 37 ms with parallel
 *               elementwise ops, 9 ms with OMP_WAIT_POLICY=passive, and the
 *               same 9 ms with serial ones (2 threads, same run). The
 *               elementwise ops are a few percent of a step. */
#include "train_cpu.h"
#include "conv_cpu.h"
#include "train_args.h"
#include "train_elem.h"

#include <cblas.h>
#include <omp.h>

static int blas_gemm(int ta, int tb, int M, int N, int K, const float *A, int lda,
                     const float *B, int ldb, float beta, float *C, int ldc, void *stream)
{
    (void)stream;
    if (train_gemm_args("cpu-blas", ta, tb, M, N, K, lda, ldb, ldc)) return 1;
    cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans, M,
                N, K, 1.0f, A, lda, B, ldb, beta, C, ldc);
    return 0;
}

/* fn's call with OpenMP held to one thread (no team wakes up, so none spins). */
#define ONE_THREAD(call)                      \
    do {                                      \
        int nt_ = omp_get_max_threads();      \
        omp_set_num_threads(1);               \
        int rc_ = (call);                     \
        omp_set_num_threads(nt_);             \
        return rc_;                           \
    } while (0)

static int bias_add1(int rows, int cols, float *y, const float *b, void *s)
{
    ONE_THREAD(train_elem_bias_add(rows, cols, y, b, s));
}
static int bias_grad1(int rows, int cols, const float *dy, float *db, void *s)
{
    ONE_THREAD(train_elem_bias_grad(rows, cols, dy, db, s));
}
static int relu1(long n, const float *x, float *y, void *s) { ONE_THREAD(train_elem_relu(n, x, y, s)); }
static int relu_bwd1(long n, const float *y, const float *dy, float *dx, void *s)
{
    ONE_THREAD(train_elem_relu_bwd(n, y, dy, dx, s));
}
static int maxpool1(int planes, int H, int W, const float *x, float *y, int *arg, void *s)
{
    ONE_THREAD(train_elem_maxpool(planes, H, W, x, y, arg, s));
}
static int maxpool_bwd1(int planes, int H, int W, const float *dy, const int *arg, float *dx,
                        void *s)
{
    ONE_THREAD(train_elem_maxpool_bwd(planes, H, W, dy, arg, dx, s));
}
static int softmax_xent1(int rows, int classes, const float *z, const int *labels, float *loss,
                         float *dz, void *s)
{
    ONE_THREAD(train_elem_softmax_xent(rows, classes, z, labels, loss, dz, s));
}
static int sgd1(long n, float *p, const float *g, float *v, float lr, float momentum, void *s)
{
    ONE_THREAD(train_elem_sgd(n, p, g, v, lr, momentum, s));
}

const train_ops TRAIN_OPS_CPU_BLAS = {
    .gemm = blas_gemm,
    .conv = &CONV_OPS_CPU_BLAS,
    .bias_add = bias_add1,
    .bias_grad = bias_grad1,
    .relu = relu1,
    .relu_bwd = relu_bwd1,
    .maxpool = maxpool1,
    .maxpool_bwd = maxpool_bwd1,
    .softmax_xent = softmax_xent1,
    .sgd = sgd1,
};
