/* tests/cpu/gemm_omp_routes_test.c - the test of cpu-omp GEMM's route table
 * (cpu/gemm_omp.c, gemm_route_pick): every row forced through
 * BENCH_CPU_GEMM_ROUTE on each shape below it applies to, with every
 * transpose pair, alpha and beta not 0 or 1, and 1 and 2 threads, checked
 * element by element against a double triple loop; a row no shape reaches
 * fails (add one); unforced, the first row that applies and pays is the one
 * picked; a forced row that does not apply fails the call naming it. */
#define _POSIX_C_SOURCE 200809L
#include "errmsg.h"
#include "gemm_cpu.h"
#include "gemm_omp_impl.h"
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const int SHAPES[][3] = {
    {37, 1, 45},   {1, 53, 40},   {33, 70, 29},  {100, 10, 64}, {10, 100, 300},
    {130, 97, 65}, {200, 180, 170}, {64, 64, 2100},
};
#define NSHAPES ((int)(sizeof SHAPES / sizeof SHAPES[0]))

static float frand(unsigned *s)
{
    *s = *s * 1103515245u + 12345u;
    return (float)((*s >> 9) & 0xffff) / 32768.0f - 1.0f;
}

/* Runs c's product (through gemm_cpu_omp_t) and checks it. */
static int run_checked(int ta, int tb, int M, int N, int K, const char *what)
{
    unsigned seed = (unsigned)(M * 131 + N * 17 + K);
    const int lda = ta ? M : K, ldb = tb ? K : N, ldc = N + 3;
    float *A = malloc(sizeof(float) * (size_t)M * K), *B = malloc(sizeof(float) * (size_t)K * N);
    float *C = malloc(sizeof(float) * (size_t)M * ldc), *C0 = malloc(sizeof(float) * (size_t)M * ldc);
    for (long i = 0; i < (long)M * K; i++) A[i] = frand(&seed);
    for (long i = 0; i < (long)K * N; i++) B[i] = frand(&seed);
    for (long i = 0; i < (long)M * ldc; i++) C[i] = C0[i] = frand(&seed);
    const float alpha = 0.75f, beta = -0.5f;
    err_clear();
    int rc = gemm_cpu_omp_t(ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    int bad = 0;
    for (int i = 0; !rc && i < M; i++)
        for (int j = 0; j < ldc; j++) {
            double ref = C0[(long)i * ldc + j];
            if (j < N) {
                double s = 0;
                for (int k = 0; k < K; k++)
                    s += (double)(ta ? A[(long)k * lda + i] : A[(long)i * lda + k]) *
                         (tb ? B[(long)j * ldb + k] : B[(long)k * ldb + j]);
                ref = alpha * s + beta * ref;
            }
            /* fp32 sums of K products of magnitude <= 1 */
            if (!(fabs(C[(long)i * ldc + j] - ref) <= 4e-7 * K + 1e-6)) bad++;
        }
    EXPECT(rc == 0, "%s %dx%dx%d ta %d tb %d: returned %d: %s", what, M, N, K, ta, tb, rc, err_get());
    EXPECT(bad == 0, "%s %dx%dx%d ta %d tb %d: %d wrong elements", what, M, N, K, ta, tb, bad);
    free(A), free(B), free(C), free(C0);
    return rc;
}

static gemm_call call_of(int ta, int tb, int M, int N, int K)
{
    gemm_call c = {.ta = ta, .tb = tb, .M = M, .N = N, .K = K, .alpha = 1, .beta = 0,
                   .nt = 1, .cf = gemm_kernel_select()};
    return c;
}

int main(void)
{
    int n;
    const gemm_route *r = gemm_routes(&n);
    for (int i = 0; i < n; i++) {
        int reached = 0;
        setenv("BENCH_CPU_GEMM_ROUTE", r[i].name, 1);
        for (int s = 0; s < NSHAPES; s++) {
            const int M = SHAPES[s][0], N = SHAPES[s][1], K = SHAPES[s][2];
            gemm_call c = call_of(0, 0, M, N, K);
            if (r[i].applies && !r[i].applies(&c)) continue;
            EXPECT(gemm_route_pick(&c) == &r[i], "%s forced: not picked for %dx%dx%d", r[i].name, M,
                   N, K);
            reached++;
            for (int threads = 1; threads <= 2; threads++) {
                cpu_threads_set(threads);
                for (int t = 0; t < 4; t++) run_checked(t & 1, t >> 1, M, N, K, r[i].name);
            }
        }
        printf("%-9s forced on %d shape(s)\n", r[i].name, reached);
        EXPECT(reached > 0, "route %s: no shape reaches it", r[i].name);
    }
    /* a forced row that does not apply: gemv-col on N = 70 */
    setenv("BENCH_CPU_GEMM_ROUTE", "gemv-col", 1);
    float a[4] = {0}, c[4] = {0};
    EXPECT(gemm_cpu_omp(2, 2, 1, 1.0f, a, 1, a, 2, 0.0f, c, 2) != 0 &&
               strstr(err_get(), "BENCH_CPU_GEMM_ROUTE=gemv-col does not apply"),
           "a forced route that does not apply ran: %s", err_get());
    unsetenv("BENCH_CPU_GEMM_ROUTE");
    /* unforced: the first row that applies and pays */
    for (int s = 0; s < NSHAPES; s++) {
        gemm_call c2 = call_of(0, 0, SHAPES[s][0], SHAPES[s][1], SHAPES[s][2]);
        const gemm_route *want = NULL;
        for (int i = 0; i < n && !want; i++)
            if ((!r[i].applies || r[i].applies(&c2)) && (!r[i].pays || r[i].pays(&c2))) want = &r[i];
        EXPECT(gemm_route_pick(&c2) == want, "shape %d: not the first row", s);
    }
    TEST_END();
}
