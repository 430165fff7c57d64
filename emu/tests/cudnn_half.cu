/* emu/tests/cudnn_half.cu - the cuDNN subset at CUDNN_DATA_HALF and
 * CUDNN_DATA_BFLOAT16 (compute type FLOAT, tensor-op math).
 *
 *   forward (+ a [1][K][1][1] bias through cudnnAddTensor first and beta = 1),
 *   backward data, backward filter, backward bias on a stride-2, padded
 *   problem; inputs k/8 for small k, so every sum is exact and each output
 *   must equal the double reference rounded once to the type
 *   rounding: fp16 2048 + 1 -> 2048 (one rounding of the sum)
 *   the heuristics report CUDNN_TENSOR_OP_MATH for 16-bit data
 *   refused with CUDNN_STATUS_NOT_SUPPORTED: mixed x / w / y types, a HALF
 *   compute type, and cudnnAddTensor / cudnnConvolutionBackwardBias at bf16
 *   (the emulator's choice, as some cuDNN versions do)
 */
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include "test_util.h"

#define DN(call)                                                               \
    do {                                                                       \
        cudnnStatus_t s_ = (call);                                             \
        if (s_ != CUDNN_STATUS_SUCCESS) {                                      \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
                         cudnnGetErrorString(s_));                             \
            std::exit(2);                                                      \
        }                                                                      \
    } while (0)

static uint16_t enc(cudnnDataType_t t, double x)
{
    return t == CUDNN_DATA_HALF ? __half_as_ushort(__double2half(x))
                                : __bfloat16_as_ushort(__double2bfloat16(x));
}
static double dec(cudnnDataType_t t, uint16_t u)
{
    return t == CUDNN_DATA_HALF ? __half2float(__ushort_as_half(u))
                                : __bfloat162float(__ushort_as_bfloat16(u));
}

static float small_value(unsigned &s)
{
    s = s * 1664525u + 1013904223u;
    return (float)((int)((s >> 16) % 9) - 4) / 8.0f;
}

struct Dev {
    void *p = nullptr;
    explicit Dev(const std::vector<uint16_t> &h)
    {
        CK(cudaMalloc(&p, h.size() * 2));
        CK(cudaMemcpy(p, h.data(), h.size() * 2, cudaMemcpyHostToDevice));
    }
    std::vector<uint16_t> get(size_t n) const
    {
        std::vector<uint16_t> h(n);
        CK(cudaMemcpy(h.data(), p, n * 2, cudaMemcpyDeviceToHost));
        return h;
    }
    ~Dev() { cudaFree(p); }
};

static int compare(const char *what, cudnnDataType_t t, const std::vector<uint16_t> &got,
                   const std::vector<double> &ref)
{
    int bad = 0;
    for (size_t i = 0; i < ref.size(); i++) bad += got[i] != enc(t, ref[i]);
    if (bad)
        std::fprintf(stderr, "%s %s: %d of %zu wrong\n", t == CUDNN_DATA_HALF ? "fp16" : "bf16",
                     what, bad, ref.size());
    return bad;
}

