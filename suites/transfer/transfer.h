/* suites/transfer/transfer.h - the transfer suite's two halves (see transfer.c). */
#ifndef SUITES_TRANSFER_H
#define SUITES_TRANSFER_H

#include <stddef.h>
#include "suite.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const suite_def SUITE_TRANSFER;
extern const suite_gpu SUITE_TRANSFER_GPU;   /* builds with a GPU layer only */

/* The backend cuda-memcpy (transfer_gpu.c): one copy of `bytes` from src to
 * dst, blocking, or queued on stream when async (kind as cudaMemcpy's).
 * 0, or -1 with err_set. */
typedef int (*copy_fn)(void *dst, const void *src, size_t bytes, int kind, int async,
                       void *stream);
int copy_cuda_memcpy(void *dst, const void *src, size_t bytes, int kind, int async, void *stream);

/* The seeded bytes every copy of `bytes` moves (and is checked against). */
void transfer_pattern(unsigned char *out, size_t bytes);

#ifdef __cplusplus
}
#endif
#endif
