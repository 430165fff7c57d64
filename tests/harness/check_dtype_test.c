/* tests/harness/check_dtype_test.c - the checker at reduced precision (check.h):
 * correct bf16 and fp16 GEMM results pass; one element one ulp away from its
 * correct rounding fails; a result computed from the unrounded fp32 inputs
 * (a kernel that silently multiplies in fp32) fails; the converters round to
 * nearest even and the tf32 rounding keeps 10 fraction bits. */
#include "check.h"
#include "testutil.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { M = 24, N = 40, K = 256 };

/* C = A*B: fp32 accumulation of the dtype's (or, fp32_inputs, the unrounded)
 * values, each element stored once in dt; ref: double sums of the dtype's values. */
static void gemm(dtype_t dt, const float *A, const float *B, int fp32_inputs, uint16_t *C,
                 double *ref)
{
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float acc = 0.0f;
            double r = 0.0;
            for (int k = 0; k < K; k++) {
                float a = dtype_round(dt, A[i * K + k]), b = dtype_round(dt, B[k * N + j]);
                acc += fp32_inputs ? A[i * K + k] * B[k * N + j] : a * b;
                r += (double)a * b;
            }
            dtype_set(dt, C, (size_t)i * N + j, acc);
            ref[i * N + j] = r;
        }
}

static void one_dtype(dtype_t dt, const float *A, const float *B)
{
    uint16_t *C = malloc(M * N * sizeof *C);
    double *ref = malloc(M * N * sizeof *ref), *dummy = malloc(M * N * sizeof *dummy);
    double tol = check_tolerance(dt, K);
    gemm(dt, A, B, 0, C, ref);
    check_result r = check_compare_dt(C, dt, ref, M * N, tol);
    EXPECT(r.pass, "%s: a correct result passes (rel %g, tol %g)", dtype_name(dt), r.rel_err, tol);
    EXPECT(r.rel_err > 0 && r.rel_err < check_unit_roundoff_out(dt),
           "%s: output rounding shows, below u_out: %g", dtype_name(dt), r.rel_err);

    /* one element one ulp further from zero: the first that stays in its binade */
    int man = dt == DTYPE_BF16 ? 7 : 10, planted = 0;
    uint16_t all = (uint16_t)((1u << man) - 1);
    for (int e = 0; e < M * N && !planted; e++)
        if ((C[e] & all) != all && (C[e] & all) != 0) {
            C[e]++;
            r = check_compare_dt(C, dt, ref, M * N, tol);
            EXPECT(!r.pass && r.worst_index == e, "%s: one ulp too many at %d fails (worst %ld)",
                   dtype_name(dt), e, r.worst_index);
            C[e]--;
            planted = 1;
        }
    EXPECT(planted, "%s: an element to plant in", dtype_name(dt));

    /* the unrounded fp32 inputs, rounded to dt only at the end */
    gemm(dt, A, B, 1, C, dummy);
    r = check_compare_dt(C, dt, ref, M * N, tol);
    EXPECT(!r.pass, "%s: computed from fp32 inputs fails (rel %g)", dtype_name(dt), r.rel_err);
    free(C);
    free(ref);
    free(dummy);
}

int main(void)
{
    float *A = malloc(M * K * sizeof *A), *B = malloc(K * N * sizeof *B);
    rng_fill_uniform(A, M * K, 11);
    rng_fill_uniform(B, K * N, 12);
    one_dtype(DTYPE_BF16, A, B);
    one_dtype(DTYPE_FP16, A, B);

    /* the converters: nearest even, exactly at the ties */
    EXPECT(dtype_bf16_from_f32(1.0f + 0x1p-8f) == 0x3F80, "bf16 tie to even (down)");
    EXPECT(dtype_bf16_from_f32(1.0f + 3 * 0x1p-8f) == 0x3F82, "bf16 tie to even (up)");
    EXPECT(dtype_fp16_from_f32(1.0f + 0x1p-11f) == 0x3C00, "fp16 tie to even");
    EXPECT(dtype_fp16_from_f32(65520.0f) == 0x7C00, "fp16 overflow to infinity");
    EXPECT(dtype_fp16_to_f32(0x0001) == 0x1p-24f, "fp16 smallest subnormal");
    EXPECT(dtype_bf16_to_f32(dtype_bf16_from_f32(-2.5f)) == -2.5f, "bf16 round trip");
    EXPECT(dtype_tf32_round(1.0f + 0x1p-11f) == 1.0f && dtype_tf32_round(1.0f + 3 * 0x1p-11f) ==
               1.0f + 0x1p-9f, "tf32 keeps 10 fraction bits, ties to even");
    EXPECT(check_tolerance(DTYPE_BF16, K) > check_tolerance(DTYPE_FP16, K) &&
               check_tolerance(DTYPE_FP16, K) > check_tolerance(DTYPE_FP32, K),
           "tolerances order by precision");
    free(A);
    free(B);
    TEST_END();
}
