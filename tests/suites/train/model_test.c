/* tests/suites/train/model_test.c - the sequence models of the train suite (rnn,
 * lstm, gpt; suites/train/model.h) through the suite's own interface
 * (parse, layout, fill, reference, check), on the host:
 *   - the plan: parameter names unique and in state_dict order, contiguous,
 *     gpt's count derived from its definition (2 + 12 per block + 3);
 *   - every CPU table's step passes the check, with SGD and with AdamW, for
 *     three steps (AdamW's update checked from the table's own gradients);
 *   - planted faults fail the check, naming a tensor: one wrong output
 *     element of each op a model uses (a copy of cpu-blas's table with that
 *     op wrapped), the residual stream's gradient dropped (gpt's backward
 *     add skipped), AdamW not counting its steps;
 *   - the loss falls over 20 steps of every model.
 */
#include "check.h"
#include "errmsg.h"
#include "testutil.h"
#include "train/train.h"
#include "train_cpu.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- a case of the suite, on the host ---- */

typedef struct host_case {
    problem p;
    model_plan pl;
    case_layout l;
    void *buf[LAYOUT_MAX_BUFS];
    void *ref;
} host_case;

static int case_open(host_case *c, const char *desc)
{
    char err[256] = "";
    memset(c, 0, sizeof *c);
    if (SUITE_TRAIN.parse(desc, &c->p, err, sizeof err) != 0) {
        fprintf(stderr, "parse %s: %s\n", desc, err);
        return -1;
    }
    if (model_plan_make(&MODELS[c->p.dim[TRAIN_DIM_MODEL]], (int)c->p.dim[TRAIN_DIM_B], &c->pl))
        return -1;
    SUITE_TRAIN.layout(&c->p, &c->l);
    for (int i = 0; i < c->l.nbufs; i++) {
        c->buf[i] = calloc(1, c->l.buf[i].bytes ? c->l.buf[i].bytes : 4);
        if (!c->buf[i]) return -1;
    }
    SUITE_TRAIN.fill(&c->p, 0, c->buf);
    c->ref = SUITE_TRAIN.ref_build(&c->p, c->buf);
    return c->ref ? 0 : -1;
}

static void case_close(host_case *c)
{
    if (c->ref) SUITE_TRAIN.ref_free(c->ref);
    for (int i = 0; i < c->l.nbufs; i++) free(c->buf[i]);
    model_plan_free(&c->pl);
}

/* Back to the initial state (parameters, optimizer state). */
static void case_reset(host_case *c)
{
    SUITE_TRAIN.fill(&c->p, 0, c->buf);
}

static step_bufs bufs_of(host_case *c)
{
    step_bufs b = {c->buf[TB_X], (const int *)c->buf[TB_LABELS], (float *)c->buf[TB_PARAMS],
                   (float *)c->buf[TB_GRADS], (float *)c->buf[TB_STATE], (float *)c->buf[TB_LOSS],
                   (float *)c->buf[TB_SCRATCH], NULL, NULL, NULL, 0};
    return b;
}

/* Step 1 of ops from the initial state and the suite's check of it; 1 when
 * it passes, else 0 with the reason in why. */
static int run_checked(host_case *c, const train_ops *ops, char *why, size_t cap)
{
    step_cfg cfg = train_step_cfg(NULL, &c->p);
    case_reset(c);
    step_bufs b = bufs_of(c);
    if (model_step(&c->pl, ops, &cfg, &b, NULL)) {
        snprintf(why, cap, "step failed: %s", err_get());
        return 0;
    }
    return SUITE_TRAIN.check(&c->p, c->ref, 0, DTYPE_FP32, c->buf, why, cap).pass;
}

/* Three consecutive checked steps of ops, keeping the state between them
 * (the batch of step s is set s, as the runner does). */
