/* harness/gpu_nccl.c - NCCL for the GPU layer: communicator set-up and
 * teardown, and the NCCL comm_ops table (gpu_nccl.h). */
#include "gpu_nccl.h"

#if BENCH_NCCL
#include "comm.h"
#include "errmsg.h"

#include <string.h>

static ncclComm_t comm_of(void *ctx) { return ((gpu_nccl *)ctx)->comm; }

static int nccl_allreduce(void *ctx, const float *send, float *recv, long long n, void *stream)
{
    NCCL_TRY(ncclAllReduce(send, recv, (size_t)n, ncclFloat, ncclSum, comm_of(ctx),
                           (cudaStream_t)stream));
    return 0;
fail:
    return -1;
}

/* The communication stream waits for the compute stream's work so far, then
 * the all-reduce is queued there. */
static int nccl_allreduce_start(void *ctx, const float *send, float *recv, long long n,
                                void *stream)
{
    gpu_nccl *e = (gpu_nccl *)ctx;
    CUDA_TRY(cudaEventRecord(e->ready, (cudaStream_t)stream));
    if (!e->no_event) CUDA_TRY(cudaStreamWaitEvent(e->cs, e->ready, 0));
    return nccl_allreduce(ctx, send, recv, n, (void *)e->cs);
fail:
    return -1;
}

/* The compute stream waits for everything started so far. */
static int nccl_wait(void *ctx, void *stream)
{
    gpu_nccl *e = (gpu_nccl *)ctx;
    CUDA_TRY(cudaEventRecord(e->done, e->cs));
    CUDA_TRY(cudaStreamWaitEvent((cudaStream_t)stream, e->done, 0));
    return 0;
fail:
    return -1;
}

static int nccl_reduce(void *ctx, const float *send, float *recv, long long n, int root,
                       void *stream)
{
    NCCL_TRY(ncclReduce(send, recv, (size_t)n, ncclFloat, ncclSum, root, comm_of(ctx),
                        (cudaStream_t)stream));
    return 0;
fail:
    return -1;
}

static int nccl_bcast(void *ctx, float *buf, long long n, int root, void *stream)
{
    NCCL_TRY(ncclBroadcast(buf, buf, (size_t)n, ncclFloat, root, comm_of(ctx),
                           (cudaStream_t)stream));
    return 0;
fail:
    return -1;
}

static int nccl_allgather(void *ctx, const float *send, float *recv, long long n, void *stream)
{
    NCCL_TRY(ncclAllGather(send, recv, (size_t)n, ncclFloat, comm_of(ctx),
                           (cudaStream_t)stream));
    return 0;
fail:
    return -1;
}

static int nccl_reduce_scatter(void *ctx, const float *send, float *recv, long long n,
                               void *stream)
{
    NCCL_TRY(ncclReduceScatter(send, recv, (size_t)n, ncclFloat, ncclSum, comm_of(ctx),
                               (cudaStream_t)stream));
    return 0;
fail:
    return -1;
}

static int nccl_group(int begin)
{
    if (begin) NCCL_TRY(ncclGroupStart());
    else NCCL_TRY(ncclGroupEnd());
    return 0;
fail:
    return -1;
}

/* The communicators: every GPU of this process, or this rank's over MPI. */
static int comms_init(ncclComm_t *comms, int n, const int *devs, int rank, int over_mpi)
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

int gpu_nccl_open(gpu_nccl *eng, comm_ops *ops, int n, const int *devs, int rank, int over_mpi)
{
    const int nlocal = over_mpi ? 1 : n;
    ncclComm_t comms[GPU_NCCL_MAX];
    if (n < 1 || nlocal > GPU_NCCL_MAX) {
        err_set("NCCL: %d replicas in this process (1 to %d)", nlocal, GPU_NCCL_MAX);
        return -1;
    }
    memset(comms, 0, sizeof comms);
    for (int i = 0; i < nlocal; i++) {
        memset(&eng[i], 0, sizeof eng[i]);
        eng[i].dev = devs[i];
    }
    if (comms_init(comms, n, devs, rank, over_mpi)) return -1;
    for (int i = 0; i < nlocal; i++) eng[i].comm = comms[i];   /* close() destroys them */
    for (int i = 0; i < nlocal; i++) {
        gpu_nccl *e = &eng[i];
        CUDA_TRY(cudaSetDevice(e->dev));
        CUDA_TRY(cudaStreamCreateWithFlags(&e->cs, cudaStreamNonBlocking));
        CUDA_TRY(cudaEventCreateWithFlags(&e->ready, cudaEventDisableTiming));
        CUDA_TRY(cudaEventCreateWithFlags(&e->done, cudaEventDisableTiming));
        comm_ops t = {.name = over_mpi ? "nccl-mpi" : "nccl",
                      .rank = over_mpi ? rank : i,
                      .size = n,
                      .ctx = e,
                      .allreduce = nccl_allreduce,
                      .allreduce_start = nccl_allreduce_start,
                      .progress = NULL,
                      .wait = nccl_wait,
                      .reduce = nccl_reduce,
                      .bcast = nccl_bcast,
                      .allgather = nccl_allgather,
                      .reduce_scatter = nccl_reduce_scatter,
                      .group = nccl_group};
        ops[i] = t;
    }
    return 0;
fail:
    return -1;
}

void gpu_nccl_close(gpu_nccl *e)
{
    if (!e->comm && !e->cs && !e->ready && !e->done) return;
    cudaSetDevice(e->dev);
    if (e->comm) ncclCommDestroy(e->comm);
    if (e->ready) cudaEventDestroy(e->ready);
    if (e->done) cudaEventDestroy(e->done);
    if (e->cs) cudaStreamDestroy(e->cs);
    memset(e, 0, sizeof *e);
}
#else
typedef int gpu_nccl_absent;   /* ISO C: no empty translation unit */
#endif
