#define _POSIX_C_SOURCE 200809L
/* suites/train/train_hog.c - the hogwild mode on the CPU backends
 * (harness/dp_mode.h): N worker processes (harness/workers.h, forked per
 * case) share the parameters and the optimizer state, as
 * torch.multiprocessing's Hogwild does with model.share_memory().
 *
 * A run is HOG_ROUNDS rounds: in round k every worker steps its shard
 * (dp_shard) of input set k (cycling over the sets; the next run goes on
 * from there) with the backend's own model_step, reading and writing the
 * shared parameters without locks, and the workers do not wait for each
 * other between rounds: a run is HOG_ROUNDS global batches of samples
 * (case_exec.per_run). Each worker runs threads / N threads (at least 1), so
 * N workers share the run's threads without oversubscribing them.
 *
 * Checked after the first run (HOG_ROUNDS x B samples from the initial
 * parameters; case_exec.check): every worker's updates landed (a count per
 * worker in the shared memory: HOG_ROUNDS each); the shared parameters and
 * optimizer state are finite; and the loss (the mean over the input sets of
 * the full batch's loss, forward only) is within the band of the loss of
 * synchronous SGD on the same samples: the same shards stepped one after
 * another in round order, worker order (the same number of updates, one at a
 * time) by the parent, with the same ops:
 *     |loss_hogwild - loss_sync| <= HOG_BAND x (loss_initial - loss_sync)
 * (a Hogwild step reads parameters other workers are writing, so it trains
 * a little differently, never a lot). accuracy_lost: |loss_hogwild -
 * loss_sync| / loss_sync. A synchronous run that does not lower the loss
 * leaves no band: the row fails saying so.
 * scaling_eff: samples/s over (N x one worker's samples/s), that worker
 * (forked alone after the timing, timed as often) stepping worker 0's shard
 * with the same threads per worker.
 * Test hook BENCH_PLANT_HOG_PRIVATE=<backend>: the workers train private
 * copies of the parameters and state (the shared ones never change): the
 * loss check must fail.
 */
#include "test_hooks.h"
#include "train_dp.h"
#include "errmsg.h"
#include "stats.h"
#include "timer.h"
#include "workers.h"
#include "../../cpu/gemm_cpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HOG_ROUNDS 4        /* global batches per run */
#define HOG_BAND 0.75       /* of the synchronous run's loss drop (< 1: private copies fail) */

/* What the parent and the workers share (one mapping). */
typedef struct hog_shared {
    volatile long count[WORKERS_MAX];   /* updates each worker has applied */
    volatile int first_set;             /* the run's first input set */
} hog_shared;

typedef struct hog_state {
    const backend_def *b;
    const train_ops *ops;
    step_cfg cfg;
    model_plan full;             /* the global batch's */
    void *const *const *sets;
    int nsets, next, runs;
    int n, threads;              /* workers; threads of each */
    int plant_private;
    /* shared */
    hog_shared *sh;
    float *params, *state;
    size_t param_bytes, state_bytes;
    workers *pool;
    /* the parent's */
    float *scratch, *grads;      /* the full plan's: the loss, the synchronous run */
    float loss;                  /* the hogwild loss (the trace) */
    double loss0, loss_sync;
    /* a worker's (after the fork, in its own copy of this struct) */
    model_plan wplan;
    int off;
    float *wscratch, *wgrads, *wparams, *wstate;
} hog_state;

/* The inputs of set `set`'s batch from sample `off` on (a shard's). */
static step_bufs shard_bufs(const hog_state *h, int set, int off)
{
    const model_plan *F = &h->full;
    void *const *in = h->sets[set];
    const long long xs = F->in_slots / F->B, ls = F->nlabels / F->B;
    step_bufs sb = {.x = (const char *)in[TB_X] + (size_t)(off * xs) * 4,
                    .labels = (const int *)in[TB_LABELS] + off * ls};
    return sb;
}

/* The mean over the input sets of the full batch's loss at params (every
 * set: the loss of one batch of a few samples may not fall in a few rounds,
 * as cnn-b4's set 0 does not). */
static int mean_loss(hog_state *h, float *params, double *out)
{
    double sum = 0;
    float l = NAN;
    for (int k = 0; k < h->nsets; k++) {
        step_bufs sb = shard_bufs(h, k, 0);
        sb.params = params;
        sb.grads = h->grads;
        sb.loss = &l;
        sb.scratch = h->scratch;
        if (model_loss(&h->full, h->ops, &h->cfg, &sb, NULL)) return -1;
        sum += l;
    }
    *out = sum / h->nsets;
    return 0;
}

/* ---- in a worker ------------------------------------------------------------ */

