/* kernels/regtile_core.h - the register-tile core shared by cuda-regtile
 * (gemm_regtile.cu) and cuda-implicit (conv_implicit.cu): the 128 x 128 x 8
 * block tile of 256 threads, shared buffers As[BK][BM + APAD] (A transposed)
 * and Bs[BK][BN], which thread owns which 8 x 8 outputs (warp tiling), and
 * one K step of a thread's outputs. Included by the .cu files of kernels/.
 *
 * Warp tiling (the SIMT layout of CUTLASS and of siboehm's kernel 10): the 8
 * warps lie 4 (along M) x 2 (along N) over the block tile, each owning a
 * WM x WN = 32 x 64 sub-tile; its 32 lanes lie 4 x 8 over that, each owning
 * TM x TN = 8 x 8 outputs as 2 x 2 blocks of 4 x 4: rows rm + {0..3, 16..19}
 * and columns cn + {0..3, 32..35}, where rm = 32 (warp / 2) + 4 (lane / 8),
 * cn = 64 (warp % 2) + 4 (lane % 8) (rt_origin). Per k, a warp then reads
 * from shared memory two float4 runs of A of 4 distinct float4 (64 bytes) and
 * two of B of 8 (128 bytes): every request one conflict-free wavefront, 4 in
 * all, where a 16 x 128 strip per warp (16 x 16 threads over the block)
 * needs 6 (two 256-byte B runs). In the epilogue, a warp's float4 stores of
 * one (row, half) are 4 rows of 128 contiguous bytes of C.
 */
#ifndef KERNELS_REGTILE_CORE_H
#define KERNELS_REGTILE_CORE_H

#include "gemm_launch.h"   /* UNROLL */

#define RT_BM 128
#define RT_BN 128
#define RT_BK 8
#define RT_THREADS 256
#define RT_APAD 4 /* As row pad: conflict-free transposing stores */
#define RT_WM 32        /* a warp's sub-tile: RT_WM x RT_WN */
#define RT_WN 64
#define RT_WARPS_N (RT_BN / RT_WN) /* warps along N */
#define RT_LANES_N 8    /* lanes along N within a warp (32 / 8 along M) */
#define RT_SUB_M 16     /* a thread's two 4-row blocks are RT_SUB_M rows apart */
#define RT_SUB_N 32     /* its two 4-column blocks RT_SUB_N columns apart */

static_assert((RT_BM / RT_WM) * (RT_BN / RT_WN) == RT_THREADS / 32, "one sub-tile per warp");
static_assert(RT_SUB_M == (32 / RT_LANES_N) * 4 && RT_WM == 2 * RT_SUB_M,
              "lanes along M cover a sub-tile's rows in two 4-row blocks");
static_assert(RT_SUB_N == RT_LANES_N * 4 && RT_WN == 2 * RT_SUB_N,
              "lanes along N cover a sub-tile's columns in two 4-column blocks");

/* Thread tid's first tile row rm and column cn (see above). */
static __device__ __forceinline__ void rt_origin(unsigned tid, unsigned &rm, unsigned &cn)
{
    const unsigned warp = tid / 32, lane = tid % 32;
    rm = (warp / RT_WARPS_N) * RT_WM + (lane / RT_LANES_N) * 4;
    cn = (warp % RT_WARPS_N) * RT_WN + (lane % RT_LANES_N) * 4;
}

/* The tile row of acc[i][.] and the tile column of acc[.][j] (i, j < 8). */
static __device__ __forceinline__ unsigned rt_row(unsigned rm, int i)
{
    return rm + (unsigned)(i / 4) * RT_SUB_M + (unsigned)(i % 4);
}
static __device__ __forceinline__ unsigned rt_col(unsigned cn, int j)
{
    return cn + (unsigned)(j / 4) * RT_SUB_N + (unsigned)(j % 4);
}

/* acc += the thread's 8x8 share of one K step from shared buffers as, bs
 * (rm, cn: rt_origin). BP, the row pitch of bs, is RT_BN, or RT_BN + RT_APAD
 * where Bs is filled by transposing stores (gemm_regtile.cu with B^T);
 * deduced from bs. */
template <int BP>
static __device__ __forceinline__ void compute_step(float (&acc)[8][8],
                                                    const float (*as)[RT_BM + RT_APAD],
                                                    const float (*bs)[BP], unsigned rm,
                                                    unsigned cn)
{
UNROLL
    for (int k = 0; k < RT_BK; ++k) {
        float ra[8], rb[8];
        const float4 a0 = *reinterpret_cast<const float4 *>(&as[k][rm]);
        const float4 a1 = *reinterpret_cast<const float4 *>(&as[k][rm + RT_SUB_M]);
        const float4 b0 = *reinterpret_cast<const float4 *>(&bs[k][cn]);
        const float4 b1 = *reinterpret_cast<const float4 *>(&bs[k][cn + RT_SUB_N]);
        ra[0] = a0.x; ra[1] = a0.y; ra[2] = a0.z; ra[3] = a0.w;
        ra[4] = a1.x; ra[5] = a1.y; ra[6] = a1.z; ra[7] = a1.w;
        rb[0] = b0.x; rb[1] = b0.y; rb[2] = b0.z; rb[3] = b0.w;
        rb[4] = b1.x; rb[5] = b1.y; rb[6] = b1.z; rb[7] = b1.w;
UNROLL
        for (int i = 0; i < 8; ++i)
UNROLL
            for (int j = 0; j < 8; ++j)
                acc[i][j] += ra[i] * rb[j];
    }
}

#endif
