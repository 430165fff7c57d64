/* emu/src/cudnn.cpp - the cuDNN subset of the CUDA host emulator (emu/include/cudnn.h).
 *
 * Descriptors hold what they were set to; only NCHW, cross-correlation,
 * dilation 1, groups 1 are supported (else CUDNN_STATUS_NOT_SUPPORTED), with
 * tensors and filters of CUDNN_DATA_FLOAT, CUDNN_DATA_HALF or
 * CUDNN_DATA_BFLOAT16 and the convolution's compute type CUDNN_DATA_FLOAT
 * (cuDNN's FLOAT, PSEUDO_HALF and PSEUDO_BFLOAT16 configurations: x, w and y
 * of one type; others: one cudaemu: line and CUDNN_STATUS_NOT_SUPPORTED). A
 * convolution call checks its shapes as cuDNN does (x, w, y consistent with
 * the convolution descriptor: CUDNN_STATUS_BAD_PARAM), its workspace size
 * against the algorithm's, then queues the operation on the handle's stream;
 * it runs when the stream is drained, in double on the host, as
 * out = alpha * op + beta * out (beta == 0 never reads out), 16-bit inputs
 * widened exactly and a 16-bit out rounded once (nearest even) from that
 * double: finer than a GPU's fp32 accumulation, never coarser. The math
 * type (DEFAULT, TENSOR_OP, TENSOR_OP_ALLOW_CONVERSION, FMA) changes no
 * result; the heuristics report TENSOR_OP for 16-bit data when the
 * descriptor allows tensor ops, FMA for fp32 data. Operands and a
 * non-empty workspace that are not device (or pinned) memory fail when the
 * operation runs, with a message and the sticky cudaErrorIllegalAddress.
 * The "heuristics" list every algorithm the emulator computes (all compute
 * the same result); the first of each direction asks for a workspace, so that
 * callers' workspace plumbing is exercised:
 *   fwd IMPLICIT_PRECOMP_GEMM  (C*R*S + 1) * 8 bytes (cuDNN keeps an index table),
 *                              plus 8 * N*K*P*Q * 4 where fwd_splits splits
 *                              the reduction (few output tiles)
 *   bwd-data ALGO_1            0
 *   bwd-filter ALGO_1          K*C*R*S * 4 bytes
 * For 16-bit 3x3 stride-1 convolutions the forward list starts with
 * WINOGRAD_NONFUSED (host_fwd_winograd: the transformed operands rounded to
 * the 16-bit type, as cuDNN's Winograd kernels round them; workspace
 * (K*C + N*C*tiles) * 16 elements), so a caller that takes the first
 * algorithm gets its larger error.
 * cuDNN's other algorithms are reported CUDNN_STATUS_NOT_SUPPORTED.
 * cudnnAddTensor and cudnnConvolutionBackwardBias refuse bf16 operands with
 * CUDNN_STATUS_NOT_SUPPORTED, as some cuDNN versions do (bias_bf16_refused).
 */
#include "internal.h"

#include <cudnn.h>

#include "cudaemu/half_round.h"

#include <cstring>
#include <set>

