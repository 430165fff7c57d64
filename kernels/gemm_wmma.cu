/* kernels/gemm_wmma.cu - cuda-wmma: our tensor-core GEMM at tf32, bf16 and
 * fp16 on the mma.sync instructions of sm_80+ (contract: kernels/gemm_cuda.h,
 * gemm_cuda_dt_fn: C = A*B, inputs and C in the dtype, fp32 accumulation,
 * C rounded once).
 *
 *   - a block of 128 threads (4 warps, 2 along M x 2 along N) computes a
 *     BM x BN = 128 x 128 tile of C; each warp a 64 x 64 piece, 4 x 8
 *     accumulator fragments of 16 x 8 floats (128 registers): 64 x 64 is the
 *     smallest warp tile whose fragment loads (4 KiB of shared memory per
 *     k16 step for 32 mma) keep up with an H100's tensor cores (about 32
 *     flop per byte of shared-memory bandwidth);
 *   - K is walked in steps of BK = 64 bytes of a row of A (32 halves, or 16
 *     floats: two mma k steps of 16, or of 8 for tf32), through a ring of
 *     WM_STAGES = 4 shared-memory stages filled by cp.async
 *     (__pipeline_memcpy_async, 16-byte chunks, four per thread and
 *     operand): step kt computes on stage kt % 4 while the copies of steps
 *     kt+1..kt+3 fly; one __syncthreads per step (after the wait for step
 *     kt's batch, before refilling the stage step kt-1 used);
 *   - fragments come from shared memory by ldmatrix (kernels/warp_mma.h):
 *     A (row-major, k contiguous) with .x4 for every dtype: four 8 x 8 b16
 *     matrices are a 16 x 16 half/bf16 fragment, or a 16 x 8 tf32 one (a row
 *     of 16 bytes is 4 floats, and lane l's 32-bit word l%4 of row l/4 is
 *     exactly tf32 a[]'s element); B (k-major, n contiguous) with .x4.trans
 *     for fp16/bf16 (two 8-column fragments per instruction). tf32 B takes
 *     plain 32-bit shared loads: ldmatrix moves 16-bit elements and .trans
 *     transposes 8 x 8 matrices of them, so it would split each float of a
 *     k-major tile across two lanes (the PTX ISA defines .trans for .b16
 *     only, and the .b8 forms are sm_100a's); the loads are conflict-free
 *     (B rows padded to 136 floats: lanes (g, q) read banks 8q + g);
 *   - tf32: each element is rounded (cvt.rna.tf32.f32) as its fragment is
 *     loaded from shared memory (the cp.async copy never passes registers);
 *   - rows are padded by 16 bytes (A: 80-byte rows, B: 272-byte rows of
 *     halves), so the 8 rows of 16 bytes an ldmatrix reads lie in 8 distinct
 *     groups of 4 banks (no conflicts);
 *   - edges: a chunk partly outside A or B (column past N, k past K) is
 *     copied element by element, zeros past the edge; a chunk wholly outside
 *     (row past M too) reads nothing and is zero-filled by cp.async (its
 *     src-size 0); warps whose 64 x 64
 *     piece lies outside C skip their mma; C is stored in pairs (one 4- or
 *     8-byte store where aligned and inside), else element by element;
 *   - VEC (lda, ldb multiples of 16 bytes, A and B 16-byte aligned) as
 *     above; otherwise the chunks are read element by element and stored to
 *     the stage directly (no cp.async: a chunk's source is not aligned).
 * Grid: one block per 128 x 128 tile of C, a 1-D grid (x allows 2^31 - 1),
 * grouped for L2 reuse (gemm_block_tile).
 * Shared memory (dynamic, opted in above 48 KiB): 4 stages of 128 x 80 +
 * 32 x 272 bytes (16-bit) or 128 x 80 + 16 x 544 bytes (tf32): 75776 bytes.
 * __launch_bounds__(128, 2): two blocks per SM (sm_90: 2 x 75776 bytes of
 * the 228 KiB, registers <= 255 a thread); see README.md's kernel table.
 */
