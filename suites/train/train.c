#define _POSIX_C_SOURCE 200809L
/* suites/train/train.c - the training-step suite, host half (train.h).
 *
 * Data. Parameters start as PyTorch initialises nn.Conv2d and nn.Linear
 * (kaiming_uniform_ with a = sqrt(5) for weights, which is U(+-1/sqrt(fan_in)),
 * and U(+-1/sqrt(fan_in)) for biases), drawn from our seeded generator. Each
 * input set is one batch with class structure: label y uniform over the
 * classes, x = 0.6 * prototype[y] + 0.4 * noise (prototypes fixed per model,
 * noise per set), both uniform in [-1, 1), so the loss falls over steps.
 *
 * Reference and check. The reference runs TRAIN_CHECK_STEPS steps of the
 * cpu-naive table (double accumulation) from the initial parameters, step s
 * on input set s, and keeps the loss, every gradient and every updated
 * parameter of each step. After step s of a backend, each of those tensors is
 * compared with the one checker (harness/check.h), with
 *     tol = check_tolerance(dtype, R) * (s + 1)
 * R being the sum of the reduction lengths of every op of the step (forward,
 * loss, backward: model_plan.longest_reduction), because a rounding error made
 * in any op flows through all the ops after it, and (s + 1) because step s
 * starts from the parameters steps 0..s-1 computed. The row fails naming the
 * first tensor that disagrees (loss, then gradients, then updated parameters).
 * Max-pool argmax: values within rounding of each other in a window may pick
 * different winners on different backends; see train_check for how a
 * gradient that only differs by such a tie is told from a wrong one.
 */
#include "train.h"
#include "check.h"
#include "conv_cpu.h"
#include "errmsg.h"
#include "npy.h"
#include "../../cpu/train_cpu.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SEED_PARAMS 0x7a11c0deULL
#define SEED_PROTO 0x5eed0001ULL
#define SEED_BATCH 0xba7c4000ULL

/* ---- problems ------------------------------------------------------------- */

int train_plan(const problem *p, model_plan *pl)
{
    return model_plan_make(&MODELS[p->dim[TRAIN_DIM_MODEL]], (int)p->dim[TRAIN_DIM_B], pl);
}

step_cfg train_step_cfg(const backend_def *b, const problem *p)
{
    /* Test hook: BENCH_PLANT_SKIP_BIAS=<backend> drops that backend's update
     * of the last bias (a planted fault the check must catch). */
    const char *plant = getenv("BENCH_PLANT_SKIP_BIAS");
    step_cfg c = {TRAIN_LR, p->dim[TRAIN_DIM_MOM] ? TRAIN_MOMENTUM : 0.0f, 0};
    c.skip_bias_update = b && plant && strcmp(plant, b->name) == 0;
    return c;
}

static void set_problem(problem *p, int model, long B, int mom)
{
    model_plan pl;
    memset(p, 0, sizeof *p);
    p->dim[TRAIN_DIM_MODEL] = model;
    p->dim[TRAIN_DIM_B] = B;
    p->dim[TRAIN_DIM_MOM] = mom;
    snprintf(p->desc, sizeof p->desc, "%s-b%ld%s", MODELS[model].name, B, mom ? "-mom" : "");
    /* the case is the model (as a conv case is its layer): its rows at every
     * batch share it, so the report draws one line per model and backend over
     * the batch sizes; the shape column (desc) names the problem */
    snprintf(p->name, sizeof p->name, "%s%s", MODELS[model].name, mom ? "-mom" : "");
    train_plan(p, &pl);
    p->flops = pl.flops;
    p->items = (double)B;
}

