/* kernels/train_seq.cu - the ops of the sequence models (rnn, lstm, gpt) on the
 * GPU, shared by both GPU train_ops tables (kernels/train_cuda.h): add,
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
#include <math.h>
#include <stdint.h>

#include "train_cuda.h"
#include "cuda_check.h"
#include "train_launch.h"

#define LN_V 4   /* layernorm: float4 per lane kept in registers (dim <= 512) */
#define LG_X 32  /* layernorm dw, db: columns per block */
#define LG_Y 16  /*                   row lanes per block */

/* Refuses y == x where the contract says y must not be x. */
static int distinct_ok(const char *who, const void *x, const char *xname, const void *y,
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

/* ---- elementwise maps: y[i] = F(a[i], b[i]) (add, scale, gelu, gelu_bwd) ---- */

struct AddOp {
    __device__ float operator()(float a, float b) const { return a + b; }
};

/* a * x; the second operand unused */
struct ScaleOp {
    float a;
    __device__ float operator()(float x, float) const { return a * x; }
};

#define GELU_K0 0.7978845608028654f /* sqrt(2/pi) */
#define GELU_K1 0.044715f

/* gelu(x); the second operand unused */
struct GeluOp {
    __device__ float operator()(float x, float) const
    {
        return 0.5f * x * (1.0f + tanhf(GELU_K0 * (x + GELU_K1 * x * x * x)));
    }
};

/* dy * gelu'(x), with u = k0 (x + k1 x^3):
 * gelu' = 0.5 (1 + tanh u) + 0.5 x (1 - tanh^2 u) k0 (1 + 3 k1 x^2) */
struct GeluBwdOp {
    __device__ float operator()(float x, float dy) const
    {
        const float th = tanhf(GELU_K0 * (x + GELU_K1 * x * x * x));
        const float d = 0.5f * (1.0f + th) +
                        0.5f * x * (1.0f - th * th) * GELU_K0 * (1.0f + 3.0f * GELU_K1 * x * x);
        return dy * d;
    }
};

/* No __restrict__: y may be a or b (each element is read, then written, by
 * one thread). VEC: the first n/4*4 elements as float4 (all aligned). */
template <class F, bool VEC>
static __global__ void map2_kernel(size_t n, const float *a, const float *b, float *y, F f)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t i0 = 0;
    if (VEC) {
        const size_t n4 = n / 4;
        const float4 *a4 = reinterpret_cast<const float4 *>(a);
        const float4 *b4 = reinterpret_cast<const float4 *>(b);
        float4 *y4 = reinterpret_cast<float4 *>(y);
        for (size_t i = t; i < n4; i += stride) {
            const float4 u = a4[i], v = b4[i];
            y4[i] = make_float4(f(u.x, v.x), f(u.y, v.y), f(u.z, v.z), f(u.w, v.w));
        }
        i0 = n4 * 4;
    }
    for (size_t i = i0 + t; i < n; i += stride) y[i] = f(a[i], b[i]);
}

template <class F>
static int map2(const char *who, long n, const float *a, const float *b, float *y, void *stream,
                F f = F())
{
    if (!size_ok(who, n, "n", 0) || !ptrs_ok(who, a, b, y)) return -1;
    if (n == 0) return 0;
    {
        const size_t un = (size_t)n;
        const int vec = aligned16(a, b, y);
        const unsigned grid = elem_grid(vec ? (un + 3) / 4 : un);
        if (vec)
            map2_kernel<F, true><<<grid, ELEM_THREADS, 0, (cudaStream_t)stream>>>(un, a, b, y, f);
        else
            map2_kernel<F, false><<<grid, ELEM_THREADS, 0, (cudaStream_t)stream>>>(un, a, b, y, f);
    }
    LAUNCH_CHECK();
    return 0;
fail:
    return -1;
}

extern "C" int train_cuda_add(long n, const float *a, const float *b, float *y, void *stream)
{
    return map2<AddOp>("train_cuda add", n, a, b, y, stream);
}

extern "C" int train_cuda_scale(long n, float a, float *x, void *stream)
{
    return map2<ScaleOp>("train_cuda scale", n, x, x, x, stream, ScaleOp{a});
}

extern "C" int train_cuda_gelu(long n, const float *x, float *y, void *stream)
{
    return map2<GeluOp>("train_cuda gelu", n, x, x, y, stream);
}

extern "C" int train_cuda_gelu_bwd(long n, const float *x, const float *dy, float *dx,
                                   void *stream)
{
    return map2<GeluBwdOp>("train_cuda gelu_bwd", n, x, dy, dx, stream);
}

/* ---- permute: y[a][c][b][d] = x[a][b][c][d] ---- */

/* T: float or float4 (then D counts float4); I: the index type. */
template <typename T, typename I>
static __global__ void permute_kernel(I n, I B, I C, I D, const T *__restrict__ x,
                                      T *__restrict__ y)
{
    for (I o = (I)blockIdx.x * blockDim.x + threadIdx.x; o < n; o += (I)gridDim.x * blockDim.x) {
        const I d = o % D;
        I q = o / D;
        const I b = q % B;
        q /= B;
        const I c = q % C, a = q / C;
        y[o] = x[((a * B + b) * C + c) * D + d];
    }
}

