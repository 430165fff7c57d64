/* harness/check.h - the one numerical checker.
 *
 * A result is compared with a reference computed in double precision:
 *   max_abs_err = max_i |got_i - ref_i|
 *   rel_err     = ||got - ref||_2 / ||ref||_2        (relative L2 error)
 *   NaN/Inf     = counted; a single one fails the check.
 *
 * Tolerance (the one formula, for a result that is a sum of k products):
 *
 *   tol(dtype, k) = 8 * ( u_in(dtype) + u_acc * (sqrt(k) + 2) )
 *
 *   u_acc = 2^-24, the unit roundoff of fp32 accumulation: the rounding error
 *           of a k-term sum of random-sign terms grows like sqrt(k) (+2 for
 *           the alpha/beta update);
 *   u_in  = the unit roundoff the inputs are rounded to before multiplying:
 *           0 for fp32 (inputs are exact), 2^-11 for TF32 (10-bit mantissa),
 *           2^-8 for BF16, 2^-11 for FP16;
 *   8     = safety factor: well above the errors of correct kernels, far below
 *           the error of a wrong element, tile or summation (>= 1e-3).
 * Example: fp32, k = 1024 -> 1.6e-5; tf32, k = 1024 -> 3.9e-3.
 *
 * k, the reduction length of one output element, per operation:
 *   GEMM                 K
 *   conv fwd             C*R*S                  (y[n,k,p,q] sums over c, r, s)
 *   conv bwd-data        K*ceil(R/sh)*ceil(S/sw) (the taps that reach dx[n,c,h,w])
 *   conv bwd-filter      N*P*Q                  (dw[k,c,r,s] and db[k] sum over n, p, q)
 * (conv_reduction in ops/conv_dims.h computes them.)
 *
 * Verdict: pass iff there is no NaN/Inf, rel_err <= tol, and
 * max_abs_err <= 3 * tol * rms(ref) (so one wrong element among millions,
 * too small to move the L2 norm, still fails). For random inputs a correct
 * element's error is about rel_err * rms(ref); over 10^8 elements the largest
 * is under 6x that, and tol is already >= 8x the typical rel_err.
 * An all-zero reference (rms 0) passes only on an exact match.
 */
#ifndef HARNESS_CHECK_H
#define HARNESS_CHECK_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* U8: raw bytes, compared exactly (copies). */
typedef enum { DTYPE_FP32, DTYPE_TF32, DTYPE_BF16, DTYPE_FP16, DTYPE_U8 } dtype_t;

const char *dtype_name(dtype_t d);          /* "fp32", "tf32", ... */
double check_tolerance(dtype_t d, long k);

typedef struct check_result {
    double max_abs_err, rel_err, tolerance;
    long nonfinite;      /* NaN or Inf in the result (or the reference) */
    long worst_index;    /* index of max_abs_err, -1 when n == 0 */
    int pass;
} check_result;

#define CHECK_ELEMENT_FACTOR 3.0

/* Compares n values. tol comes from check_tolerance. */
check_result check_compare(const float *got, const double *ref, size_t n, double tol);
/* The same for results computed in double (e.g. a product check of a result). */
check_result check_compare_d(const double *got, const double *ref, size_t n, double tol);


/* How close a result came to its tolerance: rel_err / tolerance (rel_err
 * when there is none); NaN counts as furthest. For keeping the closest call
 * among several comparisons (a training step's tensors, its steps). */
double check_closeness(const check_result *c);

/* Fills n floats with quiet NaN so that unwritten outputs fail the check. */
void check_poison(float *x, size_t n);

/* Seeded inputs: uniform in [-1, 1), never zeros or constants.
 * The same seed gives the same data on every machine (splitmix64). */
void rng_fill_uniform(float *x, size_t n, unsigned long long seed);

#ifdef __cplusplus
}
#endif
#endif
