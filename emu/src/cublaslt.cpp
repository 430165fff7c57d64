/* emu/src/cublaslt.cpp - the cuBLASLt subset of the CUDA host emulator: a
 * plain fp32 GEMM (see include/cublasLt.h).
 *
 * Descriptors live inside CUDA's semi-opaque structures (so a descriptor
 * has the size the real header gives it), marked by a magic word.  Attribute
 * buffers must have exactly the attribute's size (else
 * CUBLAS_STATUS_INVALID_VALUE, as cuBLASLt).  Attributes the emulator does
 * not implement may be set; a matmul or heuristic that would need them
 * returns CUBLAS_STATUS_NOT_SUPPORTED, as do other data types, compute
 * types, orders and epilogues.  cublasLtMatmul checks shapes (op(A) m×k,
 * op(B) k×n, C and D m×n, ld ≥ rows, equal batch counts) and queues
 * D = epilogue(alpha op(A) op(B) + beta C) on the stream like any cuBLAS
 * call: the GEMM is cuBLAS's own (cublas.cpp, OpenBLAS; TF32/BF16 inputs
 * rounded for the FAST_ compute types), beta == 0 never reads C, operands
 * that are not device memory fail when it runs (sticky
 * cudaErrorIllegalAddress).
 */
#include "internal.h"

#include <cublasLt.h>

#include <cstring>
#include <set>

struct cublasLtContext {
    int device = 0;
};

