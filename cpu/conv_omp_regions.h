/* cpu/conv_omp_regions.h - cpu-omp's fp32 3x3 / pad 1 / stride 1 path for
 * small output images (ResNet-50 stage 5): one GEMM over the output pixels'
 * tap regions, on filters packed once per call (internal to cpu/;
 * conv_omp_regions.c says why and how).
 *
 * Contract as conv_cpu.h (NCHW / KCRS, fp32, every output written). Returns
 * 0, or non-zero after err_set (out of memory). */
#ifndef CONV_OMP_REGIONS_H
#define CONV_OMP_REGIONS_H

#include "../ops/conv_dims.h"

/* Whether forward problem d takes this path (fp32, 3x3, pad 1, stride 1,
 * output image of the input's size and < 256 pixels, x of < 2^31 floats). */
int conv_regions_ok(dtype_t dt, const conv_dims *d);

/* The bytes of kept scratch conv_regions_fwd takes for d (the calling
 * thread's gemm_scratch slots 4 and 6; the GEMM's panels, slot 0, apart). */
double conv_regions_scratch_bytes(const conv_dims *d);

/* y = conv(x, w) (+ b when b is not NULL) for forward problem d. flipped:
 * d is the forward form of a stride-1 bwd-data (conv_bwd_data_flipped), x is
 * its dy, y its dx, and w the bwd-data problem's own filters ([d->C][d->K]
 * [R][S]), read flipped and transposed while they are packed. */
int conv_regions_fwd(const conv_dims *d, const float *x, const float *w, int flipped,
                     const float *b, float *y);

#endif