#include <stdint.h>

#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_pipeline_primitives.h>

#include "gemm_cuda.h"
#include "gemm_launch.h"
#include "cuda_check.h"
#include "smem_optin.h"
#include "warp_mma.h"

#define WM_BM 128
#define WM_BN 128
#define WM_THREADS 128
#define WM_WARPS_N 2      /* warps along N (and 2 along M) */
#define WM_WARP 64        /* a warp's piece: 64 x 64 */
#define WM_STAGES 4
#define WM_ROW_BYTES 64   /* a stage's k extent, in bytes of a row of A */
#define WM_LDB (WM_BN + 8) /* B row pitch in elements (272 / 544 bytes) */

/* The element types: S is the storage of A, B, C; MK the mma's k; BK the k
 * of a stage; load_b / mma the operand-B fragments and the instruction. */
template <typename S> struct wm_type;
template <typename S> struct wm_type16 {
    enum { MK = 16, BK = WM_ROW_BYTES / 2 };
    /* b[j] for j < 8: the warp's eight 8-column fragments of k rows k0..k0+15
     * of the stage (k-major, pitch WM_LDB), by ldmatrix.trans two at a time */
    static __device__ __forceinline__ void load_b(unsigned (&b)[8][2], const S *bs, int lane)
    {
UNROLL
        for (int jj = 0; jj < 4; jj++) {
            unsigned r[4];
            ldsm_x4<true>(r, bs + (lane % 16) * WM_LDB + (2 * jj + lane / 16) * 8);
            b[2 * jj][0] = r[0];
            b[2 * jj][1] = r[1];
            b[2 * jj + 1][0] = r[2];
            b[2 * jj + 1][1] = r[3];
        }
    }
    static __device__ __forceinline__ unsigned round_a(unsigned u) { return u; }
    static __device__ __forceinline__ void mma(float (&d)[4], const unsigned (&a)[4],
                                               const unsigned (&b)[2])
    {
        mma_16816<S>(d, a, b, d);
    }
};
template <> struct wm_type<__half> : wm_type16<__half> {
    static __device__ __forceinline__ void store2(__half *p, float x, float y)
    {
        *reinterpret_cast<__half2 *>(p) = __floats2half2_rn(x, y);
    }
    static __device__ __forceinline__ __half out(float x) { return __float2half_rn(x); }
};
template <> struct wm_type<__nv_bfloat16> : wm_type16<__nv_bfloat16> {
    static __device__ __forceinline__ void store2(__nv_bfloat16 *p, float x, float y)
    {
        *reinterpret_cast<__nv_bfloat162 *>(p) = __floats2bfloat162_rn(x, y);
    }
    static __device__ __forceinline__ __nv_bfloat16 out(float x) { return __float2bfloat16_rn(x); }
};
template <> struct wm_type<float> {
    enum { MK = 8, BK = WM_ROW_BYTES / 4 };
    /* b[j][0] = (k q, col 8j + g), b[j][1] = (k q + 4, col 8j + g), rounded */
    static __device__ __forceinline__ void load_b(unsigned (&b)[8][2], const float *bs, int lane)
    {
        const float *p = bs + (lane % 4) * WM_LDB + lane / 4;
UNROLL
        for (int j = 0; j < 8; j++) {
            b[j][0] = tf32_round(__float_as_uint(p[8 * j]));
            b[j][1] = tf32_round(__float_as_uint(p[4 * WM_LDB + 8 * j]));
        }
    }
    static __device__ __forceinline__ unsigned round_a(unsigned u) { return tf32_round(u); }
    static __device__ __forceinline__ void mma(float (&d)[4], const unsigned (&a)[4],
                                               const unsigned (&b)[2])
    {
        mma_1688_tf32(d, a, b, d);
    }
    static __device__ __forceinline__ void store2(float *p, float x, float y)
    {
        *reinterpret_cast<float2 *>(p) = make_float2(x, y);
    }
    static __device__ __forceinline__ float out(float x) { return x; }
};

