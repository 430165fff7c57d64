/* emu/tests/cublas_batched.cu - cublasSgemmStridedBatched, as the training
 * tables' gemm_batched calls it (kernels/gemm_cublas.cu) and beyond, and
 * cublasGemmStridedBatchedEx (fp32, and fp16 A, B, C) on the same batches.
 *
 * Values against a double reference for all four transpose pairs, batches
 * with gaps between the matrices (which must stay untouched), a shared B
 * (stride 0) and interleaved matrices (strides smaller than a matrix), on a
 * non-blocking stream (lazy streams: the result appears only after the
 * synchronization), alpha and beta in device memory, beta = 0 ignoring NaN
 * in C; the row-major operand swap of gemm_cublas.cu; the status codes of
 * bad arguments (each one alone), of a null or destroyed handle, and the
 * empty batch; and, emulator only, an operand whose batch runs past its
 * allocation (at either end, a negative stride included) failing when it
 * runs, as a GPU's illegal address does.
 */
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "test_util.h"

static unsigned g_seed = 7;
static float rnd()
{
    g_seed = g_seed * 1664525u + 1013904223u;
    return float(int(g_seed >> 9) % 2001 - 1000) / 1000.0f;
}

/* A batch of column-major rows x cols matrices (ld), matrix b at b * stride. */
struct Batch {
    int rows, cols, ld, count;
    long long stride;
    std::vector<float> v;
    Batch(int r, int c, int l, long long s, int n)
        : rows(r), cols(c), ld(l), count(n), stride(s),
          v(size_t((n - 1) * s) + size_t(c - 1) * l + size_t(r))
    {
        for (float &x : v) x = rnd();
    }
    float at(int b, int i, int j) const { return v[size_t(b * stride) + size_t(j) * ld + i]; }
    bool member(size_t idx) const /* idx belongs to some matrix of the batch */
    {
        for (int b = 0; b < count; ++b) {
            long long o = (long long)idx - b * stride;
            if (o >= 0 && o % ld < rows && o / ld < cols) return true;
        }
        return false;
    }
    float *dev() const
    {
        float *d;
        CK(cudaMalloc(&d, v.size() * 4));
        CK(cudaMemcpy(d, v.data(), v.size() * 4, cudaMemcpyHostToDevice));
        CK(cudaDeviceSynchronize()); /* a pageable upload may land late: CUDAEMU_PAGEABLE_LATE */
        return d;
    }
};

static float opat(const Batch &x, cublasOperation_t op, int b, int i, int j)
{
    return op == CUBLAS_OP_N ? x.at(b, i, j) : x.at(b, j, i);
}

/* Largest |C - ref| / (sum |alpha a b| + |beta c|) over the batch's C; 1e30
 * when an element outside every C matrix changed or a NaN came out. */
static double batch_error(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                          float alpha, const Batch &A, const Batch &B, float beta,
                          const Batch &C0, const std::vector<float> &C)
{
    double worst = 0;
    for (size_t idx = 0; idx < C.size(); ++idx)
        if (!C0.member(idx) && !(C[idx] == C0.v[idx])) worst = 1e30;
    for (int b = 0; b < C0.count; ++b)
        for (int j = 0; j < n; ++j)
            for (int i = 0; i < m; ++i) {
                const size_t idx = size_t(b * C0.stride) + size_t(j) * C0.ld + i;
                const double c0 = beta == 0.0f ? 0.0 : double(C0.v[idx]);
                double r = double(beta) * c0, mag = std::fabs(double(beta) * c0);
                for (int p = 0; p < k; ++p) {
                    const double t = double(alpha) * opat(A, ta, b, i, p) * opat(B, tb, b, p, j);
                    r += t;
                    mag += std::fabs(t);
                }
                double e = std::fabs(C[idx] - r) / (mag + 1e-30);
                if (!(e == e)) e = 1e30;
                worst = std::fmax(worst, e);
            }
    return worst;
}

