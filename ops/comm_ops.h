/* ops/comm_ops.h - the collectives a data-parallel step (and the collectives
 * suite) is written against, one table per communication engine: MPI over
 * host buffers (harness/comm.c), NCCL over device buffers (the GPU layer).
 *
 * Contract of every entry point:
 *   fp32 buffers of n >= 0 elements: host memory for MPI, device memory of
 *   this replica's GPU for NCCL. `stream` is a cudaStream_t for NCCL (work is
 *   queued, never synchronized) and ignored by MPI (the call returns when its
 *   buffers may be read).
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
    const char *name;   /* the comm column: mpi, nccl, nccl-mpi */
    int rank, size;     /* this replica, and how many there are */
    void *ctx;          /* the engine's communicator */
    /* recv = the sum over replicas of send. send == recv: in place. */
    int (*allreduce)(void *ctx, const float *send, float *recv, long long n, void *stream);
    /* The same, in place, started without waiting (nonblocking MPI, or queued
     * on the communication stream after the compute stream's work so far);
     * wait() completes every started one and orders the compute stream after
     * them. progress() lets started ones advance (MPI polls; may be NULL). */
    int (*allreduce_start)(void *ctx, float *buf, long long n, void *stream);
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
} comm_ops;

#ifdef __cplusplus
}
#endif
#endif
