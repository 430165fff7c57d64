/* suites/train/train_dp_step.c - the one data-parallel step (train_dp.h),
 * written once against comm_ops and train_ops: the CPU backends run it over
 * MPI ranks (train_dp.c), the GPU backends over NCCL, one host thread per
 * replica GPU (train_dp_gpu.c). Also what both backends share around it: the
 * bucket plan, the shard weight, the comm columns, the agreement message,
 * the chain models' decision regions. Plain C, in the host library. */
#include "test_hooks.h"
#include "train_dp.h"
#include "model_impl.h"
#include "comm.h"
#include "errmsg.h"
#include "phase.h"
#include "stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int dp_planted(const char *var, const backend_def *b)
{
    const char *v = getenv(var);
    return v && strcmp(v, b->name) == 0;
}

/* Replica weight of a shard of nb samples of B over n replicas: nb / B
 * (BENCH_PLANT_SHARD_WEIGHT=<backend>: 1 / n, wrong on unequal shards). */
static float dp_shard_weight(const backend_def *b, int B, int n, int nb)
{
    return dp_planted(HOOK_PLANT_SHARD_WEIGHT, b) ? 1.0f / (float)n : (float)nb / (float)B;
}

int dp_plan_buckets(const model_plan *pl, double bucket_mb, dp_buckets *bk)
{
    const double cap = bucket_mb * 1048576.0 / sizeof(float);
    const double first = (bucket_mb < 1.0 ? bucket_mb : 1.0) * 1048576.0 / sizeof(float);
    bk->n = 0;
    bk->nparam_floats = pl->nparam_floats;
    bk->start = (long long *)malloc((size_t)pl->nparams * sizeof *bk->start);
    if (!bk->start) {
        err_set("out of memory for %d buckets", pl->nparams);
        return -1;
    }
    long long end = pl->nparam_floats;
    for (int i = pl->nparams - 1; i >= 0; i--) {
        long long start = pl->param[i].off;
        if (i == 0 || (double)(end - start) >= (bk->n ? cap : first)) {
            bk->start[bk->n++] = start;
            end = start;
        }
    }
    return 0;
}

void dp_buckets_free(dp_buckets *bk)
{
    free(bk->start);
    bk->start = NULL;
    bk->n = 0;
}

int dp_replica_open(dp_replica *r, const backend_def *b, const problem *p)
{
    const int B = (int)p->dim[TRAIN_DIM_B], n = r->comm->size;
    /* a replica never leaves a step alone: a signal ends the case at the
     * ranks' next agreement (measure_cfg.agree), on every replica together */
    model_hold(1);
    r->holding = 1;
    r->nb = dp_shard(B, n, r->comm->rank, &r->off);
    r->cfg = train_step_cfg(b, p);
    r->cfg.shard_weight = dp_shard_weight(b, B, n, r->nb);
    r->plant_skip = dp_planted(HOOK_PLANT_SKIP_ALLREDUCE, b) && r->comm->rank == n - 1;
    if (r->nb > 0 && model_plan_make(r->full->m, r->nb, &r->shard)) {
        err_set("no plan for a shard of %d of %s", r->nb, p->desc);
        r->nb = 0;   /* nothing allocated: close() must not free it */
        r->shard = *r->full;
        return -1;
    }
    if (r->nb == 0) r->shard = *r->full;   /* its parameter list, for grads_ready */
    return 0;
}

void dp_replica_close(dp_replica *r)
{
    if (r->nb > 0) model_plan_free(&r->shard);
    r->nb = 0;
    if (r->holding) model_hold(0);
    r->holding = 0;
}

/* What this replica adds to the sums (its gradients, or zeros) and where
 * its own sums go (its gradients, or, planted, a buffer it ignores), from
 * float `at` on. */
static const float *grads_in(const dp_replica *r, long long at)
{
    return (r->nb > 0 ? r->grads : r->zeros) + at;
}

static float *grads_out(const dp_replica *r, long long at)
{
    return (r->plant_skip ? r->discard : r->grads) + at;
}