template <typename T>
static void permute_launch(size_t n, size_t B, size_t C, size_t D, const float *x, float *y,
                           cudaStream_t s)
{
    const T *xt = reinterpret_cast<const T *>(x);
    T *yt = reinterpret_cast<T *>(y);
    if (n <= 0x7fffffffu) /* o + stride < 2^31 + 2^24: no wrap */
        permute_kernel<T, unsigned><<<elem_grid(n), ELEM_THREADS, 0, s>>>(
            (unsigned)n, (unsigned)B, (unsigned)C, (unsigned)D, xt, yt);
    else
        permute_kernel<T, size_t><<<elem_grid(n), ELEM_THREADS, 0, s>>>(n, B, C, D, xt, yt);
}

extern "C" int train_cuda_permute(int A, int B, int C, int D, const float *x, float *y,
                                  void *stream)
{
    const char *who = "train_cuda permute";
    if (!size_ok(who, A, "A", 0) || !size_ok(who, B, "B", 0) || !size_ok(who, C, "C", 0) ||
        !size_ok(who, D, "D", 0) || !ptrs_ok(who, x, y, y) || !distinct_ok(who, x, "x", y, "y"))
        return -1;
    {
        const size_t n = (size_t)A * B * C * D;
        if (n == 0) return 0;
        if (D % 4 == 0 && aligned16(x, y))
            permute_launch<float4>(n / 4, B, C, D / 4, x, y, (cudaStream_t)stream);
        else
            permute_launch<float>(n, B, C, D, x, y, (cudaStream_t)stream);
    }
    LAUNCH_CHECK();
    return 0;
fail:
    return -1;
}

/* ---- causal attention softmax ---- */

/* Merges a running (max m, sum s of exp(v - m)) with another's; an empty
 * side (m = -inf, s = 0) adds nothing (and never computes inf - inf). */
static __device__ __forceinline__ void softmax_merge(float &m, float &s, float mo, float so)
{
    const float mn = fmaxf(m, mo);
    s = (m == -INFINITY ? 0.0f : s * expf(m - mn)) + (mo == -INFINITY ? 0.0f : so * expf(mo - mn));
    m = mn;
}

/* No __restrict__: p may be z. */
static __global__ void __launch_bounds__(ELEM_THREADS)
attn_softmax_kernel(size_t rows, int T, float scale, const float *z, float *p)
{
    const int lane = threadIdx.x % 32;
    const size_t step = (size_t)gridDim.x * ROW_WARPS;
    for (size_t r = (size_t)blockIdx.x * ROW_WARPS + threadIdx.x / 32; r < rows; r += step) {
        const int t = (int)(r % (unsigned)T);
        const float *zr = z + r * T;
        float *pr = p + r * T;
        float m = -INFINITY, s = 0.0f;
        for (int u = lane; u <= t; u += 32) {
            const float v = scale * zr[u];
            if (v > m) { /* a new maximum: rescale the sum so far */
                s = s * expf(m - v) + 1.0f;
                m = v;
            } else {
                s += expf(v - m); /* a NaN v makes s NaN, and the row */
            }
        }
UNROLL
        for (int o = 16; o > 0; o /= 2) {
            const float mo = __shfl_xor_sync(0xffffffffu, m, o);
            const float so = __shfl_xor_sync(0xffffffffu, s, o);
            softmax_merge(m, s, mo, so);
        }
        const float inv = 1.0f / s;
        for (int u = lane; u < T; u += 32) pr[u] = u <= t ? expf(scale * zr[u] - m) * inv : 0.0f;
    }
}

extern "C" int train_cuda_attn_softmax(long rows, int T, float scale, const float *z, float *p,
                                       void *stream)
{
    const char *who = "train_cuda attn_softmax";
    if (!size_ok(who, rows, "rows", 0) || !size_ok(who, T, "T", 1) || !ptrs_ok(who, z, p, p))
        return -1;
    if (rows == 0) return 0;
    attn_softmax_kernel<<<row_grid((size_t)rows), ELEM_THREADS, 0, (cudaStream_t)stream>>>(
        (size_t)rows, T, scale, z, p);
    LAUNCH_CHECK();
    return 0;
fail:
    return -1;
}

/* No __restrict__: dz may be dp. */
static __global__ void __launch_bounds__(ELEM_THREADS)
attn_softmax_bwd_kernel(size_t rows, int T, float scale, const float *__restrict__ p,
                        const float *dp, float *dz)
{
    const int lane = threadIdx.x % 32;
    const size_t step = (size_t)gridDim.x * ROW_WARPS;
    for (size_t r = (size_t)blockIdx.x * ROW_WARPS + threadIdx.x / 32; r < rows; r += step) {
        const int t = (int)(r % (unsigned)T);
        const float *pr = p + r * T, *dpr = dp + r * T;
        float *dzr = dz + r * T;
        float dot = 0.0f;
        for (int u = lane; u <= t; u += 32) dot += pr[u] * dpr[u];
        dot = warp_sum(dot);
        for (int u = lane; u < T; u += 32)
            dzr[u] = u <= t ? scale * pr[u] * (dpr[u] - dot) : 0.0f;
    }
}

extern "C" int train_cuda_attn_softmax_bwd(long rows, int T, float scale, const float *p,
                                           const float *dp, float *dz, void *stream)
{
    const char *who = "train_cuda attn_softmax_bwd";
    if (!size_ok(who, rows, "rows", 0) || !size_ok(who, T, "T", 1) || !ptrs_ok(who, p, dp, dz))
        return -1;
    if (rows == 0) return 0;
    attn_softmax_bwd_kernel<<<row_grid((size_t)rows), ELEM_THREADS, 0, (cudaStream_t)stream>>>(
        (size_t)rows, T, scale, p, dp, dz);
    LAUNCH_CHECK();
    return 0;
fail:
    return -1;
}

