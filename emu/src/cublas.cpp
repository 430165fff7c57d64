/* emu/src/cublas.cpp - the cuBLAS subset of the CUDA host emulator, on OpenBLAS.
 *
 * Arguments are checked as cuBLAS checks them (negative sizes, leading
 * dimensions below max(1, rows), unknown operations: CUBLAS_STATUS_INVALID_VALUE;
 * a null handle: CUBLAS_STATUS_NOT_INITIALIZED); the operation is then queued
 * on the handle's stream and runs when that stream is drained, column-major as
 * cuBLAS.  Host-pointer-mode scalars are read at call time, device-pointer-mode
 * ones when the operation runs; results returned to host memory (dot, nrm2)
 * make the call blocking, as in cuBLAS.  An operand that is not device (or
 * pinned) memory makes the operation fail when it runs, with a message and
 * the sticky cudaErrorIllegalAddress a GPU would give.  TF32 compute
 * (CUBLAS_COMPUTE_32F_FAST_TF32 or CUBLAS_TF32_TENSOR_OP_MATH) rounds A and B
 * to a 10-bit mantissa (round to nearest even) in scratch copies first.
 * cublasGemmEx also takes fp16 and bf16 A and B (C of their type or fp32)
 * with CUBLAS_COMPUTE_32F: widened to float (exact), the same fp32 GEMM, a
 * 16-bit C rounded once (nearest even) -- except where cuBLAS may split the
 * reduction and sum the partials in the 16-bit output type (the handle's
 * math mode without CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION, a
 * shape split_k splits): then so does the emulator; other type combinations
 * are one `cudaemu:` line and CUBLAS_STATUS_NOT_SUPPORTED.
 */
#include "internal.h"

#include <cublas_v2.h>
#include <cblas.h>

#include "cudaemu/half_round.h"

#include <cmath>
#include <cstring>
#include <set>

struct cublasContext {
    int device = 0;
    cudaStream_t stream = nullptr;
    cublasPointerMode_t pmode = CUBLAS_POINTER_MODE_HOST;
    cublasMath_t math = CUBLAS_DEFAULT_MATH;
};

