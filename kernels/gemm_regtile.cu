/* kernels/gemm_regtile.cu - cuda-regtile: 2-D register blocking, 16-byte
 * loads and double-buffered shared memory (contract: kernels/gemm_cuda.h).
 *
 * The step of the well-known SGEMM progression ("2D blocktiling + vectorized",
 * siboehm's kernels 5/6) that reaches most of cuBLAS:
 *   - a block of 256 threads computes a BM x BN = 128 x 128 tile of C, walking
 *     K in steps of BK = 8;
 *   - each thread owns 8x8 outputs in registers: rows {4tr..4tr+3, 64+4tr..}
 *     and columns {4tc..4tc+3, 64+4tc..} (tr = tid/16, tc = tid%16).  Split
 *     into two 4-wide halves 64 apart, each quarter-warp reads 8 consecutive
 *     float4 of shared memory (conflict-free) and stores 8 consecutive float4
 *     of C (coalesced), where one contiguous 8-wide run would conflict 2-way;
 *   - A's tile is stored transposed (As[k][m]), so the inner loop reads A and
 *     B fragments as float4 along m and n; its rows are padded to BM+4 floats,
 *     which makes the transposing stores conflict-free;
 *   - shared memory is double-buffered: the next K step is loaded from global
 *     memory into registers (VEC: before computing on the current one, so
 *     the loads fly during the FMAs; scalar: after, to stay within 128
 *     registers) and stored to the other buffer, one __syncthreads per step;
 *   - VEC = true loads A and B and loads/stores C as float4 (LDG.128/STG.128).
 *     The launcher picks it only when lda, ldb, ldc are multiples of 4 and
 *     the three pointers are 16-byte aligned; VEC = false is the same kernel
 *     with scalar accesses.
 * Edges (any M, N, K work): rows of A past M and columns of B past N are
 * clamped inside the matrix (they only feed elements of C that are never
 * stored); the partial last K step (K % 8) is loaded with checks, zeros past
 * K; a float4 partly outside falls back to scalar accesses; C is stored only
 * inside M x N.  Nothing outside A, B, C (their padding included) is read.
 * Grid: 1-D, one block per tile (ceil(M/128) * ceil(N/128) < 2^31), ordered
 * in groups of 8 row tiles for L2 reuse (as Triton's grouped ordering).
 * Shared memory: 2*8*(132+128)*4 = 16640 bytes.
 * __launch_bounds__(256, 2): at most 128 registers, two blocks per SM.
 */
#include <stdint.h>

#include "gemm_cuda.h"
#include "gemm_launch.h"
#include "cuda_check.h"
#include "regtile_core.h"

#define RT_GROUP_M 8 /* row tiles per group of the block order (L2 reuse) */

/* One K step's global loads of one thread into registers: pa = A[r][ka..ka+3]
 * from a = &A[r][ka], pb = B[kb][c..c+3] from b = &B[kb][c].
 * Rows of A past M and columns of B past N only feed elements of C that are
 * never stored, so they are clamped inside the matrix rather than zeroed
 * (the A row by the caller; B column c+j reads column min(c+j, N-1), i.e.
 * b[min(j, blast)] with blast = N-1-c).  CHECK_K, for the last, partial K
 * step only: A[r][ka+i] with ka+i >= K and row kb >= K of B read 0.
 * VEC: a 16-byte load where all four elements are inside (then aligned). */
template <bool VEC, bool CHECK_K>
static __device__ __forceinline__ void load_step(const float *__restrict__ a, unsigned ka,
                                                 const float *__restrict__ b, unsigned kb,
                                                 int blast, unsigned uK, float4 &pa, float4 &pb)
{
    if (VEC && !CHECK_K) {
        pa = *reinterpret_cast<const float4 *>(a);
    } else {
        pa.x = (!CHECK_K || ka + 0 < uK) ? a[0] : 0.0f;
        pa.y = (!CHECK_K || ka + 1 < uK) ? a[1] : 0.0f;
        pa.z = (!CHECK_K || ka + 2 < uK) ? a[2] : 0.0f;
        pa.w = (!CHECK_K || ka + 3 < uK) ? a[3] : 0.0f;
    }
    if (CHECK_K && kb >= uK) {
        pb = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    } else if (blast >= 3) {
        if (VEC)
            pb = *reinterpret_cast<const float4 *>(b);
        else
            pb = make_float4(b[0], b[1], b[2], b[3]);
    } else {
        pb.x = b[min(0, blast)];
        pb.y = b[min(1, blast)];
        pb.z = b[min(2, blast)];
        pb.w = b[min(3, blast)];
    }
}