static int train_parse(const char *s, problem *p, char *err, size_t errcap)
{
    int model = -1;
    size_t best = 0;
    for (int i = 0; MODELS[i].name; i++) { /* the longest name that prefixes s: mlp-small */
        size_t n = strlen(MODELS[i].name);
        if (strncmp(s, MODELS[i].name, n) == 0 && strncmp(s + n, "-b", 2) == 0 && n > best) {
            model = i;
            best = n;
        }
    }
    if (model < 0) return -1;
    const char *q = s + best + 2;
    char *end;
    if (!isdigit((unsigned char)*q)) { /* a sign, a space: named, with the range */
        snprintf(err, errcap, "bench: train problem '%s': the batch after -b must be a number from "
                 "1 to %d (got '%.24s')", s, TRAIN_MAX_BATCH, q);
        return 2;
    }
    errno = 0;
    long B = strtol(q, &end, 10);
    if (errno || B < 1 || B > TRAIN_MAX_BATCH) {
        snprintf(err, errcap, "bench: train problem '%s': batch %.*s out of range 1..%d", s,
                 (int)(end - q < 24 ? end - q : 24), q, TRAIN_MAX_BATCH);
        return 2;
    }
    int mom = 0;
    if (strcmp(end, "-mom") == 0) mom = 1;
    else if (*end) {
        snprintf(err, errcap, "bench: train problem '%s': unexpected '%s' (form: %s)", s, end,
                 "<model>-b<batch>[-mom]");
        return 2;
    }
    set_problem(p, model, B, mom);
    return 0;
}

static int train_defaults(int quick, int big, problem *out, int cap)
{
    static const int DEFAULT_B[] = {64, 256}, BIG_B[] = {16, 64, 256, 1024}, QUICK_B[] = {16};
    const int *bs = quick ? QUICK_B : big ? BIG_B : DEFAULT_B;
    int nb = quick ? 1 : big ? 4 : 2, n = 0;
    for (int m = 0; MODELS[m].name; m++)
        for (int i = 0; i < nb && n < cap; i++) set_problem(&out[n++], m, bs[i], 0);
    return n;
}

/* ---- buffers and data ----------------------------------------------------- */

static void train_layout(const problem *p, case_layout *l)
{
    model_plan pl;
    train_plan(p, &pl);
    size_t np = (size_t)pl.nparam_floats * sizeof(float);
    int g = layout_add(l, "grads", ROLE_OUT, SPLIT_WHOLE, np);
    l->buf[g].keep = 1;
    l->trace = 1 + layout_add(l, "loss", ROLE_OUT, SPLIT_WHOLE, sizeof(float));
    layout_add(l, "x", ROLE_IN, SPLIT_WHOLE, (size_t)pl.in_floats * sizeof(float));
    layout_add(l, "labels", ROLE_IN, SPLIT_WHOLE, (size_t)pl.B * sizeof(int));
    layout_add(l, "params", ROLE_INOUT, SPLIT_WHOLE, np);
    layout_add(l, "momentum", ROLE_INOUT, SPLIT_WHOLE, p->dim[TRAIN_DIM_MOM] ? np : 0);
    /* activations: read by the check (ReLU and max-pool decisions) */
    int a = layout_add(l, "activations", ROLE_OUT, SPLIT_WHOLE,
                       (size_t)pl.scratch_floats * sizeof(float));
    l->buf[a].keep = 1;
    l->stateful = 1;
    l->streams = STREAMS_PIPELINE;
    l->max_chunks = 1;
    l->sets = TRAIN_CHECK_STEPS + 1;
    /* per step: loss, grads, params in double */
    l->ref_bytes = TRAIN_CHECK_STEPS * (8.0 + 24.0 * (double)pl.nparam_floats);
}

/* The initial parameters, as PyTorch draws them (see the top of the file). */
static void init_params(const model_plan *pl, float *params)
{
    for (int i = 0; i < pl->nparams; i++) {
        const model_param *q = &pl->param[i];
        /* fan_in: every dim of the weight but the first (conv C*R*S, linear in);
         * a bias takes its weight's */
        const model_param *w = (i % 2) ? &pl->param[i - 1] : q;
        long long fan_in = w->n / w->shape[0];
        float bound = (float)(1.0 / sqrt((double)fan_in));
        rng_fill_uniform(params + q->off, (size_t)q->n, SEED_PARAMS + (unsigned long long)i);
        for (long long k = 0; k < q->n; k++) params[q->off + k] *= bound;
    }
}

