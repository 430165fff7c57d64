/* kernels/conv_cudnn.cu - cudnn: cuDNN's legacy convolution API, the library
 * peer of the hand-written conv backends (contract: kernels/conv_cuda.h).
 *
 *   fwd         cudnnConvolutionForward, then cudnnAddTensor (bias [1][K][1][1])
 *   bwd-data    cudnnConvolutionBackwardData
 *   bwd-filter  cudnnConvolutionBackwardFilter and cudnnConvolutionBackwardBias
 * NCHW, CUDNN_CROSS_CORRELATION (what the contract calls a convolution).
 * fp32 with CUDNN_FMA_MATH: plain fp32 FMA, no TF32 tensor cores (cuDNN's
 * default math lets Ampere+ use TF32 for fp32 data, which the fp32 tolerance
 * would rightly fail), so every backend is compared at the same precision.
 * bf16 and fp16 (the typed entries, ops/conv_dims.h): every tensor, the bias
 * and db included, CUDNN_DATA_BFLOAT16 / CUDNN_DATA_HALF, compute type
 * CUDNN_DATA_FLOAT (fp32 accumulation), CUDNN_TENSOR_OP_MATH; the first
 * algorithm of the heuristics' list that succeeds and is of the
 * implicit-GEMM family (Winograd and FFT, which the heuristics may list
 * first, round transformed operands in 16 bits: more error than our
 * tolerance models). So that each y is rounded once, the bias
 * goes first: cudnnAddTensor writes it into y (beta 0), then the convolution
 * adds onto it (beta 1), rounding the fp32 sum once.
 * Where cuDNN refuses a bias call for the type (CUDNN_STATUS_NOT_SUPPORTED:
 * some versions do for bf16, and so does the emulator) the bias runs on our
 * kernels (conv_common.cu: the copy into y, db summed in fp32 and rounded
 * once), the plan remembers it, and the row's note says so; any other status
 * fails the call.
 *
 * Plans: the descriptors and the algorithm of one (device, dims, direction,
 * dtype) are made once and cached (a few entries, least recently made replaced):
 * the algorithm is the first of cudnnGetConvolution*Algorithm_v7's list
 * (heuristics, nothing timed) that succeeds with FMA math, and its workspace
 * from cudnnGetConvolution*WorkspaceSize is what ops.workspace reports, so the
 * runner allocates it and counts it in peak_dev_mb. Each call names the
 * algorithm in its row's note (case_note_set).
 * Handles: one per device, created on first use (a warm-up absorbs it),
 * cudnnSetStream on every call, registered with harness/gpu_handles.h so the
 * end of a run and device recovery release them (and the plans). The mutex
 * guards the caches; one host thread at a time may run on a device.
 * Built with cuDNN from the toolkit (real) or emu/'s subset; a real build
 * without cuDNN (BENCH_HAVE_CUDNN=0) keeps the table, every call failing
 * with a message saying so.
 */
#include <pthread.h>
#include <string.h>

#include "conv_launch.h"
#include "cuda_check.h"
#include "gpu_handles.h"

#ifndef BENCH_HAVE_CUDNN
#define BENCH_HAVE_CUDNN 1
#endif

#if BENCH_HAVE_CUDNN
#include <cudnn.h>

#define CUDNN_TRY(call)                                                        \
    do {                                                                       \
        cudnnStatus_t s_ = (call);                                             \
        if (s_ != CUDNN_STATUS_SUCCESS) {                                      \
            err_set("%s: %s at %s:%d", #call, cudnnGetErrorString(s_),         \
                    __FILE__, __LINE__);                                       \
            goto fail;                                                         \
        }                                                                      \
    } while (0)

#define CUDNN_MAX_DEVICES 64
#define CUDNN_PLANS 8
#define CUDNN_ALGOS 8

typedef struct cudnn_plan {
    int used, device;
    conv_dims d;
    conv_dir dir;
    dtype_t dt; /* DTYPE_FP32, DTYPE_BF16 or DTYPE_FP16 */
    cudnnTensorDescriptor_t x, y, bias;
    cudnnFilterDescriptor_t w;
    cudnnConvolutionDescriptor_t conv;
    int algo;
    size_t ws;
    int own_bias; /* cuDNN refused this plan's bias call: our kernel runs it */
    unsigned long long made; /* order of making, for replacement */
} cudnn_plan;

