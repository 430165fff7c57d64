/* suites/conv/conv.h - the conv suite's two halves (conv.c, conv_gpu.c).
 *
 * A problem is one direction of one layer. problem.dim[] holds the conv_dims
 * fields in this order (CONV_DIM_*), problem.variant the conv_dir, and
 * problem.direction its name ("fwd", "bwd-data", "bwd-filter"). Buffers, in
 * layout order, per direction (streams-N splits the batch: CHUNK buffers are
 * images n0..n1 of chunk c; REDUCE buffers are summed across chunks):
 *   fwd         0 x IN CHUNK, 1 w IN WHOLE, 2 b IN WHOLE, 3 y OUT CHUNK
 *   bwd-data    0 dy IN CHUNK, 1 w IN WHOLE, 2 dx OUT CHUNK
 *   bwd-filter  0 x IN CHUNK, 1 dy IN CHUNK, 2 dw OUT REDUCE, 3 db OUT REDUCE
 */
#ifndef SUITES_CONV_H
#define SUITES_CONV_H

#include "suite.h"
#include "../../ops/conv_dims.h"

#ifdef __cplusplus
extern "C" {
#endif

enum { CONV_DIM_N, CONV_DIM_C, CONV_DIM_H, CONV_DIM_W, CONV_DIM_K, CONV_DIM_R, CONV_DIM_S,
       CONV_DIM_SH, CONV_DIM_SW, CONV_DIM_PH, CONV_DIM_PW, CONV_DIM_P, CONV_DIM_Q };

enum { CONV_FWD_X, CONV_FWD_W, CONV_FWD_B, CONV_FWD_Y };
enum { CONV_BWDD_DY, CONV_BWDD_W, CONV_BWDD_DX };
enum { CONV_BWDF_X, CONV_BWDF_DY, CONV_BWDF_DW, CONV_BWDF_DB };

extern const suite_def SUITE_CONV;
extern const suite_gpu SUITE_CONV_GPU;   /* builds with a GPU layer only */

/* The dims of problem p (from p->dim). */
conv_dims conv_problem_dims(const problem *p);
/* Images [n0, n1) of chunk c of n (the batch split of streams-N). */
void conv_chunk_images(const problem *p, int c, int n, int *n0, int *n1);

#ifdef __cplusplus
}
#endif
#endif