/* Batch `set`: labels and class-structured inputs. */
static void fill_batch(const model_plan *pl, int set, float *x, int *labels)
{
    const model_def *m = pl->m;
    long long per = (long long)m->C * m->H * m->W;
    float *proto = (float *)malloc((size_t)per * sizeof(float));
    float *u = (float *)malloc((size_t)pl->B * sizeof(float));
    if (!proto || !u) { /* fill cannot fail: fall back to noise alone */
        free(proto);
        free(u);
        rng_fill_uniform(x, (size_t)pl->in_floats, SEED_BATCH + (unsigned long long)set);
        for (int n = 0; n < pl->B; n++) labels[n] = (n * 7 + set) % m->classes;
        return;
    }
    rng_fill_uniform(u, (size_t)pl->B, SEED_BATCH * 3 + (unsigned long long)set);
    for (int n = 0; n < pl->B; n++) {
        int y = (int)((u[n] + 1.0f) * 0.5f * (float)m->classes);
        labels[n] = y < 0 ? 0 : y >= m->classes ? m->classes - 1 : y;
    }
    rng_fill_uniform(x, (size_t)pl->in_floats, SEED_BATCH + (unsigned long long)set);
    for (int c = 0; c < m->classes; c++) {
        rng_fill_uniform(proto, (size_t)per, SEED_PROTO + (unsigned long long)c);
        for (int n = 0; n < pl->B; n++)
            if (labels[n] == c)
                for (long long k = 0; k < per; k++)
                    x[n * per + k] = 0.6f * proto[k] + 0.4f * x[n * per + k];
    }
    free(proto);
    free(u);
}

static void train_fill(const problem *p, int set, void *const *host)
{
    model_plan pl;
    train_plan(p, &pl);
    fill_batch(&pl, set, (float *)host[TB_X], (int *)host[TB_LABELS]);
    init_params(&pl, (float *)host[TB_PARAMS]);
    if (p->dim[TRAIN_DIM_MOM])
        memset(host[TB_MOM], 0, (size_t)pl.nparam_floats * sizeof(float));
}

/* ---- the reference -------------------------------------------------------- */

typedef struct train_ref {
    int steps;
    double loss[TRAIN_CHECK_STEPS];
    double *grads[TRAIN_CHECK_STEPS], *params[TRAIN_CHECK_STEPS];
    /* the state each step starts from, for replays (train_check) */
    float *pre_params[TRAIN_CHECK_STEPS], *pre_mom[TRAIN_CHECK_STEPS];
} train_ref;

static void train_ref_free(void *r)
{
    train_ref *ref = (train_ref *)r;
    if (!ref) return;
    for (int s = 0; s < TRAIN_CHECK_STEPS; s++) {
        free(ref->grads[s]);
        free(ref->params[s]);
        free(ref->pre_params[s]);
        free(ref->pre_mom[s]);
    }
    free(ref);
}

static float *copy_floats(const float *x, size_t n)
{
    float *c = (float *)malloc((n ? n : 1) * sizeof(float));
    if (c) memcpy(c, x, n * sizeof(float));
    return c;
}

static double *to_double(const float *x, long long n)
{
    double *d = (double *)malloc((size_t)(n ? n : 1) * sizeof(double));
    if (d)
        for (long long i = 0; i < n; i++) d[i] = x[i];
    return d;
}

/* A step's state on the host, for the reference and its replays: parameters
 * and momentum (copied from params0 / mom0, zero when NULL), gradients, one
 * batch, the scratch area, the loss, and the step_bufs over them. */
typedef struct host_step {
    float *params, *grads, *mom, *x, *scratch, loss;
    int *labels;
    step_bufs b;
} host_step;

static void host_step_free(host_step *h)
{
    free(h->params);
    free(h->grads);
    free(h->mom);
    free(h->x);
    free(h->labels);
    free(h->scratch);
}

