/* suites/train/train_dp_gpu.c - the data-parallel training step on the GPU
 * backends over NCCL (harness/dp_mode.h's modes; the GPU layer: compiled
 * against the CUDA toolkit and against emu/, C that is also C++).
 *
 * Replicas: cfg->devices GPUs of this process, one host thread each (comm
 * nccl: ncclCommInitAll, and each thread queues its replica's step as one
 * process per GPU would), or one replica per MPI rank on GPU local rank mod
 * the GPU count (comm nccl-mpi: rank 0's ncclUniqueId sent over MPI). Each
 * replica holds the parameters, its shard of every input set (uploaded once)
 * and its shard's activations, and runs the same step as train_dp.c's CPU
 * replicas: model_grads on its shard with its loss gradient weighted by its
 * share of the batch, then, on its compute stream:
 *   dp-gather    ncclReduce of gradients and loss to replica 0, the update
 *                there, ncclBroadcast of the parameters;
 *   ddp          ncclAllReduce of the gradients, every replica updates;
 *   ddp-overlap  each bucket (as train_dp.c forms them) is all-reduced on a
 *                communication stream as soon as the backward pass has
 *                queued its gradients: an event recorded on the compute
 *                stream, the communication stream waiting for it, then the
 *                collective; the loss likewise; the update follows on the
 *                communication stream, whose synchronization ends the step
 *                (it waited for everything the compute stream queued).
 * Checked as on the CPU: replica 0's state against the full-batch reference
 * (train_check) and every replica's parameters equal to replica 0's.
 * comm_ms: CUDA events around the collectives on replica 0's compute stream
 * (ddp-overlap: the wait left after the backward pass).
 * Test hooks (planted faults): BENCH_PLANT_NO_EVENT=<backend> - ddp-overlap's
 * communication stream does not wait for the backward pass (the emulator's
 * lazy streams then reduce stale gradients); the CPU file's
 * BENCH_PLANT_SHARD_WEIGHT as well.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_hooks.h"
#include "train_dp.h"
#include "comm.h"
#include "gpu_nccl.h"
#include "errmsg.h"
#include "phase.h"
#include "timer.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if !BENCH_NCCL
/* a toolkit without NCCL: the rows skip, saying why */
int train_dp_gpu_open(const backend_def *b, const dp_mode *m, const problem *p, const dp_cfg *cfg,
                      void *const *const *sets, int nsets, case_exec *ex, char *skip,
                      size_t skipcap)
{
    (void)b, (void)m, (void)p, (void)cfg, (void)sets, (void)nsets, (void)ex;
    snprintf(skip, skipcap, "%s", NCCL_MISSING);
    return 1;
}
#else

#define MAX_REPLICAS 64
#define MAX_SETS_DP 4

typedef struct gdp gdp;

typedef struct replica {
    gdp *g;
    int index;                    /* its rank among the replicas */
    int dev;
    cudaStream_t s, cs;           /* compute, communication */
    cudaEvent_t *ev;              /* per bucket (ddp-overlap) */
    cudaEvent_t done, c0, c1, c2, c3;   /* the comm stream's end; comm timing */
    ncclComm_t comm;
    model_plan shard;
    int off, nb;
    step_cfg cfg;
    float *params, *grads, *state, *loss, *scratch;
    void *ws;
    void *x[MAX_SETS_DP];
    int *labels[MAX_SETS_DP];
    int started, rc;
    char err[512];
} replica;

struct gdp {
    const backend_def *b;
    const train_ops *ops;
    dp_scheme scheme;
    model_plan full;
    void *const *const *sets;
    int nsets, next, k;           /* k: the input set of the step under way */
    int n, nlocal;                /* replicas; in this process */
    const comm_ops *mpi;          /* nccl-mpi */
    long long nstate;
    long long *bucket;
    int nbuckets, plant_no_event;
    unsigned long long ws_bytes;
    replica rep[MAX_REPLICAS];
    dp_times times;               /* communication, per step */
    float *host_copy;             /* nparam floats: agree() */
};

/* Bucket k of the gradients of replica r, and its length. */
static float *bucket_of(const replica *r, int k, long long *len)
{
    const gdp *g = r->g;
    long long at = g->bucket[k], end = k ? g->bucket[k - 1] : g->full.nparam_floats;
    *len = end - at;
    return r->grads + at;
}