/* Elements of one 16-byte chunk; row pitches of the A stage; stage sizes. */
template <typename S> struct wm_geom {
    enum {
        E = 16 / (int)sizeof(S),
        BK = wm_type<S>::BK,
        LDA = BK + E,
        A_STAGE = WM_BM * LDA,        /* elements */
        B_STAGE = BK * WM_LDB,
        STAGE = A_STAGE + B_STAGE,
        A_CPR = BK / E,               /* chunks per row of a stage */
        B_CPR = WM_BN / E,
        CHUNKS = WM_BM * (BK / E) / WM_THREADS /* per thread and operand */
    };
    static_assert(WM_BM * A_CPR == CHUNKS * WM_THREADS && BK * B_CPR == CHUNKS * WM_THREADS,
                  "the same number of chunks per thread for A and B");
};
template <typename S> constexpr size_t wm_smem_bytes()
{
    return (size_t)WM_STAGES * wm_geom<S>::STAGE * sizeof(S);
}

/* The dynamic shared memory of every instance (the same at each dtype: a
 * stage is 64-byte rows of A and 16 rows of B's bytes), also in the PTX for
 * tests/kernels/ptxas_gemm_check.sh, which works out blocks per SM from it. */
static_assert(wm_smem_bytes<__nv_bfloat16>() == wm_smem_bytes<__half>() &&
                  wm_smem_bytes<float>() == wm_smem_bytes<__half>(),
              "one stage size for every dtype");
static_assert(2 * (wm_smem_bytes<__half>() + 1024) <= 228 * 1024,
              "two blocks per SM at sm_90 (228 KiB, 1 KiB reserved per block)");
extern "C" __device__ const unsigned gemm_wmma_dynamic_smem = (unsigned)wm_smem_bytes<__half>();

/* One chunk into a stage: its first n (<= E) elements from src, the rest
 * zero (n <= 0: nothing read; src is then any aligned address). VEC: a
 * whole chunk by cp.async, one wholly outside by cp.async's zero fill (a
 * constant zfill: one instruction; a run-time one would be the toolkit's
 * 17-way switch), a partial one (at the K or N edge) element by element
 * into the stage, as every chunk of the unaligned path (no cp.async). */
template <typename S, bool VEC>
static __device__ __forceinline__ void wm_chunk(S *dst, const S *src, int n)
{
    constexpr int E = wm_geom<S>::E;
    if (VEC && n >= E) {
        __pipeline_memcpy_async(dst, src, 16);
    } else if (VEC && n <= 0) {
        __pipeline_memcpy_async(dst, src, 16, 16);
    } else {
        typedef typename std::conditional<sizeof(S) == 2, unsigned short, unsigned>::type R;
        const R *s = reinterpret_cast<const R *>(src);
        R *d = reinterpret_cast<R *>(dst);
UNROLL
        for (int j = 0; j < E; j++) d[j] = j < n ? s[j] : (R)0;
    }
}

/* One operand's share of a stage: the tile's rows r0.. (< rows exist) and
 * columns c0.. (< cols exist) of X (pitch ldx) into dst (pitch LD, CPR
 * chunks per row), CHUNKS chunks per thread. A: rows of A from row0, k
 * from k0; B: k rows from k0, columns from col0. */
template <typename S, bool VEC, int CPR, int LD>
static __device__ __forceinline__ void wm_load_tile(S *dst, const S *__restrict__ X, int ldx,
                                                    int r0, int rows, int c0, int cols, int tid)
{
    typedef wm_geom<S> G;
UNROLL
    for (int i = 0; i < G::CHUNKS; i++) {
        const int c = tid + i * WM_THREADS;
        const int r = c / CPR, cc = (c % CPR) * G::E;
        const int gr = r0 + r, gc = c0 + cc;
        const int n = gr < rows ? min((int)G::E, cols - gc) : 0;
        wm_chunk<S, VEC>(dst + r * LD + cc, n > 0 ? X + (size_t)gr * ldx + gc : X, n);
    }
}

