/* suites/train/train_dp_gpu.c - the data-parallel modes on the GPU backends
 * over NCCL (the GPU layer: compiled against the CUDA toolkit and against
 * emu/, C that is also C++): train_dp_step.c's one step, each replica on its
 * GPU over its NCCL comm_ops table (harness/gpu_nccl.h).
 *
 * Replicas: cfg->devices GPUs of this process, one host thread each (comm
 * nccl: each thread queues its replica's step as one process per GPU would),
 * or one replica per MPI rank on GPU local rank mod the GPU count (comm
 * nccl-mpi). Each replica holds the parameters, its shard of every input set
 * (uploaded once) and its shard's activations; its step is queued on its
 * compute stream (ddp-overlap's started buckets on the communication stream
 * of its table), then both streams are synchronized.
 * Checked as on the CPU: replica 0's state against the full-batch reference
 * (train_check) and every replica's parameters equal to replica 0's.
 * comm_ms: CUDA events around the collectives on replica 0's compute stream
 * (ddp-overlap: the wait left after the backward pass).
 * Test hooks (planted faults): BENCH_PLANT_NO_EVENT=<backend> - ddp-overlap's
 * communication stream does not wait for the backward pass (the emulator's
 * lazy streams then reduce stale gradients); train_dp.h's as well.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_hooks.h"
#include "train_dp.h"
#include "comm.h"
#include "gpu_nccl.h"
#include "errmsg.h"
#include "timer.h"

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

#define MAX_SETS_DP 4

typedef struct gdp gdp;

typedef struct replica {
    gdp *g;
    dp_replica dp;                /* the step's */
    const gpu_nccl *eng;          /* its NCCL engine (the communication stream) */
    int dev;
    cudaStream_t s;               /* compute */
    cudaEvent_t mark[DP_MARKS];   /* comm timing */
    float *params, *grads, *state, *loss, *scratch, *zeros, *discard;
    void *ws;
    unsigned long long ws_bytes;  /* its own plan's (the shard's dims) */
    void *x[MAX_SETS_DP];
    int *labels[MAX_SETS_DP];
    double ms;                    /* replica_allreduce's time */
    int rc;                       /* its job's (on_replicas) */
    char err[512];
} replica;

struct gdp {
    const backend_def *b;
    dp_scheme scheme;
    model_plan full;
    dp_buckets buckets;           /* ddp-overlap */
    void *const *const *sets;
    int nsets, next, k;           /* k: the input set of the step under way */
    int n, nlocal, nopen;         /* replicas; in this process; opened */
    const comm_ops *mpi;          /* nccl-mpi: the ranks */
    long long nstate;
    gpu_nccl eng[GPU_NCCL_MAX];
    comm_ops comm[GPU_NCCL_MAX];  /* replica i's NCCL table */
    replica rep[GPU_NCCL_MAX];
    dp_times times;               /* communication, per step */
    float *host_copy;             /* nparam floats: agree() */
    int (*job)(replica *r);       /* what on_replicas runs */
};

static int gpu_mark(void *ctx, int which, void *stream)
{
    CUDA_TRY(cudaEventRecord(((replica *)ctx)->mark[which], (cudaStream_t)stream));
    return 0;
fail:
    return -1;
}

/* One replica's step, queued and finished. */
static int replica_step(replica *r)
{
    gdp *g = r->g;
    step_bufs sb = {.x = r->x[g->k],
                    .labels = r->labels[g->k],
                    .params = r->params,
                    .grads = r->grads,
                    .state = r->state,
                    .loss = r->loss,
                    .scratch = r->scratch,
                    .ws = r->ws,
                    .grads_ready = NULL,
                    .ready_ctx = NULL,
                    .ws_bytes = r->ws_bytes};
    CUDA_TRY(cudaSetDevice(r->dev));
    if (dp_step(&r->dp, &sb, (void *)r->s)) goto fail;
    /* The communication stream first: the compute stream waited for it, and
     * what it holds waited for the compute stream only through its events
     * (on the emulator's lazy streams a missing one then reads stale
     * gradients, as a GPU may: BENCH_PLANT_NO_EVENT). */
    CUDA_TRY(cudaStreamSynchronize(r->eng->cs));
    CUDA_TRY(cudaStreamSynchronize(r->s));
    return 0;
fail:
    return -1;
}

static void *replica_thread(void *arg)
{
    replica *r = (replica *)arg;
    err_clear();
    r->rc = r->g->job(r);
    if (r->rc)
        snprintf(r->err, sizeof r->err, "replica %d (GPU %d): %s", r->dp.comm->rank, r->dev,
                 err_get());
    return NULL;
}

/* fn on every local replica, each on its own host thread (replica 0 on this
 * one, after the others started). 0, or -1 with err_set. */
static int on_replicas(gdp *g, int (*fn)(replica *r))
{
    pthread_t th[GPU_NCCL_MAX];
    int started = 0;
    g->job = fn;
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
    for (int i = 0; i < g->nlocal; i++)
        if (g->rep[i].rc) {
            err_set("%s", g->rep[i].err);
            return -1;
        }
    return 0;
}

