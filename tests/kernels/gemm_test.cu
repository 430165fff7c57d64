/* tests/kernels/gemm_test.cu - every CUDA GEMM backend against the double
 * reference, at awkward shapes and leading dimensions.
 *
 * For each backend (naive, tiled, regtile, cublas, cublas-tf32) and case:
 * device buffers of exactly the BLAS minimum size ((rows-1)*ld + cols, so a
 * read past the last row's end is out of bounds under AddressSanitizer),
 * seeded inputs with NaN in the padding of A and B copied H2D, the call queued on a non-default stream, the
 * stream synchronized, C copied back and compared element-wise with
 * gemm_ref_element (cpu/gemm_cpu.h) by check_compare at check_tolerance(dtype, K).
 * Twice per case: alpha=1.5 beta=-0.5 on random C, and alpha=1 beta=0 on C
 * poisoned with NaN (C write-only).  C's padding columns must come back
 * untouched.  cublas-tf32 must also miss the fp32 tolerance (TF32 rounding
 * really happened) while meeting the TF32 one.  Finally bad arguments give -1
 * and a message.  The reduced-precision backends (gemm_cuda_dt_fn: cuda-wmma,
 * cublas-dt) run at tf32, bf16 and fp16 against a double reference from the
 * inputs as the dtype holds them, checked by check_compare_dt (half an ulp
 * of the dtype per element plus the accumulation bound); tf32 must also miss
 * the fp32 tolerance against the unrounded inputs.  Built against the emulator (tests run it under several
 * thread orders, CUDAEMU_ORDER) and, as a compile check, with nvcc.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime.h>

#include "check.h"
#include "errmsg.h"
#include "gemm_cpu.h"
#include "gemm_cuda.h"
#include "testutil.h"
#include "cuda_ok.h"

typedef struct backend {
    const char *name;
    gemm_cuda_fn fn;
    dtype_t dtype;
} backend;

static const backend BACKENDS[] = {
    {"cuda-naive", gemm_cuda_naive, DTYPE_FP32},
    {"cuda-tiled", gemm_cuda_tiled, DTYPE_FP32},
    {"cuda-regtile", gemm_cuda_regtile, DTYPE_FP32},
    {"cuda-cublas", gemm_cublas, DTYPE_FP32},
    {"cuda-cublas-tf32", gemm_cublas_tf32, DTYPE_TF32},
};

/* Leading dimensions: exact (ld = row length), +3 (never a multiple of 4:
 * regtile's scalar path), or rounded up to a multiple of 4 and +4 (regtile's
 * vector path, with partial float4 at the edges when N or K is not); SHIFT:
 * as VEC, but A, B and C start one float past a 16-byte boundary (regtile's
 * scalar path although every ld is a multiple of 4). */
enum pad { PAD_NONE, PAD_ODD, PAD_VEC, PAD_SHIFT };

typedef struct gemm_case {
    int M, N, K;
    enum pad pad;
} gemm_case;

static const gemm_case CASES[] = {
    {1, 1, 1, PAD_NONE},      {7, 13, 5, PAD_NONE},     {33, 65, 17, PAD_NONE},
    {63, 64, 65, PAD_NONE},   {128, 128, 128, PAD_NONE}, {129, 131, 67, PAD_NONE},
    {1, 300, 64, PAD_NONE},   {300, 1, 64, PAD_NONE},    {16, 16, 1000, PAD_NONE},
    {33, 65, 17, PAD_ODD},    {129, 131, 67, PAD_ODD},   {64, 128, 32, PAD_ODD},
    {128, 128, 128, PAD_VEC}, {129, 131, 67, PAD_VEC},   {132, 136, 20, PAD_VEC},
    /* regtile's warp tiles (32 x 64) and 4-stage K pipeline (8 a step) at
     * their edges: M, N off the warp tile, 1 to 6 K steps (fewer than the
     * stages in flight, a partial last one), cp.async chunks past N */
    {161, 97, 27, PAD_VEC},   {40, 72, 44, PAD_VEC},    {70, 200, 8, PAD_VEC},
    {200, 36, 12, PAD_VEC},   {33, 130, 56, PAD_NONE},  {97, 161, 27, PAD_SHIFT},
};