/* One batched product on stream s, checked: C = alpha op(A) op(B) + beta C. */
static void batched_case(cublasHandle_t h, cudaStream_t s, cublasOperation_t ta,
                         cublasOperation_t tb, int m, int n, int k, const Batch &A,
                         const Batch &B, Batch C, float alpha, float beta, const char *what,
                         bool ex = false)
{
    if (beta == 0.0f)
        for (size_t i = 0; i < C.v.size(); ++i)
            if (C.member(i)) C.v[i] = NAN; /* not read when beta is 0 */
    float *dA = A.dev(), *dB = B.dev(), *dC = C.dev();
    CB(cublasSetStream(h, s));
    if (ex) /* cublasGemmStridedBatchedEx with fp32 data */
        CB(cublasGemmStridedBatchedEx(h, ta, tb, m, n, k, &alpha, dA, CUDA_R_32F, A.ld, A.stride,
                                      dB, CUDA_R_32F, B.ld, B.stride, &beta, dC, CUDA_R_32F, C.ld,
                                      C.stride, C.count, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    else
        CB(cublasSgemmStridedBatched(h, ta, tb, m, n, k, &alpha, dA, A.ld, A.stride, dB, B.ld,
                                     B.stride, &beta, dC, C.ld, C.stride, C.count));
    std::vector<float> out(C.v.size());
    CK(cudaStreamSynchronize(s));
    CK(cudaMemcpy(out.data(), dC, out.size() * 4, cudaMemcpyDeviceToHost));
    const double e = batch_error(ta, tb, m, n, k, alpha, A, B, beta, C, out);
    std::printf("%-34s %c%c: relative error %.3g\n", what, ta == CUBLAS_OP_N ? 'N' : 'T',
                tb == CUBLAS_OP_N ? 'N' : 'T', e);
    CHECK(e < 1e-6);
    CK(cudaFree(dA));
    CK(cudaFree(dB));
    CK(cudaFree(dC));
}

/* cublasGemmStridedBatchedEx with fp16 A, B and C (fp32 compute): the
 * inputs rounded to half first (so the double reference sees the same
 * values), the result within half's rounding of the reference. */
static void batched_case_half(cublasHandle_t h, cudaStream_t s, cublasOperation_t ta,
                              cublasOperation_t tb, int m, int n, int k, Batch A, Batch B,
                              Batch C, float alpha, float beta)
{
    std::vector<__half> ha, hb, hc;
    for (Batch *x : {&A, &B, &C}) {
        std::vector<__half> &hx = x == &A ? ha : x == &B ? hb : hc;
        for (float &v : x->v) {
            hx.push_back(__float2half(v));
            v = __half2float(hx.back());
        }
    }
    __half *dA, *dB, *dC;
    CK(cudaMalloc(&dA, ha.size() * 2));
    CK(cudaMalloc(&dB, hb.size() * 2));
    CK(cudaMalloc(&dC, hc.size() * 2));
    CK(cudaMemcpy(dA, ha.data(), ha.size() * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dB, hb.data(), hb.size() * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dC, hc.data(), hc.size() * 2, cudaMemcpyHostToDevice));
    CK(cudaDeviceSynchronize());
    CB(cublasSetStream(h, s));
    CB(cublasGemmStridedBatchedEx(h, ta, tb, m, n, k, &alpha, dA, CUDA_R_16F, A.ld, A.stride, dB,
                                  CUDA_R_16F, B.ld, B.stride, &beta, dC, CUDA_R_16F, C.ld,
                                  C.stride, C.count, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    CK(cudaStreamSynchronize(s));
    CK(cudaMemcpy(hc.data(), dC, hc.size() * 2, cudaMemcpyDeviceToHost));
    std::vector<float> out(hc.size());
    for (size_t i = 0; i < hc.size(); ++i) out[i] = __half2float(hc[i]);
    const double e = batch_error(ta, tb, m, n, k, alpha, A, B, beta, C, out);
    std::printf("%-34s %c%c: relative error %.3g\n", "GemmStridedBatchedEx fp16",
                ta == CUBLAS_OP_N ? 'N' : 'T', tb == CUBLAS_OP_N ? 'N' : 'T', e);
    CHECK(e < 1.0 / 1024); /* one rounding to half (2^-11), relative to the terms */
    CK(cudaFree(dA));
    CK(cudaFree(dB));
    CK(cudaFree(dC));
}

int main()
{
    cublasHandle_t h;
    CB(cublasCreate(&h));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const cublasOperation_t ops[2] = {CUBLAS_OP_N, CUBLAS_OP_T};
    const int m = 13, n = 9, k = 11, batch = 4;
    for (cublasOperation_t ta : ops)
        for (cublasOperation_t tb : ops) {
            const int ar = ta == CUBLAS_OP_N ? m : k, ac = ta == CUBLAS_OP_N ? k : m;
            const int br = tb == CUBLAS_OP_N ? k : n, bc = tb == CUBLAS_OP_N ? n : k;
            /* gaps: ld above the rows, strides above the matrices */
            Batch A(ar, ac, ar + 3, (long long)(ar + 3) * ac + 5, batch);
            Batch B(br, bc, br + 2, (long long)(br + 2) * bc + 7, batch);
            Batch C(m, n, m + 4, (long long)(m + 4) * n + 3, batch);
            batched_case(h, s, ta, tb, m, n, k, A, B, C, 1.5f, -0.5f, "gaps");
            batched_case(h, s, ta, tb, m, n, k, A, B, C, 1.0f, 0.0f, "gaps, beta 0 on NaN");
            batched_case(h, s, ta, tb, m, n, k, A, B, C, 1.5f, -0.5f, "GemmStridedBatchedEx fp32",
                         true);
            batched_case_half(h, s, ta, tb, m, n, k, A, B, C, 1.5f, -0.5f);
            Batch B1(br, bc, br, 0, batch); /* one B for the whole batch */
            batched_case(h, s, ta, tb, m, n, k, A, B1, C, 0.75f, 0.25f, "shared B (stride 0)");
        }

    /* interleaved: matrix b's columns are columns b, b+batch, ... of one
     * array (ld a multiple of the rows, stride one column) */
    {
        Batch A(m, k, m * batch, m, batch), B(k, n, k * batch, k, batch);
        Batch C(m, n, m * batch, m, batch);
        batched_case(h, s, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, A, B, C, 1.0f, 0.5f,
                     "interleaved");
    }

    /* row-major through the operand swap (kernels/gemm_cublas.cu): row-major
     * C_b (M x N, ldc) = A_b (M x K, lda) B_b^T (B_b: N x K, ldb) is the
     * column-major call (OP_T, OP_N, N, M, K, B, ldb, sB, A, lda, sA, C, ldc, sC) */
    {
        const int M = 6, N = 5, K = 7, lda = 8, ldb = 9, ldc = 6;
        const long long sA = M * lda + 2, sB = N * ldb + 1, sC = M * ldc + 4;
        std::vector<float> A(size_t(sA) * batch), B(size_t(sB) * batch), C(size_t(sC) * batch);
        for (float &x : A) x = rnd();
        for (float &x : B) x = rnd();
        for (float &x : C) x = rnd();
        float *dA, *dB, *dC;
        CK(cudaMalloc(&dA, A.size() * 4));
        CK(cudaMalloc(&dB, B.size() * 4));
        CK(cudaMalloc(&dC, C.size() * 4));
        CK(cudaMemcpy(dA, A.data(), A.size() * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dB, B.data(), B.size() * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dC, C.data(), C.size() * 4, cudaMemcpyHostToDevice));
        CK(cudaDeviceSynchronize()); /* a pageable upload may land late: CUDAEMU_PAGEABLE_LATE */
        const float one = 1.0f, zero = 0.0f;
        CB(cublasSgemmStridedBatched(h, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, &one, dB, ldb, sB, dA,
                                     lda, sA, &zero, dC, ldc, sC, batch));
        std::vector<float> out(C.size());
        CK(cudaStreamSynchronize(s));
        CK(cudaMemcpy(out.data(), dC, out.size() * 4, cudaMemcpyDeviceToHost));
        double worst = 0;
        for (int b = 0; b < batch; ++b)
            for (int i = 0; i < M; ++i)
                for (int j = 0; j < N; ++j) {
                    double r = 0;
                    for (int p = 0; p < K; ++p)
                        r += double(A[size_t(b * sA + i * lda + p)]) * B[size_t(b * sB + j * ldb + p)];
                    worst = std::fmax(worst, std::fabs(out[size_t(b * sC + i * ldc + j)] - r));
                }
        for (int b = 0; b < batch; ++b) /* each C's tail past its last row: untouched */
            CHECK(out[size_t(b * sC + M * ldc)] == C[size_t(b * sC + M * ldc)]);
        std::printf("row-major A B^T: max error %.3g\n", worst);
        CHECK(worst < 1e-5);

        /* alpha and beta in device memory, read when the product runs */
        float *dscal;
        const float scal[2] = {2.0f, -1.0f};
        CK(cudaMalloc(&dscal, sizeof scal));
        CK(cudaMemcpy(dscal, scal, sizeof scal, cudaMemcpyHostToDevice));
        CK(cudaDeviceSynchronize()); /* a pageable upload may land late: CUDAEMU_PAGEABLE_LATE */
        CB(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
        CB(cublasSgemmStridedBatched(h, CUBLAS_OP_T, CUBLAS_OP_N, N, M, K, dscal, dB, ldb, sB,
                                     dA, lda, sA, dscal + 1, dC, ldc, sC, batch));
        CB(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
        std::vector<float> out2(C.size());
        CK(cudaStreamSynchronize(s));
        CK(cudaMemcpy(out2.data(), dC, out2.size() * 4, cudaMemcpyDeviceToHost));
        worst = 0; /* C = 2 A B^T - C_before = A B^T, as C_before = A B^T */
        for (int b = 0; b < batch; ++b)
            for (int i = 0; i < M; ++i)
                for (int j = 0; j < N; ++j) {
                    const size_t idx = size_t(b * sC + i * ldc + j);
                    worst = std::fmax(worst, std::fabs(out2[idx] - out[idx]));
                }
        std::printf("device-pointer alpha, beta: max error %.3g\n", worst);
        CHECK(worst < 1e-5);
        CK(cudaFree(dscal));

        /* status codes: each bad argument alone */
        const cublasOperation_t N_ = CUBLAS_OP_N, T_ = CUBLAS_OP_T;
        auto call = [&](cublasHandle_t hh, cublasOperation_t a, cublasOperation_t b, int mm,
                        int nn, int kk, const float *al, int la, int lb, const float *be, int lc,
                        int cnt) {
            return cublasSgemmStridedBatched(hh, a, b, mm, nn, kk, al, dB, la, sB, dA, lb, sA, be,
                                             dC, lc, sC, cnt);
        };
        /* the good call (T, N, N=5, M=6, K=7, ldb 9, lda 8, ldc 6) succeeds */
        CHECK(call(h, T_, N_, N, M, K, &one, ldb, lda, &zero, ldc, batch) ==
              CUBLAS_STATUS_SUCCESS);
        CHECK(call(nullptr, T_, N_, N, M, K, &one, ldb, lda, &zero, ldc, batch) ==
              CUBLAS_STATUS_NOT_INITIALIZED);
        CHECK(call(h, T_, N_, -1, M, K, &one, ldb, lda, &zero, ldc, batch) ==
              CUBLAS_STATUS_INVALID_VALUE);
        CHECK(call(h, T_, N_, N, -1, K, &one, ldb, lda, &zero, ldc, batch) ==
              CUBLAS_STATUS_INVALID_VALUE);
        CHECK(call(h, T_, N_, N, M, -1, &one, ldb, lda, &zero, ldc, batch) ==
              CUBLAS_STATUS_INVALID_VALUE);
        CHECK(call(h, T_, N_, N, M, K, &one, ldb, lda, &zero, ldc, -1) ==
              CUBLAS_STATUS_INVALID_VALUE);
        CHECK(call(h, T_, N_, N, M, K, &one, K - 1, lda, &zero, ldc, batch) ==
              CUBLAS_STATUS_INVALID_VALUE); /* op T: lda >= k */
        CHECK(call(h, N_, N_, N, M, K, &one, N - 1, lda, &zero, ldc, batch) ==
              CUBLAS_STATUS_INVALID_VALUE); /* op N: lda >= m */
        CHECK(call(h, T_, N_, N, M, K, &one, ldb, K - 1, &zero, ldc, batch) ==
              CUBLAS_STATUS_INVALID_VALUE); /* op N: ldb >= k */
        CHECK(call(h, T_, T_, N, M, K, &one, ldb, M - 1, &zero, ldc, batch) ==
              CUBLAS_STATUS_INVALID_VALUE); /* op T: ldb >= n */
        CHECK(call(h, T_, N_, N, M, K, &one, ldb, lda, &zero, N - 1, batch) ==
              CUBLAS_STATUS_INVALID_VALUE); /* ldc >= m */
        CHECK(call(h, cublasOperation_t(7), N_, N, M, K, &one, ldb, lda, &zero, ldc, batch) ==
              CUBLAS_STATUS_INVALID_VALUE);
        CHECK(call(h, T_, N_, N, M, K, nullptr, ldb, lda, &zero, ldc, batch) ==
              CUBLAS_STATUS_INVALID_VALUE);
        CHECK(call(h, T_, N_, N, M, K, &one, ldb, lda, nullptr, ldc, batch) ==
              CUBLAS_STATUS_INVALID_VALUE);
        /* nothing to do: success, C untouched */
        std::vector<float> before(C.size()), after(C.size());
        CK(cudaStreamSynchronize(s));
        CK(cudaMemcpy(before.data(), dC, before.size() * 4, cudaMemcpyDeviceToHost));
        CHECK(call(h, T_, N_, N, M, K, &one, ldb, lda, &zero, ldc, 0) == CUBLAS_STATUS_SUCCESS);
        CHECK(call(h, T_, N_, 0, M, K, &one, ldb, lda, &zero, ldc, batch) ==
              CUBLAS_STATUS_SUCCESS);
        CK(cudaStreamSynchronize(s));
        CK(cudaMemcpy(after.data(), dC, after.size() * 4, cudaMemcpyDeviceToHost));
        int same = 0;
        for (size_t i = 0; i < C.size(); ++i) same += before[i] == after[i];
        CHECK_EQ_INT(same, (long long)C.size());

#ifdef __CUDAEMU__
        /* a batch running past its allocation: the call is queued, the
         * fault comes when it runs (sticky, as a GPU's illegal address) */
        CHECK(cublasSgemmStridedBatched(h, T_, N_, N, M, K, &one, dB, ldb, sB, dA, lda, sA,
                                        &zero, dC, ldc, sC, batch + 1) == CUBLAS_STATUS_SUCCESS);
        CHECK(cudaStreamSynchronize(s) == cudaErrorIllegalAddress);
        CHECK(call(h, T_, N_, N, M, K, &one, ldb, lda, &zero, ldc, batch) ==
              CUBLAS_STATUS_EXECUTION_FAILED);
        CK(cudaDeviceReset());
        CB(cublasDestroy(h));
        CB(cublasCreate(&h));
        CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        CK(cudaMalloc(&dA, A.size() * 4));
        CK(cudaMalloc(&dB, B.size() * 4));
        CK(cudaMalloc(&dC, C.size() * 4));
        CB(cublasSetStream(h, s));
        /* a negative stride reaching before the allocation faults too */
        CHECK(cublasSgemmStridedBatched(h, T_, N_, N, M, K, &one, dB + sB, ldb, -sB, dA, lda, sA,
                                        &zero, dC, ldc, sC, batch) == CUBLAS_STATUS_SUCCESS);
        CHECK(cudaStreamSynchronize(s) == cudaErrorIllegalAddress);
        CK(cudaDeviceReset());
        CB(cublasDestroy(h));
        CB(cublasCreate(&h));
        CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        CK(cudaMalloc(&dA, A.size() * 4));
        CK(cudaMalloc(&dB, B.size() * 4));
        CK(cudaMalloc(&dC, C.size() * 4));
        CK(cudaMemcpy(dA, A.data(), A.size() * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dB, B.data(), B.size() * 4, cudaMemcpyHostToDevice));
        CK(cudaDeviceSynchronize()); /* a pageable upload may land late: CUDAEMU_PAGEABLE_LATE */
        CB(cublasSetStream(h, s));
        /* ... and one inside it runs the matrices from the last to the first */
        CB(cublasSgemmStridedBatched(h, T_, N_, N, M, K, &one, dB + (batch - 1) * sB, ldb, -sB,
                                     dA + (batch - 1) * sA, lda, -sA, &zero,
                                     dC + (batch - 1) * sC, ldc, -sC, batch));
        std::vector<float> rev(C.size());
        CK(cudaStreamSynchronize(s));
        CK(cudaMemcpy(rev.data(), dC, rev.size() * 4, cudaMemcpyDeviceToHost));
        worst = 0;
        for (int b = 0; b < batch; ++b)
            for (int i = 0; i < M; ++i)
                for (int j = 0; j < N; ++j) {
                    const size_t idx = size_t(b * sC + i * ldc + j);
                    worst = std::fmax(worst, std::fabs(rev[idx] - out[idx]));
                }
        CHECK(worst < 1e-5);
#endif
        CB(cublasSetStream(h, 0));
        CK(cudaFree(dA));
        CK(cudaFree(dB));
        CK(cudaFree(dC));
    }
    CB(cublasDestroy(h));
    /* a destroyed handle */
    CHECK(cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, nullptr, nullptr, 1, 0,
                                    nullptr, 1, 0, nullptr, nullptr, 1, 0, 1) ==
          CUBLAS_STATUS_NOT_INITIALIZED);
    CK(cudaStreamDestroy(s));
    return test_exit("cublas_batched");
}