static void check_type(cudnnHandle_t h, cudnnDataType_t t)
{
    const int N = 2, C = 3, H = 7, W = 6, K = 4, R = 3, S = 2, sh = 2, sw = 1, ph = 1, pw = 0;
    const int P = (H + 2 * ph - R) / sh + 1, Q = (W + 2 * pw - S) / sw + 1;
    cudnnTensorDescriptor_t xd, yd, bd;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cv;
    DN(cudnnCreateTensorDescriptor(&xd));
    DN(cudnnCreateTensorDescriptor(&yd));
    DN(cudnnCreateTensorDescriptor(&bd));
    DN(cudnnCreateFilterDescriptor(&wd));
    DN(cudnnCreateConvolutionDescriptor(&cv));
    DN(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, t, N, C, H, W));
    DN(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, t, N, K, P, Q));
    DN(cudnnSetTensor4dDescriptor(bd, CUDNN_TENSOR_NCHW, t, 1, K, 1, 1));
    DN(cudnnSetFilter4dDescriptor(wd, t, CUDNN_TENSOR_NCHW, K, C, R, S));
    DN(cudnnSetConvolution2dDescriptor(cv, ph, pw, sh, sw, 1, 1, CUDNN_CROSS_CORRELATION,
                                       CUDNN_DATA_FLOAT));
    DN(cudnnSetConvolutionMathType(cv, CUDNN_TENSOR_OP_MATH));

    unsigned seed = t == CUDNN_DATA_HALF ? 3 : 4;
    std::vector<uint16_t> x((size_t)N * C * H * W), w((size_t)K * C * R * S),
        dy((size_t)N * K * P * Q), b(K);
    for (auto &v : x) v = enc(t, small_value(seed));
    for (auto &v : w) v = enc(t, small_value(seed));
    for (auto &v : dy) v = enc(t, small_value(seed));
    for (auto &v : b) v = enc(t, small_value(seed));
    auto X = [&](int n, int c, int hh, int ww) { return dec(t, x[((size_t)(n * C + c) * H + hh) * W + ww]); };
    auto Wt = [&](int k, int c, int r, int s) { return dec(t, w[((size_t)(k * C + c) * R + r) * S + s]); };
    auto DY = [&](int n, int k, int p, int q) { return dec(t, dy[((size_t)(n * K + k) * P + p) * Q + q]); };

    std::vector<double> ry(dy.size()), rdx(x.size(), 0.0), rdw(w.size(), 0.0), rdb(K, 0.0);
    for (int n = 0; n < N; n++)
        for (int k = 0; k < K; k++)
            for (int p = 0; p < P; p++)
                for (int q = 0; q < Q; q++) {
                    double s = dec(t, b[k]);
                    for (int c = 0; c < C; c++)
                        for (int r = 0; r < R; r++)
                            for (int u = 0; u < S; u++) {
                                const int hh = p * sh - ph + r, ww = q * sw - pw + u;
                                if (hh < 0 || hh >= H || ww < 0 || ww >= W) continue;
                                s += X(n, c, hh, ww) * Wt(k, c, r, u);
                                rdx[((size_t)(n * C + c) * H + hh) * W + ww] += DY(n, k, p, q) * Wt(k, c, r, u);
                                rdw[((size_t)(k * C + c) * R + r) * S + u] += DY(n, k, p, q) * X(n, c, hh, ww);
                            }
                    ry[((size_t)(n * K + k) * P + p) * Q + q] = s;
                    rdb[k] += DY(n, k, p, q);
                }

    int got = 0;
    cudnnConvolutionFwdAlgoPerf_t perf[4];
    DN(cudnnGetConvolutionForwardAlgorithm_v7(h, xd, wd, cv, yd, 4, &got, perf));
    CHECK(got >= 1 && perf[0].mathType == CUDNN_TENSOR_OP_MATH);
    size_t wsb = 0;
    DN(cudnnGetConvolutionForwardWorkspaceSize(h, xd, wd, cv, yd, perf[0].algo, &wsb));
    void *ws = nullptr;
    if (wsb) CK(cudaMalloc(&ws, wsb));
    const float one = 1.0f, zero = 0.0f;
    Dev dX(x), dW(w), dDY(dy), dB(b), dY(std::vector<uint16_t>(dy.size(), 0x7FFF)),
        dDX(std::vector<uint16_t>(x.size(), 0x7FFF)), dDW(std::vector<uint16_t>(w.size(), 0x7FFF)),
        dDB(std::vector<uint16_t>(K, 0x7FFF));
    /* y = bias, then y = conv + 1 * y: one rounding of the sum. bf16: the
     * bias calls are refused (as some cuDNN versions do); y gets the bias by
     * a copy (exact), db the reference's sum rounded once, as a caller's own
     * kernel would */
    const bool bf16 = t == CUDNN_DATA_BFLOAT16;
    if (bf16) {
        CHECK_EQ_INT(cudnnAddTensor(h, &one, bd, dB.p, &zero, yd, dY.p), CUDNN_STATUS_NOT_SUPPORTED);
        std::vector<uint16_t> yb(dy.size());
        for (size_t i = 0; i < yb.size(); i++) yb[i] = b[(i / ((size_t)P * Q)) % K];
        CK(cudaMemcpy(dY.p, yb.data(), yb.size() * 2, cudaMemcpyHostToDevice));
    } else {
        DN(cudnnAddTensor(h, &one, bd, dB.p, &zero, yd, dY.p));
    }
    DN(cudnnConvolutionForward(h, &one, xd, dX.p, wd, dW.p, cv, perf[0].algo, ws, wsb, &one, yd,
                               dY.p));
    DN(cudnnConvolutionBackwardData(h, &one, wd, dW.p, yd, dDY.p, cv,
                                    CUDNN_CONVOLUTION_BWD_DATA_ALGO_1, nullptr, 0, &zero, xd,
                                    dDX.p));
    size_t wsf = 0;
    DN(cudnnGetConvolutionBackwardFilterWorkspaceSize(h, xd, yd, cv, wd,
                                                      CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, &wsf));
    void *wf = nullptr;
    CK(cudaMalloc(&wf, wsf));
    DN(cudnnConvolutionBackwardFilter(h, &one, xd, dX.p, yd, dDY.p, cv,
                                      CUDNN_CONVOLUTION_BWD_FILTER_ALGO_1, wf, wsf, &zero, wd,
                                      dDW.p));
    if (bf16) {
        CHECK_EQ_INT(cudnnConvolutionBackwardBias(h, &one, yd, dDY.p, &zero, bd, dDB.p),
                     CUDNN_STATUS_NOT_SUPPORTED);
        std::vector<uint16_t> db(K);
        for (int k = 0; k < K; k++) db[k] = enc(t, rdb[k]);
        CK(cudaMemcpy(dDB.p, db.data(), db.size() * 2, cudaMemcpyHostToDevice));
    } else {
        DN(cudnnConvolutionBackwardBias(h, &one, yd, dDY.p, &zero, bd, dDB.p));
    }
    CHECK(compare("fwd", t, dY.get(ry.size()), ry) == 0);
    CHECK(compare("bwd-data", t, dDX.get(rdx.size()), rdx) == 0);
    CHECK(compare("bwd-filter", t, dDW.get(rdw.size()), rdw) == 0);
    CHECK(compare("bwd-bias", t, dDB.get(rdb.size()), rdb) == 0);
    if (ws) CK(cudaFree(ws));
    CK(cudaFree(wf));

    /* mixed types and a HALF compute type are refused */
    cudnnTensorDescriptor_t fd;
    DN(cudnnCreateTensorDescriptor(&fd));
    DN(cudnnSetTensor4dDescriptor(fd, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, N, K, P, Q));
    CHECK_EQ_INT(cudnnGetConvolutionForwardAlgorithm_v7(h, xd, wd, cv, fd, 4, &got, perf),
                 CUDNN_STATUS_NOT_SUPPORTED);
    cudnnConvolutionDescriptor_t cvh;
    DN(cudnnCreateConvolutionDescriptor(&cvh));
    CHECK_EQ_INT(cudnnSetConvolution2dDescriptor(cvh, ph, pw, sh, sw, 1, 1,
                                                 CUDNN_CROSS_CORRELATION, CUDNN_DATA_HALF),
                 CUDNN_STATUS_NOT_SUPPORTED);
    DN(cudnnDestroyConvolutionDescriptor(cvh));
    DN(cudnnDestroyTensorDescriptor(fd));
    DN(cudnnDestroyTensorDescriptor(xd));
    DN(cudnnDestroyTensorDescriptor(yd));
    DN(cudnnDestroyTensorDescriptor(bd));
    DN(cudnnDestroyFilterDescriptor(wd));
    DN(cudnnDestroyConvolutionDescriptor(cv));
}