namespace cudaemu {
namespace {

constexpr uint32_t kLayoutMagic = 0x4c61794fu, kDescMagic = 0x44657363u,
                   kPrefMagic = 0x50726566u;

struct Layout {
    uint32_t magic;
    int32_t type, order, batch;
    uint64_t rows, cols;
    int64_t ld, stride;
    int32_t other; /* an attribute the emulator does not implement was set */
};
static_assert(sizeof(Layout) <= sizeof(cublasLtMatrixLayoutOpaque_t), "layout fits");

struct Desc {
    uint32_t magic;
    int32_t compute, scale, pmode, transa, transb, transc, fill;
    uint32_t epilogue;
    int32_t bias_type; /* -1: the type of D */
    const void *bias;
    int64_t bias_stride;
    int32_t other;
};
static_assert(sizeof(Desc) <= sizeof(cublasLtMatmulDescOpaque_t), "desc fits");

struct Pref {
    uint32_t magic, search;
    uint64_t max_ws;
    int32_t other;
};
static_assert(sizeof(Pref) <= sizeof(cublasLtMatmulPreferenceOpaque_t), "pref fits");

std::set<cublasLtContext *> &lt_handles()
{
    static std::set<cublasLtContext *> *h = new std::set<cublasLtContext *>;
    return *h;
}

template <typename T, typename O> T *body(O *o, uint32_t magic)
{
    if (!o) return nullptr;
    T *t = reinterpret_cast<T *>(o->data);
    return t->magic == magic ? t : nullptr;
}

/* Copies an attribute in (set) or out (get) when the size is exact. */
cublasStatus_t put(void *field, size_t fsize, const void *buf, size_t n)
{
    if (!buf || n != fsize) return CUBLAS_STATUS_INVALID_VALUE;
    std::memcpy(field, buf, n);
    return CUBLAS_STATUS_SUCCESS;
}
cublasStatus_t get(const void *field, size_t fsize, void *buf, size_t n, size_t *written)
{
    if (n == 0 && written) {
        *written = fsize;
        return CUBLAS_STATUS_SUCCESS;
    }
    if (!buf || n != fsize) return CUBLAS_STATUS_INVALID_VALUE;
    std::memcpy(buf, field, n);
    if (written) *written = fsize;
    return CUBLAS_STATUS_SUCCESS;
}
/* An attribute the emulator does not implement: remembered if non-zero. */
cublasStatus_t other(int32_t *flag, const void *buf, size_t n)
{
    if (!buf || n == 0 || n > 8) return CUBLAS_STATUS_INVALID_VALUE;
    unsigned char z[8] = {};
    if (std::memcmp(buf, z, n)) *flag = 1;
    return CUBLAS_STATUS_SUCCESS;
}

bool f32_compute(int32_t ct)
{
    return ct == CUBLAS_COMPUTE_32F || ct == CUBLAS_COMPUTE_32F_PEDANTIC ||
           ct == CUBLAS_COMPUTE_32F_FAST_TF32 || ct == CUBLAS_COMPUTE_32F_FAST_16F ||
           ct == CUBLAS_COMPUTE_32F_FAST_16BF;
}

int rounding(int32_t ct)
{
    return ct == CUBLAS_COMPUTE_32F_FAST_TF32 || ct == CUBLAS_COMPUTE_32F_FAST_16F ? 1
           : ct == CUBLAS_COMPUTE_32F_FAST_16BF ? 2 : 0;
}

size_t extent(const Layout &l)
{
    if (l.rows == 0 || l.cols == 0) return 0;
    size_t one = size_t(l.cols - 1) * size_t(l.ld) + size_t(l.rows);
    size_t s = size_t(l.stride < 0 ? -l.stride : l.stride);
    return (size_t(l.batch - 1) * s + one) * 4;
}

struct Problem {
    const Desc *d;
    const Layout *a, *b, *c, *dd;
    bool ta, tb, bias, relu;
    int m, n, k;
};

/* What cublasLtMatmul and the heuristic check. */
cublasStatus_t check(cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t A,
                     cublasLtMatrixLayout_t B, cublasLtMatrixLayout_t C,
                     cublasLtMatrixLayout_t D, Problem *p)
{
    p->d = body<Desc>(desc, kDescMagic);
    p->a = body<Layout>(A, kLayoutMagic);
    p->b = body<Layout>(B, kLayoutMagic);
    p->c = body<Layout>(C, kLayoutMagic);
    p->dd = body<Layout>(D, kLayoutMagic);
    if (!p->d || !p->a || !p->b || !p->c || !p->dd) return CUBLAS_STATUS_INVALID_VALUE;
    const Desc &d = *p->d;
    /* what the emulator implements: fp32 everywhere, column-major */
    if (!f32_compute(d.compute) || d.scale != CUDA_R_32F || d.other || d.transc != CUBLAS_OP_N)
        return CUBLAS_STATUS_NOT_SUPPORTED;
    if (d.pmode != CUBLASLT_POINTER_MODE_HOST && d.pmode != CUBLASLT_POINTER_MODE_DEVICE)
        return CUBLAS_STATUS_NOT_SUPPORTED;
    for (const Layout *l : {p->a, p->b, p->c, p->dd})
        if (l->type != CUDA_R_32F || l->order != CUBLASLT_ORDER_COL || l->other)
            return CUBLAS_STATUS_NOT_SUPPORTED;
    const uint32_t ep = d.epilogue;
    if (ep != CUBLASLT_EPILOGUE_DEFAULT && ep != CUBLASLT_EPILOGUE_RELU &&
        ep != CUBLASLT_EPILOGUE_BIAS && ep != CUBLASLT_EPILOGUE_RELU_BIAS)
        return CUBLAS_STATUS_NOT_SUPPORTED;
    p->bias = ep & CUBLASLT_EPILOGUE_BIAS;
    p->relu = ep & CUBLASLT_EPILOGUE_RELU;
    if (p->bias && d.bias_type != -1 && d.bias_type != CUDA_R_32F)
        return CUBLAS_STATUS_NOT_SUPPORTED;
    auto op_ok = [](int32_t t) { return t == CUBLAS_OP_N || t == CUBLAS_OP_T || t == CUBLAS_OP_C; };
    if (!op_ok(d.transa) || !op_ok(d.transb)) return CUBLAS_STATUS_INVALID_VALUE;
    p->ta = d.transa != CUBLAS_OP_N; /* real data: C is T */
    p->tb = d.transb != CUBLAS_OP_N;
    const Layout &a = *p->a, &b = *p->b, &c = *p->c, &dd = *p->dd;
    for (const Layout *l : {p->a, p->b, p->c, p->dd})
        if (l->ld < int64_t(l->rows > 1 ? l->rows : 1) || l->rows > INT32_MAX ||
            l->cols > INT32_MAX || l->batch < 1)
            return CUBLAS_STATUS_INVALID_VALUE;
    const uint64_t am = p->ta ? a.cols : a.rows, ak = p->ta ? a.rows : a.cols;
    const uint64_t bk = p->tb ? b.cols : b.rows, bn = p->tb ? b.rows : b.cols;
    if (ak != bk || am != dd.rows || bn != dd.cols || c.rows != dd.rows || c.cols != dd.cols)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (a.batch != dd.batch || b.batch != dd.batch || c.batch != dd.batch)
        return CUBLAS_STATUS_INVALID_VALUE;
    p->m = int(dd.rows);
    p->n = int(dd.cols);
    p->k = int(ak);
    return CUBLAS_STATUS_SUCCESS;
}

} // namespace
} // namespace cudaemu

