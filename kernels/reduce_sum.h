/* kernels/reduce_sum.h - the sum of n equal-length float arrays on the device,
 * for partial results split across chunks (streams-N's REDUCE buffers).
 * Includable from C and C++. */
#ifndef KERNELS_REDUCE_SUM_H
#define KERNELS_REDUCE_SUM_H

#ifdef __cplusplus
extern "C" {
#endif

/* dst[i] = src[i] + src[count + i] + ... + src[(n-1)*count + i], i < count,
 * summed in that order (deterministic); src holds n arrays of count floats
 * back to back. Device pointers; queued on `stream` (a cudaStream_t); dst may
 * not overlap src. n >= 1, count >= 0. 0, or -1 with err_set. */
int reduce_sum_cuda(float *dst, const float *src, int n, long long count, void *stream);

#ifdef __cplusplus
}
#endif
#endif
