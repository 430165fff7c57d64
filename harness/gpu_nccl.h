/* harness/gpu_nccl.h - NCCL set-up for the GPU layer, written once for every
 * suite that runs NCCL (train's data-parallel backends, the collectives
 * suite): the communicators of this process's GPUs, and their teardown.
 *
 *   over_mpi == 0  one process holds all n GPUs: ncclCommInitAll over devs[0..n)
 *                  fills comms[0..n);
 *   over_mpi != 0  one GPU per MPI rank: rank 0 makes the ncclUniqueId, it is
 *                  broadcast over MPI (comm_bcast_bytes), and this rank joins
 *                  the n-rank communicator on devs[0] into comms[0].
 *
 * Compiled into each GPU layer (real CUDA and the emulator); only where the
 * flavour has NCCL (BENCH_NCCL, harness/nccl_check.h). */
#ifndef HARNESS_GPU_NCCL_H
#define HARNESS_GPU_NCCL_H

#include "nccl_check.h"

#if BENCH_NCCL
/* Returns 0, or -1 with err_set naming the failed call. */
int gpu_nccl_init(ncclComm_t *comms, int n, const int *devs, int rank, int over_mpi);

/* Destroys *c if set and clears it; the caller has set its device. */
void gpu_nccl_destroy(ncclComm_t *c);
#endif

#endif
