/* emu/tests/cublas.cu - (g) the cuBLAS subset against double references.
 *
 * Sgemm for all four transpose pairs with lda/ldb/ldc larger than the rows
 * and alpha, beta not 0 or 1 (padding between columns must stay untouched);
 * GemmEx in fp32 and in TF32 (different from fp32, within a TF32 bound);
 * StridedBatched; axpy, dot, nrm2, scal with strides; beta = 0 ignoring NaN
 * in C; invalid arguments; a host pointer given as a matrix fails the way a
 * GPU fails (sticky cudaErrorIllegalAddress at the next synchronization).
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <vector>

#include "test_util.h"

static unsigned g_seed = 99;
static float rnd()
{
    g_seed = g_seed * 1664525u + 1013904223u;
    return float(int(g_seed >> 9) % 2001 - 1000) / 1000.0f;
}

struct Mat { /* column-major rows x cols with leading dimension ld */
    int rows, cols, ld;
    std::vector<float> v;
    Mat(int r, int c, int l) : rows(r), cols(c), ld(l), v(size_t(l) * c)
    {
        for (float &x : v) x = rnd();
    }
    float at(int i, int j) const { return v[size_t(j) * ld + i]; }
    float *dev() const
    {
        float *d;
        CK(cudaMalloc(&d, v.size() * 4));
        CK(cudaMemcpy(d, v.data(), v.size() * 4, cudaMemcpyHostToDevice));
        CK(cudaDeviceSynchronize()); /* a pageable upload may land late: CUDAEMU_PAGEABLE_LATE */
        return d;
    }
};

/* op(X)(i, j) */
static float opat(const Mat &x, cublasOperation_t op, int i, int j)
{
    return op == CUBLAS_OP_N ? x.at(i, j) : x.at(j, i);
}

/* Max |C - ref| / (sum |alpha a b| + |beta c|) over C; checks the padding. */
static double gemm_error(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                         float alpha, const Mat &A, const Mat &B, float beta, const Mat &C0,
                         const std::vector<float> &C)
{
    double worst = 0;
    for (int j = 0; j < n; ++j) {
        for (int i = 0; i < C0.ld; ++i) {
            size_t idx = size_t(j) * C0.ld + i;
            if (i >= m) {
                if (C[idx] != C0.v[idx]) worst = 1e30; /* padding written */
                continue;
            }
            double r = 0, mag = 0;
            for (int p = 0; p < k; ++p) {
                double t = double(alpha) * opat(A, ta, i, p) * opat(B, tb, p, j);
                r += t;
                mag += std::fabs(t);
            }
            r += double(beta) * C0.v[idx];
            mag += std::fabs(double(beta) * C0.v[idx]);
            double e = std::fabs(C[idx] - r) / (mag + 1e-30);
            if (!(e == e)) e = 1e30;
            worst = std::fmax(worst, e);
        }
    }
    return worst;
}

