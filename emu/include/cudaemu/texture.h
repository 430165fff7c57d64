/* emu/include/cudaemu/texture.h - CUDA arrays, texture and surface objects for the
 * host emulator.  Included by cuda_runtime.h; do not include directly.
 *
 * Types, enums and values are CUDA 13.0's (driver_types.h, texture_types.h,
 * surface_types.h); the host calls live in emu/src/arrays.cpp (arrays and
 * the copies to and from them) and emu/src/texture.cpp (objects, fetches).
 * A fetch (tex1Dfetch, tex1D, tex2D, tex3D, surf*read/write) calls into the
 * library, which looks the object up, applies the address mode, filters as
 * the CUDA Programming Guide's "Texture Fetching" appendix specifies (linear
 * filtering with 9-bit fixed-point weights, 8 bits of fraction) and returns
 * four channels as float or as 32-bit integers; the templates below convert
 * them to the type the kernel asked for.  A fetch through an object that is
 * not alive, or one whose type does not fit the texture, fails the launch
 * with one cudaemu line (emu/README.md, "Textures and surfaces").
 */
#ifndef CUDAEMU_TEXTURE_H
#define CUDAEMU_TEXTURE_H

#include <cstring>
#include <type_traits>

/* the toolkit headers whose contents this one provides */
#define __TEXTURE_TYPES_H__
#define __SURFACE_TYPES_H__
#define __CHANNEL_DESCRIPTOR_H__
#define __TEXTURE_INDIRECT_FUNCTIONS_H__
#define __SURFACE_INDIRECT_FUNCTIONS_H__

/* ---- channel formats and CUDA arrays ------------------------------------ */
enum cudaChannelFormatKind : int {
    cudaChannelFormatKindSigned = 0,
    cudaChannelFormatKindUnsigned = 1,
    cudaChannelFormatKindFloat = 2,
    cudaChannelFormatKindNone = 3,
    cudaChannelFormatKindNV12 = 4,
    cudaChannelFormatKindUnsignedNormalized8X1 = 5,
    cudaChannelFormatKindUnsignedNormalized8X2 = 6,
    cudaChannelFormatKindUnsignedNormalized8X4 = 7,
    cudaChannelFormatKindUnsignedNormalized16X1 = 8,
    cudaChannelFormatKindUnsignedNormalized16X2 = 9,
    cudaChannelFormatKindUnsignedNormalized16X4 = 10,
    cudaChannelFormatKindSignedNormalized8X1 = 11,
    cudaChannelFormatKindSignedNormalized8X2 = 12,
    cudaChannelFormatKindSignedNormalized8X4 = 13,
    cudaChannelFormatKindSignedNormalized16X1 = 14,
    cudaChannelFormatKindSignedNormalized16X2 = 15,
    cudaChannelFormatKindSignedNormalized16X4 = 16,
    cudaChannelFormatKindUnsignedBlockCompressed1 = 17,
    cudaChannelFormatKindUnsignedBlockCompressed1SRGB = 18,
    cudaChannelFormatKindUnsignedBlockCompressed2 = 19,
    cudaChannelFormatKindUnsignedBlockCompressed2SRGB = 20,
    cudaChannelFormatKindUnsignedBlockCompressed3 = 21,
    cudaChannelFormatKindUnsignedBlockCompressed3SRGB = 22,
    cudaChannelFormatKindUnsignedBlockCompressed4 = 23,
    cudaChannelFormatKindSignedBlockCompressed4 = 24,
    cudaChannelFormatKindUnsignedBlockCompressed5 = 25,
    cudaChannelFormatKindSignedBlockCompressed5 = 26,
    cudaChannelFormatKindUnsignedBlockCompressed6H = 27,
    cudaChannelFormatKindSignedBlockCompressed6H = 28,
    cudaChannelFormatKindUnsignedBlockCompressed7 = 29,
    cudaChannelFormatKindUnsignedBlockCompressed7SRGB = 30,
    cudaChannelFormatKindUnsignedNormalized1010102 = 31
};

