/* tests/harness/check_test.c - the checker: planted wrong values and NaN fail,
 * correct results pass, the tolerance formula, poison, seeded inputs. */
#include "check.h"
#include "testutil.h"

#include <math.h>
#include <stdlib.h>

int main(void)
{
    enum { N = 10000 };
    float *got = malloc(N * sizeof *got);
    double *ref = malloc(N * sizeof *ref);
    rng_fill_uniform(got, N, 42);
    for (int i = 0; i < N; i++) ref[i] = got[i];
    double tol = check_tolerance(DTYPE_FP32, 1024);
    EXPECT(fabs(tol - 8 * ldexp(1, -24) * 34) < 1e-15, "fp32 k=1024 tolerance %g", tol);
    EXPECT(check_tolerance(DTYPE_TF32, 1024) > 100 * tol, "tf32 looser");
    EXPECT(check_tolerance(DTYPE_FP32, 4096) > tol, "grows with k");

    check_result r = check_compare(got, ref, N, tol);
    EXPECT(r.pass && r.max_abs_err == 0 && r.rel_err == 0, "exact passes");

    /* float rounding of the reference passes */
    for (int i = 0; i < N; i++) ref[i] = got[i] * (1.0 + 1e-7);
    r = check_compare(got, ref, N, tol);
    EXPECT(r.pass, "rounding-level error passes: rel %g", r.rel_err);

    /* one planted wrong element among 10000 fails, and is located */
    for (int i = 0; i < N; i++) ref[i] = got[i];
    float keep = got[1234];
    got[1234] = keep + 0.5f;
    r = check_compare(got, ref, N, tol);
    EXPECT(!r.pass, "planted wrong element fails");
    EXPECT(r.worst_index == 1234 && fabs(r.max_abs_err - 0.5) < 1e-6, "worst %ld %g", r.worst_index, r.max_abs_err);
    got[1234] = keep;

    /* a NaN never passes, wherever it is */
    got[N - 1] = nanf("");
    r = check_compare(got, ref, N, 1e9);
    EXPECT(!r.pass && r.nonfinite == 1, "NaN fails even with a huge tolerance");
    got[N - 1] = INFINITY;
    r = check_compare(got, ref, N, 1e9);
    EXPECT(!r.pass && r.nonfinite == 1, "Inf fails");

    /* poison makes every element non-finite */
    check_poison(got, N);
    int nans = 0;
    for (int i = 0; i < N; i++) nans += isnan(got[i]) != 0;
    EXPECT(nans == N, "poison %d", nans);

    /* seeded inputs: reproducible, varied, inside [-1, 1) */
    float *a = malloc(N * sizeof *a), *b = malloc(N * sizeof *b);
    rng_fill_uniform(a, N, 7);
    rng_fill_uniform(b, N, 7);
    int same = 1, zeros = 0, inrange = 1;
    double mean = 0;
    for (int i = 0; i < N; i++) {
        same &= a[i] == b[i];
        zeros += a[i] == 0.0f;
        inrange &= a[i] >= -1.0f && a[i] < 1.0f;
        mean += a[i];
    }
    EXPECT(same && inrange && zeros < 3, "seeded uniform");
    EXPECT(fabs(mean / N) < 0.05, "centred: mean %g", mean / N);
    rng_fill_uniform(b, N, 8);
    EXPECT(a[0] != b[0] || a[1] != b[1], "another seed differs");
    free(a);
    free(b);
    free(got);
    free(ref);
    TEST_END();
}