struct cudnnContext {
    int device = 0;
    cudaStream_t stream = nullptr;
};
struct cudnnTensorStruct {
    bool set = false;
    int n = 0, c = 0, h = 0, w = 0;
    cudnnDataType_t type = CUDNN_DATA_FLOAT;
};
struct cudnnFilterStruct {
    bool set = false;
    int k = 0, c = 0, r = 0, s = 0;
    cudnnDataType_t type = CUDNN_DATA_FLOAT;
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

/* The element types of tensors and filters. */
bool data_type_ok(cudnnDataType_t t)
{
    return t == CUDNN_DATA_FLOAT || t == CUDNN_DATA_HALF || t == CUDNN_DATA_BFLOAT16;
}
size_t type_size(cudnnDataType_t t) { return t == CUDNN_DATA_FLOAT ? 4 : 2; }
const char *type_name(cudnnDataType_t t)
{
    return t == CUDNN_DATA_FLOAT ? "CUDNN_DATA_FLOAT"
           : t == CUDNN_DATA_HALF ? "CUDNN_DATA_HALF"
           : t == CUDNN_DATA_BFLOAT16 ? "CUDNN_DATA_BFLOAT16" : "another type";
}

/* n elements of type t at p as floats (exact): p itself, or widened into tmp. */
const float *widen(cudnnDataType_t t, const void *p, size_t n, std::vector<float> &tmp)
{
    if (t == CUDNN_DATA_FLOAT) return static_cast<const float *>(p);
    const uint16_t *h = static_cast<const uint16_t *>(p);
    const bool bf = t == CUDNN_DATA_BFLOAT16;
    tmp.resize(n);
    for (size_t i = 0; i < n; ++i)
        tmp[i] = h16_decode(h[i], bf ? 8 : 5, bf ? 7 : 10, bf);
    return tmp.data();
}
double get(cudnnDataType_t t, const void *p, size_t i)
{
    if (t == CUDNN_DATA_FLOAT) return static_cast<const float *>(p)[i];
    const bool bf = t == CUDNN_DATA_BFLOAT16;
    return h16_decode(static_cast<const uint16_t *>(p)[i], bf ? 8 : 5, bf ? 7 : 10, bf);
}
/* Element i of type t at p = v, rounded once. */
void put(cudnnDataType_t t, void *p, size_t i, double v)
{
    if (t == CUDNN_DATA_FLOAT) {
        static_cast<float *>(p)[i] = float(v);
        return;
    }
    const bool bf = t == CUDNN_DATA_BFLOAT16;
    static_cast<uint16_t *>(p)[i] = h16_encode(v, bf ? 8 : 5, bf ? 7 : 10, H16_R_RN);
}

/* One problem, from the three descriptors of a call, checked for consistency;
 * t the element type of all three. */
struct Conv {
    int N, C, H, W, K, R, S, P, Q, ph, pw, sh, sw;
    cudnnDataType_t t;
};

int out_dim(int in, int f, int pad, int stride) { return (in + 2 * pad - f) / stride + 1; }

cudnnStatus_t make_conv(const cudnnTensorStruct *x, const cudnnFilterStruct *w,
                        const cudnnConvolutionStruct *cv, const cudnnTensorStruct *y, Conv *out)
{
    if (!live(x) || !live(w) || !live(cv) || !live(y)) return CUDNN_STATUS_BAD_PARAM;
    if (!x->set || !w->set || !cv->set || !y->set) return CUDNN_STATUS_BAD_PARAM;
    if (x->type != w->type || y->type != x->type) {
        report("cuDNN convolution: x, w and y of types %s, %s, %s: mixed types are not "
               "emulated (one of FLOAT, HALF, BFLOAT16 for all three, compute type FLOAT)",
               type_name(x->type), type_name(w->type), type_name(y->type));
        return CUDNN_STATUS_NOT_SUPPORTED;
    }
    if (x->c != w->c || y->n != x->n || y->c != w->k) return CUDNN_STATUS_BAD_PARAM_SHAPE_MISMATCH;
    if (x->h + 2 * cv->ph < w->r || x->w + 2 * cv->pw < w->s) return CUDNN_STATUS_BAD_PARAM;
    Conv c{x->n, x->c, x->h, x->w, w->k, w->r, w->s, out_dim(x->h, w->r, cv->ph, cv->sh),
           out_dim(x->w, w->s, cv->pw, cv->sw), cv->ph, cv->pw, cv->sh, cv->sw, x->type};
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

/* out[i] = alpha * v[i] + beta * out[i] of type t, rounded once, never
 * reading out when beta == 0. */
void blend(cudnnDataType_t t, void *out, const std::vector<double> &v, float alpha, float beta)
{
    for (size_t i = 0; i < v.size(); ++i)
        put(t, out, i, alpha * v[i] + (beta == 0.0f ? 0.0 : double(beta) * get(t, out, i)));
}

void host_fwd(const Conv &c, const float *x, const float *w, float alpha, float beta, void *y)
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
    blend(c.t, y, acc, alpha, beta);
}

/* Does the emulator offer WINOGRAD_NONFUSED for c? 16-bit data, 3x3 filters,
 * stride 1 (the shapes cuDNN's Winograd kernels take). */
bool winograd_ok(const Conv &c)
{
    return c.t != CUDNN_DATA_FLOAT && c.R == 3 && c.S == 3 && c.sh == 1 && c.sw == 1;
}

/* The forward pass as Winograd F(2x2, 3x3) runs it in 16 bits: each filter
 * transformed (U = G g G^T, 4x4) and each 4x4 input tile transformed
 * (V = B^T d B) are rounded to the data type t before their products are
 * summed over the channels (in double here) and transformed back
 * (Y = A^T M A, 2x2 outputs); y rounded once. The transformed operands'
 * rounding is the error a GEMM-like conv does not have. */
void host_fwd_winograd(const Conv &c, const float *x, const float *w, float alpha, float beta,
                       void *y)
{
    static const double G[4][3] = {{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}};
    static const double BT[4][4] = {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}};
    static const double AT[2][4] = {{1, 1, 1, 0}, {0, 1, -1, -1}};
    const bool bf = c.t == CUDNN_DATA_BFLOAT16;
    auto r16 = [bf](double v) {
        return double(h16_decode(h16_encode(v, bf ? 8 : 5, bf ? 7 : 10, H16_R_RN), bf ? 8 : 5,
                                 bf ? 7 : 10, bf));
    };
    std::vector<double> U(size_t(c.K) * c.C * 16);
    for (int k = 0; k < c.K; ++k)
        for (int ch = 0; ch < c.C; ++ch) {
            const float *g = w + (size_t(k) * c.C + ch) * 9;
            double Gg[4][3];
            for (int i = 0; i < 4; ++i)
                for (int j = 0; j < 3; ++j)
                    Gg[i][j] = G[i][0] * g[j] + G[i][1] * g[3 + j] + G[i][2] * g[6 + j];
            for (int i = 0; i < 4; ++i)
                for (int j = 0; j < 4; ++j)
                    U[(size_t(k) * c.C + ch) * 16 + i * 4 + j] =
                        r16(Gg[i][0] * G[j][0] + Gg[i][1] * G[j][1] + Gg[i][2] * G[j][2]);
        }
    std::vector<double> acc(size_t(c.N) * c.K * c.P * c.Q, 0.0), V(size_t(c.C) * 16);
    for (int n = 0; n < c.N; ++n)
        for (int p0 = 0; p0 < c.P; p0 += 2)
            for (int q0 = 0; q0 < c.Q; q0 += 2) {
                for (int ch = 0; ch < c.C; ++ch) {
                    const float *xc = x + (size_t(n) * c.C + ch) * c.H * c.W;
                    double d[4][4], Bd[4][4];
                    for (int i = 0; i < 4; ++i)
                        for (int j = 0; j < 4; ++j) {
                            const int h = p0 - c.ph + i, ww = q0 - c.pw + j;
                            d[i][j] = h >= 0 && h < c.H && ww >= 0 && ww < c.W ? xc[h * c.W + ww] : 0.0;
                        }
                    for (int i = 0; i < 4; ++i)
                        for (int j = 0; j < 4; ++j)
                            Bd[i][j] = BT[i][0] * d[0][j] + BT[i][1] * d[1][j] + BT[i][2] * d[2][j] +
                                       BT[i][3] * d[3][j];
                    for (int i = 0; i < 4; ++i)
                        for (int j = 0; j < 4; ++j)
                            V[size_t(ch) * 16 + i * 4 + j] =
                                r16(Bd[i][0] * BT[j][0] + Bd[i][1] * BT[j][1] + Bd[i][2] * BT[j][2] +
                                    Bd[i][3] * BT[j][3]);
                }
                for (int k = 0; k < c.K; ++k) {
                    double M[4][4] = {}, AM[2][4];
                    for (int ch = 0; ch < c.C; ++ch)
                        for (int e = 0; e < 16; ++e)
                            M[e / 4][e % 4] += U[(size_t(k) * c.C + ch) * 16 + e] * V[size_t(ch) * 16 + e];
                    for (int i = 0; i < 2; ++i)
                        for (int j = 0; j < 4; ++j)
                            AM[i][j] = AT[i][0] * M[0][j] + AT[i][1] * M[1][j] + AT[i][2] * M[2][j] +
                                       AT[i][3] * M[3][j];
                    double *a = &acc[(size_t(n) * c.K + k) * c.P * c.Q];
                    for (int i = 0; i < 2 && p0 + i < c.P; ++i)
                        for (int j = 0; j < 2 && q0 + j < c.Q; ++j)
                            a[(p0 + i) * c.Q + q0 + j] = AM[i][0] * AT[j][0] + AM[i][1] * AT[j][1] +
                                                         AM[i][2] * AT[j][2] + AM[i][3] * AT[j][3];
                }
            }
    blend(c.t, y, acc, alpha, beta);
}