/* Bits per channel (x, y, z, w) and their kind.  The emulator takes 1, 2 or
 * 4 channels of one size: 8, 16 or 32 bits (Signed, Unsigned), 16 (half) or
 * 32 bits (Float). */
struct cudaChannelFormatDesc {
    int x, y, z, w;
    enum cudaChannelFormatKind f;
};

/* Opaque handles; the library defines struct cudaArray. */
struct cudaArray;
typedef struct cudaArray *cudaArray_t;
typedef const struct cudaArray *cudaArray_const_t;
struct cudaMipmappedArray;
typedef struct cudaMipmappedArray *cudaMipmappedArray_t;
typedef const struct cudaMipmappedArray *cudaMipmappedArray_const_t;

#define cudaArrayDefault 0x00
#define cudaArrayLayered 0x01
#define cudaArraySurfaceLoadStore 0x02
#define cudaArrayCubemap 0x04
#define cudaArrayTextureGather 0x08
#define cudaArrayColorAttachment 0x20
#define cudaArraySparse 0x40
#define cudaArrayDeferredMapping 0x80

struct cudaPitchedPtr {
    void *ptr;    /* the memory */
    size_t pitch; /* bytes from one row to the next */
    size_t xsize; /* width in elements (bytes for linear memory) */
    size_t ysize; /* rows per slice */
};
struct cudaExtent {
    size_t width; /* elements of an array, bytes of linear memory */
    size_t height;
    size_t depth;
};
struct cudaPos {
    size_t x, y, z;
};
struct cudaMemcpy3DParms {
    cudaArray_t srcArray;
    struct cudaPos srcPos;
    struct cudaPitchedPtr srcPtr;
    cudaArray_t dstArray;
    struct cudaPos dstPos;
    struct cudaPitchedPtr dstPtr;
    struct cudaExtent extent;
    enum cudaMemcpyKind kind;
};

inline cudaPitchedPtr make_cudaPitchedPtr(void *d, size_t p, size_t xsz, size_t ysz)
{
    cudaPitchedPtr s;
    s.ptr = d;
    s.pitch = p;
    s.xsize = xsz;
    s.ysize = ysz;
    return s;
}
inline cudaPos make_cudaPos(size_t x, size_t y, size_t z)
{
    cudaPos p;
    p.x = x;
    p.y = y;
    p.z = z;
    return p;
}
inline cudaExtent make_cudaExtent(size_t w, size_t h, size_t d)
{
    cudaExtent e;
    e.width = w;
    e.height = h;
    e.depth = d;
    return e;
}

/* ---- resources, texture and surface descriptors ------------------------- */
enum cudaResourceType : int {
    cudaResourceTypeArray = 0x00,
    cudaResourceTypeMipmappedArray = 0x01,
    cudaResourceTypeLinear = 0x02,
    cudaResourceTypePitch2D = 0x03
};

