/* cpu/conv_omp_group.h - cpu-omp's image-group path for layers with small
 * output images (internal to cpu/; conv_omp.c chooses the path).
 *
 * Contract as conv_cpu.h (NCHW / KCRS, every output written), in dtype dt:
 * fp32, or bf16 / fp16 with every buffer but the fp32 bias 16-bit, fp32
 * sums, each output rounded once (conv_omp_dt.h). Each
 * returns 0, or non-zero after err_set (out of memory for the group's
 * columns, or a GEMM's failure). */
#ifndef CONV_OMP_GROUP_H
#define CONV_OMP_GROUP_H

#include "../ops/conv_dims.h"

/* Whether d's output images are small enough (P*Q pixels) that the columns
 * of several images are put side by side for one GEMM (any stride and
 * padding; the direct path, where it applies, is chosen before this). */
int conv_group_ok(const conv_dims *d);

/* The bytes of kept scratch (SCRATCH_CONV_COPY) conv_group_fwd (every
 * thread's, at omp_get_max_threads()) or conv_group_bwd_filter (the calling
 * thread's) take for d; 0 for CONV_BWD_DATA (ask for the forward problem it
 * runs). */
double conv_group_scratch_bytes(dtype_t dt, const conv_dims *d, conv_dir dir);

/* y = conv(x, w) (+ b when b is not NULL). */
int conv_group_fwd(dtype_t dt, const conv_dims *d, const void *x, const void *w, const float *b,
                   void *y);

/* dw and db of d. */
int conv_group_bwd_filter(dtype_t dt, const conv_dims *d, const void *x, const void *dy,
                          void *dw, void *db);

/* fp32 3x3 / pad 1 / stride 1 bwd-filter of small images (where
 * conv_regions_ok(DTYPE_FP32, d)): the image-group GEMM over the interior
 * pixels and four edge GEMMs over only the taps inside the image, and its
 * kept scratch (SCRATCH_CONV_COPY, SCRATCH_CONV_PACK32). */
int conv_group_split_bwd_filter(const conv_dims *d, const float *x, const float *dy, float *dw,
                                float *db);
double conv_group_split_scratch_bytes(const conv_dims *d);

#endif