int main()
{
    cublasHandle_t h;
    CB(cublasCreate(&h));
    const int m = 37, n = 29, k = 23;
    const float alpha = 1.5f, beta = -0.75f;
    const cublasOperation_t ops[2] = {CUBLAS_OP_N, CUBLAS_OP_T};
    for (cublasOperation_t ta : ops)
        for (cublasOperation_t tb : ops) {
            Mat A = ta == CUBLAS_OP_N ? Mat(m, k, m + 3) : Mat(k, m, k + 4);
            Mat B = tb == CUBLAS_OP_N ? Mat(k, n, k + 5) : Mat(n, k, n + 2);
            Mat C(m, n, m + 6);
            float *dA = A.dev(), *dB = B.dev(), *dC = C.dev();
            CB(cublasSgemm(h, ta, tb, m, n, k, &alpha, dA, A.ld, dB, B.ld, &beta, dC, C.ld));
            std::vector<float> out(C.v.size());
            CK(cudaMemcpy(out.data(), dC, out.size() * 4, cudaMemcpyDeviceToHost));
            double e = gemm_error(ta, tb, m, n, k, alpha, A, B, beta, C, out);
            std::printf("sgemm %c%c: relative error %.3g\n", ta == CUBLAS_OP_N ? 'N' : 'T',
                        tb == CUBLAS_OP_N ? 'N' : 'T', e);
            CHECK(e < 1e-6);

            /* GemmEx fp32 == Sgemm; TF32 differs but stays within 2^-10 relative */
            CK(cudaMemcpy(dC, C.v.data(), C.v.size() * 4, cudaMemcpyHostToDevice));
            CB(cublasGemmEx(h, ta, tb, m, n, k, &alpha, dA, CUDA_R_32F, A.ld, dB, CUDA_R_32F,
                            B.ld, &beta, dC, CUDA_R_32F, C.ld, CUBLAS_COMPUTE_32F,
                            CUBLAS_GEMM_DEFAULT));
            std::vector<float> ex(C.v.size());
            CK(cudaMemcpy(ex.data(), dC, ex.size() * 4, cudaMemcpyDeviceToHost));
            CHECK(gemm_error(ta, tb, m, n, k, alpha, A, B, beta, C, ex) < 1e-6);
            CK(cudaMemcpy(dC, C.v.data(), C.v.size() * 4, cudaMemcpyHostToDevice));
            CB(cublasGemmEx(h, ta, tb, m, n, k, &alpha, dA, CUDA_R_32F, A.ld, dB, CUDA_R_32F,
                            B.ld, &beta, dC, CUDA_R_32F, C.ld, CUBLAS_COMPUTE_32F_FAST_TF32,
                            CUBLAS_GEMM_DEFAULT_TENSOR_OP));
            std::vector<float> tf(C.v.size());
            CK(cudaMemcpy(tf.data(), dC, tf.size() * 4, cudaMemcpyDeviceToHost));
            double et = gemm_error(ta, tb, m, n, k, alpha, A, B, beta, C, tf);
            double diff = 0;
            for (size_t i = 0; i < tf.size(); ++i) diff = std::fmax(diff, std::fabs(tf[i] - out[i]));
            std::printf("  tf32: relative error %.3g, max |tf32 - fp32| %.3g\n", et, diff);
            CHECK(diff > 0);            /* the inputs were rounded */
            CHECK(et > 1e-6);           /* visibly less exact than fp32 ... */
            CHECK(et < 1.0 / 1024);     /* ... but within TF32's precision */
            CK(cudaFree(dA));
            CK(cudaFree(dB));
            CK(cudaFree(dC));
        }

    /* the handle's math mode turns Sgemm into TF32 too */
    {
        Mat A(m, k, m), B(k, n, k), C(m, n, m);
        float *dA = A.dev(), *dB = B.dev(), *dC = C.dev();
        cublasMath_t mode;
        CB(cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH));
        CB(cublasGetMathMode(h, &mode));
        CHECK(mode == CUBLAS_TF32_TENSOR_OP_MATH);
        CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, dA, m, dB, k, &beta, dC, m));
        std::vector<float> out(C.v.size());
        CK(cudaMemcpy(out.data(), dC, out.size() * 4, cudaMemcpyDeviceToHost));
        double e = gemm_error(CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, alpha, A, B, beta, C, out);
        CHECK(e > 1e-6 && e < 1.0 / 1024);
        CB(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));

        /* beta = 0: C is not read, so fresh NaN memory does not leak in */
        float *dN;
        CK(cudaMalloc(&dN, size_t(m) * n * 4));
        const float zero = 0.0f, one = 1.0f;
        CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, dA, m, dB, k, &zero, dN, m));
        std::vector<float> z(size_t(m) * n);
        CK(cudaMemcpy(z.data(), dN, z.size() * 4, cudaMemcpyDeviceToHost));
        int finite = 0;
        for (float x : z) finite += std::isfinite(x);
        CHECK_EQ_INT(finite, m * n);
        CK(cudaFree(dN));

        /* invalid arguments */
        CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, -1, n, k, &alpha, dA, m, dB, k, &beta, dC, m) ==
              CUBLAS_STATUS_INVALID_VALUE);
        CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, -2, &alpha, dA, m, dB, k, &beta, dC, m) ==
              CUBLAS_STATUS_INVALID_VALUE);
        CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, dA, m - 1, dB, k, &beta, dC, m) ==
              CUBLAS_STATUS_INVALID_VALUE);
        CHECK(cublasSgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, dA, k - 1, dB, k, &beta, dC, m) ==
              CUBLAS_STATUS_INVALID_VALUE);
        CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, dA, m, dB, k, &beta, dC, m - 1) ==
              CUBLAS_STATUS_INVALID_VALUE);
        CHECK(cublasSgemm(h, cublasOperation_t(9), CUBLAS_OP_N, m, n, k, &alpha, dA, m, dB, k, &beta,
                          dC, m) == CUBLAS_STATUS_INVALID_VALUE);
        CHECK(cublasSgemm(nullptr, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, dA, m, dB, k, &beta,
                          dC, m) == CUBLAS_STATUS_NOT_INITIALIZED);
        CHECK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, dA, CUDA_R_64F, m, dB,
                           CUDA_R_64F, k, &beta, dC, CUDA_R_64F, m, CUBLAS_COMPUTE_64F,
                           CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_NOT_SUPPORTED);
        CHECK(cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, dA, m, 0, dB, k,
                                        0, &beta, dC, m, 0, -1) == CUBLAS_STATUS_INVALID_VALUE);
        CK(cudaFree(dA));
        CK(cudaFree(dB));
        CK(cudaFree(dC));
    }

    /* strided batched, on a stream */
    {
        const int batch = 3, bm = 9, bn = 7, bk = 5;
        const long long sA = 60, sB = 50, sC = 80; /* larger than one matrix */
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
        cudaStream_t s;
        CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
        CB(cublasSetStream(h, s));
        cudaStream_t got;
        CB(cublasGetStream(h, &got));
        CHECK(got == s);
        CB(cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_T, bm, bn, bk, &alpha, dA, bm, sA, dB,
                                     bn, sB, &beta, dC, bm, sC, batch));
        std::vector<float> out(C.size());
        CK(cudaStreamSynchronize(s));
        CK(cudaMemcpy(out.data(), dC, out.size() * 4, cudaMemcpyDeviceToHost));
        double worst = 0;
        for (int b = 0; b < batch; ++b)
            for (int j = 0; j < bn; ++j)
                for (int i = 0; i < bm; ++i) {
                    double r = beta * double(C[size_t(b * sC + j * bm + i)]);
                    for (int p = 0; p < bk; ++p)
                        r += double(alpha) * A[size_t(b * sA + p * bm + i)] * B[size_t(b * sB + p * bn + j)];
                    worst = std::fmax(worst, std::fabs(out[size_t(b * sC + j * bm + i)] - r));
                }
        for (int b = 0; b < batch; ++b) /* beyond each C: untouched */
            CHECK(out[size_t(b * sC + bm * bn)] == C[size_t(b * sC + bm * bn)]);
        std::printf("strided batched: max error %.3g\n", worst);
        CHECK(worst < 1e-5);
        CB(cublasSetStream(h, 0));
        CK(cudaStreamDestroy(s));
        CK(cudaFree(dA));
        CK(cudaFree(dB));
        CK(cudaFree(dC));
    }

    /* level 1 */
    {
        const int nv = 50;
        std::vector<float> x(nv * 2), y(nv * 3);
        for (float &v : x) v = rnd();
        for (float &v : y) v = rnd();
        float *dx, *dy;
        CK(cudaMalloc(&dx, x.size() * 4));
        CK(cudaMalloc(&dy, y.size() * 4));
        CK(cudaMemcpy(dx, x.data(), x.size() * 4, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(dy, y.data(), y.size() * 4, cudaMemcpyHostToDevice));
        CK(cudaDeviceSynchronize()); /* a pageable upload may land late: CUDAEMU_PAGEABLE_LATE */
        float dot = 0, nrm = 0;
        double rdot = 0, rnrm = 0;
        for (int i = 0; i < nv; ++i) {
            rdot += double(x[size_t(2 * i)]) * y[size_t(3 * i)];
            rnrm += double(x[size_t(2 * i)]) * x[size_t(2 * i)];
        }
        rnrm = std::sqrt(rnrm);
        CB(cublasSdot(h, nv, dx, 2, dy, 3, &dot));
        CB(cublasSnrm2(h, nv, dx, 2, &nrm));
        CHECK(std::fabs(dot - rdot) < 1e-5);
        CHECK(std::fabs(nrm - rnrm) < 1e-5);
        const float a = -0.5f, sc = 3.0f;
        CB(cublasSaxpy(h, nv, &a, dx, 2, dy, 3));
        CB(cublasSscal(h, nv, &sc, dx, 2));
        std::vector<float> x2(x.size()), y2(y.size());
        CK(cudaMemcpy(x2.data(), dx, x.size() * 4, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(y2.data(), dy, y.size() * 4, cudaMemcpyDeviceToHost));
        for (int i = 0; i < nv * 3; ++i) {
            float want = i % 3 == 0 ? y[size_t(i)] + a * x[size_t(i / 3 * 2)] : y[size_t(i)];
            CHECK(std::fabs(y2[size_t(i)] - want) < 1e-6);
        }
        for (int i = 0; i < nv * 2; ++i)
            CHECK(x2[size_t(i)] == (i % 2 == 0 ? sc * x[size_t(i)] : x[size_t(i)]));

        /* device pointer mode: the result stays on the device */
        float *dres;
        CK(cudaMalloc(&dres, 4));
        CB(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE));
        CB(cublasSnrm2(h, nv, dx, 2, dres));
        CB(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
        float hres = 0;
        CK(cudaMemcpy(&hres, dres, 4, cudaMemcpyDeviceToHost));
        CHECK(std::fabs(hres - sc * rnrm) < 1e-4);
        CHECK(cublasSdot(h, nv, dx, 1, dy, 1, nullptr) == CUBLAS_STATUS_INVALID_VALUE);
        CK(cudaFree(dres));

#ifdef __CUDAEMU__
        /* a host array as an operand: fails when it runs, like a GPU's illegal address */
        CB(cublasSaxpy(h, nv, &a, x.data(), 1, dy, 1));
        CHECK(cudaDeviceSynchronize() == cudaErrorIllegalAddress);
        CHECK(cublasSscal(h, nv, &sc, dx, 1) == CUBLAS_STATUS_EXECUTION_FAILED);
        CK(cudaDeviceReset());
        CB(cublasDestroy(h));
        CB(cublasCreate(&h));
#else
        CK(cudaFree(dx));
        CK(cudaFree(dy));
#endif
    }
    CB(cublasDestroy(h));
    CHECK(cublasDestroy(nullptr) == CUBLAS_STATUS_NOT_INITIALIZED);
    return test_exit("cublas");
}
