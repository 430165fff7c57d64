/* kernels/gemm_cublas.cu - cuda-cublas, cuda-cublas-tf32 and the reduced-
 * precision cublas-dt: the library baselines (contract: kernels/gemm_cuda.h).
 *
 * Row-major to column-major.  cuBLAS is column-major.  A row-major M x N
 * matrix C with leading dimension ldc has the same memory as the
 * column-major N x M matrix C^T with leading dimension ldc, likewise A (K x M
 * column-major, lda) and B (N x K column-major, ldb).  Row-major C = A*B is
 * therefore column-major C^T = B^T * A^T, computed without any transpose by
 *     cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m = N, n = M, k = K,
 *                 &alpha, B, ldb, A, lda, &beta, C, ldc)
 * i.e. the shape (N, M, K), B first with ldb, then A with lda, C with ldc.
 * Transposed operands (gemm_cublas_t, ops/train_ops.h's gemm): row-major
 * C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T, and the memory of a
 * row-major B^T operand (B stored N x K) read column-major is B itself, so
 * tb becomes cuBLAS's first transpose and ta its second:
 *     cublasSgemm(h, tb ? OP_T : OP_N, ta ? OP_T : OP_N, N, M, K, ...)
 * with the same (B, ldb), (A, lda), (C, ldc) as above.
 *
 * Reduced precision (gemm_cublas_dt) and TF32 (gemm_cublas_tf32) go through
 * cublasGemmEx with the same swap: A, B, C of one cudaDataType (CUDA_R_32F for
 * tf32, CUDA_R_16BF, CUDA_R_16F) and the compute type that makes cuBLAS do
 * what the dtype says (CUBLAS_COMPUTE_32F_FAST_TF32: fp32 data rounded to
 * TF32 inside the product; CUBLAS_COMPUTE_32F for 16-bit data: fp32
 * accumulation, C rounded once, which takes the math mode
 * CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION: without it a split-K
 * kernel may sum its partials in 16 bits), alpha = 1, beta = 0 for the
 * dtype entry.
 *
 * Strided batches (gemm_cublas_batched, ops/train_ops.h's gemm_batched): the
 * same swap, each matrix's stride going with it:
 *     cublasSgemmStridedBatched(h, opb, opa, N, M, K, &alpha, B, ldb, sB,
 *                               A, lda, sA, &beta, C, ldc, sC, batch)
 *
 * Handles: one per device, created on the first call on that device (so a
 * warm-up call absorbs its cost) and cached; each call sets the stream
 * (cublasSetStream) and the math mode.  gemm_cublas_release destroys them.
 * The mutex guards only the creation of handles: the stream and math mode
 * are set on the shared handle per call, so one host thread at a time may
 * run GEMMs on a device (bench uses one).
 */
#include <pthread.h>

#include "gemm_cuda.h"
#include "gemm_launch.h"
#include "cuda_check.h"
#include "gpu_handles.h"

#define GEMM_CUBLAS_MAX_DEVICES 64

static cublasHandle_t g_handles[GEMM_CUBLAS_MAX_DEVICES];
static pthread_mutex_t g_handles_lock = PTHREAD_MUTEX_INITIALIZER;

/* The cached handle of the current device, created on first use. */
static int cublas_handle(cublasHandle_t *out)
{
    int dev = -1;
    cublasHandle_t h = NULL;
    CUDA_TRY(cudaGetDevice(&dev));
    if (dev < 0 || dev >= GEMM_CUBLAS_MAX_DEVICES) {
        err_set("gemm_cublas: device %d beyond the %d handles cached", dev,
                GEMM_CUBLAS_MAX_DEVICES);
        return -1;
    }
    pthread_mutex_lock(&g_handles_lock);
    if (!g_handles[dev]) {
        cublasStatus_t s = cublasCreate(&h);
        if (s != CUBLAS_STATUS_SUCCESS) {
            pthread_mutex_unlock(&g_handles_lock);
            err_set("cublasCreate on device %d: %s (%s) at %s:%d", dev,
                    cublasGetStatusName(s), cublasGetStatusString(s), __FILE__, __LINE__);
            return -1;
        }
        g_handles[dev] = h;
        /* device recovery and the end of a run release every library's handles */
        gpu_handles_register("cublas", gemm_cublas_release);
    }
    *out = g_handles[dev];
    pthread_mutex_unlock(&g_handles_lock);
    return 0;
fail:
    return -1;
}

