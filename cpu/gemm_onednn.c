/* cpu/gemm_onednn.c - cpu-onednn's GEMM: oneDNN's matmul primitive (C API,
 * oneDNN 2.x), the routine PyTorch's CPU matmul reaches, in fp32, bf16 and
 * fp16 (gemm_cpu.h's contracts; built only when oneDNN is found); fp32 takes
 * dnnl_sgemm, which has alpha and beta.
 *
 * Plain row-major A (M x K, lda), B (K x N, ldb), C (M x N, ldc) are given to
 * the primitive as strided memory: no reorder, no copy. bf16/fp16 accumulate
 * in fp32 inside oneDNN and C is rounded once. The primitive (its JIT kernel)
 * is created once per shape, dtype and thread count and reused, as the conv
 * plans are; the first (checked) run pays for it, timed ones only execute.
 */
#include "gemm_cpu.h"
#include "onednn_common.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct mm_plan {
    int valid, threads, M, N, K, lda, ldb, ldc;
    dtype_t dt;
    dnnl_primitive_t prim;
    dnnl_memory_t a, b, c;
} mm_plan;

static mm_plan g_plan;

static void plan_free(mm_plan *p)
{
    if (p->prim) dnnl_primitive_destroy(p->prim);
    if (p->a) dnnl_memory_destroy(p->a);
    if (p->b) dnnl_memory_destroy(p->b);
    if (p->c) dnnl_memory_destroy(p->c);
    memset(p, 0, sizeof *p);
}

static void plan_release(void) { plan_free(&g_plan); }

static int plan_build(mm_plan *p, dtype_t dt, int M, int N, int K, int lda, int ldb, int ldc)
{
    static int once;
    const dnnl_data_type_t t = onednn_dt(dt);
    dnnl_memory_desc_t a_md, b_md, c_md;
    dnnl_matmul_desc_t md;
    dnnl_primitive_desc_t pd = NULL;
    dnnl_dims_t ad = {M, K}, bd = {K, N}, cd = {M, N};
    dnnl_dims_t as = {lda, 1}, bs = {ldb, 1}, cs = {ldc, 1};
    plan_free(p);
    if (onednn_ready()) return -1;
    if (!once) atexit(plan_release); /* runs before the engine's release */
    once = 1;
    DNNL_TRY(dnnl_memory_desc_init_by_strides(&a_md, 2, ad, t, as));
    DNNL_TRY(dnnl_memory_desc_init_by_strides(&b_md, 2, bd, t, bs));
    DNNL_TRY(dnnl_memory_desc_init_by_strides(&c_md, 2, cd, t, cs));
    DNNL_TRY(dnnl_matmul_desc_init(&md, &a_md, &b_md, NULL, &c_md));
    DNNL_TRY(dnnl_primitive_desc_create(&pd, &md, NULL, onednn_engine, NULL));
    DNNL_TRY(dnnl_primitive_create(&p->prim, pd));
    DNNL_TRY(dnnl_memory_create(&p->a, &a_md, onednn_engine, NULL));
    DNNL_TRY(dnnl_memory_create(&p->b, &b_md, onednn_engine, NULL));
    DNNL_TRY(dnnl_memory_create(&p->c, &c_md, onednn_engine, NULL));
    dnnl_primitive_desc_destroy(pd);
    p->valid = 1, p->threads = omp_get_max_threads(), p->dt = dt;
    p->M = M, p->N = N, p->K = K, p->lda = lda, p->ldb = ldb, p->ldc = ldc;
    return 0;
fail:
    if (pd) dnnl_primitive_desc_destroy(pd);
    plan_free(p);
    return -1;
}

/* C = A*B at dt, through the cached primitive. */
static int onednn_matmul(dtype_t dt, int M, int N, int K, const void *A, int lda, const void *B,
                         int ldb, void *C, int ldc)
{
    mm_plan *p = &g_plan;
    if (!(p->valid && p->dt == dt && p->threads == omp_get_max_threads() && p->M == M &&
          p->N == N && p->K == K && p->lda == lda && p->ldb == ldb && p->ldc == ldc) &&
        plan_build(p, dt, M, N, K, lda, ldb, ldc))
        return -1;
    DNNL_TRY(dnnl_memory_set_data_handle(p->a, (void *)A));
    DNNL_TRY(dnnl_memory_set_data_handle(p->b, (void *)B));
    DNNL_TRY(dnnl_memory_set_data_handle(p->c, C));
    dnnl_exec_arg_t args[3] = {{DNNL_ARG_SRC, p->a}, {DNNL_ARG_WEIGHTS, p->b}, {DNNL_ARG_DST, p->c}};
    DNNL_TRY(dnnl_primitive_execute(p->prim, onednn_stream, 3, args));
    DNNL_TRY(dnnl_stream_wait(onednn_stream));
    return 0;
fail:
    return -1;
}

/* fp32: dnnl_sgemm, oneDNN's BLAS-style entry (the full alpha/beta contract;
 * the same JIT kernels as its matmul). */
int gemm_cpu_onednn(int M, int N, int K, float alpha, const float *A, int lda, const float *B,
                    int ldb, float beta, float *C, int ldc)
{
    dnnl_status_t st = dnnl_sgemm('N', 'N', M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    if (st != dnnl_success) {
        err_set("cpu-onednn gemm: dnnl_sgemm(%d, %d, %d) failed: %s", M, N, K, dnnl_status2str(st));
        return -1;
    }
    return 0;
}

int gemm_cpu_onednn_dt(dtype_t dt, int M, int N, int K, const void *A, int lda, const void *B,
                       int ldb, void *C, int ldc)
{
    if (!dtype_is_16bit(dt)) {
        err_set("cpu-onednn gemm: no %s path", dtype_name(dt));
        return -1;
    }
    return onednn_matmul(dt, M, N, K, A, lda, B, ldb, C, ldc);
}

const char *gemm_onednn_dt_skip(dtype_t dt)
{
    static int probed[DTYPE_COUNT];
    static char why[DTYPE_COUNT][200];
    if (dt == DTYPE_FP32) return NULL;
    if (!probed[dt]) {
        probed[dt] = 1;
        err_clear();
        if (plan_build(&g_plan, dt, 32, 32, 32, 32, 32, 32))
            onednn_unsupported(why[dt], sizeof why[dt], "matmul", dt);
        plan_free(&g_plan);
        err_clear();
    }
    return why[dt][0] ? why[dt] : NULL;
}
