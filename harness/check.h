/* harness/check.h - the one numerical checker.
 *
 * A result is compared with a reference computed in double precision:
 *   max_abs_err = max_i |got_i - ref_i|
 *   rel_err     = ||got - ref||_2 / ||ref||_2        (relative L2 error)
 *   NaN/Inf     = counted; a single one fails the check.
 *
 * Tolerance (the one formula, for a result that is a sum of k products):
 *
 *   tol(dtype, k) = 8 * ( u_in(dtype) + u_acc * (sqrt(k) + 2) ) + u_out(dtype)
 *
 *   u_acc = 2^-24, the unit roundoff of fp32 accumulation (every dtype
 *           accumulates in fp32): the rounding error of a k-term sum of
 *           random-sign terms grows like sqrt(k) (+2 for the alpha/beta update);
 *   u_in  = the unit roundoff of inputs rounded inside the product otherwise
 *           than the reference rounded them: 2^-11 for TF32 (the reference
 *           rounds fp32 inputs to nearest even, tensor cores may truncate);
 *           0 for fp32, and for bf16 and fp16, whose inputs are stored in the
 *           dtype: the reference is computed from exactly those values
 *           (benchdnn's way), so it sees the same products;
 *   u_out = the output's rounding to its storage: 2^-8 for BF16, 2^-11 for
 *           FP16 (one rounding, relative error <= u_out), 0 for fp32/tf32;
 *   8     = safety factor: well above the errors of correct kernels, far below
 *           the error of a wrong element, tile or summation (>= 1e-3).
 * Example: fp32, k = 1024 -> 1.6e-5; tf32, k = 1024 -> 3.9e-3;
 *          bf16, k = 1024 -> 3.9e-3 + 1.6e-5.
 *
 * k, the reduction length of one output element, per operation:
 *   GEMM                 K
 *   conv fwd             C*R*S                  (y[n,k,p,q] sums over c, r, s)
 *   conv bwd-data        K*ceil(R/sh)*ceil(S/sw) (the taps that reach dx[n,c,h,w])
 *   conv bwd-filter      N*P*Q                  (dw[k,c,r,s] and db[k] sum over n, p, q)
 * (conv_reduction in ops/conv_dims.h computes them.)
 *
 * Verdict: pass iff there is no NaN/Inf, rel_err <= tol, and every element
 * is within
 *   |got_i - ref_i| <= 3 * (tol - u_out) * rms(ref) + half_ulp(max(|got_i|, |ref_i|))
 * where half_ulp is half a unit in the last place of the 16-bit output dtype
 * (0 for fp32/tf32). So one wrong element among millions, too small to move
 * the L2 norm, still fails; a bf16 or fp16 element one ulp away from its
 * correct rounding fails (a correct one is within half an ulp plus the
 * accumulation's error); and a kernel that multiplies the unrounded fp32
 * inputs instead of the bf16 ones fails, since its error (about 2^-9 of
 * rms(ref), the inputs' rounding) lands on elements whose half ulp is smaller.
 * For random inputs a correct element's accumulation error is about
 * rel_err * rms(ref); over 10^8 elements the largest is under 6x that, and
 * tol is already >= 8x the typical rel_err.
 * An all-zero reference (rms 0) passes only on an exact match.
 */
#ifndef HARNESS_CHECK_H
#define HARNESS_CHECK_H

#include <stddef.h>
#include "../ops/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

double check_tolerance(dtype_t d, long k);

typedef struct check_result {
    double max_abs_err, rel_err, tolerance;
    long nonfinite;      /* NaN or Inf in the result (or the reference) */
    long worst_index;    /* the element furthest beyond its bound, or (none is) that of
                          * max_abs_err; -1 when n == 0 */
    int pass;
} check_result;

#define CHECK_ELEMENT_FACTOR 3.0

/* u_out(dtype) of the formula above. */
double check_unit_roundoff_out(dtype_t d);

/* Compares n values stored in dtype d (fp32/tf32: floats; bf16/fp16: 16-bit
 * words) with the reference. tol comes from check_tolerance(d, k). */
check_result check_compare_dt(const void *got, dtype_t d, const double *ref, size_t n, double tol);
/* The same for the n elements got[idx[e]] of a result stored in d (a sampled
 * reference's), gathered into scratch (room for n floats) first. */
check_result check_compare_at(const void *got, dtype_t d, const long *idx, void *scratch,
                              const double *ref, size_t n, double tol);
/* The same for fp32 results. */
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