using namespace cudaemu;

inline namespace cudaemu_api {

cublasStatus_t cublasLtCreate(cublasLtHandle_t *handle)
{
    CUDAEMU_LOCK;
    if (!handle) return CUBLAS_STATUS_INVALID_VALUE;
    if (usable() != cudaSuccess) return CUBLAS_STATUS_NOT_INITIALIZED;
    cublasLtContext *h = new cublasLtContext;
    h->device = cur_dev();
    lt_handles().insert(h);
    *handle = h;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtDestroy(cublasLtHandle_t h)
{
    CUDAEMU_LOCK;
    if (!h || !lt_handles().count(h)) return CUBLAS_STATUS_NOT_INITIALIZED;
    sync_device(h->device);
    lt_handles().erase(h);
    delete h;
    return CUBLAS_STATUS_SUCCESS;
}

size_t cublasLtGetVersion() { return CUBLAS_VERSION; }
size_t cublasLtGetCudartVersion() { return CUDART_VERSION; }

cublasStatus_t cublasLtGetProperty(libraryPropertyType type, int *value)
{
    if (!value) return CUBLAS_STATUS_INVALID_VALUE;
    switch (type) {
    case MAJOR_VERSION: *value = CUBLAS_VER_MAJOR; return CUBLAS_STATUS_SUCCESS;
    case MINOR_VERSION: *value = CUBLAS_VER_MINOR; return CUBLAS_STATUS_SUCCESS;
    case PATCH_LEVEL: *value = CUBLAS_VER_PATCH; return CUBLAS_STATUS_SUCCESS;
    }
    return CUBLAS_STATUS_INVALID_VALUE;
}

const char *cublasLtGetStatusName(cublasStatus_t s) { return cublasGetStatusName(s); }
const char *cublasLtGetStatusString(cublasStatus_t s) { return cublasGetStatusString(s); }

/* ---- matrix layouts ---- */

cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *out, cudaDataType type,
                                          uint64_t rows, uint64_t cols, int64_t ld)
{
    if (!out) return CUBLAS_STATUS_INVALID_VALUE;
    auto *o = new cublasLtMatrixLayoutOpaque_t();
    Layout *l = reinterpret_cast<Layout *>(o->data);
    l->magic = kLayoutMagic;
    l->type = type;
    l->order = CUBLASLT_ORDER_COL;
    l->batch = 1;
    l->rows = rows;
    l->cols = cols;
    l->ld = ld;
    *out = o;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t o)
{
    if (!o) return CUBLAS_STATUS_SUCCESS;
    if (!body<Layout>(o, kLayoutMagic)) return CUBLAS_STATUS_INVALID_VALUE;
    reinterpret_cast<Layout *>(o->data)->magic = 0;
    delete o;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t o,
                                                cublasLtMatrixLayoutAttribute_t attr,
                                                const void *buf, size_t n)
{
    Layout *l = body<Layout>(o, kLayoutMagic);
    if (!l) return CUBLAS_STATUS_INVALID_VALUE;
    switch (attr) {
    case CUBLASLT_MATRIX_LAYOUT_TYPE: return put(&l->type, 4, buf, n);
    case CUBLASLT_MATRIX_LAYOUT_ORDER: return put(&l->order, 4, buf, n);
    case CUBLASLT_MATRIX_LAYOUT_ROWS: return put(&l->rows, 8, buf, n);
    case CUBLASLT_MATRIX_LAYOUT_COLS: return put(&l->cols, 8, buf, n);
    case CUBLASLT_MATRIX_LAYOUT_LD: return put(&l->ld, 8, buf, n);
    case CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT: return put(&l->batch, 4, buf, n);
    case CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET: return put(&l->stride, 8, buf, n);
    case CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET: return n == 8 ? other(&l->other, buf, n) : CUBLAS_STATUS_INVALID_VALUE;
    case CUBLASLT_MATRIX_LAYOUT_BATCH_MODE: return n == 4 ? other(&l->other, buf, n) : CUBLAS_STATUS_INVALID_VALUE;
    }
    return CUBLAS_STATUS_INVALID_VALUE;
}

cublasStatus_t cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t o,
                                                cublasLtMatrixLayoutAttribute_t attr, void *buf,
                                                size_t n, size_t *written)
{
    const Layout *l = body<Layout>(o, kLayoutMagic);
    if (!l) return CUBLAS_STATUS_INVALID_VALUE;
    switch (attr) {
    case CUBLASLT_MATRIX_LAYOUT_TYPE: return get(&l->type, 4, buf, n, written);
    case CUBLASLT_MATRIX_LAYOUT_ORDER: return get(&l->order, 4, buf, n, written);
    case CUBLASLT_MATRIX_LAYOUT_ROWS: return get(&l->rows, 8, buf, n, written);
    case CUBLASLT_MATRIX_LAYOUT_COLS: return get(&l->cols, 8, buf, n, written);
    case CUBLASLT_MATRIX_LAYOUT_LD: return get(&l->ld, 8, buf, n, written);
    case CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT: return get(&l->batch, 4, buf, n, written);
    case CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET: return get(&l->stride, 8, buf, n, written);
    default: return CUBLAS_STATUS_NOT_SUPPORTED;
    }
}

