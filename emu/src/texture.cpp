/* emu/src/texture.cpp - texture and surface objects: creation, checks, and
 * the fetches kernels make through them.
 *
 * An object is a slot of one table (index + 1 in the low 32 bits of the
 * handle, the slot's generation in the high ones), so a destroyed or unknown
 * handle is recognised when a kernel uses it: the launch fails with one
 * cudaemu line instead of reading freed memory.  Creation checks the
 * descriptors as CUDA documents them (cudaErrorInvalidValue) and keeps what
 * a fetch needs: base address, pitches, extent, format, modes.
 *
 * A layered texture or surface (over a cudaArrayLayered array) is read a
 * layer at a time: tex1DLayered/tex2DLayered fetch, filter and address in
 * the layer the integer index names (clamped to the layers), never across
 * layers; a layered fetch of a plain texture, or a plain one of a layered
 * texture, fails the launch naming both.
 *
 * Fetches follow the CUDA Programming Guide's "Texture Fetching" appendix:
 * normalized coordinates are scaled by the extent after the address mode
 * (wrap: frac(x); mirror: frac(x) or 1 - frac(x) by the parity of floor(x));
 * point sampling reads T[floor(x)]; linear filtering reads the texels around
 * xB = x - 0.5 with weights (1 - a, a), a = frac(xB) rounded to 8 fraction
 * bits (the hardware's 9-bit fixed-point format), per dimension, and sums
 * the weighted texels exactly before rounding once to float.  Texel indices
 * outside the extent wrap, mirror, clamp, or read the border colour.  With
 * unnormalized coordinates wrap and mirror act as clamp (as CUDA documents).
 * 8/16-bit integers read as normalized floats map to [0, 1] (unsigned) or
 * [-1, 1] (signed); otherwise integer texels come back as integers.
 */
#include "texture_internal.h"

#include <cmath>

