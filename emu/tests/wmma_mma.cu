/* emu/tests/wmma_mma.cu - nvcuda::wmma (mma.h): fragments, loads and stores in
 * both layouts, mma_sync at fp16 (float and __half accumulators), bf16 and
 * tf32, against a double reference.
 *
 *   one warp, 16x16xK: every layout of a and b and of the accumulator's load
 *       and store; an element-wise scaling of x[] (each entry has one owner);
 *       inputs k/8 for small integers k, so every product and sum is exact and
 *       the result must equal the reference bit for bit
 *   rounding: tf32 operands truncated by mma_sync, __float_to_tf32 rounding
 *       to nearest with ties away from zero; a __half accumulator rounded once
 *       (2048 + 1 -> 2048) where a float one keeps 2049
 *   tiled: a 64x96xK GEMM by blocks of 4 warps (2 x 2, each 32x48, i.e. 2x3
 *       fragments) over 2 x 1 blocks, a and b staged through shared memory
 *       tile by tile with __syncthreads, random inputs checked within the fp32
 *       accumulation bound
 *   argv[1] = misaligned | partial-warp: a load from a pointer off the 32-byte
 *       grid, a block of 48 threads; each must fail the launch with one line.
 */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <mma.h>

#include "test_util.h"

using namespace nvcuda;

/* element conversions on the host and in kernels */
template <typename T> struct elem;
template <> struct elem<__half> {
    typedef __half storage;
    static __host__ __device__ storage from(float x) { return __float2half_rn(x); }
    static __host__ __device__ float to(storage x) { return __half2float(x); }
};
template <> struct elem<__nv_bfloat16> {
    typedef __nv_bfloat16 storage;
    static __host__ __device__ storage from(float x) { return __float2bfloat16_rn(x); }
    static __host__ __device__ float to(storage x) { return __bfloat162float(x); }
};
template <> struct elem<wmma::precision::tf32> {
    typedef float storage;
    static __host__ __device__ storage from(float x) { return x; }
    static __host__ __device__ float to(storage x) { return x; }
};

/* One warp: D = scale * A * B + C, A (16 x K) in layout LA with lda, B (K x 16)
 * in LB with ldb, C loaded in lc (ldc), D stored in ld (ldd), acc type TC. */
template <typename T, int K, typename LA, typename LB, typename TC>
__global__ void one_tile(const typename elem<T>::storage *A, unsigned lda,
                         const typename elem<T>::storage *B, unsigned ldb, const TC *C,
                         unsigned ldc, wmma::layout_t lc, TC *D, unsigned ldd, wmma::layout_t ld,
                         float scale, int *nelem)
{
    wmma::fragment<wmma::matrix_a, 16, 16, K, T, LA> a;
    wmma::fragment<wmma::matrix_b, 16, 16, K, T, LB> b;
    wmma::fragment<wmma::accumulator, 16, 16, K, TC> c;
    wmma::load_matrix_sync(a, A, lda);
    wmma::load_matrix_sync(b, B, ldb);
    wmma::load_matrix_sync(c, C, ldc, lc);
    for (int i = 0; i < a.num_elements; i++) a.x[i] = elem<T>::from(elem<T>::to(a.x[i]) * scale);
    wmma::mma_sync(c, a, b, c);
    wmma::store_matrix_sync(D, c, ldd, ld);
    if (threadIdx.x == 0) {
        nelem[0] = a.num_elements;
        nelem[1] = b.num_elements;
        nelem[2] = c.num_elements;
    }
}

/* index of (r, c) in a matrix of leading dimension ld, row- or column-major */
static size_t at(int r, int c, int ld, bool col) { return col ? (size_t)c * ld + r : (size_t)r * ld + c; }

static float small_value(unsigned &s) /* k/8, k in [-4, 4]: exact in every format */
{
    s = s * 1664525u + 1013904223u;
    return (float)((int)((s >> 16) % 9) - 4) / 8.0f;
}

