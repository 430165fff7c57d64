/* kernels/gemm_regtile.cu - cuda-regtile: warp-tiled 2-D register blocking,
 * 16-byte loads and a multi-stage cp.async pipeline (contract:
 * kernels/gemm_cuda.h).
 *
 * The SIMT end of the well-known SGEMM progression (siboehm's kernels 5/6
 * "2D blocktiling + vectorized" and 10 "warptiling"; CUTLASS's SIMT path):
 *   - a block of 256 threads computes a BM x BN = 128 x 128 tile of C, walking
 *     K in steps of BK = 8;
 *   - warp tiling (kernels/regtile_core.h): each of the 8 warps owns a 32 x 64
 *     sub-tile, each lane 8 x 8 outputs in registers as 2 x 2 blocks of 4 x 4
 *     (rows 16, columns 32 apart): per k a warp reads 4 conflict-free
 *     wavefronts of shared memory (6 without warp tiles) and its float4
 *     stores of C are 128-byte rows;
 *   - A's tile is stored transposed (As[k][m]), so the inner loop reads A and
 *     B fragments as float4 along m and n; its rows are padded to BM+4 floats,
 *     which makes the transposing stores conflict-free;
 *   - shared memory is a ring of RT_STAGES = 4 stages (step s in stage
 *     s % 4), one __syncthreads per step. An operand whose tile rows are its
 *     memory rows (B, or A^T: "K-major") is copied by cp.async
 *     (__pipeline_memcpy_async, one 16-byte chunk per thread and step, a row
 *     of the stage per warp: coalesced, conflict-free), 3 steps ahead, as
 *     cuda-wmma (kernels/gemm_wmma.cu): wait for step kt's batch, barrier,
 *     compute step kt, issue step kt+3 into the stage step kt-1 used (after
 *     the FMAs, unlike cuda-wmma: before them A^T B spills at sm_90);
 *   - A itself (k contiguous along its rows) must be transposed on the way,
 *     which cp.async cannot do (it copies 16 contiguous bytes). So A, and B^T
 *     likewise, goes through registers: step kt+1's float4 is loaded before
 *     step kt's FMAs and stored transposed after them (4 conflict-free
 *     scalar stores), a step ahead -- 512 FMAs a thread, enough to cover a
 *     load's latency at 16 warps per SM. The alternative, A untransposed in
 *     shared memory (As[m][k], cp.async too), was rejected: a thread needs 8
 *     rows of A per k, which are 8 scalar loads per k (2.5x the shared-load
 *     instructions of 2 float4 along m) or float4 along k for 4 k at once
 *     (32 more live registers, past the 128 of two blocks per SM); and rows
 *     4 apart at a pitch that is a multiple of 4 floats fall into 2 bank
 *     groups, a 2-way conflict, unless the rows per lane are interleaved;
 *   - VEC = true loads A and B and loads/stores C as float4 (LDG.128/STG.128)
 *     and copies by cp.async.  The launcher picks it only when lda, ldb, ldc
 *     are multiples of 4 and the three pointers are 16-byte aligned; VEC =
 *     false is the same kernel with scalar accesses, every operand through
 *     registers (no cp.async: a chunk's source is not aligned).
 * Edges (any M, N, K work): rows of A past M and columns of B past N are
 * clamped inside the matrix (they only feed elements of C that are never
 * stored); the partial last K step (K % 8) is loaded with checks, zeros past
 * K; a float4 or cp.async chunk partly outside falls back to scalar accesses
 * (a chunk so loaded is stored to its stage directly); C is stored only
 * inside M x N.  Nothing outside A, B, C (their padding included) is read.
 * Transposed operands (gemm_cuda_regtile_t, ops/train_ops.h's gemm): the
 * kernel is templated on TA, TB, and only the tile loads change (load4):
 *   A   (M x K): each thread loads 4 consecutive k of a row, stored transposed;
 *   A^T (K x M): 4 consecutive m of a k row, stored as one float4 (cp.async);
 *   B   (K x N): 4 consecutive n of a k row, stored as one float4 (cp.async);
 *   B^T (N x K): 4 consecutive k of a row, stored transposed, into a Bs
 *        padded like As to stay conflict-free.
 * float4 loads on the same conditions as above; A^T rows past M are clamped
 * like B's columns.  The register budget is tight: scalar loads are issued
 * after the FMAs (4x the registers of a float4 in flight), which keeps every
 * instance within 128 registers without spills.
 * Grid: x one block per tile (ceil(M/128) * ceil(N/128) < 2^31), ordered
 * in groups of 8 row tiles for L2 reuse (gemm_block_tile); z the
 * matrix of a batch (gemm_cuda_regtile_batched: block z offsets A, B, C by
 * z times their strides before anything else, so the kernel is the same
 * for one matrix, strides 0, z 1; batches beyond 65535 take several launches).
 * Shared memory (static, within the default 48 KiB): 4*8*(132+128)*4 = 33280
 * bytes (B^T: 33792).
 * __launch_bounds__(256, 2): at most 128 registers, two blocks per SM.
 */
