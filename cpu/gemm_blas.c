/* cpu/gemm_blas.c - OpenBLAS cblas_sgemm behind the common GEMM signature. */
#define _GNU_SOURCE /* RTLD_DEFAULT */
#include "gemm_cpu.h"
#include "cpu_features.h"
#include "errmsg.h"

#include <cblas.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int gemm_cpu_blas(int M, int N, int K, float alpha, const float *A, int lda,
                  const float *B, int ldb, float beta, float *C, int ldc)
{
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, alpha, A, lda, B, ldb,
                beta, C, ldc);
    return 0;
}

/* OpenBLAS's bf16 GEMM, cblas_sbgemm (bf16 A and B, fp32 C), exported only
 * by builds made with BUILD_BFLOAT16: looked up at run time, so one binary
 * uses it where the installed library has it and says why not elsewhere. */
typedef void (*sbgemm_fn)(int order, int ta, int tb, int M, int N, int K, float alpha,
                          const uint16_t *A, int lda, const uint16_t *B, int ldb, float beta,
                          float *C, int ldc);

static sbgemm_fn sbgemm_lookup(void)
{
    return (sbgemm_fn)dlsym(RTLD_DEFAULT, "cblas_sbgemm");
}

const char *gemm_blas_dt_skip(dtype_t dt)
{
    static char why[200];
    if (dt != DTYPE_BF16 || sbgemm_lookup()) return NULL;
    const char *cfg = openblas_get_config(), *sp = cfg ? strchr(cfg, ' ') : NULL;
    int n = sp && strchr(sp + 1, ' ') ? (int)(strchr(sp + 1, ' ') - cfg) : 40;   /* "OpenBLAS 0.3.21" */
    snprintf(why, sizeof why, "the installed %.*s exports no cblas_sbgemm (built without "
             "BUILD_BFLOAT16)", n, cfg ? cfg : "OpenBLAS");
    return why;
}

/* bf16: cblas_sbgemm into fp32 scratch, then each element rounded once. */
int gemm_cpu_blas_dt(dtype_t dt, int M, int N, int K, const void *A, int lda, const void *B,
                     int ldb, void *C, int ldc)
{
    sbgemm_fn f = dt == DTYPE_BF16 ? sbgemm_lookup() : NULL;
    if (!f) {
        err_set("cpu-blas: no %s GEMM in this OpenBLAS", dtype_name(dt));
        return -1;
    }
    float *c32 = malloc((size_t)M * N * sizeof *c32);
    if (!c32) {
        err_set("cpu-blas: out of memory for %dx%d fp32 scratch", M, N);
        return -1;
    }
    f(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, A, lda, B, ldb, 0.0f, c32, N);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) dtype_set(dt, C, (size_t)i * ldc + j, c32[(size_t)i * N + j]);
    free(c32);
    return 0;
}

/* The SIMD tier of OpenBLAS's x86 core names (its DYNAMIC_ARCH kernels): 0
 * SSE, 1 AVX, 2 AVX2, 3 AVX-512; -1 a name not in the table (nothing said). */
static int blas_core_tier(const char *core)
{
    static const struct { const char *name; int tier; } cores[] = {
        {"Prescott", 0},    {"Core2", 0},      {"Penryn", 0},     {"Dunnington", 0},
        {"Nehalem", 0},     {"Atom", 0},       {"Opteron", 0},    {"Barcelona", 0},
        {"Bobcat", 0},      {"Sandybridge", 1}, {"Bulldozer", 1},  {"Piledriver", 1},
        {"Steamroller", 1}, {"Excavator", 2},  {"Haswell", 2},    {"Zen", 2},
        {"SkylakeX", 3},    {"Cooperlake", 3}, {"SapphireRapids", 3},
    };
    for (size_t i = 0; core && i < sizeof cores / sizeof cores[0]; i++)
        if (strcasecmp(core, cores[i].name) == 0) return cores[i].tier;
    return -1;
}

/* The tier this CPU offers, as blas_core_tier counts. */
static int cpu_tier(void)
{
    if (cpu_features() & CPU_F_AVX512F) return 3;
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return 2;
    return __builtin_cpu_supports("avx") ? 1 : 0;
}

const char *gemm_blas_caveat_for(const char *core, int tier, int bf16)
{
    static char why[256];
    static const char *const isa[] = {"SSE", "AVX", "AVX2", "AVX-512"};
    /* the core OPENBLAS_CORETYPE would name for each tier */
    const char *fix = tier == 3 ? (bf16 ? "Cooperlake" : "SkylakeX") : tier == 2 ? "Haswell"
                                                                       : "Sandybridge";
    const int have = blas_core_tier(core);
    if (have < 0 || have >= tier) return NULL;
    snprintf(why, sizeof why, "OpenBLAS runs its %s kernels (%s) on a CPU with %s: it did not "
             "recognise this CPU model; OPENBLAS_CORETYPE=%s selects its %s kernels",
             core, isa[have], isa[tier], fix, isa[tier]);
    return why;
}

const char *gemm_blas_caveat(void)
{
    return gemm_blas_caveat_for(openblas_get_corename(), cpu_tier(),
                                (cpu_features() & CPU_F_AVX512BF16) != 0);
}