/* ddp-overlap: every bucket whose gradients are queued goes to the comm
 * stream behind an event recorded on the compute stream. */
static int gpu_grads_ready(void *ctx, int first, void *stream)
{
    replica *r = (replica *)ctx;
    gdp *g = r->g;
    long long mark = r->shard.param[first].off, len;
    (void)stream;
    while (r->started < g->nbuckets && g->bucket[r->started] >= mark) {
        int k = r->started++;
        float *buf = bucket_of(r, k, &len);
        CUDA_TRY(cudaEventRecord(r->ev[k], r->s));
        if (!g->plant_no_event) CUDA_TRY(cudaStreamWaitEvent(r->cs, r->ev[k], 0));
        NCCL_TRY(ncclAllReduce(buf, buf, (size_t)len, ncclFloat, ncclSum, r->comm, r->cs));
    }
    return 0;
fail:
    return -1;
}

/* One replica's step, queued and finished (its stream synchronized). */
static int replica_step(replica *r)
{
    gdp *g = r->g;
    const long long n = g->full.nparam_floats;
    void *s = (void *)r->s;
    step_bufs sb = {r->x[g->k], r->labels[g->k], r->params, r->grads, r->state, r->loss,
                    r->scratch, r->ws, NULL, NULL};
    CUDA_TRY(cudaSetDevice(r->dev));
    if (g->scheme == DP_DDP_OVERLAP) {
        sb.grads_ready = gpu_grads_ready;
        sb.ready_ctx = r;
        r->started = 0;
    }
    if (r->nb > 0) { /* its phase marks count on replica 0's thread only (phase.h) */
        if (model_grads(&r->shard, g->ops, &r->cfg, &sb, s)) goto fail;
    } else {
        CUDA_TRY(cudaMemsetAsync(r->grads, 0, (size_t)n * sizeof(float), r->s));
        CUDA_TRY(cudaMemsetAsync(r->loss, 0, sizeof(float), r->s));
        if (sb.grads_ready && gpu_grads_ready(r, 0, s)) goto fail;
    }
    CUDA_TRY(cudaEventRecord(r->c0, r->s));
    switch (g->scheme) {
    case DP_GATHER:
        phase_mark("reduce", s);
        NCCL_TRY(ncclGroupStart());
        NCCL_TRY(ncclReduce(r->grads, r->grads, (size_t)n, ncclFloat, ncclSum, 0, r->comm, r->s));
        NCCL_TRY(ncclReduce(r->loss, r->loss, 1, ncclFloat, ncclSum, 0, r->comm, r->s));
        NCCL_TRY(ncclGroupEnd());
        break;
    case DP_DDP:
        phase_mark("allreduce", s);
        NCCL_TRY(ncclGroupStart());
        NCCL_TRY(ncclAllReduce(r->grads, r->grads, (size_t)n, ncclFloat, ncclSum, r->comm, r->s));
        NCCL_TRY(ncclAllReduce(r->loss, r->loss, 1, ncclFloat, ncclSum, r->comm, r->s));
        NCCL_TRY(ncclGroupEnd());
        break;
    case DP_DDP_OVERLAP: /* the rest of the step follows the communication stream */
        phase_mark("allreduce-wait", (void *)r->cs);
        if (gpu_grads_ready(r, 0, s)) goto fail;   /* buckets not started yet: all queued */
        CUDA_TRY(cudaEventRecord(r->done, r->s));  /* the loss (the forward pass's) */
        if (!g->plant_no_event) CUDA_TRY(cudaStreamWaitEvent(r->cs, r->done, 0));
        NCCL_TRY(ncclAllReduce(r->loss, r->loss, 1, ncclFloat, ncclSum, r->comm, r->cs));
        s = (void *)r->cs;
        break;
    }
    CUDA_TRY(cudaEventRecord(r->c1, (cudaStream_t)s));
    phase_mark("update", s);
    if (g->scheme != DP_GATHER || r->index == 0)
        if (model_update(&g->full, g->ops, &r->cfg, &sb, s)) goto fail;
    CUDA_TRY(cudaEventRecord(r->c2, (cudaStream_t)s));
    if (g->scheme == DP_GATHER) {
        phase_mark("broadcast", s);
        NCCL_TRY(ncclBroadcast(r->params, r->params, (size_t)n, ncclFloat, 0, r->comm, r->s));
    }
    CUDA_TRY(cudaEventRecord(r->c3, (cudaStream_t)s));
    /* ddp-overlap's communication stream waited for everything the compute
     * stream queued: synchronizing it ends the whole step */
    CUDA_TRY(cudaStreamSynchronize((cudaStream_t)s));
    return 0;
fail:
    return -1;
}

