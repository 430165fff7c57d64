/* emu/tests/cublas_gemm_ex.cu - cublasGemmEx with fp16 and bf16 data.
 *
 *   every transpose pair, C of the inputs' type or fp32, alpha/beta on a
 *       read C and beta = 0 on a NaN C, column-major with padded leading
 *       dimensions (C's padding rows untouched): inputs k/8 for small k, so
 *       the fp32 result is exact and must equal the double reference (a
 *       16-bit C: the reference rounded once to it)
 *   rounding: a 16-bit C rounded once from the fp32 sum (fp16 2048 + 1 ->
 *       2048, 2048 + 3 -> 2052; bf16 256 + 1 -> 256), an fp32 C keeps 2049;
 *       fp32 data with CUBLAS_COMPUTE_32F_FAST_TF32 rounds the inputs
 *   refused with CUBLAS_STATUS_NOT_SUPPORTED: CUBLAS_COMPUTE_16F, mixed
 *       A/B types, 16-bit data with a FAST compute type, fp16 A/B with bf16 C
 */
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "test_util.h"

static float small_value(unsigned &s) /* k/8, k in [-4, 4] */
{
    s = s * 1664525u + 1013904223u;
    return (float)((int)((s >> 16) % 9) - 4) / 8.0f;
}

/* 16-bit element of type t from / to float (host) */
static uint16_t enc(cudaDataType t, float x)
{
    return t == CUDA_R_16F ? __half_as_ushort(__float2half_rn(x))
                           : __bfloat16_as_ushort(__float2bfloat16_rn(x));
}
static float dec(cudaDataType t, uint16_t u)
{
    return t == CUDA_R_16F ? __half2float(__ushort_as_half(u))
                           : __bfloat162float(__ushort_as_bfloat16(u));
}

/* op(A) m x k, op(B) k x n, C m x n, column-major with ld = rows + 3 */
static void check_exact(cublasHandle_t h, cudaDataType t, cudaDataType ct, cublasOperation_t ta,
                        cublasOperation_t tb, float alpha, float beta, unsigned seed)
{
    const int m = 19, n = 13, k = 37;
    const int ar = ta == CUBLAS_OP_N ? m : k, ac = ta == CUBLAS_OP_N ? k : m;
    const int br = tb == CUBLAS_OP_N ? k : n, bc = tb == CUBLAS_OP_N ? n : k;
    const int lda = ar + 3, ldb = br + 3, ldc = m + 3;
    const bool c16 = ct != CUDA_R_32F;
    std::vector<uint16_t> A((size_t)lda * ac), B((size_t)ldb * bc);
    for (auto &x : A) x = enc(t, small_value(seed));
    for (auto &x : B) x = enc(t, small_value(seed));
    const size_t nc = (size_t)ldc * n, cb = c16 ? 2 : 4;
    std::vector<unsigned char> C(nc * cb), got(nc * cb);
    for (size_t i = 0; i < nc; i++) {
        const float v = beta == 0.0f ? NAN : small_value(seed);
        if (c16) {
            const uint16_t u = enc(ct, v);
            std::memcpy(&C[i * 2], &u, 2);
        } else {
            std::memcpy(&C[i * 4], &v, 4);
        }
    }
    auto cget = [&](const std::vector<unsigned char> &c, size_t i) {
        if (c16) {
            uint16_t u;
            std::memcpy(&u, &c[i * 2], 2);
            return dec(ct, u);
        }
        float f;
        std::memcpy(&f, &c[i * 4], 4);
        return f;
    };
    void *dA, *dB, *dC;
    CK(cudaMalloc(&dA, A.size() * 2));
    CK(cudaMalloc(&dB, B.size() * 2));
    CK(cudaMalloc(&dC, C.size()));
    CK(cudaMemcpy(dA, A.data(), A.size() * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dB, B.data(), B.size() * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dC, C.data(), C.size(), cudaMemcpyHostToDevice));
    CB(cublasGemmEx(h, ta, tb, m, n, k, &alpha, dA, t, lda, dB, t, ldb, &beta, dC, ct, ldc,
                    CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    CK(cudaMemcpy(got.data(), dC, C.size(), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int j = 0; j < n; j++)
        for (int i = 0; i < ldc; i++) {
            const size_t at = (size_t)j * ldc + i;
            if (i >= m) { /* padding rows: untouched */
                bad += std::memcmp(&got[at * cb], &C[at * cb], cb) != 0;
                continue;
            }
            double s = 0;
            for (int kk = 0; kk < k; kk++) {
                const float a = dec(t, ta == CUBLAS_OP_N ? A[(size_t)kk * lda + i] : A[(size_t)i * lda + kk]);
                const float b = dec(t, tb == CUBLAS_OP_N ? B[(size_t)j * ldb + kk] : B[(size_t)kk * ldb + j]);
                s += (double)a * b;
            }
            double ref = alpha * s + (beta == 0.0f ? 0.0 : beta * (double)cget(C, at));
            if (c16) ref = dec(ct, enc(ct, (float)ref)); /* exact in fp32, rounded once */
            bad += (double)cget(got, at) != ref;
        }
    if (bad)
        std::fprintf(stderr, "%s x %s -> %s op %d/%d alpha %g beta %g: %d wrong\n",
                     t == CUDA_R_16F ? "fp16" : "bf16", t == CUDA_R_16F ? "fp16" : "bf16",
                     c16 ? "16-bit" : "fp32", (int)ta, (int)tb, alpha, beta, bad);
    CHECK(bad == 0);
    CK(cudaFree(dA));
    CK(cudaFree(dB));
    CK(cudaFree(dC));
}

/* C[0] = a0 * b0 + c0 through a 1 x 1 x 1 GemmEx of types t (A, B) and ct (C). */
static float one(cublasHandle_t h, cudaDataType t, cudaDataType ct, cublasComputeType_t comp,
                 float a0, float b0, float c0)
{
    const float alpha = 1.0f, beta = 1.0f;
    const size_t eb = t == CUDA_R_32F ? 4 : 2, cb = ct == CUDA_R_32F ? 4 : 2;
    unsigned char a[4], b[4], c[4];
    if (eb == 2) {
        const uint16_t ua = enc(t, a0), ub = enc(t, b0);
        std::memcpy(a, &ua, 2);
        std::memcpy(b, &ub, 2);
    } else {
        std::memcpy(a, &a0, 4);
        std::memcpy(b, &b0, 4);
    }
    if (cb == 2) {
        const uint16_t uc = enc(ct, c0);
        std::memcpy(c, &uc, 2);
    } else {
        std::memcpy(c, &c0, 4);
    }
    void *d;
    CK(cudaMalloc(&d, 12));
    CK(cudaMemcpy(d, a, eb, cudaMemcpyHostToDevice));
    CK(cudaMemcpy((char *)d + 4, b, eb, cudaMemcpyHostToDevice));
    CK(cudaMemcpy((char *)d + 8, c, cb, cudaMemcpyHostToDevice));
    CB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, &alpha, d, t, 1, (char *)d + 4, t, 1,
                    &beta, (char *)d + 8, ct, 1, comp, CUBLAS_GEMM_DEFAULT));
    CK(cudaMemcpy(c, (char *)d + 8, cb, cudaMemcpyDeviceToHost));
    CK(cudaFree(d));
    float r;
    if (cb == 2) {
        uint16_t u;
        std::memcpy(&u, c, 2);
        r = dec(ct, u);
    } else {
        std::memcpy(&r, c, 4);
    }
    return r;
}

static void check_refused(cublasHandle_t h)
{
    void *d;
    CK(cudaMalloc(&d, 64));
    const float one_f = 1.0f, zero = 0.0f;
    struct { cudaDataType a, b, c; cublasComputeType_t ct; } bad[] = {
        {CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_16F},
        {CUDA_R_16F, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F},
        {CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F_FAST_16F},
        {CUDA_R_16BF, CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F_FAST_TF32},
        {CUDA_R_16F, CUDA_R_16F, CUDA_R_16BF, CUBLAS_COMPUTE_32F},
        {CUDA_R_32F, CUDA_R_32F, CUDA_R_16F, CUBLAS_COMPUTE_32F},
    };
    for (auto &c : bad)
        CHECK_EQ_INT(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one_f, d, c.a, 2, d, c.b,
                                  2, &zero, d, c.c, 2, c.ct, CUBLAS_GEMM_DEFAULT),
                     CUBLAS_STATUS_NOT_SUPPORTED);
    CK(cudaFree(d));
}

