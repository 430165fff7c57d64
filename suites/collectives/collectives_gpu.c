/* suites/collectives/collectives_gpu.c - the collectives suite's GPU half:
 * NCCL between device buffers over the GPU layer's NCCL comm_ops tables
 * (harness/gpu_nccl.h), one per replica GPU, its mode `device`. Compiled
 * against CUDA and emu/ (C that is also C++).
 *   nccl      the GPUs of this process (all it sees; CUDA_VISIBLE_DEVICES
 *             narrows them), one communicator each (ncclCommInitAll), the
 *             collective issued for every GPU inside one group from one host
 *             thread, as nccl-tests' -g N does;
 *   nccl-mpi  one GPU per MPI rank (local rank mod the GPU count), rank 0's
 *             ncclUniqueId sent over MPI: the multi-node layout.
 * A repetition is one collective on every GPU, timed by the host clock after
 * synchronizing every stream (the slowest rank's, as every replicated case).
 * Checked as the MPI backend: the suite's check on this process's first
 * replica (the runner's), and on every other GPU of the process (agree).
 * The data and every expected value are collectives.c's.
 */
#define _POSIX_C_SOURCE 200809L
#include "collectives.h"
#include "comm.h"
#include "gpu_nccl.h"
#include "errmsg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int coll_nccl_present(void) { return 1; }

#if !BENCH_NCCL
static int coll_open(const backend_def *b, const char *mode, const problem *p, case_exec *ex,
                     char *skip, size_t skipcap)
{
    (void)b, (void)mode, (void)p, (void)ex;
    snprintf(skip, skipcap, "%s", NCCL_MISSING);
    return 1;
}
#else

#define MAX_GPUS GPU_NCCL_MAX

typedef struct gcoll {
    problem p;
    int n, nlocal, me;            /* replicas; in this process; the first one's rank */
    long long c;                  /* a rank's block */
    size_t send_n, recv_n;        /* elements */
    int dev[MAX_GPUS];
    cudaStream_t s[MAX_GPUS];
    gpu_nccl eng[MAX_GPUS];
    comm_ops comm[MAX_GPUS];      /* replica i's NCCL table */
    float *send[MAX_GPUS], *recv[MAX_GPUS];
    float *host_send, *host_recv;
    double *want;
} gcoll;

/* The collective queued on every local replica's stream (inside a group:
 * one thread calls for all). */
static int coll_queue(gcoll *g)
{
    for (int i = 0; i < g->nlocal; i++) {
        CUDA_TRY(cudaSetDevice(g->dev[i]));
        if (coll_call(&g->p, &g->comm[i], g->send[i], g->recv[i], g->c, (void *)g->s[i]))
            goto fail;
    }
    return 0;
fail:
    return -1;
}

static int coll_rep(void *st, double *ms)
{
    gcoll *g = (gcoll *)st;
    (void)ms;
    if (comm_group(&g->comm[0], 1)) return -1;
    /* closed once on every path; a failure inside keeps its own message */
    if (comm_group_close(&g->comm[0], coll_queue(g))) return -1;
    for (int i = 0; i < g->nlocal; i++) {
        CUDA_TRY(cudaSetDevice(g->dev[i]));
        CUDA_TRY(cudaStreamSynchronize(g->s[i]));
    }
    return 0;
fail:
    return -1;
}

/* Replica i's result into the host buffers, in the layout's order. */
static int fetch(gcoll *g, int i, void **host)
{
    const int bcast = g->p.variant == C_BROADCAST;
    CUDA_TRY(cudaSetDevice(g->dev[i]));
    if (bcast)
        CUDA_TRY(cudaMemcpy(g->host_send, g->send[i], g->send_n * 4, cudaMemcpyDeviceToHost));
    else
        CUDA_TRY(cudaMemcpy(g->host_recv, g->recv[i], g->recv_n * 4, cudaMemcpyDeviceToHost));
    host[0] = g->host_send;
    host[1] = bcast ? NULL : g->host_recv;
    return 0;
fail:
    return -1;
}

static int coll_outputs(void *st, void **host) { return fetch((gcoll *)st, 0, host); }

/* Every other GPU of this process holds its own rank's right result. */
static int coll_agree(void *st, char *why, size_t whycap)
{
    gcoll *g = (gcoll *)st;
    void *host[2];
    for (int i = 1; i < g->nlocal; i++) {
        if (fetch(g, i, host)) {
            snprintf(why, whycap, "%s", err_get());
            return 1;
        }
        check_result r = coll_verify(&g->p, g->me + i, g->n, host, g->want, why, whycap);
        if (!r.pass) return 1;
    }
    return 0;
}

/* The replica columns (the runner fills busbw_gbps from gbps). */
static int coll_finish(void *st, const measure_result *m, result_row *row)
{
    gcoll *g = (gcoll *)st;
    (void)m;
    row->replicas = g->n;
    snprintf(row->comm, sizeof row->comm, "%s", g->nlocal == g->n ? "nccl" : "nccl-mpi");
    return 0;
}