static __device__ __forceinline__ float axpby(float alpha, float acc, float beta, float c)
{
    return alpha * acc + beta * c;
}

/* Stores 4 results of a row at c[i..i+3] (index < n only), as alpha*acc + beta*c. */
template <bool VEC>
static __device__ __forceinline__ void store4(float *__restrict__ c, unsigned i, unsigned n,
                                              const float *acc, float alpha, float beta)
{
    if (VEC && i + 3 < n) {
        float4 *q = reinterpret_cast<float4 *>(c + i);
        float4 v;
        if (beta == 0.0f) {
            v.x = alpha * acc[0]; v.y = alpha * acc[1];
            v.z = alpha * acc[2]; v.w = alpha * acc[3];
        } else {
            const float4 o = *q;
            v.x = axpby(alpha, acc[0], beta, o.x); v.y = axpby(alpha, acc[1], beta, o.y);
            v.z = axpby(alpha, acc[2], beta, o.z); v.w = axpby(alpha, acc[3], beta, o.w);
        }
        *q = v;
        return;
    }
UNROLL
    for (int j = 0; j < 4; ++j)
        if (i + j < n)
            c[i + j] = beta == 0.0f ? alpha * acc[j] : axpby(alpha, acc[j], beta, c[i + j]);
}

/* Stores one thread's K-step registers into shared buffer `buf`: A transposed. */
static __device__ __forceinline__ void store_step(float (*as)[RT_BM + RT_APAD],
                                                  float (*bs)[RT_BN], unsigned ar,
                                                  unsigned ak, unsigned bk, unsigned bc,
                                                  float4 pa, float4 pb)
{
    as[ak + 0][ar] = pa.x; as[ak + 1][ar] = pa.y;
    as[ak + 2][ar] = pa.z; as[ak + 3][ar] = pa.w;
    *reinterpret_cast<float4 *>(&bs[bk][bc]) = pb;
}