/* Bucket k's first float and length. */
static long long bucket_at(const dp_buckets *bk, int k, long long *len)
{
    long long end = k ? bk->start[k - 1] : bk->nparam_floats;
    *len = end - bk->start[k];
    return bk->start[k];
}

/* model.h's grads_ready (ddp-overlap): start every bucket whose gradients
 * are final, but the one the end of the backward pass completes (first ==
 * 0): nothing is left to hide it behind, so dp_step all-reduces it at once
 * (MPI's blocking all-reduce is the faster algorithm). */
static int grads_ready(void *ctx, int first, void *stream)
{
    dp_replica *r = (dp_replica *)ctx;
    const comm_ops *c = r->comm;
    const dp_buckets *bk = r->buckets;
    long long mark = r->shard.param[first].off, len;
    while (r->started < bk->n && bk->start[r->started] >= mark &&
           !(first == 0 && r->started == bk->n - 1)) {
        long long at = bucket_at(bk, r->started++, &len);
        if (c->allreduce_start(c->ctx, grads_in(r, at), grads_out(r, at), len, stream)) return -1;
    }
    return c->progress ? c->progress(c->ctx) : 0;
}

static int mark(dp_replica *r, int which, void *stream)
{
    return r->mark ? r->mark(r->mark_ctx, which, stream) : 0;
}

/* The mode's collectives of gradients and loss. */
static int reduce_grads(dp_replica *r, float *loss, void *stream)
{
    const comm_ops *c = r->comm;
    const long long n = r->full->nparam_floats;
    const float *lin = r->nb > 0 ? loss : r->zeros + n;
    long long len;
    switch (r->scheme) {
    case DP_GATHER:
        phase_mark("reduce", stream);
        return c->reduce(c->ctx, grads_in(r, 0), r->grads, n, 0, stream) ||
               c->reduce(c->ctx, lin, loss, 1, 0, stream);
    case DP_DDP:
        phase_mark("allreduce", stream);
        return c->allreduce(c->ctx, grads_in(r, 0), grads_out(r, 0), n, stream) ||
               c->allreduce(c->ctx, lin, loss, 1, stream);
    case DP_DDP_OVERLAP:
        phase_mark("allreduce-wait", stream);
        while (r->started < r->buckets->n) { /* the last bucket */
            long long at = bucket_at(r->buckets, r->started++, &len);
            if (c->allreduce(c->ctx, grads_in(r, at), grads_out(r, at), len, stream)) return -1;
        }
        return c->wait(c->ctx, stream) || c->allreduce(c->ctx, lin, loss, 1, stream);
    case DP_HOGWILD: /* no collectives: train_hog.c's workers share the parameters */
        break;
    }
    err_set("unknown data-parallel scheme %d", (int)r->scheme);
    return -1;
}

int dp_step(dp_replica *r, const step_bufs *in, void *stream)
{
    const comm_ops *c = r->comm;
    step_bufs sb = *in;
    r->grads = sb.grads;
    if (r->scheme == DP_DDP_OVERLAP) {
        sb.grads_ready = grads_ready;
        sb.ready_ctx = r;
        r->started = 0;
    }
    if (r->nb > 0) { /* a GPU replica's phase marks count on replica 0's thread only (phase.h) */
        if (model_grads(&r->shard, r->ops, &r->cfg, &sb, stream)) return -1;
    } else { /* more replicas than samples: this one adds zeros */
        phase_mark("forward", stream);
        if (sb.grads_ready && grads_ready(r, 0, stream)) return -1;
    }
    if (mark(r, DP_MARK_COMM, stream) || reduce_grads(r, sb.loss, stream) ||
        mark(r, DP_MARK_COMM_END, stream))
        return -1;
    phase_mark("update", stream);
    if (r->scheme != DP_GATHER || c->rank == 0)
        if (model_update(r->full, r->ops, &r->cfg, &sb, stream)) return -1;
    if (r->scheme == DP_GATHER) {
        phase_mark("broadcast", stream);
        if (mark(r, DP_MARK_BCAST, stream) ||
            c->bcast(c->ctx, sb.params, r->full->nparam_floats, 0, stream) ||
            mark(r, DP_MARK_BCAST_END, stream))
            return -1;
    }
    return 0;
}

