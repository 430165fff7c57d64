/* kernels/conv_cuda.h - CUDA 2-D convolution backends (forward, backward-data,
 * backward-filter), each one conv_ops table.
 *
 * Contract (ops/conv_dims.h, shared with cpu/conv_cpu.h): x [N][C][H][W],
 * w [K][C][R][S], b [K], y [N][K][P][Q], fp32, NCHW / KCRS, contiguous; any
 * N, C, H, W, K, R, S >= 1, stride >= 1, padding >= 0 with P, Q >= 1 (the dims
 * already finished by conv_dims_finish); groups 1, dilation 1.  Every output
 * element is written (y, dx, dw, db are overwritten, never accumulated into;
 * their old contents, even NaN, are ignored).
 *
 * GPU specifics: every tensor pointer is DEVICE memory; `stream` is a
 * cudaStream_t; the work is queued on it and the call returns once it is
 * enqueued (never synchronizing, except under bench_cuda_sync_launches, the
 * debug switch of harness/cuda_check.h).  `ws` is device scratch of at least
 * ops.workspace(d, dir) bytes (NULL when that is 0), used only by work queued
 * on `stream`: two calls in flight on two streams need two workspaces.
 * Each entry point returns 0, or -1 with the reason recorded by err_set
 * (harness/errmsg.h): bad dims or pointers, a workspace that is missing, a
 * failed launch or library call.  The cuDNN backend also leaves the
 * algorithm it ran in case_note_set (the row's note).
 *
 * Includable from C and C++.
 */
#ifndef KERNELS_CONV_CUDA_H
#define KERNELS_CONV_CUDA_H

#include "../ops/conv_dims.h"

#ifdef __cplusplus
extern "C" {
#endif

/* cuda-direct: direct convolution, one output (fwd) or input (bwd-data)
 * tile per block with the input patch it reads in shared memory; bwd-filter
 * one block per (k, c) reducing over n, p, q (kernels/conv_direct.cu). */
extern const conv_ops CONV_CUDA_DIRECT;
/* cuda-im2col: im2col (col2im for bwd-data) + the cuda-regtile GEMM, image
 * by image (kernels/conv_im2col.cu). */
extern const conv_ops CONV_CUDA_IM2COL;
/* cuda-implicit: implicit GEMM on 128x128x8 register tiles, the im2col
 * matrix gathered on the fly; split-K for bwd-filter (kernels/conv_implicit.cu). */
extern const conv_ops CONV_CUDA_IMPLICIT;
/* cudnn: cuDNN's legacy convolution API, fp32 FMA math (no TF32), the
 * algorithm from cudnnGetConvolution*Algorithm_v7 (kernels/conv_cudnn.cu). */
extern const conv_ops CONV_CUDNN;

/* Destroys the cached cuDNN handles (one per device, created on first use;
 * registered with harness/gpu_handles.h). */
void conv_cudnn_release(void);

#ifdef __cplusplus
}
#endif
#endif
