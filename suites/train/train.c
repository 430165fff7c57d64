#define _POSIX_C_SOURCE 200809L
/* suites/train/train.c - the training-step suite, host half (train.h).
 *
 * Data. Parameters start as PyTorch initialises each module (model.h's init
 * kinds: nn.Conv2d and nn.Linear U(+-1/sqrt(fan_in)) for weight and bias,
 * nn.LSTM U(+-1/sqrt(hidden)), nn.Embedding N(0, 1), nn.LayerNorm ones and
 * zeros), drawn from our seeded generator. The chain models' input sets are
 * one batch each with class structure: label y uniform over the classes,
 * x = 0.6 * prototype[y] + 0.4 * noise (prototypes fixed per model, noise
 * per set), both uniform in [-1, 1). The sequence models read symbol
 * sequences of a fixed random Markov chain (each symbol has four likely
 * successors): the input is the symbol (one-hot for rnn and lstm, a token id
 * for gpt), the target the next one. Either way the loss falls over steps.
 *
 * Reference and check. The reference runs TRAIN_CHECK_STEPS steps of the
 * cpu-naive table (double accumulation) from the initial parameters, step s
 * on input set s, and keeps the loss, every gradient and every updated
 * parameter of each step. After step s of a backend, each of those tensors is
 * compared with the one checker (harness/check.h), with
 *     tol = check_tolerance(dtype, R) * (s + 1)
 * R being the length of the step's longest chain of reductions (forward,
 * loss, backward, through every time step of a recurrence:
 * model_plan.longest_reduction), because a rounding error made in any op
 * flows through all the ops after it, and (s + 1) because step s starts from
 * the parameters steps 0..s-1 computed. The row fails naming the first
 * tensor that disagrees (loss, then gradients, then updated parameters).
 * AdamW's update is checked against the reference optimizer applied to the
 * backend's own gradients, parameters and moments: its first steps turn a
 * gradient of pure rounding noise (attention's key bias has a true gradient
 * of 0) into a full-size update lr * sign(g), so the reference's own update
 * is no yardstick for it. The gradients are checked against the reference's.
 * Max-pool argmax: values within rounding of each other in a window may pick
 * different winners on different backends; see train_check for how a
 * gradient that only differs by such a tie is told from a wrong one.
 */
#include "test_hooks.h"
#include "train.h"
#include "check.h"
#include "conv_cpu.h"
#include "errmsg.h"
#include "train_impl.h"
#include "model_amp.h"
#include "npy.h"
#include "../../ops/loss_scale.h"
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
#define SEED_CHAIN 0xc4a1a000ULL

/* ---- problems ------------------------------------------------------------- */

static const char *const OPT_SUFFIX[] = {"", "-mom", "-adamw"};

int train_plan(const problem *p, model_plan *pl)
{
    if (model_plan_make(&MODELS[p->dim[TRAIN_DIM_MODEL]], (int)p->dim[TRAIN_DIM_B], pl)) return -1;
    if (dtype_autocast(p->dtype) != DTYPE_FP32 && model_plan_amp(pl)) {
        model_plan_free(pl);
        return -1;
    }
    pl->loss_scaled = dtype_info_of(p->dtype)->loss_scale;   /* amp-fp16 */
    return 0;
}

/* BENCH_PLANT_AMP=<backend>:<op> for backend b: AMP_RULES' index of op + 1;
 * 0 when the hook is unset or names another backend. */
static int amp_plant(const backend_def *b)
{
    const char *v = getenv(HOOK_PLANT_AMP), *colon = v ? strchr(v, ':') : NULL;
    if (!b || !colon || strncmp(v, b->name, (size_t)(colon - v)) != 0 ||
        b->name[colon - v] != '\0')
        return 0;
    return amp_rule_find(colon + 1) + 1;
}