int main()
{
    cublasHandle_t h;
    CB(cublasCreate(&h));
    const cudaDataType types[] = {CUDA_R_16F, CUDA_R_16BF};
    const cublasOperation_t ops[] = {CUBLAS_OP_N, CUBLAS_OP_T};
    unsigned seed = 1;
    for (cudaDataType t : types)
        for (cudaDataType ct : {t, CUDA_R_32F})
            for (cublasOperation_t ta : ops)
                for (cublasOperation_t tb : ops) {
                    check_exact(h, t, ct, ta, tb, 1.0f, 0.0f, seed++);
                    check_exact(h, t, ct, ta, tb, 0.5f, -2.0f, seed++);
                }
    /* rounding once, at the end */
    CHECK(one(h, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, 1.0f, 1.0f, 2048.0f) == 2048.0f);
    CHECK(one(h, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, 1.5f, 2.0f, 2048.0f) == 2052.0f);
    CHECK(one(h, CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 1.0f, 1.0f, 2048.0f) == 2049.0f);
    CHECK(one(h, CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F_PEDANTIC, 1.0f, 1.0f, 256.0f) ==
          256.0f);
    CHECK(one(h, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F, 1.0f, 1.0f, 256.0f) == 257.0f);
    /* bf16 products exact in fp32: (1 + 2^-7)^2 */
    CHECK(one(h, CUDA_R_16BF, CUDA_R_32F, CUBLAS_COMPUTE_32F, 1.0f + 0x1p-7f, 1.0f + 0x1p-7f,
              0.0f) == 1.0f + 0x1p-6f + 0x1p-14f);
    /* fp32 data: TF32 rounds the inputs (1 + 2^-12 -> 1), plain fp32 does not */
    CHECK(one(h, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 1.0f + 0x1p-12f, 1.0f,
              0.0f) == 1.0f);
    CHECK(one(h, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 1.0f + 0x1p-12f, 1.0f, 0.0f) ==
          1.0f + 0x1p-12f);
    check_refused(h);
    CB(cublasDestroy(h));
    return test_exit("cublas_gemm_ex");
}