static int run_steps(host_case *c, const train_ops *ops, char *why, size_t cap)
{
    step_cfg cfg = train_step_cfg(NULL, &c->p);
    size_t np = c->l.buf[TB_PARAMS].bytes, ns = c->l.buf[TB_STATE].bytes;
    float *params = malloc(np ? np : 4), *state = malloc(ns ? ns : 4);
    int ok = 1;
    case_reset(c);
    for (int s = 0; ok && s < TRAIN_CHECK_STEPS; s++) {
        memcpy(params, c->buf[TB_PARAMS], np);
        memcpy(state, c->buf[TB_STATE], ns);
        SUITE_TRAIN.fill(&c->p, s, c->buf);   /* batch s (and the initial state: put back) */
        memcpy(c->buf[TB_PARAMS], params, np);
        memcpy(c->buf[TB_STATE], state, ns);
        step_bufs b = bufs_of(c);
        if (model_step(&c->pl, ops, &cfg, &b, NULL)) {
            snprintf(why, cap, "step %d failed: %s", s + 1, err_get());
            ok = 0;
            break;
        }
        check_result r = SUITE_TRAIN.check(&c->p, c->ref, s, DTYPE_FP32, c->buf, why, cap);
        ok = r.pass;
    }
    free(params);
    free(state);
    return ok;
}

/* ---- planted faults: cpu-blas with one op wrapped ---- */

/* The table the faults are planted in: cpu-blas's (a correct table whose
 * GEMMs are fast: on cpu-naive's, most of this test's time, 54%, was its
 * GEMMs, and under ASan minutes) */
#define FAULT_BASE TRAIN_OPS_CPU_BLAS
static train_ops g_faulty;
static const char *g_fault;      /* the op wrapped */
static float *g_dx;              /* gpt: the residual gradient (its adds are dropped) */

static void spoil(float *y) { y[0] += 0.25f * (fabsf(y[0]) + 1.0f); }

static int f_add(long n, const float *a, const float *b, float *y, void *s)
{
    if (g_dx && y == g_dx) return 0;   /* the residual edge's gradient dropped */
    int rc = FAULT_BASE.add(n, a, b, y, s);
    if (!strcmp(g_fault, "add")) spoil(y);
    return rc;
}
static int f_permute(int A, int B, int C, int D, const float *x, float *y, void *s)
{
    int rc = FAULT_BASE.permute(A, B, C, D, x, y, s);
    if (!strcmp(g_fault, "permute")) spoil(y);
    return rc;
}
static int f_gemm_batched(int ta, int tb, int M, int N, int K, const float *A, int lda,
                          long long sA, const float *B, int ldb, long long sB, float beta,
                          float *C, int ldc, long long sC, int batch, void *s)
{
    int rc = FAULT_BASE.gemm_batched(ta, tb, M, N, K, A, lda, sA, B, ldb, sB, beta, C,
                                              ldc, sC, batch, s);
    if (!strcmp(g_fault, "gemm_batched")) spoil(C + (batch - 1) * sC + (long)(M - 1) * ldc);
    return rc;
}
static int f_attn_softmax(long rows, int T, float scale, const float *z, float *p, void *s)
{
    int rc = FAULT_BASE.attn_softmax(rows, T, scale, z, p, s);
    if (!strcmp(g_fault, "attn_softmax")) spoil(p + (long)(T - 1) * T);   /* row T-1, s = 0 */
    return rc;
}
static int f_attn_softmax_bwd(long rows, int T, float scale, const float *p, const float *dp,
                              float *dz, void *s)
{
    int rc = FAULT_BASE.attn_softmax_bwd(rows, T, scale, p, dp, dz, s);
    if (!strcmp(g_fault, "attn_softmax_bwd")) spoil(dz + (long)(T - 1) * T);
    return rc;
}
static int f_embedding(int rows, int dim, const int *ids, int vocab, const float *table,
                       float *y, int acc, void *s)
{
    int rc = FAULT_BASE.embedding(rows, dim, ids, vocab, table, y, acc, s);
    if (!strcmp(g_fault, "embedding")) spoil(y);
    return rc;
}
static int f_embedding_bwd(int rows, int dim, const int *ids, int vocab, const float *dy,
                           float *dt, void *s)
{
    int rc = FAULT_BASE.embedding_bwd(rows, dim, ids, vocab, dy, dt, s);
    if (!strcmp(g_fault, "embedding_bwd")) spoil(dt + (ids ? (long)ids[0] * dim : 0));
    return rc;
}
static int f_layernorm(int rows, int dim, const float *x, const float *w, const float *b, float *y,
                       float *mean, float *rstd, void *s)
{
    int rc = FAULT_BASE.layernorm(rows, dim, x, w, b, y, mean, rstd, s);
    if (!strcmp(g_fault, "layernorm")) spoil(y);
    return rc;
}
static int f_layernorm_bwd(int rows, int dim, const float *dy, const float *x, const float *w,
                           const float *mean, const float *rstd, float *dx, float *dw, float *db,
                           void *s)
{
    int rc = FAULT_BASE.layernorm_bwd(rows, dim, dy, x, w, mean, rstd, dx, dw, db, s);
    if (!strcmp(g_fault, "layernorm_bwd")) spoil(dx);
    return rc;
}
static int f_gelu(long n, const float *x, float *y, void *s)
{
    int rc = FAULT_BASE.gelu(n, x, y, s);
    if (!strcmp(g_fault, "gelu")) spoil(y);
    return rc;
}
static int f_gelu_bwd(long n, const float *x, const float *dy, float *dx, void *s)
{
    int rc = FAULT_BASE.gelu_bwd(n, x, dy, dx, s);
    if (!strcmp(g_fault, "gelu_bwd")) spoil(dx);
    return rc;
}
static int f_lstm_cell(int rows, int H, const float *pre, const float *cp, float *g, float *c,
                       float *h, void *s)
{
    int rc = FAULT_BASE.lstm_cell(rows, H, pre, cp, g, c, h, s);
    if (!strcmp(g_fault, "lstm_cell")) spoil(h);
    return rc;
}
static int f_lstm_cell_bwd(int rows, int H, const float *dh, const float *dc, const float *g,
                           const float *cp, const float *c, float *dpre, float *dcp, void *s)
{
    int rc = FAULT_BASE.lstm_cell_bwd(rows, H, dh, dc, g, cp, c, dpre, dcp, s);
    if (!strcmp(g_fault, "lstm_cell_bwd")) spoil(dpre);
    return rc;
}
static int f_adamw(long n, float *p, const float *g, float *m, float *v, float *t, float lr,
                   float b1, float b2, float eps, float wd, void *s)
{
    float t0 = *t;
    int rc = FAULT_BASE.adamw(n, p, g, m, v, t, lr, b1, b2, eps, wd, s);
    if (!strcmp(g_fault, "adamw")) *t = t0;   /* the step count not advanced */
    return rc;
}

