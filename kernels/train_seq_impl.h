/* kernels/train_seq_impl.h - shared by the ops of the sequence models (rnn, lstm, gpt) on the
 * GPU, one file an op (kernels/train_seq_<op>.cu, matching cpu/train_seq_<op>.c),
 * shared by both GPU train_ops tables (kernels/train_cuda.h): add,
 * permute, causal attention softmax and its backward, embedding and its
 * backward, layernorm and its backward, GELU and its backward, the LSTM
 * cell's pointwise part and its backward, AdamW.  (gemm_batched is the
 * GEMM backends': gemm_cuda_regtile_batched, gemm_cublas_batched.)
 *
 * Contract: ops/train_ops.h, entry by entry (fp32 row-major, int32 ids,
 * DEVICE pointers, work queued on `stream`, a cudaStream_t, never
 * synchronizing except under bench_cuda_sync_launches; every output element
 * written).  Each returns 0, or -1 after err_set naming the bad value: a
 * negative size (T, vocab, dim of layernorm < 1), a null pointer, a
 * forbidden alias (y == x where the contract says "must not be"), AdamW's
 * betas outside [0, 1), a failed launch.  An empty tensor is no work (no launch), except adamw, which
 * still counts the step.  What only the device can see is not checked on
 * the host (that would synchronize): it shows as NaN instead, below.
 *
 *   add           y = a + b, grid-stride, float4 when a, b, y are 16-byte
 *                 aligned (the n % 4 tail scalar); y may be a or b
 *   permute       one thread per output element (float4 of d when D % 4 == 0
 *                 and x, y aligned), the input index from the output's:
 *                 writes coalesced, reads coalesced along d (our D: the head
 *                 size or the embedding, >= 32); 32-bit index math when the
 *                 tensor has < 2^31 elements (an index plus the grid's
 *                 stride then cannot wrap)
 *   attn_softmax  one warp per row (8 per 256-thread block, grid-stride):
 *                 an online max/sum over s <= t (lane-strided, coalesced;
 *                 the running sum rescaled when the maximum grows), the
 *                 lanes' (max, sum) pairs merged by an xor butterfly, then
 *                 p written for the whole row (0 past t); two reads of z.
 *                 In place: each element is read and written by one lane.
 *   attn_softmax_bwd  one warp per row: sum_{u<=t} p dp by lanes and an xor
 *                 butterfly, then dz; dz may be dp (as above)
 *   embedding     one thread per output element (float4 along dim when
 *                 dim % 4 == 0 and table, y aligned); an id outside
 *                 [0, vocab) makes its row of y NaN (nothing read outside
 *                 the table)
 *   embedding_bwd with ids: dtable zeroed (cudaMemsetAsync), then one
 *                 atomicAdd per element of dy (not deterministic: the order
 *                 of the additions into a row varies from run to run, as
 *                 the contract allows); an id outside [0, vocab) adds NaN
 *                 to row 0.  Without ids (positions, id(r) = r % vocab):
 *                 one thread per element of dtable summing rows v, v+vocab,
 *                 ... in order (deterministic, no zeroing pass, no atomics)
 *   layernorm     one warp per row; rows of up to 512 floats (dim % 4 == 0,
 *                 x, y, w, b aligned) are kept in registers as float4
 *                 (LN_V of them per lane: one read of x), the mean then
 *                 sum((x - mean)^2) (two-pass: no cancellation) by xor
 *                 butterflies; other rows read x three times, scalar
 *   layernorm_bwd dx: one warp per row as layernorm (dy and x in
 *                 registers, the two row means by butterflies); dw, db: one
 *                 32 x 16 block per 32 columns, thread (x, y) summing rows
 *                 y, y+16, ... of column x in order, then a shared-memory
 *                 tree over y (deterministic; as bias_grad, few blocks when
 *                 dim is small: see kernels/README.md, "Not done yet")
 *   gelu, gelu_bwd  grid-stride, float4 as add (tanhf, not the fast
 *                 intrinsics); dx may be dy
 *   lstm_cell     one thread per (row, j) (float4 of j when H % 4 == 0 and
 *                 every pointer is aligned): reads its 4 pre-activations,
 *                 writes its 4 gates, c and h (gates may be pre: a thread
 *                 reads its 4 before writing them)
 *   lstm_cell_bwd the same shape; dc_prev may be dc
 *   adamw         grid-stride, float4 when p, g, m, v are aligned.  The
 *                 step count t lives in device memory (the contract): the
 *                 factors that do not depend on it, 1 - lr wd, 1 - b1,
 *                 1 - b2, are computed on the host in double; those that do,
 *                 lr / (1 - b1^t) and sqrt(1 - b2^t), by thread 0 of each
 *                 block in double from the *t it reads (shared memory), and
 *                 a one-thread kernel queued after stores t + 1 (so every
 *                 block reads the same t).  A *t that is not a whole number
 *                 in [0, 2^24) makes the update NaN.
 * Launches: 256 threads; grid-stride grids min(ceil(n/256), 65536) blocks,
 * row kernels min(ceil(rows/8), 65536).  Per-thread work is fp32 with the
 * accurate math functions (expf, tanhf, sqrtf), as the CPU reference.
 */
#ifndef KERNELS_TRAIN_SEQ_IMPL_H
#define KERNELS_TRAIN_SEQ_IMPL_H

#include <math.h>
#include <stdint.h>

#include "train_cuda.h"
#include "cuda_check.h"
#include "train_launch.h"

#define LN_V 4   /* layernorm: float4 per lane kept in registers (dim <= 512) */
#define LG_X 32  /* layernorm dw, db: columns per block */
#define LG_Y 16  /*                   row lanes per block */

/* Refuses y == x where the contract says y must not be x. */
static inline int distinct_ok(const char *who, const void *x, const char *xname, const void *y,
                       const char *yname)
{
    if (x == y) {
        err_set("%s: %s must not be %s (both %p)", who, yname, xname, x);
        return 0;
    }
    return 1;
}

static __device__ __forceinline__ float4 f4(float v) { return make_float4(v, v, v, v); }

/* The kernels templated on T = float or float4 (4 consecutive elements at
 * once) use these overloads. */
static __device__ __forceinline__ void fill(float &d, float v) { d = v; }
static __device__ __forceinline__ void fill(float4 &d, float v) { d = f4(v); }
static __device__ __forceinline__ float vadd(float a, float b) { return a + b; }
static __device__ __forceinline__ float4 vadd(float4 a, float4 b)
{
    return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}

#endif