/* The copies of K step k0 into stage st (A rows row0.., B columns col0..). */
template <typename S, bool VEC>
static __device__ __forceinline__ void wm_load_stage(S *st, int k0, int row0, int col0, int M,
                                                     int N, int K, const S *__restrict__ A,
                                                     int lda, const S *__restrict__ B, int ldb,
                                                     int tid)
{
    typedef wm_geom<S> G;
    wm_load_tile<S, VEC, G::A_CPR, G::LDA>(st, A, lda, row0, M, k0, K, tid);
    wm_load_tile<S, VEC, G::B_CPR, WM_LDB>(st + G::A_STAGE, B, ldb, k0, K, col0, N, tid);
}

/* acc += the warp's 64 x 64 share of one stage (as: its first A row, bs: its
 * first B column). */
template <typename S>
static __device__ __forceinline__ void wm_compute_stage(float (&acc)[4][8][4], const S *as,
                                                        const S *bs, int lane)
{
    typedef wm_geom<S> G;
    constexpr int MK = wm_type<S>::MK;
UNROLL
    for (int kk = 0; kk < G::BK; kk += MK) {
        unsigned a[4][4], b[8][2];
UNROLL
        for (int i = 0; i < 4; i++) {
            ldsm_x4<false>(a[i],
                           as + (i * 16 + lane % 16) * G::LDA + kk + (lane / 16) * (MK / 2));
UNROLL
            for (int r = 0; r < 4; r++) a[i][r] = wm_type<S>::round_a(a[i][r]);
        }
        wm_type<S>::load_b(b, bs + kk * WM_LDB, lane);
UNROLL
        for (int i = 0; i < 4; i++)
UNROLL
            for (int j = 0; j < 8; j++) wm_type<S>::mma(acc[i][j], a[i], b[j]);
    }
}

/* C[r][c], C[r][c+1] = x, y (rounded once), those inside M x N. */
template <typename S>
static __device__ __forceinline__ void wm_store_pair(S *__restrict__ C, int ldc, int M, int N,
                                                     int r, int c, float x, float y)
{
    if (r >= M || c >= N) return;
    S *p = C + (size_t)r * ldc + c;
    if (c + 1 < N && reinterpret_cast<uintptr_t>(p) % (2 * sizeof(S)) == 0) {
        wm_type<S>::store2(p, x, y);
    } else {
        p[0] = wm_type<S>::out(x);
        if (c + 1 < N) p[1] = wm_type<S>::out(y);
    }
}