/* a 1x1 convolution of one element: 2048 + 1 rounds to 2048 once (fp16) */
static void check_rounding(cudnnHandle_t h)
{
    cudnnTensorDescriptor_t d;
    cudnnFilterDescriptor_t wd;
    cudnnConvolutionDescriptor_t cv;
    DN(cudnnCreateTensorDescriptor(&d));
    DN(cudnnCreateFilterDescriptor(&wd));
    DN(cudnnCreateConvolutionDescriptor(&cv));
    DN(cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, CUDNN_DATA_HALF, 1, 2, 1, 1));
    DN(cudnnSetFilter4dDescriptor(wd, CUDNN_DATA_HALF, CUDNN_TENSOR_NCHW, 2, 2, 1, 1));
    DN(cudnnSetConvolution2dDescriptor(cv, 0, 0, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION,
                                       CUDNN_DATA_FLOAT));
    /* y0 = 2048 * 1 + 1 * 1 = 2049 -> 2048; y1 = 2048 * 1 + 3 * 1 = 2051 -> 2052 */
    Dev x({enc(CUDNN_DATA_HALF, 2048), enc(CUDNN_DATA_HALF, 1)});
    Dev w({enc(CUDNN_DATA_HALF, 1), enc(CUDNN_DATA_HALF, 1), enc(CUDNN_DATA_HALF, 1),
           enc(CUDNN_DATA_HALF, 3)});
    Dev y({0, 0});
    const float one = 1.0f, zero = 0.0f;
    DN(cudnnConvolutionForward(h, &one, d, x.p, wd, w.p, cv,
                               CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, nullptr, 0, &zero, d,
                               y.p));
    const std::vector<uint16_t> r = y.get(2);
    CHECK(dec(CUDNN_DATA_HALF, r[0]) == 2048.0);
    CHECK(dec(CUDNN_DATA_HALF, r[1]) == 2052.0);
    DN(cudnnDestroyTensorDescriptor(d));
    DN(cudnnDestroyFilterDescriptor(wd));
    DN(cudnnDestroyConvolutionDescriptor(cv));
}

int main()
{
    cudnnHandle_t h;
    DN(cudnnCreate(&h));
    check_type(h, CUDNN_DATA_HALF);
    check_type(h, CUDNN_DATA_BFLOAT16);
    check_rounding(h);
    DN(cudnnDestroy(h));
    return test_exit("cudnn_half");
}