static void *replica_thread(void *arg)
{
    replica *r = (replica *)arg;
    err_clear();
    r->rc = replica_step(r);
    if (r->rc) snprintf(r->err, sizeof r->err, "replica %d (GPU %d): %s", r->index, r->dev, err_get());
    return NULL;
}

static int keep_comm_ms(gdp *g)
{
    replica *r = &g->rep[0];
    float a = 0, b = 0;
    CUDA_TRY(cudaSetDevice(r->dev));
    CUDA_TRY(cudaEventSynchronize(r->c0));   /* the compute stream's end, queued before */
    CUDA_TRY(cudaEventElapsedTime(&a, r->c0, r->c1));
    if (g->scheme == DP_GATHER) CUDA_TRY(cudaEventElapsedTime(&b, r->c2, r->c3));
    return dp_times_add(&g->times, (double)a + (double)b);
fail:
    return -1;
}

/* One global step: every local replica's, each on its own host thread (one
 * replica: this thread). */
static int gdp_run(void *st, double *ms)
{
    gdp *g = (gdp *)st;
    pthread_t th[MAX_REPLICAS];
    int started = 0;
    (void)ms;
    g->k = g->next;
    g->next = (g->next + 1) % g->nsets;
    if (g->nlocal == 1) {
        replica_thread(&g->rep[0]);
    } else {
        for (int i = 1; i < g->nlocal; i++) {
            if (pthread_create(&th[i], NULL, replica_thread, &g->rep[i]) != 0) break;
            started = i;
        }
        replica_thread(&g->rep[0]);
        for (int i = 1; i <= started; i++) pthread_join(th[i], NULL);
        if (started != g->nlocal - 1) {
            err_set("could not start a host thread per GPU replica");
            return -1;
        }
    }
    for (int i = 0; i < g->nlocal; i++)
        if (g->rep[i].rc) {
            err_set("%s", g->rep[i].err);
            return -1;
        }
    return keep_comm_ms(g);
}

/* dp_decision_regions' fn: replica r's region of its scratch into the host
 * copy of the full plan's (nccl: from its GPU; nccl-mpi: r sends it). */
typedef struct gregion {
    gdp *g;
    float *full;
} gregion;

static int gregion_fetch(void *ctx, int r, long long full_off, long long shard_off, long long count)
{
    gregion *c = (gregion *)ctx;
    gdp *g = c->g;
    const replica *rp = g->mpi ? &g->rep[0] : &g->rep[r];
    if (!g->mpi || r == g->mpi->rank) {
        CUDA_TRY(cudaSetDevice(rp->dev));
        CUDA_TRY(cudaMemcpy(c->full + full_off, rp->scratch + shard_off,
                            (size_t)count * sizeof(float), cudaMemcpyDeviceToHost));
    }
    if (g->mpi) return g->mpi->bcast(g->mpi->ctx, c->full + full_off, count, r, NULL);
    return 0;
fail:
    return -1;
}

/* Replica 0's state into the host buffers (every replica's, for nccl-mpi:
 * dp-gather's gradients and state are on replica 0 and are sent). */
static int gdp_outputs(void *st, void **host)
{
    gdp *g = (gdp *)st;
    void *const *io = g->sets[0];
    const replica *r = &g->rep[0];
    const long long n = g->full.nparam_floats;
    for (int i = 0; i < TB_COUNT; i++) host[i] = io[i];
    CUDA_TRY(cudaSetDevice(r->dev));
    CUDA_TRY(cudaMemcpy(io[TB_PARAMS], r->params, (size_t)n * 4, cudaMemcpyDeviceToHost));
    CUDA_TRY(cudaMemcpy(io[TB_GRADS], r->grads, (size_t)n * 4, cudaMemcpyDeviceToHost));
    CUDA_TRY(cudaMemcpy(io[TB_LOSS], r->loss, 4, cudaMemcpyDeviceToHost));
    if (g->nstate)
        CUDA_TRY(cudaMemcpy(io[TB_STATE], r->state, (size_t)g->nstate * 4, cudaMemcpyDeviceToHost));
    if (g->mpi && g->scheme == DP_GATHER) {
        const comm_ops *c = g->mpi;
        if (c->bcast(c->ctx, (float *)io[TB_GRADS], n, 0, NULL) ||
            c->bcast(c->ctx, (float *)io[TB_LOSS], 1, 0, NULL) ||
            (g->nstate && c->bcast(c->ctx, (float *)io[TB_STATE], g->nstate, 0, NULL)))
            return -1;
    }
    {
        gregion rc = {g, (float *)io[TB_SCRATCH]};
        if (dp_decision_regions(&g->full, g->n, gregion_fetch, &rc)) return -1;
    }
    return 0;
fail:
    return -1;
}