template <typename T, int K, typename LA, typename LB, typename TC>
static void check_one_tile(const char *name, bool c_col, bool d_col, unsigned seed)
{
    typedef typename elem<T>::storage S;
    const bool a_col = std::is_same<LA, wmma::col_major>::value;
    const bool b_col = std::is_same<LB, wmma::col_major>::value;
    /* leading dimensions beyond the extent (multiples of 16 bytes) */
    const unsigned lda = (a_col ? 16 : K) + 16 / sizeof(S), ldb = (b_col ? K : 16) + 16 / sizeof(S);
    const unsigned ldc = 16 + 16 / sizeof(TC), ldd = 16 + 2 * 16 / sizeof(TC);
    const size_t na = (size_t)lda * (a_col ? K : 16), nb = (size_t)ldb * (b_col ? 16 : K);
    const size_t nc = (size_t)ldc * 16, nd = (size_t)ldd * 16;
    std::vector<S> hA(na), hB(nb);
    std::vector<TC> hC(nc), hD(nd);
    std::vector<double> ref(256);
    for (size_t i = 0; i < na; i++) hA[i] = elem<T>::from(small_value(seed));
    for (size_t i = 0; i < nb; i++) hB[i] = elem<T>::from(small_value(seed));
    for (size_t i = 0; i < nc; i++) hC[i] = (TC)small_value(seed);
    const float scale = 2.0f;
    for (int r = 0; r < 16; r++)
        for (int c = 0; c < 16; c++) {
            double s = (double)(float)hC[at(r, c, ldc, c_col)];
            for (int k = 0; k < K; k++)
                s += scale * (double)elem<T>::to(hA[at(r, k, lda, a_col)]) *
                     elem<T>::to(hB[at(k, c, ldb, b_col)]);
            ref[r * 16 + c] = s;
        }
    S *dA, *dB;
    TC *dC, *dD;
    int *dn, hn[3] = {0, 0, 0};
    CK(cudaMalloc(&dA, na * sizeof(S)));
    CK(cudaMalloc(&dB, nb * sizeof(S)));
    CK(cudaMalloc(&dC, nc * sizeof(TC)));
    CK(cudaMalloc(&dD, nd * sizeof(TC)));
    CK(cudaMalloc(&dn, sizeof hn));
    CK(cudaMemcpy(dA, hA.data(), na * sizeof(S), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dB, hB.data(), nb * sizeof(S), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dC, hC.data(), nc * sizeof(TC), cudaMemcpyHostToDevice));
    CK(cudaMemset(dD, 0, nd * sizeof(TC)));
    one_tile<T, K, LA, LB, TC><<<1, 32>>>(dA, lda, dB, ldb, dC, ldc,
                                          c_col ? wmma::mem_col_major : wmma::mem_row_major, dD,
                                          ldd, d_col ? wmma::mem_col_major : wmma::mem_row_major,
                                          scale, dn);
    CK(cudaGetLastError());
    CK(cudaMemcpy(hD.data(), dD, nd * sizeof(TC), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(hn, dn, sizeof hn, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int r = 0; r < 16; r++)
        for (int c = 0; c < 16; c++)
            bad += (double)(float)hD[at(r, c, ldd, d_col)] != ref[r * 16 + c];
    /* the padding of D stays zero */
    for (int line = 0; line < 16; line++)
        for (unsigned off = 16; off < ldd; off++) bad += (float)hD[(size_t)line * ldd + off] != 0.0f;
    if (bad) std::fprintf(stderr, "%s: %d wrong element(s)\n", name, bad);
    CHECK(bad == 0);
    CHECK_EQ_INT(hn[0], 16 * K / 32);
    CHECK_EQ_INT(hn[1], 16 * K / 32);
    CHECK_EQ_INT(hn[2], 8);
    CK(cudaFree(dA));
    CK(cudaFree(dB));
    CK(cudaFree(dC));
    CK(cudaFree(dD));
    CK(cudaFree(dn));
}

/* every layout of one type */
template <typename T, int K, typename TC>
static void check_layouts(const char *name, unsigned seed)
{
    check_one_tile<T, K, wmma::row_major, wmma::row_major, TC>(name, false, false, seed);
    check_one_tile<T, K, wmma::row_major, wmma::col_major, TC>(name, true, false, seed + 1);
    check_one_tile<T, K, wmma::col_major, wmma::row_major, TC>(name, false, true, seed + 2);
    check_one_tile<T, K, wmma::col_major, wmma::col_major, TC>(name, true, true, seed + 3);
}

/* ---- rounding -------------------------------------------------------------- */

/* d = a * b + c on the first entries only (the rest zero). */
template <typename T, int K, typename TC>
__global__ void first_entry(float a0, float b0, float c0, TC *d00, float *tf)
{
    __shared__ typename elem<T>::storage A[16 * K], B[K * 16];
    __shared__ TC C[256];
    for (int i = threadIdx.x; i < 16 * K; i += 32) {
        A[i] = elem<T>::from(i == 0 ? a0 : 0.0f);
        B[i] = elem<T>::from(i == 0 ? b0 : 0.0f);
    }
    for (int i = threadIdx.x; i < 256; i += 32) C[i] = (TC)(i == 0 ? c0 : 0.0f);
    __syncthreads();
    wmma::fragment<wmma::matrix_a, 16, 16, K, T, wmma::row_major> a;
    wmma::fragment<wmma::matrix_b, 16, 16, K, T, wmma::row_major> b;
    wmma::fragment<wmma::accumulator, 16, 16, K, TC> c;
    wmma::load_matrix_sync(a, A, K);
    wmma::load_matrix_sync(b, B, 16);
    wmma::load_matrix_sync(c, C, 16, wmma::mem_row_major);
    wmma::mma_sync(c, a, b, c);
    wmma::store_matrix_sync(C, c, 16, wmma::mem_row_major);
    __syncwarp();
    if (threadIdx.x == 0) {
        *d00 = C[0];
        /* __float_to_tf32: ties away from zero, else nearest; specials kept */
        tf[0] = wmma::__float_to_tf32(1.0f + 0x1p-11f);
        tf[1] = wmma::__float_to_tf32(-(1.0f + 0x1p-11f));
        tf[2] = wmma::__float_to_tf32(1.0f + 0x1p-12f);
        tf[3] = wmma::__float_to_tf32(1.0f + 0x1p-11f + 0x1p-20f);
        tf[4] = wmma::__float_to_tf32(INFINITY);
        tf[5] = wmma::__float_to_tf32(NAN);
        tf[6] = wmma::__float_to_tf32(0x1.fffffep127f); /* rounds up to infinity */
    }
}

template <typename T, int K, typename TC>
static void first(float a0, float b0, float c0, TC *out, float *tf)
{
    TC *dd;
    float *dt;
    CK(cudaMalloc(&dd, sizeof(TC)));
    CK(cudaMalloc(&dt, 7 * sizeof(float)));
    first_entry<T, K, TC><<<1, 32>>>(a0, b0, c0, dd, dt);
    CK(cudaGetLastError());
    CK(cudaMemcpy(out, dd, sizeof(TC), cudaMemcpyDeviceToHost));
    if (tf) CK(cudaMemcpy(tf, dt, 7 * sizeof(float), cudaMemcpyDeviceToHost));
    CK(cudaFree(dd));
    CK(cudaFree(dt));
}

static void check_rounding()
{
    float f = 0, tf[7];
    __half h;
    /* tf32 operands are truncated: (1 + 2^-11) * (1 + 2^-12) uses 1 * 1 */
    first<wmma::precision::tf32, 8, float>(1.0f + 0x1p-11f, 1.0f + 0x1p-12f, 0.5f, &f, tf);
    CHECK(f == 1.5f);
    /* ... but 1 + 2^-10 is tf32 and stays */
    first<wmma::precision::tf32, 8, float>(1.0f + 0x1p-10f, 3.0f, 0.0f, &f, nullptr);
    CHECK(f == 3.0f + 3.0f * 0x1p-10f);
    CHECK(tf[0] == 1.0f + 0x1p-10f);
    CHECK(tf[1] == -(1.0f + 0x1p-10f));
    CHECK(tf[2] == 1.0f);
    CHECK(tf[3] == 1.0f + 0x1p-10f);
    CHECK(std::isinf(tf[4]) && tf[4] > 0);
    CHECK(std::isnan(tf[5]));
    CHECK(std::isinf(tf[6]));
    /* fp32 accumulation of an exact fp16 product: 2048 + 1 */
    first<__half, 16, float>(1.0f, 1.0f, 2048.0f, &f, nullptr);
    CHECK(f == 2049.0f);
    /* a __half accumulator rounds the float sum once: 2049 -> 2048 (even) */
    first<__half, 16, __half>(1.0f, 1.0f, 2048.0f, &h, nullptr);
    CHECK(__half2float(h) == 2048.0f);
    /* ... and 2048 + 3 -> 2052 (ties to even) */
    first<__half, 16, __half>(1.5f, 2.0f, 2048.0f, &h, nullptr);
    CHECK(__half2float(h) == 2052.0f);
    /* bf16 products are exact: (1 + 2^-7)^2 = 1 + 2^-6 + 2^-14 */
    first<__nv_bfloat16, 16, float>(1.0f + 0x1p-7f, 1.0f + 0x1p-7f, 0.0f, &f, nullptr);
    CHECK(f == 1.0f + 0x1p-6f + 0x1p-14f);
}

/* ---- tiled: several warps and blocks through shared memory ------------------- */

constexpr int TM = 64, TN = 96; /* a block's tile: 2 x 2 warps of 32 x 48 */

template <typename T, int K>
__global__ void tiled(const typename elem<T>::storage *A, const typename elem<T>::storage *B,
                      float *C, int N, int Ktot)
{
    typedef typename elem<T>::storage S;
    constexpr int PAD = 16 / sizeof(S); /* rows stay 32-byte aligned: 16 * (K + PAD) */
    __shared__ __align__(32) S As[TM][K + PAD];
    __shared__ __align__(32) S Bs[K][TN + PAD];
    const int warp = threadIdx.x / 32, wm = warp / 2, wn = warp % 2;
    const int row0 = blockIdx.y * TM, col0 = blockIdx.x * TN;
    wmma::fragment<wmma::accumulator, 16, 16, K, float> acc[2][3];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++) wmma::fill_fragment(acc[i][j], 0.0f);
    for (int k0 = 0; k0 < Ktot; k0 += K) {
        for (int i = threadIdx.x; i < TM * K; i += blockDim.x)
            As[i / K][i % K] = A[(size_t)(row0 + i / K) * Ktot + k0 + i % K];
        for (int i = threadIdx.x; i < K * TN; i += blockDim.x)
            Bs[i / TN][i % TN] = B[(size_t)(k0 + i / TN) * N + col0 + i % TN];
        __syncthreads();
        for (int i = 0; i < 2; i++) {
            wmma::fragment<wmma::matrix_a, 16, 16, K, T, wmma::row_major> a;
            wmma::load_matrix_sync(a, &As[wm * 32 + i * 16][0], K + PAD);
            for (int j = 0; j < 3; j++) {
                wmma::fragment<wmma::matrix_b, 16, 16, K, T, wmma::row_major> b;
                wmma::load_matrix_sync(b, &Bs[0][wn * 48 + j * 16], TN + PAD);
                wmma::mma_sync(acc[i][j], a, b, acc[i][j]);
            }
        }
        __syncthreads();
    }
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            wmma::store_matrix_sync(C + (size_t)(row0 + wm * 32 + i * 16) * N + col0 + wn * 48 + j * 16,
                                    acc[i][j], N, wmma::mem_row_major);
}

template <typename T, int K>
static void check_tiled(const char *name, int Ktot, unsigned long long seed)
{
    typedef typename elem<T>::storage S;
    const int M = 2 * TM, N = TN;
    std::vector<S> hA((size_t)M * Ktot), hB((size_t)Ktot * N);
    std::vector<float> hC((size_t)M * N);
    for (auto &x : hA) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        x = elem<T>::from((float)((double)(seed >> 11) / 9007199254740992.0 * 2 - 1));
        if (std::is_same<T, wmma::precision::tf32>::value) x = wmma::__float_to_tf32(x);
    }
    for (auto &x : hB) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        x = elem<T>::from((float)((double)(seed >> 11) / 9007199254740992.0 * 2 - 1));
        if (std::is_same<T, wmma::precision::tf32>::value) x = wmma::__float_to_tf32(x);
    }
    S *dA, *dB;
    float *dC;
    CK(cudaMalloc(&dA, hA.size() * sizeof(S)));
    CK(cudaMalloc(&dB, hB.size() * sizeof(S)));
    CK(cudaMalloc(&dC, hC.size() * sizeof(float)));
    CK(cudaMemcpy(dA, hA.data(), hA.size() * sizeof(S), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dB, hB.data(), hB.size() * sizeof(S), cudaMemcpyHostToDevice));
    tiled<T, K><<<dim3(1, 2), 128>>>(dA, dB, dC, N, Ktot);
    CK(cudaGetLastError());
    CK(cudaMemcpy(hC.data(), dC, hC.size() * sizeof(float), cudaMemcpyDeviceToHost));
    double worst = 0;
    for (int r = 0; r < M; r++)
        for (int c = 0; c < N; c++) {
            double s = 0, sa = 0;
            for (int k = 0; k < Ktot; k++) {
                const double p = (double)elem<T>::to(hA[(size_t)r * Ktot + k]) *
                                 elem<T>::to(hB[(size_t)k * N + c]);
                s += p;
                sa += std::fabs(p);
            }
            /* fp32 accumulation: each of Ktot sums off by at most half an ulp */
            const double err = std::fabs(hC[(size_t)r * N + c] - s) / (sa * Ktot * 0x1p-24 + 1e-30);
            worst = err > worst ? err : worst;
        }
    if (!(worst <= 1.0)) std::fprintf(stderr, "%s tiled: error %.3g of the bound\n", name, worst);
    CHECK(worst <= 1.0);
    CK(cudaFree(dA));
    CK(cudaFree(dB));
    CK(cudaFree(dC));
}

