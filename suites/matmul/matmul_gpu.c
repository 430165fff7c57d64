/* suites/matmul/matmul_gpu.c - the GPU half of matmul: a registry entry point
 * (gemm_cuda_fn, kernels/gemm_cuda.h) on chunk c of n (rows of A and C).
 * Compiled against the CUDA toolkit and against emu/ (C that is also C++). */
#include "matmul.h"
#include "errmsg.h"
#include "../../kernels/gemm_cuda.h"

static int matmul_gpu_compute(const backend_def *b, const problem *p, int c, int n,
                              void *const *dev, void *ws, void *stream)
{
    int r0, r1, N = (int)p->dim[1], K = (int)p->dim[2];
    (void)ws;
    matmul_chunk_rows(p, c, n, &r0, &r1);
    const size_t es = dtype_size(p->dtype);
    const char *A = (const char *)dev[0] + (size_t)r0 * K * es;
    char *C = (char *)dev[2] + (size_t)r0 * N * es;
    if (!(p->dtype != DTYPE_FP32 ? (void *)b->fn_dt : (void *)b->fn)) {
        err_set("%s: no %s entry point", b->name, dtype_name(p->dtype));
        return -1;
    }
    if (p->dtype != DTYPE_FP32)
        return ((gemm_cuda_dt_fn)b->fn_dt)(p->dtype, r1 - r0, N, K, A, K, dev[1], N, C, N,
                                           (cudaStream_t)stream);
    return ((gemm_cuda_fn)b->fn)(r1 - r0, N, K, 1.0f, (const float *)A, K, (const float *)dev[1],
                                 N, 0.0f, (float *)C, N, (cudaStream_t)stream);
}

const suite_gpu SUITE_MATMUL_GPU = {
    .compute = matmul_gpu_compute,
    .reduce = NULL,
    .setup = NULL,
    .teardown = NULL,
    .open_mode = NULL,
    .workspace = NULL,
    .dp_open = NULL,
};
