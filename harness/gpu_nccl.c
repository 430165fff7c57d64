/* harness/gpu_nccl.c - NCCL communicator set-up and teardown, once for the
 * GPU layer (see gpu_nccl.h). */
#include "gpu_nccl.h"

#if BENCH_NCCL
#include "comm.h"
#include "errmsg.h"

#include <string.h>

int gpu_nccl_init(ncclComm_t *comms, int n, const int *devs, int rank, int over_mpi)
{
    if (!over_mpi) {
        NCCL_TRY(ncclCommInitAll(comms, n, devs));
        return 0;
    }
    ncclUniqueId id;
    memset(&id, 0, sizeof id);
    if (rank == 0) NCCL_TRY(ncclGetUniqueId(&id));
    comm_bcast_bytes(&id, sizeof id, 0);
    CUDA_TRY(cudaSetDevice(devs[0]));
    NCCL_TRY(ncclCommInitRank(&comms[0], n, id, rank));
    return 0;
fail:
    return -1;
}

void gpu_nccl_destroy(ncclComm_t *c)
{
    if (*c) ncclCommDestroy(*c);
    *c = NULL;
}
#else
typedef int gpu_nccl_absent;   /* ISO C: no empty translation unit */
#endif