step_cfg train_step_cfg(const backend_def *b, const problem *p)
{
    /* Test hook: BENCH_PLANT_SKIP_BIAS=<backend> drops that backend's update
     * of the last parameter tensor (a planted fault the check must catch). */
    const char *plant = getenv(HOOK_PLANT_SKIP_BIAS);
    const opt_kind o = (opt_kind)p->dim[TRAIN_DIM_OPT];
    step_cfg c = {.opt = o,
                  .lr = o == OPT_ADAMW ? TRAIN_ADAMW_LR : TRAIN_LR,
                  .momentum = o == OPT_MOMENTUM ? TRAIN_MOMENTUM : 0.0f,
                  .beta1 = 0.9f,
                  .beta2 = 0.999f,
                  .eps = 1e-8f,
                  .weight_decay = 0.01f};
    c.skip_bias_update = b && plant && strcmp(plant, b->name) == 0;
    c.amp = dtype_autocast(p->dtype) != DTYPE_FP32 ? p->dtype : DTYPE_FP32;
    c.amp_flip = amp_plant(b);
    /* BENCH_PLANT_OVERFLOW=STEP: every backend and the reference meet an inf
     * gradient at the scaler's step STEP; BENCH_PLANT_NO_SKIP=<backend>: that
     * backend applies the update of such a step */
    const char *ov = getenv(HOOK_PLANT_OVERFLOW), *noskip = getenv(HOOK_PLANT_NO_SKIP);
    c.ls_plant = ov ? atoi(ov) : 0;
    c.ls_no_skip = b && noskip && strcmp(noskip, b->name) == 0;
    return c;
}

int train_dp_dtype_skip(const problem *p, const dp_mode *m, char *skip, size_t skipcap)
{
    if (dtype_autocast(p->dtype) == DTYPE_FP32) return 0;
    snprintf(skip, skipcap, "%s: mode %s runs fp32 steps only (its replicas do not run under "
             "autocast yet)", dtype_name(p->dtype), m->name);
    return 1;
}

static void set_problem(problem *p, int model, long B, int opt)
{
    model_plan pl;
    memset(p, 0, sizeof *p);
    p->dim[TRAIN_DIM_MODEL] = model;
    p->dim[TRAIN_DIM_B] = B;
    p->dim[TRAIN_DIM_OPT] = opt;
    snprintf(p->desc, sizeof p->desc, "%s-b%ld%s", MODELS[model].name, B, OPT_SUFFIX[opt]);
    /* the case is the model (as a conv case is its layer): its rows at every
     * batch share it, so the report draws one line per model and backend over
     * the batch sizes; the shape column (desc) names the problem */
    snprintf(p->name, sizeof p->name, "%s%s", MODELS[model].name, OPT_SUFFIX[opt]);
    if (train_plan(p, &pl) == 0) {
        /* the plan counts SGD's 2 FLOPs per parameter; AdamW's ~12 */
        p->flops = pl.flops + (opt == OPT_ADAMW ? 10.0 * (double)pl.nparam_floats : 0.0);
        /* compulsory traffic, approximated: the parameters read and written,
         * the gradients written and read, the optimizer state read and
         * written, the batch (inputs and labels) read once; activations are
         * the step's own intermediates and not counted */
        p->io_elems = 4.0 * (double)pl.nparam_floats +
                      2.0 * (double)model_state_floats(&pl, (opt_kind)opt) +
                      (double)pl.in_slots + (double)pl.nlabels;
        model_plan_free(&pl);
    }
    p->items = (double)B;
    /* per model (and optimizer), x = batch */
    snprintf(p->sweep, sizeof p->sweep, "%s", p->name);
    p->sweep_x = (double)B;
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
    int opt = -1;
    for (int o = 0; o < (int)(sizeof OPT_SUFFIX / sizeof OPT_SUFFIX[0]); o++)
        if (strcmp(end, OPT_SUFFIX[o]) == 0) opt = o;
    if (opt < 0) {
        snprintf(err, errcap, "bench: train problem '%s': unexpected '%.32s' (form: %s)", s, end,
                 "<model>-b<batch>[-mom|-adamw]");
        return 2;
    }
    set_problem(p, model, B, opt);
    return 0;
}

