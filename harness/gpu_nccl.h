/* harness/gpu_nccl.h - NCCL for the GPU layer, written once for every suite
 * that runs it (train's data-parallel step, the collectives suite): the
 * communicators of this process's replicas, each wrapped in the comm_ops
 * table (ops/comm_ops.h) that the suites call, and their teardown.
 *
 *   over_mpi == 0  one process holds all n replicas, on devs[0..n):
 *                  ncclCommInitAll; table i is replica i (comm nccl);
 *   over_mpi != 0  one replica per MPI rank: rank 0 makes the ncclUniqueId,
 *                  it is broadcast over MPI (comm_bcast_bytes), and this
 *                  rank joins the n-rank communicator on devs[0] as replica
 *                  `rank` (comm nccl-mpi); one table.
 *
 * Each replica has a communication stream of its own: allreduce_start queues
 * there behind an event recorded on the caller's (compute) stream, wait()
 * makes the compute stream wait for an event recorded there. Every other
 * entry queues on the stream it is given. progress is NULL (NCCL advances by
 * itself); group is ncclGroupStart / ncclGroupEnd (one host thread calling
 * for several replicas must group the calls). Every CUDA and NCCL call is
 * checked (CUDA_TRY, NCCL_TRY: err_set naming the call).
 *
 * Compiled into each GPU layer (real CUDA and the emulator); only where the
 * flavour has NCCL (BENCH_NCCL, harness/nccl_check.h). */
#ifndef HARNESS_GPU_NCCL_H
#define HARNESS_GPU_NCCL_H

#include "nccl_check.h"
#include "../ops/comm_ops.h"

#if BENCH_NCCL
#define GPU_NCCL_MAX 64           /* replicas in one process */

/* One replica's engine: its table's ctx. */
typedef struct gpu_nccl {
    ncclComm_t comm;
    int dev;                      /* its GPU */
    cudaStream_t cs;              /* the communication stream */
    cudaEvent_t ready;            /* allreduce_start: the compute stream's work so far */
    cudaEvent_t done;             /* wait: the communication stream's work so far */
    int no_event;                 /* test hook (BENCH_PLANT_NO_EVENT, set by a suite):
                                   * allreduce_start does not wait for the compute stream */
} gpu_nccl;

/* Opens the engines of this process's replicas (n, or 1 over MPI; see
 * above) into eng[] and their tables into ops[] (name nccl or nccl-mpi, rank,
 * size n). The current device is left unspecified. 0, or -1 with err_set;
 * either way gpu_nccl_close each of eng[0..n or 1) afterwards. */
int gpu_nccl_open(gpu_nccl *eng, comm_ops *ops, int n, const int *devs, int rank, int over_mpi);

/* Destroys what eng holds (sets its device); a zeroed or closed one is a
 * no-op. */
void gpu_nccl_close(gpu_nccl *eng);
#endif

#endif