/* ---- embedding ---- */

/* T: float or float4 (dim then counts float4). id(r) = ids[r], or r % vocab. */
template <typename T>
static __global__ void embedding_kernel(size_t n, unsigned dim, const int *__restrict__ ids,
                                        int vocab, const T *__restrict__ table,
                                        T *__restrict__ y, int accumulate)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const size_t r = i / dim;
        const unsigned c = (unsigned)(i % dim);
        const int id = ids ? ids[r] : (int)(r % (unsigned)vocab);
        T v;
        if (id >= 0 && id < vocab)
            v = table[(size_t)id * dim + c];
        else
            fill(v, NAN); /* make a bad id show */
        y[i] = accumulate ? vadd(y[i], v) : v;
    }
}

extern "C" int train_cuda_embedding(int rows, int dim, const int *ids, int vocab,
                                    const float *table, float *y, int accumulate, void *stream)
{
    const char *who = "train_cuda embedding";
    if (!size_ok(who, rows, "rows", 0) || !size_ok(who, dim, "dim", 0) ||
        !size_ok(who, vocab, "vocab", 1) || !ptrs_ok(who, table, y, y))
        return -1;
    {
        const size_t n = (size_t)rows * dim;
        cudaStream_t s = (cudaStream_t)stream;
        if (n == 0) return 0;
        if (dim % 4 == 0 && aligned16(table, y))
            embedding_kernel<float4><<<elem_grid(n / 4), ELEM_THREADS, 0, s>>>(
                n / 4, (unsigned)dim / 4, ids, vocab, reinterpret_cast<const float4 *>(table),
                reinterpret_cast<float4 *>(y), accumulate);
        else
            embedding_kernel<float><<<elem_grid(n), ELEM_THREADS, 0, s>>>(
                n, (unsigned)dim, ids, vocab, table, y, accumulate);
    }
    LAUNCH_CHECK();
    return 0;
fail:
    return -1;
}

/* dtable[id(r)][c] += dy[r][c] by atomics (dtable zeroed before). */
static __global__ void embedding_scatter_kernel(size_t n, unsigned dim, const int *__restrict__ ids,
                                                int vocab, const float *__restrict__ dy,
                                                float *__restrict__ dtable)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const size_t r = i / dim;
        const unsigned c = (unsigned)(i % dim);
        const int id = ids[r];
        if (id >= 0 && id < vocab)
            atomicAdd(&dtable[(size_t)id * dim + c], dy[i]);
        else
            atomicAdd(&dtable[c], NAN); /* make a bad id show */
    }
}

/* Positions: dtable[v][c] = sum over r = v, v + vocab, ... < rows of dy[r][c],
 * one thread per element of dtable, in row order. T: float or float4. */
template <typename T>
static __global__ void embedding_pos_grad_kernel(size_t n, unsigned dim, int rows, int vocab,
                                                 const T *__restrict__ dy, T *__restrict__ dtable)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const unsigned v = (unsigned)(i / dim), c = (unsigned)(i % dim);
        T s;
        fill(s, 0.0f);
        for (unsigned r = v; r < (unsigned)rows; r += (unsigned)vocab)
            s = vadd(s, dy[(size_t)r * dim + c]);
        dtable[i] = s;
    }
}

extern "C" int train_cuda_embedding_bwd(int rows, int dim, const int *ids, int vocab,
                                        const float *dy, float *dtable, void *stream)
{
    const char *who = "train_cuda embedding_bwd";
    cudaStream_t s = (cudaStream_t)stream;
    if (!size_ok(who, rows, "rows", 0) || !size_ok(who, dim, "dim", 0) ||
        !size_ok(who, vocab, "vocab", 1) || !ptrs_ok(who, dy, dtable, dtable))
        return -1;
    if (dim == 0) return 0;
    if (ids) {
        const size_t n = (size_t)rows * dim;
        CUDA_TRY(cudaMemsetAsync(dtable, 0, (size_t)vocab * dim * sizeof(float), s));
        if (bench_cuda_sync_launches) CUDA_TRY(cudaStreamSynchronize(s));
        if (n == 0) return 0;
        embedding_scatter_kernel<<<elem_grid(n), ELEM_THREADS, 0, s>>>(n, (unsigned)dim, ids,
                                                                       vocab, dy, dtable);
    } else {
        const size_t n = (size_t)vocab * dim;
        if (dim % 4 == 0 && aligned16(dy, dtable))
            embedding_pos_grad_kernel<float4><<<elem_grid(n / 4), ELEM_THREADS, 0, s>>>(
                n / 4, (unsigned)dim / 4, rows, vocab, reinterpret_cast<const float4 *>(dy),
                reinterpret_cast<float4 *>(dtable));
        else
            embedding_pos_grad_kernel<float><<<elem_grid(n), ELEM_THREADS, 0, s>>>(
                n, (unsigned)dim, rows, vocab, dy, dtable);
    }
    LAUNCH_CHECK();
    return 0;
fail:
    return -1;
}

/* ---- layernorm ---- */

static __device__ __forceinline__ float sum4(float4 v) { return (v.x + v.y) + (v.z + v.w); }

