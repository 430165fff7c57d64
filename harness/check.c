/* harness/check.c - comparison against a double reference, tolerance, poison,
 * seeded inputs (see check.h for the formula). */
#include "check.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

/* The unit roundoff of the inputs inside a product that the hardware may
 * round otherwise than the reference did (TF32: nearest or truncation). */
static double unit_roundoff_in(dtype_t d)
{
    return dtype_info_of(d)->rounds_inputs ? dtype_unit_roundoff(d) : 0.0;
}

double check_unit_roundoff_out(dtype_t d)
{
    return dtype_is_16bit(d) ? dtype_unit_roundoff(d) : 0.0;
}

double check_tolerance(dtype_t d, long k)
{
    if (k < 1) k = 1;
    const double u_acc = ldexp(1.0, -24);
    return 8.0 * (unit_roundoff_in(d) + u_acc * (sqrt((double)k) + 2.0)) +
           check_unit_roundoff_out(d);
}

/* Half a unit in the last place of x in the 16-bit dtype d (0 for others). */
static double half_ulp(dtype_t d, double x)
{
    const int man = dtype_info_of(d)->frac_bits, emin = dtype_info_of(d)->emin;
    int e;
    if (!dtype_is_16bit(d)) return 0.0;
    (void)frexp(fabs(x), &e); /* |x| = f 2^e, f in [0.5, 1): its binade is 2^(e-1) */
    e = e - 1 < emin ? emin : e - 1;
    return ldexp(1.0, e - man - 1);
}

/* One comparison for results stored in dtype d (DTYPE_COUNT: doubles). */
static check_result compare(const void *got, int d, const double *ref, size_t n, double tol)
{
    check_result r = {0.0, 0.0, tol, 0, -1, 0};
    double err2 = 0.0, ref2 = 0.0, over = 0.0;
    long over_at = -1;
    const dtype_t dt = d == DTYPE_COUNT ? DTYPE_FP32 : (dtype_t)d;
    for (size_t i = 0; i < n; i++)
        if (isfinite(ref[i])) ref2 += ref[i] * ref[i];
    const double rms = n ? sqrt(ref2 / (double)n) : 0.0;
    /* an element's bound: the accumulation's share of tol, and half an ulp of
     * the output's rounding to a 16-bit dtype */
    const double acc = CHECK_ELEMENT_FACTOR * (tol - check_unit_roundoff_out(dt)) * rms;
    for (size_t i = 0; i < n; i++) {
        double g = d == DTYPE_COUNT ? ((const double *)got)[i] : (double)dtype_get(dt, got, i);
        if (!isfinite(g) || !isfinite(ref[i])) {
            r.nonfinite++;
            continue;
        }
        double e = fabs(g - ref[i]);
        if (e > r.max_abs_err || r.worst_index < 0) {
            r.max_abs_err = e;
            r.worst_index = (long)i;
        }
        double excess = e - acc - half_ulp(dt, fmax(fabs(g), fabs(ref[i])));
        if (excess > over) {
            over = excess;
            over_at = (long)i;
        }
        err2 += e * e;
    }
    if (ref2 > 0) {
        r.rel_err = sqrt(err2 / ref2);
    } else {
        r.rel_err = err2 > 0 ? INFINITY : 0.0;
    }
    r.pass = r.nonfinite == 0 && r.rel_err <= tol && over <= 0.0;
    if (over_at >= 0) r.worst_index = over_at; /* the element furthest beyond its bound */
    if (ref2 == 0 && err2 == 0 && r.nonfinite == 0) r.pass = 1;
    if (r.nonfinite) r.max_abs_err = r.rel_err = NAN;
    return r;
}

check_result check_compare_dt(const void *got, dtype_t d, const double *ref, size_t n, double tol)
{
    return compare(got, d == DTYPE_U8 ? DTYPE_FP32 : d, ref, n, tol);
}

check_result check_compare_at(const void *got, dtype_t d, const long *idx, void *scratch,
                              const double *ref, size_t n, double tol)
{
    if (dtype_is_16bit(d)) { /* kept as words: the half-ulp bound of the output */
        uint16_t *w = (uint16_t *)scratch;
        for (size_t e = 0; e < n; e++) w[e] = ((const uint16_t *)got)[idx[e]];
    } else {
        float *f = (float *)scratch;
        for (size_t e = 0; e < n; e++) f[e] = ((const float *)got)[idx[e]];
    }
    return check_compare_dt(scratch, d, ref, n, tol);
}

check_result check_compare(const float *got, const double *ref, size_t n, double tol)
{
    return compare(got, DTYPE_FP32, ref, n, tol);
}

check_result check_compare_d(const double *got, const double *ref, size_t n, double tol)
{
    return compare(got, DTYPE_COUNT, ref, n, tol);
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
