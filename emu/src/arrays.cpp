/* emu/src/arrays.cpp - CUDA arrays and the copies to and from them, as far as
 * texture and surface objects (texture.cpp) need them.
 *
 * An array is an opaque handle over one device block of dense rows (its
 * element size times its width, no padding), allocated with cudaMalloc and
 * marked as an array in the allocation table: fresh contents are 0xFF bytes,
 * guard zones and AddressSanitizer see it as device memory, the leak report
 * names it.  Every copy to or from an array is a cudaMemcpy2D(Async) over
 * that block, so its checks (direction, bounds), its stream ordering and its
 * synchronous/asynchronous rules are cudaMemcpy2D's; cudaMemcpy3D copies one
 * slice after another.  1D, 2D and 3D arrays of 1, 2 or 4 channels, and 1D
 * and 2D layered arrays (stored as 3D, a layer a slice); cubemap, sparse and
 * mipmapped arrays are not emulated (a cudaemu line and cudaErrorNotSupported).
 */
#include "texture_internal.h"

#include <set>

namespace cudaemu {
namespace {

std::set<const cudaArray *> g_arrays; /* live handles, under the API lock */

/* The allocation table entry of a block nvcc-emu's program asked for through
 * a call of ours: the leak report names that call's caller. */
void mark_alloc(void *p, const void *caller, bool array)
{
    auto it = st().allocs.find(reinterpret_cast<uintptr_t>(p));
    if (it == st().allocs.end()) return;
    it->second.caller = caller;
    it->second.array = array;
}

bool mul_ok(size_t a, size_t b, size_t *r)
{
    return !__builtin_mul_overflow(a, b, r);
}

cudaError_t make_array(cudaArray_t *out, const cudaChannelFormatDesc *desc, cudaExtent ext,
                       unsigned flags, const char *fname, const void *caller)
{
    CUDAEMU_LOCK;
    if (!out) return ret(cudaErrorInvalidValue);
    *out = nullptr;
    if (cudaError_t e = usable()) return ret(e);
    cudaError_t err = cudaSuccess;
    const size_t elem = channel_bytes(desc, fname, &err);
    if (!elem) return ret(err);
    const unsigned known = cudaArrayLayered | cudaArraySurfaceLoadStore | cudaArrayCubemap |
                           cudaArrayTextureGather | cudaArrayColorAttachment | cudaArraySparse |
                           cudaArrayDeferredMapping;
    if (flags & ~known) return ret(cudaErrorInvalidValue);
    if (flags & ~unsigned(cudaArraySurfaceLoadStore | cudaArrayTextureGather | cudaArrayLayered)) {
        report("%s: cubemap, sparse, deferred-mapping and color-attachment arrays "
               "(flags 0x%x) are not emulated", fname, flags);
        return ret(cudaErrorNotSupported);
    }
    const bool surf = flags & cudaArraySurfaceLoadStore;
    /* layered: (width, 0, layers) is 1D layered, (width, height, layers) 2D
     * layered (the CUDA Runtime API's cudaMalloc3DArray); stored as 3D */
    const bool layered = flags & cudaArrayLayered;
    int dims;
    if (ext.width == 0 || (ext.height == 0 && ext.depth != 0 && !layered) ||
        (layered && ext.depth == 0))
        return ret(cudaErrorInvalidValue);
    dims = ext.height == 0 ? 1 : ext.depth == 0 || layered ? 2 : 3;
    const size_t n[3] = {ext.width, ext.height ? ext.height : 1, ext.depth ? ext.depth : 1};
    bool fits;
    if (layered && dims == 1) {
        const int *m = surf ? kMaxSurf1DLayered : kMaxTex1DLayered;
        fits = n[0] <= size_t(m[0]) && n[2] <= size_t(m[1]);
    } else if (layered) {
        const int *m = surf ? kMaxSurf2DLayered : kMaxTex2DLayered;
        fits = n[0] <= size_t(m[0]) && n[1] <= size_t(m[1]) && n[2] <= size_t(m[2]);
    } else if (dims == 1) {
        fits = n[0] <= size_t(surf ? kMaxSurf1D : kMaxTex1D);
    } else if (dims == 2) {
        const int *m = surf ? kMaxSurf2D : kMaxTex2D;
        fits = n[0] <= size_t(m[0]) && n[1] <= size_t(m[1]);
    } else {
        const int *m = surf ? kMaxSurf3D : kMaxTex3D;
        fits = (n[0] <= size_t(m[0]) && n[1] <= size_t(m[1]) && n[2] <= size_t(m[2])) ||
               (!surf && n[0] <= size_t(kMaxTex3DAlt[0]) && n[1] <= size_t(kMaxTex3DAlt[1]) &&
                n[2] <= size_t(kMaxTex3DAlt[2]));
    }
    if (!fits || ((flags & cudaArrayTextureGather) && (dims != 2 || layered)))
        return ret(cudaErrorInvalidValue);
    size_t pitch, slice, bytes;
    if (!mul_ok(n[0], elem, &pitch) || !mul_ok(pitch, n[1], &slice) ||
        !mul_ok(slice, n[2], &bytes))
        return ret(cudaErrorMemoryAllocation);
    void *data = nullptr;
    if (cudaError_t e = cudaMalloc(&data, bytes)) return e; /* cudaMalloc recorded it */
    mark_alloc(data, caller, true);
    cudaArray *a = new cudaArray;
    a->desc = *desc;
    a->extent = ext;
    a->flags = flags;
    a->dims = dims;
    a->layered = layered;
    for (int i = 0; i < 3; ++i) a->n[i] = n[i];
    a->elem = elem;
    a->pitch = pitch;
    a->slice = slice;
    a->data = static_cast<char *>(data);
    a->device = cur_dev();
    g_arrays.insert(a);
    *out = a;
    return cudaSuccess;
}

/* A 2D copy between an array region (wOff bytes, hOff rows) and linear
 * memory, through cudaMemcpy2D(Async) over the array's block. */
cudaError_t copy2d(bool to_array, cudaArray_const_t arr, size_t wOff, size_t hOff, void *mem,
                   size_t mpitch, size_t width, size_t height, cudaMemcpyKind kind,
                   cudaStream_t stream, bool async)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    cudaArray *a = live_array(arr);
    if (!a) return ret(cudaErrorInvalidValue);
    const size_t rows = a->n[1] * a->n[2];
    if (wOff > a->pitch || width > a->pitch - wOff || hOff > rows || height > rows - hOff)
        return ret(cudaErrorInvalidValue);
    char *p = a->data + hOff * a->pitch + wOff;
    if (to_array)
        return async ? cudaMemcpy2DAsync(p, a->pitch, mem, mpitch, width, height, kind, stream)
                     : cudaMemcpy2D(p, a->pitch, mem, mpitch, width, height, kind);
    return async ? cudaMemcpy2DAsync(mem, mpitch, p, a->pitch, width, height, kind, stream)
                 : cudaMemcpy2D(mem, mpitch, p, a->pitch, width, height, kind);
}

/* The address of (wOff bytes, hOff rows) in a, with at least count bytes
 * from there to the end of the array; null when not. */
char *linear_at(cudaArray *a, size_t wOff, size_t hOff, size_t count)
{
    const size_t rows = a->n[1] * a->n[2];
    if (wOff >= a->pitch || hOff >= rows) return nullptr;
    const size_t off = hOff * a->pitch + wOff;
    if (count > a->pitch * rows - off) return nullptr;
    return a->data + off;
}

cudaError_t copy_linear(bool to_array, cudaArray_const_t arr, size_t wOff, size_t hOff,
                        void *mem, size_t count, cudaMemcpyKind kind, cudaStream_t stream,
                        bool async)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    cudaArray *a = live_array(arr);
    if (!a) return ret(cudaErrorInvalidValue);
    if (count == 0) return cudaSuccess;
    char *p = linear_at(a, wOff, hOff, count);
    if (!p) return ret(cudaErrorInvalidValue);
    if (to_array)
        return async ? cudaMemcpyAsync(p, mem, count, kind, stream)
                     : cudaMemcpy(p, mem, count, kind);
    return async ? cudaMemcpyAsync(mem, p, count, kind, stream) : cudaMemcpy(mem, p, count, kind);
}