/* One warp per row. V > 0: the row as float4, at most V per lane, kept in
 * registers (dim % 4 == 0, dim <= 128 V, all pointers aligned); V == 0: any
 * dim, scalar, x read three times. */
template <int V>
static __global__ void __launch_bounds__(ELEM_THREADS)
layernorm_kernel(int rows, int dim, const float *__restrict__ x, const float *__restrict__ w,
                 const float *__restrict__ b, float *__restrict__ y, float *__restrict__ mean,
                 float *__restrict__ rstd)
{
    const int lane = threadIdx.x % 32;
    const unsigned step = gridDim.x * ROW_WARPS; /* r + step < 2^31 + 2^19: no wrap */
    const float inv_dim = 1.0f / (float)dim;
    for (unsigned r = blockIdx.x * ROW_WARPS + threadIdx.x / 32; r < (unsigned)rows; r += step) {
        const float *xr = x + (size_t)r * dim;
        float *yr = y + (size_t)r * dim;
        float mu, rs;
        if (V > 0) {
            const int d4 = dim / 4;
            const float4 *x4 = reinterpret_cast<const float4 *>(xr);
            float4 v[V > 0 ? V : 1];
            float s = 0.0f;
UNROLL
            for (int k = 0; k < V; ++k) {
                const int c = lane + 32 * k;
                v[k] = c < d4 ? x4[c] : f4(0.0f);
                s += sum4(v[k]);
            }
            mu = warp_sum(s) * inv_dim;
            float q = 0.0f;
UNROLL
            for (int k = 0; k < V; ++k)
                if (lane + 32 * k < d4) {
                    const float4 e = make_float4(v[k].x - mu, v[k].y - mu, v[k].z - mu, v[k].w - mu);
                    q += (e.x * e.x + e.y * e.y) + (e.z * e.z + e.w * e.w);
                }
            rs = 1.0f / sqrtf(warp_sum(q) * inv_dim + 1e-5f);
            const float4 *w4 = reinterpret_cast<const float4 *>(w);
            const float4 *b4 = reinterpret_cast<const float4 *>(b);
            float4 *y4 = reinterpret_cast<float4 *>(yr);
UNROLL
            for (int k = 0; k < V; ++k) {
                const int c = lane + 32 * k;
                if (c < d4) {
                    const float4 ww = w4[c], bb = b4[c];
                    y4[c] = make_float4((v[k].x - mu) * rs * ww.x + bb.x,
                                        (v[k].y - mu) * rs * ww.y + bb.y,
                                        (v[k].z - mu) * rs * ww.z + bb.z,
                                        (v[k].w - mu) * rs * ww.w + bb.w);
                }
            }
        } else {
            float s = 0.0f;
            for (int c = lane; c < dim; c += 32) s += xr[c];
            mu = warp_sum(s) * inv_dim;
            float q = 0.0f;
            for (int c = lane; c < dim; c += 32) {
                const float e = xr[c] - mu;
                q += e * e;
            }
            rs = 1.0f / sqrtf(warp_sum(q) * inv_dim + 1e-5f);
            for (int c = lane; c < dim; c += 32) yr[c] = (xr[c] - mu) * rs * w[c] + b[c];
        }
        if (lane == 0) {
            mean[r] = mu;
            rstd[r] = rs;
        }
    }
}

/* The V of a row kernel: the smallest of 1, 2, 4 (LN_V) float4 per lane that
 * holds dim, when dim % 4 == 0 and the pointers are aligned; else 0. */
static int ln_v(int dim, int aligned)
{
    if (dim % 4 != 0 || !aligned) return 0;
    for (int v = 1; v <= LN_V; v *= 2)
        if (dim <= 128 * v) return v;
    return 0;
}

extern "C" int train_cuda_layernorm(int rows, int dim, const float *x, const float *w,
                                    const float *b, float *y, float *mean, float *rstd,
                                    void *stream)
{
    const char *who = "train_cuda layernorm";
    if (!size_ok(who, rows, "rows", 0) || !size_ok(who, dim, "dim", 1) ||
        !ptrs_ok(who, x, w, b) || !ptrs_ok(who, y, mean, rstd) ||
        !distinct_ok(who, x, "x", y, "y"))
        return -1;
    if (rows == 0) return 0;
    {
        const unsigned grid = row_grid((size_t)rows);
        cudaStream_t s = (cudaStream_t)stream;
        switch (ln_v(dim, aligned16(x, w, b, y))) {
        case 1:
            layernorm_kernel<1><<<grid, ELEM_THREADS, 0, s>>>(rows, dim, x, w, b, y, mean, rstd);
            break;
        case 2:
            layernorm_kernel<2><<<grid, ELEM_THREADS, 0, s>>>(rows, dim, x, w, b, y, mean, rstd);
            break;
        case 4:
            layernorm_kernel<4><<<grid, ELEM_THREADS, 0, s>>>(rows, dim, x, w, b, y, mean, rstd);
            break;
        default:
            layernorm_kernel<0><<<grid, ELEM_THREADS, 0, s>>>(rows, dim, x, w, b, y, mean, rstd);
        }
    }
    LAUNCH_CHECK();
    return 0;
fail:
    return -1;
}

/* dx of one row, one warp per row: with xh = (x - mean) rstd, g = dy w,
 * dx = rstd (g - mean(g) - xh mean(g xh)). V as layernorm_kernel (dy and x
 * in registers). x may be dx (each element read before its lane writes it). */