/* ---- matmul descriptors ---- */

cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *out, cublasComputeType_t ct,
                                        cudaDataType_t scale)
{
    if (!out) return CUBLAS_STATUS_INVALID_VALUE;
    auto *o = new cublasLtMatmulDescOpaque_t();
    Desc *d = reinterpret_cast<Desc *>(o->data);
    d->magic = kDescMagic;
    d->compute = ct;
    d->scale = scale;
    d->pmode = CUBLASLT_POINTER_MODE_HOST;
    d->transa = d->transb = d->transc = CUBLAS_OP_N;
    d->fill = CUBLAS_FILL_MODE_FULL;
    d->epilogue = CUBLASLT_EPILOGUE_DEFAULT;
    d->bias_type = -1;
    *out = o;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t o)
{
    if (!o) return CUBLAS_STATUS_SUCCESS;
    if (!body<Desc>(o, kDescMagic)) return CUBLAS_STATUS_INVALID_VALUE;
    reinterpret_cast<Desc *>(o->data)->magic = 0;
    delete o;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t o,
                                              cublasLtMatmulDescAttributes_t attr,
                                              const void *buf, size_t n)
{
    Desc *d = body<Desc>(o, kDescMagic);
    if (!d) return CUBLAS_STATUS_INVALID_VALUE;
    switch (attr) {
    case CUBLASLT_MATMUL_DESC_COMPUTE_TYPE: return put(&d->compute, 4, buf, n);
    case CUBLASLT_MATMUL_DESC_SCALE_TYPE: return put(&d->scale, 4, buf, n);
    case CUBLASLT_MATMUL_DESC_POINTER_MODE: return put(&d->pmode, 4, buf, n);
    case CUBLASLT_MATMUL_DESC_TRANSA: return put(&d->transa, 4, buf, n);
    case CUBLASLT_MATMUL_DESC_TRANSB: return put(&d->transb, 4, buf, n);
    case CUBLASLT_MATMUL_DESC_TRANSC: return put(&d->transc, 4, buf, n);
    case CUBLASLT_MATMUL_DESC_FILL_MODE: return put(&d->fill, 4, buf, n);
    case CUBLASLT_MATMUL_DESC_EPILOGUE: return put(&d->epilogue, 4, buf, n);
    case CUBLASLT_MATMUL_DESC_BIAS_POINTER: return put(&d->bias, sizeof(void *), buf, n);
    case CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE: return put(&d->bias_stride, 8, buf, n);
    case CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE: return put(&d->bias_type, 4, buf, n);
    case CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET: /* a performance hint: accepted */
        return n == 4 && buf ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
    default: break;
    }
    if (attr < 0 || attr > CUBLASLT_MATMUL_DESC_EMULATION_DESCRIPTOR)
        return CUBLAS_STATUS_INVALID_VALUE;
    return other(&d->other, buf, n); /* aux, scale and amax pointers, ...: not emulated */
}