/* One side of a 3D copy: its base address, pitch and slice pitch in bytes. */
struct Side {
    char *base = nullptr;
    size_t pitch = 0, slice = 0;
};

bool side_of(cudaArray *a, const cudaPitchedPtr &pp, const cudaPos &pos, const cudaExtent &ext,
             size_t elem, Side *s)
{
    const size_t row = ext.width * elem;
    if (a) {
        if (pos.x > a->n[0] || ext.width > a->n[0] - pos.x || pos.y > a->n[1] ||
            ext.height > a->n[1] - pos.y || pos.z > a->n[2] || ext.depth > a->n[2] - pos.z)
            return false;
        s->pitch = a->pitch;
        s->slice = a->slice;
        s->base = a->data + pos.z * a->slice + pos.y * a->pitch + pos.x * a->elem;
        return true;
    }
    /* linear memory: x in bytes, rows pitch apart, slices pitch * ysize apart */
    if (pp.pitch == 0 || pos.x > pp.pitch || row > pp.pitch - pos.x) return false;
    if ((ext.depth > 1 || pos.z > 0) && (pp.ysize == 0 || pos.y > pp.ysize ||
                                         ext.height > pp.ysize - pos.y))
        return false;
    s->pitch = pp.pitch;
    s->slice = pp.pitch * pp.ysize;
    s->base = static_cast<char *>(pp.ptr) + pos.z * s->slice + pos.y * pp.pitch + pos.x;
    return true;
}

