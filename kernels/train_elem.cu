/* kernels/train_elem.cu - the non-GEMM, non-conv ops of a training step on the
 * GPU: bias add and bias gradient, ReLU forward and backward, 2x2 max-pool
 * forward (with argmax) and backward, softmax cross-entropy, SGD.  Both GPU
 * train_ops tables use them (kernels/train_cuda.h).
 *
 * Contract: ops/train_ops.h, entry by entry (fp32 row-major / NCHW, int32
 * labels and argmax, DEVICE pointers, work queued on `stream`, a
 * cudaStream_t, never synchronizing except under bench_cuda_sync_launches;
 * every output element written).  Each returns 0, or -1 after err_set: a
 * negative size (rows or classes < 1 for softmax_xent), a null pointer, a
 * failed launch.  Sizes as the CPU tables take them (cpu/train_args.h): an
 * empty tensor is no work (no launch), H or W < 2 gives empty pool outputs
 * (maxpool_bwd still zeroes dx).  What only the device can see (labels,
 * argmax indices) is not checked on the host, which would synchronize: it
 * shows as NaN instead (below).
 * Results are deterministic: no atomics, every reduction in a fixed order.
 *
 *   bias_add      flat grid-stride over rows*cols, y[i] += b[i % cols]
 *                 (32-bit index math when rows*cols < 2^31, so that an
 *                 index plus the grid's stride cannot wrap)
 *   bias_grad     one block of 32 x 16 threads per 32 columns: thread
 *                 (x, y) sums rows y, y+16, ... of column x in order, then a
 *                 shared-memory tree over y (fixed order: deterministic)
 *   relu          grid-stride; NaN propagates (as PyTorch's relu)
 *   relu_bwd      grid-stride, dx = y > 0 ? dy : 0 (dx may be dy)
 *   maxpool       one thread per output: the window read in row-major
 *                 order, a strictly greater value or the first NaN replaces
 *                 the maximum (ties keep the first; a NaN, once taken, stays)
 *   maxpool_bwd   one thread per INPUT element: dy of its window if the
 *                 window's argmax is this element, else 0 (so every dx element
 *                 is written, the floor-mode remainder row/column included;
 *                 windows do not overlap: no atomics, no zeroing pass); an
 *                 argmax outside its window makes the window's dx NaN
 *   softmax_xent  ONE block of 1024 threads (32 warps): warp w takes rows w,
 *                 w+32, ...; per row, max and sum of exp by lane-strided loops
 *                 and xor-butterfly shuffles, then dz; each warp adds its rows'
 *                 losses in row order (double), thread 0 the 32 warp sums in
 *                 order: deterministic, no size limit but launch time (one
 *                 SM: meant for classifier heads, rows and classes in the
 *                 thousands).  A label outside [0, classes) makes the loss
 *                 and that row of dz NaN.
 *   sgd           grid-stride, float4 when p, g (and v) are 16-byte aligned
 *                 (the n % 4 tail scalar), momentum a template parameter
 * Launches: 256 threads (1-D), grid min(ceil(n/256), 65536) blocks striding.
 */
#include <stdint.h>

#include "train_cuda.h"
#include "cuda_check.h"
#include "train_launch.h"

#define BG_X 32 /* bias_grad: columns per block */
#define BG_Y 16 /*            row lanes per block */
#define SX_THREADS 1024 /* softmax_xent: the one block */
#define SX_WARPS (SX_THREADS / 32)

/* ---- bias ---- */

template <typename I>
static __global__ void bias_add_kernel(I n, I cols, float *__restrict__ y,
                                       const float *__restrict__ b)
{
    for (I i = (I)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (I)gridDim.x * blockDim.x)
        y[i] += b[i % cols];
}

extern "C" int train_cuda_bias_add(int rows, int cols, float *y, const float *b, void *stream)
{
    const char *who = "train_cuda bias_add";
    if (!size_ok(who, rows, "rows", 0) || !size_ok(who, cols, "cols", 0) ||
        !ptrs_ok(who, y, b, b))
        return -1;
    const size_t n = (size_t)rows * cols;
    if (n == 0) return 0;
    if (n <= 0x7fffffffu) /* i + stride < 2^31 + 2^24: no wrap */
        bias_add_kernel<unsigned><<<elem_grid(n), ELEM_THREADS, 0, (cudaStream_t)stream>>>(
            (unsigned)n, (unsigned)cols, y, b);
    else
        bias_add_kernel<size_t><<<elem_grid(n), ELEM_THREADS, 0, (cudaStream_t)stream>>>(
            n, (size_t)cols, y, b);
    LAUNCH_CHECK();
    return 0;
fail:
    return -1;
}