cublasStatus_t cublasLtMatmulDescGetAttribute(cublasLtMatmulDesc_t o,
                                              cublasLtMatmulDescAttributes_t attr, void *buf,
                                              size_t n, size_t *written)
{
    const Desc *d = body<Desc>(o, kDescMagic);
    if (!d) return CUBLAS_STATUS_INVALID_VALUE;
    const int32_t bias_type = d->bias_type == -1 ? CUDA_R_32F : d->bias_type;
    switch (attr) {
    case CUBLASLT_MATMUL_DESC_COMPUTE_TYPE: return get(&d->compute, 4, buf, n, written);
    case CUBLASLT_MATMUL_DESC_SCALE_TYPE: return get(&d->scale, 4, buf, n, written);
    case CUBLASLT_MATMUL_DESC_POINTER_MODE: return get(&d->pmode, 4, buf, n, written);
    case CUBLASLT_MATMUL_DESC_TRANSA: return get(&d->transa, 4, buf, n, written);
    case CUBLASLT_MATMUL_DESC_TRANSB: return get(&d->transb, 4, buf, n, written);
    case CUBLASLT_MATMUL_DESC_TRANSC: return get(&d->transc, 4, buf, n, written);
    case CUBLASLT_MATMUL_DESC_FILL_MODE: return get(&d->fill, 4, buf, n, written);
    case CUBLASLT_MATMUL_DESC_EPILOGUE: return get(&d->epilogue, 4, buf, n, written);
    case CUBLASLT_MATMUL_DESC_BIAS_POINTER: return get(&d->bias, sizeof(void *), buf, n, written);
    case CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE: return get(&d->bias_stride, 8, buf, n, written);
    case CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE: return get(&bias_type, 4, buf, n, written);
    default: return CUBLAS_STATUS_NOT_SUPPORTED;
    }
}

/* ---- preferences ---- */

cublasStatus_t cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t *out)
{
    if (!out) return CUBLAS_STATUS_INVALID_VALUE;
    auto *o = new cublasLtMatmulPreferenceOpaque_t();
    reinterpret_cast<Pref *>(o->data)->magic = kPrefMagic;
    *out = o;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t o)
{
    if (!o) return CUBLAS_STATUS_SUCCESS;
    if (!body<Pref>(o, kPrefMagic)) return CUBLAS_STATUS_INVALID_VALUE;
    reinterpret_cast<Pref *>(o->data)->magic = 0;
    delete o;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t o,
                                                    cublasLtMatmulPreferenceAttributes_t attr,
                                                    const void *buf, size_t n)
{
    Pref *p = body<Pref>(o, kPrefMagic);
    if (!p) return CUBLAS_STATUS_INVALID_VALUE;
    switch (attr) {
    case CUBLASLT_MATMUL_PREF_SEARCH_MODE: return put(&p->search, 4, buf, n);
    case CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES: return put(&p->max_ws, 8, buf, n);
    /* hints the one emulated algorithm always satisfies */
    case CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK:
    case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES:
    case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES:
    case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES:
    case CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES:
    case CUBLASLT_MATMUL_PREF_MAX_WAVES_COUNT:
        return n == 4 && buf ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
    case CUBLASLT_MATMUL_PREF_IMPL_MASK:
        return n == 8 && buf ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
    }
    return CUBLAS_STATUS_INVALID_VALUE;
}

cublasStatus_t cublasLtMatmulPreferenceGetAttribute(cublasLtMatmulPreference_t o,
                                                    cublasLtMatmulPreferenceAttributes_t attr,
                                                    void *buf, size_t n, size_t *written)
{
    const Pref *p = body<Pref>(o, kPrefMagic);
    if (!p) return CUBLAS_STATUS_INVALID_VALUE;
    switch (attr) {
    case CUBLASLT_MATMUL_PREF_SEARCH_MODE: return get(&p->search, 4, buf, n, written);
    case CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES: return get(&p->max_ws, 8, buf, n, written);
    default: return CUBLAS_STATUS_NOT_SUPPORTED;
    }
}

/* ---- heuristic and matmul ---- */

