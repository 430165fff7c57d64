/* harness/runner_data.c - a problem's host data (runner_int.h): its buffers,
 * the input sets it rotates among, their seeded contents (a reduced dtype's
 * through fp32 staging) and the references; the one memory estimate of them
 * (runner_case_bytes); a CPU backend's case over them. */
#include "runner_int.h"
#include "gpu_alloc.h"
#include "errmsg.h"
#include "test_hooks.h"
#include "timer.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Whether typed buffer b holds a reduced dtype whose inputs are rounded:
 * filled in fp32 and converted (16-bit), or rounded inside the product (tf32). */
static int rounded_buf(const case_buf *b)
{
    return b->typed && (dtype_is_16bit(b->dtype) || b->dtype == DTYPE_TF32);
}

static int in_sets(const case_layout *l, double llc_bytes)
{
    double set = 0;
    if (l->sets > 0) return l->sets < MAX_SETS ? l->sets : MAX_SETS;   /* a step suite's */
    for (int i = 0; i < l->nbufs; i++)
        if (l->buf[i].role == ROLE_IN) set += (double)l->buf[i].bytes;
    if (set <= 0) return 1;
    return (int)fmin(MAX_SETS, fmax(1.0, ceil(2.0 * llc_bytes / set)));
}

double runner_case_bytes(const suite_def *s, const problem *p, double llc_bytes, int gpu)
{
    case_layout l;
    memset(&l, 0, sizeof l);
    s->layout(p, &l);
    int nsets = in_sets(&l, llc_bytes);
    double bytes = l.ref_bytes, second_ref = 0;
    for (int i = 0; i < l.nbufs; i++) {
        double b = (double)l.buf[i].bytes;
        /* a reduced dtype: fp32 staging of its inputs, and a second reference */
        if (rounded_buf(&l.buf[i]) && l.buf[i].role != ROLE_OUT) {
            bytes += 4.0 * (double)l.buf[i].count;
            second_ref = l.ref_bytes;
        }
        /* IN: every set; INOUT: the buffer and its initial state; a GPU mode's
         * pinned or pageable host copies: one more of everything (gpu) */
        bytes += b * (l.buf[i].role == ROLE_IN ? nsets : l.buf[i].role == ROLE_INOUT ? 2 : 1);
        if (gpu) bytes += b * (l.buf[i].role == ROLE_IN && l.sets ? nsets : 1);
    }
    return bytes + second_ref;
}

double runner_case_dev_bytes(const suite_entry *e, const backend_def *b, const problem *p,
                             double llc_bytes)
{
    case_layout l;
    double bytes = 0;
    unsigned long long ws;
    memset(&l, 0, sizeof l);
    e->def->layout(p, &l);
    /* resident mode keeps a step suite's every input set on the device (one
     * set otherwise: the estimate of the smallest resident case) */
    int nsets = l.sets ? in_sets(&l, llc_bytes) : 1;
    for (int i = 0; i < l.nbufs; i++)
        bytes += (double)GPU_POOL_ROUNDED(l.buf[i].bytes ? l.buf[i].bytes : 1) *
                 (l.buf[i].role == ROLE_IN ? nsets : 1);
    ws = l.workspace;
    if (e->gpu && e->gpu->workspace && e->gpu->workspace(b, p, 1) > ws) ws = e->gpu->workspace(b, p, 1);
    return bytes + (ws ? (double)GPU_POOL_ROUNDED(ws) : 0);
}

void *data_alloc(size_t n)
{
    size_t bytes = (n + 63) / 64 * 64;
    return aligned_alloc(64, bytes ? bytes : 64);
}

void data_free(const suite_def *s, case_data *d)
{
    for (int i = 0; i < d->l.nbufs; i++) {
        int sets = d->l.buf[i].role == ROLE_IN ? d->nsets : 1;
        for (int k = 0; k < sets; k++) free(d->buf[k][i]);
        free(d->init[i]);
    }
    if (d->ref) s->ref_free(d->ref);
    if (d->ref_exact) s->ref_free(d->ref_exact);
    memset(d, 0, sizeof *d);
}