template <int V>
static __global__ void __launch_bounds__(ELEM_THREADS)
layernorm_bwd_dx_kernel(int rows, int dim, const float *__restrict__ dy, const float *x,
                        const float *__restrict__ w, const float *__restrict__ mean,
                        const float *__restrict__ rstd, float *dx)
{
    const int lane = threadIdx.x % 32;
    const unsigned step = gridDim.x * ROW_WARPS; /* r + step < 2^31 + 2^19: no wrap */
    const float inv_dim = 1.0f / (float)dim;
    for (unsigned r = blockIdx.x * ROW_WARPS + threadIdx.x / 32; r < (unsigned)rows; r += step) {
        const size_t off = (size_t)r * dim;
        const float mu = mean[r], rs = rstd[r];
        float sg = 0.0f, sgx = 0.0f;
        if (V > 0) {
            const int d4 = dim / 4;
            const float4 *dy4 = reinterpret_cast<const float4 *>(dy + off);
            const float4 *x4 = reinterpret_cast<const float4 *>(x + off);
            const float4 *w4 = reinterpret_cast<const float4 *>(w);
            float4 g[V > 0 ? V : 1], xh[V > 0 ? V : 1];
UNROLL
            for (int k = 0; k < V; ++k) {
                const int c = lane + 32 * k;
                if (c < d4) {
                    const float4 d = dy4[c], xv = x4[c], ww = w4[c];
                    g[k] = make_float4(d.x * ww.x, d.y * ww.y, d.z * ww.z, d.w * ww.w);
                    xh[k] = make_float4((xv.x - mu) * rs, (xv.y - mu) * rs, (xv.z - mu) * rs,
                                        (xv.w - mu) * rs);
                } else {
                    g[k] = f4(0.0f);
                    xh[k] = f4(0.0f);
                }
                sg += sum4(g[k]);
                sgx += (g[k].x * xh[k].x + g[k].y * xh[k].y) + (g[k].z * xh[k].z + g[k].w * xh[k].w);
            }
            const float mg = warp_sum(sg) * inv_dim, mgx = warp_sum(sgx) * inv_dim;
            float4 *dx4 = reinterpret_cast<float4 *>(dx + off);
UNROLL
            for (int k = 0; k < V; ++k) {
                const int c = lane + 32 * k;
                if (c < d4)
                    dx4[c] = make_float4(rs * (g[k].x - mg - xh[k].x * mgx),
                                         rs * (g[k].y - mg - xh[k].y * mgx),
                                         rs * (g[k].z - mg - xh[k].z * mgx),
                                         rs * (g[k].w - mg - xh[k].w * mgx));
            }
        } else {
            for (int c = lane; c < dim; c += 32) {
                const float g = dy[off + c] * w[c], xh = (x[off + c] - mu) * rs;
                sg += g;
                sgx += g * xh;
            }
            const float mg = warp_sum(sg) * inv_dim, mgx = warp_sum(sgx) * inv_dim;
            for (int c = lane; c < dim; c += 32) {
                const float g = dy[off + c] * w[c], xh = (x[off + c] - mu) * rs;
                dx[off + c] = rs * (g - mg - xh * mgx);
            }
        }
    }
}

/* dw[c] = sum_r dy[r][c] xh[r][c], db[c] = sum_r dy[r][c]: a 32 x 16 block
 * per 32 columns, row lanes in order, then a tree over them (deterministic).
 * Reads x: launched before the dx kernel, which may overwrite it. */