template <typename S, bool VEC>
static __global__ void __launch_bounds__(WM_THREADS, 2)
    gemm_wmma_kernel(int M, int N, int K, const S *__restrict__ A, int lda,
                     const S *__restrict__ B, int ldb, S *__restrict__ C, int ldc)
{
    typedef wm_geom<S> G;
    extern __shared__ __align__(128) unsigned char wm_smem[];
    S *const smem = reinterpret_cast<S *>(wm_smem); /* [WM_STAGES][A stage, B stage] */

    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wm = warp / WM_WARPS_N, wn = warp % WM_WARPS_N;
    unsigned tm, tn;
    gemm_block_tile(blockIdx.x, ((unsigned)M + WM_BM - 1u) / WM_BM,
                    ((unsigned)N + WM_BN - 1u) / WM_BN, &tm, &tn);
    const int row0 = (int)tm * WM_BM, col0 = (int)tn * WM_BN;
    /* warp-uniform: this warp's piece has elements of C */
    const bool live = row0 + wm * WM_WARP < M && col0 + wn * WM_WARP < N;
    const int ktiles = (K + G::BK - 1) / G::BK;

    float acc[4][8][4];
UNROLL
    for (int i = 0; i < 4; i++)
UNROLL
        for (int j = 0; j < 8; j++)
UNROLL
            for (int r = 0; r < 4; r++) acc[i][j][r] = 0.0f;

    /* the first WM_STAGES - 1 steps in flight, one batch each (maybe empty) */
UNROLL
    for (int s = 0; s < WM_STAGES - 1; s++) {
        if (s < ktiles)
            wm_load_stage<S, VEC>(smem + s * G::STAGE, s * G::BK, row0, col0, M, N, K, A, lda, B,
                                  ldb, tid);
        __pipeline_commit();
    }
    for (int kt = 0; kt < ktiles; kt++) {
        /* step kt's batch landed (the newest WM_STAGES - 2 may fly), and every
         * warp is done with step kt - 1, whose stage is refilled next */
        __pipeline_wait_prior(WM_STAGES - 2);
        __syncthreads();
        const int nk = kt + WM_STAGES - 1;
        if (nk < ktiles)
            wm_load_stage<S, VEC>(smem + (nk % WM_STAGES) * G::STAGE, nk * G::BK, row0, col0, M,
                                  N, K, A, lda, B, ldb, tid);
        __pipeline_commit();
        if (live) {
            const S *st = smem + (kt % WM_STAGES) * G::STAGE;
            wm_compute_stage<S>(acc, st + (wm * WM_WARP) * G::LDA,
                                st + G::A_STAGE + wn * WM_WARP, lane);
        }
    }
    __pipeline_wait_prior(0); /* only empty batches are left */

    /* accumulator (i, j): rows r, r + 8, columns c, c + 1 of this lane */
    const int g = lane / 4, q = lane % 4;
UNROLL
    for (int i = 0; i < 4; i++)
UNROLL
        for (int j = 0; j < 8; j++) {
            const int r = row0 + wm * WM_WARP + i * 16 + g;
            const int c = col0 + wn * WM_WARP + j * 8 + 2 * q;
            wm_store_pair(C, ldc, M, N, r, c, acc[i][j][0], acc[i][j][1]);
            wm_store_pair(C, ldc, M, N, r + 8, c, acc[i][j][2], acc[i][j][3]);
        }
}

template <typename S>
static int wmma_run(const char *who, int M, int N, int K, const void *dA, int lda,
                    const void *dB, int ldb, void *dC, int ldc, cudaStream_t stream)
{
    const int E = wm_geom<S>::E;
    const size_t smem = wm_smem_bytes<S>();
    const int vec = lda % E == 0 && ldb % E == 0 &&
                    (((uintptr_t)dA | (uintptr_t)dB) % 16) == 0;
    const uint64_t tiles = (uint64_t)gemm_div_up(M, WM_BM) * gemm_div_up(N, WM_BN);
    if (tiles > 0x7fffffffu) {
        err_set("%s: M=%d N=%d needs %llu tiles, more than a grid holds", who, M, N,
                (unsigned long long)tiles);
        return -1;
    }
    if (vec) {
        if (kernel_smem_optin(who, (const void *)gemm_wmma_kernel<S, true>, smem, ""))
            return -1;
        gemm_wmma_kernel<S, true><<<(unsigned)tiles, WM_THREADS, smem, stream>>>(
            M, N, K, (const S *)dA, lda, (const S *)dB, ldb, (S *)dC, ldc);
    } else {
        if (kernel_smem_optin(who, (const void *)gemm_wmma_kernel<S, false>, smem, ""))
            return -1;
        gemm_wmma_kernel<S, false><<<(unsigned)tiles, WM_THREADS, smem, stream>>>(
            M, N, K, (const S *)dA, lda, (const S *)dB, ldb, (S *)dC, ldc);
    }
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
