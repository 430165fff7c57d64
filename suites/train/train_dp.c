#define _POSIX_C_SOURCE 200809L
/* suites/train/train_dp.c - the data-parallel modes on the CPU backends:
 * one replica per MPI rank (comm mpi; comm none: the one-replica case), each
 * running train_dp_step.c's step over the MPI comm_ops table (harness/comm.c)
 * on host buffers.
 *
 * Every replica holds the whole input set (the runner fills it alike on every
 * rank) and steps its shard of it. Checked: the runner compares every
 * replica's state with the full-batch reference step (train_check), and
 * agree() that every replica holds replica 0's parameters bit for bit.
 * comm_ms: the host clock around the step's collectives (ddp-overlap: the
 * wait left after the backward pass), the median per step; overlap_eff
 * (ddp-overlap): against one blocking all-reduce of all gradients, measured
 * after the timing. A chain model's ReLU and max-pool decisions are gathered
 * from the replicas (untimed) so that the check can replay a near-tie as on
 * one process.
 */
#include "train_dp.h"
#include "comm.h"
#include "errmsg.h"
#include "timer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct dp_state {
    dp_replica rep;
    model_plan full;
    dp_buckets buckets;          /* ddp-overlap */
    void *const *const *sets;
    int nsets, next;
    float *scratch;              /* the shard's activations */
    float *copy;                 /* nparam floats: agree(), finish(), a planted skip's sums */
    float *zeros;                /* a replica without samples: what it adds */
    double t[DP_MARKS];          /* the step's marks (host clock, ms) */
    dp_times times;              /* communication, per step */
} dp_state;

static int host_mark(void *ctx, int which, void *stream)
{
    (void)stream;
    ((dp_state *)ctx)->t[which] = timer_now_ms();
    return 0;
}

static int dp_run(void *st, double *ms)
{
    dp_state *d = (dp_state *)st;
    const model_plan *F = &d->full;
    void *const *in = d->sets[d->next];
    void *const *io = d->sets[0];
    const long long xs = F->in_slots / F->B, ls = F->nlabels / F->B;
    (void)ms;
    d->next = (d->next + 1) % d->nsets;
    step_bufs sb = {.x = (const char *)in[TB_X] + (size_t)(d->rep.off * xs) * 4,
                    .labels = (const int *)in[TB_LABELS] + d->rep.off * ls,
                    .params = (float *)io[TB_PARAMS],
                    .grads = (float *)io[TB_GRADS],
                    .state = (float *)io[TB_STATE],
                    .loss = (float *)io[TB_LOSS],
                    .scratch = d->scratch};
    if (dp_step(&d->rep, &sb, NULL)) return -1;
    double comm = d->t[DP_MARK_COMM_END] - d->t[DP_MARK_COMM];
    if (d->rep.scheme == DP_GATHER) comm += d->t[DP_MARK_BCAST_END] - d->t[DP_MARK_BCAST];
    return dp_times_add(&d->times, comm);
}

/* dp_decision_regions' fn for MPI ranks: replica r sends its region to all. */
typedef struct region_ctx {
    dp_state *d;
    float *full;
} region_ctx;

static int region_bcast(void *ctx, int r, long long full_off, long long shard_off, long long count)
{
    region_ctx *c = (region_ctx *)ctx;
    const comm_ops *m = c->d->rep.comm;
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
    const comm_ops *c = d->rep.comm;
    void *const *io = d->sets[0];
    for (int i = 0; i < TB_COUNT; i++) host[i] = io[i];
    region_ctx rc = {.d = d, .full = (float *)io[TB_SCRATCH]};
    if (dp_decision_regions(&d->full, c->size, region_bcast, &rc)) return -1;
    if (d->rep.scheme != DP_GATHER) return 0;
    long long st_n = model_state_floats(&d->full, d->rep.cfg.opt);
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
    const comm_ops *c = d->rep.comm;
    const long long n = d->full.nparam_floats;
    const float *p = (const float *)d->sets[0][TB_PARAMS];
    memcpy(d->copy, p, (size_t)n * sizeof(float));
    if (c->bcast(c->ctx, d->copy, n, 0, NULL)) {
        snprintf(why, whycap, "%s", err_get());
        return 1;
    }
    return dp_params_differ(&d->full, c->rank, p, d->copy, why, whycap);
}

/* One blocking all-reduce of every gradient (a copy of them), host clock. */
static int blocking_ms(void *st, double *ms)
{
    dp_state *d = (dp_state *)st;
    const comm_ops *c = d->rep.comm;
    double t0 = timer_now_ms();
    if (c->allreduce(c->ctx, d->copy, d->copy, d->full.nparam_floats, NULL)) return -1;
    *ms = timer_now_ms() - t0;
    return 0;
}

static int dp_finish(void *st, const measure_result *m, result_row *row)
{
    dp_state *d = (dp_state *)st;
    memcpy(d->copy, d->sets[0][TB_GRADS], (size_t)d->full.nparam_floats * sizeof(float));
    return dp_comm_columns(&d->times, m->n, d->rep.scheme, blocking_ms, d, row);
}

static void dp_close(void *st)
{
    dp_state *d = (dp_state *)st;
    if (!d) return;
    dp_replica_close(&d->rep);
    model_plan_free(&d->full);
    dp_buckets_free(&d->buckets);
    free(d->scratch);
    free(d->copy);
    free(d->zeros);
    free(d->times.ms);
    free(d);
}

int train_dp_open(const backend_def *b, const dp_mode *m, const problem *p, const dp_cfg *cfg,
                  void *const *const *sets, int nsets, case_exec *ex, char *skip, size_t skipcap)
{
    if (!b->ops) {
        err_set("%s has no training ops in this build", b->name);
        return -1;
    }
    if (train_dp_dtype_skip(p, m, skip, skipcap)) return 1;
    if (m->workers) return train_hog_open(b, m, p, cfg, sets, nsets, ex, skip, skipcap);
    dp_state *d = (dp_state *)calloc(1, sizeof *d);
    if (!d) {
        err_set("out of memory");
        return -1;
    }
    if (train_plan(p, &d->full)) {
        free(d);
        err_set("no plan for %s", p->desc);
        return -1;
    }
    d->sets = sets;
    d->nsets = nsets;
    dp_replica *r = &d->rep;
    r->ops = (const train_ops *)b->ops;
    r->comm = cfg->comm;
    r->scheme = m->scheme;
    r->full = &d->full;
    r->buckets = &d->buckets;
    r->mark = host_mark;
    r->mark_ctx = d;
    if (dp_replica_open(r, b, p) ||
        (m->scheme == DP_DDP_OVERLAP && dp_plan_buckets(&d->full, cfg->bucket_mb, &d->buckets))) {
        dp_close(d);
        return -1;
    }
    const size_t n = (size_t)d->full.nparam_floats;
    d->scratch = (float *)malloc((r->nb > 0 ? (size_t)r->shard.scratch_floats : 1) * sizeof(float));
    d->copy = (float *)malloc(n * sizeof(float));
    if (r->nb == 0) d->zeros = (float *)calloc(n + 1, sizeof(float));
    if (!d->scratch || !d->copy || (r->nb == 0 && !d->zeros)) {
        dp_close(d);
        err_set("out of memory for a replica of %s", p->desc);
        return -1;
    }
    r->zeros = d->zeros;
    r->discard = d->copy;
    memset(ex, 0, sizeof *ex);
    ex->st = d;
    ex->run = dp_run;
    ex->outputs = dp_outputs;
    ex->agree = dp_agree;
    ex->finish = dp_finish;
    ex->close = dp_close;
    return 0;
}