static __global__ void __launch_bounds__(LG_X * LG_Y)
layernorm_bwd_wb_kernel(int rows, int dim, const float *__restrict__ dy,
                        const float *__restrict__ x, const float *__restrict__ mean,
                        const float *__restrict__ rstd, float *__restrict__ dw,
                        float *__restrict__ db)
{
    __shared__ float pw[LG_Y][LG_X + 1], pb[LG_Y][LG_X + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int c = blockIdx.x * LG_X + tx;
    float sw = 0.0f, sb = 0.0f;
    if (c < dim)
        for (unsigned r = ty; r < (unsigned)rows; r += LG_Y) {
            const size_t i = (size_t)r * dim + c;
            const float d = dy[i];
            sw += d * ((x[i] - mean[r]) * rstd[r]);
            sb += d;
        }
    pw[ty][tx] = sw;
    pb[ty][tx] = sb;
    __syncthreads();
    for (int h = LG_Y / 2; h > 0; h /= 2) {
        if (ty < h) {
            pw[ty][tx] += pw[ty + h][tx];
            pb[ty][tx] += pb[ty + h][tx];
        }
        __syncthreads();
    }
    if (ty == 0 && c < dim) {
        dw[c] = pw[0][tx];
        db[c] = pb[0][tx];
    }
}

extern "C" int train_cuda_layernorm_bwd(int rows, int dim, const float *dy, const float *x,
                                        const float *w, const float *mean, const float *rstd,
                                        float *dx, float *dw, float *db, void *stream)
{
    const char *who = "train_cuda layernorm_bwd";
    if (!size_ok(who, rows, "rows", 0) || !size_ok(who, dim, "dim", 1) ||
        !ptrs_ok(who, dy, x, w) || !ptrs_ok(who, mean, rstd, dx) || !ptrs_ok(who, dw, db, db) ||
        !distinct_ok(who, dy, "dy", dx, "dx"))
        return -1;
    {
        cudaStream_t s = (cudaStream_t)stream;
        const dim3 block(LG_X, LG_Y);
        layernorm_bwd_wb_kernel<<<(unsigned)((dim + LG_X - 1) / LG_X), block, 0, s>>>(
            rows, dim, dy, x, mean, rstd, dw, db);
        LAUNCH_CHECK();
        if (rows == 0) return 0;
        const unsigned grid = row_grid((size_t)rows);
        switch (ln_v(dim, aligned16(dy, x, w, dx))) {
        case 1:
            layernorm_bwd_dx_kernel<1><<<grid, ELEM_THREADS, 0, s>>>(rows, dim, dy, x, w, mean,
                                                                     rstd, dx);
            break;
        case 2:
            layernorm_bwd_dx_kernel<2><<<grid, ELEM_THREADS, 0, s>>>(rows, dim, dy, x, w, mean,
                                                                     rstd, dx);
            break;
        case 4:
            layernorm_bwd_dx_kernel<4><<<grid, ELEM_THREADS, 0, s>>>(rows, dim, dy, x, w, mean,
                                                                     rstd, dx);
            break;
        default:
            layernorm_bwd_dx_kernel<0><<<grid, ELEM_THREADS, 0, s>>>(rows, dim, dy, x, w, mean,
                                                                     rstd, dx);
        }
        LAUNCH_CHECK();
    }
    return 0;
fail:
    return -1;
}

/* ---- LSTM cell (pointwise part) ---- */

static __device__ __forceinline__ float sigmoidf(float x) { return 1.0f / (1.0f + expf(-x)); }

/* One element: gates (i, f, g, o) from the pre-activations and c_prev, then
 * c and h. */
static __device__ __forceinline__ void lstm_fwd1(float pi, float pf, float pg, float po, float cp,
                                                 float &i, float &f, float &g, float &o, float &c,
                                                 float &h)
{
    i = sigmoidf(pi);
    f = sigmoidf(pf);
    g = tanhf(pg);
    o = sigmoidf(po);
    c = f * cp + i * g;
    h = o * tanhf(c);
}

/* One element of the backward: dh, dc (0 at the last step), the gates, c_prev
 * (0 at the first step) and c give dpre (4) and dc_prev. */
static __device__ __forceinline__ void lstm_bwd1(float dh, float dc, float i, float f, float g,
                                                 float o, float cp, float c, float &di, float &df,
                                                 float &dg, float &dout, float &dcp)
{
    const float tc = tanhf(c);
    const float dct = dc + dh * o * (1.0f - tc * tc);
    di = dct * g * i * (1.0f - i);
    df = dct * cp * f * (1.0f - f);
    dg = dct * i * (1.0f - g * g);
    dout = dh * tc * o * (1.0f - o);
    dcp = dct * f;
}

static __device__ __forceinline__ void lstm_fwd(float pi, float pf, float pg, float po, float cp,
                                                float &i, float &f, float &g, float &o, float &c,
                                                float &h)
{
    lstm_fwd1(pi, pf, pg, po, cp, i, f, g, o, c, h);
}

static __device__ __forceinline__ void lstm_fwd(float4 pi, float4 pf, float4 pg, float4 po,
                                                float4 cp, float4 &i, float4 &f, float4 &g,
                                                float4 &o, float4 &c, float4 &h)
{
    lstm_fwd1(pi.x, pf.x, pg.x, po.x, cp.x, i.x, f.x, g.x, o.x, c.x, h.x);
    lstm_fwd1(pi.y, pf.y, pg.y, po.y, cp.y, i.y, f.y, g.y, o.y, c.y, h.y);
    lstm_fwd1(pi.z, pf.z, pg.z, po.z, cp.z, i.z, f.z, g.z, o.z, c.z, h.z);
    lstm_fwd1(pi.w, pf.w, pg.w, po.w, cp.w, i.w, f.w, g.w, o.w, c.w, h.w);
}

static __device__ __forceinline__ void lstm_bwd(float dh, float dc, float i, float f, float g,
                                                float o, float cp, float c, float &di, float &df,
                                                float &dg, float &dout, float &dcp)
{
    lstm_bwd1(dh, dc, i, f, g, o, cp, c, di, df, dg, dout, dcp);
}

static __device__ __forceinline__ void lstm_bwd(float4 dh, float4 dc, float4 i, float4 f,
                                                float4 g, float4 o, float4 cp, float4 c,
                                                float4 &di, float4 &df, float4 &dg, float4 &dout,
                                                float4 &dcp)
{
    lstm_bwd1(dh.x, dc.x, i.x, f.x, g.x, o.x, cp.x, c.x, di.x, df.x, dg.x, dout.x, dcp.x);
    lstm_bwd1(dh.y, dc.y, i.y, f.y, g.y, o.y, cp.y, c.y, di.y, df.y, dg.y, dout.y, dcp.y);
    lstm_bwd1(dh.z, dc.z, i.z, f.z, g.z, o.z, cp.z, c.z, di.z, df.z, dg.z, dout.z, dcp.z);
    lstm_bwd1(dh.w, dc.w, i.w, f.w, g.w, o.w, cp.w, c.w, di.w, df.w, dg.w, dout.w, dcp.w);
}

/* No __restrict__ on pre and gates (gates may be pre: a thread reads its 4
 * pre-activations before writing its 4 gates). T: float or float4 (H then
 * counts float4); one thread per (row, j). */
template <typename T>
static __global__ void lstm_cell_kernel(size_t n, unsigned H, const T *pre,
                                        const T *__restrict__ c_prev, T *gates,
                                        T *__restrict__ c, T *__restrict__ h)
{
    for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < n;
         e += (size_t)gridDim.x * blockDim.x) {
        const size_t r = e / H, j = e % H, base = r * 4 * H + j;
        const T pi = pre[base], pf = pre[base + H], pg = pre[base + 2 * H], po = pre[base + 3 * H];
        T cp;
        if (c_prev)
            cp = c_prev[e];
        else
            fill(cp, 0.0f);
        T i, f, g, o, cn, hn;
        lstm_fwd(pi, pf, pg, po, cp, i, f, g, o, cn, hn);
        gates[base] = i;
        gates[base + H] = f;
        gates[base + 2 * H] = g;
        gates[base + 3 * H] = o;
        c[e] = cn;
        h[e] = hn;
    }
}