static int keep_comm_ms(gdp *g)
{
    replica *r = &g->rep[0];
    float a = 0, b = 0;
    CUDA_TRY(cudaSetDevice(r->dev));
    CUDA_TRY(cudaEventElapsedTime(&a, r->mark[DP_MARK_COMM], r->mark[DP_MARK_COMM_END]));
    if (g->scheme == DP_GATHER)
        CUDA_TRY(cudaEventElapsedTime(&b, r->mark[DP_MARK_BCAST], r->mark[DP_MARK_BCAST_END]));
    return dp_times_add(&g->times, (double)a + (double)b);
fail:
    return -1;
}

/* One global step: every local replica's. */
static int gdp_run(void *st, double *ms)
{
    gdp *g = (gdp *)st;
    (void)ms;
    g->k = g->next;
    g->next = (g->next + 1) % g->nsets;
    return on_replicas(g, replica_step) || keep_comm_ms(g) ? -1 : 0;
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
        gregion rc = {.g = g, .full = (float *)io[TB_SCRATCH]};
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

/* One blocking all-reduce of the replica's gradients (they are recomputed
 * by every later step), host clock after synchronizing its stream. */
static int replica_allreduce(replica *r)
{
    const comm_ops *c = r->dp.comm;
    double t0 = 0;
    CUDA_TRY(cudaSetDevice(r->dev));
    t0 = timer_now_ms();
    if (c->allreduce(c->ctx, r->grads, r->grads, r->g->full.nparam_floats, (void *)r->s))
        goto fail;
    CUDA_TRY(cudaStreamSynchronize(r->s));
    r->ms = timer_now_ms() - t0;
    return 0;
fail:
    return -1;
}

/* The overlap's yardstick: one blocking all-reduce of every gradient on
 * every replica, as replica 0 saw it. */
static int blocking_ms(void *st, double *ms)
{
    gdp *g = (gdp *)st;
    if (on_replicas(g, replica_allreduce)) return -1;
    *ms = g->rep[0].ms;
    return 0;
}

static int gdp_finish(void *st, const measure_result *m, result_row *row)
{
    gdp *g = (gdp *)st;
    return dp_comm_columns(&g->times, m->n, g->scheme, blocking_ms, g, row);
}

static void replica_free(replica *r)
{
    cudaSetDevice(r->dev);
    for (int i = 0; i < DP_MARKS; i++)
        if (r->mark[i]) cudaEventDestroy(r->mark[i]);
    if (r->s) cudaStreamDestroy(r->s);
    void *bufs[] = {r->params, r->grads, r->state, r->loss,
                    r->scratch, r->zeros, r->discard, r->ws};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++) cudaFree(bufs[i]);
    for (int k = 0; k < MAX_SETS_DP; k++) {
        cudaFree(r->x[k]);
        cudaFree(r->labels[k]);
    }
    dp_replica_close(&r->dp);
}

static void gdp_close(void *st)
{
    gdp *g = (gdp *)st;
    if (!g) return;
    for (int i = 0; i < g->nopen; i++) replica_free(&g->rep[i]);
    for (int i = 0; i < g->nlocal; i++) gpu_nccl_close(&g->eng[i]);
    model_plan_free(&g->full);
    dp_buckets_free(&g->buckets);
    free(g->times.ms);
    free(g->host_copy);
    free(g);
}

/* Replica i (table g->comm[i], on its engine's GPU): its step's state,
 * buffers, its shard of every input set, stream and events. */