static cudnnHandle_t g_handles[CUDNN_MAX_DEVICES];
static cudnn_plan g_plans[CUDNN_PLANS];
static unsigned long long g_made;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

static const char *const FWD_ALGO[] = {"IMPLICIT_GEMM", "IMPLICIT_PRECOMP_GEMM", "GEMM", "DIRECT",
                                       "FFT", "FFT_TILING", "WINOGRAD", "WINOGRAD_NONFUSED"};
static const char *const BWD_DATA_ALGO[] = {"ALGO_0", "ALGO_1", "FFT", "FFT_TILING", "WINOGRAD",
                                            "WINOGRAD_NONFUSED"};
static const char *const BWD_FILTER_ALGO[] = {"ALGO_0", "ALGO_1", "FFT", "ALGO_3", "WINOGRAD",
                                              "WINOGRAD_NONFUSED", "FFT_TILING"};

static const char *algo_name(conv_dir dir, int a)
{
    if (dir == CONV_FWD && a >= 0 && a < 8) return FWD_ALGO[a];
    if (dir == CONV_BWD_DATA && a >= 0 && a < 6) return BWD_DATA_ALGO[a];
    if (dir == CONV_BWD_FILTER && a >= 0 && a < 7) return BWD_FILTER_ALGO[a];
    return "?";
}

static void plan_free(cudnn_plan *p)
{
    if (p->x) cudnnDestroyTensorDescriptor(p->x);
    if (p->y) cudnnDestroyTensorDescriptor(p->y);
    if (p->bias) cudnnDestroyTensorDescriptor(p->bias);
    if (p->w) cudnnDestroyFilterDescriptor(p->w);
    if (p->conv) cudnnDestroyConvolutionDescriptor(p->conv);
    memset(p, 0, sizeof *p);
}

/* The cached handle of the current device (lock held). */
static int cudnn_handle(int dev, cudnnHandle_t *out)
{
    if (dev < 0 || dev >= CUDNN_MAX_DEVICES) {
        err_set("conv_cudnn: device %d beyond the %d handles cached", dev, CUDNN_MAX_DEVICES);
        return -1;
    }
    if (!g_handles[dev]) {
        CUDNN_TRY(cudnnCreate(&g_handles[dev]));
        /* device recovery and the end of a run release every library's handles */
        gpu_handles_register("cudnn", conv_cudnn_release);
    }
    *out = g_handles[dev];
    return 0;
fail:
    g_handles[dev] = NULL;
    return -1;
}

/* cuDNN's implicit-GEMM family in direction dir: products of the data as
 * stored, accumulated in fp32, one rounding of the result (what our 16-bit
 * tolerance models; Winograd and FFT round transformed operands in 16 bits
 * first). */
static int gemm_family(conv_dir dir, int algo)
{
    if (dir == CONV_FWD)
        return algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM ||
               algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
    if (dir == CONV_BWD_DATA)
        return algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_0 ||
               algo == CUDNN_CONVOLUTION_BWD_DATA_ALGO_1;
    return algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0 ||
           algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1 ||
           algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3;
}

/* A heuristic result we may run: it works, and for fp32 not on tensor cores
 * (the descriptor's CUDNN_FMA_MATH is what runs; a result may report it or
 * CUDNN_DEFAULT_MATH, never a tensor-op math for fp32 FMA); for bf16 and
 * fp16 any math (tensor ops are the point) but only the implicit-GEMM family
 * (gemm_family), chosen explicitly: the heuristics may list Winograd or FFT
 * first. */
static int usable(dtype_t dt, conv_dir dir, int algo, cudnnStatus_t status,
                  cudnnMathType_t math)
{
    if (status != CUDNN_STATUS_SUCCESS) return 0;
    if (dt != DTYPE_FP32) return gemm_family(dir, algo);
    return math != CUDNN_TENSOR_OP_MATH && math != CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
}

/* cuDNN's element type of a dtype this backend takes (fp32, bf16, fp16). */
static cudnnDataType_t cudnn_type(dtype_t dt)
{
    return dt == DTYPE_BF16 ? CUDNN_DATA_BFLOAT16 : dt == DTYPE_FP16 ? CUDNN_DATA_HALF
                                                                      : CUDNN_DATA_FLOAT;
}