static int hog_init(void *ctx, int w)
{
    hog_state *h = (hog_state *)ctx;
    int nb = dp_shard(h->full.B, h->n, w, &h->off);
    cpu_threads_set(h->threads);
    if (model_plan_make(h->full.m, nb, &h->wplan)) return -1;
    h->wscratch = (float *)malloc((size_t)h->wplan.scratch_floats * sizeof(float));
    h->wgrads = (float *)malloc(h->param_bytes);
    h->wparams = h->params;
    h->wstate = h->state;
    if (h->plant_private) { /* the planted fault: private copies */
        h->wparams = (float *)malloc(h->param_bytes);
        h->wstate = (float *)malloc(h->state_bytes ? h->state_bytes : 1);
        if (h->wparams) memcpy(h->wparams, h->params, h->param_bytes);
        if (h->wstate) memcpy(h->wstate, h->state, h->state_bytes);
    }
    /* never freed: the worker's memory goes with its process */
    return h->wscratch && h->wgrads && h->wparams && h->wstate ? 0 : -1;
}

static int hog_job(void *ctx, int w)
{
    hog_state *h = (hog_state *)ctx;
    float loss;
    for (int k = 0; k < HOG_ROUNDS; k++) {
        step_bufs sb = shard_bufs(h, (h->sh->first_set + k) % h->nsets, h->off);
        sb.params = h->wparams;
        sb.grads = h->wgrads;
        sb.state = h->wstate;
        sb.loss = &loss;
        sb.scratch = h->wscratch;
        if (model_step(&h->wplan, h->ops, &h->cfg, &sb, NULL)) return -1;
        __atomic_fetch_add(&h->sh->count[w], 1, __ATOMIC_RELAXED);
    }
    return 0;
}

/* ---- in the parent ---------------------------------------------------------- */

/* Synchronous SGD on the checked run's samples from the initial state (the
 * shared buffers hold it): its loss into h->loss_sync. */
static int sync_run(hog_state *h)
{
    float *p = (float *)malloc(h->param_bytes), *st = (float *)malloc(h->state_bytes + 1);
    model_plan pl[WORKERS_MAX];
    int made = 0, rc = -1, off[WORKERS_MAX];
    float loss;
    if (!p || !st) goto done;
    memcpy(p, h->params, h->param_bytes);
    memcpy(st, h->state, h->state_bytes);
    for (; made < h->n; made++)
        if (model_plan_make(h->full.m, dp_shard(h->full.B, h->n, made, &off[made]), &pl[made]))
            goto done;
    for (int k = 0; k < HOG_ROUNDS; k++)
        for (int w = 0; w < h->n; w++) {
            step_bufs sb = shard_bufs(h, k % h->nsets, off[w]);
            sb.params = p;
            sb.grads = h->grads;
            sb.state = st;
            sb.loss = &loss;
            sb.scratch = h->scratch; /* the full plan's: room for any shard's */
            if (model_step(&pl[w], h->ops, &h->cfg, &sb, NULL)) goto done;
        }
    rc = mean_loss(h, p, &h->loss_sync);
done:
    if (rc && !*err_get()) err_set("out of memory for the synchronous run of %s", h->b->name);
    for (int i = 0; i < made; i++) model_plan_free(&pl[i]);
    free(p);
    free(st);
    return rc;
}

static int hog_run(void *st, double *ms)
{
    hog_state *h = (hog_state *)st;
    (void)ms;
    if (!h->pool) {
        err_set("the workers were stopped by an earlier failure");
        return -1;
    }
    h->sh->first_set = h->next;
    h->next = (h->next + HOG_ROUNDS) % h->nsets;
    h->runs++;
    int rc = workers_run(h->pool);
    if (rc == 0) return 0;
    if (rc > 0) err_set("interrupted");
    workers_stop(h->pool); /* reaped already; a later run fails at once */
    h->pool = NULL;
    return -1;
}

static int hog_outputs(void *st, void **host)
{
    hog_state *h = (hog_state *)st;
    double l;
    for (int i = 0; i < TB_COUNT; i++) host[i] = h->sets[0][i];
    host[TB_PARAMS] = h->params;
    host[TB_STATE] = h->state;
    if (mean_loss(h, h->params, &l)) return -1;
    h->loss = (float)l;
    host[TB_LOSS] = &h->loss;
    return 0;
}

static void hog_check(void *st, check_result *cr, char *why, size_t whycap)
{
    hog_state *h = (hog_state *)st;
    const long want = (long)h->runs * HOG_ROUNDS;
    const double drop = h->loss0 - h->loss_sync, diff = fabs(h->loss - h->loss_sync);
    memset(cr, 0, sizeof *cr);
    cr->worst_index = -1;
    cr->max_abs_err = diff;
    cr->rel_err = diff / fabs(h->loss_sync);
    cr->tolerance = HOG_BAND * drop / fabs(h->loss_sync);
    for (int w = 0; w < h->n; w++)
        if (h->sh->count[w] != want) {
            snprintf(why, whycap, "worker %d applied %ld updates, want %ld", w, h->sh->count[w], want);
            return;
        }
    for (size_t i = 0; i < h->param_bytes / sizeof(float); i++)
        cr->nonfinite += !isfinite(h->params[i]);
    for (size_t i = 0; i < h->state_bytes / sizeof(float); i++)
        cr->nonfinite += !isfinite(h->state[i]);
    if (cr->nonfinite) {
        snprintf(why, whycap, "%ld shared parameters or optimizer state are not finite", cr->nonfinite);
        return;
    }
    if (!(drop > 0)) {
        snprintf(why, whycap, "synchronous SGD did not lower the loss (%.6g to %.6g): no band",
                 h->loss0, h->loss_sync);
        return;
    }
    cr->pass = diff <= HOG_BAND * drop;
    if (!cr->pass)
        snprintf(why, whycap, "loss %.6g after %d samples, synchronous SGD's %.6g: off by more "
                 "than %g x its drop from %.6g", h->loss, HOG_ROUNDS * h->full.B, h->loss_sync,
                 HOG_BAND, h->loss0);
}