/* The handle of this device on this stream, with math mode `math`:
 * CUBLAS_DEFAULT_MATH for fp32 data (no TF32 for Sgemm; for GemmEx the
 * compute type decides), with CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION
 * for 16-bit outputs (see cublas_gemm_ex). */
static int cublas_begin(cudaStream_t stream, cublasMath_t math, cublasHandle_t *h)
{
    if (cublas_handle(h) != 0)
        return -1;
    CUBLAS_TRY(cublasSetStream(*h, stream));
    CUBLAS_TRY(cublasSetMathMode(*h, math));
    return 0;
fail:
    return -1;
}

/* Row-major C = alpha A*B + beta C through cublasGemmEx, A, B, C of type t
 * (scalars float), compute type ct: column-major C^T = B^T A^T. Arguments
 * already checked. A 16-bit C runs with reduced-precision reduction
 * disallowed: cuBLAS's default math lets a split-K kernel sum its partials
 * in the output type, rounding each element several times, where our
 * tolerance (harness/check.h) models one rounding of the fp32 sum. */
static int cublas_gemm_ex(cudaDataType t, cublasComputeType_t ct, int M, int N, int K,
                          float alpha, const void *dA, int lda, const void *dB, int ldb,
                          float beta, void *dC, int ldc, cudaStream_t stream)
{
    cublasHandle_t h = NULL;
    const cublasMath_t math =
        t == CUDA_R_32F ? CUBLAS_DEFAULT_MATH
                        : (cublasMath_t)(CUBLAS_DEFAULT_MATH |
                                         CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION);
    if (cublas_begin(stream, math, &h) != 0)
        return -1;
    CUBLAS_TRY(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, M, K, &alpha, dB, t, ldb, dA, t,
                            lda, &beta, dC, t, ldc, ct, CUBLAS_GEMM_DEFAULT));
    if (bench_cuda_sync_launches)
        CUDA_TRY(cudaStreamSynchronize(stream));
    return 0;
fail:
    return -1;
}

/* The fp32 backends: Sgemm (fp32 math) or, with batch >= 1,
 * SgemmStridedBatched over the strided batch (batch 0: one plain GEMM,
 * strides unused). Row-major C = A*B as column-major C^T = B^T * A^T:
 * (N, M, K), B, A, C, and the strides follow their matrices. */
static int cublas_gemm(const char *who, int ta, int tb, int M, int N, int K,
                       float alpha, const float *dA, int lda, long long sA, const float *dB,
                       int ldb, long long sB, float beta, float *dC, int ldc, long long sC,
                       int batch, cudaStream_t stream)
{
    cublasHandle_t h = NULL;
    const cublasOperation_t opb = tb ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t opa = ta ? CUBLAS_OP_T : CUBLAS_OP_N;
    if (!gemm_cuda_args_ok_t(who, ta, tb, M, N, K, dA, lda, dB, ldb, dC, ldc))
        return -1;
    if (batch != 0 && !gemm_cuda_batch_ok(who, M, N, ldc, sA, sB, sC, batch))
        return -1;
    if (cublas_begin(stream, CUBLAS_DEFAULT_MATH, &h) != 0)
        return -1;
    if (batch != 0)
        CUBLAS_TRY(cublasSgemmStridedBatched(h, opb, opa, N, M, K, &alpha, dB, ldb, sB, dA, lda,
                                             sA, &beta, dC, ldc, sC, batch));
    else
        CUBLAS_TRY(cublasSgemm(h, opb, opa, N, M, K, &alpha, dB, ldb, dA, lda,
                               &beta, dC, ldc));
    if (bench_cuda_sync_launches)
        CUDA_TRY(cudaStreamSynchronize(stream));
    return 0;
fail:
    return -1;
}