/* ---- what must fail ------------------------------------------------------------ */

__global__ void misaligned(const __half *p, float *out)
{
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
    wmma::load_matrix_sync(a, p + 8, 16); /* 16 bytes past a 256-byte boundary */
    out[threadIdx.x] = __half2float(a.x[0]);
}

__global__ void partial_warp(float *out)
{
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> c;
    wmma::fill_fragment(c, 1.0f);
    wmma::store_matrix_sync(out, c, 16, wmma::mem_row_major);
}

static int expect_failure(const char *what)
{
    __half *p;
    float *out;
    CK(cudaMalloc(&p, 1024 * sizeof(__half)));
    CK(cudaMalloc(&out, 1024 * sizeof(float)));
    if (std::strcmp(what, "misaligned") == 0)
        misaligned<<<1, 32>>>(p, out);
    else
        partial_warp<<<1, 48>>>(out);
    const cudaError_t e = cudaDeviceSynchronize();
    std::printf("%s: %s\n", what, cudaGetErrorName(e));
    return e == cudaErrorLaunchFailure ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc > 1) return expect_failure(argv[1]);
    check_layouts<__half, 16, float>("fp16", 1);
    check_layouts<__half, 16, __half>("fp16 half-acc", 11);
    check_layouts<__nv_bfloat16, 16, float>("bf16", 21);
    check_layouts<wmma::precision::tf32, 8, float>("tf32", 31);
    check_rounding();
    check_tiled<__half, 16>("fp16", 48, 5);
    check_tiled<__nv_bfloat16, 16>("bf16", 64, 6);
    check_tiled<wmma::precision::tf32, 8>("tf32", 40, 7);
    CK(cudaDeviceSynchronize());
    return test_exit("wmma_mma");
}
