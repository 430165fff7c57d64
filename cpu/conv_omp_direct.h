/* cpu/conv_omp_direct.h - cpu-omp's direct convolution for stride-1 layers
 * with few input channels (internal to cpu/; conv_omp.c chooses the path).
 *
 * Contract as conv_cpu.h (NCHW / KCRS, fp32, every output written). These
 * run only where conv_direct_*_ok(d) says so: AVX-512F, stride 1, and a
 * problem small enough per image (C*R*S and the padded image) that the
 * im2col + GEMM route would spend a large share of its time building
 * columns and starting small GEMMs. Each returns 0, or non-zero after
 * err_set (out of memory for the per-thread buffers). */
#ifndef CONV_OMP_DIRECT_H
#define CONV_OMP_DIRECT_H

#include "../ops/conv_dims.h"

/* Whether each direction of d may take the direct path (bwd-data: stride 1
 * and the flipped forward problem it runs passing conv_direct_fwd_ok). */
int conv_direct_fwd_ok(const conv_dims *d);
int conv_direct_bwd_data_ok(const conv_dims *d);
int conv_direct_bwd_filter_ok(const conv_dims *d);

/* The bytes of kept scratch direction dir of d takes: the calling thread's
 * rearranged filters (SCRATCH_CONV_FILTERS) and every thread's padded image
 * (bwd-filter: and its partial and dy^T; SCRATCH_CONV_THREAD). */
double conv_direct_scratch_bytes(const conv_dims *d, conv_dir dir);

/* y = conv(x, w) (+ b when b is not NULL). */
int conv_direct_fwd(const conv_dims *d, const float *x, const float *w, const float *b, float *y);

/* dx of d (stride 1, ph <= R-1, pw <= S-1): the forward convolution of dy
 * with w flipped and transposed (padding R-1-ph, S-1-pw). */
int conv_direct_bwd_data(const conv_dims *d, const float *dy, const float *w, float *dx);

/* dw and db of d. */
int conv_direct_bwd_filter(const conv_dims *d, const float *x, const float *dy, float *dw,
                           float *db);

#endif