void host_bwd_data(const Conv &c, const float *w, const float *dy, float alpha, float beta,
                   void *dx)
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
    blend(c.t, dx, acc, alpha, beta);
}

void host_bwd_filter(const Conv &c, const float *x, const float *dy, float alpha, float beta,
                     void *dw)
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
    blend(c.t, dw, acc, alpha, beta);
}

/* The forward pass's reduction split (the emulator's rule, standing for the
 * split-K kernels cuDNN picks when an output has few tiles): an output of
 * fewer than 4 tiles of 128 x 128 (N*P*Q * K < 65536) over a reduction of
 * C*R*S >= 64 is computed in 8 slices, whose fp32 partials take
 * 8 * N*K*P*Q * 4 bytes of workspace; 1: no split. So a smaller batch can
 * need more workspace than a larger one. */
int fwd_splits(const Conv &c)
{
    const double out = double(c.N) * c.P * c.Q * c.K;
    return out < 65536.0 && long(c.C) * c.R * c.S >= 64 ? 8 : 1;
}
size_t fwd_ws(const Conv &c, int algo)
{
    if (algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED) /* U and V, 16 per 2x2 tile */
        return (size_t(c.K) * c.C + size_t(c.N) * c.C * ((c.P + 1) / 2) * ((c.Q + 1) / 2)) * 16 *
               type_size(c.t);
    if (algo != CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM) return 0;
    const size_t index = (size_t(c.C) * c.R * c.S + 1) * 8; /* cuDNN's index table */
    const int splits = fwd_splits(c);
    return index + (splits > 1 ? size_t(splits) * c.N * c.K * c.P * c.Q * 4 : 0);
}
size_t bwd_filter_ws(const Conv &c, int algo)
{
    return algo == CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1 ? size_t(c.K) * c.C * c.R * c.S * 4 : 0;
}
bool fwd_algo_ok(const Conv &c, int a)
{
    return a == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM ||
           a == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM ||
           (a == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED && winograd_ok(c));
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
                         std::function<size_t(int)> ws, cudnnMathType_t math,
                         cudnnDataType_t t)
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
        /* tensor ops for 16-bit data where allowed; fp32 data runs FMA */
        if (t != CUDNN_DATA_FLOAT)
            p.mathType = math == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION ? CUDNN_TENSOR_OP_MATH : math;
        else
            p.mathType = math == CUDNN_TENSOR_OP_MATH ? CUDNN_FMA_MATH : math;
        perf[n++] = p;
    }
    *got = n;
    return CUDNN_STATUS_SUCCESS;
}