static int ld_for(int cols, enum pad p)
{
    switch (p) {
    case PAD_ODD: return (cols + 3) % 4 ? cols + 3 : cols + 5;
    case PAD_VEC:
    case PAD_SHIFT: return (cols + 3) / 4 * 4 + 4;
    default: return cols;
    }
}

/* Smallest buffer holding a rows x cols matrix with leading dimension ld. */
static size_t span(int rows, int cols, int ld) { return (size_t)(rows - 1) * ld + cols; }

/* NaN into the padding (columns cols..ld-1 of every row but the last): a
 * kernel that reads padding, even to multiply it by zero, fails. */
static void poison_padding(float *x, int rows, int cols, int ld)
{
    for (int i = 0; i + 1 < rows; i++)
        check_poison(x + (size_t)i * ld + cols, (size_t)(ld - cols));
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* Runs one backend on one case with one (alpha, beta); returns the check. */
static check_result run_case(const backend *be, const gemm_case *c, float alpha, float beta,
                             cudaStream_t stream, unsigned long long seed)
{
    const int M = c->M, N = c->N, K = c->K;
    const int lda = ld_for(K, c->pad), ldb = ld_for(N, c->pad), ldc = ld_for(N, c->pad);
    const size_t na = span(M, K, lda), nb = span(K, N, ldb), nc = span(M, N, ldc);
    float *A = (float *)malloc(na * sizeof(float)), *B = (float *)malloc(nb * sizeof(float));
    float *C0 = (float *)malloc(nc * sizeof(float)), *C = (float *)malloc(nc * sizeof(float));
    float *got = (float *)malloc((size_t)M * N * sizeof(float));
    double *ref = (double *)malloc((size_t)M * N * sizeof(double));
    if (!A || !B || !C0 || !C || !got || !ref) {
        fprintf(stderr, "out of host memory\n");
        exit(1);
    }
    rng_fill_uniform(A, na, seed);
    rng_fill_uniform(B, nb, seed + 1);
    poison_padding(A, M, K, lda);
    poison_padding(B, K, N, ldb);
    if (beta == 0.0f)
        check_poison(C0, nc);
    else
        rng_fill_uniform(C0, nc, seed + 2);

    /* the matrices at offset `sh` floats of their allocations */
    const size_t sh = c->pad == PAD_SHIFT ? 1 : 0;
    float *mA = NULL, *mB = NULL, *mC = NULL;
    CUDA_OK(cudaMalloc((void **)&mA, (sh + na) * sizeof(float)));
    CUDA_OK(cudaMalloc((void **)&mB, (sh + nb) * sizeof(float)));
    CUDA_OK(cudaMalloc((void **)&mC, (sh + nc) * sizeof(float)));
    float *dA = mA + sh, *dB = mB + sh, *dC = mC + sh;
    CUDA_OK(cudaMemcpy(dA, A, na * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(dB, B, nb * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(dC, C0, nc * sizeof(float), cudaMemcpyHostToDevice));

    const int rc = be->fn(M, N, K, alpha, dA, lda, dB, ldb, beta, dC, ldc, stream);
    EXPECT(rc == 0, "%s %dx%dx%d: returned %d: %s", be->name, M, N, K, rc, err_get());
    CUDA_OK(cudaStreamSynchronize(stream));
    CUDA_OK(cudaMemcpy(C, dC, nc * sizeof(float), cudaMemcpyDeviceToHost));

    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            got[(size_t)i * N + j] = C[(size_t)i * ldc + j];
            ref[(size_t)i * N + j] = gemm_ref_element(i, j, K, alpha, A, lda, B, ldb, beta,
                                                      C0[(size_t)i * ldc + j]);
        }
    long touched = 0; /* padding columns j >= N of C must be left alone */
    for (int i = 0; i + 1 < M; i++)
        for (int j = N; j < ldc; j++)
            touched += memcmp(&C[(size_t)i * ldc + j], &C0[(size_t)i * ldc + j],
                              sizeof(float)) != 0;
    EXPECT(touched == 0, "%s %dx%dx%d ld %d/%d/%d: wrote %ld padding elements of C",
           be->name, M, N, K, lda, ldb, ldc, touched);

    check_result r = check_compare(got, ref, (size_t)M * N, check_tolerance(be->dtype, K));
    EXPECT(r.pass, "%s %dx%dx%d ld %d/%d/%d alpha %g beta %g: max_abs %.3g rel %.3g tol %.3g "
           "nonfinite %ld worst index %ld", be->name, M, N, K, lda, ldb, ldc, alpha, beta,
           r.max_abs_err, r.rel_err, r.tolerance, r.nonfinite, r.worst_index);
    /* The emulator always rounds to TF32; cuBLAS may pick a non-tensor-core
     * kernel for tiny shapes, so on a GPU only the 128^3 cases must differ. */
#ifdef __CUDAEMU__
    const int must_be_tf32 = 1;
#else
    const int must_be_tf32 = (double)M * N * K >= 128.0 * 128 * 128;
#endif
    if (be->dtype == DTYPE_TF32 && must_be_tf32) {
        check_result f = check_compare(got, ref, (size_t)M * N, check_tolerance(DTYPE_FP32, K));
        EXPECT(!f.pass, "%s %dx%dx%d: meets the fp32 tolerance (rel %.3g): TF32 not in effect?",
               be->name, M, N, K, f.rel_err);
    }

    CUDA_OK(cudaFree(mA));
    CUDA_OK(cudaFree(mB));
    CUDA_OK(cudaFree(mC));
    free(A); free(B); free(C0); free(C); free(got); free(ref);
    return r;
}

/* ---- reduced precision (gemm_cuda_dt_fn): C = A*B in tf32, bf16, fp16 ---- */

typedef struct dt_backend {
    const char *name;
    gemm_cuda_dt_fn fn;
} dt_backend;

static const dt_backend DT_BACKENDS[] = {
    {"cuda-wmma", gemm_cuda_wmma},
    {"cublas-dt", gemm_cublas_dt},
};
static const dtype_t DT_TYPES[] = {DTYPE_TF32, DTYPE_BF16, DTYPE_FP16};

/* Leading dimensions as above, the vector path's in elements of 16 bytes
 * (8 of a 16-bit dtype, 4 floats). */
static int ld_for_dt(int cols, enum pad p, dtype_t dt)
{
    const int e = 16 / (int)dtype_size(dt);
    switch (p) {
    case PAD_ODD: return (cols + 3) % e ? cols + 3 : cols + 5;
    case PAD_VEC: return (cols + e - 1) / e * e + e;
    default: return cols;
    }
}

static const gemm_case DT_CASES[] = {
    {1, 1, 1, PAD_NONE},      {17, 33, 65, PAD_NONE},   {127, 129, 131, PAD_ODD},
    {130, 70, 40, PAD_VEC},   {128, 128, 128, PAD_VEC}, {33, 65, 17, PAD_ODD},
    {64, 256, 96, PAD_NONE},  {127, 129, 131, PAD_VEC},
};

/* NaN into the padding of a rows x cols matrix of dtype dt. */
static void poison_padding_dt(dtype_t dt, void *x, int rows, int cols, int ld)
{
    for (int i = 0; i + 1 < rows; i++)
        for (int j = cols; j < ld; j++) dtype_set(dt, x, (size_t)i * ld + j, NAN);
}

/* One backend, dtype and case: the reference in double from the inputs as
 * the dtype holds them (tf32: rounded to nearest even, as ops/dtype.h), C
 * checked by check_compare_dt at check_tolerance(dt, K). */
static check_result run_case_dt(const dt_backend *be, dtype_t dt, const gemm_case *c,
                                cudaStream_t stream, unsigned long long seed)
{
    const int M = c->M, N = c->N, K = c->K;
    const int lda = ld_for_dt(K, c->pad, dt), ldb = ld_for_dt(N, c->pad, dt),
              ldc = ld_for_dt(N, c->pad, dt);
    const size_t na = span(M, K, lda), nb = span(K, N, ldb), nc = span(M, N, ldc);
    const size_t es = dtype_size(dt);
    float *tmp = (float *)malloc((na > nb ? na : nb) * sizeof(float));
    void *A = malloc(na * es), *B = malloc(nb * es), *C0 = malloc(nc * es), *C = malloc(nc * es);
    void *got = malloc((size_t)M * N * es);
    double *ref = (double *)malloc((size_t)M * N * sizeof(double));
    double *ref32 = (double *)malloc((size_t)M * N * sizeof(double));
    if (!tmp || !A || !B || !C0 || !C || !got || !ref || !ref32) {
        fprintf(stderr, "out of host memory\n");
        exit(1);
    }
    rng_fill_uniform(tmp, na, seed);
    for (size_t i = 0; i < na; i++) dtype_set(dt, A, i, tmp[i]);
    rng_fill_uniform(tmp, nb, seed + 1);
    for (size_t i = 0; i < nb; i++) dtype_set(dt, B, i, tmp[i]);
    poison_padding_dt(dt, A, M, K, lda);
    poison_padding_dt(dt, B, K, N, ldb);
    for (size_t i = 0; i < nc; i++) dtype_set(dt, C0, i, NAN); /* C is write-only */

    void *dA = NULL, *dB = NULL, *dC = NULL;
    CUDA_OK(cudaMalloc(&dA, na * es));
    CUDA_OK(cudaMalloc(&dB, nb * es));
    CUDA_OK(cudaMalloc(&dC, nc * es));
    CUDA_OK(cudaMemcpy(dA, A, na * es, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(dB, B, nb * es, cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(dC, C0, nc * es, cudaMemcpyHostToDevice));

    const int rc = be->fn(dt, M, N, K, dA, lda, dB, ldb, dC, ldc, stream);
    EXPECT(rc == 0, "%s %s %dx%dx%d: returned %d: %s", be->name, dtype_name(dt), M, N, K, rc,
           err_get());
    CUDA_OK(cudaStreamSynchronize(stream));
    CUDA_OK(cudaMemcpy(C, dC, nc * es, cudaMemcpyDeviceToHost));

    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double s = 0, s32 = 0;
            for (int k = 0; k < K; k++) {
                const float a = dtype_get(dt, A, (size_t)i * lda + k);
                const float b = dtype_get(dt, B, (size_t)k * ldb + j);
                s += (double)dtype_round(dt, a) * dtype_round(dt, b);
                s32 += (double)a * b;
            }
            ref[(size_t)i * N + j] = s;
            ref32[(size_t)i * N + j] = s32;
            memcpy((char *)got + ((size_t)i * N + j) * es, (char *)C + ((size_t)i * ldc + j) * es,
                   es);
        }
    long touched = 0;
    for (int i = 0; i + 1 < M; i++)
        touched += memcmp((char *)C + ((size_t)i * ldc + N) * es,
                          (char *)C0 + ((size_t)i * ldc + N) * es, (size_t)(ldc - N) * es) != 0;
    EXPECT(touched == 0, "%s %s %dx%dx%d ldc %d: wrote padding of C in %ld rows", be->name,
           dtype_name(dt), M, N, K, ldc, touched);

    check_result r = check_compare_dt(got, dt, ref, (size_t)M * N, check_tolerance(dt, K));
    EXPECT(r.pass, "%s %s %dx%dx%d ld %d/%d/%d: max_abs %.3g rel %.3g tol %.3g nonfinite %ld "
           "worst index %ld", be->name, dtype_name(dt), M, N, K, lda, ldb, ldc, r.max_abs_err,
           r.rel_err, r.tolerance, r.nonfinite, r.worst_index);
    /* tf32: the inputs' rounding really happened (the fp32 tolerance against
     * the unrounded inputs is missed); on a GPU only where tensor cores surely run */
#ifdef __CUDAEMU__
    const int must_be_tf32 = K >= 64;
#else
    const int must_be_tf32 = (double)M * N * K >= 128.0 * 128 * 128;
#endif
    if (dt == DTYPE_TF32 && must_be_tf32) {
        check_result f = check_compare_dt(got, dt, ref32, (size_t)M * N,
                                          check_tolerance(DTYPE_FP32, K));
        EXPECT(!f.pass, "%s tf32 %dx%dx%d: meets the fp32 tolerance (rel %.3g): TF32 not in "
               "effect?", be->name, M, N, K, f.rel_err);
    }

    CUDA_OK(cudaFree(dA));
    CUDA_OK(cudaFree(dB));
    CUDA_OK(cudaFree(dC));
    free(tmp); free(A); free(B); free(C0); free(C); free(got); free(ref); free(ref32);
    return r;
}

static void dt_bad_arguments(cudaStream_t stream)
{
    float *d = NULL;
    CUDA_OK(cudaMalloc((void **)&d, 64 * sizeof(float)));
    for (size_t b = 0; b < sizeof DT_BACKENDS / sizeof DT_BACKENDS[0]; b++) {
        const dt_backend *be = &DT_BACKENDS[b];
        err_clear();
        EXPECT(be->fn(DTYPE_BF16, 0, 4, 4, d, 4, d, 4, d, 4, stream) == -1 && *err_get(),
               "%s accepted M=0", be->name);
        err_clear();
        EXPECT(be->fn(DTYPE_FP16, 4, 4, 4, d, 3, d, 4, d, 4, stream) == -1 && *err_get(),
               "%s accepted lda=3 < K=4", be->name);
        err_clear();
        EXPECT(be->fn(DTYPE_TF32, 4, 4, 4, NULL, 4, d, 4, d, 4, stream) == -1 && *err_get(),
               "%s accepted A=NULL", be->name);
        err_clear();
        EXPECT(be->fn(DTYPE_U8, 4, 4, 4, d, 4, d, 4, d, 4, stream) == -1 && *err_get(),
               "%s accepted dtype u8", be->name);
    }
    CUDA_OK(cudaStreamSynchronize(stream));
    CUDA_OK(cudaFree(d));
}

/* Shapes cuBLAS runs split-K (few output tiles, a long reduction; the
 * emulator's rule, emu/README.md's cuBLAS section): with its default math
 * a 16-bit C may be summed from 16-bit partials, rounded several times,
 * which check_compare_dt's one rounding fails; gemm_cublas_dt disallows it. */
static const gemm_case SPLITK_CASES[] = {{1024, 1, 2048, PAD_NONE}, {64, 128, 1568, PAD_NONE}};

static void run_splitk(cudaStream_t stream)
{
    const dt_backend cublas = {"cublas-dt", gemm_cublas_dt};
    const dtype_t types[] = {DTYPE_BF16, DTYPE_FP16};
    const size_t ncases = sizeof SPLITK_CASES / sizeof SPLITK_CASES[0];
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        const double t0 = now_s();
        double worst = 0.0;
        for (size_t i = 0; i < ncases; i++) {
            check_result r = run_case_dt(&cublas, types[t], &SPLITK_CASES[i], stream,
                                         9500 + 10 * i + 100 * t);
            worst = fmax(worst, r.rel_err / r.tolerance);
        }
        printf("%-13s %-4s %2zu split-K   worst rel_err/tol %.3f  %.2f s\n", cublas.name,
               dtype_name(types[t]), ncases, worst, now_s() - t0);
    }
}

static void run_dt(cudaStream_t stream)
{
    const size_t ncases = sizeof DT_CASES / sizeof DT_CASES[0];
    for (size_t b = 0; b < sizeof DT_BACKENDS / sizeof DT_BACKENDS[0]; b++)
        for (size_t t = 0; t < sizeof DT_TYPES / sizeof DT_TYPES[0]; t++) {
            const double t0 = now_s();
            double worst = 0.0;
            for (size_t i = 0; i < ncases; i++) {
                check_result r = run_case_dt(&DT_BACKENDS[b], DT_TYPES[t], &DT_CASES[i], stream,
                                             9000 + 10 * i + 100 * t);
                worst = fmax(worst, r.rel_err / r.tolerance);
            }
            printf("%-13s %-4s %2zu cases      worst rel_err/tol %.3f  %.2f s\n",
                   DT_BACKENDS[b].name, dtype_name(DT_TYPES[t]), ncases, worst, now_s() - t0);
        }
    run_splitk(stream);
    dt_bad_arguments(stream);
}

/* Contract violations are refused with -1 and a message, before any launch. */
static void bad_arguments(cudaStream_t stream)
{
    float *d = NULL;
    CUDA_OK(cudaMalloc((void **)&d, 64 * sizeof(float)));
    for (size_t b = 0; b < sizeof BACKENDS / sizeof BACKENDS[0]; b++) {
        const backend *be = &BACKENDS[b];
        err_clear();
        EXPECT(be->fn(0, 4, 4, 1.0f, d, 4, d, 4, 0.0f, d, 4, stream) == -1 && *err_get(),
               "%s accepted M=0", be->name);
        err_clear();
        EXPECT(be->fn(4, 4, 4, 1.0f, d, 3, d, 4, 0.0f, d, 4, stream) == -1 && *err_get(),
               "%s accepted lda=3 < K=4", be->name);
        err_clear();
        EXPECT(be->fn(4, 4, 4, 1.0f, d, 4, d, 4, 0.0f, d, 3, stream) == -1 && *err_get(),
               "%s accepted ldc=3 < N=4", be->name);
        err_clear();
        EXPECT(be->fn(4, 4, 4, 1.0f, NULL, 4, d, 4, 0.0f, d, 4, stream) == -1 && *err_get(),
               "%s accepted A=NULL", be->name);
    }
    CUDA_OK(cudaStreamSynchronize(stream));
    CUDA_OK(cudaFree(d));
}

int main(void)
{
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1) {
        printf("no CUDA device: skipped\n");
        return 77; /* CTest's SKIP_RETURN_CODE */
    }
    cudaStream_t stream = NULL;
    CUDA_OK(cudaStreamCreate(&stream));
    const size_t ncases = sizeof CASES / sizeof CASES[0];

    for (size_t b = 0; b < sizeof BACKENDS / sizeof BACKENDS[0]; b++) {
        const backend *be = &BACKENDS[b];
        const double t0 = now_s();
        double worst = 0.0;
        for (size_t i = 0; i < ncases; i++) {
            check_result r1 = run_case(be, &CASES[i], 1.5f, -0.5f, stream, 1000 + 10 * i);
            check_result r2 = run_case(be, &CASES[i], 1.0f, 0.0f, stream, 5000 + 10 * i);
            worst = fmax(worst, fmax(r1.rel_err / r1.tolerance, r2.rel_err / r2.tolerance));
        }
        printf("%-18s %2zu cases x 2  worst rel_err/tol %.3f  %.2f s\n", be->name, ncases,
               worst, now_s() - t0);
    }
    bad_arguments(stream);
    run_dt(stream);

    gemm_cublas_release();
    CUDA_OK(cudaStreamDestroy(stream));
    TEST_END();
}