cublasStatus_t cublasLtMatmulAlgoGetHeuristic(
    cublasLtHandle_t h, cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t A,
    cublasLtMatrixLayout_t B, cublasLtMatrixLayout_t C, cublasLtMatrixLayout_t D,
    cublasLtMatmulPreference_t pref, int requested, cublasLtMatmulHeuristicResult_t results[],
    int *returned)
{
    CUDAEMU_LOCK;
    if (!h || !lt_handles().count(h)) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (requested <= 0 || !results || !returned || !body<Pref>(pref, kPrefMagic))
        return CUBLAS_STATUS_INVALID_VALUE;
    *returned = 0;
    Problem p;
    if (cublasStatus_t s = check(desc, A, B, C, D, &p)) return s;
    std::memset(&results[0], 0, sizeof results[0]);
    results[0].algo.data[0] = kDescMagic; /* the one algorithm, no workspace */
    results[0].workspaceSize = 0;
    results[0].state = CUBLAS_STATUS_SUCCESS;
    results[0].wavesCount = 1.0f;
    *returned = 1;
    return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasLtMatmul(cublasLtHandle_t h, cublasLtMatmulDesc_t desc, const void *alpha,
                              const void *A, cublasLtMatrixLayout_t Adesc, const void *B,
                              cublasLtMatrixLayout_t Bdesc, const void *beta, const void *C,
                              cublasLtMatrixLayout_t Cdesc, void *D, cublasLtMatrixLayout_t Ddesc,
                              const cublasLtMatmulAlgo_t *algo, void *workspace, size_t wsBytes,
                              cudaStream_t stream)
{
    CUDAEMU_LOCK;
    (void)algo, (void)workspace, (void)wsBytes; /* the one algorithm needs no workspace */
    if (!h || !lt_handles().count(h)) return CUBLAS_STATUS_NOT_INITIALIZED;
    if (usable() != cudaSuccess) return CUBLAS_STATUS_EXECUTION_FAILED;
    Problem p;
    if (cublasStatus_t s = check(desc, Adesc, Bdesc, Cdesc, Ddesc, &p)) return s;
    if (!alpha || !beta) return CUBLAS_STATUS_INVALID_VALUE;
    const Desc &d = *p.d;
    if (p.bias && !d.bias) return CUBLAS_STATUS_INVALID_VALUE;
    if (C == D && (p.c->ld != p.dd->ld || p.c->stride != p.dd->stride))
        return CUBLAS_STATUS_INVALID_VALUE; /* in place needs one layout */
    const bool dev_scalars = d.pmode == CUBLASLT_POINTER_MODE_DEVICE;
    const float *pa = static_cast<const float *>(alpha), *pb = static_cast<const float *>(beta);
    const float al = dev_scalars ? 0.0f : *pa, be = dev_scalars ? 0.0f : *pb;
    const Layout la = *p.a, lb = *p.b, lc = *p.c, ld = *p.dd;
    const bool ta = p.ta, tb = p.tb, bias = p.bias, relu = p.relu;
    const int m = p.m, n = p.n, k = p.k, rnd = rounding(d.compute), batch = ld.batch;
    const float *fa = static_cast<const float *>(A), *fb = static_cast<const float *>(B);
    const float *fc = static_cast<const float *>(C), *fbias = static_cast<const float *>(d.bias);
    float *fd = static_cast<float *>(D);
    const int64_t bstride = d.bias_stride;
    const size_t bias_bytes = bias ? (size_t(batch - 1) * size_t(bstride < 0 ? -bstride : bstride) +
                                      size_t(m)) * 4 : 0;
    if (m == 0 || n == 0) return CUBLAS_STATUS_SUCCESS;
    if (!queue_library_call(
            h->device, stream, "cublasLtMatmul",
            {{"A", A, extent(la)}, {"B", B, extent(lb)}, {"C", C, !dev_scalars && be == 0.0f ? 0u : extent(lc)},
             {"D", D, extent(ld)}, {"bias", d.bias, bias_bytes},
             {"alpha", alpha, dev_scalars ? 4u : 0u}, {"beta", beta, dev_scalars ? 4u : 0u}},
            [=]() {
                const float a = dev_scalars ? *pa : al, b = dev_scalars ? *pb : be;
                for (int i = 0; i < batch; ++i) {
                    float *dst = fd + i * ld.stride;
                    const float *src = fc + i * lc.stride;
                    if (b != 0.0f && dst != src)
                        for (int j = 0; j < n; ++j)
                            std::memmove(dst + size_t(j) * size_t(ld.ld),
                                         src + size_t(j) * size_t(lc.ld), size_t(m) * 4);
                    host_sgemm(ta, tb, m, n, k, a, fa + i * la.stride, int(la.ld),
                               fb + i * lb.stride, int(lb.ld), b, dst, int(ld.ld), rnd);
                    const float *bv = bias ? fbias + i * bstride : nullptr;
                    if (bias || relu)
                        for (int j = 0; j < n; ++j)
                            for (int r = 0; r < m; ++r) {
                                float &x = dst[size_t(j) * size_t(ld.ld) + size_t(r)];
                                if (bv) x += bv[r];
                                if (relu && !(x > 0.0f)) x = x != x ? x : 0.0f;
                            }
                }
            },
            false))
        return CUBLAS_STATUS_EXECUTION_FAILED;
    return dev(h->device).sticky ? CUBLAS_STATUS_EXECUTION_FAILED : CUBLAS_STATUS_SUCCESS;
}

} // inline namespace cudaemu_api
