/* suites/conv/conv_ref.h - the double-precision reference a convolution
 * result is checked against (every direction).
 *
 * Each output tensor is viewed as planes: y as N*K planes of P x Q, dx as N*C
 * planes of H x W, dw as K*C planes of R x S (db: K values, always checked in
 * full). Small problems (N*K*P*Q*C*R*S <= CONV_REF_FULL_LIMIT multiply-adds,
 * or when asked) are checked element by element in full. Above it, three
 * checks together keep the reference far cheaper than the convolution:
 *  - every element of 8 sampled planes (the 4 corner planes of the plane grid
 *    and 4 seeded ones) on their border bands (the first and last R rows and
 *    S columns of y and dx planes: every output that sees the zero padding, and
 *    every input position that gets fewer filter taps) and on 4 spread inner
 *    rows and columns; all of a dw plane;
 *  - the 4 corner elements of every plane;
 *  - a checksum over ALL elements: per plane (y, dx) or per filter (dw), the
 *    sum of the outputs weighted by seeded +-1 signs, against the same sum
 *    formed from the inputs (y: b[k]*sum(v) + sum_crs w[k,c,r,s] *
 *    sum_pq v[p,q] x[n,c,p*sh-ph+r,q*sw-pw+s]; dx: sum_krs w[k,c,r,s] *
 *    sum_pq dy[n,k,p,q] v[p*sh-ph+r,q*sw-pw+s]; dw: sum_npq dy[n,k,p,q] *
 *    sum_crs v[c,r,s] x[n,c,...]): 1/K, 1/C and 1/K of the convolution's
 *    work, and a wrong element anywhere moves its plane's sum.
 * Sampled elements come from conv_ref_*_elem (cpu/conv_naive.c), the same
 * code as cpu-naive; the tolerance is check_tolerance(dtype, conv_reduction).
 */
#ifndef SUITES_CONV_REF_H
#define SUITES_CONV_REF_H

#include <stddef.h>
#include "check.h"
#include "../../ops/conv_dims.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CONV_REF_FULL_LIMIT (64.0 * 1024 * 1024)   /* multiply-adds */

typedef struct conv_ref_tensor {
    const char *name;   /* "y", "dx", "dw", "db" */
    int A, B, Hs, Ws;   /* planes A x B of Hs x Ws */
    size_t n;           /* checked elements */
    long *idx;          /* their offsets */
    double *val;        /* reference values */
    float *gather;      /* scratch */
    int ngroups;        /* checksum groups (0: none) */
    long group;         /* elements per group (contiguous) */
    float *sign;        /* group's +-1 weights */
    double *sum_ref, *sum_got;
} conv_ref_tensor;

typedef struct conv_ref {
    conv_dims d;
    conv_dir dir;
    int ntensors;
    conv_ref_tensor t[2];
} conv_ref;

/* Builds the reference of direction dir from its inputs (in conv.h's buffer
 * order: fwd x, w, b; bwd-data dy, w; bwd-filter x, dy). sampled: 0 checks
 * every element, 1 samples as above. 0, or -1 out of memory. */
int conv_ref_build(conv_ref *r, const conv_dims *d, conv_dir dir, const float *const *in,
                   int sampled);

/* Checks the outputs (fwd y; bwd-data dx; bwd-filter dw, db; stored in
 * `storage`: fp32 or 16-bit words) with dtype's
 * tolerance; on failure one line of where into why. */
check_result conv_ref_check(const conv_ref *r, const void *const *out, dtype_t storage, dtype_t dt,
                            char *why, size_t whycap);

void conv_ref_free(conv_ref *r);

/* Whether d, dir is checked on samples (above CONV_REF_FULL_LIMIT). */
int conv_ref_sampled(const conv_dims *d);

/* Host bytes conv_ref_build allocates (the runner's memory estimate). */
double conv_ref_bytes(const conv_dims *d, conv_dir dir);

#ifdef __cplusplus
}
#endif
#endif