/* scaling_eff against one worker alone (worker 0's shard and threads), timed
 * as many times as the workers were (the median), and the note. */
static int hog_finish(void *st, const measure_result *m, result_row *row)
{
    hog_state *h = (hog_state *)st;
    workers *solo = NULL;
    stats_summary one;
    int rc = -1;
    size_t u = strlen(row->note);
    snprintf(row->note + u, sizeof row->note - u, "%s%d workers x %d threads (threads / workers)",
             u ? "; " : "", h->n, h->threads);
    double *t = (double *)malloc((size_t)(m->n > 0 ? m->n : 1) * sizeof *t);
    workers_job job = {.init = hog_init, .job = hog_job, .ctx = h};
    if (!t) err_set("out of memory");
    if (!t || workers_start(&solo, 1, &job)) goto done;
    for (int k = 0; k < m->n; k++) {
        double t0 = timer_now_ms();
        if (workers_run(solo)) goto done;
        t[k] = timer_now_ms() - t0;
    }
    if (m->n > 0 && stats_summarize(t, m->n, &one) == 0 && one.median > 0) {
        int off, nb = dp_shard(h->full.B, h->n, 0, &off);
        double one_sps = (double)nb * HOG_ROUNDS / (one.median / 1e3);
        if (row->samples_per_s > 0) row->scaling_eff = row->samples_per_s / ((double)h->n * one_sps);
    }
    rc = 0;
done:
    workers_stop(solo);
    free(t);
    return rc;
}

static void hog_close(void *st)
{
    hog_state *h = (hog_state *)st;
    if (!h) return;
    workers_stop(h->pool);
    model_plan_free(&h->full);
    workers_unshare(h->sh, sizeof *h->sh);
    workers_unshare(h->params, h->param_bytes);
    workers_unshare(h->state, h->state_bytes);
    free(h->scratch);
    free(h->grads);
    free(h);
}

int train_hog_open(const backend_def *b, const dp_mode *m, const problem *p, const dp_cfg *cfg,
                   void *const *const *sets, int nsets, case_exec *ex, char *skip, size_t skipcap)
{
    (void)m;
    if (p->dim[TRAIN_DIM_B] < cfg->workers) {
        snprintf(skip, skipcap, "batch %lld has fewer samples than %d workers",
                 p->dim[TRAIN_DIM_B], cfg->workers);
        return 1;
    }
    hog_state *h = (hog_state *)calloc(1, sizeof *h);
    if (!h) {
        err_set("out of memory");
        return -1;
    }
    if (train_plan(p, &h->full)) {
        free(h);
        err_set("no plan for %s", p->desc);
        return -1;
    }
    h->b = b;
    h->ops = (const train_ops *)b->ops;
    h->cfg = train_step_cfg(b, p);
    h->sets = sets;
    h->nsets = nsets;
    h->n = cfg->workers;
    h->threads = cfg->threads / cfg->workers > 1 ? cfg->threads / cfg->workers : 1;
    h->plant_private = dp_planted(HOOK_PLANT_HOG_PRIVATE, b);
    h->param_bytes = (size_t)h->full.nparam_floats * sizeof(float);
    h->state_bytes = (size_t)model_state_floats(&h->full, h->cfg.opt) * sizeof(float);
    h->sh = (hog_shared *)workers_shared(sizeof *h->sh);
    h->params = (float *)workers_shared(h->param_bytes);
    h->state = (float *)workers_shared(h->state_bytes);
    h->scratch = (float *)malloc((size_t)h->full.scratch_floats * sizeof(float));
    h->grads = (float *)malloc(h->param_bytes);
    if (!h->sh || !h->params || !h->state || !h->scratch || !h->grads) {
        hog_close(h);
        err_set("out of memory for the shared state of %s", p->desc);
        return -1;
    }
    /* the initial state (the runner reset it), then the reference losses */
    memcpy(h->params, sets[0][TB_PARAMS], h->param_bytes);
    memcpy(h->state, sets[0][TB_STATE], h->state_bytes);
    workers_job job = {.init = hog_init, .job = hog_job, .ctx = h};
    if (mean_loss(h, h->params, &h->loss0) || sync_run(h) ||
        workers_start(&h->pool, h->n, &job)) {
        hog_close(h);
        return -1;
    }
    memset(ex, 0, sizeof *ex);
    ex->st = h;
    ex->run = hog_run;
    ex->outputs = hog_outputs;
    ex->check = hog_check;
    ex->finish = hog_finish;
    ex->close = hog_close;
    ex->per_run = HOG_ROUNDS;
    ex->elsewhere = 1;
    return 0;
}