/* Every replica holds replica 0's parameters, bit for bit (outputs() put
 * replica 0's, or this rank's, in the host buffer). */
static int gdp_agree(void *st, char *why, size_t whycap)
{
    gdp *g = (gdp *)st;
    const long long n = g->full.nparam_floats;
    const float *p0 = (const float *)g->sets[0][TB_PARAMS];
    for (int i = g->mpi ? 0 : 1; i < g->nlocal; i++) {
        const replica *r = &g->rep[i];
        if (g->mpi) { /* p0 holds this rank's: compare with rank 0's */
            memcpy(g->host_copy, p0, (size_t)n * sizeof(float));
            if (g->mpi->bcast(g->mpi->ctx, g->host_copy, n, 0, NULL)) {
                snprintf(why, whycap, "%s", err_get());
                return 1;
            }
        } else {
            CUDA_TRY(cudaSetDevice(r->dev));
            CUDA_TRY(cudaMemcpy(g->host_copy, r->params, (size_t)n * 4, cudaMemcpyDeviceToHost));
        }
        if (g->mpi ? dp_params_differ(&g->full, g->mpi->rank, p0, g->host_copy, why, whycap)
                   : dp_params_differ(&g->full, i, g->host_copy, p0, why, whycap))
            return 1;
    }
    return 0;
fail:
    snprintf(why, whycap, "%s", err_get());
    return 1;
}

/* One blocking all-reduce of every gradient on every local replica (the
 * overlap's yardstick), host clock after synchronizing every stream. */
static int blocking_allreduce_ms(gdp *g, double *ms)
{
    const size_t n = (size_t)g->full.nparam_floats;
    double t0 = timer_now_ms();
    NCCL_TRY(ncclGroupStart());
    for (int i = 0; i < g->nlocal; i++)
        NCCL_TRY(ncclAllReduce(g->rep[i].grads, g->rep[i].grads, n, ncclFloat, ncclSum,
                               g->rep[i].comm, g->rep[i].s));
    NCCL_TRY(ncclGroupEnd());
    for (int i = 0; i < g->nlocal; i++) {
        CUDA_TRY(cudaSetDevice(g->rep[i].dev));
        CUDA_TRY(cudaStreamSynchronize(g->rep[i].s));
    }
    *ms = timer_now_ms() - t0;
    return 0;
fail:
    return -1;
}

/* comm_ms: the timed steps' median (the slowest rank's); ddp-overlap's
 * overlap_eff: 1 - that exposed wait / one blocking all-reduce of every
 * gradient (the gradients are recomputed by every later step). */
static int gdp_finish(void *st, const measure_result *m, result_row *row)
{
    gdp *g = (gdp *)st;
    stats_summary s;
    double v[2] = {dp_times_median(&g->times, m->n), NAN};
    if (g->scheme == DP_DDP_OVERLAP) {
        enum { REPS = 5 };
        double t[REPS];
        for (int i = 0; i < REPS; i++)
            if (blocking_allreduce_ms(g, &t[i])) return -1;
        if (stats_summarize(t, REPS, &s) == 0) v[1] = s.median;
    }
    if (g->mpi) comm_max_doubles(v, 2);
    row->comm_ms = v[0];
    if (g->scheme == DP_DDP_OVERLAP) row->overlap_eff = dp_overlap_eff(v[0], v[1]);
    return 0;
}

