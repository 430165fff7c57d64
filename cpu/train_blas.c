/* cpu/train_blas.c - TRAIN_OPS_CPU_BLAS (cpu/train_cpu.h; contract:
 * ops/train_ops.h): what a C programmer with OpenBLAS would write.
 *   gemm        OpenBLAS cblas_sgemm, row-major, CblasTrans for ta / tb
 *   gemm_batched cblas_sgemm on each matrix in turn (OpenBLAS 0.3.21, the
 *               one installed, has no batched sgemm)
 *   conv        CONV_OPS_CPU_BLAS (im2col + sgemm, Caffe's)
 *   the rest    cpu/train_elem.c, cpu/train_seq_<op>.c (OpenBLAS has no such
 *               ops), on ONE thread:
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
#include "train_seq.h"
#include "train_naive_seq.h" /* amp_scale, amp_unscale */

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

static int blas_gemm_batched(int ta, int tb, int M, int N, int K, const float *A, int lda,
                             long long sA, const float *B, int ldb, long long sB, float beta,
                             float *C, int ldc, long long sC, int batch, void *stream)
{
    (void)stream;
    if (train_batched_args("cpu-blas", ta, tb, M, N, K, lda, sA, ldb, sB, ldc, sC, batch))
        return 1;
    for (int i = 0; i < batch; i++)
        cblas_sgemm(CblasRowMajor, ta ? CblasTrans : CblasNoTrans, tb ? CblasTrans : CblasNoTrans,
                    M, N, K, 1.0f, A + i * sA, lda, B + i * sB, ldb, beta, C + i * sC, ldc);
    return 0;
}

static int add1(long n, const float *a, const float *b, float *y, void *s)
{
    ONE_THREAD(train_seq_add(n, a, b, y, s));
}
static int scale1(long n, float a, float *x, void *s) { ONE_THREAD(train_seq_scale(n, a, x, s)); }
static int round1(long n, dtype_t dt, const float *x, float *y, void *s)
{
    ONE_THREAD(train_seq_round(n, dt, x, y, s));
}
static int permute1(int A, int B, int C, int D, const float *x, float *y, void *s)
{
    ONE_THREAD(train_seq_permute(A, B, C, D, x, y, s));
}
static int attn_softmax1(long rows, int T, float scale, const float *z, float *p, void *s)
{
    ONE_THREAD(train_seq_attn_softmax(rows, T, scale, z, p, s));
}
static int attn_softmax_bwd1(long rows, int T, float scale, const float *p, const float *dp,
                             float *dz, void *s)
{
    ONE_THREAD(train_seq_attn_softmax_bwd(rows, T, scale, p, dp, dz, s));
}
static int embedding1(int rows, int dim, const int *ids, int vocab, const float *table, float *y,
                      int accumulate, void *s)
{
    ONE_THREAD(train_seq_embedding(rows, dim, ids, vocab, table, y, accumulate, s));
}
static int embedding_bwd1(int rows, int dim, const int *ids, int vocab, const float *dy,
                          float *dtable, void *s)
{
    ONE_THREAD(train_seq_embedding_bwd(rows, dim, ids, vocab, dy, dtable, s));
}
static int layernorm1(int rows, int dim, const float *x, const float *w, const float *b, float *y,
                      float *mean, float *rstd, void *s)
{
    ONE_THREAD(train_seq_layernorm(rows, dim, x, w, b, y, mean, rstd, s));
}
static int layernorm_bwd1(int rows, int dim, const float *dy, const float *x, const float *w,
                          const float *mean, const float *rstd, float *dx, float *dw, float *db,
                          void *s)
{
    ONE_THREAD(train_seq_layernorm_bwd(rows, dim, dy, x, w, mean, rstd, dx, dw, db, s));
}
static int gelu1(long n, const float *x, float *y, void *s) { ONE_THREAD(train_seq_gelu(n, x, y, s)); }
static int gelu_bwd1(long n, const float *x, const float *dy, float *dx, void *s)
{
    ONE_THREAD(train_seq_gelu_bwd(n, x, dy, dx, s));
}
static int lstm_cell1(int rows, int H, const float *pre, const float *c_prev, float *gates,
                      float *c, float *h, void *s)
{
    ONE_THREAD(train_seq_lstm_cell(rows, H, pre, c_prev, gates, c, h, s));
}
static int lstm_cell_bwd1(int rows, int H, const float *dh, const float *dc, const float *gates,
                          const float *c_prev, const float *c, float *dpre, float *dc_prev,
                          void *s)
{
    ONE_THREAD(train_seq_lstm_cell_bwd(rows, H, dh, dc, gates, c_prev, c, dpre, dc_prev, s));
}
static int adamw1(long n, float *p, const float *g, float *m, float *v, float *t, float lr,
                  float b1, float b2, float eps, float wd, void *s)
{
    ONE_THREAD(train_seq_adamw(n, p, g, m, v, t, lr, b1, b2, eps, wd, s));
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
    .gemm_batched = blas_gemm_batched,
    .add = add1,
    .scale = scale1,
    .round = round1,
    .amp_scale = train_cpu_amp_scale,
    .amp_unscale = train_cpu_amp_unscale,
    .permute = permute1,
    .attn_softmax = attn_softmax1,
    .attn_softmax_bwd = attn_softmax_bwd1,
    .embedding = embedding1,
    .embedding_bwd = embedding_bwd1,
    .layernorm = layernorm1,
    .layernorm_bwd = layernorm_bwd1,
    .gelu = gelu1,
    .gelu_bwd = gelu_bwd1,
    .lstm_cell = lstm_cell1,
    .lstm_cell_bwd = lstm_cell_bwd1,
    .adamw = adamw1,
};