/* data_build, with the references (refs) or without (a timing alone). */
static int data_build_refs(const runner *r, const suite_def *s, const problem *p, case_data *d,
                           int refs)
{
    memset(d, 0, sizeof *d);
    s->layout(p, &d->l);
    d->nsets = in_sets(&d->l, r->llc_bytes);
    for (int i = 0; i < d->l.nbufs; i++) {
        const case_buf *b = &d->l.buf[i];
        int sets = b->role == ROLE_IN ? d->nsets : 1;
        for (int k = 0; k < sets; k++)
            if (!(d->buf[k][i] = data_alloc(b->bytes))) return -1;
        for (int k = sets; k < d->nsets; k++) d->buf[k][i] = d->buf[0][i];
        if (b->role == ROLE_INOUT && !(d->init[i] = data_alloc(b->bytes))) return -1;
    }
    /* fill writes floats: a reduced dtype's inputs go through fp32 staging,
     * rounded (and for 16-bit buffers converted) once */
    void *stage[LAYOUT_MAX_BUFS] = {0};
    int reduced = 0;
    for (int i = 0; i < d->l.nbufs; i++) {
        const case_buf *b = &d->l.buf[i];
        if (!rounded_buf(b) || b->role == ROLE_OUT || b->role == ROLE_SCRATCH) continue;
        reduced = 1;
        if (!(stage[i] = data_alloc(b->count * sizeof(float)))) goto oom;
    }
    /* set 0 last, so shared INOUT buffers end with set 0's state */
    for (int k = d->nsets - 1; k >= 0; k--) {
        void *to[LAYOUT_MAX_BUFS];
        for (int i = 0; i < d->l.nbufs; i++) to[i] = stage[i] ? stage[i] : d->buf[k][i];
        s->fill(p, k, to);
        if (refs && k == 0 && reduced && !(d->ref_exact = s->ref_build(p, to))) goto oom;
        for (int i = 0; i < d->l.nbufs; i++) {
            const case_buf *b = &d->l.buf[i];
            float *f = (float *)stage[i];
            if (!f) continue;
            if (b->dtype == DTYPE_TF32) { /* fp32 storage: the backend rounds in the product */
                memcpy(d->buf[k][i], f, b->count * sizeof(float));
                for (size_t e = 0; e < b->count; e++) f[e] = dtype_tf32_round(f[e]);
            } else {
                for (size_t e = 0; e < b->count; e++) {
                    dtype_set(b->dtype, d->buf[k][i], e, f[e]);
                    f[e] = dtype_get(b->dtype, d->buf[k][i], e);
                }
            }
        }
        /* the reference sees the inputs exactly as the case holds them */
        if (refs && k == 0 && !(d->ref = s->ref_build(p, to))) goto oom;
    }
    for (int i = 0; i < d->l.nbufs; i++) {
        free(stage[i]);
        stage[i] = NULL;
        if (d->init[i]) memcpy(d->init[i], d->buf[0][i], d->l.buf[i].bytes);
    }
    return 0;
oom:
    for (int i = 0; i < d->l.nbufs; i++) free(stage[i]);
    return -1;
}

int data_build(const runner *r, const suite_def *s, const problem *p, case_data *d, int refs)
{
    return data_build_refs(r, s, p, d, refs);
}

double runner_time_cpu(const runner *r, const suite_def *s, const problem *p,
                       const backend_def *b, const measure_cfg *cfg, disturb_finding *kept,
                       double *median_ms)
{
    case_data d;
    case_exec ex;
    measure_result m;
    double med = NAN;
    memset(&m, 0, sizeof m);
    if (median_ms) *median_ms = NAN;
    if (data_build_refs(r, s, p, &d, 0) == 0) {
        cpu_state c = {.s = s, .b = b, .p = p, .d = &d, .next = 0};
        cpu_open(&c, &ex);
        if (measure_run(cfg, ex.run, ex.st, &m) == 0) {
            med = m.stats.min;
            if (kept) *kept = m.kept;
            if (median_ms) *median_ms = m.stats.median;
        }
        measure_result_free(&m);
    }
    data_free(s, &d);
    return med;
}

