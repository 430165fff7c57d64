/* kernels/gemm_wmma.cu - cuda-wmma: our tensor-core GEMM on nvcuda::wmma
 * fragments, at tf32, bf16 and fp16 (contract: kernels/gemm_cuda.h,
 * gemm_cuda_dt_fn: C = A*B, inputs and C in the dtype, fp32 accumulation,
 * C rounded once).
 *
 *   - a block of 256 threads (8 warps, 2 along M x 4 along N) computes a
 *     BM x BN = 128 x 128 tile of C; each warp a 64 x 32 piece, 4 x 2
 *     accumulator fragments of 16 x 16 floats (64 registers);
 *   - K is walked in steps of BK = 32 (bf16, fp16: two m16n16k16 steps) or
 *     16 (tf32: two m16n16k8 steps), so one step's tiles are 8 KiB of each
 *     operand in both cases;
 *   - the A tile (BM x BK, row-major) and the B tile (BK x BN, row-major) are
 *     staged in shared memory, double-buffered: the next step's tiles are
 *     loaded from global memory into registers (16-byte chunks, two per
 *     thread and operand) before the current step's mma_sync, and stored to
 *     the other buffer after it: one __syncthreads per step;
 *   - rows are padded by 16 bytes (A: BK + 8 halves = 80 B, or BK + 4 floats;
 *     B: BN + 8 halves = 272 B, or BN + 4 floats = 528 B), so the 8 rows of
 *     16 bytes a fragment load reads at once fall in 8 distinct groups of 4
 *     banks (no conflicts), and every fragment starts 32-byte aligned, as
 *     load_matrix_sync requires;
 *   - tf32: each element is rounded to tf32 (__float_to_tf32: nearest, ties
 *     away) when stored to shared memory, once, rather than per fragment;
 *   - edges: the chunks are 16-byte loads (VEC: lda, ldb multiples of 8
 *     halves or 4 floats, A and B 16-byte aligned) where a chunk lies wholly
 *     inside the matrix, element loads otherwise; rows past M, columns past N
 *     and k past K are zeros in shared memory (never read from global memory);
 *   - output: each warp stores one accumulator fragment at a time to its own
 *     16 x 20-float scratch in shared memory (the tiles' space, free after the
 *     last step) and its lanes write the valid elements, converted to the
 *     dtype with one rounding, to C (16 consecutive elements per half warp).
 * Grid: one block per 128 x 128 tile of C, a 1-D grid (x allows 2^31 - 1).
 * Shared memory: 2 * (128 * 40 + 32 * 136) * 2 = 37888 B (bf16, fp16),
 * 2 * (128 * 20 + 16 * 132) * 4 = 37376 B (tf32).
 * __launch_bounds__(256): up to 255 registers, one block of 8 warps per SM
 * at least (the accumulators alone take 64).
 */
#include <stdint.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

#include "gemm_cuda.h"
#include "gemm_launch.h"
#include "cuda_check.h"

using namespace nvcuda;

#define WM_BM 128
#define WM_BN 128
#define WM_THREADS 256
#define WM_WARP_M 64 /* a warp's rows: 4 fragments */
#define WM_WARP_N 32 /* a warp's columns: 2 fragments */
#define WM_SCRATCH_LD 20 /* floats per row of a warp's output scratch */

/* The three element types: S is the storage of A, B, C (and of the shared
 * tiles), F the fragment's element type, FK the fragment's K, BK the step. */
template <typename S> struct wm_type;
template <> struct wm_type<__half> {
    typedef __half F;
    enum { FK = 16, BK = 32 };
    static __device__ __forceinline__ __half out(float x) { return __float2half_rn(x); }
};
template <> struct wm_type<__nv_bfloat16> {
    typedef __nv_bfloat16 F;
    enum { FK = 16, BK = 32 };
    static __device__ __forceinline__ __nv_bfloat16 out(float x) { return __float2bfloat16_rn(x); }
};
template <> struct wm_type<float> {
    typedef wmma::precision::tf32 F;
    enum { FK = 8, BK = 16 };
    static __device__ __forceinline__ float out(float x) { return x; }
};

/* The 32-bit word of elements j, j+1 (2-byte types) or j (floats) of a chunk
 * whose first n elements exist (n <= 0: none; p is not read). */
static __device__ __forceinline__ unsigned wm_word(const __half *p, int j, int n)
{
    const unsigned short *q = reinterpret_cast<const unsigned short *>(p);
    const unsigned lo = j < n ? q[j] : 0u, hi = j + 1 < n ? q[j + 1] : 0u;
    return lo | (hi << 16);
}
static __device__ __forceinline__ unsigned wm_word(const __nv_bfloat16 *p, int j, int n)
{
    return wm_word(reinterpret_cast<const __half *>(p), j, n);
}
static __device__ __forceinline__ unsigned wm_word(const float *p, int j, int n)
{
    return j < n ? __float_as_uint(p[j]) : 0u;
}