/* 0, or -1 out of memory (h freed). */
static int host_step_alloc(const model_plan *pl, const float *params0, const float *mom0,
                           host_step *h)
{
    size_t np = (size_t)pl->nparam_floats;
    memset(h, 0, sizeof *h);
    h->params = (float *)malloc((np ? np : 1) * sizeof(float));
    h->grads = (float *)malloc((np ? np : 1) * sizeof(float));
    h->mom = (float *)calloc(np ? np : 1, sizeof(float));
    h->x = (float *)malloc((size_t)pl->in_floats * sizeof(float));
    h->labels = (int *)malloc((size_t)pl->B * sizeof(int));
    h->scratch = (float *)malloc((size_t)(pl->scratch_floats ? pl->scratch_floats : 1) * 4);
    if (!h->params || !h->grads || !h->mom || !h->x || !h->labels || !h->scratch) {
        host_step_free(h);
        return -1;
    }
    memcpy(h->params, params0, np * sizeof(float));
    if (mom0) memcpy(h->mom, mom0, np * sizeof(float));
    step_bufs b = {h->x, h->labels, h->params, h->grads, h->mom, &h->loss, h->scratch, NULL};
    h->b = b;
    return 0;
}

/* cpu-naive's steps 0..TRAIN_CHECK_STEPS-1 from the initial parameters. */
static void *train_ref_build(const problem *p, void *const *host)
{
    model_plan pl;
    train_plan(p, &pl);
    size_t np = (size_t)pl.nparam_floats;
    train_ref *ref = (train_ref *)calloc(1, sizeof *ref);
    host_step h;
    step_cfg cfg = train_step_cfg(NULL, p);
    if (!ref || host_step_alloc(&pl, (const float *)host[TB_PARAMS], NULL, &h)) {
        free(ref);
        return NULL;
    }
    int ok = 1;
    for (int s = 0; ok && s < TRAIN_CHECK_STEPS; s++) {
        fill_batch(&pl, s, h.x, h.labels);
        ref->pre_params[s] = copy_floats(h.params, np);
        ref->pre_mom[s] = copy_floats(h.mom, np);
        ok = ref->pre_params[s] && ref->pre_mom[s] &&
             model_step(&pl, &TRAIN_OPS_CPU_NAIVE, &cfg, &h.b, NULL) == 0;
        if (!ok) break;
        ref->loss[s] = h.loss;
        ref->grads[s] = to_double(h.grads, (long long)np);
        ref->params[s] = to_double(h.params, (long long)np);
        ok = ref->grads[s] && ref->params[s];
        ref->steps = s + 1;
    }
    host_step_free(&h);
    if (!ok) {
        train_ref_free(ref);
        return NULL;
    }
    return ref;
}

/* ---- the check ------------------------------------------------------------ */

/* Keeps the comparison closest to (or furthest past) its tolerance. */
static void keep_worst(check_result *worst, const check_result *c)
{
    if (worst->tolerance < 0 || check_closeness(c) > check_closeness(worst)) *worst = *c;
}

/* Compares every gradient, then every updated parameter, with want (each
 * laid out as the parameter buffer); the first tensor that disagrees is named
 * in why. Keeps the closest call in *worst. 1 when all pass. */
static int compare_params(const model_plan *pl, void *const *host, const double *grads,
                          const double *params, double tol, check_result *worst, char *why,
                          size_t whycap)
{
    for (int what = 0; what < 2; what++)
        for (int i = 0; i < pl->nparams; i++) {
            const model_param *q = &pl->param[i];
            const float *got = (const float *)host[what ? TB_PARAMS : TB_GRADS] + q->off;
            const double *want = (what ? params : grads) + q->off;
            check_result c = check_compare(got, want, (size_t)q->n, tol);
            if (!c.pass) {
                snprintf(why, whycap, "%s %s: rel %.3g max %.3g at [%ld]%s (tol %.3g)",
                         what ? "updated" : "grad", q->name, c.rel_err, c.max_abs_err,
                         c.worst_index, c.nonfinite ? ", NaN/Inf" : "", tol);
                *worst = c;
                return 0;
            }
            keep_worst(worst, &c);
        }
    return 1;
}