extern "C" int gemm_cublas(int M, int N, int K, float alpha, const float *dA, int lda,
                           const float *dB, int ldb, float beta, float *dC, int ldc,
                           cudaStream_t stream)
{
    return cublas_gemm("gemm_cublas", 0, 0, M, N, K, alpha, dA, lda, 0, dB, ldb, 0, beta, dC,
                       ldc, 0, 0, stream);
}

extern "C" int gemm_cublas_tf32(int M, int N, int K, float alpha, const float *dA, int lda,
                                const float *dB, int ldb, float beta, float *dC, int ldc,
                                cudaStream_t stream)
{
    if (!gemm_cuda_args_ok("gemm_cublas_tf32", M, N, K, dA, lda, dB, ldb, dC, ldc))
        return -1;
    return cublas_gemm_ex(CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, M, N, K, alpha, dA, lda, dB,
                          ldb, beta, dC, ldc, stream);
}

extern "C" int gemm_cublas_dt(dtype_t dt, int M, int N, int K, const void *dA, int lda,
                              const void *dB, int ldb, void *dC, int ldc, cudaStream_t stream)
{
    const char *who = "gemm_cublas_dt";
    cudaDataType t;
    cublasComputeType_t ct = CUBLAS_COMPUTE_32F;
    switch (dt) {
    case DTYPE_TF32: t = CUDA_R_32F; ct = CUBLAS_COMPUTE_32F_FAST_TF32; break;
    case DTYPE_BF16: t = CUDA_R_16BF; break;
    case DTYPE_FP16: t = CUDA_R_16F; break;
    default:
        err_set("%s: dtype %s not supported (tf32, bf16, fp16 only)", who, dtype_name(dt));
        return -1;
    }
    if (!gemm_cuda_args_ok(who, M, N, K, (const float *)dA, lda, (const float *)dB, ldb,
                           (const float *)dC, ldc))
        return -1;
    return cublas_gemm_ex(t, ct, M, N, K, 1.0f, dA, lda, dB, ldb, 0.0f, dC, ldc, stream);
}

extern "C" int gemm_cublas_t(int ta, int tb, int M, int N, int K, float alpha, const float *dA,
                             int lda, const float *dB, int ldb, float beta, float *dC, int ldc,
                             cudaStream_t stream)
{
    return cublas_gemm("gemm_cublas", ta, tb, M, N, K, alpha, dA, lda, 0, dB, ldb, 0, beta,
                       dC, ldc, 0, 0, stream);
}

extern "C" int gemm_cublas_batched(int ta, int tb, int M, int N, int K, float alpha,
                                   const float *dA, int lda, long long sA, const float *dB,
                                   int ldb, long long sB, float beta, float *dC, int ldc,
                                   long long sC, int batch, cudaStream_t stream)
{
    /* batch < 1 must not read as "not batched" */
    if (batch < 1) {
        err_set("gemm_cublas: bad batch=%d (must be >= 1)", batch);
        return -1;
    }
    return cublas_gemm("gemm_cublas", ta, tb, M, N, K, alpha, dA, lda, sA, dB, ldb, sB, beta,
                       dC, ldc, sC, batch, stream);
}

/* Best effort (nothing to report to): each handle is destroyed on its own
 * device, and the caller's current device is restored. */
extern "C" void gemm_cublas_release(void)
{
    int cur = -1;
    const int have_cur = cudaGetDevice(&cur) == cudaSuccess;
    pthread_mutex_lock(&g_handles_lock);
    for (int d = 0; d < GEMM_CUBLAS_MAX_DEVICES; ++d)
        if (g_handles[d]) {
            if (cudaSetDevice(d) == cudaSuccess)
                cublasDestroy(g_handles[d]);
            g_handles[d] = NULL;
        }
    pthread_mutex_unlock(&g_handles_lock);
    if (have_cur)
        cudaSetDevice(cur);
}