static const train_ops *faulty(const char *op, float *dx)
{
    g_faulty = FAULT_BASE;
    g_fault = op;
    g_dx = dx;
    g_faulty.add = f_add;
    g_faulty.permute = f_permute;
    g_faulty.gemm_batched = f_gemm_batched;
    g_faulty.attn_softmax = f_attn_softmax;
    g_faulty.attn_softmax_bwd = f_attn_softmax_bwd;
    g_faulty.embedding = f_embedding;
    g_faulty.embedding_bwd = f_embedding_bwd;
    g_faulty.layernorm = f_layernorm;
    g_faulty.layernorm_bwd = f_layernorm_bwd;
    g_faulty.gelu = f_gelu;
    g_faulty.gelu_bwd = f_gelu_bwd;
    g_faulty.lstm_cell = f_lstm_cell;
    g_faulty.lstm_cell_bwd = f_lstm_cell_bwd;
    g_faulty.adamw = f_adamw;
    return &g_faulty;
}

/* The ops each model calls (besides gemm, bias and the loss). */
static const char *const RNN_OPS[] = {"permute", NULL};
static const char *const LSTM_OPS[] = {"permute", "lstm_cell", "lstm_cell_bwd", NULL};
static const char *const GPT_OPS[] = {"add", "permute", "gemm_batched", "attn_softmax",
                                      "attn_softmax_bwd", "embedding", "embedding_bwd",
                                      "layernorm", "layernorm_bwd", "gelu", "gelu_bwd", NULL};

static void plan_rules(const model_plan *pl)
{
    long long off = 0;
    for (int i = 0; i < pl->nparams; i++) {
        EXPECT(pl->param[i].off == off, "%s: %s at %lld, expected %lld", pl->m->name,
               pl->param[i].name, pl->param[i].off, off);
        off += pl->param[i].n;
        for (int j = 0; j < i; j++)
            EXPECT(strcmp(pl->param[i].name, pl->param[j].name) != 0, "%s: %s twice",
                   pl->m->name, pl->param[i].name);
    }
    EXPECT(off == pl->nparam_floats, "%s: %lld floats of parameters, counted %lld", pl->m->name,
           pl->nparam_floats, off);
    if (pl->m->kind == MODEL_GPT) {
        EXPECT(pl->nparams == 2 + 12 * pl->m->depth + 3, "gpt: %d parameter tensors",
               pl->nparams);
        EXPECT(!strcmp(pl->param[0].name, "wte.weight") && !strcmp(pl->param[1].name, "wpe.weight") &&
                   !strcmp(pl->param[pl->nparams - 1].name, "lm_head.weight"),
               "gpt: state_dict order (%s, %s, ..., %s)", pl->param[0].name, pl->param[1].name,
               pl->param[pl->nparams - 1].name);
    }
}