cudaError_t copy3d(const cudaMemcpy3DParms *p, cudaStream_t stream, bool async)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    if (!p) return ret(cudaErrorInvalidValue);
    const bool sa = p->srcArray != nullptr, da = p->dstArray != nullptr;
    if (sa == (p->srcPtr.ptr != nullptr) || da == (p->dstPtr.ptr != nullptr))
        return ret(cudaErrorInvalidValue); /* exactly one source and one destination */
    cudaArray *A = sa ? live_array(p->srcArray) : nullptr;
    cudaArray *D = da ? live_array(p->dstArray) : nullptr;
    if ((sa && !A) || (da && !D) || (A && D && A->elem != D->elem))
        return ret(cudaErrorInvalidValue);
    if (unsigned(p->kind) > unsigned(cudaMemcpyDefault))
        return ret(cudaErrorInvalidMemcpyDirection);
    const cudaExtent &ext = p->extent;
    if (ext.width == 0 || ext.height == 0 || ext.depth == 0) return cudaSuccess;
    const size_t elem = A ? A->elem : D ? D->elem : 1;
    Side s, d;
    if (!side_of(A, p->srcPtr, p->srcPos, ext, elem, &s) ||
        !side_of(D, p->dstPtr, p->dstPos, ext, elem, &d))
        return ret(cudaErrorInvalidValue);
    /* an array is on the device whatever the kind says (CUDA corrects it) */
    cudaMemcpyKind kind = p->kind;
    if (kind != cudaMemcpyDefault) {
        bool sdev = kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice || A;
        bool ddev = kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice || D;
        kind = sdev ? (ddev ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost)
                    : (ddev ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost);
    }
    const size_t row = ext.width * elem;
    for (size_t z = 0; z < ext.depth; ++z) {
        char *to = d.base + z * d.slice;
        const char *from = s.base + z * s.slice;
        cudaError_t e = async ? cudaMemcpy2DAsync(to, d.pitch, from, s.pitch, row, ext.height,
                                                  kind, stream)
                              : cudaMemcpy2D(to, d.pitch, from, s.pitch, row, ext.height, kind);
        if (e) return e;
    }
    return cudaSuccess;
}

cudaError_t set3d(cudaPitchedPtr pp, int value, cudaExtent ext, cudaStream_t stream, bool async)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    if (ext.width == 0 || ext.height == 0 || ext.depth == 0) return cudaSuccess;
    if (!pp.ptr || (ext.depth > 1 && pp.ysize < ext.height)) return ret(cudaErrorInvalidValue);
    for (size_t z = 0; z < ext.depth; ++z) {
        char *p = static_cast<char *>(pp.ptr) + z * pp.pitch * pp.ysize;
        cudaError_t e = async ? cudaMemset2DAsync(p, pp.pitch, value, ext.width, ext.height, stream)
                              : cudaMemset2D(p, pp.pitch, value, ext.width, ext.height);
        if (e) return e;
    }
    return cudaSuccess;
}

} // namespace

size_t channel_bytes(const cudaChannelFormatDesc *d, const char *caller, cudaError_t *err)
{
    *err = cudaErrorInvalidValue;
    if (!d) return 0;
    if (d->f != cudaChannelFormatKindSigned && d->f != cudaChannelFormatKindUnsigned &&
        d->f != cudaChannelFormatKindFloat) {
        if (d->f > cudaChannelFormatKindNone && d->f <= cudaChannelFormatKindUnsignedNormalized1010102) {
            report("%s: channel format kind %d (NV12, normalized, block-compressed) is not "
                   "emulated", caller, int(d->f));
            *err = cudaErrorNotSupported;
        }
        return 0;
    }
    const int c[4] = {d->x, d->y, d->z, d->w};
    const int b = c[0];
    if (b != 8 && b != 16 && b != 32) return 0;
    if (d->f == cudaChannelFormatKindFloat && b == 8) return 0;
    int n = 0;
    while (n < 4 && c[n] != 0) ++n;
    for (int i = 0; i < 4; ++i)
        if (i < n ? c[i] != b : c[i] != 0) return 0;
    if (n == 3) return 0; /* 1, 2 or 4 channels, as CUDA's formats */
    *err = cudaSuccess;
    return size_t(n) * size_t(b) / 8;
}

