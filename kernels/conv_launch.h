/* kernels/conv_launch.h - helpers shared by the conv kernel files: argument
 * checks against the contract of conv_cuda.h, sizes, a block-wide sum, and
 * the bias kernels every hand-written backend uses (kernels/conv_common.cu).
 * Included by kernels/conv_*.cu only. */
#ifndef KERNELS_CONV_LAUNCH_H
#define KERNELS_CONV_LAUNCH_H

#include <stdint.h>

#include <cuda_runtime.h>

#include "conv_cuda.h"
#include "gemm_launch.h"   /* UNROLL, gemm_div_up */
#include "../harness/errmsg.h"

/* Threads of the 1-D helper kernels; blocks of a grid-stride loop. */
#define CONV_THREADS 256
#define CONV_GRID_MAX 65535u

/* Dims as the contract demands (finished, positive, P and Q consistent, every
 * tensor under 2^31 elements: kernels index with 32-bit offsets per tensor)
 * and non-null pointers. Returns 1 when fine, else err_set and 0. */
static inline int conv_cuda_args_ok(const char *who, const conv_dims *d, const void *a,
                                    const void *b, const void *c)
{
    if (!d) {
        err_set("%s: no dims", who);
        return 0;
    }
    if (d->N < 1 || d->C < 1 || d->H < 1 || d->W < 1 || d->K < 1 || d->R < 1 || d->S < 1 ||
        d->sh < 1 || d->sw < 1 || d->ph < 0 || d->pw < 0 || d->P < 1 || d->Q < 1 ||
        d->P != conv_out_dim(d->H, d->R, d->ph, d->sh) ||
        d->Q != conv_out_dim(d->W, d->S, d->pw, d->sw)) {
        err_set("%s: bad dims N=%d C=%d H=%d W=%d K=%d R=%d S=%d stride %dx%d pad %dx%d "
                "out %dx%d", who, d->N, d->C, d->H, d->W, d->K, d->R, d->S, d->sh, d->sw,
                d->ph, d->pw, d->P, d->Q);
        return 0;
    }
    if (conv_x_elems(d) >= (1LL << 31) || conv_y_elems(d) >= (1LL << 31) ||
        conv_w_elems(d) >= (1LL << 31)) {
        err_set("%s: a tensor of 2^31 elements or more (x %lld, w %lld, y %lld)", who,
                conv_x_elems(d), conv_w_elems(d), conv_y_elems(d));
        return 0;
    }
    if (!a || !b || !c) {
        err_set("%s: null device pointer (%p, %p, %p)", who, a, b, c);
        return 0;
    }
    return 1;
}

/* A workspace of `need` bytes was promised by ops.workspace: non-null when needed. */
static inline int conv_cuda_ws_ok(const char *who, const void *ws, unsigned long long need)
{
    if (need && !ws) {
        err_set("%s: needs a device workspace of %llu bytes, got none", who, need);
        return 0;
    }
    return 1;
}

/* Blocks of a grid-stride loop over n elements. */
static inline unsigned conv_grid_1d(long long n)
{
    long long b = (n + CONV_THREADS - 1) / CONV_THREADS;
    return b < 1 ? 1u : b > CONV_GRID_MAX ? CONV_GRID_MAX : (unsigned)b;
}

/* The sum of v over the block (blockDim.x a multiple of 32, at most 1024),
 * valid in thread 0. `red` is 32 floats of shared memory; the caller syncs
 * before reusing it. */
static __device__ __forceinline__ float conv_block_sum(float v, float *red)
{
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
UNROLL
    for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
    if (lane == 0) red[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < blockDim.x / 32 ? red[lane] : 0.0f;
UNROLL
        for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
    }
    return v;
}

/* kernels/conv_common.cu: y[n,k,:,:] = b[k] (the GEMM then adds with beta 1),
 * and db[k] = sum over n, p, q of dy[n,k,p,q] (fp32 accumulation, one
 * rounding to dt); every buffer holds dt (fp32, tf32 in fp32 storage, bf16,
 * fp16); queued on stream. 0, or -1 with err_set. */
int conv_cuda_bias_fill(dtype_t dt, const conv_dims *d, const void *b, void *y,
                        cudaStream_t stream);
int conv_cuda_bias_grad(dtype_t dt, const conv_dims *d, const void *dy, void *db,
                        cudaStream_t stream);

#endif