static void model_case(const char *desc, const char *const *ops_used, int gpt)
{
    host_case c;
    char why[512] = "";
    EXPECT(case_open(&c, desc) == 0, "%s: open (%s)", desc, err_get());
    if (!c.ref) {
        case_close(&c);
        return;
    }
    plan_rules(&c.pl);
    /* every CPU table passes, three steps */
    const train_ops *tables[] = {&FAULT_BASE, &TRAIN_OPS_CPU_OMP, &TRAIN_OPS_CPU_BLAS};
    const char *names[] = {"cpu-naive", "cpu-omp", "cpu-blas"};
    for (int t = 0; t < 3; t++)
        EXPECT(run_steps(&c, tables[t], why, sizeof why), "%s %s: %s", desc, names[t], why);
    /* each op it uses, spoiled in one element, fails the check naming a tensor */
    for (int i = 0; ops_used[i]; i++) {
        why[0] = 0;
        int ok = run_checked(&c, faulty(ops_used[i], NULL), why, sizeof why);
        EXPECT(!ok && (strstr(why, "grad ") || strstr(why, "loss")),
               "%s: a wrong element of %s must fail the check naming a tensor (got: %s)", desc,
               ops_used[i], ok ? "pass" : why);
    }
    if (gpt) {
        why[0] = 0;
        float *dx = (float *)c.buf[TB_SCRATCH] + c.pl.dx;
        int ok = run_checked(&c, faulty("", dx), why, sizeof why);
        EXPECT(!ok && strstr(why, "grad "), "%s: a dropped residual gradient must fail (got: %s)",
               desc, ok ? "pass" : why);
    }
    case_close(&c);
}

static void adamw_case(const char *desc)
{
    host_case c;
    char why[512] = "";
    EXPECT(case_open(&c, desc) == 0, "%s: open (%s)", desc, err_get());
    if (!c.ref) {
        case_close(&c);
        return;
    }
    EXPECT(run_steps(&c, &TRAIN_OPS_CPU_OMP, why, sizeof why), "%s cpu-omp: %s", desc, why);
    /* AdamW that does not count its steps: right at step 1, wrong from step 2 */
    int ok = run_steps(&c, faulty("adamw", NULL), why, sizeof why);
    EXPECT(!ok && (strstr(why, "updated") || strstr(why, "AdamW")),
           "%s: AdamW without its step count must fail (got: %s)", desc, ok ? "pass" : why);
    case_close(&c);
}

/* The loss of 20 steps of cpu-omp falls (the data is learnable). */
static void learns(const char *desc)
{
    host_case c;
    EXPECT(case_open(&c, desc) == 0, "%s: open", desc);
    if (!c.ref) {
        case_close(&c);
        return;
    }
    step_cfg cfg = train_step_cfg(NULL, &c.p);
    float first = 0, last = 0;
    case_reset(&c);
    for (int s = 0; s < 20; s++) {
        step_bufs b = bufs_of(&c);
        EXPECT(model_step(&c.pl, &TRAIN_OPS_CPU_OMP, &cfg, &b, NULL) == 0, "%s step", desc);
        if (s == 0) first = *(float *)c.buf[TB_LOSS];
        last = *(float *)c.buf[TB_LOSS];
    }
    EXPECT(last < first, "%s: loss %g after 20 steps, %g at the first", desc, last, first);
    case_close(&c);
}

int main(void)
{
    model_case("rnn-b3", RNN_OPS, 0);
    model_case("lstm-b2", LSTM_OPS, 0);
    model_case("gpt-b2", GPT_OPS, 1);
    adamw_case("gpt-b2-adamw");
    adamw_case("rnn-b2-adamw");
    learns("rnn-b4");
    learns("gpt-b2-adamw");
    TEST_END();
}