/* One 16-byte chunk (8 halves or 4 floats) of a row, its first n elements
 * from p, the rest zero; one 16-byte load when VEC and the chunk is whole. */
template <typename S, bool VEC>
static __device__ __forceinline__ uint4 wm_chunk(const S *p, int n)
{
    constexpr int E = 16 / sizeof(S), W = 4 / sizeof(S); /* elements per chunk, per word */
    if (VEC && n >= E) return *reinterpret_cast<const uint4 *>(p);
    uint4 v;
    v.x = wm_word(p, 0, n);
    v.y = wm_word(p, W, n);
    v.z = wm_word(p, 2 * W, n);
    v.w = wm_word(p, 3 * W, n);
    return v;
}

/* tf32: every float of a chunk rounded before it reaches the tile. */
static __device__ __forceinline__ unsigned wm_tf32(unsigned u)
{
    return __float_as_uint(wmma::__float_to_tf32(__uint_as_float(u)));
}
template <typename S>
static __device__ __forceinline__ void wm_store(S *dst, uint4 v)
{
    if (sizeof(S) == 4) {
        v.x = wm_tf32(v.x);
        v.y = wm_tf32(v.y);
        v.z = wm_tf32(v.z);
        v.w = wm_tf32(v.w);
    }
    *reinterpret_cast<uint4 *>(dst) = v;
}