double runner_time_gpu(const runner *r, const suite_entry *e, const problem *p,
                       const backend_def *b, const char *mode, const measure_cfg *cfg)
{
    const suite_def *s = e->def;
    const gpu_mode *gm = gpu_mode_find(mode);
    case_data d;
    case_exec ex;
    measure_result m;
    char skip[200] = "";
    double best = NAN;
    int built = 0, o = -1;
    memset(&m, 0, sizeof m);
    memset(&ex, 0, sizeof ex);
    err_clear();
    if (!e->gpu || !r->gpu || !r->gpu->usable || r->gpu_lost || !r->gpu_open) {
        err_set("no usable GPU");
        return NAN;
    }
    if (!gm) {
        if (!s->modes || !e->gpu->open_mode) {
            err_set("mode %s does not apply to suite %s", mode, s->name);
            return NAN;
        }
        o = e->gpu->open_mode(b, mode, p, &ex, skip, sizeof skip);
    } else {
        built = 1;
        if (data_build_refs(r, s, p, &d, 0) == 0) {
            void *const *sets[MAX_SETS];
            for (int k = 0; k < d.nsets; k++) sets[k] = d.buf[k];
            gpu_work w = {.def = s, .gpu = e->gpu, .b = b, .p = p, .l = &d.l,
                          .host = d.buf[0], .sets = sets, .nsets = d.nsets};
            o = r->gpu_open(gm, &w, &ex, skip, sizeof skip);
        } else {
            err_set("out of host memory for the problem's buffers");
        }
    }
    if (o == 1) err_set("%s", skip);
    if (o == 0) {
        if (measure_run(cfg, ex.run, ex.st, &m) == 0) best = m.stats.min;
        measure_result_free(&m);
        ex.close(ex.st);
    }
    if (built) data_free(s, &d);
    return best;
}

/* ---- a CPU backend's case ------------------------------------------------- */

static int cpu_rep(void *st, double *ms)
{
    cpu_state *c = (cpu_state *)st;
    int k = c->next;
    (void)ms; /* host clock: CPU work is done when cpu_run returns */
    c->next = (c->next + 1) % c->d->nsets;
    const double t0 = c->slow ? timer_now_ms() : 0;
    int rc = c->s->cpu_run(c->b, c->p, c->d->buf[k]);
    if (c->slow) /* the planted slowdown: as long again, spinning like work */
        for (const double end = 2 * timer_now_ms() - t0; timer_now_ms() < end;) {
        }
    return rc;
}

static int cpu_outputs(void *st, void **host)
{
    cpu_state *c = (cpu_state *)st;
    for (int i = 0; i < c->d->l.nbufs; i++) host[i] = c->d->buf[0][i];
    return 0;
}

/* INOUT buffers back to their initial state, whatever the case before left
 * (a training step's weights), and (poison) OUT buffers NaN. */
void data_reset(const case_data *d, int poison)
{
    for (int i = 0; i < d->l.nbufs; i++) {
        const case_buf *b = &d->l.buf[i];
        if (poison && b->role == ROLE_OUT) memset(d->buf[0][i], 0xFF, b->bytes);
        if (b->role == ROLE_INOUT) memcpy(d->buf[0][i], d->init[i], b->bytes);
    }
}

/* The checked run starts from set 0, the initial state and poisoned outputs. */
void cpu_open(cpu_state *c, case_exec *ex)
{
    data_reset(c->d, 1);
    c->next = 0;
    const char *slow = getenv(HOOK_PLANT_SLOW);
    c->slow = slow && strcmp(slow, c->b->name) == 0;
    memset(ex, 0, sizeof *ex);
    ex->st = c;
    ex->run = cpu_rep;
    ex->outputs = cpu_outputs;
}