enum cudaResourceViewFormat : int {
    cudaResViewFormatNone = 0x00,
    cudaResViewFormatUnsignedChar1 = 0x01,
    cudaResViewFormatUnsignedChar2 = 0x02,
    cudaResViewFormatUnsignedChar4 = 0x03,
    cudaResViewFormatSignedChar1 = 0x04,
    cudaResViewFormatSignedChar2 = 0x05,
    cudaResViewFormatSignedChar4 = 0x06,
    cudaResViewFormatUnsignedShort1 = 0x07,
    cudaResViewFormatUnsignedShort2 = 0x08,
    cudaResViewFormatUnsignedShort4 = 0x09,
    cudaResViewFormatSignedShort1 = 0x0a,
    cudaResViewFormatSignedShort2 = 0x0b,
    cudaResViewFormatSignedShort4 = 0x0c,
    cudaResViewFormatUnsignedInt1 = 0x0d,
    cudaResViewFormatUnsignedInt2 = 0x0e,
    cudaResViewFormatUnsignedInt4 = 0x0f,
    cudaResViewFormatSignedInt1 = 0x10,
    cudaResViewFormatSignedInt2 = 0x11,
    cudaResViewFormatSignedInt4 = 0x12,
    cudaResViewFormatHalf1 = 0x13,
    cudaResViewFormatHalf2 = 0x14,
    cudaResViewFormatHalf4 = 0x15,
    cudaResViewFormatFloat1 = 0x16,
    cudaResViewFormatFloat2 = 0x17,
    cudaResViewFormatFloat4 = 0x18,
    cudaResViewFormatUnsignedBlockCompressed1 = 0x19,
    cudaResViewFormatUnsignedBlockCompressed2 = 0x1a,
    cudaResViewFormatUnsignedBlockCompressed3 = 0x1b,
    cudaResViewFormatUnsignedBlockCompressed4 = 0x1c,
    cudaResViewFormatSignedBlockCompressed4 = 0x1d,
    cudaResViewFormatUnsignedBlockCompressed5 = 0x1e,
    cudaResViewFormatSignedBlockCompressed5 = 0x1f,
    cudaResViewFormatUnsignedBlockCompressed6H = 0x20,
    cudaResViewFormatSignedBlockCompressed6H = 0x21,
    cudaResViewFormatUnsignedBlockCompressed7 = 0x22
};

struct cudaResourceDesc {
    enum cudaResourceType resType;
    union {
        struct {
            cudaArray_t array;
        } array;
        struct {
            cudaMipmappedArray_t mipmap;
        } mipmap;
        struct {
            void *devPtr;
            struct cudaChannelFormatDesc desc;
            size_t sizeInBytes;
        } linear;
        struct {
            void *devPtr;
            struct cudaChannelFormatDesc desc;
            size_t width;        /* elements */
            size_t height;       /* rows */
            size_t pitchInBytes;
        } pitch2D;
        struct {
            int reserved[32];
        } reserved;
    } res;
    unsigned int flags; /* must be 0 */
};

struct cudaResourceViewDesc {
    enum cudaResourceViewFormat format;
    size_t width;
    size_t height;
    size_t depth;
    unsigned int firstMipmapLevel;
    unsigned int lastMipmapLevel;
    unsigned int firstLayer;
    unsigned int lastLayer;
    unsigned int reserved[16];
};

#define cudaTextureType1D 0x01
#define cudaTextureType2D 0x02
#define cudaTextureType3D 0x03
#define cudaTextureTypeCubemap 0x0C
#define cudaTextureType1DLayered 0xF1
#define cudaTextureType2DLayered 0xF2
#define cudaTextureTypeCubemapLayered 0xFC
#define cudaSurfaceType1D 0x01
#define cudaSurfaceType2D 0x02
#define cudaSurfaceType3D 0x03
#define cudaSurfaceTypeCubemap 0x0C
#define cudaSurfaceType1DLayered 0xF1
#define cudaSurfaceType2DLayered 0xF2
#define cudaSurfaceTypeCubemapLayered 0xFC

enum cudaTextureAddressMode : int {
    cudaAddressModeWrap = 0,
    cudaAddressModeClamp = 1,
    cudaAddressModeMirror = 2,
    cudaAddressModeBorder = 3
};
enum cudaTextureFilterMode : int {
    cudaFilterModePoint = 0,
    cudaFilterModeLinear = 1
};
enum cudaTextureReadMode : int {
    cudaReadModeElementType = 0,
    cudaReadModeNormalizedFloat = 1
};
enum cudaSurfaceBoundaryMode : int {
    cudaBoundaryModeZero = 0,
    cudaBoundaryModeClamp = 1,
    cudaBoundaryModeTrap = 2
};
enum cudaSurfaceFormatMode : int {
    cudaFormatModeForced = 0,
    cudaFormatModeAuto = 1
};

struct cudaTextureDesc {
    enum cudaTextureAddressMode addressMode[3];
    enum cudaTextureFilterMode filterMode;
    enum cudaTextureReadMode readMode;
    int sRGB;
    float borderColor[4];
    int normalizedCoords;
    unsigned int maxAnisotropy;
    enum cudaTextureFilterMode mipmapFilterMode;
    float mipmapLevelBias;
    float minMipmapLevelClamp;
    float maxMipmapLevelClamp;
    int disableTrilinearOptimization;
    int seamlessCubemap;
};

typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;

/* ---- the host API ------------------------------------------------------- */
inline namespace cudaemu_api {
/* arrays (emu/src/arrays.cpp): dense rows of width x element bytes, in
 * device memory; filled with 0xFF bytes like cudaMalloc's */
cudaError_t cudaMallocArray(cudaArray_t *array, const cudaChannelFormatDesc *desc, size_t width,
                            size_t height = 0, unsigned int flags = 0);
cudaError_t cudaMalloc3DArray(cudaArray_t *array, const cudaChannelFormatDesc *desc,
                              cudaExtent extent, unsigned int flags = 0);
cudaError_t cudaFreeArray(cudaArray_t array);
cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc *desc, cudaExtent *extent, unsigned int *flags,
                             cudaArray_t array);
cudaError_t cudaGetChannelDesc(cudaChannelFormatDesc *desc, cudaArray_const_t array);
/* wOffset and width in bytes, hOffset and height in rows, as CUDA */
cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                                size_t spitch, size_t width, size_t height, cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                     const void *src, size_t spitch, size_t width, size_t height,
                                     cudaMemcpyKind kind, cudaStream_t stream = 0);
cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                  size_t hOffset, size_t width, size_t height, cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src,
                                       size_t wOffset, size_t hOffset, size_t width, size_t height,
                                       cudaMemcpyKind kind, cudaStream_t stream = 0);
cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                     cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc,
                                     size_t width, size_t height,
                                     cudaMemcpyKind kind = cudaMemcpyDeviceToDevice);
/* deprecated in CUDA, still used: count bytes from (wOffset, hOffset) on, row after row */
cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                              size_t count, cudaMemcpyKind kind);
cudaError_t cudaMemcpyToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset,
                                   const void *src, size_t count, cudaMemcpyKind kind,
                                   cudaStream_t stream = 0);
cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                                size_t count, cudaMemcpyKind kind);
cudaError_t cudaMemcpyFromArrayAsync(void *dst, cudaArray_const_t src, size_t wOffset,
                                     size_t hOffset, size_t count, cudaMemcpyKind kind,
                                     cudaStream_t stream = 0);
cudaError_t cudaMemcpyArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst,
                                   cudaArray_const_t src, size_t wOffsetSrc, size_t hOffsetSrc,
                                   size_t count, cudaMemcpyKind kind = cudaMemcpyDeviceToDevice);
cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms *p);
cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms *p, cudaStream_t stream = 0);
/* pitched 3D linear memory (cudaMallocPitch of width x height*depth) */
cudaError_t cudaMalloc3D(cudaPitchedPtr *pitchedDevPtr, cudaExtent extent);
cudaError_t cudaMemset3D(cudaPitchedPtr pitchedDevPtr, int value, cudaExtent extent);
cudaError_t cudaMemset3DAsync(cudaPitchedPtr pitchedDevPtr, int value, cudaExtent extent,
                              cudaStream_t stream = 0);

/* texture and surface objects (emu/src/texture.cpp) */
cudaError_t cudaCreateTextureObject(cudaTextureObject_t *pTexObject,
                                    const cudaResourceDesc *pResDesc,
                                    const cudaTextureDesc *pTexDesc,
                                    const cudaResourceViewDesc *pResViewDesc);
/* Runs the device's queued work first: queued kernels may still use it. */
cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject);
cudaError_t cudaGetTextureObjectResourceDesc(cudaResourceDesc *pResDesc,
                                             cudaTextureObject_t texObject);
cudaError_t cudaGetTextureObjectTextureDesc(cudaTextureDesc *pTexDesc,
                                            cudaTextureObject_t texObject);
cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *pSurfObject,
                                    const cudaResourceDesc *pResDesc);
cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t surfObject);
cudaError_t cudaGetSurfaceObjectResourceDesc(cudaResourceDesc *pResDesc,
                                             cudaSurfaceObject_t surfObject);

inline cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                   cudaChannelFormatKind f)
{
    cudaChannelFormatDesc d;
    d.x = x;
    d.y = y;
    d.z = z;
    d.w = w;
    d.f = f;
    return d;
}
inline cudaChannelFormatDesc cudaCreateChannelDescHalf()
{ return cudaCreateChannelDesc(16, 0, 0, 0, cudaChannelFormatKindFloat); }
inline cudaChannelFormatDesc cudaCreateChannelDescHalf1()
{ return cudaCreateChannelDesc(16, 0, 0, 0, cudaChannelFormatKindFloat); }
inline cudaChannelFormatDesc cudaCreateChannelDescHalf2()
{ return cudaCreateChannelDesc(16, 16, 0, 0, cudaChannelFormatKindFloat); }
inline cudaChannelFormatDesc cudaCreateChannelDescHalf4()
{ return cudaCreateChannelDesc(16, 16, 16, 16, cudaChannelFormatKindFloat); }
} // inline namespace cudaemu_api

/* ---- element types ------------------------------------------------------ */
namespace cudaemu {
namespace detail {
/* What the library hands back to the typed fetches: four channels, as
 * floats (float textures, 8/16-bit integers read as normalized floats) or as
 * 32-bit integers (sign- or zero-extended); missing channels are (0, 0, 0, 1). */
struct Texel {
    union {
        float f[4];
        int i[4];
    };
};
enum TexClass : int { kTexFloat = 0, kTexInt = 1 };
enum TexCall : int { kTex1Dfetch = 0, kTex1D = 1, kTex2D = 2, kTex3D = 3, kTex1DLayered = 4,
                     kTex2DLayered = 5 };
/* surf_access's kind: 1, 2, 3 dimensions, or a layer of a layered surface */
enum SurfKind : int { kSurf1DLayered = 4, kSurf2DLayered = 5 };

/* The element types of texture fetches and channel descriptors: a
 * component type and 1, 2 or 4 components. */
template <class T> struct tex_elem { static constexpr bool ok = false; };
#define CUDAEMU_TEX_ELEM(T, C, N)                                              \
    template <> struct tex_elem<T> {                                           \
        using comp = C;                                                        \
        static constexpr bool ok = true;                                       \
        static constexpr int n = N;                                            \
    };
#define CUDAEMU_TEX_VECS(V, C)                                                 \
    CUDAEMU_TEX_ELEM(V##1, C, 1) CUDAEMU_TEX_ELEM(V##2, C, 2)                  \
    CUDAEMU_TEX_ELEM(V##4, C, 4)
CUDAEMU_TEX_ELEM(char, char, 1)
CUDAEMU_TEX_ELEM(signed char, signed char, 1)
CUDAEMU_TEX_ELEM(unsigned char, unsigned char, 1)
CUDAEMU_TEX_ELEM(short, short, 1)
CUDAEMU_TEX_ELEM(unsigned short, unsigned short, 1)
CUDAEMU_TEX_ELEM(int, int, 1)
CUDAEMU_TEX_ELEM(unsigned int, unsigned int, 1)
CUDAEMU_TEX_ELEM(float, float, 1)
CUDAEMU_TEX_VECS(char, signed char)
CUDAEMU_TEX_VECS(uchar, unsigned char)
CUDAEMU_TEX_VECS(short, short)
CUDAEMU_TEX_VECS(ushort, unsigned short)
CUDAEMU_TEX_VECS(int, int)
CUDAEMU_TEX_VECS(uint, unsigned int)
CUDAEMU_TEX_VECS(float, float)
#undef CUDAEMU_TEX_VECS
#undef CUDAEMU_TEX_ELEM

template <class T> struct tex_dependent_false : std::false_type {};

template <class T> inline cudaChannelFormatDesc channel_desc_of()
{
    if constexpr (tex_elem<T>::ok) {
        using C = typename tex_elem<T>::comp;
        constexpr int n = tex_elem<T>::n, b = int(sizeof(C)) * 8;
        constexpr cudaChannelFormatKind k = std::is_floating_point<C>::value
                                                ? cudaChannelFormatKindFloat
                                            : std::is_signed<C>::value ? cudaChannelFormatKindSigned
                                                                       : cudaChannelFormatKindUnsigned;
        return cudaCreateChannelDesc(b, n > 1 ? b : 0, n > 2 ? b : 0, n > 3 ? b : 0, k);
    } else {
        return cudaCreateChannelDesc(0, 0, 0, 0, cudaChannelFormatKindNone);
    }
}

/* library side of the fetches (emu/src/texture.cpp); on a bad object or a
 * type that does not fit the texture they fail the launch */
void tex_fetch(cudaTextureObject_t obj, int call, float x, float y, float z, int cls, Texel *out);
void tex_fetch_index(cudaTextureObject_t obj, int x, int cls, Texel *out);
void surf_access(cudaSurfaceObject_t obj, int kind, int x, int y, int z, void *data,
                 unsigned size, int mode, bool write);

template <class T> inline T texel_as(const Texel &t)
{
    static_assert(tex_elem<T>::ok, "cudaemu: a texture fetch returns char, short, int, their "
                                   "unsigned forms, float, or their 1-, 2- and 4-vectors");
    using C = typename tex_elem<T>::comp;
    C c[4];
    for (int k = 0; k < tex_elem<T>::n; ++k)
        c[k] = std::is_floating_point<C>::value ? C(t.f[k]) : C(t.i[k]);
    T v;
    std::memcpy(&v, c, sizeof v);
    return v;
}
template <class T> constexpr int tex_class()
{
    return std::is_floating_point<typename tex_elem<T>::comp>::value ? kTexFloat : kTexInt;
}
template <class T> inline T tex_get(cudaTextureObject_t o, int call, float x, float y, float z)
{
    static_assert(tex_elem<T>::ok, "cudaemu: a texture fetch returns char, short, int, their "
                                   "unsigned forms, float, or their 1-, 2- and 4-vectors");
    Texel t;
    tex_fetch(o, call, x, y, z, tex_class<T>(), &t);
    return texel_as<T>(t);
}
template <class T>
using tex_ptr_ok = typename std::enable_if<tex_elem<T>::ok>::type;
} // namespace detail
} // namespace cudaemu

inline namespace cudaemu_api {
template <class T> inline cudaChannelFormatDesc cudaCreateChannelDesc()
{ return ::cudaemu::detail::channel_desc_of<T>(); }
} // inline namespace cudaemu_api

/* ---- device fetches ----------------------------------------------------- */
/* tex1Dfetch: integer index into linear memory, no filtering; an index
 * outside the resource reads zeros. */
template <class T> inline T tex1Dfetch(cudaTextureObject_t obj, int x)
{
    static_assert(cudaemu::detail::tex_elem<T>::ok, "cudaemu: a texture fetch returns char, "
                  "short, int, their unsigned forms, float, or their 1-, 2- and 4-vectors");
    cudaemu::detail::Texel t;
    cudaemu::detail::tex_fetch_index(obj, x, cudaemu::detail::tex_class<T>(), &t);
    return cudaemu::detail::texel_as<T>(t);
}
template <class T> inline cudaemu::detail::tex_ptr_ok<T> tex1Dfetch(T *ptr, cudaTextureObject_t obj, int x)
{ *ptr = tex1Dfetch<T>(obj, x); }

template <class T> inline T tex1D(cudaTextureObject_t obj, float x)
{ return cudaemu::detail::tex_get<T>(obj, cudaemu::detail::kTex1D, x, 0.f, 0.f); }
template <class T> inline cudaemu::detail::tex_ptr_ok<T> tex1D(T *ptr, cudaTextureObject_t obj, float x)
{ *ptr = tex1D<T>(obj, x); }
template <class T> inline T tex2D(cudaTextureObject_t obj, float x, float y)
{ return cudaemu::detail::tex_get<T>(obj, cudaemu::detail::kTex2D, x, y, 0.f); }
template <class T> inline cudaemu::detail::tex_ptr_ok<T> tex2D(T *ptr, cudaTextureObject_t obj, float x, float y)
{ *ptr = tex2D<T>(obj, x, y); }
/* sparse arrays are not emulated: every texel is resident */
template <class T> inline T tex2D(cudaTextureObject_t obj, float x, float y, bool *isResident)
{
    if (isResident) *isResident = true;
    return tex2D<T>(obj, x, y);
}
template <class T> inline T tex3D(cudaTextureObject_t obj, float x, float y, float z)
{ return cudaemu::detail::tex_get<T>(obj, cudaemu::detail::kTex3D, x, y, z); }
template <class T> inline cudaemu::detail::tex_ptr_ok<T> tex3D(T *ptr, cudaTextureObject_t obj, float x, float y, float z)
{ *ptr = tex3D<T>(obj, x, y, z); }
template <class T> inline T tex3D(cudaTextureObject_t obj, float x, float y, float z, bool *isResident)
{
    if (isResident) *isResident = true;
    return tex3D<T>(obj, x, y, z);
}
/* Lod: arrays here have one level (no mipmaps), which every level reads */
template <class T> inline T tex1DLod(cudaTextureObject_t obj, float x, float)
{ return tex1D<T>(obj, x); }
template <class T> inline T tex2DLod(cudaTextureObject_t obj, float x, float y, float)
{ return tex2D<T>(obj, x, y); }
template <class T> inline T tex3DLod(cudaTextureObject_t obj, float x, float y, float z, float)
{ return tex3D<T>(obj, x, y, z); }

/* Layered: a 1D or 2D fetch in one layer (an integer index, clamped to the
 * array's layers); no filtering across layers. */
template <class T> inline T tex1DLayered(cudaTextureObject_t obj, float x, int layer)
{ return cudaemu::detail::tex_get<T>(obj, cudaemu::detail::kTex1DLayered, x, 0.f, float(layer)); }
template <class T> inline cudaemu::detail::tex_ptr_ok<T> tex1DLayered(T *ptr, cudaTextureObject_t obj, float x, int layer)
{ *ptr = tex1DLayered<T>(obj, x, layer); }
template <class T> inline T tex2DLayered(cudaTextureObject_t obj, float x, float y, int layer)
{ return cudaemu::detail::tex_get<T>(obj, cudaemu::detail::kTex2DLayered, x, y, float(layer)); }
template <class T> inline cudaemu::detail::tex_ptr_ok<T> tex2DLayered(T *ptr, cudaTextureObject_t obj, float x, float y, int layer)
{ *ptr = tex2DLayered<T>(obj, x, y, layer); }
template <class T> inline T tex2DLayered(cudaTextureObject_t obj, float x, float y, int layer, bool *isResident)
{
    if (isResident) *isResident = true;
    return tex2DLayered<T>(obj, x, y, layer);
}
template <class T> inline T tex1DLayeredLod(cudaTextureObject_t obj, float x, int layer, float)
{ return tex1DLayered<T>(obj, x, layer); }
template <class T> inline T tex2DLayeredLod(cudaTextureObject_t obj, float x, float y, int layer, float)
{ return tex2DLayered<T>(obj, x, y, layer); }

/* what is not emulated stops the compile with one line */
#define CUDAEMU_TEX_MISSING(name)                                              \
    template <class T, class... A> inline T name(A...)                         \
    {                                                                          \
        static_assert(cudaemu::detail::tex_dependent_false<T>::value,          \
                      "cudaemu: " #name " is not emulated (cubemap, gather "   \
                      "and gradient fetches)");                                \
        return T();                                                            \
    }
CUDAEMU_TEX_MISSING(tex1DGrad)
CUDAEMU_TEX_MISSING(tex2DGrad)
CUDAEMU_TEX_MISSING(tex3DGrad)
CUDAEMU_TEX_MISSING(tex2Dgather)
CUDAEMU_TEX_MISSING(texCubemap)
CUDAEMU_TEX_MISSING(texCubemapLod)
CUDAEMU_TEX_MISSING(texCubemapLayered)
#undef CUDAEMU_TEX_MISSING

/* ---- surfaces: x in bytes, y and z in rows and slices ------------------- */
template <class T>
inline void surf1Dread(T *out, cudaSurfaceObject_t s, int x,
                       cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap)
{ cudaemu::detail::surf_access(s, 1, x, 0, 0, out, sizeof(T), mode, false); }
template <class T>
inline T surf1Dread(cudaSurfaceObject_t s, int x, cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap)
{
    T v;
    surf1Dread(&v, s, x, mode);
    return v;
}
template <class T>
inline void surf1Dwrite(T v, cudaSurfaceObject_t s, int x,
                        cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap)
{ cudaemu::detail::surf_access(s, 1, x, 0, 0, &v, sizeof(T), mode, true); }
template <class T>
inline void surf2Dread(T *out, cudaSurfaceObject_t s, int x, int y,
                       cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap)
{ cudaemu::detail::surf_access(s, 2, x, y, 0, out, sizeof(T), mode, false); }
template <class T>
inline T surf2Dread(cudaSurfaceObject_t s, int x, int y,
                    cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap)
{
    T v;
    surf2Dread(&v, s, x, y, mode);
    return v;
}
template <class T>
inline void surf2Dwrite(T v, cudaSurfaceObject_t s, int x, int y,
                        cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap)
{ cudaemu::detail::surf_access(s, 2, x, y, 0, &v, sizeof(T), mode, true); }
template <class T>
inline void surf3Dread(T *out, cudaSurfaceObject_t s, int x, int y, int z,
                       cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap)
{ cudaemu::detail::surf_access(s, 3, x, y, z, out, sizeof(T), mode, false); }
template <class T>
inline T surf3Dread(cudaSurfaceObject_t s, int x, int y, int z,
                    cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap)
{
    T v;
    surf3Dread(&v, s, x, y, z, mode);
    return v;
}
template <class T>
inline void surf3Dwrite(T v, cudaSurfaceObject_t s, int x, int y, int z,
                        cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap)
{ cudaemu::detail::surf_access(s, 3, x, y, z, &v, sizeof(T), mode, true); }
template <class T>
inline void surf1DLayeredread(T *out, cudaSurfaceObject_t s, int x, int layer,
                              cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap)
{ cudaemu::detail::surf_access(s, cudaemu::detail::kSurf1DLayered, x, 0, layer, out, sizeof(T), mode, false); }
template <class T>
inline T surf1DLayeredread(cudaSurfaceObject_t s, int x, int layer,
                           cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap)
{
    T v;
    surf1DLayeredread(&v, s, x, layer, mode);
    return v;
}
template <class T>
inline void surf1DLayeredwrite(T v, cudaSurfaceObject_t s, int x, int layer,
                               cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap)
{ cudaemu::detail::surf_access(s, cudaemu::detail::kSurf1DLayered, x, 0, layer, &v, sizeof(T), mode, true); }
template <class T>
inline void surf2DLayeredread(T *out, cudaSurfaceObject_t s, int x, int y, int layer,
                              cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap)
{ cudaemu::detail::surf_access(s, cudaemu::detail::kSurf2DLayered, x, y, layer, out, sizeof(T), mode, false); }
template <class T>
inline T surf2DLayeredread(cudaSurfaceObject_t s, int x, int y, int layer,
                           cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap)
{
    T v;
    surf2DLayeredread(&v, s, x, y, layer, mode);
    return v;
}
template <class T>
inline void surf2DLayeredwrite(T v, cudaSurfaceObject_t s, int x, int y, int layer,
                               cudaSurfaceBoundaryMode mode = cudaBoundaryModeTrap)
{ cudaemu::detail::surf_access(s, cudaemu::detail::kSurf2DLayered, x, y, layer, &v, sizeof(T), mode, true); }

#endif