template <typename S, bool VEC>
static __global__ void __launch_bounds__(WM_THREADS)
    gemm_wmma_kernel(int M, int N, int K, const S *__restrict__ A, int lda,
                     const S *__restrict__ B, int ldb, S *__restrict__ C, int ldc)
{
    typedef typename wm_type<S>::F F;
    constexpr int FK = wm_type<S>::FK, BK = wm_type<S>::BK;
    constexpr int E = 16 / (int)sizeof(S);                       /* elements per chunk */
    constexpr int LDA = BK + E, LDB = WM_BN + E;                 /* padded tile rows */
    constexpr int A_TILE = WM_BM * LDA, B_TILE = BK * LDB;       /* elements */
    constexpr int A_CPR = BK / E, B_CPR = WM_BN / E;             /* chunks per tile row */
    constexpr int BYTES = 2 * (A_TILE + B_TILE) * (int)sizeof(S);
    static_assert(WM_BM * A_CPR == 2 * WM_THREADS && BK * B_CPR == 2 * WM_THREADS,
                  "two chunks per thread and operand");
    static_assert(8 * 16 * WM_SCRATCH_LD * 4 <= BYTES, "the output scratch fits the tiles");
    __shared__ __align__(128) unsigned char smem[BYTES];
    S *const As = reinterpret_cast<S *>(smem);          /* [2][WM_BM][LDA] */
    S *const Bs = As + 2 * A_TILE;                      /* [2][BK][LDB] */

    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wm = warp / 4, wn = warp % 4; /* 2 x 4 warps */
    const unsigned tiles_n = (unsigned)(N + WM_BN - 1) / WM_BN;
    const int row0 = (int)(blockIdx.x / tiles_n) * WM_BM, col0 = (int)(blockIdx.x % tiles_n) * WM_BN;

    /* this thread's two chunks of each operand: (tile row, first column) */
    int ar[2], ac[2], br[2], bc[2];
UNROLL
    for (int i = 0; i < 2; i++) {
        const int c = tid + i * WM_THREADS;
        ar[i] = c / A_CPR;
        ac[i] = (c % A_CPR) * E;
        br[i] = c / B_CPR;
        bc[i] = (c % B_CPR) * E;
    }
    uint4 ra[2], rb[2];
    /* the chunks of the step at k0 into registers */
    auto load = [&](int k0) {
UNROLL
        for (int i = 0; i < 2; i++) {
            const int r = row0 + ar[i], k = k0 + ac[i];
            const int n = r < M ? K - k : 0;
            ra[i] = wm_chunk<S, VEC>(n > 0 ? A + (size_t)r * lda + k : A, n);
            const int kb = k0 + br[i], c = col0 + bc[i];
            const int nb = kb < K ? N - c : 0;
            rb[i] = wm_chunk<S, VEC>(nb > 0 ? B + (size_t)kb * ldb + c : B, nb);
        }
    };
    auto store = [&](int buf) {
UNROLL
        for (int i = 0; i < 2; i++) {
            wm_store(As + buf * A_TILE + ar[i] * LDA + ac[i], ra[i]);
            wm_store(Bs + buf * B_TILE + br[i] * LDB + bc[i], rb[i]);
        }
    };

    wmma::fragment<wmma::accumulator, 16, 16, FK, float> acc[4][2];
UNROLL
    for (int i = 0; i < 4; i++)
UNROLL
        for (int j = 0; j < 2; j++) wmma::fill_fragment(acc[i][j], 0.0f);

    const int steps = (K + BK - 1) / BK;
    load(0);
    store(0);
    __syncthreads();
    for (int s = 0; s < steps; s++) {
        const int buf = s & 1;
        if (s + 1 < steps) load((s + 1) * BK);
        const S *a_tile = As + buf * A_TILE + (wm * WM_WARP_M) * LDA;
        const S *b_tile = Bs + buf * B_TILE + wn * WM_WARP_N;
UNROLL
        for (int kk = 0; kk < BK; kk += FK) {
            wmma::fragment<wmma::matrix_a, 16, 16, FK, F, wmma::row_major> a[4];
            wmma::fragment<wmma::matrix_b, 16, 16, FK, F, wmma::row_major> b[2];
UNROLL
            for (int i = 0; i < 4; i++) wmma::load_matrix_sync(a[i], a_tile + i * 16 * LDA + kk, LDA);
UNROLL
            for (int j = 0; j < 2; j++) wmma::load_matrix_sync(b[j], b_tile + kk * LDB + j * 16, LDB);
UNROLL
            for (int i = 0; i < 4; i++)
UNROLL
                for (int j = 0; j < 2; j++) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        if (s + 1 < steps) store(buf ^ 1);
        __syncthreads();
    }

    /* the tiles are free (the last step ended with __syncthreads): each warp
     * writes its fragments through its own scratch */
    float *const scratch = reinterpret_cast<float *>(smem) + warp * 16 * WM_SCRATCH_LD;
    const int r_in = lane / 16, c_in = lane % 16;
UNROLL
    for (int i = 0; i < 4; i++)
UNROLL
        for (int j = 0; j < 2; j++) {
            wmma::store_matrix_sync(scratch, acc[i][j], WM_SCRATCH_LD, wmma::mem_row_major);
            __syncwarp();
            const int col = col0 + wn * WM_WARP_N + j * 16 + c_in;
            const int rbase = row0 + wm * WM_WARP_M + i * 16 + r_in;
UNROLL
            for (int q = 0; q < 8; q++) {
                const int row = rbase + 2 * q;
                if (row < M && col < N)
                    C[(size_t)row * ldc + col] =
                        wm_type<S>::out(scratch[(r_in + 2 * q) * WM_SCRATCH_LD + c_in]);
            }
            __syncwarp();
        }
}

template <typename S>
static int wmma_run(const char *who, int M, int N, int K, const void *dA, int lda,
                    const void *dB, int ldb, void *dC, int ldc, cudaStream_t stream)
{
    const int E = 16 / (int)sizeof(S);
    const int vec = lda % E == 0 && ldb % E == 0 &&
                    (((uintptr_t)dA | (uintptr_t)dB) % 16) == 0;
    const uint64_t tiles = (uint64_t)gemm_div_up(M, WM_BM) * gemm_div_up(N, WM_BN);
    if (tiles > 0x7fffffffu) {
        err_set("%s: M=%d N=%d needs %llu tiles, more than a grid holds", who, M, N,
                (unsigned long long)tiles);
        return -1;
    }
    if (vec)
        gemm_wmma_kernel<S, true><<<(unsigned)tiles, WM_THREADS, 0, stream>>>(
            M, N, K, (const S *)dA, lda, (const S *)dB, ldb, (S *)dC, ldc);
    else
        gemm_wmma_kernel<S, false><<<(unsigned)tiles, WM_THREADS, 0, stream>>>(
            M, N, K, (const S *)dA, lda, (const S *)dB, ldb, (S *)dC, ldc);
    LAUNCH_CHECK();
    return 0;
fail:
    return -1;
}

extern "C" int gemm_cuda_wmma(dtype_t dt, int M, int N, int K, const void *dA, int lda,
                              const void *dB, int ldb, void *dC, int ldc, cudaStream_t stream)
{
    const char *who = "gemm_cuda_wmma";
    if (!gemm_cuda_args_ok(who, M, N, K, (const float *)dA, lda, (const float *)dB, ldb,
                           (const float *)dC, ldc))
        return -1;
    switch (dt) {
    case DTYPE_TF32: return wmma_run<float>(who, M, N, K, dA, lda, dB, ldb, dC, ldc, stream);
    case DTYPE_BF16:
        return wmma_run<__nv_bfloat16>(who, M, N, K, dA, lda, dB, ldb, dC, ldc, stream);
    case DTYPE_FP16: return wmma_run<__half>(who, M, N, K, dA, lda, dB, ldb, dC, ldc, stream);
    default:
        err_set("%s: dtype %s not supported (tf32, bf16, fp16 only)", who, dtype_name(dt));
        return -1;
    }
}
