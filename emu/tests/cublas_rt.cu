/* emu/tests/cublas_rt.cu - the cuBLAS helpers and the cuBLASLt subset
 * cuda-samples use: cublasSet/GetVector with strides,
 * Set/GetMatrix with leading dimensions (+Async), cuBLAS's argument checks,
 * an fp32 cublasLtMatmul with a transpose and a bias epilogue against a host
 * reference, and an unsupported type giving CUBLAS_STATUS_NOT_SUPPORTED. */
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cmath>
#include <vector>

#include "test_util.h"

#define CB_EQ(call) CHECK_EQ_INT((call), CUBLAS_STATUS_SUCCESS) /* counted, not fatal (CB exits) */

static void vectors()
{
    const int n = 5;
    float hx[3 * n], hy[2 * n];
    for (int i = 0; i < 3 * n; ++i) hx[i] = float(i);
    float *d = nullptr;
    CK(cudaMalloc((void **)&d, 2 * n * sizeof(float)));
    CK(cudaMemset(d, 0, 2 * n * sizeof(float)));
    /* every 3rd host element to every 2nd device element */
    CB_EQ(cublasSetVector(n, sizeof(float), hx, 3, d, 2));
    for (float &y : hy) y = -1;
    CB_EQ(cublasGetVector(2 * n, sizeof(float), d, 1, hy, 1));
    for (int i = 0; i < n; ++i) {
        CHECK(hy[2 * i] == float(3 * i));
        CHECK(hy[2 * i + 1] == 0.0f); /* untouched */
    }
    float back[n];
    CB_EQ(cublasGetVector(n, sizeof(float), d, 2, back, 1));
    for (int i = 0; i < n; ++i) CHECK(back[i] == float(3 * i));
    /* argument checks as cuBLAS */
    CHECK_EQ_INT(cublasSetVector(n, sizeof(float), hx, 0, d, 1), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_EQ_INT(cublasSetVector(n, sizeof(float), hx, 1, d, -1), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_EQ_INT(cublasSetVector(n, 0, hx, 1, d, 1), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_EQ_INT(cublasSetVector(-1, 4, hx, 1, d, 1), CUBLAS_STATUS_INVALID_VALUE);
    CB_EQ(cublasSetVector(0, 4, hx, 1, d, 1));
    /* a host pointer where device memory belongs; a span past the block */
    CHECK_EQ_INT(cublasSetVector(n, 4, hx, 1, hy, 1), CUBLAS_STATUS_MAPPING_ERROR);
    CHECK_EQ_INT(cublasSetVector(n, 4, hx, 1, d, 3), CUBLAS_STATUS_MAPPING_ERROR);
    cudaGetLastError();

    /* async on a stream: read only after synchronizing */
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    float *pin = nullptr;
    CK(cudaMallocHost((void **)&pin, n * sizeof(float)));
    for (int i = 0; i < n; ++i) pin[i] = 100.0f + float(i);
    CB_EQ(cublasSetVectorAsync(n, sizeof(float), pin, 1, d, 1, s));
    float out[n] = {};
    CB_EQ(cublasGetVectorAsync(n, sizeof(float), d, 1, out, 1, s)); /* pageable: waits */
    for (int i = 0; i < n; ++i) CHECK(out[i] == 100.0f + float(i));
    CK(cudaStreamDestroy(s));
    CK(cudaFreeHost(pin));
    CK(cudaFree(d));
}

static void matrices()
{
    const int rows = 3, cols = 4, lda = 5, ldb = 4;
    std::vector<double> A(size_t(lda) * cols), B(size_t(lda) * cols, -7.0);
    for (size_t i = 0; i < A.size(); ++i) A[i] = double(i);
    double *d = nullptr;
    CK(cudaMalloc((void **)&d, size_t(ldb) * cols * sizeof(double)));
    CB_EQ(cublasSetMatrix(rows, cols, sizeof(double), A.data(), lda, d, ldb));
    CB_EQ(cublasGetMatrix(rows, cols, sizeof(double), d, ldb, B.data(), lda));
    for (int j = 0; j < cols; ++j)
        for (int i = 0; i < lda; ++i)
            CHECK(B[size_t(j) * lda + i] == (i < rows ? A[size_t(j) * lda + i] : -7.0));
    CHECK_EQ_INT(cublasSetMatrix(rows, cols, 8, A.data(), 2, d, ldb), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_EQ_INT(cublasSetMatrix(rows, cols, 8, A.data(), lda, d, 0), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_EQ_INT(cublasSetMatrix(-1, cols, 8, A.data(), lda, d, ldb), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_EQ_INT(cublasGetMatrix(rows, cols, 0, d, ldb, B.data(), lda), CUBLAS_STATUS_INVALID_VALUE);
    CHECK_EQ_INT(cublasGetMatrix(rows, cols, 8, A.data(), lda, B.data(), lda),
                 CUBLAS_STATUS_MAPPING_ERROR);
    cudaGetLastError();
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    std::vector<double> C(size_t(rows) * cols, 0);
    CB_EQ(cublasSetMatrixAsync(rows, cols, sizeof(double), A.data(), lda, d, ldb, s));
    CB_EQ(cublasGetMatrixAsync(rows, cols, sizeof(double), d, ldb, C.data(), rows, s));
    CK(cudaStreamSynchronize(s));
    for (int j = 0; j < cols; ++j)
        for (int i = 0; i < rows; ++i) CHECK(C[size_t(j) * rows + i] == A[size_t(j) * lda + i]);
    CK(cudaStreamDestroy(s));
    CK(cudaFree(d));
}

static void lt_matmul()
{
    /* D (m x n) = alpha * A^T * B + beta * C + bias, A stored k x m */
    const int m = 7, n = 5, k = 9, lda = 10, ldb = 9, ldc = 8;
    const float alpha = 1.5f, beta = 0.5f;
    std::vector<float> A(size_t(lda) * m), B(size_t(ldb) * n), C(size_t(ldc) * n), bias(m);
    for (size_t i = 0; i < A.size(); ++i) A[i] = float(int(i * 7 % 13) - 6) * 0.25f;
    for (size_t i = 0; i < B.size(); ++i) B[i] = float(int(i * 5 % 11) - 5) * 0.5f;
    for (size_t i = 0; i < C.size(); ++i) C[i] = float(int(i % 7) - 3);
    for (int i = 0; i < m; ++i) bias[i] = float(i) * 0.125f;
    float *dA, *dB, *dC, *dD, *dbias;
    CK(cudaMalloc((void **)&dA, A.size() * 4));
    CK(cudaMalloc((void **)&dB, B.size() * 4));
    CK(cudaMalloc((void **)&dC, C.size() * 4));
    CK(cudaMalloc((void **)&dD, size_t(m) * n * 4));
    CK(cudaMalloc((void **)&dbias, size_t(m) * 4));
    CK(cudaMemcpy(dA, A.data(), A.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dB, B.data(), B.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dC, C.data(), C.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dbias, bias.data(), bias.size() * 4, cudaMemcpyHostToDevice));

    cublasLtHandle_t lt;
    CB_EQ(cublasLtCreate(&lt));
    cublasLtMatmulDesc_t op;
    CB_EQ(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    cublasOperation_t t = CUBLAS_OP_T;
    CB_EQ(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t));
    CHECK_EQ_INT(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &t, 2),
                 CUBLAS_STATUS_INVALID_VALUE);
    uint32_t ep = CUBLASLT_EPILOGUE_BIAS;
    CB_EQ(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &ep, sizeof ep));
    const void *bp = dbias;
    CB_EQ(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bp, sizeof bp));
    int32_t got = -1;
    size_t written = 0;
    CB_EQ(cublasLtMatmulDescGetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &got, sizeof got, &written));
    CHECK_EQ_INT(got, CUBLAS_OP_T);
    CHECK_EQ_INT(written, 4);

    cublasLtMatrixLayout_t la, lb, lc, ld;
    CB_EQ(cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, k, m, lda));
    CB_EQ(cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, k, n, ldb));
    CB_EQ(cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, m, n, ldc));
    CB_EQ(cublasLtMatrixLayoutCreate(&ld, CUDA_R_32F, m, n, m));
    cublasLtMatmulPreference_t pref;
    CB_EQ(cublasLtMatmulPreferenceCreate(&pref));
    uint64_t ws = 1 << 20;
    CB_EQ(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws,
                                            sizeof ws));
    cublasLtMatmulHeuristicResult_t res[4];
    int nres = 0;
    CB_EQ(cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, ld, pref, 4, res, &nres));
    CHECK(nres >= 1);
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    CB_EQ(cublasLtMatmul(lt, op, &alpha, dA, la, dB, lb, &beta, dC, lc, dD, ld, &res[0].algo,
                      nullptr, 0, s));
    std::vector<float> D(size_t(m) * n);
    CK(cudaStreamSynchronize(s));
    CK(cudaMemcpy(D.data(), dD, D.size() * 4, cudaMemcpyDeviceToHost));
    double worst = 0;
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) {
            double acc = 0;
            for (int p = 0; p < k; ++p)
                acc += double(A[size_t(i) * lda + p]) * double(B[size_t(j) * ldb + p]);
            double ref = alpha * acc + beta * C[size_t(j) * ldc + i] + bias[i];
            worst = std::fmax(worst, std::fabs(ref - D[size_t(j) * m + i]));
        }
    CHECK(worst < 1e-4);

    /* inconsistent shapes: INVALID_VALUE; an fp64 layout: NOT_SUPPORTED */
    CHECK_EQ_INT(cublasLtMatmul(lt, op, &alpha, dA, lb, dB, lb, &beta, dC, lc, dD, ld, nullptr,
                                nullptr, 0, s),
                 CUBLAS_STATUS_INVALID_VALUE);
    cublasLtMatrixLayout_t l64;
    CB_EQ(cublasLtMatrixLayoutCreate(&l64, CUDA_R_64F, k, m, lda));
    CHECK_EQ_INT(cublasLtMatmul(lt, op, &alpha, dA, l64, dB, lb, &beta, dC, lc, dD, ld, nullptr,
                                nullptr, 0, s),
                 CUBLAS_STATUS_NOT_SUPPORTED);
    nres = 7;
    CHECK_EQ_INT(cublasLtMatmulAlgoGetHeuristic(lt, op, l64, lb, lc, ld, pref, 4, res, &nres),
                 CUBLAS_STATUS_NOT_SUPPORTED);
    CHECK_EQ_INT(nres, 0);
    cublasLtMatmulDesc_t op16;
    CB_EQ(cublasLtMatmulDescCreate(&op16, CUBLAS_COMPUTE_16F, CUDA_R_16F));
    CHECK_EQ_INT(cublasLtMatmul(lt, op16, &alpha, dB, lb, dB, lb, &beta, dC, lc, dD, ld, nullptr,
                                nullptr, 0, s),
                 CUBLAS_STATUS_NOT_SUPPORTED);
    uint32_t gelu = CUBLASLT_EPILOGUE_GELU;
    CB_EQ(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &gelu, sizeof gelu));
    CHECK_EQ_INT(cublasLtMatmul(lt, op, &alpha, dA, la, dB, lb, &beta, dC, lc, dD, ld, nullptr,
                                nullptr, 0, s),
                 CUBLAS_STATUS_NOT_SUPPORTED);

    CB_EQ(cublasLtMatmulDescDestroy(op16));
    CB_EQ(cublasLtMatrixLayoutDestroy(l64));
    CB_EQ(cublasLtMatmulPreferenceDestroy(pref));
    for (cublasLtMatrixLayout_t l : {la, lb, lc, ld}) CB_EQ(cublasLtMatrixLayoutDestroy(l));
    CB_EQ(cublasLtMatmulDescDestroy(op));
    CB_EQ(cublasLtDestroy(lt));
    CK(cudaStreamDestroy(s));
    for (float *p : {dA, dB, dC, dD, dbias}) CK(cudaFree(p));
}

int main()
{
    vectors();
    matrices();
    lt_matmul();
    if (g_test_failures) return 1;
    std::printf("cublas_rt: all checks passed\n");
    return 0;
}