static void coll_close(void *st)
{
    gcoll *g = (gcoll *)st;
    if (!g) return;
    for (int i = 0; i < g->nlocal; i++) {
        gpu_nccl_close(&g->eng[i]);
        cudaSetDevice(g->dev[i]);
        if (g->s[i]) cudaStreamDestroy(g->s[i]);
        cudaFree(g->send[i]);
        cudaFree(g->recv[i]);
    }
    free(g->host_send);
    free(g->host_recv);
    free(g->want);
    coll_ranks(-1, -1);
    free(g);
}

static int coll_open(const backend_def *b, const char *mode, const problem *p, case_exec *ex,
                     char *skip, size_t skipcap)
{
    const int over_mpi = (b->needs & NEEDS_MPI) != 0;
    int ndev = 0;
    gcoll *g = NULL;
    (void)mode;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1) {
        snprintf(skip, skipcap, "no usable GPU");
        return 1;
    }
    if (!over_mpi && comm_size() > 1) {
        snprintf(skip, skipcap, "nccl is the GPUs of one process; under mpirun, nccl-mpi runs "
                                "one GPU per rank");
        return 1;
    }
#ifdef __CUDAEMU__
    if (over_mpi && comm_size() > 1) {
        snprintf(skip, skipcap, "emulated: the emulator runs NCCL between the GPUs of one "
                                "process (backend nccl), not across MPI ranks");
        return 1;
    }
#endif
    g = (gcoll *)calloc(1, sizeof *g);
    if (!g) {
        err_set("out of memory");
        return -1;
    }
    g->p = *p;
    g->n = over_mpi ? comm_size() : (ndev < MAX_GPUS ? ndev : MAX_GPUS);
    g->nlocal = over_mpi ? 1 : g->n;
    g->me = over_mpi ? comm_rank() : 0;
    g->c = coll_block(p, g->n);
    if (g->c < 1) {
        snprintf(skip, skipcap, "%s over %d ranks leaves no element per rank", p->desc, g->n);
        free(g);
        return 1;
    }
    g->send_n = (size_t)g->c * (p->variant == C_REDUCE_SCATTER ? (size_t)g->n : 1);
    g->recv_n = (size_t)g->c * (p->variant == C_ALLGATHER ? (size_t)g->n : 1);
    {   /* at least the whole buffer: the runner's layout (and its planted fault)
         * takes the sizes of the MPI ranks, not of this case's replicas */
        size_t whole = (size_t)(p->dim[0] / 4);
        g->host_send = (float *)calloc(g->send_n > whole ? g->send_n : whole, 4);
        g->host_recv = (float *)calloc(g->recv_n > whole ? g->recv_n : whole, 4);
    }
    g->want = (double *)malloc(COLL_CHECK_CHUNK * sizeof(double));
    if (!g->host_send || !g->host_recv || !g->want) {
        err_set("out of host memory for %s", p->desc);
        goto fail;
    }
    for (int i = 0; i < g->nlocal; i++) {
        g->dev[i] = over_mpi ? comm_local_rank() % ndev : i;
        for (size_t k = 0; k < g->send_n; k++) g->host_send[k] = coll_value(g->me + i, (long long)k);
        CUDA_TRY(cudaSetDevice(g->dev[i]));
        CUDA_TRY(cudaStreamCreateWithFlags(&g->s[i], cudaStreamNonBlocking));
        CUDA_TRY(cudaMalloc((void **)&g->send[i], g->send_n * 4));
        CUDA_TRY(cudaMalloc((void **)&g->recv[i], g->recv_n * 4));
        CUDA_TRY(cudaMemcpy(g->send[i], g->host_send, g->send_n * 4, cudaMemcpyHostToDevice));
        /* a pageable cudaMemcpy may return before its bytes land, ordered
         * only with the legacy stream, not the non-blocking g->s[i] the
         * collectives run on */
        CUDA_TRY(cudaDeviceSynchronize());
    }
    if (gpu_nccl_open(g->eng, g->comm, g->n, g->dev, g->me, over_mpi)) goto fail;
    coll_ranks(g->me, g->n);   /* the suite's check: this process's first replica */
    memset(ex, 0, sizeof *ex);
    ex->st = g;
    ex->run = coll_rep;
    ex->outputs = coll_outputs;
    ex->agree = coll_agree;
    ex->finish = coll_finish;
    ex->close = coll_close;
    return 0;
fail:
    coll_close(g);
    return -1;
}
#endif

const suite_gpu SUITE_COLLECTIVES_GPU = {
    .compute = NULL,
    .reduce = NULL,
    .setup = NULL,
    .teardown = NULL,
    .open_mode = coll_open,
    .workspace = NULL,
    .dp_open = NULL,
};