template <bool VEC>
static __global__ void __launch_bounds__(RT_THREADS, 2)
gemm_regtile_kernel(int M, int N, int K, float alpha, const float *__restrict__ A, int lda,
                    const float *__restrict__ B, int ldb, float beta,
                    float *__restrict__ C, int ldc)
{
    __shared__ __align__(16) float As[2][RT_BK][RT_BM + RT_APAD];
    __shared__ __align__(16) float Bs[2][RT_BK][RT_BN];

    const unsigned uM = (unsigned)M, uN = (unsigned)N, uK = (unsigned)K;
    const unsigned tid = threadIdx.x;
    const unsigned tr = tid / 16, tc = tid % 16;  /* compute: 16 x 16 threads */
    const unsigned ar = tid / 2, ak = (tid % 2) * 4; /* A loads: 128 rows x 2 float4 */
    const unsigned bk = tid / 32, bc = (tid % 32) * 4; /* B loads: 8 rows x 32 float4 */
    /* Block -> tile, in groups of RT_GROUP_M row tiles: consecutive blocks
     * walk down a column of tiles of the group, so blocks running together
     * share rows of A and columns of B in L2. */
    const unsigned tiles_m = (uM + RT_BM - 1) / RT_BM, tiles_n = (uN + RT_BN - 1) / RT_BN;
    const unsigned group = blockIdx.x / (RT_GROUP_M * tiles_n);
    const unsigned in_group = blockIdx.x % (RT_GROUP_M * tiles_n);
    const unsigned first_m = group * RT_GROUP_M;
    const unsigned group_m = min(tiles_m - first_m, (unsigned)RT_GROUP_M);
    const unsigned row0 = (first_m + in_group % group_m) * RT_BM;
    const unsigned col0 = (in_group / group_m) * RT_BN;
    const unsigned nk = (uK + RT_BK - 1) / RT_BK; /* K steps */
    const unsigned nfull = uK / RT_BK;            /* of which need no K check */
    const unsigned bcol = col0 + bc;
    const int blast = (int)(uN - 1u - bcol); /* last column of B, from bcol (<0 past N) */
    const float *a_ptr = A + (size_t)min(row0 + ar, uM - 1) * lda + ak; /* A[r][ak] */
    const float *b_ptr = B + (size_t)bk * ldb + bcol;                     /* B[bk][bcol] */
    const size_t b_step = (size_t)RT_BK * ldb;

    float acc[8][8];
UNROLL
    for (int i = 0; i < 8; ++i)
UNROLL
        for (int j = 0; j < 8; ++j)
            acc[i][j] = 0.0f;

    /* the full K steps, double-buffered: load step kt+1 into registers
     * (VEC: before computing step kt, so the loads fly during the FMAs),
     * compute step kt, store kt+1 into the other buffer (last read before the
     * previous barrier), one barrier per step */
    float4 pa, pb;
    if (nfull > 0) {
        load_step<VEC, false>(a_ptr, ak, b_ptr, bk, blast, uK, pa, pb);
        store_step(As[0], Bs[0], ar, ak, bk, bc, pa, pb);
        __syncthreads();
        for (unsigned kt = 0; kt < nfull; ++kt) {
            const bool more = kt + 1 < nfull;
            if (VEC && more) { /* issue step kt+1's loads before computing */
                a_ptr += RT_BK;
                b_ptr += b_step;
                load_step<VEC, false>(a_ptr, 0, b_ptr, 0, blast, uK, pa, pb);
            }
            compute_step(acc, As[kt % 2], Bs[kt % 2], tr, tc);
            if (more) {
                if (!VEC) { /* scalar loads: 4x the registers in flight, so after */
                    a_ptr += RT_BK;
                    b_ptr += b_step;
                    load_step<VEC, false>(a_ptr, 0, b_ptr, 0, blast, uK, pa, pb);
                }
                store_step(As[(kt + 1) % 2], Bs[(kt + 1) % 2], ar, ak, bk, bc, pa, pb);
            }
            __syncthreads();
        }
        a_ptr += RT_BK;
        b_ptr += b_step;
    }
    /* the partial last K step (K % 8 != 0), loaded with K checks; every read
     * of the buffers is behind the last barrier */
    if (nfull < nk) {
        const unsigned k0 = nfull * RT_BK;
        load_step<VEC, true>(a_ptr, k0 + ak, b_ptr, k0 + bk, blast, uK, pa, pb);
        store_step(As[0], Bs[0], ar, ak, bk, bc, pa, pb);
        __syncthreads();
        compute_step(acc, As[0], Bs[0], tr, tc);
    }

    /* epilogue: row i of acc is tile row 4tr+i (i < 4) or 64+4tr+i-4 */
UNROLL
    for (int i = 0; i < 8; ++i) {
        const unsigned r = row0 + (i < 4 ? 0u : 64u) + tr * 4 + (unsigned)(i % 4);
        if (r < uM) {
            float *c_row = C + (size_t)r * ldc;
            store4<VEC>(c_row, col0 + tc * 4, uN, &acc[i][0], alpha, beta);
            store4<VEC>(c_row, col0 + 64 + tc * 4, uN, &acc[i][4], alpha, beta);
        }
    }
}

extern "C" int gemm_cuda_regtile(int M, int N, int K, float alpha, const float *dA, int lda,
                                 const float *dB, int ldb, float beta, float *dC, int ldc,
                                 cudaStream_t stream)
{
    if (!gemm_cuda_args_ok("gemm_cuda_regtile", M, N, K, dA, lda, dB, ldb, dC, ldc))
        return -1;
    const int vec = ((lda | ldb | ldc) % 4 == 0) &&
                    (((uintptr_t)dA | (uintptr_t)dB | (uintptr_t)dC) % 16 == 0);
    /* one block per 128x128 tile of C, in a 1-D grid (x allows 2^31-1 blocks) */
    const uint64_t tiles = (uint64_t)gemm_div_up(M, RT_BM) * gemm_div_up(N, RT_BN);
    if (tiles > 0x7fffffffu) {
        err_set("gemm_cuda_regtile: M=%d N=%d needs %llu tiles, more than a grid holds", M,
                N, (unsigned long long)tiles);
        return -1;
    }
    const unsigned grid = (unsigned)tiles;
    if (vec)
        gemm_regtile_kernel<true><<<grid, RT_THREADS, 0, stream>>>(M, N, K, alpha, dA, lda,
                                                                   dB, ldb, beta, dC, ldc);
    else
        gemm_regtile_kernel<false><<<grid, RT_THREADS, 0, stream>>>(M, N, K, alpha, dA, lda,
                                                                    dB, ldb, beta, dC, ldc);
    LAUNCH_CHECK();
    return 0;
fail:
    return -1;
}