/* Whether H % 4 == 0 and every (non-null) pointer is 16-byte aligned. */
static int lstm_vec(int H, const void *a, const void *b, const void *c, const void *d,
                    const void *e, const void *f)
{
    return H % 4 == 0 && aligned16(a, b, c, d) && aligned16(e, f);
}

extern "C" int train_cuda_lstm_cell(int rows, int H, const float *pre, const float *c_prev,
                                    float *gates, float *c, float *h, void *stream)
{
    const char *who = "train_cuda lstm_cell";
    if (!size_ok(who, rows, "rows", 0) || !size_ok(who, H, "H", 0) ||
        !ptrs_ok(who, pre, gates, gates) || !ptrs_ok(who, c, h, h))
        return -1;
    {
        const size_t n = (size_t)rows * H;
        cudaStream_t s = (cudaStream_t)stream;
        if (n == 0) return 0;
        if (lstm_vec(H, pre, c_prev, gates, c, h, NULL))
            lstm_cell_kernel<float4><<<elem_grid(n / 4), ELEM_THREADS, 0, s>>>(
                n / 4, (unsigned)H / 4, reinterpret_cast<const float4 *>(pre),
                reinterpret_cast<const float4 *>(c_prev), reinterpret_cast<float4 *>(gates),
                reinterpret_cast<float4 *>(c), reinterpret_cast<float4 *>(h));
        else
            lstm_cell_kernel<float><<<elem_grid(n), ELEM_THREADS, 0, s>>>(
                n, (unsigned)H, pre, c_prev, gates, c, h);
    }
    LAUNCH_CHECK();
    return 0;
fail:
    return -1;
}

/* No __restrict__ on dc and dc_prev (dc_prev may be dc: a thread reads its dc
 * before writing its dc_prev). dc NULL: 0; c_prev NULL: 0, dc_prev unwritten. */
template <typename T>
static __global__ void lstm_cell_bwd_kernel(size_t n, unsigned H, const T *__restrict__ dh,
                                            const T *dc, const T *__restrict__ gates,
                                            const T *__restrict__ c_prev, const T *__restrict__ c,
                                            T *__restrict__ dpre, T *dc_prev)
{
    for (size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x; e < n;
         e += (size_t)gridDim.x * blockDim.x) {
        const size_t r = e / H, j = e % H, base = r * 4 * H + j;
        T dcn, cp;
        if (dc)
            dcn = dc[e];
        else
            fill(dcn, 0.0f);
        if (c_prev)
            cp = c_prev[e];
        else
            fill(cp, 0.0f);
        T di, df, dg, dout, dcp;
        lstm_bwd(dh[e], dcn, gates[base], gates[base + H], gates[base + 2 * H],
                 gates[base + 3 * H], cp, c[e], di, df, dg, dout, dcp);
        dpre[base] = di;
        dpre[base + H] = df;
        dpre[base + 2 * H] = dg;
        dpre[base + 3 * H] = dout;
        if (c_prev) dc_prev[e] = dcp;
    }
}

extern "C" int train_cuda_lstm_cell_bwd(int rows, int H, const float *dh, const float *dc,
                                        const float *gates, const float *c_prev, const float *c,
                                        float *dpre, float *dc_prev, void *stream)
{
    const char *who = "train_cuda lstm_cell_bwd";
    if (!size_ok(who, rows, "rows", 0) || !size_ok(who, H, "H", 0) ||
        !ptrs_ok(who, dh, gates, c) || !ptrs_ok(who, dpre, dpre, dpre))
        return -1;
    if (c_prev && !dc_prev) {
        err_set("%s: null device pointer dc_prev with c_prev %p (not the first step)", who,
                (const void *)c_prev);
        return -1;
    }
    {
        const size_t n = (size_t)rows * H;
        cudaStream_t s = (cudaStream_t)stream;
        if (n == 0) return 0;
        if (lstm_vec(H, dh, dc, gates, c_prev, c, dpre) && aligned16(dc_prev))
            lstm_cell_bwd_kernel<float4><<<elem_grid(n / 4), ELEM_THREADS, 0, s>>>(
                n / 4, (unsigned)H / 4, reinterpret_cast<const float4 *>(dh),
                reinterpret_cast<const float4 *>(dc), reinterpret_cast<const float4 *>(gates),
                reinterpret_cast<const float4 *>(c_prev), reinterpret_cast<const float4 *>(c),
                reinterpret_cast<float4 *>(dpre), reinterpret_cast<float4 *>(dc_prev));
        else
            lstm_cell_bwd_kernel<float><<<elem_grid(n), ELEM_THREADS, 0, s>>>(
                n, (unsigned)H, dh, dc, gates, c_prev, c, dpre, dc_prev);
    }
    LAUNCH_CHECK();
    return 0;
fail:
    return -1;
}

