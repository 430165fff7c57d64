#define _POSIX_C_SOURCE 200809L
/* suites/train/train_dp.c - the data-parallel training step on the CPU
 * backends (harness/dp_mode.h's modes over a comm_ops table, MPI ranks).
 *
 * Every replica holds the whole input set (the runner fills it alike on every
 * rank) and steps its shard: the global batch split as evenly as possible
 * (dp_shard). Its loss and gradients are those of its shard's mean, so each
 * is weighted by its share nb / B (step_cfg.shard_weight: the loss gradient
 * is scaled before the backward pass): the sum is the full-batch step
 * whatever N. Then, per mode:
 *   dp-gather    reduce to replica 0 (phase "reduce"), replica 0 updates,
 *                broadcast of the parameters ("broadcast"); the optimizer
 *                state lives on replica 0, as with DataParallel on device 0.
 *   ddp          all-reduce after the backward pass ("allreduce"), every
 *                replica updates.
 *   ddp-overlap  buckets of about bucket_mb (the first 1 MiB), in reverse
 *                parameter order as DDP forms them, each all-reduced
 *                (nonblocking) as soon as the backward pass has finished its
 *                gradients (model.h's grads_ready); "allreduce-wait" is what
 *                is left after the backward pass: the last bucket (blocking:
 *                nothing is left to hide it behind) and the wait.
 * Checked: the runner compares every replica's state with the full-batch
 * reference step (train_check), and agree() that every replica holds replica
 * 0's parameters bit for bit. comm_ms: the median per step of the time spent
 * in collectives (ddp-overlap: the wait left after the backward pass);
 * overlap_eff (ddp-overlap): 1 - that wait / one blocking all-reduce of all
 * gradients, measured after the timing.
 * A chain model's ReLU and max-pool decisions are gathered from the replicas
 * (untimed) so that the check can replay a near-tie as on one process.
 * Test hooks (planted faults): BENCH_PLANT_SKIP_ALLREDUCE=<backend> - in ddp
 * and ddp-overlap the last replica keeps its own gradients (it joins the
 * collective with a copy, so nothing hangs); BENCH_PLANT_SHARD_WEIGHT=<backend> - every replica weighs
 * 1/N instead of its share (wrong when N does not divide the batch).
 */
#include "test_hooks.h"
#include "train_dp.h"
#include "comm.h"
#include "errmsg.h"
#include "phase.h"
#include "stats.h"
#include "timer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct dp_state {
    const train_ops *ops;
    const comm_ops *comm;
    dp_scheme scheme;
    model_plan full, shard;
    step_cfg cfg;                /* with this replica's shard weight */
    int off, nb;                 /* this replica's shard */
    void *const *const *sets;
    int nsets, next;
    float *scratch;              /* the shard's activations */
    float *copy;                 /* nparam floats: agree(), finish(), a planted skip */
    long long *bucket;           /* ddp-overlap: bucket k starts at float bucket[k] and ends
                                    where bucket k-1 starts (k = 0: at nparam_floats) */
    int nbuckets, started;
    int plant_skip;
    dp_times times;              /* communication, per step */
} dp_state;

int dp_planted(const char *var, const backend_def *b)
{
    const char *v = getenv(var);
    return v && strcmp(v, b->name) == 0;
}