namespace cudaemu {
namespace {

enum Fmt : uint8_t { S8, U8, S16, U16, S32, U32, F16, F32 };

struct Obj {
    uint32_t gen = 0;
    bool live = false;
    bool surface = false;
    const char *gone = nullptr; /* why a created object no longer works */
    int device = 0;
    cudaResourceDesc res{};     /* as given, for the Get*Desc calls */
    cudaTextureDesc td{};
    const cudaArray *array = nullptr;
    /* what a fetch needs */
    const char *base = nullptr;
    size_t pitch = 0, slice = 0, elem = 0;
    int64_t n[3] = {1, 1, 1};
    float nf[3] = {1, 1, 1};    /* n as float, to scale normalized coordinates */
    int dims = 1;               /* of one layer when layered */
    bool layered = false;       /* over a layered array: n[2] layers, a slice each */
    bool linear_res = false;    /* cudaResourceTypeLinear: tex1Dfetch */
    Fmt fmt = F32;
    int ch = 1;
    bool float_class = true;    /* returns floats */
    bool norm_read = false;     /* 8/16-bit integers as normalized floats */
    bool normalized = false;    /* coordinates */
    bool filter_linear = false;
    int addr[3] = {0, 0, 0};
    detail::Texel border;
    /* ok[kind][cls]: tex1D/2D/3D (0), tex1Dfetch (1) or a layered fetch (2)
     * returning cls may read it (fetch_kind) */
    bool ok[3][2] = {{false, false}, {false, false}, {false, false}};
    bool raw32 = false;         /* 32-bit channels: their bits are the result */
    detail::Texel fill;         /* channels the format lacks: (0, 0, 0, 1) */
};

std::vector<Obj> g_objs;
std::vector<uint32_t> g_free; /* slots to reuse */

cudaError_t make_handle(const Obj &o, unsigned long long *h)
{
    uint32_t i;
    if (!g_free.empty()) {
        i = g_free.back();
        g_free.pop_back();
    } else {
        if (g_objs.size() >= 0xfffffffeu) return cudaErrorMemoryAllocation;
        i = uint32_t(g_objs.size());
        g_objs.emplace_back();
    }
    const uint32_t gen = g_objs[i].gen + 1;
    g_objs[i] = o;
    g_objs[i].gen = gen;
    g_objs[i].live = true;
    *h = (uint64_t(gen) << 32) | (uint64_t(i) + 1);
    return cudaSuccess;
}

/* The object of handle h (alive or not), or null for a handle never given out. */
Obj *slot(unsigned long long h)
{
    const uint64_t i = (h & 0xffffffffu) - 1;
    if ((h & 0xffffffffu) == 0 || i >= g_objs.size() || (h >> 32) > g_objs[i].gen ||
        (h >> 32) == 0)
        return nullptr;
    return &g_objs[i];
}

/* The live object of handle h of the given kind, or null. */
Obj *live(unsigned long long h, bool surface)
{
    Obj *o = slot(h);
    return o && o->live && o->gen == (h >> 32) && o->surface == surface ? o : nullptr;
}

bool set_format(Obj &o, const cudaChannelFormatDesc &d, const char *fname, cudaError_t *err)
{
    o.elem = channel_bytes(&d, fname, err);
    if (!o.elem) return false;
    const int b = d.x;
    o.ch = int(o.elem * 8 / size_t(b));
    if (d.f == cudaChannelFormatKindFloat) o.fmt = b == 16 ? F16 : F32;
    else if (d.f == cudaChannelFormatKindSigned) o.fmt = b == 8 ? S8 : b == 16 ? S16 : S32;
    else o.fmt = b == 8 ? U8 : b == 16 ? U16 : U32;
    return true;
}

/* Linear and pitched memory under a texture: in the allocation table, at an
 * offset from its block that is a multiple of the texture alignment (a
 * GPU's blocks start at least that aligned; the emulator's are 256-byte
 * aligned), bytes within the block. */
bool memory_ok(const void *p, size_t bytes, const char *fname)
{
    const Alloc *a = nullptr;
    if (!p || !span_ok(p, bytes, &a) || !a) {
        if (p && a)
            report("%s: the resource's %zu bytes at %p run past its %zu-byte block", fname, bytes,
                   p, a->size);
        return false;
    }
    return (reinterpret_cast<uintptr_t>(p) - a->base) % kTextureAlignment == 0;
}

/* Checks the resource and fills o's extent, base and format. */
cudaError_t set_resource(Obj &o, const cudaResourceDesc *r, bool surface, const char *fname)
{
    if (!r || r->flags != 0) return cudaErrorInvalidValue;
    o.res = *r;
    cudaError_t err = cudaSuccess;
    switch (r->resType) {
    case cudaResourceTypeArray: {
        const cudaArray *a = live_array(r->res.array.array);
        if (!a) return cudaErrorInvalidValue;
        if (surface && !(a->flags & cudaArraySurfaceLoadStore)) return cudaErrorInvalidValue;
        if (!set_format(o, a->desc, fname, &err)) return err;
        o.array = a;
        o.base = a->data;
        o.pitch = a->pitch;
        o.slice = a->slice;
        o.dims = a->dims;
        o.layered = a->layered;
        for (int i = 0; i < 3; ++i) o.n[i] = int64_t(a->n[i]);
        return cudaSuccess;
    }
    case cudaResourceTypeLinear: {
        if (surface) return cudaErrorInvalidValue;
        const auto &l = r->res.linear;
        if (!set_format(o, l.desc, fname, &err)) return err;
        const size_t count = l.sizeInBytes / o.elem;
        if (count == 0 || count > size_t(kMaxTex1DLinear) || !memory_ok(l.devPtr, l.sizeInBytes, fname))
            return cudaErrorInvalidValue;
        o.linear_res = true;
        o.base = static_cast<const char *>(l.devPtr);
        o.n[0] = int64_t(count);
        return cudaSuccess;
    }
    case cudaResourceTypePitch2D: {
        if (surface) return cudaErrorInvalidValue;
        const auto &p = r->res.pitch2D;
        if (!set_format(o, p.desc, fname, &err)) return err;
        if (p.width == 0 || p.height == 0 || p.width > size_t(kMaxTex2DLinear[0]) ||
            p.height > size_t(kMaxTex2DLinear[1]) || p.pitchInBytes > size_t(kMaxTex2DLinear[2]) ||
            p.pitchInBytes % kTexturePitchAlignment != 0 || p.pitchInBytes < p.width * o.elem ||
            !memory_ok(p.devPtr, (p.height - 1) * p.pitchInBytes + p.width * o.elem, fname))
            return cudaErrorInvalidValue;
        o.base = static_cast<const char *>(p.devPtr);
        o.pitch = p.pitchInBytes;
        o.dims = 2;
        o.n[0] = int64_t(p.width);
        o.n[1] = int64_t(p.height);
        return cudaSuccess;
    }
    case cudaResourceTypeMipmappedArray:
        report("%s: mipmapped arrays are not emulated", fname);
        return cudaErrorNotSupported;
    default:
        return cudaErrorInvalidValue;
    }
}

cudaError_t set_sampling(Obj &o, const cudaTextureDesc *t, const cudaResourceViewDesc *view)
{
    if (!t) return cudaErrorInvalidValue;
    for (int i = 0; i < 3; ++i)
        if (unsigned(t->addressMode[i]) > unsigned(cudaAddressModeBorder))
            return cudaErrorInvalidValue;
    if (unsigned(t->filterMode) > unsigned(cudaFilterModeLinear) ||
        unsigned(t->readMode) > unsigned(cudaReadModeNormalizedFloat) || t->seamlessCubemap)
        return cudaErrorInvalidValue;
    if (view) {
        report("cudaCreateTextureObject: resource views are not emulated");
        return cudaErrorNotSupported;
    }
    if (t->sRGB) {
        report("cudaCreateTextureObject: sRGB conversion is not emulated");
        return cudaErrorNotSupported;
    }
    o.td = *t;
    o.normalized = t->normalizedCoords != 0;
    o.filter_linear = t->filterMode == cudaFilterModeLinear && !o.linear_res;
    const bool small_int = o.fmt == S8 || o.fmt == U8 || o.fmt == S16 || o.fmt == U16;
    o.norm_read = small_int && t->readMode == cudaReadModeNormalizedFloat;
    o.float_class = o.fmt == F16 || o.fmt == F32 || o.norm_read;
    for (int i = 0; i < 3; ++i) {
        int m = t->addressMode[i];
        /* wrap and mirror need normalized coordinates; CUDA switches to clamp */
        if (!o.normalized && (m == cudaAddressModeWrap || m == cudaAddressModeMirror))
            m = cudaAddressModeClamp;
        o.addr[i] = m;
    }
    for (int c = 0; c < 4; ++c) {
        if (o.float_class) o.border.f[c] = t->borderColor[c];
        else std::memcpy(&o.border.i[c], &t->borderColor[c], 4); /* integer bits, as CUDA */
    }
    o.raw32 = o.fmt == F32 || o.fmt == S32 || o.fmt == U32;
    for (int d = 0; d < 3; ++d) o.nf[d] = float(o.n[d]);
    for (int c = 0; c < 4; ++c) {
        if (o.float_class) o.fill.f[c] = c == 3 ? 1.0f : 0.0f;
        else o.fill.i[c] = c == 3 ? 1 : 0;
    }
    /* what texture_error() explains */
    o.ok[o.linear_res ? 1 : o.layered ? 2 : 0][o.float_class ? detail::kTexFloat : detail::kTexInt] =
        !(o.filter_linear && !o.float_class);
    return cudaSuccess;
}

/* ---- fetches -------------------------------------------------------------- */

const char *call_name(int call)
{
    static const char *names[] = {"tex1Dfetch", "tex1D", "tex2D", "tex3D", "tex1DLayered",
                                  "tex2DLayered"};
    return call >= 0 && call < 6 ? names[call] : "texture fetch";
}

/* The row of Obj::ok a fetch call checks. */
inline int fetch_kind(int call)
{
    return call == detail::kTex1Dfetch ? 1 : call >= detail::kTex1DLayered ? 2 : 0;
}

const char *fmt_name(Fmt f)
{
    static const char *names[] = {"8-bit signed", "8-bit unsigned", "16-bit signed",
                                  "16-bit unsigned", "32-bit signed", "32-bit unsigned",
                                  "16-bit float", "32-bit float"};
    return names[f];
}

[[noreturn]] void bad_handle(const char *what, unsigned long long h, bool surface)
{
    const Obj *o = slot(h);
    const char *kind = surface ? "surface" : "texture";
    if (o && o->gen == (h >> 32) && !o->live && o->gone)
        kernel_fault("%s: %s object 0x%llx no longer works: %s", what, kind, h, o->gone);
    if (o && o->gen == (h >> 32) && o->live)
        kernel_fault("%s: 0x%llx is a %s object, not a %s object", what, h,
                     o->surface ? "surface" : "texture", kind);
    if (o)
        kernel_fault("%s: %s object 0x%llx was destroyed", what, kind, h);
    kernel_fault("%s: 0x%llx is not a %s object (never created)", what, h, kind);
}

/* Why a fetch may not read object h (the fast check in texture() failed). */
[[noreturn]] void texture_error(unsigned long long h, int call, int cls)
{
    const Obj *o = live(h, false);
    if (!o) bad_handle(call_name(call), h, false);
    if (!o->linear_res && call != detail::kTex1Dfetch &&
        (call >= detail::kTex1DLayered) != o->layered)
        kernel_fault(o->layered ? "%s on a layered texture (a cudaArrayLayered array): read it "
                                  "with tex1DLayered or tex2DLayered"
                                : "%s on a texture that is not layered: the array was not "
                                  "allocated with cudaArrayLayered",
                     call_name(call));
    if ((call == detail::kTex1Dfetch) != o->linear_res)
        kernel_fault(o->linear_res ? "%s on a texture over linear memory (cudaResourceTypeLinear): "
                                     "read it with tex1Dfetch"
                                   : "%s on a texture over a CUDA array or pitched memory: "
                                     "tex1Dfetch reads linear memory only (use tex1D/tex2D/tex3D)",
                     call_name(call));
    if ((cls == detail::kTexFloat) != o->float_class)
        kernel_fault("%s<%s> from a texture of %s channels read as %s: %s", call_name(call),
                     cls == detail::kTexFloat ? "float" : "an integer type", fmt_name(o->fmt),
                     o->float_class ? "floats" : "integers (cudaReadModeElementType)",
                     o->float_class ? "fetch a float type"
                                    : "fetch an integer type, or read 8/16-bit integers with "
                                      "cudaReadModeNormalizedFloat");
    if (o->filter_linear && !o->float_class)
        kernel_fault("%s: linear filtering of a texture of %s integers read as integers: CUDA "
                     "filters only textures that return floats (cudaErrorInvalidFilterSetting)",
                     call_name(call), fmt_name(o->fmt));
    kernel_fault("%s: internal error: texture object 0x%llx refused", call_name(call), h);
}

/* The texture object a fetch reads (else the launch fails, saying why). */
inline const Obj &texture(unsigned long long h, int call, int cls)
{
    const uint64_t i = (h & 0xffffffffu) - 1;
    if (i < g_objs.size()) {
        const Obj &o = g_objs[i];
        if (o.gen == (h >> 32) && o.live && !o.surface && o.ok[fetch_kind(call)][cls])
            return o;
    }
    texture_error(h, call, cls);
}

inline float half_to_float(uint16_t h)
{
    const uint32_t s = uint32_t(h >> 15) << 31, e = (h >> 10) & 0x1f, m = h & 0x3ff;
    uint32_t bits;
    if (e == 0x1f) {
        bits = s | 0x7f800000u | (m << 13);
    } else if (e != 0) {
        bits = s | ((e + 112) << 23) | (m << 13);
    } else if (m == 0) {
        bits = s;
    } else { /* subnormal: m * 2^-24 */
        float v = float(m) * 5.9604644775390625e-8f;
        return s ? -v : v;
    }
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

/* Channel c of the element at p, as float (float class) ... */
inline float load_f(const Obj &o, const char *p, int c)
{
    switch (o.fmt) {
    case F32: { float v; std::memcpy(&v, p + 4 * c, 4); return v; }
    case F16: { uint16_t v; std::memcpy(&v, p + 2 * c, 2); return half_to_float(v); }
    case U8: return float(reinterpret_cast<const uint8_t *>(p)[c]) / 255.0f;
    case S8: return std::fmax(float(reinterpret_cast<const int8_t *>(p)[c]) / 127.0f, -1.0f);
    case U16: { uint16_t v; std::memcpy(&v, p + 2 * c, 2); return float(v) / 65535.0f; }
    case S16: { int16_t v; std::memcpy(&v, p + 2 * c, 2); return std::fmax(float(v) / 32767.0f, -1.0f); }
    default: return 0.0f; /* 32-bit integers are never read as floats */
    }
}

/* ... or as a sign- or zero-extended 32-bit integer (integer class). */
inline int load_i(const Obj &o, const char *p, int c)
{
    switch (o.fmt) {
    case S8: return reinterpret_cast<const int8_t *>(p)[c];
    case U8: return reinterpret_cast<const uint8_t *>(p)[c];
    case S16: { int16_t v; std::memcpy(&v, p + 2 * c, 2); return v; }
    case U16: { uint16_t v; std::memcpy(&v, p + 2 * c, 2); return v; }
    default: { int v; std::memcpy(&v, p + 4 * c, 4); return v; }
    }
}

/* The texel at p. */
__attribute__((always_inline)) inline void read(const Obj &o, const char *p, detail::Texel *out)
{
    *out = o.fill;
    if (o.raw32) { /* fixed sizes: no call to memcpy */
        if (o.ch == 1) std::memcpy(out, p, 4);
        else if (o.ch == 2) std::memcpy(out, p, 8);
        else std::memcpy(out, p, 16);
        return;
    }
    for (int c = 0; c < o.ch; ++c) {
        if (o.float_class) out->f[c] = load_f(o, p, c);
        else out->i[c] = load_i(o, p, c);
    }
}

/* Texel index i of a dimension of n texels under address mode m; -1 for
 * the border. */
inline int64_t address(int64_t i, int64_t n, int m)
{
    if (i >= 0 && i < n) return i;
    switch (m) {
    case cudaAddressModeWrap:
        i %= n;
        return i < 0 ? i + n : i;
    case cudaAddressModeMirror: {
        const int64_t p = 2 * n;
        i %= p;
        if (i < 0) i += p;
        return i < n ? i : p - 1 - i;
    }
    case cudaAddressModeBorder:
        return -1;
    default:
        return i < 0 ? 0 : n - 1;
    }
}

/* floor(v) as an integer; NaN and huge values kept in range (a libm-free
 * floor: this runs for every fetch) */
inline int64_t ifloor(float v)
{
    if (v >= 0.0f && v < 2147483648.0f) return int32_t(v); /* the usual case: truncation */
    if (!(v > -1e15f && v < 1e15f)) return v > 0 ? int64_t(1e15) : int64_t(-1e15);
    const int64_t i = int64_t(v);
    return i - (float(i) > v);
}

/* The coordinate in texels: normalized ones after wrap or mirror, scaled. */
inline float texels(const Obj &o, int d, float c)
{
    if (!o.normalized) return c;
    const int m = o.addr[d];
    if ((m == cudaAddressModeWrap || m == cudaAddressModeMirror) && std::fabs(c) < 8388608.0f) {
        /* below 2^23 a float may have a fraction: c - floor(c) is exact */
        int i = int(c);
        i -= float(i) > c;
        c -= float(i);
        if (m == cudaAddressModeMirror && (i & 1)) c = 1.0f - c;
    } else if (m == cudaAddressModeWrap || m == cudaAddressModeMirror) {
        /* an integer (or infinite): fraction 0, mirrored 1 when odd; NaN stays */
        if (c == c) c = m == cudaAddressModeMirror && std::fmod(c, 2.0f) != 0.0f ? 1.0f : 0.0f;
    }
    return c * o.nf[d];
}

inline const char *element(const Obj &o, const int64_t *ix)
{
    return o.base + size_t(ix[2]) * o.slice + size_t(ix[1]) * o.pitch + size_t(ix[0]) * o.elem;
}

/* Point sampling: the texel at floor of each coordinate (in texels). */
template <int D> void point(const Obj &o, float x, float y, float z, detail::Texel *out)
{
    const int64_t ix[3] = {address(ifloor(texels(o, 0, x)), o.n[0], o.addr[0]),
                           D > 1 ? address(ifloor(texels(o, 1, y)), o.n[1], o.addr[1]) : 0,
                           D > 2 ? address(ifloor(texels(o, 2, z)), o.n[2], o.addr[2]) : 0};
    if ((ix[0] | ix[1] | ix[2]) < 0) {
        *out = o.border;
        return;
    }
    read(o, element(o, ix), out);
}

/* Linear filtering over the 2, 4 or 8 texels around the coordinates u (in texels). */
void linear(const Obj &o, const float *u, detail::Texel *out)
{
    int64_t lo[3] = {0, 0, 0}, hi[3] = {0, 0, 0};
    float w1[3] = {0, 0, 0};
    for (int d = 0; d < o.dims; ++d) {
        const float xb = u[d] - 0.5f;
        const int64_t i = ifloor(xb);
        float fr = xb - float(i); /* exact where xb can have a fraction */
        if (!(fr >= 0.0f && fr < 1.0f)) fr = 0.0f;
        /* the weight in 9-bit fixed point, 8 bits of fraction: 0, 1/256, ... 1 */
        const float a = float(ifloor(fr * 256.0f + 0.5f)) / 256.0f;
        lo[d] = address(i, o.n[d], o.addr[d]);
        hi[d] = address(i + 1, o.n[d], o.addr[d]);
        w1[d] = a;
    }
    double acc[4] = {0, 0, 0, 0};
    for (int corner = 0; corner < (1 << o.dims); ++corner) {
        double w = 1.0;
        int64_t ix[3] = {0, 0, 0};
        bool border = false;
        for (int d = 0; d < o.dims; ++d) {
            const bool up = corner >> d & 1;
            w *= up ? w1[d] : 1.0f - w1[d];
            ix[d] = up ? hi[d] : lo[d];
            border |= ix[d] < 0;
        }
        if (w == 0.0) continue;
        if (border) {
            for (int c = 0; c < o.ch; ++c) acc[c] += w * double(o.border.f[c]);
            continue;
        }
        const char *p = element(o, ix);
        for (int c = 0; c < o.ch; ++c) acc[c] += w * double(load_f(o, p, c));
    }
    *out = o.fill;
    for (int c = 0; c < o.ch; ++c) out->f[c] = float(acc[c]);
}

} // namespace

namespace detail {

void tex_fetch(cudaTextureObject_t h, int call, float x, float y, float z, int cls, Texel *out)
{
    const Obj &t = texture(h, call, cls);
    Obj one_layer;
    const Obj *op = &t;
    if (t.layered) { /* the layer z names, clamped, as an array of dims 1 or 2 */
        const int64_t l = z >= float(t.n[2] - 1) ? t.n[2] - 1 : z > 0.0f ? int64_t(z) : 0;
        one_layer = t;
        one_layer.base += size_t(l) * t.slice;
        op = &one_layer;
    }
    const Obj &o = *op;
    if (o.filter_linear) {
        const float c[3] = {x, y, z};
        float u[3];
        for (int d = 0; d < o.dims; ++d) u[d] = texels(o, d, c[d]);
        linear(o, u, out);
    } else if (o.dims == 2) {
        point<2>(o, x, y, z, out);
    } else if (o.dims == 1) {
        point<1>(o, x, y, z, out);
    } else {
        point<3>(o, x, y, z, out);
    }
}

void tex_fetch_index(cudaTextureObject_t h, int x, int cls, Texel *out)
{
    const Obj &o = texture(h, kTex1Dfetch, cls);
    if (x < 0 || x >= o.n[0]) { /* outside the resource: zeros */
        for (int c = 0; c < 4; ++c) out->i[c] = 0;
        return;
    }
    read(o, o.base + size_t(x) * o.elem, out);
}

void surf_access(cudaSurfaceObject_t h, int kind, int x, int y, int z, void *data, unsigned size,
                 int mode, bool write)
{
    static const char *names[2][5] = {
        {"surf1Dread", "surf2Dread", "surf3Dread", "surf1DLayeredread", "surf2DLayeredread"},
        {"surf1Dwrite", "surf2Dwrite", "surf3Dwrite", "surf1DLayeredwrite", "surf2DLayeredwrite"}};
    const char *what = names[write][kind - 1];
    const Obj *o = live(h, true);
    if (!o) bad_handle(what, h, true);
    const bool layered = kind >= kSurf1DLayered;
    if (layered != o->layered)
        kernel_fault(o->layered ? "%s on a layered surface (a cudaArrayLayered array): use "
                                  "surf1DLayered or surf2DLayered reads and writes"
                                : "%s on a surface that is not layered: the array was not "
                                  "allocated with cudaArrayLayered",
                     what);
    /* the coordinates used: x always; y for 2D, 3D and 2D layered; z (the
     * layer of a layered surface) for 3D and layered */
    const bool use[3] = {true, kind == 2 || kind == 3 || kind == kSurf2DLayered,
                         kind == 3 || layered};
    if (size != o->elem)
        kernel_fault("%s of a %u-byte value from a surface of %zu-byte elements", what, size,
                     o->elem);
    if (unsigned(mode) > unsigned(cudaBoundaryModeTrap))
        kernel_fault("%s: boundary mode %d is not a cudaSurfaceBoundaryMode", what, mode);
    int64_t ix[3] = {0, 0, 0};
    const int64_t c[3] = {x, y, z};
    for (int d = 0; d < 3; ++d) {
        int64_t i = use[d] ? c[d] : 0;
        if (d == 0) {
            if (i >= 0 && i % int64_t(o->elem) != 0)
                kernel_fault("%s: x = %d bytes is not a multiple of the %zu-byte element", what,
                             x, o->elem);
            i = i < 0 ? -1 : i / int64_t(o->elem);
        }
        if (i < 0 || i >= o->n[d]) {
            if (mode == cudaBoundaryModeZero) {
                if (!write) std::memset(data, 0, size);
                return;
            }
            if (mode == cudaBoundaryModeTrap)
                kernel_fault("%s: (%d, %d, %d) is outside the %lldx%lldx%lld-element surface "
                             "(cudaBoundaryModeTrap; x is in bytes)", what, x, y, z,
                             (long long)o->n[0], (long long)o->n[1], (long long)o->n[2]);
            i = i < 0 ? 0 : o->n[d] - 1;
        }
        ix[d] = i;
    }
    char *p = const_cast<char *>(element(*o, ix));
    if (write) std::memcpy(p, data, size);
    else std::memcpy(data, p, size);
}

} // namespace detail

void objects_lose_array(const cudaArray *a)
{
    for (Obj &o : g_objs)
        if (o.live && o.array == a) {
            o.live = false;
            o.gone = "its CUDA array was freed (cudaFreeArray)";
        }
}

void objects_lose_memory(uintptr_t base, size_t size, const char *why)
{
    for (Obj &o : g_objs) {
        const uintptr_t p = reinterpret_cast<uintptr_t>(o.base);
        if (o.live && !o.array && p >= base && p - base < size) {
            o.live = false;
            o.gone = why;
        }
    }
}

void objects_lose_device(int d)
{
    for (Obj &o : g_objs)
        if (o.live && o.device == d) {
            o.live = false;
            o.gone = "its device was reset (cudaDeviceReset)";
        }
}

} // namespace cudaemu

using namespace cudaemu;

namespace {

cudaError_t create(unsigned long long *h, const cudaResourceDesc *r, const cudaTextureDesc *t,
                   const cudaResourceViewDesc *view, bool surface)
{
    const char *fname = surface ? "cudaCreateSurfaceObject" : "cudaCreateTextureObject";
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    if (!h) return ret(cudaErrorInvalidValue);
    Obj o;
    o.surface = surface;
    o.device = cur_dev();
    if (cudaError_t e = set_resource(o, r, surface, fname)) return ret(e);
    if (!surface)
        if (cudaError_t e = set_sampling(o, t, view)) return ret(e);
    return ret(make_handle(o, h));
}

cudaError_t destroy(unsigned long long h, bool surface)
{
    CUDAEMU_LOCK;
    if (config().ndev == 0) return ret(cudaErrorNoDevice);
    if (h == 0) return cudaSuccess;
    Obj *o = slot(h);
    if (!o || o->gen != (h >> 32) || o->surface != surface || (!o->live && !o->gone))
        return ret(cudaErrorInvalidValue);
    sync_device(o->device); /* queued kernels may still read through it */
    o->live = false;
    o->gone = nullptr;
    g_free.push_back(uint32_t((h & 0xffffffffu) - 1));
    return cudaSuccess;
}

const Obj *known(unsigned long long h, bool surface)
{
    const Obj *o = slot(h);
    return o && o->gen == (h >> 32) && o->surface == surface && (o->live || o->gone) ? o : nullptr;
}

} // namespace

inline namespace cudaemu_api {

cudaError_t cudaCreateTextureObject(cudaTextureObject_t *pTexObject,
                                    const cudaResourceDesc *pResDesc,
                                    const cudaTextureDesc *pTexDesc,
                                    const cudaResourceViewDesc *pResViewDesc)
{
    return create(pTexObject, pResDesc, pTexDesc, pResViewDesc, false);
}

cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject)
{
    return destroy(texObject, false);
}

cudaError_t cudaGetTextureObjectResourceDesc(cudaResourceDesc *pResDesc,
                                             cudaTextureObject_t texObject)
{
    CUDAEMU_LOCK;
    const Obj *o = known(texObject, false);
    if (!o || !pResDesc) return ret(cudaErrorInvalidValue);
    *pResDesc = o->res;
    return cudaSuccess;
}

cudaError_t cudaGetTextureObjectTextureDesc(cudaTextureDesc *pTexDesc,
                                            cudaTextureObject_t texObject)
{
    CUDAEMU_LOCK;
    const Obj *o = known(texObject, false);
    if (!o || !pTexDesc) return ret(cudaErrorInvalidValue);
    *pTexDesc = o->td;
    return cudaSuccess;
}

cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *pSurfObject,
                                    const cudaResourceDesc *pResDesc)
{
    return create(pSurfObject, pResDesc, nullptr, nullptr, true);
}

cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject)
{
    return destroy(surfObject, true);
}

cudaError_t cudaGetSurfaceObjectResourceDesc(cudaResourceDesc *pResDesc,
                                             cudaSurfaceObject_t surfObject)
{
    CUDAEMU_LOCK;
    const Obj *o = known(surfObject, true);
    if (!o || !pResDesc) return ret(cudaErrorInvalidValue);
    *pResDesc = o->res;
    return cudaSuccess;
}

} // inline namespace cudaemu_api