/* Default batches: the chain models' sweep, the sequence models' named
 * problems (rnn-b32, lstm-b32, gpt-b8, the last also with AdamW); --quick
 * keeps each model once, small. */
static int train_defaults(int quick, int big, problem *out, int cap)
{
    static const int DEFAULT_B[] = {64, 256}, BIG_B[] = {16, 64, 256, 1024}, QUICK_B[] = {16};
    int n = 0;
    for (int m = 0; MODELS[m].name; m++) {
        const model_def *d = &MODELS[m];
        if (d->kind == MODEL_CHAIN) {
            const int *bs = quick ? QUICK_B : big ? BIG_B : DEFAULT_B;
            int nb = quick ? 1 : big ? 4 : 2;
            for (int i = 0; i < nb && n < cap; i++) set_problem(&out[n++], m, bs[i], OPT_SGD);
            continue;
        }
        const int named = d->kind == MODEL_GPT ? 8 : 32;
        const int small = d->kind == MODEL_RNN ? 8 : d->kind == MODEL_LSTM ? 2 : 2;
        const int B = quick ? small : named;
        if (n < cap) set_problem(&out[n++], m, B, d->kind == MODEL_GPT && quick ? OPT_ADAMW : OPT_SGD);
        if (!quick && d->kind == MODEL_GPT && n < cap) set_problem(&out[n++], m, B, OPT_ADAMW);
        if (big && n < cap) set_problem(&out[n++], m, 4 * B, OPT_SGD);
    }
    return n;
}

/* ---- buffers and data ----------------------------------------------------- */

static void train_layout(const problem *p, case_layout *l)
{
    model_plan pl;
    if (train_plan(p, &pl)) return;
    size_t np = (size_t)pl.nparam_floats * sizeof(float);
    long long st = model_state_floats(&pl, (opt_kind)p->dim[TRAIN_DIM_OPT]);
    int g = layout_add(l, "grads", ROLE_OUT, SPLIT_WHOLE, np);
    l->buf[g].keep = 1;
    l->trace = 1 + layout_add(l, "loss", ROLE_OUT, SPLIT_WHOLE, sizeof(float));
    layout_add(l, "x", ROLE_IN, SPLIT_WHOLE, (size_t)pl.in_slots * 4);
    layout_add(l, "labels", ROLE_IN, SPLIT_WHOLE, (size_t)pl.nlabels * sizeof(int));
    layout_add(l, "params", ROLE_INOUT, SPLIT_WHOLE, np);
    layout_add(l, "opt_state", ROLE_INOUT, SPLIT_WHOLE, (size_t)st * sizeof(float));
    /* activations: read by the check (ReLU and max-pool decisions) */
    int a = layout_add(l, "activations", ROLE_OUT, SPLIT_WHOLE,
                       (size_t)pl.scratch_floats * sizeof(float));
    l->buf[a].keep = 1;
    l->stateful = 1;
    l->streams = STREAMS_PIPELINE;
    l->max_chunks = 1;
    l->sets = TRAIN_CHECK_STEPS + 1;
    /* per step: loss, grads, params in double; the state each step starts from */
    l->ref_bytes = TRAIN_CHECK_STEPS * (8.0 + 20.0 * (double)pl.nparam_floats + 4.0 * (double)st) +
                   8.0 * (double)pl.nparam_floats + 4.0 * (double)st;
    model_plan_free(&pl);
}