#include <stdint.h>

#include "gemm_cuda.h"
#include "gemm_launch.h"
#include "cuda_check.h"
#include "regtile_core.h"

#include <cuda_pipeline_primitives.h>

#define RT_STAGES 4 /* shared-memory stages of the K pipeline */
#define RT_GRID_Z_MAX 65535 /* matrices of a batch per launch (grid z) */

/* One operand's share of one K step: 4 floats a thread loads from global
 * memory into a register, and where it stores them in the shared tile. Two
 * kinds of load, by how the operand lies in memory:
 *   KCONTIG (A, or B^T: a tile row's k are contiguous): 4 consecutive k of one
 *     tile row, p = &X[row][k]; the row was clamped inside the matrix by the
 *     caller; stored transposed, x[k..k+3][row] (4 scalar stores);
 *   K-major (B, or A^T: a k row holds the tile's columns): 4 consecutive
 *     columns of one k row, p = &X[k][col]; column col+j reads
 *     min(col+j, last) of the matrix (p[min(j, last)], last = cols-1-col,
 *     < 0 past the end); stored as one float4, x[k][col..col+3].
 * Rows of A past M and columns of B past N only feed elements of C that are
 * never stored, so they are clamped rather than zeroed.  CHECK_K, for the
 * last, partial K step only: k >= K reads 0 (k is the index of the first of
 * the 4 loaded values, KCONTIG; the row, K-major).
 * VEC: a 16-byte load where all four elements are inside (then aligned). */
template <bool VEC, bool CHECK_K, bool KCONTIG>
static __device__ __forceinline__ void load4(const float *__restrict__ p, unsigned k, int last,
                                             unsigned uK, float4 &v)
{
    if (KCONTIG) {
        if (VEC && !CHECK_K) {
            v = *reinterpret_cast<const float4 *>(p);
        } else {
            v.x = (!CHECK_K || k + 0 < uK) ? p[0] : 0.0f;
            v.y = (!CHECK_K || k + 1 < uK) ? p[1] : 0.0f;
            v.z = (!CHECK_K || k + 2 < uK) ? p[2] : 0.0f;
            v.w = (!CHECK_K || k + 3 < uK) ? p[3] : 0.0f;
        }
    } else if (CHECK_K && k >= uK) {
        v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    } else if (last >= 3) {
        if (VEC)
            v = *reinterpret_cast<const float4 *>(p);
        else
            v = make_float4(p[0], p[1], p[2], p[3]);
    } else {
        v.x = p[min(0, last)];
        v.y = p[min(1, last)];
        v.z = p[min(2, last)];
        v.w = p[min(3, last)];
    }
}

