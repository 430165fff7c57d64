/* emu/include/cudaemu/copy3d_types.h - the runtime's 3D copy descriptors
 * (cudaPos, cudaPitchedPtr, cudaExtent, cudaMemcpy3DParms) and their make_*
 * constructors, with CUDA 13.0's field names and order.  Graph memcpy nodes
 * take them (cudaemu/graph.h); CUDA arrays are not emulated, so srcArray and
 * dstArray must stay null.  Included by cudaemu/graph.h.
 */
#ifndef CUDAEMU_COPY3D_TYPES_H
#define CUDAEMU_COPY3D_TYPES_H

#include <cstddef>

typedef struct cudaArray *cudaArray_t;

struct cudaPos {
    size_t x, y, z;
};

/* Linear memory: pitch bytes per row, ysize rows per slice (xsize is the
 * row's logical width, not used by copies). */
struct cudaPitchedPtr {
    void *ptr;
    size_t pitch;
    size_t xsize;
    size_t ysize;
};

/* For linear memory: width in bytes, height in rows, depth in slices. */
struct cudaExtent {
    size_t width, height, depth;
};

struct cudaMemcpy3DParms {
    cudaArray_t srcArray;
    cudaPos srcPos;
    cudaPitchedPtr srcPtr;
    cudaArray_t dstArray;
    cudaPos dstPos;
    cudaPitchedPtr dstPtr;
    cudaExtent extent;
    cudaMemcpyKind kind;
};

inline cudaPitchedPtr make_cudaPitchedPtr(void *d, size_t p, size_t xsz, size_t ysz)
{
    return cudaPitchedPtr{d, p, xsz, ysz};
}
inline cudaPos make_cudaPos(size_t x, size_t y, size_t z) { return cudaPos{x, y, z}; }
inline cudaExtent make_cudaExtent(size_t w, size_t h, size_t d) { return cudaExtent{w, h, d}; }

#endif