static void replica_free(replica *r, int nbuckets)
{
    if (r->dev < 0) return;
    cudaSetDevice(r->dev);
    gpu_nccl_destroy(&r->comm);
    for (int i = 0; r->ev && i < nbuckets; i++)
        if (r->ev[i]) cudaEventDestroy(r->ev[i]);
    free(r->ev);
    cudaEvent_t *evs[] = {&r->done, &r->c0, &r->c1, &r->c2, &r->c3};
    for (size_t i = 0; i < sizeof evs / sizeof evs[0]; i++)
        if (*evs[i]) cudaEventDestroy(*evs[i]);
    if (r->s) cudaStreamDestroy(r->s);
    if (r->cs) cudaStreamDestroy(r->cs);
    cudaFree(r->params);
    cudaFree(r->grads);
    cudaFree(r->state);
    cudaFree(r->loss);
    cudaFree(r->scratch);
    cudaFree(r->ws);
    for (int k = 0; k < MAX_SETS_DP; k++) {
        cudaFree(r->x[k]);
        cudaFree(r->labels[k]);
    }
    if (r->nb > 0) model_plan_free(&r->shard);
}

static void gdp_close(void *st)
{
    gdp *g = (gdp *)st;
    if (!g) return;
    for (int i = 0; i < g->nlocal; i++) replica_free(&g->rep[i], g->nbuckets);
    model_plan_free(&g->full);
    free(g->bucket);
    free(g->times.ms);
    free(g->host_copy);
    free(g);
}

/* Replica r on device dev: buffers, its shard of every input set, streams,
 * events (its communicator is made by the caller). */
static int replica_open(gdp *g, replica *r, const problem *p, int index, int dev)
{
    const model_plan *F = &g->full;
    const int B = F->B;
    const long long n = F->nparam_floats, xs = F->in_slots / B, ls = F->nlabels / B;
    void *const *io = g->sets[0];
    r->g = g;
    r->index = index;
    r->dev = dev;
    r->nb = dp_shard(B, g->n, index, &r->off);
    r->cfg = train_step_cfg(g->b, p);
    r->cfg.shard_weight = dp_shard_weight(g->b, B, g->n, r->nb);
    if (r->nb > 0 && model_plan_make(F->m, r->nb, &r->shard)) {
        r->nb = 0;
        err_set("no plan for a shard of %s", p->desc);
        return -1;
    }
    if (r->nb == 0) r->shard = *F;   /* its parameter list, for gpu_grads_ready */
    CUDA_TRY(cudaSetDevice(dev));
    CUDA_TRY(cudaStreamCreateWithFlags(&r->s, cudaStreamNonBlocking));
    CUDA_TRY(cudaStreamCreateWithFlags(&r->cs, cudaStreamNonBlocking));
    CUDA_TRY(cudaEventCreateWithFlags(&r->done, cudaEventDisableTiming));
    CUDA_TRY(cudaEventCreate(&r->c0));
    CUDA_TRY(cudaEventCreate(&r->c1));
    CUDA_TRY(cudaEventCreate(&r->c2));
    CUDA_TRY(cudaEventCreate(&r->c3));
    if (g->nbuckets) {
        r->ev = (cudaEvent_t *)calloc((size_t)g->nbuckets, sizeof *r->ev);
        if (!r->ev) {
            err_set("out of memory");
            return -1;
        }
        for (int k = 0; k < g->nbuckets; k++)
            CUDA_TRY(cudaEventCreateWithFlags(&r->ev[k], cudaEventDisableTiming));
    }
    CUDA_TRY(cudaMalloc((void **)&r->params, (size_t)n * 4));
    CUDA_TRY(cudaMalloc((void **)&r->grads, (size_t)n * 4));
    CUDA_TRY(cudaMalloc((void **)&r->loss, 4));
    CUDA_TRY(cudaMalloc((void **)&r->scratch, (size_t)(r->nb ? r->shard.scratch_floats : 1) * 4));
    if (g->nstate) CUDA_TRY(cudaMalloc((void **)&r->state, (size_t)g->nstate * 4));
    if (g->ws_bytes) CUDA_TRY(cudaMalloc(&r->ws, g->ws_bytes));
    CUDA_TRY(cudaMemcpy(r->params, io[TB_PARAMS], (size_t)n * 4, cudaMemcpyHostToDevice));
    if (g->nstate)
        CUDA_TRY(cudaMemcpy(r->state, io[TB_STATE], (size_t)g->nstate * 4, cudaMemcpyHostToDevice));
    for (int k = 0; k < g->nsets && r->nb > 0; k++) {
        size_t xb = (size_t)(r->nb * xs) * 4, lb = (size_t)(r->nb * ls) * sizeof(int);
        CUDA_TRY(cudaMalloc(&r->x[k], xb));
        CUDA_TRY(cudaMalloc((void **)&r->labels[k], lb));
        CUDA_TRY(cudaMemcpy(r->x[k], (const char *)g->sets[k][TB_X] + (size_t)(r->off * xs) * 4, xb,
                            cudaMemcpyHostToDevice));
        CUDA_TRY(cudaMemcpy(r->labels[k], (const int *)g->sets[k][TB_LABELS] + r->off * ls, lb,
                            cudaMemcpyHostToDevice));
    }
    return 0;
fail:
    return -1;
}

