/* ops/comm_ops.h - the collectives a data-parallel step (and the collectives
 * suite) is written against, one table per communication engine: MPI over
 * host buffers (harness/comm.c: comm_mpi_ops, and comm_none_ops for one
 * replica), NCCL over device buffers, one table per replica GPU (the GPU
 * layer: harness/gpu_nccl.h). suites/train/train_dp_step.c's one step runs
 * on either.
 *
 * Contract of every entry point:
 *   fp32 buffers of n >= 0 elements: host memory for MPI, device memory of
 *   this replica's GPU for NCCL (called with that GPU current). `stream` is
 *   a cudaStream_t for NCCL (work is queued on it, never synchronized) and
 *   ignored by MPI (the call returns when its buffers may be read).
 *   Every replica of the communicator calls the same entries in the same
 *   order with the same n (a collective a replica skips never completes).
 *   Sums are over replicas in rank order as the engine does them; for
 *   integer-valued data below 2^24 they are exact.
 *   Each returns 0, or non-zero after err_set (harness/errmsg.h) naming the
 *   failed call and the engine's error string.
 */
#ifndef OPS_COMM_OPS_H
#define OPS_COMM_OPS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct comm_ops {
    const char *name;   /* the comm column: none, mpi, nccl, nccl-mpi */
    int rank, size;     /* this replica, and how many there are */
    void *ctx;          /* the engine's communicator */
    /* recv = the sum over replicas of send. send == recv: in place. */
    int (*allreduce)(void *ctx, const float *send, float *recv, long long n, void *stream);
    /* The same, started without waiting: nonblocking MPI, or, for NCCL, the
     * communication stream waits for an event recorded on `stream` (the
     * compute stream: its work so far) and the all-reduce is queued there.
     * wait() completes every started one and orders `stream` after them
     * (NCCL: `stream` waits for an event recorded on the communication
     * stream). progress() lets started ones advance (MPI polls; NULL: they
     * advance by themselves). */
    int (*allreduce_start)(void *ctx, const float *send, float *recv, long long n, void *stream);
    int (*progress)(void *ctx);
    int (*wait)(void *ctx, void *stream);
    /* root's recv = the sum over replicas of send (recv used on root only;
     * send == recv: in place). */
    int (*reduce)(void *ctx, const float *send, float *recv, long long n, int root,
                  void *stream);
    /* buf on every replica = root's buf. */
    int (*bcast)(void *ctx, float *buf, long long n, int root, void *stream);
    /* recv[r * n .. r * n + n) = replica r's send (recv holds size * n). */
    int (*allgather)(void *ctx, const float *send, float *recv, long long n, void *stream);
    /* recv (n) = sum over replicas of their send[rank * n .. rank * n + n). */
    int (*reduce_scatter)(void *ctx, const float *send, float *recv, long long n, void *stream);
    /* Optional (NULL: nothing to do): begin != 0 opens and 0 closes a group
     * of the calls one host thread makes for several replicas of its process
     * (NCCL's ncclGroupStart / ncclGroupEnd: without the group, that thread's
     * first call may wait for replicas it has not called yet). Close one
     * with comm_group_close (harness/comm.h): once on every path, keeping
     * the message of a call that failed inside. */
    int (*group)(int begin);
} comm_ops;

/* c->group(begin) where the engine has groups; 0 otherwise. */
static inline int comm_group(const comm_ops *c, int begin)
{
    return c->group ? c->group(begin) : 0;
}

#ifdef __cplusplus
}
#endif
#endif
