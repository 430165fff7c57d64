/* kernels/regtile_core.h - the register-tile core shared by cuda-regtile
 * (gemm_regtile.cu) and cuda-implicit (conv_implicit.cu): the 128 x 128 x 8
 * block tile of 256 threads, shared buffers As[BK][BM + APAD] (A transposed)
 * and Bs[BK][BN], and one K step of a thread's 8 x 8 outputs. Thread
 * (tr, tc) = (tid / 16, tid % 16) owns rows {4tr..4tr+3, 64+4tr..} and columns
 * {4tc..4tc+3, 64+4tc..} of the tile (see gemm_regtile.cu for why).
 * Included by the .cu files of kernels/ only. */
#ifndef KERNELS_REGTILE_CORE_H
#define KERNELS_REGTILE_CORE_H

#include "gemm_launch.h"   /* UNROLL */

#define RT_BM 128
#define RT_BN 128
#define RT_BK 8
#define RT_THREADS 256
#define RT_APAD 4 /* As row pad: conflict-free transposing stores */

/* acc += the thread's 8x8 share of one K step from shared buffers as, bs.
 * BP, the row pitch of bs, is RT_BN, or RT_BN + RT_APAD where Bs is filled by
 * transposing stores (gemm_regtile.cu with B^T); deduced from bs. */
template <int BP>
static __device__ __forceinline__ void compute_step(float (&acc)[8][8],
                                                    const float (*as)[RT_BM + RT_APAD],
                                                    const float (*bs)[BP], unsigned tr,
                                                    unsigned tc)
{
UNROLL
    for (int k = 0; k < RT_BK; ++k) {
        float ra[8], rb[8];
        const float4 a0 = *reinterpret_cast<const float4 *>(&as[k][tr * 4]);
        const float4 a1 = *reinterpret_cast<const float4 *>(&as[k][64 + tr * 4]);
        const float4 b0 = *reinterpret_cast<const float4 *>(&bs[k][tc * 4]);
        const float4 b1 = *reinterpret_cast<const float4 *>(&bs[k][64 + tc * 4]);
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