static int replica_open(gdp *g, int i, const problem *p)
{
    replica *r = &g->rep[i];
    dp_replica *d = &r->dp;
    const model_plan *F = &g->full;
    const long long n = F->nparam_floats, xs = F->in_slots / F->B, ls = F->nlabels / F->B;
    void *const *io = g->sets[0];
    r->g = g;
    r->eng = &g->eng[i];
    r->dev = g->eng[i].dev;
    d->ops = (const train_ops *)g->b->ops;
    d->comm = &g->comm[i];
    d->scheme = g->scheme;
    d->full = F;
    d->buckets = &g->buckets;
    d->mark = gpu_mark;
    d->mark_ctx = r;
    if (dp_replica_open(d, g->b, p)) return -1;
    CUDA_TRY(cudaSetDevice(r->dev));
    CUDA_TRY(cudaStreamCreateWithFlags(&r->s, cudaStreamNonBlocking));
    for (int k = 0; k < DP_MARKS; k++) CUDA_TRY(cudaEventCreate(&r->mark[k]));
    CUDA_TRY(cudaMalloc((void **)&r->params, (size_t)n * 4));
    CUDA_TRY(cudaMalloc((void **)&r->grads, (size_t)n * 4));
    CUDA_TRY(cudaMalloc((void **)&r->loss, 4));
    CUDA_TRY(cudaMalloc((void **)&r->scratch, (size_t)(d->nb ? d->shard.scratch_floats : 1) * 4));
    if (g->nstate) CUDA_TRY(cudaMalloc((void **)&r->state, (size_t)g->nstate * 4));
    /* its workspace from its own plan, on its GPU: a shard's heuristics may
     * pick a hungrier algorithm than the full batch's */
    r->ws_bytes = model_workspace(d->nb ? &d->shard : F, d->ops);
    if (r->ws_bytes) CUDA_TRY(cudaMalloc(&r->ws, r->ws_bytes));
    if (d->nb == 0) { /* what it adds: zeros */
        CUDA_TRY(cudaMalloc((void **)&r->zeros, (size_t)(n + 1) * 4));
        CUDA_TRY(cudaMemset(r->zeros, 0, (size_t)(n + 1) * 4));
    }
    if (d->plant_skip) CUDA_TRY(cudaMalloc((void **)&r->discard, (size_t)n * 4));
    d->zeros = r->zeros;
    d->discard = r->discard;
    CUDA_TRY(cudaMemcpy(r->params, io[TB_PARAMS], (size_t)n * 4, cudaMemcpyHostToDevice));
    if (g->nstate)
        CUDA_TRY(cudaMemcpy(r->state, io[TB_STATE], (size_t)g->nstate * 4, cudaMemcpyHostToDevice));
    for (int k = 0; k < g->nsets && d->nb > 0; k++) {
        size_t xb = (size_t)(d->nb * xs) * 4, lb = (size_t)(d->nb * ls) * sizeof(int);
        CUDA_TRY(cudaMalloc(&r->x[k], xb));
        CUDA_TRY(cudaMalloc((void **)&r->labels[k], lb));
        CUDA_TRY(cudaMemcpy(r->x[k], (const char *)g->sets[k][TB_X] + (size_t)(d->off * xs) * 4, xb,
                            cudaMemcpyHostToDevice));
        CUDA_TRY(cudaMemcpy(r->labels[k], (const int *)g->sets[k][TB_LABELS] + d->off * ls, lb,
                            cudaMemcpyHostToDevice));
    }
    /* The copies above (pageable sources: cudaMemcpy may return before they
     * land) and the memset are legacy-stream work, unordered with the
     * non-blocking streams the steps run on: done before any step. */
    CUDA_TRY(cudaDeviceSynchronize());
    return 0;
fail:
    return -1;
}

int train_dp_gpu_open(const backend_def *b, const dp_mode *m, const problem *p, const dp_cfg *cfg,
                      void *const *const *sets, int nsets, case_exec *ex, char *skip,
                      size_t skipcap)
{
    const int over_mpi = cfg->comm && cfg->comm->size > 1;
    const int n = over_mpi ? cfg->comm->size : cfg->devices;
    int ndev = 0, devs[GPU_NCCL_MAX];
    gdp *g = NULL;
    if (train_dp_dtype_skip(p, m, skip, skipcap)) return 1;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1) {
        snprintf(skip, skipcap, "no usable GPU");
        return 1;
    }
#ifdef __CUDAEMU__
    if (over_mpi) {
        snprintf(skip, skipcap, "emulated: the emulator runs NCCL between the GPUs of one process "
                                "(--devices N), not across MPI ranks");
        return 1;
    }
#endif
    if (!over_mpi && (n < 1 || n > ndev || n > GPU_NCCL_MAX)) {
        snprintf(skip, skipcap, "--devices %d: this machine has %d GPU%s", n, ndev,
                 ndev == 1 ? "" : "s");
        return 1;
    }
    if (!b->ops) {
        err_set("%s has no training ops in this build", b->name);
        return -1;
    }
    if (nsets > MAX_SETS_DP) nsets = MAX_SETS_DP;
    g = (gdp *)calloc(1, sizeof *g);
    if (!g) {
        err_set("out of memory");
        return -1;
    }
    if (train_plan(p, &g->full)) {
        free(g);
        err_set("no plan for %s", p->desc);
        return -1;
    }
    g->b = b;
    g->scheme = m->scheme;
    g->sets = sets;
    g->nsets = nsets;
    g->n = n;
    g->nlocal = over_mpi ? 1 : n;
    g->mpi = over_mpi ? cfg->comm : NULL;
    g->nstate = model_state_floats(&g->full, (opt_kind)p->dim[TRAIN_DIM_OPT]);
    g->host_copy = (float *)malloc((size_t)g->full.nparam_floats * sizeof(float));
    if (!g->host_copy) {
        err_set("out of memory");
        goto fail;
    }
    if (m->scheme == DP_DDP_OVERLAP && dp_plan_buckets(&g->full, cfg->bucket_mb, &g->buckets))
        goto fail;
    for (int i = 0; i < g->nlocal; i++) devs[i] = over_mpi ? comm_local_rank() % ndev : i;
    if (gpu_nccl_open(g->eng, g->comm, n, devs, over_mpi ? cfg->comm->rank : 0, over_mpi))
        goto fail;
    for (int i = 0; i < g->nlocal; i++) {
        g->eng[i].no_event = dp_planted(HOOK_PLANT_NO_EVENT, b);
        g->nopen = i + 1;   /* close() frees what was opened */
        if (replica_open(g, i, p)) goto fail;
    }
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
