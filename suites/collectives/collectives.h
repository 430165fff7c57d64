/* suites/collectives/collectives.h - the collectives suite (see
 * collectives.c) and what its GPU half (collectives_gpu.c) shares with it. */
#ifndef SUITES_COLLECTIVES_H
#define SUITES_COLLECTIVES_H

#include "suite.h"

#ifdef __cplusplus
extern "C" {
#endif

extern const suite_def SUITE_COLLECTIVES;
extern const suite_gpu SUITE_COLLECTIVES_GPU;   /* builds with a GPU layer only */

/* problem.variant */
enum { C_ALLREDUCE, C_REDUCE, C_BROADCAST, C_ALLGATHER, C_REDUCE_SCATTER, C_COUNT };

/* The check compares this many elements at a time (its scratch: that many
 * doubles). */
#define COLL_CHECK_CHUNK 65536

/* Rank r's send element i (integers: every sum exact). */
float coll_value(int r, long long i);
/* Elements of one rank's block over n ranks: the whole buffer, or
 * (allgather, reduce-scatter) its n-th. */
long long coll_block(const problem *p, int n);
/* The suite's check as rank me of n (host: the layout's buffers, send then
 * recv, or broadcast's one; want: COLL_CHECK_CHUNK doubles of scratch). */
check_result coll_verify(const problem *p, int me, int n, void *const *host, double *want,
                         char *why, size_t whycap);
/* p's collective over table t (ops/comm_ops.h), MPI's or a replica's NCCL
 * one: send x, recv y (broadcast: x in place), c elements a rank's block
 * (coll_block), on stream. 0, or non-zero with err_set. */
int coll_call(const problem *p, const comm_ops *t, float *x, float *y, long long c, void *stream);
/* The ranks the suite's layout, fill and check take while a GPU case of n
 * replicas runs (this process's first is me); coll_ranks(-1, -1): the MPI
 * ranks again. */
void coll_ranks(int me, int n);

/* A GPU layer's registry entry point (non-NULL: present). */
int coll_nccl_present(void);

#ifdef __cplusplus
}
#endif
#endif
