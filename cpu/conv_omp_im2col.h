/* cpu/conv_omp_im2col.h - cpu-omp convolution's column routes (conv_omp.c;
 * internal to cpu/, chosen by conv_omp_routes.c): im2col blocks + our GEMM
 * for fwd and bwd-filter, col2im for bwd-data at any stride, and the
 * flipped filters of a stride-1 bwd-data run as a forward problem.
 *
 * Contract as conv_cpu.h (NCHW / KCRS), every buffer in dt but the fp32
 * bias; bf16 / fp16 sum in fp32 and round each output once (conv_omp_dt.h).
 * Each returns 0, or non-zero after err_set; each *_scratch gives the bytes
 * of kept scratch it takes (SCRATCH_CONV_THREAD of every thread, and
 * SCRATCH_CONV_FILTERS of the calling thread). */
#ifndef CONV_OMP_IM2COL_H
#define CONV_OMP_IM2COL_H

#include "../ops/conv_dims.h"

/* y = conv(x, w) (+ b when not NULL), column block by column block. */
int conv_cols_fwd(dtype_t dt, const conv_dims *d, const void *x, const void *w, const float *b,
                  void *y);
double conv_cols_fwd_scratch(dtype_t dt, const conv_dims *d);

/* dx of d by dcol = w^T . dy and col2im, per (image, channel group). */
int conv_col2im_bwd_data(dtype_t dt, const conv_dims *d, const void *dy, const void *w, void *dx);
double conv_col2im_scratch(dtype_t dt, const conv_dims *d);

/* dw and db of d, per-thread fp32 partials over column blocks. */
int conv_cols_bwd_filter(dtype_t dt, const conv_dims *d, const void *x, const void *dy, void *dw,
                         void *db);
double conv_cols_bwd_filter_scratch(dtype_t dt, const conv_dims *d);

/* The filters of bwd-data problem d flipped and transposed
 * (w'[c][k][R-1-r][S-1-s] = w[k][c][r][s]: conv_bwd_data_flipped's filters)
 * into the calling thread's SCRATCH_CONV_FILTERS, or NULL (err_set); and
 * that copy's bytes. */
const void *conv_flip_filters(dtype_t dt, const conv_dims *d, const void *w);
double conv_flip_bytes(dtype_t dt, const conv_dims *d);

#endif
