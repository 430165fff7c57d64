/* emu/src/texture_internal.h - what arrays.cpp (CUDA arrays, the copies to and
 * from them) and texture.cpp (texture and surface objects) share.  Not installed.
 */
#ifndef CUDAEMU_TEXTURE_INTERNAL_H
#define CUDAEMU_TEXTURE_INTERNAL_H

#include "internal.h"

/* A CUDA array: n[0] x n[1] x n[2] elements (1 for a dimension the array
 * does not have) of `elem` bytes, dense rows in one device block (entered in
 * the allocation table, so copies are checked and ordered as cudaMemcpy2D's). */
struct cudaArray {
    cudaChannelFormatDesc desc;
    cudaExtent extent;      /* as allocated (height and depth 0 for missing dimensions) */
    unsigned flags = 0;
    int dims = 1;           /* 1, 2 or 3; of one layer when layered */
    bool layered = false;   /* cudaArrayLayered: n[2] layers of dims 1 or 2 */
    size_t n[3] = {1, 1, 1};
    size_t elem = 0;        /* bytes per element */
    size_t pitch = 0;       /* n[0] * elem */
    size_t slice = 0;       /* pitch * n[1] */
    char *data = nullptr;
    int device = 0;
};

namespace cudaemu {

/* Limits of the emulated sm_90 device for the arrays and textures emulated;
 * cubemap, mipmapped and gather limits are 0 (not emulated). */
constexpr int kMaxTex1D = 131072;
constexpr int kMaxTex2D[2] = {131072, 65536};
constexpr int kMaxTex3D[3] = {16384, 16384, 16384};
constexpr int kMaxTex3DAlt[3] = {8192, 8192, 32768};
constexpr int kMaxTex2DLinear[3] = {131072, 65000, 2097120}; /* width, height, pitch */
constexpr int kMaxTex1DLinear = 1 << 28;                      /* elements */
constexpr int kMaxSurf1D = 32768;
constexpr int kMaxSurf2D[2] = {131072, 65536};
constexpr int kMaxSurf3D[3] = {16384, 16384, 16384};
constexpr int kMaxTex1DLayered[2] = {32768, 2048};          /* width, layers */
constexpr int kMaxTex2DLayered[3] = {32768, 32768, 2048};   /* width, height, layers */
constexpr int kMaxSurf1DLayered[2] = {32768, 2048};
constexpr int kMaxSurf2DLayered[3] = {32768, 32768, 2048};
constexpr size_t kTextureAlignment = 512;
constexpr size_t kTexturePitchAlignment = 32;

/* Bytes per element of a channel format the emulator takes (1, 2 or 4
 * channels of one size: Signed/Unsigned 8/16/32 bits, Float 16/32 bits);
 * 0 with *err = cudaErrorInvalidValue for an invalid one, or
 * cudaErrorNotSupported (after a cudaemu line) for a kind not emulated. */
size_t channel_bytes(const cudaChannelFormatDesc *d, const char *caller, cudaError_t *err);
/* The live array behind a handle, or null. */
cudaArray *live_array(cudaArray_const_t a);
/* texture.cpp: objects over array a stop working ("its array was freed"). */
void objects_lose_array(const cudaArray *a);
/* texture.cpp: objects of device d stop working (cudaDeviceReset). */
void objects_lose_device(int d);

} // namespace cudaemu

#endif