/* Step s again on the host from the reference's state, deciding ReLU and
 * max-pool near-ties as the backend did (model_replay), then compares. 1
 * when the backend agrees with that replay. */
static int check_replay(const problem *p, const model_plan *pl, const train_ref *ref, int step,
                        void *const *host, double tol, check_result *worst, char *why,
                        size_t whycap)
{
    size_t np = (size_t)pl->nparam_floats;
    step_cfg cfg = train_step_cfg(NULL, p);
    host_step h;
    double *gd = NULL, *pd = NULL;
    int flips = 0, ok = 0;
    if (host_step_alloc(pl, ref->pre_params[step], ref->pre_mom[step], &h)) {
        snprintf(why, whycap, "out of memory replaying step %d", step + 1);
        return 0;
    }
    fill_batch(pl, step, h.x, h.labels);
    if (model_replay(pl, &TRAIN_OPS_CPU_NAIVE, &cfg, &h.b, (const float *)host[TB_SCRATCH], tol,
                     &flips)) {
        snprintf(why, whycap, "%s", err_get());
        goto out;
    }
    gd = to_double(h.grads, (long long)np);
    pd = to_double(h.params, (long long)np);
    if (!gd || !pd) {
        snprintf(why, whycap, "out of memory replaying step %d", step + 1);
        goto out;
    }
    ok = compare_params(pl, host, gd, pd, tol, worst, why, whycap);
    if (ok && flips)
        case_note_set("step %d: %d ReLU/max-pool near-ties decided otherwise than cpu-naive; "
                      "checked against cpu-naive deciding them alike", step + 1, flips);
    else if (!ok && flips) {
        size_t u = strlen(why);
        snprintf(why + u, whycap - u, " (after %d near-ties replayed)", flips);
    }
out:
    host_step_free(&h);
    free(gd);
    free(pd);
    return ok;
}

static check_result train_check(const problem *p, const void *r, int step, dtype_t dt,
                                void *const *host, char *why, size_t whycap)
{
    const train_ref *ref = (const train_ref *)r;
    model_plan pl;
    check_result worst = {0, 0, -1, 0, -1, 1}, c;
    train_plan(p, &pl);
    double tol = check_tolerance(dt, pl.longest_reduction) * (step + 1);
    if (step >= ref->steps) {
        snprintf(why, whycap, "no reference for step %d", step + 1);
        worst.pass = 0;
        return worst;
    }
    c = check_compare((const float *)host[TB_LOSS], &ref->loss[step], 1, tol);
    if (!c.pass) {
        snprintf(why, whycap, "loss %.7g, cpu-naive %.7g (rel %.3g > tol %.3g)",
                 *(const float *)host[TB_LOSS], ref->loss[step], c.rel_err, tol);
        return c;
    }
    keep_worst(&worst, &c);
    /* a ReLU or max-pool near-tie broken the other way moves gradients far
     * more than rounding: then the backend must agree with the reference
     * breaking those ties (and only those) as it did */
    check_result strict = worst;
    if (compare_params(&pl, host, ref->grads[step], ref->params[step], tol, &strict, why, whycap))
        return strict;
    if (check_replay(p, &pl, ref, step, host, tol, &worst, why, whycap)) {
        worst.pass = 1;
        return worst;
    }
    worst.pass = 0;
    if (worst.tolerance < 0) worst.tolerance = tol;
    return worst;
}

/* ---- CPU backends --------------------------------------------------------- */

static int train_cpu_run(const backend_def *b, const problem *p, void *const *host)
{
    model_plan pl;
    const train_ops *ops = (const train_ops *)b->ops;
    step_cfg cfg = train_step_cfg(b, p);
    if (!ops) {
        err_set("%s has no training ops in this build", b->name);
        return -1;
    }
    train_plan(p, &pl);
    step_bufs sb = {(const float *)host[TB_X], (const int *)host[TB_LABELS],
                    (float *)host[TB_PARAMS], (float *)host[TB_GRADS], (float *)host[TB_MOM],
                    (float *)host[TB_LOSS], (float *)host[TB_SCRATCH], NULL};
    return model_step(&pl, ops, &cfg, &sb, NULL);
}