int dp_times_add(dp_times *t, double ms)
{
    if (t->n == t->cap) {
        int cap = t->cap ? 2 * t->cap : 64;
        double *p = (double *)realloc(t->ms, (size_t)cap * sizeof *p);
        if (!p) {
            err_set("out of memory");
            return -1;
        }
        t->ms = p;
        t->cap = cap;
    }
    t->ms[t->n++] = ms;
    return 0;
}

/* The median of the last k (NAN: none). */
static double dp_times_median(const dp_times *t, int k)
{
    stats_summary s;
    if (k > t->n) k = t->n;
    return k > 0 && stats_summarize(t->ms + t->n - k, k, &s) == 0 ? s.median : NAN;
}

/* overlap_eff: the share of one blocking all-reduce (ms) the exposed wait
 * (ms) hid, 0..1 (NAN when either is missing). */
static double dp_overlap_eff(double exposed, double blocking)
{
    if (!(blocking > 0) || !(exposed >= 0)) return NAN;
    return fmax(0.0, fmin(1.0, 1.0 - exposed / blocking));
}

int dp_comm_columns(const dp_times *t, int nsteps, dp_scheme scheme,
                    int (*blocking_ms)(void *ctx, double *ms), void *ctx, result_row *row)
{
    double v[2] = {dp_times_median(t, nsteps), NAN};
    if (scheme == DP_DDP_OVERLAP) {
        enum { REPS = 5 };
        double ms[REPS];
        stats_summary s;
        for (int i = 0; i < REPS; i++)
            if (blocking_ms(ctx, &ms[i])) return -1;
        if (stats_summarize(ms, REPS, &s) == 0) v[1] = s.median;
    }
    comm_max_doubles(v, 2);   /* the slowest rank's (one process: as they are) */
    row->comm_ms = v[0];
    if (scheme == DP_DDP_OVERLAP) row->overlap_eff = dp_overlap_eff(v[0], v[1]);
    return 0;
}

int dp_params_differ(const model_plan *pl, int who, const float *mine, const float *zero,
                     char *why, size_t whycap)
{
    for (long long i = 0; i < pl->nparam_floats; i++)
        if (memcmp(&mine[i], &zero[i], sizeof(float)) != 0) {
            int k = 0;
            while (k + 1 < pl->nparams && pl->param[k + 1].off <= i) k++;
            snprintf(why, whycap, "replica %d's parameters differ from replica 0's (%s[%lld]: "
                     "%.9g, replica 0 %.9g)", who, pl->param[k].name, i - pl->param[k].off,
                     (double)mine[i], (double)zero[i]);
            return 1;
        }
    return 0;
}

int dp_decision_regions(const model_plan *full, int n,
                        int (*fn)(void *ctx, int r, long long full_off, long long shard_off,
                                  long long count),
                        void *ctx)
{
    if (full->m->kind != MODEL_CHAIN) return 0;
    for (int r = 0; r < n; r++) {
        model_plan S;
        int off, nb = dp_shard(full->B, n, r, &off);
        if (nb == 0) continue;
        if (model_plan_make(full->m, nb, &S)) {
            err_set("no plan for a shard of %d", nb);
            return -1;
        }
        int rc = 0;
        for (int l = 0; l < full->m->nlayers && !rc; l++) {
            const plan_layer *L = &full->layer[l];
            long long per = (long long)L->oC * L->oH * L->oW;
            rc = fn(ctx, r, L->out + off * per, S.layer[l].out, nb * per);
            if (!rc && full->m->layer[l].kind == LAYER_POOL)
                rc = fn(ctx, r, L->arg + off * per, S.layer[l].arg, nb * per);
        }
        model_plan_free(&S);
        if (rc) return -1;
    }
    return 0;
}
