/* emu/src/cudnn.cpp - the cuDNN subset of the CUDA host emulator (emu/include/cudnn.h).
 *
 * Descriptors hold what they were set to; only fp32, NCHW, cross-correlation,
 * dilation 1, groups 1 are supported (else CUDNN_STATUS_NOT_SUPPORTED). A
 * convolution call checks its shapes as cuDNN does (x, w, y consistent with
 * the convolution descriptor: CUDNN_STATUS_BAD_PARAM), its workspace size
 * against the algorithm's, then queues the operation on the handle's stream;
 * it runs when the stream is drained, in double on the host, as
 * out = alpha * op + beta * out (beta == 0 never reads out). Operands and a
 * non-empty workspace that are not device (or pinned) memory fail when the
 * operation runs, with a message and the sticky cudaErrorIllegalAddress.
 * The "heuristics" list every algorithm the emulator computes (all compute
 * the same result); the first of each direction asks for a workspace, so that
 * callers' workspace plumbing is exercised:
 *   fwd IMPLICIT_PRECOMP_GEMM  (C*R*S + 1) * 8 bytes (cuDNN keeps an index table)
 *   bwd-data ALGO_1            0
 *   bwd-filter ALGO_1          K*C*R*S * 4 bytes
 * cuDNN's other algorithms are reported CUDNN_STATUS_NOT_SUPPORTED.
 */
#include "internal.h"

#include <cudnn.h>

#include <cstring>
#include <set>

struct cudnnContext {
    int device = 0;
    cudaStream_t stream = nullptr;
};
struct cudnnTensorStruct {
    bool set = false;
    int n = 0, c = 0, h = 0, w = 0;
};
struct cudnnFilterStruct {
    bool set = false;
    int k = 0, c = 0, r = 0, s = 0;
};
struct cudnnConvolutionStruct {
    bool set = false;
    int ph = 0, pw = 0, sh = 1, sw = 1;
    cudnnMathType_t math = CUDNN_DEFAULT_MATH;
};

