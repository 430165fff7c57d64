/* suites/stream/stream.h - the stream suite's two halves (see stream.c). */
#ifndef SUITES_STREAM_H
#define SUITES_STREAM_H

#include <stddef.h>
#include "suite.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const suite_def SUITE_STREAM;
extern const suite_gpu SUITE_STREAM_GPU;   /* builds with a GPU layer only */

/* McCalpin's scalar. */
#define STREAM_SCALAR 3.0f

/* Elements [lo, hi) of chunk c of n (edges on 64-byte lines). */
void stream_chunk_range(const problem *p, int c, int n, size_t *lo, size_t *hi);

/* The problem's input arrays (1 or 2): buffers 0 .. stream_inputs(p) - 1; the
 * output is buffer stream_inputs(p). */
int stream_inputs(const problem *p);

#ifdef __cplusplus
}
#endif
#endif