/* One standard normal per element (Box-Muller on our uniform generator). */
static void fill_normal(float *x, long long n, unsigned long long seed)
{
    float u[2];
    for (long long i = 0; i < n; i++) {
        rng_fill_uniform(u, 2, seed * 0x9e3779b97f4a7c15ULL + (unsigned long long)i);
        double u1 = 1.0 - 0.5 * (u[0] + 1.0), u2 = 0.5 * (u[1] + 1.0);   /* (0, 1], [0, 1) */
        x[i] = (float)(sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
    }
}

/* The initial parameters, as PyTorch draws them (see the top of the file). */
static void init_params(const model_plan *pl, float *params)
{
    for (int i = 0; i < pl->nparams; i++) {
        const model_param *q = &pl->param[i];
        float *p = params + q->off;
        switch (q->init) {
        case INIT_UNIFORM:
            rng_fill_uniform(p, (size_t)q->n, SEED_PARAMS + (unsigned long long)i);
            for (long long k = 0; k < q->n; k++) p[k] *= (float)q->bound;
            break;
        case INIT_NORMAL: fill_normal(p, q->n, SEED_PARAMS + (unsigned long long)i); break;
        case INIT_ONES:
            for (long long k = 0; k < q->n; k++) p[k] = 1.0f;
            break;
        case INIT_ZEROS: memset(p, 0, (size_t)q->n * sizeof(float)); break;
        }
    }
}

/* Chain models: batch `set`, labels and class-structured inputs. */
static void fill_classes(const model_plan *pl, int set, float *x, int *labels)
{
    const model_def *m = pl->m;
    long long per = (long long)m->C * m->H * m->W;
    float *proto = (float *)malloc((size_t)per * sizeof(float));
    float *u = (float *)malloc((size_t)pl->B * sizeof(float));
    if (!proto || !u) { /* fill cannot fail: fall back to noise alone */
        free(proto);
        free(u);
        rng_fill_uniform(x, (size_t)pl->in_slots, SEED_BATCH + (unsigned long long)set);
        for (int n = 0; n < pl->B; n++) labels[n] = (n * 7 + set) % m->classes;
        return;
    }
    rng_fill_uniform(u, (size_t)pl->B, SEED_BATCH * 3 + (unsigned long long)set);
    for (int n = 0; n < pl->B; n++) {
        int y = (int)((u[n] + 1.0f) * 0.5f * (float)m->classes);
        labels[n] = y < 0 ? 0 : y >= m->classes ? m->classes - 1 : y;
    }
    rng_fill_uniform(x, (size_t)pl->in_slots, SEED_BATCH + (unsigned long long)set);
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

/* A uniform draw in [0, 1) from (seed, i). */
static double uniform01(unsigned long long seed, unsigned long long i)
{
    float u;
    rng_fill_uniform(&u, 1, seed * 0x9e3779b97f4a7c15ULL + i);
    return 0.5 * ((double)u + 1.0);
}

/* Sequence models: B sequences of T + 1 symbols of the model's Markov chain
 * (symbol a is followed by one of four successors fixed per model, with
 * probabilities .55 .25 .12 .08; the first symbol uniform); the input is
 * symbols 0..T-1 (one-hot floats, or ids), the labels symbols 1..T. */
static void fill_sequences(const model_plan *pl, int set, void *x, int *labels)
{
    const model_def *m = pl->m;
    const int V = m->classes, T = m->seq;
    static const double CUM[4] = {0.55, 0.80, 0.92, 1.0};
    if (!pl->x_ids) memset(x, 0, (size_t)pl->in_slots * sizeof(float));
    for (int b = 0; b < pl->B; b++) {
        unsigned long long row = ((unsigned long long)set << 32) | (unsigned)b;
        int a = (int)(uniform01(SEED_BATCH, row) * V) % V;
        for (int t = 0; t <= T; t++) {
            if (t) {
                double u = uniform01(SEED_BATCH + 1 + (unsigned long long)t, row);
                int k = 0;
                while (k < 3 && u >= CUM[k]) k++;
                /* successor k of a: fixed per (a, k) */
                a = (int)(uniform01(SEED_CHAIN, (unsigned long long)a * 4 + (unsigned)k) * V) % V;
                labels[(long)b * T + t - 1] = a;
            }
            if (t == T) break;
            if (pl->x_ids) ((int *)x)[(long)b * T + t] = a;
            else ((float *)x)[((long)b * T + t) * m->input + a] = 1.0f;
        }
    }
}

void train_fill_batch(const model_plan *pl, int set, void *x, int *labels)
{
    if (pl->m->kind == MODEL_CHAIN) fill_classes(pl, set, (float *)x, labels);
    else fill_sequences(pl, set, x, labels);
}

static void train_fill(const problem *p, int set, void *const *host)
{
    model_plan pl;
    if (train_plan(p, &pl)) return;
    train_fill_batch(&pl, set, host[TB_X], (int *)host[TB_LABELS]);
    init_params(&pl, (float *)host[TB_PARAMS]);
    model_state_init(&pl, (opt_kind)p->dim[TRAIN_DIM_OPT], (float *)host[TB_STATE]);
    model_plan_free(&pl);
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
    if (train_plan(p, &pl)) {
        err_set("no plan for %s", p->desc);
        return -1;
    }
    step_bufs sb = {host[TB_X], (const int *)host[TB_LABELS], (float *)host[TB_PARAMS],
                    (float *)host[TB_GRADS], (float *)host[TB_STATE], (float *)host[TB_LOSS],
                    (float *)host[TB_SCRATCH], NULL, NULL, NULL, 0};
    int rc = model_step(&pl, ops, &cfg, &sb, NULL);
    model_plan_free(&pl);
    case_note_clear(); /* a conv route's note speaks of one layer, not of the step */
    return rc;
}

/* suite_steps.scaler: amp-fp16's loss scale and skipped steps after the
 * step host holds (its optimizer state ends with the scaler's). */
static int train_scaler(const problem *p, void *const *host, double *scale, double *skipped)
{
    model_plan pl;
    if (!dtype_info_of(p->dtype)->loss_scale || train_plan(p, &pl)) return 0;
    const float *ls = model_scaler(&pl, (opt_kind)p->dim[TRAIN_DIM_OPT], (float *)host[TB_STATE]);
    model_plan_free(&pl);
    if (!ls) return 0;
    *scale = ls[LS_SCALE];
    *skipped = ls[LS_SKIPPED];
    return 1;
}

/* Each repetition is the next training step; --dump writes step 1. */
static const suite_steps TRAIN_STEPS = {
    .steps = TRAIN_CHECK_STEPS,
    .dump = train_dump,
    .accuracy = train_accuracy, /* amp rows: the loss against fp32's */
    .scaler = train_scaler,     /* amp-fp16 rows: loss_scale, skipped_steps */
};

const suite_def SUITE_TRAIN = {
    .name = "train",
    .about = "one training step (forward, loss, backward, optimizer) of a CNN, two MLPs, an RNN, an LSTM "
        "and a GPT, step by step checked",
    .op = "train",
    .default_baseline = "cpu-blas",
    .problem_help = "<model>-b<batch>[-mom|-adamw]: cnn, mlp, mlp-small, rnn, lstm or gpt; batch 1..4096 "
        "(cnn-b64, mlp-b256-mom, gpt-b8-adamw)",
    .parse = train_parse,
    .defaults = train_defaults,
    .layout = train_layout,
    .fill = train_fill,
    .ref_build = train_ref_build,
    .ref_free = train_ref_free,
    .check = train_check,
    .cpu_run = train_cpu_run,
    .emu_max_work = 4e8, /* emulated default sweeps: the small steps */
    .steps = &TRAIN_STEPS, /* a step suite */
    /* fp32, and the mixed-precision steps (ops/dtype.h; model_amp.c; amp-fp16
     * with its loss scaler, ops/loss_scale.h) */
    .dtypes = DTYPE_BIT(DTYPE_FP32) | DTYPE_BIT(DTYPE_AMP_BF16) | DTYPE_BIT(DTYPE_AMP_FP16),
    .dp_open = train_dp_open, /* the data-parallel modes (train_dp.c) */
};