namespace cudaemu {
namespace {

std::set<const void *> &objects() /* live handles and descriptors */
{
    static std::set<const void *> *o = new std::set<const void *>;
    return *o;
}

template <class T> bool live(T *p) { return p && objects().count(static_cast<const void *>(p)); }

template <class T> cudnnStatus_t create(T **out)
{
    if (!out) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
    *out = new T;
    objects().insert(*out);
    return CUDNN_STATUS_SUCCESS;
}

template <class T> cudnnStatus_t destroy(T *p)
{
    if (!p) return CUDNN_STATUS_SUCCESS; /* cuDNN accepts a null descriptor */
    if (!live(p)) return CUDNN_STATUS_BAD_PARAM;
    objects().erase(p);
    delete p;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t check_handle(cudnnContext *h)
{
    if (!live(h)) return CUDNN_STATUS_NOT_INITIALIZED;
    if (usable() != cudaSuccess) return CUDNN_STATUS_EXECUTION_FAILED;
    return CUDNN_STATUS_SUCCESS;
}

/* One problem, from the three descriptors of a call, checked for consistency. */
struct Conv {
    int N, C, H, W, K, R, S, P, Q, ph, pw, sh, sw;
};

int out_dim(int in, int f, int pad, int stride) { return (in + 2 * pad - f) / stride + 1; }

cudnnStatus_t make_conv(const cudnnTensorStruct *x, const cudnnFilterStruct *w,
                        const cudnnConvolutionStruct *cv, const cudnnTensorStruct *y, Conv *out)
{
    if (!live(x) || !live(w) || !live(cv) || !live(y)) return CUDNN_STATUS_BAD_PARAM;
    if (!x->set || !w->set || !cv->set || !y->set) return CUDNN_STATUS_BAD_PARAM;
    if (x->c != w->c || y->n != x->n || y->c != w->k) return CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH;
    if (x->h + 2 * cv->ph < w->r || x->w + 2 * cv->pw < w->s) return CUDNN_STATUS_BAD_PARAM;
    Conv c{x->n, x->c, x->h, x->w, w->k, w->r, w->s, out_dim(x->h, w->r, cv->ph, cv->sh),
           out_dim(x->w, w->s, cv->pw, cv->sw), cv->ph, cv->pw, cv->sh, cv->sw};
    if (y->h != c.P || y->w != c.Q) return CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH;
    *out = c;
    return CUDNN_STATUS_SUCCESS;
}

size_t elems(const cudnnTensorStruct *t) { return size_t(t->n) * t->c * t->h * t->w; }

using Operand = LibOperand;

/* Queues fn on the handle's stream, or a failure when an operand is not device memory. */
cudnnStatus_t queue(cudnnContext *h, const char *fname, std::initializer_list<Operand> ops,
                    std::function<void()> fn)
{
    if (!queue_library_call(h->device, h->stream, fname, ops, std::move(fn), false))
        return CUDNN_STATUS_BAD_PARAM;
    return CUDNN_STATUS_SUCCESS;
}

/* out[i] = alpha * v[i] + beta * out[i], never reading out when beta == 0. */
void blend(float *out, const std::vector<double> &v, float alpha, float beta)
{
    for (size_t i = 0; i < v.size(); ++i)
        out[i] = float(alpha * v[i] + (beta == 0.0f ? 0.0 : double(beta) * out[i]));
}

void host_fwd(const Conv &c, const float *x, const float *w, float alpha, float beta, float *y)
{
    std::vector<double> acc(size_t(c.N) * c.K * c.P * c.Q, 0.0);
    for (int n = 0; n < c.N; ++n)
        for (int k = 0; k < c.K; ++k) {
            double *a = &acc[(size_t(n) * c.K + k) * c.P * c.Q];
            for (int ch = 0; ch < c.C; ++ch)
                for (int r = 0; r < c.R; ++r)
                    for (int s = 0; s < c.S; ++s) {
                        const double wv = w[((size_t(k) * c.C + ch) * c.R + r) * c.S + s];
                        const float *xc = x + (size_t(n) * c.C + ch) * c.H * c.W;
                        for (int p = 0; p < c.P; ++p) {
                            const int h = p * c.sh - c.ph + r;
                            if (h < 0 || h >= c.H) continue;
                            for (int q = 0; q < c.Q; ++q) {
                                const int ww = q * c.sw - c.pw + s;
                                if (ww >= 0 && ww < c.W) a[p * c.Q + q] += wv * xc[h * c.W + ww];
                            }
                        }
                    }
        }
    blend(y, acc, alpha, beta);
}

void host_bwd_data(const Conv &c, const float *w, const float *dy, float alpha, float beta,
                   float *dx)
{
    std::vector<double> acc(size_t(c.N) * c.C * c.H * c.W, 0.0);
    for (int n = 0; n < c.N; ++n)
        for (int ch = 0; ch < c.C; ++ch) {
            double *a = &acc[(size_t(n) * c.C + ch) * c.H * c.W];
            for (int k = 0; k < c.K; ++k)
                for (int r = 0; r < c.R; ++r)
                    for (int s = 0; s < c.S; ++s) {
                        const double wv = w[((size_t(k) * c.C + ch) * c.R + r) * c.S + s];
                        const float *g = dy + (size_t(n) * c.K + k) * c.P * c.Q;
                        for (int p = 0; p < c.P; ++p) {
                            const int h = p * c.sh - c.ph + r;
                            if (h < 0 || h >= c.H) continue;
                            for (int q = 0; q < c.Q; ++q) {
                                const int ww = q * c.sw - c.pw + s;
                                if (ww >= 0 && ww < c.W) a[h * c.W + ww] += wv * g[p * c.Q + q];
                            }
                        }
                    }
        }
    blend(dx, acc, alpha, beta);
}

void host_bwd_filter(const Conv &c, const float *x, const float *dy, float alpha, float beta,
                     float *dw)
{
    std::vector<double> acc(size_t(c.K) * c.C * c.R * c.S, 0.0);
    for (int k = 0; k < c.K; ++k)
        for (int ch = 0; ch < c.C; ++ch)
            for (int r = 0; r < c.R; ++r)
                for (int s = 0; s < c.S; ++s) {
                    double sum = 0;
                    for (int n = 0; n < c.N; ++n) {
                        const float *g = dy + (size_t(n) * c.K + k) * c.P * c.Q;
                        const float *xc = x + (size_t(n) * c.C + ch) * c.H * c.W;
                        for (int p = 0; p < c.P; ++p) {
                            const int h = p * c.sh - c.ph + r;
                            if (h < 0 || h >= c.H) continue;
                            for (int q = 0; q < c.Q; ++q) {
                                const int ww = q * c.sw - c.pw + s;
                                if (ww >= 0 && ww < c.W) sum += double(g[p * c.Q + q]) * xc[h * c.W + ww];
                            }
                        }
                    }
                    acc[((size_t(k) * c.C + ch) * c.R + r) * c.S + s] = sum;
                }
    blend(dw, acc, alpha, beta);
}

size_t fwd_ws(const Conv &c, int algo)
{
    return algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM
               ? (size_t(c.C) * c.R * c.S + 1) * 8 : 0;
}
size_t bwd_filter_ws(const Conv &c, int algo)
{
    return algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1 ? size_t(c.K) * c.C * c.R * c.S * 4 : 0;
}
bool fwd_algo_ok(int a)
{
    return a == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM ||
           a == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
}
bool bwd_data_algo_ok(int a)
{
    return a == CUDNN_CONVOLUTION_BWD_DATA_ALGO_1 || a == CUDNN_CONVOLUTION_BWD_DATA_ALGO_0;
}
bool bwd_filter_algo_ok(int a)
{
    return a == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1 || a == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0;
}

/* Fills up to `want` perf entries from the emulator's algorithm list. */
template <class Perf, class Algo>
cudnnStatus_t heuristics(int want, int *got, Perf *perf, std::initializer_list<Algo> algos,
                         std::function<size_t(int)> ws, cudnnMathType_t math)
{
    if (!got || !perf || want < 1) return CUDNN_STATUS_BAD_PARAM;
    int n = 0;
    for (Algo a : algos) {
        if (n == want) break;
        Perf p;
        std::memset(&p, 0, sizeof p);
        p.algo = a;
        p.status = CUDNN_STATUS_SUCCESS;
        p.time = -1.0f; /* heuristics measure nothing */
        p.memory = ws(int(a));
        p.determinism = CUDNN_DETERMINISTIC;
        p.mathType = math == CUDNN_TENSOR_OP_MATH ? CUDNN_FMA_MATH : math;
        perf[n++] = p;
    }
    *got = n;
    return CUDNN_STATUS_SUCCESS;
}

} // namespace
} // namespace cudaemu

using namespace cudaemu;

inline namespace cudaemu_api {

const char *cudnnGetErrorString(cudnnStatus_t s)
{
    switch (s) {
    case CUDNN_STATUS_SUCCESS: return "CUDNN_STATUS_SUCCESS";
    case CUDNN_STATUS_NOT_INITIALIZED: return "CUDNN_STATUS_NOT_INITIALIZED";
    case CUDNN_STATUS_BAD_PARAM: return "CUDNN_STATUS_BAD_PARAM";
    case CUDNN_STATUS_BAD_PARAM_NULL_POINTER: return "CUDNN_STATUS_BAD_PARAM_NULL_POINTER";
    case CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH: return "CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH";
    case CUDNN_STATUS_NOT_SUPPORTED: return "CUDNN_STATUS_NOT_SUPPORTED";
    case CUDNN_STATUS_INTERNAL_ERROR: return "CUDNN_STATUS_INTERNAL_ERROR";
    case CUDNN_STATUS_EXECUTION_FAILED: return "CUDNN_STATUS_EXECUTION_FAILED";
    }
    return "CUDNN_STATUS_UNKNOWN";
}

size_t cudnnGetVersion(void) { return CUDNN_VERSION; }

cudnnStatus_t cudnnCreate(cudnnHandle_t *handle)
{
    CUDAEMU_LOCK;
    if (!handle) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
    if (usable() != cudaSuccess) return CUDNN_STATUS_NOT_INITIALIZED;
    cudnnStatus_t s = create(handle);
    if (s == CUDNN_STATUS_SUCCESS) (*handle)->device = cur_dev();
    return s;
}

cudnnStatus_t cudnnDestroy(cudnnHandle_t h)
{
    CUDAEMU_LOCK;
    if (!live(h)) return CUDNN_STATUS_BAD_PARAM;
    sync_device(h->device); /* as cudnnDestroy: the handle's work is done */
    return destroy(h);
}

cudnnStatus_t cudnnSetStream(cudnnHandle_t h, cudaStream_t s)
{
    CUDAEMU_LOCK;
    if (!live(h)) return CUDNN_STATUS_NOT_INITIALIZED;
    cudaError_t e = cudaSuccess;
    if (s && !stream_of(s, &e)) return CUDNN_STATUS_BAD_PARAM;
    h->stream = s;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetStream(cudnnHandle_t h, cudaStream_t *s)
{
    CUDAEMU_LOCK;
    if (!live(h)) return CUDNN_STATUS_NOT_INITIALIZED;
    if (!s) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
    *s = h->stream;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnCreateTensorDescriptor(cudnnTensorDescriptor_t *d) { CUDAEMU_LOCK; return create(d); }
cudnnStatus_t cudnnDestroyTensorDescriptor(cudnnTensorDescriptor_t d) { CUDAEMU_LOCK; return destroy(d); }
cudnnStatus_t cudnnCreateFilterDescriptor(cudnnFilterDescriptor_t *d) { CUDAEMU_LOCK; return create(d); }
cudnnStatus_t cudnnDestroyFilterDescriptor(cudnnFilterDescriptor_t d) { CUDAEMU_LOCK; return destroy(d); }
cudnnStatus_t cudnnCreateConvolutionDescriptor(cudnnConvolutionDescriptor_t *d) { CUDAEMU_LOCK; return create(d); }
cudnnStatus_t cudnnDestroyConvolutionDescriptor(cudnnConvolutionDescriptor_t d) { CUDAEMU_LOCK; return destroy(d); }

cudnnStatus_t cudnnSetTensor4dDescriptor(cudnnTensorDescriptor_t d, cudnnTensorFormat_t format,
                                         cudnnDataType_t type, int n, int c, int h, int w)
{
    CUDAEMU_LOCK;
    if (!live(d)) return CUDNN_STATUS_BAD_PARAM;
    if (n < 1 || c < 1 || h < 1 || w < 1) return CUDNN_STATUS_BAD_PARAM;
    if (format != CUDNN_TENSOR_NCHW || type != CUDNN_DATA_FLOAT) return CUDNN_STATUS_NOT_SUPPORTED;
    *d = cudnnTensorStruct{true, n, c, h, w};
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetFilter4dDescriptor(cudnnFilterDescriptor_t d, cudnnDataType_t type,
                                         cudnnTensorFormat_t format, int k, int c, int h, int w)
{
    CUDAEMU_LOCK;
    if (!live(d)) return CUDNN_STATUS_BAD_PARAM;
    if (k < 1 || c < 1 || h < 1 || w < 1) return CUDNN_STATUS_BAD_PARAM;
    if (format != CUDNN_TENSOR_NCHW || type != CUDNN_DATA_FLOAT) return CUDNN_STATUS_NOT_SUPPORTED;
    *d = cudnnFilterStruct{true, k, c, h, w};
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetConvolution2dDescriptor(cudnnConvolutionDescriptor_t d, int ph, int pw,
                                              int u, int v, int dh, int dw,
                                              cudnnConvolutionMode_t mode, cudnnDataType_t type)
{
    CUDAEMU_LOCK;
    if (!live(d)) return CUDNN_STATUS_BAD_PARAM;
    if (ph < 0 || pw < 0 || u < 1 || v < 1 || dh < 1 || dw < 1) return CUDNN_STATUS_BAD_PARAM;
    if (dh != 1 || dw != 1 || mode != CUDNN_CROSS_CORRELATION || type != CUDNN_DATA_FLOAT)
        return CUDNN_STATUS_NOT_SUPPORTED;
    d->set = true;
    d->ph = ph; d->pw = pw; d->sh = u; d->sw = v;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetConvolutionMathType(cudnnConvolutionDescriptor_t d, cudnnMathType_t m)
{
    CUDAEMU_LOCK;
    if (!live(d)) return CUDNN_STATUS_BAD_PARAM;
    if (m < CUDNN_DEFAULT_MATH || m > CUDNN_FMA_MATH) return CUDNN_STATUS_BAD_PARAM;
    d->math = m;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetConvolution2dForwardOutputDim(const cudnnConvolutionDescriptor_t cv,
                                                    const cudnnTensorDescriptor_t x,
                                                    const cudnnFilterDescriptor_t w, int *n,
                                                    int *c, int *h, int *wd)
{
    CUDAEMU_LOCK;
    if (!live(cv) || !live(x) || !live(w) || !cv->set || !x->set || !w->set)
        return CUDNN_STATUS_BAD_PARAM;
    if (!n || !c || !h || !wd) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
    if (x->c != w->c || x->h + 2 * cv->ph < w->r || x->w + 2 * cv->pw < w->s)
        return CUDNN_STATUS_BAD_PARAM;
    *n = x->n;
    *c = w->k;
    *h = out_dim(x->h, w->r, cv->ph, cv->sh);
    *wd = out_dim(x->w, w->s, cv->pw, cv->sw);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetConvolutionForwardAlgorithm_v7(
    cudnnHandle_t h, const cudnnTensorDescriptor_t x, const cudnnFilterDescriptor_t w,
    const cudnnConvolutionDescriptor_t cv, const cudnnTensorDescriptor_t y, const int want,
    int *got, cudnnConvolutionFwdAlgoPerf_t *perf)
{
    CUDAEMU_LOCK;
    Conv c;
    if (cudnnStatus_t s = check_handle(h)) return s;
    if (cudnnStatus_t s = make_conv(x, w, cv, y, &c)) return s;
    return heuristics(want, got, perf,
                      {CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
                       CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM},
                      [c](int a) { return fwd_ws(c, a); }, cv->math);
}

cudnnStatus_t cudnnGetConvolutionBackwardDataAlgorithm_v7(
    cudnnHandle_t h, const cudnnFilterDescriptor_t w, const cudnnTensorDescriptor_t dy,
    const cudnnConvolutionDescriptor_t cv, const cudnnTensorDescriptor_t dx, const int want,
    int *got, cudnnConvolutionBwdDataAlgoPerf_t *perf)
{
    CUDAEMU_LOCK;
    Conv c;
    if (cudnnStatus_t s = check_handle(h)) return s;
    if (cudnnStatus_t s = make_conv(dx, w, cv, dy, &c)) return s;
    return heuristics(want, got, perf,
                      {CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, CUDNN_CONVOLUTION_BWD_DATA_ALGO_0},
                      [](int) { return size_t(0); }, cv->math);
}

cudnnStatus_t cudnnGetConvolutionBackwardFilterAlgorithm_v7(
    cudnnHandle_t h, const cudnnTensorDescriptor_t x, const cudnnTensorDescriptor_t dy,
    const cudnnConvolutionDescriptor_t cv, const cudnnFilterDescriptor_t dw, const int want,
    int *got, cudnnConvolutionBwdFilterAlgoPerf_t *perf)
{
    CUDAEMU_LOCK;
    Conv c;
    if (cudnnStatus_t s = check_handle(h)) return s;
    if (cudnnStatus_t s = make_conv(x, dw, cv, dy, &c)) return s;
    return heuristics(want, got, perf,
                      {CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0},
                      [c](int a) { return bwd_filter_ws(c, a); }, cv->math);
}

cudnnStatus_t cudnnGetConvolutionForwardWorkspaceSize(
    cudnnHandle_t h, const cudnnTensorDescriptor_t x, const cudnnFilterDescriptor_t w,
    const cudnnConvolutionDescriptor_t cv, const cudnnTensorDescriptor_t y,
    cudnnConvolutionFwdAlgo_t algo, size_t *bytes)
{
    CUDAEMU_LOCK;
    Conv c;
    if (cudnnStatus_t s = check_handle(h)) return s;
    if (cudnnStatus_t s = make_conv(x, w, cv, y, &c)) return s;
    if (!bytes) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
    if (!fwd_algo_ok(algo)) return CUDNN_STATUS_NOT_SUPPORTED;
    *bytes = fwd_ws(c, algo);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetConvolutionBackwardDataWorkspaceSize(
    cudnnHandle_t h, const cudnnFilterDescriptor_t w, const cudnnTensorDescriptor_t dy,
    const cudnnConvolutionDescriptor_t cv, const cudnnTensorDescriptor_t dx,
    cudnnConvolutionBwdDataAlgo_t algo, size_t *bytes)
{
    CUDAEMU_LOCK;
    Conv c;
    if (cudnnStatus_t s = check_handle(h)) return s;
    if (cudnnStatus_t s = make_conv(dx, w, cv, dy, &c)) return s;
    if (!bytes) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
    if (!bwd_data_algo_ok(algo)) return CUDNN_STATUS_NOT_SUPPORTED;
    *bytes = 0;
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetConvolutionBackwardFilterWorkspaceSize(
    cudnnHandle_t h, const cudnnTensorDescriptor_t x, const cudnnTensorDescriptor_t dy,
    const cudnnConvolutionDescriptor_t cv, const cudnnFilterDescriptor_t dw,
    cudnnConvolutionBwdFilterAlgo_t algo, size_t *bytes)
{
    CUDAEMU_LOCK;
    Conv c;
    if (cudnnStatus_t s = check_handle(h)) return s;
    if (cudnnStatus_t s = make_conv(x, dw, cv, dy, &c)) return s;
    if (!bytes) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
    if (!bwd_filter_algo_ok(algo)) return CUDNN_STATUS_NOT_SUPPORTED;
    *bytes = bwd_filter_ws(c, algo);
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnConvolutionForward(cudnnHandle_t h, const void *alpha,
                                      const cudnnTensorDescriptor_t xd, const void *x,
                                      const cudnnFilterDescriptor_t wd, const void *w,
                                      const cudnnConvolutionDescriptor_t cv,
                                      cudnnConvolutionFwdAlgo_t algo, void *ws, size_t ws_bytes,
                                      const void *beta, const cudnnTensorDescriptor_t yd, void *y)
{
    CUDAEMU_LOCK;
    Conv c;
    if (cudnnStatus_t s = check_handle(h)) return s;
    if (cudnnStatus_t s = make_conv(xd, wd, cv, yd, &c)) return s;
    if (!alpha || !beta || !x || !w || !y) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
    if (!fwd_algo_ok(algo)) return CUDNN_STATUS_NOT_SUPPORTED;
    const size_t need = fwd_ws(c, algo);
    if (ws_bytes < need || (need && !ws)) return CUDNN_STATUS_BAD_PARAM;
    const float a = *static_cast<const float *>(alpha), b = *static_cast<const float *>(beta);
    const float *px = static_cast<const float *>(x), *pw = static_cast<const float *>(w);
    float *py = static_cast<float *>(y);
    return queue(h, "cudnnConvolutionForward",
                 {{"x", x, elems(xd) * 4}, {"w", w, size_t(c.K) * c.C * c.R * c.S * 4},
                  {"y", y, elems(yd) * 4}, {"workSpace", ws, need}},
                 [=]() { host_fwd(c, px, pw, a, b, py); });
}

cudnnStatus_t cudnnConvolutionBackwardData(cudnnHandle_t h, const void *alpha,
                                           const cudnnFilterDescriptor_t wd, const void *w,
                                           const cudnnTensorDescriptor_t dyd, const void *dy,
                                           const cudnnConvolutionDescriptor_t cv,
                                           cudnnConvolutionBwdDataAlgo_t algo, void *ws,
                                           size_t ws_bytes, const void *beta,
                                           const cudnnTensorDescriptor_t dxd, void *dx)
{
    CUDAEMU_LOCK;
    Conv c;
    (void)ws;
    (void)ws_bytes;
    if (cudnnStatus_t s = check_handle(h)) return s;
    if (cudnnStatus_t s = make_conv(dxd, wd, cv, dyd, &c)) return s;
    if (!alpha || !beta || !w || !dy || !dx) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
    if (!bwd_data_algo_ok(algo)) return CUDNN_STATUS_NOT_SUPPORTED;
    const float a = *static_cast<const float *>(alpha), b = *static_cast<const float *>(beta);
    const float *pw = static_cast<const float *>(w), *pdy = static_cast<const float *>(dy);
    float *pdx = static_cast<float *>(dx);
    return queue(h, "cudnnConvolutionBackwardData",
                 {{"w", w, size_t(c.K) * c.C * c.R * c.S * 4}, {"dy", dy, elems(dyd) * 4},
                  {"dx", dx, elems(dxd) * 4}},
                 [=]() { host_bwd_data(c, pw, pdy, a, b, pdx); });
}

cudnnStatus_t cudnnConvolutionBackwardFilter(cudnnHandle_t h, const void *alpha,
                                             const cudnnTensorDescriptor_t xd, const void *x,
                                             const cudnnTensorDescriptor_t dyd, const void *dy,
                                             const cudnnConvolutionDescriptor_t cv,
                                             cudnnConvolutionBwdFilterAlgo_t algo, void *ws,
                                             size_t ws_bytes, const void *beta,
                                             const cudnnFilterDescriptor_t dwd, void *dw)
{
    CUDAEMU_LOCK;
    Conv c;
    if (cudnnStatus_t s = check_handle(h)) return s;
    if (cudnnStatus_t s = make_conv(xd, dwd, cv, dyd, &c)) return s;
    if (!alpha || !beta || !x || !dy || !dw) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
    if (!bwd_filter_algo_ok(algo)) return CUDNN_STATUS_NOT_SUPPORTED;
    const size_t need = bwd_filter_ws(c, algo);
    if (ws_bytes < need || (need && !ws)) return CUDNN_STATUS_BAD_PARAM;
    const float a = *static_cast<const float *>(alpha), b = *static_cast<const float *>(beta);
    const float *px = static_cast<const float *>(x), *pdy = static_cast<const float *>(dy);
    float *pdw = static_cast<float *>(dw);
    return queue(h, "cudnnConvolutionBackwardFilter",
                 {{"x", x, elems(xd) * 4}, {"dy", dy, elems(dyd) * 4},
                  {"dw", dw, size_t(c.K) * c.C * c.R * c.S * 4}, {"workSpace", ws, need}},
                 [=]() { host_bwd_filter(c, px, pdy, a, b, pdw); });
}

cudnnStatus_t cudnnConvolutionBackwardBias(cudnnHandle_t h, const void *alpha,
                                           const cudnnTensorDescriptor_t dyd, const void *dy,
                                           const void *beta, const cudnnTensorDescriptor_t dbd,
                                           void *db)
{
    CUDAEMU_LOCK;
    if (cudnnStatus_t s = check_handle(h)) return s;
    if (!live(dyd) || !live(dbd) || !dyd->set || !dbd->set) return CUDNN_STATUS_BAD_PARAM;
    if (!alpha || !beta || !dy || !db) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
    if (dbd->n != 1 || dbd->c != dyd->c || dbd->h != 1 || dbd->w != 1)
        return CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH;
    const cudnnTensorStruct g = *dyd;
    const float a = *static_cast<const float *>(alpha), b = *static_cast<const float *>(beta);
    const float *pdy = static_cast<const float *>(dy);
    float *pdb = static_cast<float *>(db);
    return queue(h, "cudnnConvolutionBackwardBias",
                 {{"dy", dy, elems(dyd) * 4}, {"db", db, size_t(g.c) * 4}}, [=]() {
                     std::vector<double> acc(size_t(g.c), 0.0);
                     const size_t plane = size_t(g.h) * g.w;
                     for (int n = 0; n < g.n; ++n)
                         for (int k = 0; k < g.c; ++k)
                             for (size_t i = 0; i < plane; ++i)
                                 acc[k] += pdy[(size_t(n) * g.c + k) * plane + i];
                     blend(pdb, acc, a, b);
                 });
}

/* C = alpha * A + beta * C, A of C's shape or broadcast over N, H, W (a bias [1][C][1][1]). */
cudnnStatus_t cudnnAddTensor(cudnnHandle_t h, const void *alpha,
                             const cudnnTensorDescriptor_t ad, const void *A, const void *beta,
                             const cudnnTensorDescriptor_t cd, void *C)
{
    CUDAEMU_LOCK;
    if (cudnnStatus_t s = check_handle(h)) return s;
    if (!live(ad) || !live(cd) || !ad->set || !cd->set) return CUDNN_STATUS_BAD_PARAM;
    if (!alpha || !beta || !A || !C) return CUDNN_STATUS_BAD_PARAM_NULL_POINTER;
    const bool same = ad->n == cd->n && ad->c == cd->c && ad->h == cd->h && ad->w == cd->w;
    const bool bias = ad->n == 1 && ad->c == cd->c && ad->h == 1 && ad->w == 1;
    if (!same && !bias) return CUDNN_STATUS_NOT_SUPPORTED;
    const cudnnTensorStruct t = *cd;
    const float a = *static_cast<const float *>(alpha), b = *static_cast<const float *>(beta);
    const float *pa = static_cast<const float *>(A);
    float *pc = static_cast<float *>(C);
    return queue(h, "cudnnAddTensor", {{"A", A, elems(ad) * 4}, {"C", C, elems(cd) * 4}}, [=]() {
        const size_t plane = size_t(t.h) * t.w, total = size_t(t.n) * t.c * plane;
        for (size_t i = 0; i < total; ++i) {
            const float v = same ? pa[i] : pa[(i / plane) % size_t(t.c)];
            pc[i] = a * v + (b == 0.0f ? 0.0f : b * pc[i]);
        }
    });
}

} // inline namespace cudaemu_api