static __global__ void __launch_bounds__(BG_X * BG_Y)
bias_grad_kernel(int rows, int cols, const float *__restrict__ dy, float *__restrict__ db)
{
    __shared__ float part[BG_Y][BG_X + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int c = blockIdx.x * BG_X + tx;
    float s = 0.0f;
    if (c < cols)
        for (int r = ty; r < rows; r += BG_Y)
            s += dy[(size_t)r * cols + c];
    part[ty][tx] = s;
    __syncthreads();
    for (int h = BG_Y / 2; h > 0; h /= 2) {
        if (ty < h) part[ty][tx] += part[ty + h][tx];
        __syncthreads();
    }
    if (ty == 0 && c < cols) db[c] = part[0][tx];
}

extern "C" int train_cuda_bias_grad(int rows, int cols, const float *dy, float *db, void *stream)
{
    const char *who = "train_cuda bias_grad";
    if (!size_ok(who, rows, "rows", 0) || !size_ok(who, cols, "cols", 0) ||
        !ptrs_ok(who, dy, db, db))
        return -1;
    if (cols == 0) return 0; /* rows == 0: db = 0, the empty sums */
    {
        const dim3 block(BG_X, BG_Y);
        const unsigned grid = (unsigned)((cols + BG_X - 1) / BG_X);
        bias_grad_kernel<<<grid, block, 0, (cudaStream_t)stream>>>(rows, cols, dy, db);
    }
    LAUNCH_CHECK();
    return 0;
fail:
    return -1;
}

/* ---- ReLU ---- */

/* x may be y: no __restrict__. NaN > 0 is false and NaN != NaN. */
static __global__ void relu_kernel(size_t n, const float *x, float *y)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const float v = x[i];
        y[i] = (v > 0.0f || v != v) ? v : 0.0f;
    }
}

static __global__ void relu_bwd_kernel(size_t n, const float *y, const float *dy, float *dx)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        dx[i] = y[i] > 0.0f ? dy[i] : 0.0f;
}

extern "C" int train_cuda_relu(long n, const float *x, float *y, void *stream)
{
    const char *who = "train_cuda relu";
    if (!size_ok(who, n, "n", 0) || !ptrs_ok(who, x, y, y)) return -1;
    if (n == 0) return 0;
    relu_kernel<<<elem_grid((size_t)n), ELEM_THREADS, 0, (cudaStream_t)stream>>>((size_t)n, x, y);
    LAUNCH_CHECK();
    return 0;
fail:
    return -1;
}

extern "C" int train_cuda_relu_bwd(long n, const float *y, const float *dy, float *dx,
                                   void *stream)
{
    const char *who = "train_cuda relu_bwd";
    if (!size_ok(who, n, "n", 0) || !ptrs_ok(who, y, dy, dx)) return -1;
    if (n == 0) return 0;
    relu_bwd_kernel<<<elem_grid((size_t)n), ELEM_THREADS, 0, (cudaStream_t)stream>>>(
        (size_t)n, y, dy, dx);
    LAUNCH_CHECK();
    return 0;
fail:
    return -1;
}

/* ---- 2x2 max-pool, stride 2, floor mode ---- */

static __global__ void maxpool_kernel(size_t nout, int H, int W, const float *__restrict__ x,
                                      float *__restrict__ y, int *__restrict__ arg)
{
    const int OH = H / 2, OW = W / 2;
    for (size_t o = (size_t)blockIdx.x * blockDim.x + threadIdx.x; o < nout;
         o += (size_t)gridDim.x * blockDim.x) {
        const size_t plane = o / ((size_t)OH * OW);
        const int r = (int)(o % ((size_t)OH * OW));
        const int h = (r / OW) * 2, w = (r % OW) * 2;
        const float *xp = x + plane * H * W;
        int best_i = h * W + w;
        float best = xp[best_i];
        const int cand[3] = {h * W + w + 1, (h + 1) * W + w, (h + 1) * W + w + 1};
UNROLL
        for (int j = 0; j < 3; ++j) {
            const float v = xp[cand[j]];
            /* strictly greater, or the first NaN; a NaN maximum stays */
            if (best == best && (v > best || v != v)) {
                best = v;
                best_i = cand[j];
            }
        }
        y[o] = best;
        arg[o] = best_i;
    }
}

