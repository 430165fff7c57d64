/* bench/gpu_gemm.c - GPU GEMM cases: the kernels table wired into the
 * execution modes of harness/gpu_modes.h. Compiled against the CUDA toolkit
 * (bench) and against emu/ (bench-emu); C that is also valid C++. */
#include "gpu_cases.h"
#include "gpu_modes.h"
#include "errmsg.h"
#include "../kernels/gemm_cuda.h"

#include <stdio.h>
#include <string.h>

/* Same order as GPU_GEMM_DESCS (bench/gpu_names.c). */
static const gemm_cuda_fn GPU_GEMM_FNS[] = {
    gemm_cuda_naive, gemm_cuda_tiled, gemm_cuda_regtile, gemm_cublas, gemm_cublas_tf32,
};

typedef struct gemm_work_ctx {
    const gemm_problem *p;
    gemm_cuda_fn fn;
    dtype_t dtype;
    const char *name;
} gemm_work_ctx;

/* Chunk c of n: rows [M*c/n, M*(c+1)/n) of A and C; B is shared. */
static void chunk_rows(const gemm_problem *p, int c, int n, int *r0, int *r1)
{
    *r0 = (int)((long long)p->M * c / n);
    *r1 = (int)((long long)p->M * (c + 1) / n);
}

static int gemm_chunk(void *ctx, int c, int n, size_t *in_off, size_t *in_len, size_t *out_off,
                      size_t *out_len)
{
    const gemm_problem *p = ((gemm_work_ctx *)ctx)->p;
    int r0, r1;
    if (n > p->M) return -1;
    chunk_rows(p, c, n, &r0, &r1);
    *in_off = (size_t)r0 * p->K * sizeof(float);
    *in_len = (size_t)(r1 - r0) * p->K * sizeof(float);
    *out_off = (size_t)r0 * p->N * sizeof(float);
    *out_len = (size_t)(r1 - r0) * p->N * sizeof(float);
    return 0;
}

static int gemm_compute(void *ctx, int c, int n, const void *d_shared, const void *d_in,
                        void *d_out, cudaStream_t s)
{
    const gemm_work_ctx *g = (const gemm_work_ctx *)ctx;
    const gemm_problem *p = g->p;
    int r0, r1;
    chunk_rows(p, c, n, &r0, &r1);
    const float *A = (const float *)d_in + (size_t)r0 * p->K;
    float *C = (float *)d_out + (size_t)r0 * p->N;
    return g->fn(r1 - r0, p->N, p->K, 1.0f, A, p->K, (const float *)d_shared, p->N, 0.0f, C,
                 p->N, s);
}

static check_result gemm_check(void *ctx, void *host_out, char *why, size_t whycap)
{
    const gemm_work_ctx *g = (const gemm_work_ctx *)ctx;
    const gemm_problem *p = g->p;
    gemm_plant_fault(g->name, (float *)host_out, (size_t)p->M * p->N);
    return gemm_ref_check(p->ref, (const float *)host_out, g->dtype, why, whycap);
}

int gpu_gemm_case(int backend, const char *mode, const gemm_problem *p, const measure_cfg *cfg,
                  result_row *row)
{
    const gpu_mode *m = gpu_mode_find(mode);
    gemm_work_ctx g;
    gpu_work w;
    if (!m) {
        err_set("unknown GPU mode '%s'", mode);
        snprintf(row->check, sizeof row->check, "fail");
        snprintf(row->note, sizeof row->note, "error: %s", err_get());
        return -1;
    }
    if (m->kind == GPU_STREAMS && p->M < m->nstreams) {
        snprintf(row->check, sizeof row->check, "skip");
        snprintf(row->note, sizeof row->note, "M=%d rows cannot be split over %d streams", p->M,
                 m->nstreams);
        return 0;
    }
    g.p = p;
    g.fn = GPU_GEMM_FNS[backend];
    g.dtype = GPU_GEMM_DESCS[backend].dtype;
    g.name = GPU_GEMM_DESCS[backend].name;
    memset(&w, 0, sizeof w);
    w.ctx = &g;
    w.shared_in = p->B;
    w.shared_bytes = (size_t)p->K * p->N * sizeof(float);
    w.in = p->A;
    w.in_bytes = (size_t)p->M * p->K * sizeof(float);
    w.out_bytes = (size_t)p->M * p->N * sizeof(float);
    w.chunk = gemm_chunk;
    w.compute = gemm_compute;
    w.check = gemm_check;
    w.flops = 2.0 * p->M * p->N * p->K;
    return gpu_mode_run(m, &w, cfg, row);
}

void gpu_cases_release(void) { gemm_cublas_release(); }

int gpu_cases_recover(gpu_status *st)
{
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess) {
        cudaGetLastError(); /* clear a non-sticky error (a bad launch) */
        return 0;
    }
    /* a sticky fault: handles die with the context, then start afresh */
    gemm_cublas_release();
    cudaDeviceReset();
    gpu_probe(st->device, st);
    if (st->usable) return 0;
    char why[sizeof st->why];
    snprintf(why, sizeof why, "after %s: %s", cudaGetErrorName(e), st->why);
    snprintf(st->why, sizeof st->why, "%s", why);
    return -1;
}
