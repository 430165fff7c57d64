/* suites/stream/stream_gpu.c - the GPU half of stream: a registry entry point
 * (stream_cuda_fn, kernels/stream_cuda.h) on chunk c of n (a range of
 * elements of every array). Compiled against CUDA and emu/ (C that is also
 * C++). */
#include "stream.h"
#include "../../kernels/stream_cuda.h"

static int stream_gpu_compute(const backend_def *b, const problem *p, int c, int n,
                              void *const *dev, void *ws, void *stream)
{
    size_t lo, hi;
    int nin = stream_inputs(p);
    (void)ws;
    stream_chunk_range(p, c, n, &lo, &hi);
    return ((stream_cuda_fn)b->fn)((stream_kernel)p->variant, hi - lo, STREAM_SCALAR,
                                   (const float *)dev[0] + lo,
                                   nin == 2 ? (const float *)dev[1] + lo : NULL,
                                   (float *)dev[nin] + lo, (cudaStream_t)stream);
}

const suite_gpu SUITE_STREAM_GPU = {
    .compute = stream_gpu_compute,
    .reduce = NULL,
    .setup = NULL,
    .teardown = NULL,
    .open_mode = NULL,
    .workspace = NULL,
    .dp_open = NULL,
};
