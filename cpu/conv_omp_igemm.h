/* cpu/conv_omp_igemm.h - cpu-omp's bf16 convolution as an implicit GEMM
 * (internal to cpu/; conv_omp.c chooses the route): the columns of every
 * image packed straight from x into the bf16 GEMM kernels' panels, the
 * filters packed once per call, one product over all images.
 *
 * Contract as conv_cpu.h (NCHW / KCRS), bf16 buffers, fp32 bias, fp32 sums,
 * each output rounded once (conv_omp_dt.h). */
#ifndef CONV_OMP_IGEMM_H
#define CONV_OMP_IGEMM_H

#include "../ops/conv_dims.h"

#include <stdint.h>

/* Whether the route runs d at dt here: bf16 on the vdpbf16ps or AMX path
 * (the pair-packed panels), AVX-512BW, and sizes within its int32 indices. */
int conv_igemm_ok(dtype_t dt, const conv_dims *d);

/* Bytes of kept scratch conv_igemm_fwd takes for d: the packed filters
 * (the calling thread's SCRATCH_CONV_PACK16) and every thread's group of
 * packed columns (SCRATCH_PANELS). */
double conv_igemm_scratch_bytes(dtype_t dt, const conv_dims *d);

/* y = conv(x, w) (+ b, fp32, when not NULL). 0, or non-zero after err_set. */
int conv_igemm_fwd(dtype_t dt, const conv_dims *d, const void *x, const void *w, const float *b,
                   void *y);

/* w (K x C x R x S, bf16 words) packed for the vdpbf16ps kernels' mr-row A
 * panels in tap-major pairs: K pair t * ceil(C/2) + c/2 of panel p holds,
 * for each of its rows m, the words w[m][c][t] (low) and w[m][c + 1][t]
 * (0 past C); rows past K zero; panels R*S*ceil(C/2)*mr dwords apart.
 * Parallel over panels (call it outside a parallel region). */
void conv_igemm_pack_taps(const conv_dims *d, int mr, const uint16_t *w, uint32_t *dst);

/* conv_igemm_fwd's variant for few filters at stride 1, the columns read
 * in place from a padded channel-pair copy of x (conv_omp_igemm_pw.c):
 * whether it pays (at most 64 filters), and its scratch (SCRATCH_CONV_PACK16,
 * and SCRATCH_CONV_COPY for the copy). */
int conv_igemm_pw_pays(dtype_t dt, const conv_dims *d);
double conv_igemm_pw_scratch_bytes(dtype_t dt, const conv_dims *d);
int conv_igemm_pw_fwd(dtype_t dt, const conv_dims *d, const void *x, const void *w,
                      const float *b, void *y);

/* conv_igemm_fwd's variant over the output's tap regions (stride-1 3x3 /
 * pad-1 small images, conv_omp_igemm_regions.c): whether it pays (64
 * filters or more, and a twentieth of the work or more in the padding), and
 * its scratch (SCRATCH_CONV_PACK16, and every thread's SCRATCH_PANELS). */
int conv_igemm_regions_pays(dtype_t dt, const conv_dims *d);
double conv_igemm_regions_scratch_bytes(dtype_t dt, const conv_dims *d);
int conv_igemm_regions_fwd(dtype_t dt, const conv_dims *d, const void *x, const void *w,
                           const float *b, void *y);

/* The bwd-filter with x and dy read in place, for at most 32 filters at
 * stride 1 and an even output width (conv_omp_igemm_pw_bwf.c): whether it
 * takes d, its kept scratch (gemm_scratch slot 2 of every thread), and the
 * entry (dw, db as conv_igemm_bwd_filter's). */
int conv_igemm_pwbf_pays(dtype_t dt, const conv_dims *d);
double conv_igemm_pwbf_scratch_bytes(dtype_t dt, const conv_dims *d);
int conv_igemm_pwbf(dtype_t dt, const conv_dims *d, const void *x, const void *dy, void *dw,
                    void *db);

/* bwd-data at stride 2 by dx's phases, each an in-place stride-1 implicit
 * GEMM over a padded copy of dy (conv_omp_igemm_phase.c): whether it takes
 * bwd-data problem d (enough images for the team, 16 channels or more),
 * its kept scratch (slot 7, and slot 2 of every thread), and the entry. */
int conv_igemm_phase_pays(dtype_t dt, const conv_dims *d);
double conv_igemm_phase_scratch_bytes(dtype_t dt, const conv_dims *d);
int conv_igemm_phase_bwd_data(dtype_t dt, const conv_dims *d, const void *dy, const void *w,
                              void *dx);

/* Whether conv_igemm_bwd_filter runs d at dt here: conv_igemm_ok and the
 * vdpbf16ps path (its A panels are that kernel's; not AMX). */
int conv_igemm_bwf_ok(dtype_t dt, const conv_dims *d);

/* Bytes of kept scratch (gemm_scratch slot 2 of every thread) it takes. */
double conv_igemm_bwf_scratch_bytes(dtype_t dt, const conv_dims *d);

/* dw (K x C x R x S) and db (K) of d, bf16, each rounded once from its fp32
 * sum over all pixels of all images. 0, or non-zero after err_set. */
int conv_igemm_bwd_filter(dtype_t dt, const conv_dims *d, const void *x, const void *dy,
                          void *dw, void *db);

#endif
