/* tests/kernels/train_gpu_util.h - what the GPU train_ops tests share
 * (train_cuda_test.cu, train_seq_test.cu): the two tables under test, the
 * reference table, the stream, host and device buffers (seeded, or poisoned
 * with NaN), and the comparisons (static inline: each program uses its
 * share).  Included by those test programs only. */
#ifndef TESTS_GPU_TRAIN_GPU_UTIL_H
#define TESTS_GPU_TRAIN_GPU_UTIL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "check.h"
#include "errmsg.h"
#include "train_cpu.h"
#include "train_cuda.h"
#include "testutil.h"
#include "cuda_ok.h"

typedef struct table {
    const char *name;
    const train_ops *ops;
} table;

static const table TABLES[] = {
    {"cuda", &TRAIN_OPS_CUDA},
    {"cuda-lib", &TRAIN_OPS_CUDA_LIB},
};
#define NTABLES (int)(sizeof TABLES / sizeof TABLES[0])
static const train_ops *const REF = &TRAIN_OPS_CPU_NAIVE;

static cudaStream_t g_stream;
static unsigned long long g_seed = 100;

/* ---- host and device buffers ---- */

static inline void *xalloc(size_t bytes)
{
    void *p = calloc(1, bytes ? bytes : 1);
    if (!p) {
        fprintf(stderr, "out of host memory\n");
        exit(1);
    }
    return p;
}
static inline float *fbuf(size_t n) { return (float *)xalloc(n * sizeof(float)); }
static inline float *frand(size_t n)
{
    float *x = fbuf(n);
    rng_fill_uniform(x, n, g_seed++);
    return x;
}
static inline float *fnan(size_t n)
{
    float *x = fbuf(n);
    check_poison(x, n);
    return x;
}
/* A device copy of h, queued on g_stream, where the ops under test run: a
 * blocking cudaMemcpy from pageable memory may return before its bytes land
 * and is ordered only with the legacy stream, not with a non-blocking
 * g_stream (a late NaN poison could then overwrite an op's result). The
 * pageable source is staged at the call, so h may be freed at once. */
static inline void *dev_from(const void *h, size_t bytes)
{
    void *d = NULL;
    CUDA_OK(cudaMalloc(&d, bytes ? bytes : 4));
    if (bytes) CUDA_OK(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, g_stream));
    return d;
}
static inline float *dev_f(const float *h, size_t n)
{
    return (float *)dev_from(h, n * sizeof(float));
}
/* A device output of n floats, poisoned with NaN. */
static inline float *dev_nan(size_t n)
{
    float *h = fnan(n), *d = dev_f(h, n);
    free(h);
    return d;
}
static inline void to_host(void *h, const void *d, size_t bytes)
{
    CUDA_OK(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost));
}
static inline void sync_ok(void) { CUDA_OK(cudaStreamSynchronize(g_stream)); }
/* A host copy of n device floats (the stream synchronized first). */
static inline float *host_of(const float *d, size_t n)
{
    float *h = fbuf(n);
    sync_ok();
    to_host(h, d, n * sizeof(float));
    return h;
}

/* ---- gemm operands ---- */

/* ld for `cols` columns: odd padding (never a multiple of 4) or a multiple of 4 plus 4 */
static inline int ld_for(int cols, int vec) { return vec ? (cols + 3) / 4 * 4 + 4 : cols + ((cols + 3) % 4 ? 3 : 5); }
static inline size_t span(int rows, int cols, int ld) { return (size_t)(rows - 1) * ld + cols; }
static inline void poison_padding(float *x, int rows, int cols, int ld)
{
    for (int i = 0; i + 1 < rows; i++) check_poison(x + (size_t)i * ld + cols, (size_t)(ld - cols));
}

/* got against the reference's float result, at the tolerance of a k-term sum.
 * plant >= 0: corrupt that element first and return whether it (wrongly) passed. */
static inline int close_to(const char *what, const float *got, const float *ref, size_t n,
                           long k, long plant)
{
    double *r = (double *)xalloc(n * sizeof(double));
    float *g = fbuf(n);
    for (size_t i = 0; i < n; i++) r[i] = ref[i];
    memcpy(g, got, n * sizeof(float));
    if (plant >= 0) g[plant] += 1e-2f * (fabsf(g[plant]) + 1.0f);
    check_result c = check_compare(g, r, n, check_tolerance(DTYPE_FP32, k));
    if (!c.pass && plant < 0)
        fprintf(stderr, "  %s: rel %.3g max abs %.3g (tol %.3g) nonfinite %ld worst at %ld\n",
                what, c.rel_err, c.max_abs_err, c.tolerance, c.nonfinite, c.worst_index);
    free(r);
    free(g);
    return c.pass;
}

/* Bit-for-bit, NaN matching any NaN (ops without arithmetic). */
static inline long mismatches(const float *got, const float *ref, size_t n)
{
    long bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += !((isnan(got[i]) && isnan(ref[i])) || memcmp(&got[i], &ref[i], sizeof(float)) == 0);
    return bad;
}
static inline long int_mismatches(const int *got, const int *ref, size_t n)
{
    long bad = 0;
    for (size_t i = 0; i < n; i++) bad += got[i] != ref[i];
    return bad;
}

#endif