/* ---- --dump --------------------------------------------------------------- */

static int write_text(const char *dir, const char *name, const char *text)
{
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wx");
    if (!f) {
        err_set("cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    errno = 0;
    int bad = fputs(text, f) < 0;
    int e = errno;
    if (fclose(f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (!bad && rename(tmp, path) != 0) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        err_set("cannot write %s: %s", path, strerror(e ? e : EIO));
        unlink(tmp);
        return -1;
    }
    return 0;
}

static int dump_tensors(const model_plan *pl, const char *dir, const char *sub, const float *all)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, sub);
    if (mkdir(path, 0755) != 0) {
        err_set("cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    for (int i = 0; i < pl->nparams; i++) {
        const model_param *q = &pl->param[i];
        long long shape[4];
        for (int k = 0; k < q->ndim; k++) shape[k] = q->shape[k];
        snprintf(path, sizeof path, "%s/%s/%s.npy", dir, sub, q->name);
        if (npy_write(path, "<f4", q->ndim, shape, all + q->off, (size_t)q->n * sizeof(float)))
            return -1;
    }
    return 0;
}

static int train_dump(const problem *p, void *const *in, void *const *out, const char *dir)
{
    model_plan pl;
    char path[4200], text[64];
    train_plan(p, &pl);
    const model_def *m = pl.m;
    long long xshape[4] = {pl.B, m->C, m->H, m->W}, lshape[1] = {pl.B};
    int xdims = m->H == 1 && m->W == 1 ? 2 : 4;   /* an MLP's input is [B][features] */
    long long *lab = (long long *)malloc((size_t)pl.B * sizeof(long long));
    int rc = -1;
    if (!lab) {
        err_set("out of memory for labels");
        return -1;
    }
    for (int n = 0; n < pl.B; n++) lab[n] = ((const int *)in[TB_LABELS])[n];
    snprintf(text, sizeof text, "%s\n", m->name);
    if (write_text(dir, "model.txt", text)) goto out;
    snprintf(text, sizeof text, "%.9g\n", (double)TRAIN_LR);
    if (write_text(dir, "lr.txt", text)) goto out;
    snprintf(path, sizeof path, "%s/input.npy", dir);
    if (npy_write(path, "<f4", xdims, xshape, in[TB_X], (size_t)pl.in_floats * sizeof(float)))
        goto out;
    snprintf(path, sizeof path, "%s/labels.npy", dir);
    if (npy_write(path, "<i8", 1, lshape, lab, (size_t)pl.B * sizeof(long long))) goto out;
    snprintf(path, sizeof path, "%s/loss.npy", dir);
    if (npy_write(path, "<f4", 0, NULL, out[TB_LOSS], sizeof(float))) goto out;
    if (dump_tensors(&pl, dir, "param", (const float *)in[TB_PARAMS]) ||
        dump_tensors(&pl, dir, "grad", (const float *)out[TB_GRADS]) ||
        dump_tensors(&pl, dir, "updated", (const float *)out[TB_PARAMS]))
        goto out;
    rc = 0;
out:
    free(lab);
    return rc;
}

const suite_def SUITE_TRAIN = {
    "train",
    "one training step (forward, loss, backward, SGD) of a CNN and two MLPs, step by step checked",
    "train",
    "cpu-blas",
    "<model>-b<batch>[-mom]: cnn, mlp or mlp-small; batch 1..4096 (cnn-b64, mlp-b256-mom)",
    train_parse,
    train_defaults,
    train_layout,
    train_fill,
    train_ref_build,
    train_ref_free,
    train_check,
    train_cpu_run,
    NULL,                    /* no CHUNK buffers: a step is never split */
    4e8,                     /* emulated default sweeps: the batch-16 and -64 steps */
    NULL,                    /* the GPU execution modes */
    NULL,                    /* one problem per --sizes entry */
    TRAIN_CHECK_STEPS,       /* a step suite */
    train_dump,
};