int train_dp_gpu_open(const backend_def *b, const dp_mode *m, const problem *p, const dp_cfg *cfg,
                      void *const *const *sets, int nsets, case_exec *ex, char *skip,
                      size_t skipcap)
{
    /* nccl-mpi: one replica per rank; nccl: cfg->devices in this process */
    const comm_ops *mpi = cfg->comm && cfg->comm->size > 1 ? cfg->comm : NULL;
    int ndev = 0;
    int devs[MAX_REPLICAS];
    ncclComm_t comms[MAX_REPLICAS] = {0};
    gdp *g = NULL;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1) {
        snprintf(skip, skipcap, "no usable GPU");
        return 1;
    }
    const int n = mpi ? mpi->size : cfg->devices;
#ifdef __CUDAEMU__
    if (mpi && n > 1) {
        snprintf(skip, skipcap, "emulated: the emulator runs NCCL between the GPUs of one process "
                                "(--devices N), not across MPI ranks");
        return 1;
    }
#endif
    if (!mpi && (n < 1 || n > ndev || n > MAX_REPLICAS)) {
        snprintf(skip, skipcap, "--devices %d: this machine has %d GPU%s", n, ndev,
                 ndev == 1 ? "" : "s");
        return 1;
    }
    if (nsets > MAX_SETS_DP) nsets = MAX_SETS_DP;
    g = (gdp *)calloc(1, sizeof *g);
    if (!g) {
        err_set("out of memory");
        return -1;
    }
    for (int i = 0; i < MAX_REPLICAS; i++) g->rep[i].dev = -1;
    g->b = b;
    g->ops = (const train_ops *)b->ops;
    g->scheme = m->scheme;
    g->sets = sets;
    g->nsets = nsets;
    g->n = n;
    g->nlocal = mpi ? 1 : n;
    g->mpi = mpi;
    g->plant_no_event = dp_planted(HOOK_PLANT_NO_EVENT, b);
    if (!g->ops || train_plan(p, &g->full)) {
        free(g);
        err_set("%s: no training ops or no plan for %s", b->name, p->desc);
        return -1;
    }
    g->nstate = model_state_floats(&g->full, (opt_kind)p->dim[TRAIN_DIM_OPT]);
    g->ws_bytes = model_workspace(&g->full, g->ops);
    g->host_copy = (float *)malloc((size_t)g->full.nparam_floats * sizeof(float));
    if (!g->host_copy || (m->scheme == DP_DDP_OVERLAP &&
                           dp_plan_buckets(&g->full, cfg->bucket_mb, &g->bucket, &g->nbuckets))) {
        err_set("out of memory");
        goto fail;
    }
    for (int i = 0; i < (mpi ? 1 : n); i++) {
        int index = mpi ? mpi->rank : i;
        devs[i] = mpi ? comm_local_rank() % ndev : i;
        g->nlocal = i + 1;   /* close() frees what was opened */
        if (replica_open(g, &g->rep[i], p, index, devs[i])) goto fail;
    }
    if (gpu_nccl_init(comms, n, devs, mpi ? mpi->rank : 0, mpi != NULL)) goto fail;
    for (int i = 0; i < (mpi ? 1 : n); i++) g->rep[i].comm = comms[i];
    memset(ex, 0, sizeof *ex);
    ex->st = g;
    ex->run = gdp_run;
    ex->outputs = gdp_outputs;
    ex->agree = gdp_agree;
    ex->finish = gdp_finish;
    ex->close = gdp_close;
    return 0;
fail:
    gdp_close(g);
    return -1;
}
#endif