/* ---- AdamW ---- */

/* The factors of a step that do not depend on t, from the host (double,
 * rounded to float once), and those that do, in double for the kernel. */
typedef struct adamw_args {
    float decay;         /* 1 - lr wd */
    float b1, omb1;      /* b1, 1 - b1 */
    float b2, omb2;      /* b2, 1 - b2 */
    float eps;
    double lr, b1d, b2d; /* for lr / (1 - b1^t), sqrt(1 - b2^t) */
} adamw_args;

/* One element: decay, the moments, the update (PyTorch 1.13's single-tensor
 * order: p *= decay; m = b1 m + (1-b1) g; v = b2 v + (1-b2) g g;
 * p -= step * m / (sqrt(v) / bc2s + eps)). */
static __device__ __forceinline__ void adamw1(float &p, float g, float &m, float &v,
                                              const adamw_args &a, float step, float bc2s)
{
    p *= a.decay;
    m = a.b1 * m + a.omb1 * g;
    v = a.b2 * v + a.omb2 * g * g;
    p -= step * (m / (sqrtf(v) / bc2s + a.eps));
}

template <bool VEC>
static __global__ void adamw_kernel(size_t n, float *__restrict__ p, const float *__restrict__ g,
                                    float *__restrict__ m, float *__restrict__ v,
                                    const float *__restrict__ t, adamw_args a)
{
    /* this step's t = *t + 1 and its two factors, once per block, in double */
    __shared__ float sh_step, sh_bc2s;
    if (threadIdx.x == 0) {
        const float t0 = *t;
        const double tt = (double)t0 + 1.0;
        const bool ok = t0 >= 0.0f && t0 < 16777216.0f && t0 == floorf(t0);
        sh_step = ok ? (float)(a.lr / (1.0 - pow(a.b1d, tt))) : NAN;
        sh_bc2s = (float)sqrt(1.0 - pow(a.b2d, tt));
    }
    __syncthreads();
    const float step = sh_step, bc2s = sh_bc2s;
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t i1 = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t i0 = 0;
    if (VEC) {
        const size_t n4 = n / 4;
        float4 *p4 = reinterpret_cast<float4 *>(p), *m4 = reinterpret_cast<float4 *>(m);
        float4 *v4 = reinterpret_cast<float4 *>(v);
        const float4 *g4 = reinterpret_cast<const float4 *>(g);
        for (size_t i = i1; i < n4; i += stride) {
            float4 pp = p4[i], mm = m4[i], vv = v4[i];
            const float4 gg = g4[i];
            adamw1(pp.x, gg.x, mm.x, vv.x, a, step, bc2s);
            adamw1(pp.y, gg.y, mm.y, vv.y, a, step, bc2s);
            adamw1(pp.z, gg.z, mm.z, vv.z, a, step, bc2s);
            adamw1(pp.w, gg.w, mm.w, vv.w, a, step, bc2s);
            p4[i] = pp;
            m4[i] = mm;
            v4[i] = vv;
        }
        i0 = n4 * 4;
    }
    for (size_t i = i0 + i1; i < n; i += stride) {
        float pp = p[i], mm = m[i], vv = v[i];
        adamw1(pp, g[i], mm, vv, a, step, bc2s);
        p[i] = pp;
        m[i] = mm;
        v[i] = vv;
    }
}

/* *t = *t + 1, after every block of the step has read it. */
static __global__ void adamw_count_kernel(float *t) { t[0] += 1.0f; }

extern "C" int train_cuda_adamw(long n, float *p, const float *g, float *m, float *v, float *t,
                                float lr, float b1, float b2, float eps, float wd, void *stream)
{
    const char *who = "train_cuda adamw";
    if (!size_ok(who, n, "n", 0) || !ptrs_ok(who, p, g, m) || !ptrs_ok(who, v, t, t)) return -1;
    if (!(b1 >= 0.0f && b1 < 1.0f && b2 >= 0.0f && b2 < 1.0f)) { /* NaN fails too */
        err_set("%s: bad beta b1=%g b2=%g (each must be in [0, 1))", who, (double)b1, (double)b2);
        return -1;
    }
    {
        cudaStream_t s = (cudaStream_t)stream;
        adamw_args a;
        a.decay = (float)(1.0 - (double)lr * (double)wd);
        a.b1 = b1;
        a.omb1 = (float)(1.0 - (double)b1);
        a.b2 = b2;
        a.omb2 = (float)(1.0 - (double)b2);
        a.eps = eps;
        a.lr = lr;
        a.b1d = b1;
        a.b2d = b2;
        if (n > 0) {
            const size_t un = (size_t)n;
            const int vec = aligned16(p, g, m, v);
            const unsigned grid = elem_grid(vec ? (un + 3) / 4 : un);
            if (vec)
                adamw_kernel<true><<<grid, ELEM_THREADS, 0, s>>>(un, p, g, m, v, t, a);
            else
                adamw_kernel<false><<<grid, ELEM_THREADS, 0, s>>>(un, p, g, m, v, t, a);
            LAUNCH_CHECK();
        }
        adamw_count_kernel<<<1, 1, 0, s>>>(t);
        LAUNCH_CHECK();
    }
    return 0;
fail:
    return -1;
}