static __global__ void maxpool_bwd_kernel(size_t nin, int H, int W, const float *__restrict__ dy,
                                          const int *__restrict__ arg, float *__restrict__ dx)
{
    const int OH = H / 2, OW = W / 2;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < nin;
         i += (size_t)gridDim.x * blockDim.x) {
        const size_t plane = i / ((size_t)H * W);
        const int hw = (int)(i % ((size_t)H * W));
        const int oh = hw / W / 2, ow = hw % W / 2;
        float g = 0.0f;
        if (oh < OH && ow < OW) {
            const size_t o = plane * OH * OW + (size_t)oh * OW + ow;
            const int a = arg[o];
            if (a == hw)
                g = dy[o];
            else if (a < 0 || a >= H * W || a / W / 2 != oh || a % W / 2 != ow)
                g = NAN; /* not an argmax of this window: make it show */
        }
        dx[i] = g;
    }
}

static int pool_args_ok(const char *who, int planes, int H, int W, const void *a, const void *b,
                        const void *c)
{
    if (planes < 0 || H < 0 || W < 0) {
        err_set("%s: bad size planes=%d H=%d W=%d (each must be >= 0)", who, planes, H, W);
        return 0;
    }
    return ptrs_ok(who, a, b, c);
}

extern "C" int train_cuda_maxpool(int planes, int H, int W, const float *x, float *y, int *arg,
                                  void *stream)
{
    if (!pool_args_ok("train_cuda maxpool", planes, H, W, x, y, arg)) return -1;
    {
        const size_t nout = (size_t)planes * (H / 2) * (W / 2);
        if (nout == 0) return 0;
        maxpool_kernel<<<elem_grid(nout), ELEM_THREADS, 0, (cudaStream_t)stream>>>(nout, H, W, x,
                                                                                  y, arg);
    }
    LAUNCH_CHECK();
    return 0;
fail:
    return -1;
}

extern "C" int train_cuda_maxpool_bwd(int planes, int H, int W, const float *dy, const int *arg,
                                      float *dx, void *stream)
{
    if (!pool_args_ok("train_cuda maxpool_bwd", planes, H, W, dy, arg, dx)) return -1;
    {
        const size_t nin = (size_t)planes * H * W;
        if (nin == 0) return 0;
        maxpool_bwd_kernel<<<elem_grid(nin), ELEM_THREADS, 0, (cudaStream_t)stream>>>(
            nin, H, W, dy, arg, dx);
    }
    LAUNCH_CHECK();
    return 0;
fail:
    return -1;
}

/* ---- softmax cross-entropy ---- */

static __global__ void __launch_bounds__(SX_THREADS)
softmax_xent_kernel(int rows, int classes, const float *__restrict__ z,
                    const int *__restrict__ labels, float *__restrict__ loss,
                    float *__restrict__ dz)
{
    __shared__ double warp_loss[SX_WARPS];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const float inv_rows = 1.0f / (float)rows;
    double my_loss = 0.0; /* this warp's rows, in row order (lane 0's copy counts) */
    for (int r = warp; r < rows; r += SX_WARPS) {
        const float *zr = z + (size_t)r * classes;
        float *dr = dz + (size_t)r * classes;
        const int label = labels[r];
        const bool label_ok = label >= 0 && label < classes;
        float m = -INFINITY;
        for (int c = lane; c < classes; c += 32) m = fmaxf(m, zr[c]);
        m = warp_max(m);
        float s = 0.0f;
        for (int c = lane; c < classes; c += 32) s += expf(zr[c] - m);
        s = warp_sum(s);
        const float inv_s = 1.0f / s;
        for (int c = lane; c < classes; c += 32)
            dr[c] = label_ok ? (expf(zr[c] - m) * inv_s - (c == label ? 1.0f : 0.0f)) * inv_rows
                             : NAN;
        const float lse = m + logf(s);
        my_loss += label_ok ? (double)lse - (double)zr[label] : (double)NAN;
    }
    if (lane == 0) warp_loss[warp] = my_loss;
    __syncthreads();
    if (threadIdx.x == 0) {
        double t = 0.0;
        for (int w = 0; w < SX_WARPS; ++w) t += warp_loss[w];
        loss[0] = (float)(t / rows);
    }
}