cudaArray *live_array(cudaArray_const_t a)
{
    auto it = g_arrays.find(a);
    return it == g_arrays.end() ? nullptr : const_cast<cudaArray *>(*it);
}

void texture_limits(cudaDeviceProp &p)
{
    p.maxTexture1D = kMaxTex1D;
    for (int i = 0; i < 2; ++i) p.maxTexture2D[i] = kMaxTex2D[i];
    for (int i = 0; i < 3; ++i) {
        p.maxTexture3D[i] = kMaxTex3D[i];
        p.maxTexture3DAlt[i] = kMaxTex3DAlt[i];
        p.maxTexture2DLinear[i] = kMaxTex2DLinear[i];
        p.maxSurface3D[i] = kMaxSurf3D[i];
    }
    for (int i = 0; i < 2; ++i) {
        p.maxTexture1DLayered[i] = kMaxTex1DLayered[i];
        p.maxSurface1DLayered[i] = kMaxSurf1DLayered[i];
    }
    for (int i = 0; i < 3; ++i) {
        p.maxTexture2DLayered[i] = kMaxTex2DLayered[i];
        p.maxSurface2DLayered[i] = kMaxSurf2DLayered[i];
    }
    p.maxSurface1D = kMaxSurf1D;
    for (int i = 0; i < 2; ++i) p.maxSurface2D[i] = kMaxSurf2D[i];
    p.textureAlignment = kTextureAlignment;
    p.texturePitchAlignment = kTexturePitchAlignment;
    p.surfaceAlignment = kTextureAlignment;
}

void forget_arrays(int d)
{
    objects_lose_device(d);
    for (auto it = g_arrays.begin(); it != g_arrays.end();) {
        if ((*it)->device == d) {
            delete *it; /* its block went with the device's memory */
            it = g_arrays.erase(it);
        } else {
            ++it;
        }
    }
}

} // namespace cudaemu

using namespace cudaemu;

inline namespace cudaemu_api {

cudaError_t cudaMallocArray(cudaArray_t *array, const cudaChannelFormatDesc *desc, size_t width,
                            size_t height, unsigned int flags)
{
    return make_array(array, desc, make_cudaExtent(width, height, 0), flags, "cudaMallocArray",
                      __builtin_return_address(0));
}

cudaError_t cudaMalloc3DArray(cudaArray_t *array, const cudaChannelFormatDesc *desc,
                              cudaExtent extent, unsigned int flags)
{
    return make_array(array, desc, extent, flags, "cudaMalloc3DArray",
                      __builtin_return_address(0));
}

cudaError_t cudaFreeArray(cudaArray_t array)
{
    CUDAEMU_LOCK;
    if (config().ndev == 0) return ret(cudaErrorNoDevice);
    if (!array) return cudaSuccess;
    cudaArray *a = live_array(array);
    if (!a) return ret(cudaErrorInvalidValue);
    sync_device(a->device); /* as cudaFree: queued work may still read it */
    objects_lose_array(a);
    g_arrays.erase(a);
    cudaError_t e = cudaFree(a->data);
    delete a;
    return e;
}

cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc *desc, cudaExtent *extent, unsigned int *flags,
                             cudaArray_t array)
{
    CUDAEMU_LOCK;
    const cudaArray *a = live_array(array);
    if (!a) return ret(cudaErrorInvalidValue);
    if (desc) *desc = a->desc;
    if (extent) *extent = a->extent;
    if (flags) *flags = a->flags;
    return cudaSuccess;
}

cudaError_t cudaGetChannelDesc(cudaChannelFormatDesc *desc, cudaArray_const_t array)
{
    CUDAEMU_LOCK;
    const cudaArray *a = live_array(array);
    if (!a || !desc) return ret(cudaErrorInvalidValue);
    *desc = a->desc;
    return cudaSuccess;
}

cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                                size_t spitch, size_t width, size_t height, cudaMemcpyKind kind)
{
    return copy2d(true, dst, wOffset, hOffset, const_cast<void *>(src), spitch, width, height,
                  kind, 0, false);
}

cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                     const void *src, size_t spitch, size_t width, size_t height,
                                     cudaMemcpyKind kind, cudaStream_t stream)
{
    return copy2d(true, dst, wOffset, hOffset, const_cast<void *>(src), spitch, width, height,
                  kind, stream, true);
}

cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                  size_t hOffset, size_t width, size_t height, cudaMemcpyKind kind)
{
    return copy2d(false, src, wOffset, hOffset, dst, dpitch, width, height, kind, 0, false);
}

cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src,
                                       size_t wOffset, size_t hOffset, size_t width, size_t height,
                                       cudaMemcpyKind kind, cudaStream_t stream)
{
    return copy2d(false, src, wOffset, hOffset, dst, dpitch, width, height, kind, stream, true);
}

cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                     cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc,
                                     size_t width, size_t height, cudaMemcpyKind kind)
{
    CUDAEMU_LOCK;
    cudaArray *s = live_array(src);
    if (!s) return ret(cudaErrorInvalidValue);
    const size_t rows = s->n[1] * s->n[2];
    if (wOffsetSrc > s->pitch || width > s->pitch - wOffsetSrc || hOffsetSrc > rows ||
        height > rows - hOffsetSrc)
        return ret(cudaErrorInvalidValue);
    return copy2d(true, dst, wOffsetDst, hOffsetDst,
                  s->data + hOffsetSrc * s->pitch + wOffsetSrc, s->pitch, width, height, kind, 0,
                  false);
}

cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                              size_t count, cudaMemcpyKind kind)
{
    return copy_linear(true, dst, wOffset, hOffset, const_cast<void *>(src), count, kind, 0,
                       false);
}

cudaError_t cudaMemcpyToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                   const void *src, size_t count, cudaMemcpyKind kind,
                                   cudaStream_t stream)
{
    return copy_linear(true, dst, wOffset, hOffset, const_cast<void *>(src), count, kind, stream,
                       true);
}

cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                                size_t count, cudaMemcpyKind kind)
{
    return copy_linear(false, src, wOffset, hOffset, dst, count, kind, 0, false);
}

cudaError_t cudaMemcpyFromArrayAsync(void *dst, cudaArray_const_t src, size_t wOffset,
                                     size_t hOffset, size_t count, cudaMemcpyKind kind,
                                     cudaStream_t stream)
{
    return copy_linear(false, src, wOffset, hOffset, dst, count, kind, stream, true);
}

cudaError_t cudaMemcpyArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                   cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc,
                                   size_t count, cudaMemcpyKind kind)
{
    CUDAEMU_LOCK;
    cudaArray *s = live_array(src);
    if (!s) return ret(cudaErrorInvalidValue);
    if (count == 0) return cudaSuccess;
    char *from = linear_at(s, wOffsetSrc, hOffsetSrc, count);
    if (!from) return ret(cudaErrorInvalidValue);
    return copy_linear(true, dst, wOffsetDst, hOffsetDst, from, count, kind, 0, false);
}

cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms *p) { return copy3d(p, 0, false); }

cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms *p, cudaStream_t stream)
{
    return copy3d(p, stream, true);
}

cudaError_t cudaMalloc3D(cudaPitchedPtr *pitchedDevPtr, cudaExtent extent)
{
    CUDAEMU_LOCK;
    if (!pitchedDevPtr) return ret(cudaErrorInvalidValue);
    size_t rows;
    if (!mul_ok(extent.height, extent.depth, &rows)) return ret(cudaErrorMemoryAllocation);
    void *p = nullptr;
    size_t pitch = 0;
    if (cudaError_t e = cudaMallocPitch(&p, &pitch, extent.width, rows)) return e;
    mark_alloc(p, __builtin_return_address(0), false);
    *pitchedDevPtr = make_cudaPitchedPtr(p, pitch, extent.width, extent.height);
    return cudaSuccess;
}

cudaError_t cudaMemset3D(cudaPitchedPtr pitchedDevPtr, int value, cudaExtent extent)
{
    return set3d(pitchedDevPtr, value, extent, 0, false);
}

cudaError_t cudaMemset3DAsync(cudaPitchedPtr pitchedDevPtr, int value, cudaExtent extent,
                              cudaStream_t stream)
{
    return set3d(pitchedDevPtr, value, extent, stream, true);
}

} // inline namespace cudaemu_api