float dp_shard_weight(const backend_def *b, int B, int n, int nb)
{
    return dp_planted(HOOK_PLANT_SHARD_WEIGHT, b) ? 1.0f / (float)n : (float)nb / (float)B;
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

double dp_times_median(const dp_times *t, int k)
{
    stats_summary s;
    if (k > t->n) k = t->n;
    return k > 0 && stats_summarize(t->ms + t->n - k, k, &s) == 0 ? s.median : NAN;
}

double dp_overlap_eff(double exposed, double blocking)
{
    if (!(blocking > 0) || !(exposed >= 0)) return NAN;
    return fmax(0.0, fmin(1.0, 1.0 - exposed / blocking));
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

int dp_plan_buckets(const model_plan *pl, double bucket_mb, long long **bucket, int *n)
{
    const double cap = bucket_mb * 1048576.0 / sizeof(float);
    const double first = (bucket_mb < 1.0 ? bucket_mb : 1.0) * 1048576.0 / sizeof(float);
    *n = 0;
    *bucket = (long long *)malloc((size_t)pl->nparams * sizeof **bucket);
    if (!*bucket) return -1;
    long long end = pl->nparam_floats;
    for (int i = pl->nparams - 1; i >= 0; i--) {
        long long start = pl->param[i].off;
        if (i == 0 || (double)(end - start) >= (*n ? cap : first)) {
            (*bucket)[(*n)++] = start;
            end = start;
        }
    }
    return 0;
}

/* Bucket k's gradients (or, with the planted skip on the last replica, a
 * copy it then ignores) and its length. */
static float *bucket_buf(dp_state *d, int k, long long *len)
{
    float *g = (float *)d->sets[0][TB_GRADS];
    long long at = d->bucket[k], end = k ? d->bucket[k - 1] : d->full.nparam_floats;
    *len = end - at;
    if (d->plant_skip && d->comm->rank == d->comm->size - 1) { /* keeps its own */
        memcpy(d->copy + at, g + at, (size_t)*len * sizeof(float));
        return d->copy + at;
    }
    return g + at;
}

/* ddp-overlap: start every bucket whose gradients are final, but the one the
 * end of the backward pass completes (first == 0): nothing is left to hide
 * it behind, so dp_run reduces it with the blocking call (MPI's blocking
 * all-reduce is the faster algorithm). */
static int grads_ready(void *ctx, int first, void *stream)
{
    dp_state *d = (dp_state *)ctx;
    long long mark = d->shard.param[first].off, len;
    while (d->started < d->nbuckets && d->bucket[d->started] >= mark &&
           !(first == 0 && d->started == d->nbuckets - 1)) {
        float *buf = bucket_buf(d, d->started++, &len);
        if (d->comm->allreduce_start(d->comm->ctx, buf, buf, len, stream)) return -1;
    }
    return d->comm->progress ? d->comm->progress(d->comm->ctx) : 0;
}

/* The gradient all-reduce of ddp (every gradient, or, with the planted skip
 * on the last replica, a copy that it then ignores). */
static int allreduce_grads(dp_state *d, float *g, long long n)
{
    const comm_ops *c = d->comm;
    if (d->plant_skip && c->rank == c->size - 1) {
        memcpy(d->copy, g, (size_t)n * sizeof(float));
        return c->allreduce(c->ctx, d->copy, d->copy, n, NULL);
    }
    return c->allreduce(c->ctx, g, g, n, NULL);
}

static int dp_run(void *st, double *ms)
{
    dp_state *d = (dp_state *)st;
    const comm_ops *c = d->comm;
    void *const *in = d->sets[d->next];
    void *const *io = d->sets[0];
    const long long n = d->full.nparam_floats;
    float *g = (float *)io[TB_GRADS], *loss = (float *)io[TB_LOSS];
    (void)ms;
    d->next = (d->next + 1) % d->nsets;
    long long xs = d->full.in_slots / d->full.B, ls = d->full.nlabels / d->full.B;
    step_bufs sb = {(const char *)in[TB_X] + (size_t)(d->off * xs) * 4,
                    (const int *)in[TB_LABELS] + d->off * ls, (float *)io[TB_PARAMS], g,
                    (float *)io[TB_STATE], loss, d->scratch, NULL, NULL, NULL};
    if (d->scheme == DP_DDP_OVERLAP) {
        sb.grads_ready = grads_ready;
        sb.ready_ctx = d;
        d->started = 0;
    }
    if (d->nb > 0) {
        if (model_grads(&d->shard, d->ops, &d->cfg, &sb, NULL)) return -1;
    } else { /* more replicas than samples: this one adds nothing */
        phase_mark("forward", NULL);
        memset(g, 0, (size_t)n * sizeof(float));
        *loss = 0;
        if (sb.grads_ready && grads_ready(d, 0, NULL)) return -1;
    }
    double t0 = timer_now_ms();
    switch (d->scheme) {
    case DP_GATHER:
        phase_mark("reduce", NULL);
        if (c->reduce(c->ctx, g, g, n, 0, NULL) || c->reduce(c->ctx, loss, loss, 1, 0, NULL))
            return -1;
        break;
    case DP_DDP:
        phase_mark("allreduce", NULL);
        if (allreduce_grads(d, g, n) || c->allreduce(c->ctx, loss, loss, 1, NULL)) return -1;
        break;
    case DP_DDP_OVERLAP:
        phase_mark("allreduce-wait", NULL);
        while (d->started < d->nbuckets) { /* the last bucket */
            long long len;
            float *buf = bucket_buf(d, d->started++, &len);
            if (c->allreduce(c->ctx, buf, buf, len, NULL)) return -1;
        }
        if (c->wait(c->ctx, NULL) || c->allreduce(c->ctx, loss, loss, 1, NULL)) return -1;
        break;
    }
    double t1 = timer_now_ms();
    phase_mark("update", NULL);
    if (d->scheme != DP_GATHER || c->rank == 0)
        if (model_update(&d->full, d->ops, &d->cfg, &sb, NULL)) return -1;
    if (d->scheme == DP_GATHER) {
        phase_mark("broadcast", NULL);
        double t2 = timer_now_ms();
        if (c->bcast(c->ctx, (float *)io[TB_PARAMS], n, 0, NULL)) return -1;
        t1 += timer_now_ms() - t2;
    }
    return dp_times_add(&d->times, t1 - t0);
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

/* dp_decision_regions' fn for MPI ranks: replica r sends its region to all. */
typedef struct region_ctx {
    dp_state *d;
    float *full;
} region_ctx;

static int region_bcast(void *ctx, int r, long long full_off, long long shard_off, long long count)
{
    region_ctx *c = (region_ctx *)ctx;
    const comm_ops *m = c->d->comm;
    if (r == m->rank)
        memcpy(c->full + full_off, c->d->scratch + shard_off, (size_t)count * sizeof(float));
    return m->bcast(m->ctx, c->full + full_off, count, r, NULL);
}

/* The state as after the full-batch step: dp-gather's gradients, loss and
 * optimizer state are on replica 0 (sent to the others, untimed, so every
 * replica's check sees a whole step). */
static int dp_outputs(void *st, void **host)
{
    dp_state *d = (dp_state *)st;
    const comm_ops *c = d->comm;
    void *const *io = d->sets[0];
    for (int i = 0; i < TB_COUNT; i++) host[i] = io[i];
    region_ctx rc = {d, (float *)io[TB_SCRATCH]};
    if (dp_decision_regions(&d->full, c->size, region_bcast, &rc)) return -1;
    if (d->scheme != DP_GATHER) return 0;
    long long st_n = model_state_floats(&d->full, d->cfg.opt);
    if (c->bcast(c->ctx, (float *)io[TB_GRADS], d->full.nparam_floats, 0, NULL) ||
        c->bcast(c->ctx, (float *)io[TB_LOSS], 1, 0, NULL) ||
        (st_n && c->bcast(c->ctx, (float *)io[TB_STATE], st_n, 0, NULL)))
        return -1;
    return 0;
}

/* Every replica holds replica 0's parameters, bit for bit. */
static int dp_agree(void *st, char *why, size_t whycap)
{
    dp_state *d = (dp_state *)st;
    const comm_ops *c = d->comm;
    const long long n = d->full.nparam_floats;
    const float *p = (const float *)d->sets[0][TB_PARAMS];
    memcpy(d->copy, p, (size_t)n * sizeof(float));
    if (c->bcast(c->ctx, d->copy, n, 0, NULL)) {
        snprintf(why, whycap, "%s", err_get());
        return 1;
    }
    return dp_params_differ(&d->full, c->rank, p, d->copy, why, whycap);
}

/* comm_ms: the timed steps' median, the slowest replica's; ddp-overlap's
 * overlap_eff against one blocking all-reduce of every gradient. */
static int dp_finish(void *st, const measure_result *m, result_row *row)
{
    dp_state *d = (dp_state *)st;
    const comm_ops *c = d->comm;
    stats_summary s;
    double v[2] = {dp_times_median(&d->times, m->n), NAN};
    if (d->scheme == DP_DDP_OVERLAP) {
        enum { REPS = 5 };
        double t[REPS];
        const long long n = d->full.nparam_floats;
        memcpy(d->copy, d->sets[0][TB_GRADS], (size_t)n * sizeof(float));
        for (int i = 0; i < REPS; i++) {
            double t0 = timer_now_ms();
            if (c->allreduce(c->ctx, d->copy, d->copy, n, NULL)) return -1;
            t[i] = timer_now_ms() - t0;
        }
        if (stats_summarize(t, REPS, &s) == 0) v[1] = s.median;
    }
    comm_max_doubles(v, 2);
    row->comm_ms = v[0];
    if (d->scheme == DP_DDP_OVERLAP) row->overlap_eff = dp_overlap_eff(v[0], v[1]);
    return 0;
}

static void dp_close(void *st)
{
    dp_state *d = (dp_state *)st;
    if (!d) return;
    model_plan_free(&d->full);
    if (d->nb > 0) model_plan_free(&d->shard);
    free(d->scratch);
    free(d->copy);
    free(d->bucket);
    free(d->times.ms);
    free(d);
}

int train_dp_open(const backend_def *b, const dp_mode *m, const problem *p, const dp_cfg *cfg,
                  void *const *const *sets, int nsets, case_exec *ex, char *skip, size_t skipcap)
{
    const comm_ops *comm = cfg->comm;
    const double bucket_mb = cfg->bucket_mb;
    (void)skip;
    (void)skipcap;
    dp_state *d = (dp_state *)calloc(1, sizeof *d);
    if (!d) {
        err_set("out of memory");
        return -1;
    }
    d->ops = (const train_ops *)b->ops;
    d->comm = comm;
    d->scheme = m->scheme;
    d->sets = sets;
    d->nsets = nsets;
    d->cfg = train_step_cfg(b, p);
    d->plant_skip = dp_planted(HOOK_PLANT_SKIP_ALLREDUCE, b);
    if (!d->ops) {
        free(d);
        err_set("%s has no training ops in this build", b->name);
        return -1;
    }
    if (train_plan(p, &d->full)) {
        free(d);
        err_set("no plan for %s", p->desc);
        return -1;
    }
    const int B = (int)p->dim[TRAIN_DIM_B];
    d->nb = dp_shard(B, comm->size, comm->rank, &d->off);
    d->cfg.shard_weight = dp_shard_weight(b, B, comm->size, d->nb);
    if (d->nb > 0 && model_plan_make(d->full.m, d->nb, &d->shard)) {
        err_set("no plan for a shard of %d of %s", d->nb, p->desc);
        d->nb = 0;   /* nothing allocated: close() must not free it */
        dp_close(d);
        return -1;
    }
    if (d->nb == 0) d->shard = d->full;   /* its parameter list, for grads_ready */
    size_t scratch = d->nb > 0 ? (size_t)d->shard.scratch_floats : 1;
    d->scratch = (float *)malloc(scratch * sizeof(float));
    d->copy = (float *)malloc((size_t)d->full.nparam_floats * sizeof(float));
    if (!d->scratch || !d->copy ||
        (m->scheme == DP_DDP_OVERLAP &&
         dp_plan_buckets(&d->full, bucket_mb, &d->bucket, &d->nbuckets))) {
        dp_close(d);
        err_set("out of memory for a replica of %s", p->desc);
        return -1;
    }
    memset(ex, 0, sizeof *ex);
    ex->st = d;
    ex->run = dp_run;
    ex->outputs = dp_outputs;
    ex->agree = dp_agree;
    ex->finish = dp_finish;
    ex->close = dp_close;
    return 0;
}