namespace cudaemu {
namespace {

std::set<cublasContext *> &handles()
{
    static std::set<cublasContext *> *h = new std::set<cublasContext *>;
    return *h;
}

enum Rounding { Exact, TF32, BF16 };

float round_mantissa(float x, int drop)
{
    uint32_t u;
    std::memcpy(&u, &x, 4);
    if ((u & 0x7f800000u) == 0x7f800000u) return x; /* inf, nan */
    const uint32_t half = (1u << (drop - 1)) - 1;
    u += half + ((u >> drop) & 1u);
    u &= ~((1u << drop) - 1);
    std::memcpy(&x, &u, 4);
    return x;
}

size_t extent(int rows, int cols, int ld)
{
    if (rows <= 0 || cols <= 0) return 0;
    return size_t(cols - 1) * size_t(ld) + size_t(rows);
}

size_t vextent(int n, int inc)
{
    if (n <= 0) return 0;
    return size_t(n - 1) * size_t(inc < 0 ? -inc : inc) + 1;
}

using Operand = LibOperand;

/* Queues fn on the handle's stream, or a failure if an operand is not device memory. */
cublasStatus_t queue(cublasContext *h, const char *fname, std::initializer_list<Operand> ops,
                     std::function<void()> fn, bool blocking)
{
    if (!queue_library_call(h->device, h->stream, fname, ops, std::move(fn), blocking))
        return CUBLAS_STATUS_EXECUTION_FAILED;
    return dev(h->device).sticky ? CUBLAS_STATUS_EXECUTION_FAILED : CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t check_handle(cublasContext *h)
{
    if (!h || !handles().count(h)) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (usable() != cudaSuccess) return CUBLAS_STATUS_EXECUTION_FAILED;
    return CUBLAS_STATUS_SUCCESS;
}

bool valid_op(cublasOperation_t op)
{
    return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C;
}

CBLAS_TRANSPOSE cblas_op(cublasOperation_t op) { return op == CUBLAS_OP_N ? CblasNoTrans : CblasTrans; }

/* One column-major C = alpha op(A) op(B) + beta C on the host. */
void host_gemm(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, float alpha,
               const float *A, int lda, const float *B, int ldb, float beta, float *C, int ldc,
               Rounding rnd)
{
    if (m == 0 || n == 0) return;
    if (beta == 0.0f) {
        /* cuBLAS does not read C when beta is 0 (fresh memory may hold NaN). */
        for (int j = 0; j < n; ++j) std::memset(C + size_t(j) * size_t(ldc), 0, size_t(m) * 4);
    }
    if (k == 0 || alpha == 0.0f) {
        if (beta != 0.0f && beta != 1.0f)
            for (int j = 0; j < n; ++j)
                for (int i = 0; i < m; ++i) C[size_t(j) * size_t(ldc) + size_t(i)] *= beta;
        return;
    }
    std::vector<float> ra, rb;
    if (rnd != Exact) {
        const int drop = rnd == TF32 ? 13 : 16;
        size_t na = ta == CUBLAS_OP_N ? extent(m, k, lda) : extent(k, m, lda);
        size_t nb = tb == CUBLAS_OP_N ? extent(k, n, ldb) : extent(n, k, ldb);
        ra.resize(na);
        rb.resize(nb);
        for (size_t i = 0; i < na; ++i) ra[i] = round_mantissa(A[i], drop);
        for (size_t i = 0; i < nb; ++i) rb[i] = round_mantissa(B[i], drop);
        A = ra.data();
        B = rb.data();
    }
    cblas_sgemm(CblasColMajor, cblas_op(ta), cblas_op(tb), m, n, k, alpha, A, lda, B, ldb,
                beta, C, ldc);
}

cublasStatus_t gemm_args(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k,
                         int lda, int ldb, int ldc)
{
    if (!valid_op(ta) || !valid_op(tb)) return CUBLAS_STATUS_INVALID_VALUE;
    if (m < 0 || n < 0 || k < 0) return CUBLAS_STATUS_INVALID_VALUE;
    int arows = ta == CUBLAS_OP_N ? m : k, brows = tb == CUBLAS_OP_N ? k : n;
    if (lda < std::max(1, arows) || ldb < std::max(1, brows) || ldc < std::max(1, m))
        return CUBLAS_STATUS_INVALID_VALUE;
    return CUBLAS_STATUS_SUCCESS;
}

/* Reads a scalar now (host mode) or returns a reader for when the op runs. */
struct Scalar {
    float value = 0;
    const float *dptr = nullptr;
    float get() const { return dptr ? *dptr : value; }
};
Scalar scalar(cublasContext *h, const float *p)
{
    Scalar s;
    if (h->pmode == CUBLAS_POINTER_MODE_DEVICE) s.dptr = p;
    else s.value = *p;
    return s;
}

Rounding rounding_for(cublasContext *h, cublasComputeType_t ct)
{
    switch (ct) {
    case CUBLAS_COMPUTE_32F_FAST_TF32: return TF32;
    case CUBLAS_COMPUTE_32F_FAST_16F: return TF32;  /* a 10-bit mantissa, like half */
    case CUBLAS_COMPUTE_32F_FAST_16BF: return BF16;
    case CUBLAS_COMPUTE_32F_PEDANTIC: return Exact;
    default: return (h->math & 0xf) == CUBLAS_TF32_TENSOR_OP_MATH ? TF32 : Exact;
    }
}

/* The memory a batch of matrices of `one` elements of `size` bytes, `stride`
 * elements apart, covers: from the lowest matrix (the last one for a
 * negative stride) to the highest. */
Operand batch_operand(const char *name, const void *p, size_t one, long long stride, int batch,
                      size_t size)
{
    if (one == 0) return Operand{name, p, 0};
    const long long reach = (long long)(batch - 1) * stride;
    const char *lo = static_cast<const char *>(p) + (reach < 0 ? reach * (long long)size : 0);
    return Operand{name, lo, (size_t(reach < 0 ? -reach : reach) + one) * size};
}

cublasStatus_t strided(cublasContext *h, const char *fname, cublasOperation_t ta,
                       cublasOperation_t tb, int m, int n, int k, const float *alpha,
                       const float *A, int lda, long long sA, const float *B, int ldb,
                       long long sB, const float *beta, float *C, int ldc, long long sC,
                       int batch, Rounding rnd)
{
    if (cublasStatus_t s = gemm_args(ta, tb, m, n, k, lda, ldb, ldc)) return s;
    if (batch < 0 || !alpha || !beta) return CUBLAS_STATUS_INVALID_VALUE;
    if (m == 0 || n == 0 || batch == 0) return CUBLAS_STATUS_SUCCESS;
    Scalar al = scalar(h, alpha), be = scalar(h, beta);
    size_t ea = ta == CUBLAS_OP_N ? extent(m, k, lda) : extent(k, m, lda);
    size_t eb = tb == CUBLAS_OP_N ? extent(k, n, ldb) : extent(n, k, ldb);
    size_t ec = extent(m, n, ldc);
    return queue(h, fname,
                 {batch_operand("A", A, ea, sA, batch, 4), batch_operand("B", B, eb, sB, batch, 4),
                  batch_operand("C", C, ec, sC, batch, 4)},
                 [=]() {
                     float a = al.get(), b = be.get();
                     for (int i = 0; i < batch; ++i)
                         host_gemm(ta, tb, m, n, k, a, A + i * sA, lda, B + i * sB, ldb, b,
                                   C + i * sC, ldc, rnd);
                 },
                 false);
}

/* The 16-bit element formats of cublasGemmEx: (exponent, fraction bits). */
struct Fmt16 {
    int exp_bits = 0, man_bits = 0;
    float get(const uint16_t *p, size_t i) const
    {
        return h16_decode(p[i], exp_bits, man_bits, exp_bits == 8);
    }
    void set(uint16_t *p, size_t i, float x) const
    {
        p[i] = h16_encode(double(x), exp_bits, man_bits, H16_R_RN);
    }
};
const Fmt16 FP16{5, 10}, BF16_FMT{8, 7};

const char *data_type_name(cudaDataType t)
{
    switch (t) {
    case CUDA_R_16F: return "CUDA_R_16F";
    case CUDA_R_16BF: return "CUDA_R_16BF";
    case CUDA_R_32F: return "CUDA_R_32F";
    case CUDA_R_64F: return "CUDA_R_64F";
    case CUDA_R_8I: return "CUDA_R_8I";
    case CUDA_R_32I: return "CUDA_R_32I";
    default: return "another cudaDataType";
    }
}

const char *compute_type_name(cublasComputeType_t ct)
{
    switch (ct) {
    case CUBLAS_COMPUTE_16F: return "CUBLAS_COMPUTE_16F";
    case CUBLAS_COMPUTE_16F_PEDANTIC: return "CUBLAS_COMPUTE_16F_PEDANTIC";
    case CUBLAS_COMPUTE_32F: return "CUBLAS_COMPUTE_32F";
    case CUBLAS_COMPUTE_32F_PEDANTIC: return "CUBLAS_COMPUTE_32F_PEDANTIC";
    case CUBLAS_COMPUTE_32F_FAST_16F: return "CUBLAS_COMPUTE_32F_FAST_16F";
    case CUBLAS_COMPUTE_32F_FAST_16BF: return "CUBLAS_COMPUTE_32F_FAST_16BF";
    case CUBLAS_COMPUTE_32F_FAST_TF32: return "CUBLAS_COMPUTE_32F_FAST_TF32";
    case CUBLAS_COMPUTE_64F: return "CUBLAS_COMPUTE_64F";
    case CUBLAS_COMPUTE_32I: return "CUBLAS_COMPUTE_32I";
    default: return "another compute type";
    }
}

/* The emulator's split-K rule (cuBLAS's own heuristics are not public; this
 * one splits the shapes they are known to split): an m x n output of few
 * 128 x 128 tiles (fewer than the device's SMs) over a long reduction
 * (k >= 1024) is computed as `splits` partial products over consecutive
 * k-slices of ceil(k / splits), splits = min(ceil(SMs / tiles), k / 512).
 * 1: no split. */
int split_k(int m, int n, int k)
{
    if (k < 1024) return 1;
    const long long tiles = (long long)((m + 127) / 128) * ((n + 127) / 128);
    if (tiles >= kSmCount) return 1;
    const long long by_tiles = (kSmCount + tiles - 1) / tiles, by_k = k / 512;
    return int(by_tiles < by_k ? by_tiles : by_k);
}

/* May cuBLAS reduce in the output type? CUBLAS_COMPUTE_32F with the handle's
 * math mode lacking CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION
 * (PEDANTIC never does). */
bool reduced_reduction(const cublasContext *h, cublasComputeType_t ct)
{
    return ct == CUBLAS_COMPUTE_32F &&
           !(unsigned(h->math) & unsigned(CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION));
}

/* The split-K GEMM in the 16-bit output format cf, as cuBLAS may run it when
 * reduced-precision reduction is allowed: each slice's alpha op(A) op(B)
 * (fp32 accumulation) rounded to cf, the partials summed in order in cf
 * (each sum rounded), then beta C added and rounded once more. fa, fb: the
 * widened inputs; C written (m x n of it). */
void gemm_split16(cublasOperation_t ta, cublasOperation_t tb, int m, int n, int k, int splits,
                  float a, const float *fa, int lda, const float *fb, int ldb, float b, void *C,
                  int ldc, Fmt16 cf)
{
    const int slice = (k + splits - 1) / splits;
    std::vector<float> part(size_t(m) * n), acc(size_t(m) * n);
    uint16_t *c16 = static_cast<uint16_t *>(C);
    auto round16 = [&cf](float x) {
        uint16_t u;
        cf.set(&u, 0, x);
        return cf.get(&u, 0);
    };
    for (int k0 = 0, i = 0; k0 < k; k0 += slice, ++i) {
        const int kk = k - k0 < slice ? k - k0 : slice;
        /* the slice's columns of op(A) (m x k) and rows of op(B) (k x n) */
        const float *sa = ta == CUBLAS_OP_N ? fa + size_t(k0) * lda : fa + k0;
        const float *sb = tb == CUBLAS_OP_N ? fb + k0 : fb + size_t(k0) * ldb;
        host_gemm(ta, tb, m, n, kk, a, sa, lda, sb, ldb, 0.0f, part.data(), m, Exact);
        for (size_t e = 0; e < part.size(); ++e)
            acc[e] = i == 0 ? round16(part[e]) : round16(acc[e] + round16(part[e]));
    }
    for (int j = 0; j < n; ++j)
        for (int r = 0; r < m; ++r) {
            const size_t at = size_t(j) * size_t(ldc) + size_t(r);
            float v = acc[size_t(j) * m + r];
            if (b != 0.0f) v = round16(v + b * cf.get(c16, at));
            cf.set(c16, at, v);
        }
}

/* cublasGemmEx with 16-bit A and B of format f (fp32 compute ct), C of format
 * cf (16-bit) or fp32 (cf null): A, B and a read C widened to float (exact),
 * the fp32 GEMM of host_gemm, each element of a 16-bit C rounded once; or,
 * for a 16-bit C where reduced-precision reduction is allowed and split_k
 * splits the shape, gemm_split16. Only C's m x n elements are written (its
 * padding rows stay). */
cublasStatus_t gemm_ex16(cublasContext *h, const char *fname, cublasOperation_t ta,
                         cublasOperation_t tb, int m, int n, int k, const float *alpha,
                         const uint16_t *A0, int lda, long long sA, const uint16_t *B0, int ldb,
                         long long sB, const float *beta, void *C0, int ldc, long long sC,
                         int batch, Fmt16 f, const Fmt16 *cf, cublasComputeType_t ct)
{
    if (!alpha || !beta || batch < 0) return CUBLAS_STATUS_INVALID_VALUE;
    if (m == 0 || n == 0 || batch == 0) return CUBLAS_STATUS_SUCCESS;
    Scalar al = scalar(h, alpha), be = scalar(h, beta);
    const size_t ea = ta == CUBLAS_OP_N ? extent(m, k, lda) : extent(k, m, lda);
    const size_t eb = tb == CUBLAS_OP_N ? extent(k, n, ldb) : extent(n, k, ldb);
    const size_t ec = extent(m, n, ldc);
    const Fmt16 cfmt = cf ? *cf : Fmt16{};
    const bool c16 = cf != nullptr;
    const int splits = c16 && reduced_reduction(h, ct) ? split_k(m, n, k) : 1;
    const size_t csize = c16 ? 2 : 4;
    return queue(h, fname,
                 {batch_operand("A", A0, ea, sA, batch, 2), batch_operand("B", B0, eb, sB, batch, 2),
                  batch_operand("C", C0, ec, sC, batch, csize)},
                 [=]() {
                     const float a = al.get(), b = be.get();
                     for (int bi = 0; bi < batch; ++bi) { /* the matrices in order */
                     const uint16_t *A = A0 + bi * sA, *B = B0 + bi * sB;
                     void *C = static_cast<char *>(C0) + bi * sC * (long long)csize;
                     std::vector<float> fa(ea), fb(eb), fc;
                     for (size_t i = 0; i < ea; ++i) fa[i] = f.get(A, i);
                     for (size_t i = 0; i < eb; ++i) fb[i] = f.get(B, i);
                     if (splits > 1) {
                         gemm_split16(ta, tb, m, n, k, splits, a, fa.data(), lda, fb.data(), ldb,
                                      b, C, ldc, cfmt);
                         continue;
                     }
                     float *c = static_cast<float *>(C);
                     if (c16) {
                         fc.assign(ec, 0.0f);
                         if (b != 0.0f)
                             for (size_t i = 0; i < ec; ++i)
                                 fc[i] = cfmt.get(static_cast<const uint16_t *>(C), i);
                         c = fc.data();
                     }
                     host_gemm(ta, tb, m, n, k, a, fa.data(), lda, fb.data(), ldb, b, c, ldc,
                               Exact);
                     if (c16)
                         for (int j = 0; j < n; ++j)
                             for (int i = 0; i < m; ++i) {
                                 const size_t at = size_t(j) * size_t(ldc) + size_t(i);
                                 cfmt.set(static_cast<uint16_t *>(C), at, fc[at]);
                             }
                     }
                 },
                 false);
}

/* cublasGemmEx and cublasGemmStridedBatchedEx (batch matrices, each operand's
 * strides apart, computed in order). */
cublasStatus_t gemm_ex(cublasContext *h, const char *fname, cublasOperation_t ta,
                       cublasOperation_t tb, int m, int n, int k, const void *alpha, const void *A,
                       cudaDataType Atype, int lda, long long sA, const void *B, cudaDataType Btype,
                       int ldb, long long sB, const void *beta, void *C, cudaDataType Ctype, int ldc,
                       long long sC, int batch, cublasComputeType_t ct, cublasGemmAlgo_t algo)
{
    CUDAEMU_LOCK;
    if (cublasStatus_t s = check_handle(h)) return s;
    if (cublasStatus_t s = gemm_args(ta, tb, m, n, k, lda, ldb, ldc)) return s;
    if (!((algo >= CUBLAS_GEMM_DEFAULT && algo <= CUBLAS_GEMM_ALGO23) ||
          (algo >= CUBLAS_GEMM_DEFAULT_TENSOR_OP && algo <= CUBLAS_GEMM_ALGO15_TENSOR_OP)))
        return CUBLAS_STATUS_INVALID_VALUE;
    /* cuBLAS's table: fp32 data with any fp32 compute type; fp16 or bf16 A and
     * B, C of the same type or fp32, with CUBLAS_COMPUTE_32F(_PEDANTIC) */
    const bool c32 = ct == CUBLAS_COMPUTE_32F || ct == CUBLAS_COMPUTE_32F_PEDANTIC;
    const bool f32 = c32 || ct == CUBLAS_COMPUTE_32F_FAST_TF32 ||
                     ct == CUBLAS_COMPUTE_32F_FAST_16F || ct == CUBLAS_COMPUTE_32F_FAST_16BF;
    const bool half16 = Atype == CUDA_R_16F && Btype == CUDA_R_16F &&
                        (Ctype == CUDA_R_16F || Ctype == CUDA_R_32F);
    const bool bf16 = Atype == CUDA_R_16BF && Btype == CUDA_R_16BF &&
                      (Ctype == CUDA_R_16BF || Ctype == CUDA_R_32F);
    if (c32 && (half16 || bf16)) {
        const Fmt16 f = half16 ? FP16 : BF16_FMT;
        return gemm_ex16(h, fname, ta, tb, m, n, k, static_cast<const float *>(alpha),
                         static_cast<const uint16_t *>(A), lda, sA,
                         static_cast<const uint16_t *>(B), ldb, sB,
                         static_cast<const float *>(beta), C, ldc, sC, batch, f,
                         Ctype == CUDA_R_32F ? nullptr : &f, ct);
    }
    if (!f32 || Atype != CUDA_R_32F || Btype != CUDA_R_32F || Ctype != CUDA_R_32F) {
        report("%s: Atype %s, Btype %s, Ctype %s with %s is not emulated (fp32 data "
               "with a 32F compute type, or CUDA_R_16F / CUDA_R_16BF A and B with C of the same "
               "type or CUDA_R_32F and CUBLAS_COMPUTE_32F(_PEDANTIC), are)",
               fname, data_type_name(Atype), data_type_name(Btype), data_type_name(Ctype),
               compute_type_name(ct));
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    return strided(h, fname, ta, tb, m, n, k, static_cast<const float *>(alpha),
                   static_cast<const float *>(A), lda, sA, static_cast<const float *>(B), ldb, sB,
                   static_cast<const float *>(beta), static_cast<float *>(C), ldc, sC, batch,
                   rounding_for(h, ct));
}

} // namespace
} // namespace cudaemu

using namespace cudaemu;

inline namespace cudaemu_api {

const char *cublasGetStatusName(cublasStatus_t s)
{
    switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
    }
    return "CUBLAS_STATUS_UNKNOWN";
}

const char *cublasGetStatusString(cublasStatus_t s)
{
    switch (s) {
    case CUBLAS_STATUS_SUCCESS: return "success";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "the library was not initialized";
    case CUBLAS_STATUS_ALLOC_FAILED: return "the resource allocation failed";
    case CUBLAS_STATUS_INVALID_VALUE: return "an invalid numeric value was used as an argument";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "an absent device architectural feature is required";
    case CUBLAS_STATUS_MAPPING_ERROR: return "an access to GPU memory space failed";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "the GPU program failed to execute";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "an internal operation failed";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "the functionality requested is not supported";
    case CUBLAS_STATUS_LICENSE_ERROR: return "error detected trying to check the license";
    }
    return "unknown error";
}

cublasStatus_t cublasCreate(cublasHandle_t *handle)
{
    CUDAEMU_LOCK;
    if (!handle) return CUBLAS_STATUS_INVALID_VALUE;
    if (usable() != cudaSuccess) return CUBLAS_STATUS_NOT_INITIALIZED;
    cublasContext *h = new cublasContext;
    h->device = cur_dev();
    handles().insert(h);
    *handle = h;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasDestroy(cublasHandle_t h)
{
    CUDAEMU_LOCK;
    if (!h || !handles().count(h)) return CUBLAS_STATUS_NOT_INITIALIZED;
    sync_device(h->device); /* as cuBLAS: destroying a handle synchronizes */
    handles().erase(h);
    delete h;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetVersion(cublasHandle_t h, int *version)
{
    CUDAEMU_LOCK;
    if (!h || !handles().count(h)) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!version) return CUBLAS_STATUS_INVALID_VALUE;
    *version = CUBLAS_VERSION;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetStream(cublasHandle_t h, cudaStream_t s)
{
    CUDAEMU_LOCK;
    if (!h || !handles().count(h)) return CUBLAS_STATUS_NOT_INITIALIZED;
    h->stream = s;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetStream(cublasHandle_t h, cudaStream_t *s)
{
    CUDAEMU_LOCK;
    if (!h || !handles().count(h)) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!s) return CUBLAS_STATUS_INVALID_VALUE;
    *s = h->stream;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetMathMode(cublasHandle_t h, cublasMath_t mode)
{
    CUDAEMU_LOCK;
    if (!h || !handles().count(h)) return CUBLAS_STATUS_NOT_INITIALIZED;
    unsigned base = unsigned(mode) & 0xfu, flags = unsigned(mode) & ~0xfu;
    if ((base > 4 && base != 8) || (flags & ~unsigned(CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)))
        return CUBLAS_STATUS_INVALID_VALUE;
    h->math = mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetMathMode(cublasHandle_t h, cublasMath_t *mode)
{
    CUDAEMU_LOCK;
    if (!h || !handles().count(h)) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!mode) return CUBLAS_STATUS_INVALID_VALUE;
    *mode = h->math;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSetPointerMode(cublasHandle_t h, cublasPointerMode_t mode)
{
    CUDAEMU_LOCK;
    if (!h || !handles().count(h)) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (mode != CUBLAS_POINTER_MODE_HOST && mode != CUBLAS_POINTER_MODE_DEVICE)
        return CUBLAS_STATUS_INVALID_VALUE;
    h->pmode = mode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetPointerMode(cublasHandle_t h, cublasPointerMode_t *mode)
{
    CUDAEMU_LOCK;
    if (!h || !handles().count(h)) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!mode) return CUBLAS_STATUS_INVALID_VALUE;
    *mode = h->pmode;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasSgemm(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                           int n, int k, const float *alpha, const float *A, int lda,
                           const float *B, int ldb, const float *beta, float *C, int ldc)
{
    CUDAEMU_LOCK;
    if (cublasStatus_t s = check_handle(h)) return s;
    return strided(h, "cublasSgemm", ta, tb, m, n, k, alpha, A, lda, 0, B, ldb, 0, beta, C, ldc,
                   0, 1, rounding_for(h, CUBLAS_COMPUTE_32F));
}

cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t h, cublasOperation_t ta,
                                         cublasOperation_t tb, int m, int n, int k,
                                         const float *alpha, const float *A, int lda,
                                         long long int sA, const float *B, int ldb,
                                         long long int sB, const float *beta, float *C, int ldc,
                                         long long int sC, int batchCount)
{
    CUDAEMU_LOCK;
    if (cublasStatus_t s = check_handle(h)) return s;
    return strided(h, "cublasSgemmStridedBatched", ta, tb, m, n, k, alpha, A, lda, sA, B, ldb,
                   sB, beta, C, ldc, sC, batchCount, rounding_for(h, CUBLAS_COMPUTE_32F));
}

cublasStatus_t cublasGemmEx(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb, int m,
                            int n, int k, const void *alpha, const void *A, cudaDataType Atype,
                            int lda, const void *B, cudaDataType Btype, int ldb, const void *beta,
                            void *C, cudaDataType Ctype, int ldc, cublasComputeType_t ct,
                            cublasGemmAlgo_t algo)
{
    return gemm_ex(h, "cublasGemmEx", ta, tb, m, n, k, alpha, A, Atype, lda, 0, B, Btype, ldb, 0,
                   beta, C, Ctype, ldc, 0, 1, ct, algo);
}

cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t h, cublasOperation_t ta,
                                          cublasOperation_t tb, int m, int n, int k,
                                          const void *alpha, const void *A, cudaDataType Atype,
                                          int lda, long long int strideA, const void *B,
                                          cudaDataType Btype, int ldb, long long int strideB,
                                          const void *beta, void *C, cudaDataType Ctype, int ldc,
                                          long long int strideC, int batchCount,
                                          cublasComputeType_t ct, cublasGemmAlgo_t algo)
{
    return gemm_ex(h, "cublasGemmStridedBatchedEx", ta, tb, m, n, k, alpha, A, Atype, lda,
                   strideA, B, Btype, ldb, strideB, beta, C, Ctype, ldc, strideC, batchCount, ct,
                   algo);
}

cublasStatus_t cublasSaxpy(cublasHandle_t h, int n, const float *alpha, const float *x, int incx,
                           float *y, int incy)
{
    CUDAEMU_LOCK;
    if (cublasStatus_t s = check_handle(h)) return s;
    if (!alpha) return CUBLAS_STATUS_INVALID_VALUE;
    if (n <= 0) return CUBLAS_STATUS_SUCCESS;
    Scalar a = scalar(h, alpha);
    return queue(h, "cublasSaxpy",
                 {{"x", x, vextent(n, incx) * 4}, {"y", y, vextent(n, incy) * 4}},
                 [=]() { cblas_saxpy(n, a.get(), x, incx, y, incy); }, false);
}

cublasStatus_t cublasSscal(cublasHandle_t h, int n, const float *alpha, float *x, int incx)
{
    CUDAEMU_LOCK;
    if (cublasStatus_t s = check_handle(h)) return s;
    if (!alpha) return CUBLAS_STATUS_INVALID_VALUE;
    if (n <= 0 || incx <= 0) return CUBLAS_STATUS_SUCCESS;
    Scalar a = scalar(h, alpha);
    return queue(h, "cublasSscal", {{"x", x, vextent(n, incx) * 4}},
                 [=]() { cblas_sscal(n, a.get(), x, incx); }, false);
}

cublasStatus_t cublasSdot(cublasHandle_t h, int n, const float *x, int incx, const float *y,
                          int incy, float *result)
{
    CUDAEMU_LOCK;
    if (cublasStatus_t s = check_handle(h)) return s;
    if (!result) return CUBLAS_STATUS_INVALID_VALUE;
    const bool dev_result = h->pmode == CUBLAS_POINTER_MODE_DEVICE;
    const int nn = n;
    return queue(h, "cublasSdot",
                 {{"x", x, vextent(n, incx) * 4}, {"y", y, vextent(n, incy) * 4},
                  {"result", result, dev_result ? 4u : 0u}},
                 [=]() { *result = nn <= 0 ? 0.0f : cblas_sdot(nn, x, incx, y, incy); },
                 !dev_result);
}

cublasStatus_t cublasSnrm2(cublasHandle_t h, int n, const float *x, int incx, float *result)
{
    CUDAEMU_LOCK;
    if (cublasStatus_t s = check_handle(h)) return s;
    if (!result) return CUBLAS_STATUS_INVALID_VALUE;
    const bool dev_result = h->pmode == CUBLAS_POINTER_MODE_DEVICE;
    const int nn = n;
    return queue(h, "cublasSnrm2",
                 {{"x", x, incx > 0 ? vextent(n, incx) * 4 : 0},
                  {"result", result, dev_result ? 4u : 0u}},
                 [=]() { *result = (nn <= 0 || incx <= 0) ? 0.0f : cblas_snrm2(nn, x, incx); },
                 !dev_result);
}

/* ---- host <-> device transfers (cublasSet/GetVector, Set/GetMatrix) ------
 * Handle-less, as in cuBLAS: strided copies done by cudaMemcpy2D(Async), so
 * they are checked and ordered as the runtime's copies are (the plain forms
 * on the legacy default stream, returning when done; the Async forms queued
 * on `stream`).  Arguments as cuBLAS: elemSize, incx, incy, lda, ldb <= 0 or
 * a negative size → CUBLAS_STATUS_INVALID_VALUE (lda or ldb below rows too);
 * a copy the runtime refuses (host memory where device memory belongs, a
 * span overrunning an allocation) → CUBLAS_STATUS_MAPPING_ERROR. */
namespace {
/* y = alpha op(A) x + beta y, column-major (cublasSgemv, cublasDgemv) */
template <typename T, typename F>
cublasStatus_t gemv(cublasContext *h, const char *fname, cublasOperation_t trans, int m, int n,
                    const T *alpha, const T *A, int lda, const T *x, int incx, const T *beta,
                    T *y, int incy, F blas)
{
    if (!valid_op(trans) || m < 0 || n < 0 || lda < std::max(1, m) || incx == 0 || incy == 0 ||
        !alpha || !beta)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
    const bool dev_scalars = h->pmode == CUBLAS_POINTER_MODE_DEVICE;
    const T al = dev_scalars ? T(0) : *alpha, be = dev_scalars ? T(0) : *beta;
    const int xn = trans == CUBLAS_OP_N ? n : m, yn = trans == CUBLAS_OP_N ? m : n;
    return queue(h, fname,
                 {{"A", A, extent(m, n, lda) * sizeof(T)}, {"x", x, vextent(xn, incx) * sizeof(T)},
                  {"y", y, vextent(yn, incy) * sizeof(T)}},
                 [=]() {
                     const T a = dev_scalars ? *alpha : al, b = dev_scalars ? *beta : be;
                     if (b == T(0)) /* cuBLAS does not read y when beta is 0 */
                         for (int i = 0; i < yn; ++i)
                             y[size_t(incy < 0 ? yn - 1 - i : i) * size_t(incy < 0 ? -incy : incy)] = T(0);
                     blas(CblasColMajor, cblas_op(trans), m, n, a, A, lda, x, incx, b, y, incy);
                 },
                 false);
}
} // namespace

cublasStatus_t cublasSgemv(cublasHandle_t h, cublasOperation_t trans, int m, int n,
                           const float *alpha, const float *A, int lda, const float *x, int incx,
                           const float *beta, float *y, int incy)
{
    CUDAEMU_LOCK;
    if (cublasStatus_t s = check_handle(h)) return s;
    return gemv(h, "cublasSgemv", trans, m, n, alpha, A, lda, x, incx, beta, y, incy,
                cblas_sgemv);
}

cublasStatus_t cublasDgemv(cublasHandle_t h, cublasOperation_t trans, int m, int n,
                           const double *alpha, const double *A, int lda, const double *x,
                           int incx, const double *beta, double *y, int incy)
{
    CUDAEMU_LOCK;
    if (cublasStatus_t s = check_handle(h)) return s;
    return gemv(h, "cublasDgemv", trans, m, n, alpha, A, lda, x, incx, beta, y, incy,
                cblas_dgemv);
}

} // inline namespace cudaemu_api

namespace {

cublasStatus_t xfer(int rows, int cols, int es, const void *src, int ld_src, void *dst,
                    int ld_dst, cudaMemcpyKind kind, bool async, cudaStream_t stream)
{
    if (rows < 0 || cols < 0 || es <= 0 || ld_src <= 0 || ld_dst <= 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (rows == 0 || cols == 0) return CUBLAS_STATUS_SUCCESS;
    const size_t e = size_t(es);
    cudaError_t r = async ? cudaMemcpy2DAsync(dst, size_t(ld_dst) * e, src, size_t(ld_src) * e,
                                              size_t(rows) * e, size_t(cols), kind, stream)
                          : cudaMemcpy2D(dst, size_t(ld_dst) * e, src, size_t(ld_src) * e,
                                         size_t(rows) * e, size_t(cols), kind);
    return r == cudaSuccess ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_MAPPING_ERROR;
}

cublasStatus_t vec(int n, int es, const void *x, int incx, void *y, int incy,
                   cudaMemcpyKind kind, bool async, cudaStream_t stream)
{
    if (n < 0 || es <= 0 || incx <= 0 || incy <= 0) return CUBLAS_STATUS_INVALID_VALUE;
    /* a vector is n "columns" of one element, inc elements apart */
    return xfer(1, n, es, x, incx, y, incy, kind, async, stream);
}

cublasStatus_t mat(int rows, int cols, int es, const void *A, int lda, void *B, int ldb,
                   cudaMemcpyKind kind, bool async, cudaStream_t stream)
{
    if (rows < 0 || cols < 0 || es <= 0 || lda <= 0 || ldb <= 0 || lda < rows || ldb < rows)
        return CUBLAS_STATUS_INVALID_VALUE;
    return xfer(rows, cols, es, A, lda, B, ldb, kind, async, stream);
}

} // namespace

inline namespace cudaemu_api {

cublasStatus_t cublasSetVector(int n, int elemSize, const void *x, int incx, void *y, int incy)
{
    return vec(n, elemSize, x, incx, y, incy, cudaMemcpyHostToDevice, false, 0);
}

cublasStatus_t cublasGetVector(int n, int elemSize, const void *x, int incx, void *y, int incy)
{
    return vec(n, elemSize, x, incx, y, incy, cudaMemcpyDeviceToHost, false, 0);
}

cublasStatus_t cublasSetVectorAsync(int n, int elemSize, const void *x, int incx, void *y,
                                    int incy, cudaStream_t stream)
{
    return vec(n, elemSize, x, incx, y, incy, cudaMemcpyHostToDevice, true, stream);
}

cublasStatus_t cublasGetVectorAsync(int n, int elemSize, const void *x, int incx, void *y,
                                    int incy, cudaStream_t stream)
{
    return vec(n, elemSize, x, incx, y, incy, cudaMemcpyDeviceToHost, true, stream);
}

cublasStatus_t cublasSetMatrix(int rows, int cols, int elemSize, const void *A, int lda, void *B,
                               int ldb)
{
    return mat(rows, cols, elemSize, A, lda, B, ldb, cudaMemcpyHostToDevice, false, 0);
}

cublasStatus_t cublasGetMatrix(int rows, int cols, int elemSize, const void *A, int lda, void *B,
                               int ldb)
{
    return mat(rows, cols, elemSize, A, lda, B, ldb, cudaMemcpyDeviceToHost, false, 0);
}

cublasStatus_t cublasSetMatrixAsync(int rows, int cols, int elemSize, const void *A, int lda,
                                    void *B, int ldb, cudaStream_t stream)
{
    return mat(rows, cols, elemSize, A, lda, B, ldb, cudaMemcpyHostToDevice, true, stream);
}

cublasStatus_t cublasGetMatrixAsync(int rows, int cols, int elemSize, const void *A, int lda,
                                    void *B, int ldb, cudaStream_t stream)
{
    return mat(rows, cols, elemSize, A, lda, B, ldb, cudaMemcpyDeviceToHost, true, stream);
}

} // inline namespace cudaemu_api

/* the host GEMM of cuBLAS, for cuBLASLt (cublaslt.cpp) */
namespace cudaemu {
void host_sgemm(bool ta, bool tb, int m, int n, int k, float alpha, const float *A, int lda,
                const float *B, int ldb, float beta, float *C, int ldc, int rounding)
{
    host_gemm(ta ? CUBLAS_OP_T : CUBLAS_OP_N, tb ? CUBLAS_OP_T : CUBLAS_OP_N, m, n, k, alpha, A,
              lda, B, ldb, beta, C, ldc, Rounding(rounding));
}
} // namespace cudaemu