/* Stores a load4 result into a shared tile x[k][i] (pitch P): KCONTIG
 * transposed, x[k+0..3][i] (i the tile row, k the first k); else one float4
 * at x[k][i..i+3] (k the row, i the first column). */
template <bool KCONTIG, int P>
static __device__ __forceinline__ void store4_smem(float (*x)[P], unsigned k, unsigned i,
                                                   float4 v)
{
    if (KCONTIG) {
        x[k + 0][i] = v.x; x[k + 1][i] = v.y;
        x[k + 2][i] = v.z; x[k + 3][i] = v.w;
    } else {
        *reinterpret_cast<float4 *>(&x[k][i]) = v;
    }
}

/* Which (k, i) of the 128 x 8 tile a thread loads: KCONTIG 128 rows x 2
 * float4 along k (i = tid/2, k = 4 (tid%2)); K-major 8 k rows x 32 float4
 * along the tile (k = tid/32, i = 4 (tid%32)). */
template <bool KCONTIG>
static __device__ __forceinline__ void load_slot(unsigned tid, unsigned &k, unsigned &i)
{
    if (KCONTIG) {
        i = tid / 2;
        k = (tid % 2) * 4;
    } else {
        k = tid / 32;
        i = (tid % 32) * 4;
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

/* Step s's chunk of a K-major operand into stage x by cp.async: x[k][i..i+3]
 * from p (row s*RT_BK + k of the operand, first column of the chunk; last
 * as load4's). A chunk at the N edge or past K is loaded by load4 and stored
 * directly (it is not 16 bytes inside the matrix); the barrier that
 * publishes the stage publishes those stores too. */
template <int P>
static __device__ __forceinline__ void async4(float (*x)[P], unsigned k, unsigned i,
                                              const float *p, unsigned row, int last, unsigned uK)
{
    if (row < uK && last >= 3) {
        __pipeline_memcpy_async(&x[k][i], p, 16);
    } else {
        float4 v;
        load4<false, true, false>(p, row, last, uK, v);
        store4_smem<false>(x, k, i, v);
    }
}

/* Step s's 4 floats of an operand loaded through registers (load4): p is
 * this thread's element of step s; the partial last step (s >= nfull) is
 * loaded with K checks (k: the thread's k offset in a step, ak or bk). */
template <bool VEC, bool KC>
static __device__ __forceinline__ void reg_load(const float *p, unsigned s, unsigned nfull,
                                                unsigned k, int last, unsigned uK, float4 &v)
{
    if (s < nfull)
        load4<VEC, false, KC>(p, 0, last, uK, v);
    else
        load4<VEC, true, KC>(p, s * RT_BK + k, last, uK, v);
}

/* C = alpha op(A) op(B) + beta C. TA: A is K x M (lda >= M), op(A) = A^T;
 * TB: B is N x K (ldb >= K), op(B) = B^T.  A's tile is KCONTIG unless TA, B's
 * K-major unless TB (load4).  Bs gets the As row pad when it is filled by
 * transposing stores (TB), so those are conflict-free too.  K-major operands
 * on the vector path go by cp.async (async4), RT_STAGES - 1 steps ahead; the
 * others through registers (reg_load, store4_smem), one step ahead. */
template <bool VEC, bool TA, bool TB>
static __global__ void __launch_bounds__(RT_THREADS, 2)
gemm_regtile_kernel(int M, int N, int K, float alpha, const float *__restrict__ A, int lda,
                    long long sA, const float *__restrict__ B, int ldb, long long sB,
                    float beta, float *__restrict__ C, int ldc, long long sC)
{
    /* this block's matrices of the batch (gemm_cuda_regtile_batched) */
    A += (long long)blockIdx.z * sA;
    B += (long long)blockIdx.z * sB;
    C += (long long)blockIdx.z * sC;
    const bool A_KC = !TA, B_KC = TB; /* KCONTIG loads (see load4) */
    const bool A_ASYNC = VEC && !A_KC, B_ASYNC = VEC && !B_KC; /* by cp.async */
    /* register loads of the next step issued before the FMAs (VEC: one
     * float4 each), or after them (scalar: 4x the registers in flight) */
    const bool EARLY = VEC;
    __shared__ __align__(16) float As[RT_STAGES][RT_BK][RT_BM + RT_APAD];
    __shared__ __align__(16) float Bs[RT_STAGES][RT_BK][RT_BN + (TB ? RT_APAD : 0)];

    const unsigned uM = (unsigned)M, uN = (unsigned)N, uK = (unsigned)K;
    const unsigned tid = threadIdx.x;
    unsigned rm, cn; /* compute: this thread's outputs (regtile_core.h) */
    rt_origin(tid, rm, cn);
    unsigned ak, ai, bk, bi; /* this thread's load slots in the A and B tiles */
    load_slot<A_KC>(tid, ak, ai);
    load_slot<B_KC>(tid, bk, bi);
    /* block -> tile, grouped for L2 reuse (gemm_launch.h) */
    unsigned tm, tn;
    gemm_block_tile(blockIdx.x, (uM + RT_BM - 1) / RT_BM, (uN + RT_BN - 1) / RT_BN, &tm, &tn);
    const unsigned row0 = tm * RT_BM, col0 = tn * RT_BN;
    const unsigned nk = (uK + RT_BK - 1) / RT_BK; /* K steps */
    const unsigned nfull = uK / RT_BK;            /* of which need no K check */
    /* last row of A^T / column of B from this thread's first (<0 past it) */
    const int alast = TA ? (int)(uM - 1u - (row0 + ai)) : 0;
    const int blast = TB ? 0 : (int)(uN - 1u - (col0 + bi));
    /* A[r][ak] (r clamped) or A^T's A[ak][row0+ai]; B[bk][col0+bi] or B[c][bk] (c clamped) */
    const float *a_ptr = A_KC ? A + (size_t)min(row0 + ai, uM - 1) * lda + ak
                              : A + (size_t)ak * lda + (row0 + ai);
    const float *b_ptr = B_KC ? B + (size_t)min(col0 + bi, uN - 1) * ldb + bk
                              : B + (size_t)bk * ldb + (col0 + bi);
    /* a K step down A or B: along a row (KCONTIG) or RT_BK rows */
    const ptrdiff_t a_step = A_KC ? (ptrdiff_t)RT_BK : (ptrdiff_t)RT_BK * lda;
    const ptrdiff_t b_step = B_KC ? (ptrdiff_t)RT_BK : (ptrdiff_t)RT_BK * ldb;

    float acc[8][8];
UNROLL
    for (int i = 0; i < 8; ++i)
UNROLL
        for (int j = 0; j < 8; ++j)
            acc[i][j] = 0.0f;

    /* the pipeline: step s lives in stage s % RT_STAGES. cp.async operands:
     * steps 0 .. RT_STAGES-2 in flight before the loop, one batch a step;
     * register operands: step 0 stored now, step kt+1 during step kt. */
    if (A_ASYNC || B_ASYNC) {
UNROLL
        for (unsigned s = 0; s < RT_STAGES - 1; ++s) {
            if (s < nk) {
                if (A_ASYNC) async4(As[s], ak, ai, a_ptr, s * RT_BK + ak, alast, uK);
                if (B_ASYNC) async4(Bs[s], bk, bi, b_ptr, s * RT_BK + bk, blast, uK);
                if (A_ASYNC) a_ptr += a_step;
                if (B_ASYNC) b_ptr += b_step;
            }
            __pipeline_commit();
        }
    }
    float4 pa, pb;
    if (!A_ASYNC) {
        reg_load<VEC, A_KC>(a_ptr, 0, nfull, ak, alast, uK, pa);
        store4_smem<A_KC>(As[0], ak, ai, pa);
    }
    if (!B_ASYNC) {
        reg_load<VEC, B_KC>(b_ptr, 0, nfull, bk, blast, uK, pb);
        store4_smem<B_KC>(Bs[0], bk, bi, pb);
    }
    for (unsigned kt = 0; kt < nk; ++kt) {
        /* step kt is in its stage (the copies of the newest RT_STAGES - 2
         * steps may fly), and every warp is done with step kt - 1, whose
         * stage is refilled in this iteration: the copies of step kt+3 are
         * issued after step kt's FMAs (before them, A^T B spills at sm_90),
         * two steps of FMAs before they are needed */
        if (A_ASYNC || B_ASYNC) __pipeline_wait_prior(RT_STAGES - 2);
        __syncthreads();
        const bool more = kt + 1 < nk;
        if (more) { /* the register operands' pointers to step kt+1 */
            if (!A_ASYNC) a_ptr += a_step;
            if (!B_ASYNC) b_ptr += b_step;
        }
        if (more && EARLY) { /* step kt+1's register loads fly during the FMAs */
            if (!A_ASYNC) reg_load<VEC, A_KC>(a_ptr, kt + 1, nfull, ak, alast, uK, pa);
            if (!B_ASYNC) reg_load<VEC, B_KC>(b_ptr, kt + 1, nfull, bk, blast, uK, pb);
        }
        compute_step(acc, As[kt % RT_STAGES], Bs[kt % RT_STAGES], rm, cn);
        if (A_ASYNC || B_ASYNC) { /* into the stage of step kt - 1 (done: barrier) */
            const unsigned s = kt + RT_STAGES - 1;
            if (s < nk) {
                if (A_ASYNC)
                    async4(As[s % RT_STAGES], ak, ai, a_ptr, s * RT_BK + ak, alast, uK);
                if (B_ASYNC)
                    async4(Bs[s % RT_STAGES], bk, bi, b_ptr, s * RT_BK + bk, blast, uK);
                if (A_ASYNC) a_ptr += a_step;
                if (B_ASYNC) b_ptr += b_step;
            }
            __pipeline_commit();
        }
        if (more) { /* stage kt+1 was last read in step kt+1-RT_STAGES < kt */
            if (!EARLY) {
                if (!A_ASYNC) reg_load<VEC, A_KC>(a_ptr, kt + 1, nfull, ak, alast, uK, pa);
                if (!B_ASYNC) reg_load<VEC, B_KC>(b_ptr, kt + 1, nfull, bk, blast, uK, pb);
            }
            if (!A_ASYNC) store4_smem<A_KC>(As[(kt + 1) % RT_STAGES], ak, ai, pa);
            if (!B_ASYNC) store4_smem<B_KC>(Bs[(kt + 1) % RT_STAGES], bk, bi, pb);
        }
    }
    if (A_ASYNC || B_ASYNC) __pipeline_wait_prior(0); /* only empty batches are left */

    /* epilogue: acc[i][j] is C[row0 + rt_row(rm, i)][col0 + rt_col(cn, j)] */
UNROLL
    for (int i = 0; i < 8; ++i) {
        const unsigned r = row0 + rt_row(rm, i);
        if (r < uM) {
            float *c_row = C + (size_t)r * ldc;
            store4<VEC>(c_row, col0 + rt_col(cn, 0), uN, &acc[i][0], alpha, beta);
            store4<VEC>(c_row, col0 + rt_col(cn, 4), uN, &acc[i][4], alpha, beta);
        }
    }
}

/* One launch of the <VEC, TA, TB> instance: `batch` (<= RT_GRID_Z_MAX) matrices in grid z. */
template <bool VEC, bool TA, bool TB>
static void regtile_launch(unsigned tiles, int batch, int M, int N, int K, float alpha,
                           const float *dA, int lda, long long sA, const float *dB, int ldb,
                           long long sB, float beta, float *dC, int ldc, long long sC,
                           cudaStream_t stream)
{
    gemm_regtile_kernel<VEC, TA, TB><<<dim3(tiles, 1, (unsigned)batch), RT_THREADS, 0, stream>>>(
        M, N, K, alpha, dA, lda, sA, dB, ldb, sB, beta, dC, ldc, sC);
}

extern "C" int gemm_cuda_regtile_batched(int ta, int tb, int M, int N, int K, float alpha,
                                         const float *dA, int lda, long long sA,
                                         const float *dB, int ldb, long long sB, float beta,
                                         float *dC, int ldc, long long sC, int batch,
                                         cudaStream_t stream)
{
    const char *who = "gemm_cuda_regtile";
    if (!gemm_cuda_args_ok_t(who, ta, tb, M, N, K, dA, lda, dB, ldb, dC, ldc) ||
        !gemm_cuda_batch_ok(who, M, N, ldc, sA, sB, sC, batch))
        return -1;
    {
        /* float4 along k (A, B^T) or along the tile (A^T, B, C): the same
         * test, every matrix of the batch aligned as the first */
        const int vec = ((lda | ldb | ldc) % 4 == 0) && ((sA | sB | sC) % 4 == 0) &&
                        (((uintptr_t)dA | (uintptr_t)dB | (uintptr_t)dC) % 16 == 0);
        /* one block per 128x128 tile of C, in a 1-D grid (x allows 2^31-1 blocks) */
        const uint64_t tiles = (uint64_t)gemm_div_up(M, RT_BM) * gemm_div_up(N, RT_BN);
        if (tiles > 0x7fffffffu) {
            err_set("%s: M=%d N=%d needs %llu tiles, more than a grid holds", who, M, N,
                    (unsigned long long)tiles);
            return -1;
        }
        typedef void (*launch_fn)(unsigned, int, int, int, int, float, const float *, int,
                                  long long, const float *, int, long long, float, float *,
                                  int, long long, cudaStream_t);
        /* [vec][ta][tb] */
        static const launch_fn LAUNCH[2][2][2] = {
            {{regtile_launch<false, false, false>, regtile_launch<false, false, true>},
             {regtile_launch<false, true, false>, regtile_launch<false, true, true>}},
            {{regtile_launch<true, false, false>, regtile_launch<true, false, true>},
             {regtile_launch<true, true, false>, regtile_launch<true, true, true>}},
        };
        const launch_fn launch = LAUNCH[vec != 0][ta != 0][tb != 0];
        /* the batch in grid z, RT_GRID_Z_MAX matrices per launch */
        for (int b0 = 0; b0 < batch; b0 += RT_GRID_Z_MAX) {
            const int nb = batch - b0 < RT_GRID_Z_MAX ? batch - b0 : RT_GRID_Z_MAX;
            launch((unsigned)tiles, nb, M, N, K, alpha, dA + b0 * sA, lda, sA, dB + b0 * sB, ldb,
                   sB, beta, dC + b0 * sC, ldc, sC, stream);
            LAUNCH_CHECK();
        }
    }
    return 0;
fail:
    return -1;
}

extern "C" int gemm_cuda_regtile_t(int ta, int tb, int M, int N, int K, float alpha,
                                   const float *dA, int lda, const float *dB, int ldb,
                                   float beta, float *dC, int ldc, cudaStream_t stream)
{
    return gemm_cuda_regtile_batched(ta, tb, M, N, K, alpha, dA, lda, 0, dB, ldb, 0, beta, dC,
                                     ldc, 0, 1, stream);
}

extern "C" int gemm_cuda_regtile(int M, int N, int K, float alpha, const float *dA, int lda,
                                 const float *dB, int ldb, float beta, float *dC, int ldc,
                                 cudaStream_t stream)
{
    return gemm_cuda_regtile_t(0, 0, M, N, K, alpha, dA, lda, dB, ldb, beta, dC, ldc, stream);
}
