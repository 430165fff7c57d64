/* kernels/train_seq_embedding.cu - embedding lookup and its backward on the GPU (kernels/train_cuda.h; the
 * CPU's is cpu/train_seq_embedding.c; the launch shapes and contract notes:
 * kernels/train_seq_impl.h). */
#include "train_seq_impl.h"

/* ---- embedding ---- */

/* T: float or float4 (dim then counts float4). id(r) = ids[r], or r % vocab. */
template <typename T>
static __global__ void embedding_kernel(size_t n, unsigned dim, const int *__restrict__ ids,
                                        int vocab, const T *__restrict__ table,
                                        T *__restrict__ y, int accumulate)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const size_t r = i / dim;
        const unsigned c = (unsigned)(i % dim);
        const int id = ids ? ids[r] : (int)(r % (unsigned)vocab);
        T v;
        if (id >= 0 && id < vocab)
            v = table[(size_t)id * dim + c];
        else
            fill(v, NAN); /* make a bad id show */
        y[i] = accumulate ? vadd(y[i], v) : v;
    }
}

extern "C" int train_cuda_embedding(int rows, int dim, const int *ids, int vocab,
                                    const float *table, float *y, int accumulate, void *stream)
{
    const char *who = "train_cuda embedding";
    if (!size_ok(who, rows, "rows", 0) || !size_ok(who, dim, "dim", 0) ||
        !size_ok(who, vocab, "vocab", 1) || !ptrs_ok(who, table, y, y))
        return -1;
    {
        const size_t n = (size_t)rows * dim;
        cudaStream_t s = (cudaStream_t)stream;
        if (n == 0) return 0;
        if (dim % 4 == 0 && aligned16(table, y))
            embedding_kernel<float4><<<elem_grid(n / 4), ELEM_THREADS, 0, s>>>(
                n / 4, (unsigned)dim / 4, ids, vocab, reinterpret_cast<const float4 *>(table),
                reinterpret_cast<float4 *>(y), accumulate);
        else
            embedding_kernel<float><<<elem_grid(n), ELEM_THREADS, 0, s>>>(
                n, (unsigned)dim, ids, vocab, table, y, accumulate);
    }
    LAUNCH_CHECK();
    return 0;
fail:
    return -1;
}

/* dtable[id(r)][c] += dy[r][c] by atomics (dtable zeroed before). */
static __global__ void embedding_scatter_kernel(size_t n, unsigned dim, const int *__restrict__ ids,
                                                int vocab, const float *__restrict__ dy,
                                                float *__restrict__ dtable)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const size_t r = i / dim;
        const unsigned c = (unsigned)(i % dim);
        const int id = ids[r];
        if (id >= 0 && id < vocab)
            atomicAdd(&dtable[(size_t)id * dim + c], dy[i]);
        else
            atomicAdd(&dtable[c], NAN); /* make a bad id show */
    }
}

/* Positions: dtable[v][c] = sum over r = v, v + vocab, ... < rows of dy[r][c],
 * one thread per element of dtable, in row order. T: float or float4. */
template <typename T>
static __global__ void embedding_pos_grad_kernel(size_t n, unsigned dim, int rows, int vocab,
                                                 const T *__restrict__ dy, T *__restrict__ dtable)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const unsigned v = (unsigned)(i / dim), c = (unsigned)(i % dim);
        T s;
        fill(s, 0.0f);
        for (unsigned r = v; r < (unsigned)rows; r += (unsigned)vocab)
            s = vadd(s, dy[(size_t)r * dim + c]);
        dtable[i] = s;
    }
}

extern "C" int train_cuda_embedding_bwd(int rows, int dim, const int *ids, int vocab,
                                        const float *dy, float *dtable, void *stream)
{
    const char *who = "train_cuda embedding_bwd";
    cudaStream_t s = (cudaStream_t)stream;
    if (!size_ok(who, rows, "rows", 0) || !size_ok(who, dim, "dim", 0) ||
        !size_ok(who, vocab, "vocab", 1) || !ptrs_ok(who, dy, dtable, dtable))
        return -1;
    if (dim == 0) return 0;
    if (ids) {
        const size_t n = (size_t)rows * dim;
        CUDA_TRY(cudaMemsetAsync(dtable, 0, (size_t)vocab * dim * sizeof(float), s));
        if (bench_cuda_sync_launches) CUDA_TRY(cudaStreamSynchronize(s));
        if (n == 0) return 0;
        embedding_scatter_kernel<<<elem_grid(n), ELEM_THREADS, 0, s>>>(n, (unsigned)dim, ids,
                                                                       vocab, dy, dtable);
    } else {
        const size_t n = (size_t)vocab * dim;
        if (dim % 4 == 0 && aligned16(dy, dtable))
            embedding_pos_grad_kernel<float4><<<elem_grid(n / 4), ELEM_THREADS, 0, s>>>(
                n / 4, (unsigned)dim / 4, rows, vocab, reinterpret_cast<const float4 *>(dy),
                reinterpret_cast<float4 *>(dtable));
        else
            embedding_pos_grad_kernel<float><<<elem_grid(n), ELEM_THREADS, 0, s>>>(
                n, (unsigned)dim, rows, vocab, dy, dtable);
    }
    LAUNCH_CHECK();
    return 0;
fail:
    return -1;
}
