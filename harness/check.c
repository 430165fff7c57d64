/* harness/check.c - comparison against a double reference, tolerance, poison,
 * seeded inputs (see check.h for the formula). */
#include "check.h"

#include <math.h>
#include <string.h>

const char *dtype_name(dtype_t d)
{
    switch (d) {
    case DTYPE_FP32: return "fp32";
    case DTYPE_TF32: return "tf32";
    case DTYPE_BF16: return "bf16";
    case DTYPE_FP16: return "fp16";
    case DTYPE_U8: return "u8";
    }
    return "?";
}

static double unit_roundoff_in(dtype_t d)
{
    switch (d) {
    case DTYPE_FP32: return 0.0;
    case DTYPE_TF32: return ldexp(1.0, -11);
    case DTYPE_BF16: return ldexp(1.0, -8);
    case DTYPE_FP16: return ldexp(1.0, -11);
    case DTYPE_U8: return 0.0;
    }
    return 0.0;
}

double check_tolerance(dtype_t d, long k)
{
    if (k < 1) k = 1;
    const double u_acc = ldexp(1.0, -24);
    return 8.0 * (unit_roundoff_in(d) + u_acc * (sqrt((double)k) + 2.0));
}

/* One comparison for float and double results (exactly one of gf, gd is set). */
static check_result compare(const float *gf, const double *gd, const double *ref, size_t n,
                            double tol)
{
    check_result r = {0.0, 0.0, tol, 0, -1, 0};
    double err2 = 0.0, ref2 = 0.0;
    for (size_t i = 0; i < n; i++) {
        double g = gf ? (double)gf[i] : gd[i];
        if (!isfinite(g) || !isfinite(ref[i])) {
            r.nonfinite++;
            continue;
        }
        double e = fabs(g - ref[i]);
        if (e > r.max_abs_err || r.worst_index < 0) {
            r.max_abs_err = e;
            r.worst_index = (long)i;
        }
        err2 += e * e;
        ref2 += ref[i] * ref[i];
    }
    if (ref2 > 0) {
        r.rel_err = sqrt(err2 / ref2);
    } else {
        r.rel_err = err2 > 0 ? INFINITY : 0.0;
    }
    double rms = n ? sqrt(ref2 / (double)n) : 0.0;
    r.pass = r.nonfinite == 0 && r.rel_err <= tol && r.max_abs_err <= CHECK_ELEMENT_FACTOR * tol * rms;
    if (ref2 == 0 && err2 == 0 && r.nonfinite == 0) r.pass = 1;
    if (r.nonfinite) r.max_abs_err = r.rel_err = NAN;
    return r;
}

check_result check_compare(const float *got, const double *ref, size_t n, double tol)
{
    return compare(got, NULL, ref, n, tol);
}

check_result check_compare_d(const double *got, const double *ref, size_t n, double tol)
{
    return compare(NULL, got, ref, n, tol);
}

void check_poison(float *x, size_t n)
{
    const float qnan = nanf("");
    for (size_t i = 0; i < n; i++) x[i] = qnan;
}

static unsigned long long splitmix64(unsigned long long *s)
{
    unsigned long long z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

void rng_fill_uniform(float *x, size_t n, unsigned long long seed)
{
    unsigned long long s = seed;
    for (size_t i = 0; i < n; i++) {
        /* 24 random bits -> [0,1) exactly representable, then [-1,1) */
        float u = (float)(splitmix64(&s) >> 40) * (1.0f / 16777216.0f);
        x[i] = 2.0f * u - 1.0f;
    }
}

double check_closeness(const check_result *c)
{
    double x = c->tolerance > 0 ? c->rel_err / c->tolerance : c->rel_err;
    return x == x ? x : INFINITY;
}