extern "C" int train_cuda_softmax_xent(int rows, int classes, const float *z, const int *labels,
                                       float *loss, float *dz, void *stream)
{
    const char *who = "train_cuda softmax_xent";
    if (!size_ok(who, rows, "rows", 1) || !size_ok(who, classes, "classes", 1) ||
        !ptrs_ok(who, z, labels, loss) || !ptrs_ok(who, dz, dz, dz))
        return -1;
    softmax_xent_kernel<<<1, SX_THREADS, 0, (cudaStream_t)stream>>>(rows, classes, z, labels,
                                                                    loss, dz);
    LAUNCH_CHECK();
    return 0;
fail:
    return -1;
}

/* ---- SGD ---- */

/* MOM: v = momentum v + g; p -= lr v.  Else p -= lr g (v unused). VEC: the
 * first n/4*4 elements as float4 (all pointers 16-byte aligned), the rest
 * scalar by the first threads of the grid. */
template <bool MOM, bool VEC>
static __global__ void sgd_kernel(size_t n, float *__restrict__ p, const float *__restrict__ g,
                                  float *__restrict__ v, float lr, float momentum)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t i0 = 0;
    if (VEC) {
        const size_t n4 = n / 4;
        float4 *p4 = reinterpret_cast<float4 *>(p);
        const float4 *g4 = reinterpret_cast<const float4 *>(g);
        float4 *v4 = reinterpret_cast<float4 *>(v);
        for (size_t i = t; i < n4; i += stride) {
            float4 pv = p4[i];
            float4 d = g4[i];
            if (MOM) {
                float4 vv = v4[i];
                vv.x = momentum * vv.x + d.x; vv.y = momentum * vv.y + d.y;
                vv.z = momentum * vv.z + d.z; vv.w = momentum * vv.w + d.w;
                v4[i] = vv;
                d = vv;
            }
            pv.x -= lr * d.x; pv.y -= lr * d.y; pv.z -= lr * d.z; pv.w -= lr * d.w;
            p4[i] = pv;
        }
        i0 = n4 * 4;
    }
    for (size_t i = i0 + t; i < n; i += stride) {
        float d = g[i];
        if (MOM) {
            d = momentum * v[i] + d;
            v[i] = d;
        }
        p[i] -= lr * d;
    }
}

extern "C" int train_cuda_sgd(long n, float *p, const float *g, float *v, float lr,
                              float momentum, void *stream)
{
    const char *who = "train_cuda sgd";
    if (!size_ok(who, n, "n", 0) || !ptrs_ok(who, p, g, g)) return -1;
    if (n == 0) return 0;
    {
        const size_t un = (size_t)n;
        const int vec = (((uintptr_t)p | (uintptr_t)g | (uintptr_t)v) % 16) == 0;
        const unsigned grid = elem_grid(vec ? (un + 3) / 4 : un);
        cudaStream_t s = (cudaStream_t)stream;
        if (v && vec)
            sgd_kernel<true, true><<<grid, ELEM_THREADS, 0, s>>>(un, p, g, v, lr, momentum);
        else if (v)
            sgd_kernel<true, false><<<grid, ELEM_THREADS, 0, s>>>(un, p, g, v, lr, momentum);
        else if (vec)
            sgd_kernel<false, true><<<grid, ELEM_THREADS, 0, s>>>(un, p, g, v, lr, momentum);
        else
            sgd_kernel<false, false><<<grid, ELEM_THREADS, 0, s>>>(un, p, g, v, lr, momentum);
    }
    LAUNCH_CHECK();
    return 0;
fail:
    return -1;
}