/* cudnnAddTensor and cudnnConvolutionBackwardBias refuse bf16 operands
 * (CUDNN_STATUS_NOT_SUPPORTED), as some cuDNN versions do: a choice, so that
 * callers' fallback is exercised. */
bool bias_bf16_refused(cudnnDataType_t a, cudnnDataType_t b)
{
    return a == CUDNN_DATA_BFLOAT16 || b == CUDNN_DATA_BFLOAT16;
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
    if (format != CUDNN_TENSOR_NCHW || !data_type_ok(type)) return CUDNN_STATUS_NOT_SUPPORTED;
    *d = cudnnTensorStruct{true, n, c, h, w, type};
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetFilter4dDescriptor(cudnnFilterDescriptor_t d, cudnnDataType_t type,
                                         cudnnTensorFormat_t format, int k, int c, int h, int w)
{
    CUDAEMU_LOCK;
    if (!live(d)) return CUDNN_STATUS_BAD_PARAM;
    if (k < 1 || c < 1 || h < 1 || w < 1) return CUDNN_STATUS_BAD_PARAM;
    if (format != CUDNN_TENSOR_NCHW || !data_type_ok(type)) return CUDNN_STATUS_NOT_SUPPORTED;
    *d = cudnnFilterStruct{true, k, c, h, w, type};
    return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnSetConvolution2dDescriptor(cudnnConvolutionDescriptor_t d, int ph, int pw,
                                              int u, int v, int dh, int dw,
                                              cudnnConvolutionMode_t mode, cudnnDataType_t type)
{
    CUDAEMU_LOCK;
    if (!live(d)) return CUDNN_STATUS_BAD_PARAM;
    if (ph < 0 || pw < 0 || u < 1 || v < 1 || dh < 1 || dw < 1) return CUDNN_STATUS_BAD_PARAM;
    if (dh != 1 || dw != 1 || mode != CUDNN_CROSS_CORRELATION) return CUDNN_STATUS_NOT_SUPPORTED;
    if (type != CUDNN_DATA_FLOAT) {
        report("cudnnSetConvolution2dDescriptor: compute type %s is not emulated (FLOAT only: "
               "fp32 accumulation for FLOAT, HALF and BFLOAT16 data)", type_name(type));
        return CUDNN_STATUS_NOT_SUPPORTED;
    }
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
    if (winograd_ok(c))
        return heuristics(want, got, perf,
                          {CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED,
                           CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
                           CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM},
                          [c](int a) { return fwd_ws(c, a); }, cv->math, c.t);
    return heuristics(want, got, perf,
                      {CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM,
                       CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM},
                      [c](int a) { return fwd_ws(c, a); }, cv->math, c.t);
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
                      [](int) { return size_t(0); }, cv->math, c.t);
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
                      [c](int a) { return bwd_filter_ws(c, a); }, cv->math, c.t);
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
    if (!fwd_algo_ok(c, algo)) return CUDNN_STATUS_NOT_SUPPORTED;
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
    if (!fwd_algo_ok(c, algo)) return CUDNN_STATUS_NOT_SUPPORTED;
    const size_t need = fwd_ws(c, algo);
    if (ws_bytes < need || (need && !ws)) return CUDNN_STATUS_BAD_PARAM;
    const float a = *static_cast<const float *>(alpha), b = *static_cast<const float *>(beta);
    const size_t es = type_size(c.t), nx = elems(xd), nw = size_t(c.K) * c.C * c.R * c.S;
    return queue(h, "cudnnConvolutionForward",
                 {{"x", x, nx * es}, {"w", w, nw * es}, {"y", y, elems(yd) * es},
                  {"workSpace", ws, need}},
                 [=]() {
                     std::vector<float> tx, tw;
                     if (algo == CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED)
                         host_fwd_winograd(c, widen(c.t, x, nx, tx), widen(c.t, w, nw, tw), a, b, y);
                     else
                         host_fwd(c, widen(c.t, x, nx, tx), widen(c.t, w, nw, tw), a, b, y);
                 });
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
    const size_t es = type_size(c.t), nw = size_t(c.K) * c.C * c.R * c.S, ny = elems(dyd);
    return queue(h, "cudnnConvolutionBackwardData",
                 {{"w", w, nw * es}, {"dy", dy, ny * es}, {"dx", dx, elems(dxd) * es}},
                 [=]() {
                     std::vector<float> tw, ty;
                     host_bwd_data(c, widen(c.t, w, nw, tw), widen(c.t, dy, ny, ty), a, b, dx);
                 });
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
    const size_t es = type_size(c.t), nx = elems(xd), ny = elems(dyd);
    return queue(h, "cudnnConvolutionBackwardFilter",
                 {{"x", x, nx * es}, {"dy", dy, ny * es},
                  {"dw", dw, size_t(c.K) * c.C * c.R * c.S * es}, {"workSpace", ws, need}},
                 [=]() {
                     std::vector<float> tx, ty;
                     host_bwd_filter(c, widen(c.t, x, nx, tx), widen(c.t, dy, ny, ty), a, b, dw);
                 });
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
    if (bias_bf16_refused(dyd->type, dbd->type)) return CUDNN_STATUS_NOT_SUPPORTED;
    if (dbd->type != dyd->type) {
        report("cudnnConvolutionBackwardBias: dy of %s, db of %s: mixed types are not emulated",
               type_name(dyd->type), type_name(dbd->type));
        return CUDNN_STATUS_NOT_SUPPORTED;
    }
    const cudnnTensorStruct g = *dyd;
    const float a = *static_cast<const float *>(alpha), b = *static_cast<const float *>(beta);
    const size_t es = type_size(g.type);
    return queue(h, "cudnnConvolutionBackwardBias",
                 {{"dy", dy, elems(dyd) * es}, {"db", db, size_t(g.c) * es}}, [=]() {
                     std::vector<double> acc(size_t(g.c), 0.0);
                     const size_t plane = size_t(g.h) * g.w;
                     for (int n = 0; n < g.n; ++n)
                         for (int k = 0; k < g.c; ++k)
                             for (size_t i = 0; i < plane; ++i)
                                 acc[k] += get(g.type, dy, (size_t(n) * g.c + k) * plane + i);
                     blend(g.type, db, acc, a, b);
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
    if (bias_bf16_refused(ad->type, cd->type)) return CUDNN_STATUS_NOT_SUPPORTED;
    if (ad->type != cd->type) {
        report("cudnnAddTensor: A of %s, C of %s: mixed types are not emulated",
               type_name(ad->type), type_name(cd->type));
        return CUDNN_STATUS_NOT_SUPPORTED;
    }
    const cudnnTensorStruct t = *cd;
    const float a = *static_cast<const float *>(alpha), b = *static_cast<const float *>(beta);
    const size_t es = type_size(t.type);
    return queue(h, "cudnnAddTensor", {{"A", A, elems(ad) * es}, {"C", C, elems(cd) * es}}, [=]() {
        const size_t plane = size_t(t.h) * t.w, total = size_t(t.n) * t.c * plane;
        for (size_t i = 0; i < total; ++i) {
            const double v = get(t.type, A, same ? i : (i / plane) % size_t(t.c));
            /* fp32 as before (a float expression); 16-bit: from double, rounded once */
            if (t.type == CUDNN_DATA_FLOAT)
                static_cast<float *>(C)[i] =
                    a * float(v) + (b == 0.0f ? 0.0f : b * static_cast<float *>(C)[i]);
            else
                put(t.type, C, i, a * v + (b == 0.0f ? 0.0 : double(b) * get(t.type, C, i)));
        }
    });
}

} // inline namespace cudaemu_api