/* Picks the algorithm of p (descriptors set) with the v7 heuristics. */
static int plan_algo(cudnnHandle_t h, cudnn_plan *p)
{
    int got = 0;
    p->algo = -1;
    if (p->dir == CONV_FWD) {
        cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_ALGOS];
        CUDNN_TRY(cudnnGetConvolutionForwardAlgorithm_v7(h, p->x, p->w, p->conv, p->y,
                                                         CUDNN_ALGOS, &got, perf));
        for (int i = 0; i < got && p->algo < 0; i++)
            if (usable(p->dt, p->dir, perf[i].algo, perf[i].status, perf[i].mathType)) {
                p->algo = perf[i].algo;
                CUDNN_TRY(cudnnGetConvolutionForwardWorkspaceSize(
                    h, p->x, p->w, p->conv, p->y, perf[i].algo, &p->ws));
            }
    } else if (p->dir == CONV_BWD_DATA) {
        cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_ALGOS];
        CUDNN_TRY(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, p->w, p->y, p->conv, p->x,
                                                              CUDNN_ALGOS, &got, perf));
        for (int i = 0; i < got && p->algo < 0; i++)
            if (usable(p->dt, p->dir, perf[i].algo, perf[i].status, perf[i].mathType)) {
                p->algo = perf[i].algo;
                CUDNN_TRY(cudnnGetConvolutionBackwardDataWorkspaceSize(
                    h, p->w, p->y, p->conv, p->x, perf[i].algo, &p->ws));
            }
    } else {
        cudnnConvolutionBwdFilterAlgoPerf_t perf[CUDNN_ALGOS];
        CUDNN_TRY(cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, p->x, p->y, p->conv, p->w,
                                                                CUDNN_ALGOS, &got, perf));
        for (int i = 0; i < got && p->algo < 0; i++)
            if (usable(p->dt, p->dir, perf[i].algo, perf[i].status, perf[i].mathType)) {
                p->algo = perf[i].algo;
                CUDNN_TRY(cudnnGetConvolutionBackwardFilterWorkspaceSize(
                    h, p->x, p->y, p->conv, p->w, perf[i].algo, &p->ws));
            }
    }
    if (p->algo < 0) {
        err_set("conv_cudnn: no %s algorithm among cuDNN's %d for this problem",
                p->dt == DTYPE_FP32 ? "fp32 (FMA math)" : dtype_name(p->dt), got);
        return -1;
    }
    return 0;
fail:
    return -1;
}

/* The plan of (current device, d, dir, dt), made on first use (lock held). */
static int plan_get(const conv_dims *d, conv_dir dir, dtype_t dt, cudnnHandle_t *h,
                    cudnn_plan **out)
{
    const cudnnDataType_t t = cudnn_type(dt);
    int dev = -1;
    cudnn_plan *p = NULL;
    CUDA_TRY(cudaGetDevice(&dev));
    if (cudnn_handle(dev, h)) return -1;
    for (int i = 0; i < CUDNN_PLANS; i++)
        if (g_plans[i].used && g_plans[i].device == dev && g_plans[i].dir == dir &&
            g_plans[i].dt == dt && memcmp(&g_plans[i].d, d, sizeof *d) == 0) {
            *out = &g_plans[i];
            return 0;
        }
    p = &g_plans[0];
    for (int i = 1; i < CUDNN_PLANS; i++)
        if (!g_plans[i].used || (p->used && g_plans[i].made < p->made)) p = &g_plans[i];
    plan_free(p);
    p->device = dev;
    p->d = *d;
    p->dir = dir;
    p->dt = dt;
    CUDNN_TRY(cudnnCreateTensorDescriptor(&p->x));
    CUDNN_TRY(cudnnCreateTensorDescriptor(&p->y));
    CUDNN_TRY(cudnnCreateTensorDescriptor(&p->bias));
    CUDNN_TRY(cudnnCreateFilterDescriptor(&p->w));
    CUDNN_TRY(cudnnCreateConvolutionDescriptor(&p->conv));
    CUDNN_TRY(cudnnSetTensor4dDescriptor(p->x, CUDNN_TENSOR_NCHW, t, d->N, d->C, d->H, d->W));
    CUDNN_TRY(cudnnSetTensor4dDescriptor(p->y, CUDNN_TENSOR_NCHW, t, d->N, d->K, d->P, d->Q));
    CUDNN_TRY(cudnnSetTensor4dDescriptor(p->bias, CUDNN_TENSOR_NCHW, t, 1, d->K, 1, 1));
    CUDNN_TRY(cudnnSetFilter4dDescriptor(p->w, t, CUDNN_TENSOR_NCHW, d->K, d->C, d->R, d->S));
    /* fp32 accumulation (compute type FLOAT) for every data type */
    CUDNN_TRY(cudnnSetConvolution2dDescriptor(p->conv, d->ph, d->pw, d->sh, d->sw, 1, 1,
                                              CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
    CUDNN_TRY(cudnnSetConvolutionMathType(p->conv, dt == DTYPE_FP32 ? CUDNN_FMA_MATH
                                                                    : CUDNN_TENSOR_OP_MATH));
    if (plan_algo(*h, p)) goto fail;
    p->used = 1;
    p->made = ++g_made;
    *out = p;
    return 0;
fail:
    if (p) plan_free(p);
    return -1;
}

/* The row's note: the algorithm, the math, the workspace, and where the bias
 * ran when not in cuDNN. */
static void plan_note(const cudnn_plan *p)
{
    const char *bias = p->own_bias ? "; bias on our kernel (cuDNN: CUDNN_STATUS_NOT_SUPPORTED)"
                                   : "";
    if (p->dt == DTYPE_FP32)
        case_note_set("cuDNN %s, workspace %zu B%s", algo_name(p->dir, p->algo), p->ws, bias);
    else
        case_note_set("cuDNN %s, %s tensor-op math, workspace %zu B%s", algo_name(p->dir, p->algo),
                      dtype_name(p->dt), p->ws, bias);
}

/* What the status s of plan p's bias call `name` (cudnnAddTensor or
 * cudnnConvolutionBackwardBias) means: 0 it ran; 1 cuDNN refuses the type
 * (CUDNN_STATUS_NOT_SUPPORTED: the plan remembers, so later calls skip
 * cuDNN, and the note says so; the caller runs our kernel); -1 any other
 * status (err_set naming the call). */
static int cudnn_bias_status(cudnn_plan *p, const char *name, cudnnStatus_t s)
{
    if (s == CUDNN_STATUS_SUCCESS) return 0;
    if (s == CUDNN_STATUS_NOT_SUPPORTED) {
        if (!p->own_bias) {
            p->own_bias = 1;
            plan_note(p);
        }
        return 1;
    }
    err_set("%s: %s (%s bias)", name, cudnnGetErrorString(s), dtype_name(p->dt));
    return -1;
}

/* Locks, finds the plan, checks the workspace; unlocks on failure. */
static int cudnn_begin(const char *who, const conv_dims *d, conv_dir dir, dtype_t dt,
                       const void *ws, void *stream, cudnnHandle_t *h, cudnn_plan **p)
{
    pthread_mutex_lock(&g_lock);
    if (plan_get(d, dir, dt, h, p)) goto fail;
    if (!conv_cuda_ws_ok(who, ws, (*p)->ws)) goto fail;
    CUDNN_TRY(cudnnSetStream(*h, (cudaStream_t)stream));
    plan_note(*p);
    return 0;
fail:
    pthread_mutex_unlock(&g_lock);
    return -1;
}

static int cudnn_end(void *stream)
{
    pthread_mutex_unlock(&g_lock);
    if (bench_cuda_sync_launches) CUDA_TRY(cudaStreamSynchronize((cudaStream_t)stream));
    return 0;
fail:
    return -1;
}

static const float ONE = 1.0f, ZERO = 0.0f;

/* The typed entries take bf16 and fp16 (fp32 has its own); anything else is
 * refused before any work. */
static int dt_ok(const char *who, dtype_t dt)
{
    if (dt == DTYPE_BF16 || dt == DTYPE_FP16) return 1;
    err_set("%s: dtype %s not supported (bf16, fp16; fp32 through the fp32 entries)", who,
            dtype_name(dt));
    return 0;
}

/* Each direction once, for fp32 and the 16-bit dtypes: the plan of dt. fp32's
 * forward adds the bias after the convolution (fp32 rounds either way); a
 * 16-bit y gets the bias first and the convolution on top (beta 1), so the
 * sum is rounded once. */
static int fwd_at(dtype_t dt, const conv_dims *d, const void *x, const void *w, const void *b,
                  void *y, void *ws, void *stream)
{
    const char *who = "conv_cudnn fwd";
    cudnnHandle_t h = NULL;
    cudnn_plan *p = NULL;
    if (!conv_cuda_args_ok(who, d, x, w, y) || !conv_cuda_args_ok(who, d, b, b, b) ||
        cudnn_begin(who, d, CONV_FWD, dt, ws, stream, &h, &p))
        return -1;
    if (dt != DTYPE_FP32) {
        const int rc = p->own_bias ? 1
                       : cudnn_bias_status(p, "cudnnAddTensor",
                                           cudnnAddTensor(h, &ONE, p->bias, b, &ZERO, p->y, y));
        if (rc < 0 || (rc > 0 && conv_cuda_bias_fill(dt, d, b, y, (cudaStream_t)stream)))
            goto fail;
    }
    CUDNN_TRY(cudnnConvolutionForward(h, &ONE, p->x, x, p->w, w, p->conv,
                                      (cudnnConvolutionFwdAlgo_t)p->algo, ws, p->ws,
                                      dt != DTYPE_FP32 ? &ONE : &ZERO, p->y, y));
    if (dt == DTYPE_FP32) CUDNN_TRY(cudnnAddTensor(h, &ONE, p->bias, b, &ONE, p->y, y));
    return cudnn_end(stream);
fail:
    pthread_mutex_unlock(&g_lock);
    return -1;
}

static int bwd_data_at(dtype_t dt, const conv_dims *d, const void *dy, const void *w, void *dx,
                       void *ws, void *stream)
{
    const char *who = "conv_cudnn bwd-data";
    cudnnHandle_t h = NULL;
    cudnn_plan *p = NULL;
    if (!conv_cuda_args_ok(who, d, dy, w, dx) ||
        cudnn_begin(who, d, CONV_BWD_DATA, dt, ws, stream, &h, &p))
        return -1;
    CUDNN_TRY(cudnnConvolutionBackwardData(h, &ONE, p->w, w, p->y, dy, p->conv,
                                           (cudnnConvolutionBwdDataAlgo_t)p->algo, ws, p->ws,
                                           &ZERO, p->x, dx));
    return cudnn_end(stream);
fail:
    pthread_mutex_unlock(&g_lock);
    return -1;
}

static int bwd_filter_at(dtype_t dt, const conv_dims *d, const void *x, const void *dy,
                         void *dw, void *db, void *ws, void *stream)
{
    const char *who = "conv_cudnn bwd-filter";
    cudnnHandle_t h = NULL;
    cudnn_plan *p = NULL;
    if (!conv_cuda_args_ok(who, d, x, dy, dw) || !conv_cuda_args_ok(who, d, db, db, db) ||
        cudnn_begin(who, d, CONV_BWD_FILTER, dt, ws, stream, &h, &p))
        return -1;
    CUDNN_TRY(cudnnConvolutionBackwardFilter(h, &ONE, p->x, x, p->y, dy, p->conv,
                                             (cudnnConvolutionBwdFilterAlgo_t)p->algo, ws, p->ws,
                                             &ZERO, p->w, dw));
    {
        const int rc = p->own_bias ? 1
                       : cudnn_bias_status(p, "cudnnConvolutionBackwardBias",
                                           cudnnConvolutionBackwardBias(h, &ONE, p->y, dy, &ZERO,
                                                                        p->bias, db));
        if (rc < 0 || (rc > 0 && conv_cuda_bias_grad(dt, d, dy, db, (cudaStream_t)stream)))
            goto fail;
    }
    return cudnn_end(stream);
fail:
    pthread_mutex_unlock(&g_lock);
    return -1;
}

/* The workspace of the plan (made now if need be: a warm call's worth of
 * heuristics, outside any timing); 0 when it cannot be made, so the call
 * itself then reports why. */
static unsigned long long workspace_at(dtype_t dt, const conv_dims *d, conv_dir dir)
{
    cudnnHandle_t h = NULL;
    cudnn_plan *p = NULL;
    unsigned long long ws = 0;
    if (!conv_cuda_args_ok("conv_cudnn workspace", d, d, d, d)) return 0;
    pthread_mutex_lock(&g_lock);
    if (plan_get(d, dir, dt, &h, &p) == 0) ws = p->ws;
    pthread_mutex_unlock(&g_lock);
    return ws;
}

static int cudnn_fwd(const conv_dims *d, const float *x, const float *w, const float *b,
                     float *y, void *ws, void *stream)
{
    return fwd_at(DTYPE_FP32, d, x, w, b, y, ws, stream);
}
static int cudnn_bwd_data(const conv_dims *d, const float *dy, const float *w, float *dx,
                          void *ws, void *stream)
{
    return bwd_data_at(DTYPE_FP32, d, dy, w, dx, ws, stream);
}
static int cudnn_bwd_filter(const conv_dims *d, const float *x, const float *dy, float *dw,
                            float *db, void *ws, void *stream)
{
    return bwd_filter_at(DTYPE_FP32, d, x, dy, dw, db, ws, stream);
}
static unsigned long long cudnn_workspace(const conv_dims *d, conv_dir dir)
{
    return workspace_at(DTYPE_FP32, d, dir);
}

static int cudnn_fwd_dt(dtype_t dt, const conv_dims *d, const void *x, const void *w,
                        const void *b, void *y, void *ws, void *stream)
{
    return dt_ok("conv_cudnn fwd", dt) ? fwd_at(dt, d, x, w, b, y, ws, stream) : -1;
}
static int cudnn_bwd_data_dt(dtype_t dt, const conv_dims *d, const void *dy, const void *w,
                             void *dx, void *ws, void *stream)
{
    return dt_ok("conv_cudnn bwd-data", dt) ? bwd_data_at(dt, d, dy, w, dx, ws, stream) : -1;
}
static int cudnn_bwd_filter_dt(dtype_t dt, const conv_dims *d, const void *x, const void *dy,
                               void *dw, void *db, void *ws, void *stream)
{
    return dt_ok("conv_cudnn bwd-filter", dt) ? bwd_filter_at(dt, d, x, dy, dw, db, ws, stream)
                                              : -1;
}
/* 0 for a dtype the entries refuse (they then say why) */
static unsigned long long cudnn_workspace_dt(dtype_t dt, const conv_dims *d, conv_dir dir)
{
    return dt == DTYPE_BF16 || dt == DTYPE_FP16 ? workspace_at(dt, d, dir) : 0;
}

/* Best effort (nothing to report to): each handle destroyed on its own device. */
extern "C" void conv_cudnn_release(void)
{
    int cur = -1;
    const int have_cur = cudaGetDevice(&cur) == cudaSuccess;
    pthread_mutex_lock(&g_lock);
    for (int i = 0; i < CUDNN_PLANS; i++) plan_free(&g_plans[i]);
    for (int dev = 0; dev < CUDNN_MAX_DEVICES; dev++)
        if (g_handles[dev]) {
            if (cudaSetDevice(dev) == cudaSuccess) cudnnDestroy(g_handles[dev]);
            g_handles[dev] = NULL;
        }
    pthread_mutex_unlock(&g_lock);
    if (have_cur) cudaSetDevice(cur);
}

extern "C" const conv_ops CONV_CUDNN = {cudnn_fwd, cudnn_bwd_data, cudnn_bwd_filter,
                                        cudnn_workspace, cudnn_fwd_dt, cudnn_bwd_data_dt,
                                        cudnn_bwd_filter_dt, cudnn_workspace_dt};

#else /* a real build without cuDNN: the table, every call failing saying so */

static int cudnn_missing(void)
{
    err_set("cudnn: this build has no cuDNN (not found with the CUDA toolkit at build time)");
    return -1;
}
static int nocudnn_fwd(const conv_dims *, const float *, const float *, const float *, float *,
                       void *, void *) { return cudnn_missing(); }
static int nocudnn_bwd_data(const conv_dims *, const float *, const float *, float *, void *,
                            void *) { return cudnn_missing(); }
static int nocudnn_bwd_filter(const conv_dims *, const float *, const float *, float *, float *,
                              void *, void *) { return cudnn_missing(); }
static int nocudnn_fwd_dt(dtype_t, const conv_dims *, const void *, const void *, const void *,
                          void *, void *, void *) { return cudnn_missing(); }
static int nocudnn_bwd_data_dt(dtype_t, const conv_dims *, const void *, const void *, void *,
                               void *, void *) { return cudnn_missing(); }
static int nocudnn_bwd_filter_dt(dtype_t, const conv_dims *, const void *, const void *, void *,
                                 void *, void *, void *) { return cudnn_missing(); }
extern "C" void conv_cudnn_release(void) {}
extern "C" const conv_ops CONV_CUDNN = {nocudnn_fwd, nocudnn_bwd_data, nocudnn_bwd_filter, NULL,
                                        nocudnn_fwd_dt, nocudnn_bwd_data_dt,
                                        nocudnn_bwd_filter_dt, NULL};
#endif
