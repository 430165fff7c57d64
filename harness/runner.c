/* harness/runner.c - the one case runner (see runner.h). */
#define _POSIX_C_SOURCE 200809L
#include "test_hooks.h"
#include "mode.h"
#include "runner.h"
#include "repro.h"
#include "errmsg.h"
#include "interrupt.h"
#include "phase.h"
#include "stats.h"

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SETS 4
#define MAX_BACKENDS 64

int runner_backend_selected(const runner *r, const backend_def *b)
{
    if (r->nbackends == 0) return 1;
    for (int i = 0; i < r->nbackends; i++)
        if (strcmp(r->backends[i], b->name) == 0) return 1;
    return 0;
}

int runner_mode_selected(const runner *r, const char *mode)
{
    if (r->nmodes == 0) return 1;
    for (int i = 0; i < r->nmodes; i++)
        if (strcmp(r->modes[i], mode) == 0) return 1;
    return 0;
}

int runner_backends_of(const backend_def *registry, const char *op, const backend_def **out,
                       int cap)
{
    int n = 0;
    for (int i = 0; registry[i].name; i++)
        if (strcmp(registry[i].op, op) == 0 && n < cap) out[n++] = &registry[i];
    return n;
}

/* ---- the problem's host data -------------------------------------------- */

typedef struct case_data {
    case_layout l;
    int nsets;
    void *buf[MAX_SETS][LAYOUT_MAX_BUFS];   /* IN buffers per set; others shared */
    void *init[LAYOUT_MAX_BUFS];            /* INOUT: the initial state */
    void *ref;          /* from the inputs as the case holds them (rounded to its dtype) */
    void *ref_exact;    /* reduced dtypes: from the unrounded fp32 inputs (accuracy_lost) */
    int ok;
} case_data;

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

static void *alloc_bytes(size_t n)
{
    size_t bytes = (n + 63) / 64 * 64;
    return aligned_alloc(64, bytes ? bytes : 64);
}

static void data_free(const suite_def *s, case_data *d)
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

static int data_build(const runner *r, const suite_def *s, const problem *p, case_data *d)
{
    memset(d, 0, sizeof *d);
    s->layout(p, &d->l);
    d->nsets = in_sets(&d->l, r->llc_bytes);
    for (int i = 0; i < d->l.nbufs; i++) {
        const case_buf *b = &d->l.buf[i];
        int sets = b->role == ROLE_IN ? d->nsets : 1;
        for (int k = 0; k < sets; k++)
            if (!(d->buf[k][i] = alloc_bytes(b->bytes))) return -1;
        for (int k = sets; k < d->nsets; k++) d->buf[k][i] = d->buf[0][i];
        if (b->role == ROLE_INOUT && !(d->init[i] = alloc_bytes(b->bytes))) return -1;
    }
    /* fill writes floats: a reduced dtype's inputs go through fp32 staging,
     * rounded (and for 16-bit buffers converted) once */
    void *stage[LAYOUT_MAX_BUFS] = {0};
    int reduced = 0;
    for (int i = 0; i < d->l.nbufs; i++) {
        const case_buf *b = &d->l.buf[i];
        if (!rounded_buf(b) || b->role == ROLE_OUT || b->role == ROLE_SCRATCH) continue;
        reduced = 1;
        if (!(stage[i] = alloc_bytes(b->count * sizeof(float)))) goto oom;
    }
    /* set 0 last, so shared INOUT buffers end with set 0's state */
    for (int k = d->nsets - 1; k >= 0; k--) {
        void *to[LAYOUT_MAX_BUFS];
        for (int i = 0; i < d->l.nbufs; i++) to[i] = stage[i] ? stage[i] : d->buf[k][i];
        s->fill(p, k, to);
        if (k == 0 && reduced && !(d->ref_exact = s->ref_build(p, to))) goto oom;
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
        if (k == 0 && !(d->ref = s->ref_build(p, to))) goto oom;
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

/* ---- CPU cases ------------------------------------------------------------ */

typedef struct cpu_state {
    const suite_def *s;
    const backend_def *b;
    const problem *p;
    case_data *d;
    int next;
} cpu_state;

static int cpu_rep(void *st, double *ms)
{
    cpu_state *c = (cpu_state *)st;
    int k = c->next;
    (void)ms; /* host clock: CPU work is done when cpu_run returns */
    c->next = (c->next + 1) % c->d->nsets;
    return c->s->cpu_run(c->b, c->p, c->d->buf[k]);
}

static int cpu_outputs(void *st, void **host)
{
    cpu_state *c = (cpu_state *)st;
    for (int i = 0; i < c->d->l.nbufs; i++) host[i] = c->d->buf[0][i];
    return 0;
}

/* INOUT buffers back to their initial state, whatever the case before left
 * (a training step's weights), and (poison) OUT buffers NaN. */
static void data_reset(const case_data *d, int poison)
{
    for (int i = 0; i < d->l.nbufs; i++) {
        const case_buf *b = &d->l.buf[i];
        if (poison && b->role == ROLE_OUT) memset(d->buf[0][i], 0xFF, b->bytes);
        if (b->role == ROLE_INOUT) memcpy(d->buf[0][i], d->init[i], b->bytes);
    }
}

/* The checked run starts from set 0, the initial state and poisoned outputs. */
static void cpu_open(cpu_state *c, case_exec *ex)
{
    data_reset(c->d, 1);
    c->next = 0;
    memset(ex, 0, sizeof *ex);
    ex->st = c;
    ex->run = cpu_rep;
    ex->outputs = cpu_outputs;
}

/* ---- one case, CPU or GPU ------------------------------------------------- */

static void row_fail(result_row *row, const char *fmt, const char *what)
{
    snprintf(row->check, sizeof row->check, "fail");
    snprintf(row->note, sizeof row->note, fmt, *what ? what : "the backend returned an error");
}

/* Test hook: BENCH_PLANT_FAULT=<backend> corrupts one element of the first
 * output of that backend's checked run (its exponent's top bit: a float turns
 * huge or tiny, a byte changes), so tests watch a wrong answer fail end to end
 * for every suite. Does nothing unless the variable names the backend. */
static void plant_fault(const backend_def *b, const case_layout *l, void **host)
{
    const char *f = getenv(HOOK_PLANT_FAULT);
    if (!f || strcmp(f, b->name) != 0) return;
    for (int i = 0; i < l->nbufs; i++)
        if ((l->buf[i].role == ROLE_OUT || l->buf[i].role == ROLE_INOUT) && host[i] &&
            l->buf[i].bytes >= 4) {
            size_t at = (l->buf[i].bytes / 2) & ~(size_t)3;
            ((unsigned char *)host[i])[at + 3] ^= 0x40;
            return;
        }
}

/* The planted faults of reduced precision (tests), on the first output of
 * the case's dtype, after the checked run:
 *   BENCH_PLANT_ULP=<backend>  one element one ulp further from zero (the
 *                              first whose fraction is neither all ones nor 0);
 *   BENCH_PLANT_FP32=<backend> the outputs replaced by what the backend's
 *                              fp32 entry point computes from the unrounded
 *                              inputs, rounded to the dtype: a kernel that
 *                              silently multiplies in fp32 (CPU backends with
 *                              an fp32 entry point).
 * 0, or -1 with err_set. Nothing unless a variable names the backend. */
static int plant_reduced(const suite_def *s, const backend_def *b, const problem *p,
                         const case_data *d, void **host)
{
    const char *ulp = getenv(HOOK_PLANT_ULP), *f32 = getenv(HOOK_PLANT_FP32);
    int out = -1;
    for (int i = 0; i < d->l.nbufs && out < 0; i++)
        if (d->l.buf[i].role == ROLE_OUT && d->l.buf[i].typed && host[i]) out = i;
    if (out < 0 || !dtype_is_16bit(p->dtype)) return 0;
    const case_buf *ob = &d->l.buf[out];
    if (ulp && strcmp(ulp, b->name) == 0) {
        uint16_t *h = (uint16_t *)host[out];
        const int man = dtype_info_of(p->dtype)->frac_bits;
        uint16_t all = (uint16_t)((1u << man) - 1);
        for (size_t e = 0; e < ob->count; e++)
            if ((h[e] & all) != all && (h[e] & all) != 0) {
                h[e]++; /* the next value away from zero */
                break;
            }
    }
    if (f32 && strcmp(f32, b->name) == 0 && b->dev == DEV_CPU && b->fn) {
        /* the unrounded inputs again (fill is seeded: set 0 as it was) */
        problem p32 = *p;
        case_layout l32;
        void *buf[LAYOUT_MAX_BUFS] = {0};
        int rc = -1;
        p32.dtype = DTYPE_FP32;
        memset(&l32, 0, sizeof l32);
        s->layout(&p32, &l32);
        for (int i = 0; i < l32.nbufs; i++)
            if (!(buf[i] = alloc_bytes(l32.buf[i].bytes))) goto done;
        s->fill(&p32, 0, buf);
        if (s->cpu_run(b, &p32, buf)) goto done;
        for (size_t e = 0; e < ob->count; e++)
            dtype_set(p->dtype, host[out], e, ((const float *)buf[out])[e]);
        rc = 0;
    done:
        for (int i = 0; i < l32.nbufs; i++) free(buf[i]);
        if (rc) err_set("BENCH_PLANT_FP32: the fp32 run of %s failed", b->name);
        return rc;
    }
    return 0;
}

/* Appends the case note (case_note_set) to the row's note, once, and clears it. */
static void note_take(result_row *row)
{
    size_t used = strlen(row->note);
    if (*case_note_get() && !strstr(row->note, case_note_get()))
        snprintf(row->note + used, sizeof row->note - used, "%s%s", used ? "; " : "",
                 case_note_get());
    case_note_clear();
}

/* Appends the trace buffer's first float (a step's loss) to the row's trace. */
static void trace_add(result_row *row, const case_layout *l, void *const *host)
{
    size_t used = strlen(row->trace);
    if (!l->trace || !host[l->trace - 1]) return;
    float v = *(const float *)host[l->trace - 1];
    snprintf(row->trace + used, sizeof row->trace - used, "%s%.6g", used ? ";" : "", v);
}

/* Removes dir and the files (and folders of files) the dump wrote in it. */
static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[4200];
    while (d && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (unlink(path) != 0) remove_tree(path);
    }
    if (d) closedir(d);
    rmdir(dir);
}

/* Step suites: step 1 of the case into dump_dir/<shape>-<backend>[-<mode>]/,
 * written into <that>.tmp/ and left there as r->dump_pending: emit renames it
 * once the case's row is written, and removes it when the case is abandoned
 * (a failed dump leaves nothing; a .tmp folder is one a second Ctrl-C cut
 * short). 0, or -1 with err_set. */
static int dump_case(runner *r, const suite_def *s, const problem *p, const backend_def *b,
                     const char *mode, const case_data *d, void *const *out)
{
    char dir[4096], tmp[4200];
    void *in[LAYOUT_MAX_BUFS] = {0};
    int n = b->dev == DEV_CPU ? snprintf(dir, sizeof dir, "%s/%s-%s", r->dump_dir, p->desc, b->name)
                              : snprintf(dir, sizeof dir, "%s/%s-%s-%s", r->dump_dir, p->desc,
                                         b->name, mode);
    if (n < 0 || (size_t)n >= sizeof dir) {
        err_set("--dump: the folder name for %s is too long", p->desc);
        return -1;
    }
    snprintf(tmp, sizeof tmp, "%s.tmp", dir);
    if (mkdir(tmp, 0755) != 0) {
        err_set("--dump: cannot create %s: %s", tmp, strerror(errno));
        return -1;
    }
    for (int i = 0; i < d->l.nbufs; i++) in[i] = d->init[i] ? d->init[i] : d->buf[0][i];
    if (s->steps->dump(p, in, out, tmp) != 0) {
        remove_tree(tmp);
        return -1;
    }
    snprintf(r->dump_pending, sizeof r->dump_pending, "%s", dir);
    return 0;
}

/* The pending dump of the case just ended: kept (renamed from .tmp) when its
 * row was written, else removed. 0, or -1 with dump_error set. */
static int dump_settle(runner *r, int keep)
{
    char tmp[4200];
    int rc = 0;
    if (!r->dump_pending[0]) return 0;
    snprintf(tmp, sizeof tmp, "%s.tmp", r->dump_pending);
    if (!keep) {
        remove_tree(tmp);
    } else if (rename(tmp, r->dump_pending) != 0) {
        snprintf(r->dump_error, sizeof r->dump_error, "--dump: cannot rename %s to %s: %s", tmp,
                 r->dump_pending, strerror(errno));
        remove_tree(tmp);
        rc = -1;
    }
    r->dump_pending[0] = '\0';
    return rc;
}

/* Step suites: a few more steps by phase (phase.h); the row's phase_ms gets
 * each phase's median. 0, or -1 when a step failed. */
static int profile_phases(const runner *r, case_exec *ex, int gpu, result_row *row)
{
    enum { STEPS = 5 };
    const char *names[PHASE_MAX];
    double ms[STEPS][PHASE_MAX], col[STEPS], dummy;
    int n = -1, steps = gpu && r->gpu->emulated ? 1 : STEPS;
    size_t used = 0;
    for (int k = 0; k < steps; k++) {
        phase_begin(gpu ? r->gpu_sync : NULL);
        dummy = -1;
        int rc = ex->run(ex->st, &dummy);
        int got = phase_end(names, ms[k], PHASE_MAX);
        if (rc) return -1;
        if (got < 0 || (n >= 0 && got != n)) return 0;   /* no phases marked: no column */
        n = got;
    }
    double sum = 0;
    for (int i = 0; i < n; i++) {
        stats_summary st;
        for (int k = 0; k < steps; k++) col[k] = ms[k][i];
        if (stats_summarize(col, steps, &st)) return 0;
        sum += st.median;
        int w = snprintf(row->phase_ms + used, sizeof row->phase_ms - used, "%s%s=%.4g",
                         i ? ";" : "", names[i], st.median);
        if (w < 0 || (size_t)w >= sizeof row->phase_ms - used) break;
        used += (size_t)w;
    }
    /* the profiled steps against the timed ones: load that came and went */
    if (!(gpu && r->gpu->emulated) && row->median_ms > 0 &&
        fabs(sum - row->median_ms) > 0.25 * row->median_ms) {
        size_t u = strlen(row->note);
        snprintf(row->note + u, sizeof row->note - u,
                 "%sphases sum %.3g ms against a %.3g ms median: the host's load changed?",
                 u ? "; " : "", sum, row->median_ms);
    }
    return 0;
}

/* Runs an opened case: the checked run (a step suite's checked steps), then
 * the measure loop; fills row. */
/* Whether this case runs on every rank of several (collectives inside). */
static int replicated(const runner *r, const suite_def *s, const char *mode)
{
    return r->comm && r->comm->size > 1 && (suite_all_ranks(s) || dp_mode_find(mode));
}

/* Replicated cases: the ranks agree to go on (measure_cfg.agree). */
static int agree_max(int code) { return comm_max_int(code); }

/* Replicated cases: whether every rank's step passed, and if not the first
 * failing rank's reason in why (prefixed with its rank when not ours). */
static int ranks_pass(int pass, char *why, size_t whycap)
{
    int first = comm_first_failure(pass, why, whycap);
    if (first < 0) return 1;
    if (first != comm_rank()) {
        char mine[256];
        snprintf(mine, sizeof mine, "%s", why);
        snprintf(why, whycap, "rank %d: %s", first, mine);
    }
    return 0;
}

static void exec_case(runner *r, const suite_def *s, const backend_def *b, const problem *p,
                      const case_data *d, case_exec *ex, int gpu, result_row *row)
{
    const int rep = replicated(r, s, row->mode);
    void *host[LAYOUT_MAX_BUFS] = {0};
    measure_result m;
    char why[200] = "";
    double dummy = -1, worst = -1;
    int steps = suite_step_count(s) > 0 ? suite_step_count(s) : 1;
    int traced = suite_step_count(s) > 0 && r->trace_steps > steps ? r->trace_steps : steps;
    memset(&m, 0, sizeof m);
    err_clear();
    case_note_clear();
    for (int step = 0; step < traced; step++) {
        dummy = -1;
        int failed = ex->run(ex->st, &dummy) || ex->outputs(ex->st, host);
        if (step == 0) note_take(row); /* what the backend chose (a library's algorithm) */
        if (rep) {
            snprintf(why, sizeof why, "%s", failed ? err_get() : "");
            if (!ranks_pass(!failed, why, sizeof why)) {
                row_fail(row, "error: %s", why);
                return;
            }
        }
        if (failed) {
            row_fail(row, "error: %s", err_get());
            return;
        }
        if (suite_step_count(s) > 0) trace_add(row, &d->l, host);
        if (step >= steps) continue;   /* --steps: the trace goes on, unchecked */
        if (step == 0) plant_fault(b, &d->l, host);
        if (step == 0 && plant_reduced(s, b, p, d, host)) {
            row_fail(row, "error: %s", err_get());
            return;
        }
        check_result cr = s->check(p, d->ref, step, p->dtype, host, why, sizeof why);
        if (step == 0) { /* the accuracy given up: against the unrounded inputs' reference */
            char ignored[200];
            row->accuracy_lost = d->ref_exact
                ? s->check(p, d->ref_exact, 0, p->dtype, host, ignored, sizeof ignored).rel_err
                : cr.rel_err;
        }
        note_take(row); /* what the check saw (near-ties it replayed) */
        if (ex->agree) { /* every replica takes part, whatever its own check said */
            char differ[200] = "";
            if (ex->agree(ex->st, differ, sizeof differ) && cr.pass) {
                cr.pass = 0;
                snprintf(why, sizeof why, "%s", differ);
            }
        }
        if (rep && !ranks_pass(cr.pass, why, sizeof why)) cr.pass = 0;
        /* the step as it was checked, passed or not; a dump that cannot be
         * written stops the run (dump_error), like a full results.csv */
        if (step == 0 && r->dump_dir && s->steps && s->steps->dump && dump_case(r, s, p, b, row->mode, d, host)) {
            /* an error of the run, not a wrong result: the row keeps its check */
            snprintf(r->dump_error, sizeof r->dump_error, "%s", err_get());
            size_t u = strlen(row->note);
            snprintf(row->note + u, sizeof row->note - u, "%snot dumped: %s", u ? "; " : "",
                     r->dump_error);
        }
        /* the row shows the step that came closest to its tolerance */
        if (!cr.pass || check_closeness(&cr) > worst) {
            worst = check_closeness(&cr);
            row->max_abs_err = cr.max_abs_err;
            row->rel_err = cr.rel_err;
            row->tolerance = cr.tolerance;
        }
        if (!cr.pass) {
            snprintf(row->check, sizeof row->check, "fail");
            if (suite_step_count(s) > 0)
                snprintf(row->note, sizeof row->note, "check failed at step %d: %s", step + 1, why);
            else
                snprintf(row->note, sizeof row->note, "check failed: %s", why);
            return;
        }
    }
    snprintf(row->check, sizeof row->check, "pass");
    measure_cfg cfg = gpu && r->gpu->emulated ? r->emu_cfg : r->mcfg;
    if (rep) cfg.agree = agree_max;
    err_clear();
    if (measure_run(&cfg, ex->run, ex->st, &m)) {
        row_fail(row, "error while timing: %s", err_get());
        measure_result_free(&m);
        return;
    }
    if (rep) { /* a step takes as long as its slowest rank */
        comm_max_doubles(m.samples, m.n);
        if (stats_summarize(m.samples, m.n, &m.stats)) {
            row_fail(row, "error while timing: %s", "out of memory for statistics");
            measure_result_free(&m);
            return;
        }
    }
    result_fill_timing(row, &m, p->flops, p->bytes);
    if (p->items > 0 && row->median_ms > 0) row->samples_per_s = p->items / (row->median_ms / 1e3);
    if (ex->finish && ex->finish(ex->st, &m, row)) {
        row_fail(row, "error: %s", err_get());
        return;
    }
    if (suite_step_count(s) > 0 && profile_phases(r, ex, gpu, row)) {
        row_fail(row, "error while profiling a step: %s", err_get());
        return;
    }
    /* the row points into m's samples until emitted */
}

/* ---- rows ----------------------------------------------------------------- */

static void row_start(const runner *r, result_row *row, const suite_def *s, const problem *p,
                      const backend_def *b, const char *mode)
{
    result_row_init(row);
    snprintf(row->suite, sizeof row->suite, "%s", s->name);
    snprintf(row->case_name, sizeof row->case_name, "%s", p ? p->name : "-");
    snprintf(row->backend, sizeof row->backend, "%s", b->name);
    snprintf(row->mode, sizeof row->mode, "%s", mode);
    snprintf(row->dtype, sizeof row->dtype, "%s",
             dtype_name(s->dtypes && p ? p->dtype : backend_dtype(b)));
    snprintf(row->shape, sizeof row->shape, "%s", p ? p->desc : "-");
    snprintf(row->direction, sizeof row->direction, "%s", p ? p->direction : "");
    snprintf(row->device_kind, sizeof row->device_kind, "%s", dev_kind_name(b->dev));
    if (p) {
        if (p->flops > 0) row->flops = p->flops;
        if (p->bytes > 0) row->bytes = p->bytes;
    }
    if (b->dev == DEV_CPU) {
        snprintf(row->device, sizeof row->device, "%s", r->cpu_name ? r->cpu_name : "-");
        row->threads = (b->flags & BK_SERIAL) ? 1
                       : (b->needs & NEEDS_BLAS) && r->blas_threads ? r->blas_threads
                                                                   : r->threads;
    } else {
        snprintf(row->device, sizeof row->device, "%s", r->gpu->usable ? r->gpu->name : "-");
        row->emulated = r->gpu->emulated;
    }
    if (p)
        repro_case(row->repro, sizeof row->repro, r->repro_env, s->name, p->desc, b->name,
                   s->dtypes ? row->dtype : NULL, mode, r->threads, r->repro_extra);
}

/* Hands the row on (0, or -1 when writing it failed); a case the run was
 * interrupted in is abandoned: its row is dropped (1). */
static int emit(runner *r, result_row *row, double base_median, const char *baseline)
{
    if (interrupt_signal()) {
        free(row->samples);
        row->samples = NULL;
        dump_settle(r, 0); /* no row, no dump */
        return 1;
    }
    if (baseline && !row->emulated) {
        snprintf(row->baseline, sizeof row->baseline, "%s", baseline);
        row->speedup = base_median / row->median_ms;   /* NAN when either is missing */
    }
    int rc = r->emit(r->emit_ctx, row);
    free(row->samples);
    row->samples = NULL;
    if (dump_settle(r, rc == 0) && rc == 0) rc = -1;
    return rc;
}

static void row_skip(result_row *row, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void row_skip(result_row *row, const char *fmt, ...)
{
    va_list ap;
    snprintf(row->check, sizeof row->check, "skip");
    va_start(ap, fmt);
    vsnprintf(row->note, sizeof row->note, fmt, ap);
    va_end(ap);
}

/* ---- the order of a problem's cases --------------------------------------- */

/* The selected backends of the suite, the baseline first. */
static int case_order(const runner *r, const suite_def *s, const backend_def **out,
                      const char **baseline)
{
    const backend_def *all[MAX_BACKENDS];
    int n = runner_backends_of(r->registry, s->op, all, MAX_BACKENDS), k = 0;
    const char *base = r->baseline ? r->baseline : s->default_baseline;
    *baseline = NULL;
    for (int i = 0; i < n; i++)
        if (base && strcmp(all[i]->name, base) == 0 && runner_backend_selected(r, all[i]) &&
            runner_mode_selected(r, MODE_HOST)) {
            out[k++] = all[i];
            *baseline = base;
        }
    for (int i = 0; i < n; i++)
        if (!(*baseline && out[0] == all[i]) && runner_backend_selected(r, all[i]))
            out[k++] = all[i];
    return k;
}

/* Whether mode m of the suite runs: selected, and (the GPU execution modes)
 * one that applies to the suite's kind of work. */
static int mode_runs(const runner *r, const suite_entry *e, int m)
{
    if (e->def->modes) return runner_mode_selected(r, e->def->modes[m]);
    return gpu_mode_applies(&GPU_MODES[m], suite_step_count(e->def)) &&
           runner_mode_selected(r, GPU_MODES[m].name);
}

static const char *mode_name(const suite_entry *e, int m)
{
    if (e->def->modes) return e->def->modes[m];
    return GPU_MODES[m].name;
}

static int n_modes(const runner *r, const suite_entry *e)
{
    int n = 0;
    for (int m = 0; mode_name(e, m); m++) n += mode_runs(r, e, m);
    return n;
}

/* Whether data-parallel mode m runs: named with --mode, or (no --mode) in a
 * job of several ranks. */
static int dp_mode_runs(const runner *r, const suite_def *s, const dp_mode *m)
{
    if (!s->dp_open) return 0;
    if (r->nmodes) return runner_mode_selected(r, m->name);
    return r->comm && r->comm->size > 1;
}

/* Whether data-parallel mode m runs on the suite's GPU backends: named with
 * --mode, or (no --mode) with --devices N > 1 or in a job of several ranks. */
static int gpu_dp_mode_runs(const runner *r, const suite_entry *e, const dp_mode *m)
{
    if (!e->gpu || !e->gpu->dp_open) return 0;
    if (r->nmodes) return runner_mode_selected(r, m->name);
    return r->devices > 1 || (r->comm && r->comm->size > 1);
}

/* The dtypes the run takes of suite s, in order (fp32 first: the baseline's);
 * a suite without a dtype axis has one pass (returns 1, *out fp32). */
static int run_dtypes(const runner *r, const suite_def *s, dtype_t *out)
{
    int n = 0;
    if (!s->dtypes) {
        out[0] = DTYPE_FP32;
        return 1;
    }
    for (int d = 0; d < DTYPE_COUNT; d++)
        if ((s->dtypes & DTYPE_BIT(d)) && (!r->dtypes || (r->dtypes & DTYPE_BIT(d))))
            out[n++] = (dtype_t)d;
    return n;
}

/* The rows backend b gives one problem at one dtype: its selected modes
 * (host or the GPU modes, and the data-parallel ones); 0: it has no rows. */
static int backend_modes(const runner *r, const suite_entry *e, const backend_def *b)
{
    int per = 0;
    if (b->dev != DEV_CPU) {
        per += n_modes(r, e);
        for (int m = 0; DP_MODES[m].name; m++) per += gpu_dp_mode_runs(r, e, &DP_MODES[m]);
    } else {
        per += runner_mode_selected(r, MODE_HOST);
        for (int m = 0; DP_MODES[m].name; m++) per += dp_mode_runs(r, e->def, &DP_MODES[m]);
    }
    return per;
}

int runner_count(const runner *r, const suite_entry *e, int nproblems)
{
    const backend_def *all[MAX_BACKENDS];
    dtype_t dts[DTYPE_COUNT];
    char why[200];
    int n = runner_backends_of(r->registry, e->def->op, all, MAX_BACKENDS), cases = 0;
    int ndt = run_dtypes(r, e->def, dts);
    for (int i = 0; i < n; i++) {
        if (!runner_backend_selected(r, all[i])) continue;
        int per = backend_modes(r, e, all[i]);
        for (int d = 0; d < ndt; d++) /* a dtype the backend lacks: one skip row */
            cases += e->def->dtypes && per && backend_dt_skip(all[i], dts[d], why, sizeof why)
                         ? 1 : per * nproblems;
    }
    return cases;
}

/* ---- GPU cases ------------------------------------------------------------ */

static void gpu_recover(runner *r)
{
    if (r->gpu_recover(r->gpu) == 0) return;
    r->gpu_lost = 1;
    fprintf(stderr, "bench: GPU lost, remaining GPU cases skipped: %s\n", r->gpu->why);
}

/* GPU backend b on p in mode m (an index into the suite's modes): open the
 * case (the GPU execution modes, or the suite's own), run it, recover the
 * device after a failure. */
static void gpu_case(runner *r, const suite_entry *e, const backend_def *b, const problem *p,
                     const case_data *d, int m, result_row *row)
{
    const suite_def *s = e->def;
    case_exec ex;
    char skip[200] = "";
    int o;
    memset(&ex, 0, sizeof ex);
    err_clear();
    if (s->modes) {
        o = e->gpu->open_mode(b, s->modes[m], p, &ex, skip, sizeof skip);
    } else {
        data_reset(d, 0); /* the GPU modes poison their own outputs */
        void *const *sets[MAX_SETS];
        for (int k = 0; k < d->nsets; k++) sets[k] = d->buf[k];
        gpu_work w = {s, e->gpu, b, p, &d->l, d->buf[0], sets, d->nsets};
        o = r->gpu_open(&GPU_MODES[m], &w, &ex, skip, sizeof skip);
    }
    if (o == 1) {
        row_skip(row, "%s", skip);
    } else if (o != 0) {
        row_fail(row, "error: %s", err_get());
    } else {
        exec_case(r, s, b, p, d, &ex, 1, row);
        ex.close(ex.st);
        if (s->coll && s->coll->bus_factor && row->gbps > 0)
            row->busbw_gbps = row->gbps * s->coll->bus_factor(p, row->replicas);
    }
    if (strcmp(row->check, "fail") == 0) gpu_recover(r);
}

/* Every selected mode of GPU backend b on problem pi. */
static int run_gpu_backend(runner *r, const suite_entry *e, const backend_def *b,
                           const problem *p, int pi, const case_data *d, double base_median,
                           const char *baseline, double *resident_sps)
{
    const suite_def *s = e->def;
    result_row row;
    int rc = 0;
    double work = p->flops + p->bytes;
    int oversize = r->gpu->usable && r->gpu->emulated && !r->named_problems &&
                   s->emu_max_work > 0 && work > s->emu_max_work;
    if (n_modes(r, e) == 0) return 0; /* --mode named none of this suite's GPU modes */
    if (!r->gpu->usable || !e->gpu || !backend_present(b)) {
        /* one row says why, not one per mode (nor per problem or dtype,
         * unless the GPU was lost mid-run) */
        if (pi > 0 && !r->gpu_lost) return 0;
        row_start(r, &row, s, NULL, b, "-");
        row_skip(&row, "no usable GPU: %s",
                 r->gpu->usable ? "this build has no GPU layer" : r->gpu->why);
        return emit(r, &row, NAN, NULL);
    }
    if (!d) {
        row_start(r, &row, s, p, b, "-");
        row_fail(&row, "error: %s", "out of host memory for the problem's buffers");
        return emit(r, &row, NAN, NULL);
    }
    if (oversize) { /* one row says why, not one per mode */
        row_start(r, &row, s, p, b, "-");
        row_skip(&row, "emulated: default sweeps stop at %.3g FLOP+bytes; name problems with --sizes",
                 s->emu_max_work);
        return emit(r, &row, NAN, NULL);
    }
    for (int m = 0; mode_name(e, m); m++) {
        const char *mode = mode_name(e, m);
        if (!mode_runs(r, e, m)) continue;
        row_start(r, &row, s, p, b, mode);
        char label[192];
        snprintf(label, sizeof label, "%s %s %s %s", s->name, p->desc, b->name, mode);
        progress_start(r->prog, label);
        gpu_case(r, e, b, p, d, m, &row);
        if (strcmp(mode, "resident") == 0) *resident_sps = row.samples_per_s;
        rc = emit(r, &row, base_median, baseline);
        progress_finish_one(r->prog);
        if (!rc && r->dump_error[0]) rc = -1;
        if (rc) return rc;
    }
    return 0;
}

/* ---- CPU cases ------------------------------------------------------------ */

/* A job of several ranks goes on or stops together: rank 0's emit may fail
 * (a full disk), or a signal reach one rank only. */
static int ranks_rc(const runner *r, int rc)
{
    if (!r->comm || r->comm->size <= 1) return rc;
    return comm_max_int(rc != 0) && rc == 0 ? 1 : rc;
}

/* A replicated case was opened with status o (0, 1 skip saying why in skip,
 * -1 error): the ranks agree on whether it runs, the worst status winning
 * with the first failing rank's reason. 0: it runs; 1: the row says why (ex
 * closed if this rank had opened it). */
static int open_agreed(int o, const char *skip, case_exec *ex, result_row *row)
{
    char why[200];
    snprintf(why, sizeof why, "%s", o == 1 ? skip : o ? err_get() : "");
    int worst = comm_max_int(o < 0 ? 2 : o);
    if (!worst) return 0;
    if (o == 0) ex->close(ex->st);
    comm_first_failure(o == 0, why, sizeof why);
    if (worst == 1) row_skip(row, "%s", why);
    else row_fail(row, "error: %s", why);
    return 1;
}

/* scaling_eff: samples/s over replicas x the one-replica samples/s (NAN: none). */
static void set_scaling(result_row *row, double one_sps)
{
    if (row->samples_per_s > 0 && one_sps > 0)
        row->scaling_eff = row->samples_per_s / ((double)row->replicas * one_sps);
}

/* Where the run's data-parallel cases run, CPU and GPU alike. */
static dp_cfg dp_cfg_of(const runner *r)
{
    dp_cfg c = {.comm = r->comm,
                .devices = r->devices > 0 ? r->devices : 1,
                .bucket_mb = r->bucket_mb > 0 ? r->bucket_mb : DP_BUCKET_MB_DEFAULT};
    return c;
}

/* CPU backend b on p in data-parallel mode m; host_sps: the same backend's
 * one-process samples/s of this run (NAN: none). */
static void dp_case(runner *r, const suite_def *s, const backend_def *b, const problem *p,
                    const case_data *d, const dp_mode *m, double host_sps, result_row *row)
{
    case_exec ex;
    char skip[200] = "";
    memset(&ex, 0, sizeof ex);
    if (!r->comm) {
        row_skip(row, "%s needs MPI: %s", m->name, r->comm_why[0] ? r->comm_why : "not started");
        return;
    }
    row->replicas = r->comm->size;
    snprintf(row->comm, sizeof row->comm, "%s", r->comm->name);
    data_reset(d, 1);
    void *const *sets[MAX_SETS];
    for (int k = 0; k < d->nsets; k++) sets[k] = d->buf[k];
    err_clear();
    dp_cfg cfg = dp_cfg_of(r);
    int o = s->dp_open(b, m, p, &cfg, sets, d->nsets, &ex, skip, sizeof skip);
    if (open_agreed(o, skip, &ex, row)) return;
    exec_case(r, s, b, p, d, &ex, 0, row);
    ex.close(ex.st);
    set_scaling(row, host_sps);
}

/* Every selected mode of CPU backend b on p (d NULL: out of host memory):
 * host (on rank 0 alone in a job of several ranks, unless the suite's cases
 * run on every rank), then the data-parallel modes. is_base: b is the
 * baseline, whose host median goes to *base_median. */
static int run_cpu_backend(runner *r, const suite_def *s, const backend_def *b, const problem *p,
                           const case_data *d, int is_base, double *base_median,
                           const char *baseline)
{
    result_row row;
    int rc = 0;
    double host_sps = NAN;
    const int several = r->comm && r->comm->size > 1 && !suite_all_ranks(s);
    if (runner_mode_selected(r, MODE_HOST)) {
        int mine = !several || comm_rank() == 0;
        row_start(r, &row, s, p, b, MODE_HOST);
        if (suite_all_ranks(s) && r->comm && r->comm->size > 1) {
            row.replicas = r->comm->size;
            snprintf(row.comm, sizeof row.comm, "%s", r->comm->name);
        }
        char label[192];
        snprintf(label, sizeof label, "%s %s %s", s->name, p->desc, b->name);
        progress_start(r->prog, label);
        if (!backend_present(b)) {
            /* a CPU library this build did not find (cpu-onednn) */
            char needs[64];
            backend_needs_str(b->needs & ~(unsigned)NEEDS_BLAS, needs, sizeof needs);
            row_skip(&row, "%s not found at build time", needs);
        } else if (!d) {
            row_fail(&row, "error: %s", "out of host memory for the problem's buffers");
        } else if (r->nbackends == 0 && !r->named_problems && b->default_max_flops > 0 &&
                   p->flops > b->default_max_flops) {
            row_skip(&row, "%s skipped above %.3g FLOP in default sweeps; name it with --backend to run",
                     b->name, b->default_max_flops);
        } else if (suite_all_ranks(s) && (!r->comm || r->comm->size < 2)) {
            row_skip(&row, "%s needs MPI ranks: %s", b->name,
                     r->comm_why[0] ? r->comm_why : "not started");
        } else if (mine) {
            cpu_state c = {s, b, p, (case_data *)d, 0};
            case_exec ex;
            cpu_open(&c, &ex);
            exec_case(r, s, b, p, d, &ex, 0, &row);
            if (s->coll && s->coll->bus_factor && row.gbps > 0)
                row.busbw_gbps = row.gbps * s->coll->bus_factor(p, row.replicas);
        }
        if (several) comm_quiet_barrier(); /* the other ranks sat this one out */
        host_sps = row.samples_per_s;
        if (is_base) *base_median = row.median_ms;
        rc = emit(r, &row, *base_median, baseline);
        progress_finish_one(r->prog);
        if (!rc && r->dump_error[0]) rc = -1;
        rc = ranks_rc(r, rc);
    }
    for (int m = 0; DP_MODES[m].name && !rc; m++) {
        if (!dp_mode_runs(r, s, &DP_MODES[m])) continue;
        row_start(r, &row, s, p, b, DP_MODES[m].name);
        char label[192];
        snprintf(label, sizeof label, "%s %s %s %s", s->name, p->desc, b->name, DP_MODES[m].name);
        progress_start(r->prog, label);
        if (!backend_present(b)) row_skip(&row, "%s", "not found at build time");
        else if (!d) row_fail(&row, "error: %s", "out of host memory for the problem's buffers");
        else dp_case(r, s, b, p, d, &DP_MODES[m], host_sps, &row);
        rc = emit(r, &row, *base_median, baseline);
        progress_finish_one(r->prog);
        if (!rc && r->dump_error[0]) rc = -1;
        rc = ranks_rc(r, rc);
    }
    return rc;
}

/* ---- GPU data-parallel cases ---------------------------------------------- */

/* GPU backend b on p in mode m over NCCL (every rank in a job of several:
 * nccl-mpi). resident_sps: the same backend's one-GPU samples/s (NAN: none). */
static void gpu_dp_case(runner *r, const suite_entry *e, const backend_def *b, const problem *p,
                        const case_data *d, const dp_mode *m, double resident_sps,
                        result_row *row)
{
    const suite_def *s = e->def;
    const int several = r->comm && r->comm->size > 1;
    case_exec ex;
    char skip[200] = "";
    void *const *sets[MAX_SETS];   /* the case reads them until it closes */
    memset(&ex, 0, sizeof ex);
    dp_cfg cfg = dp_cfg_of(r);
    row->replicas = several ? r->comm->size : cfg.devices;
    snprintf(row->comm, sizeof row->comm, "%s", several ? "nccl-mpi" : "nccl");
    int o;
    if (!r->gpu->usable || r->gpu_lost || !backend_present(b)) {
        o = 1;
        snprintf(skip, sizeof skip, "no usable GPU: %s",
                 !backend_present(b) ? "this build has no GPU layer" : r->gpu->why);
    } else {
        data_reset(d, 1);
        for (int k = 0; k < d->nsets; k++) sets[k] = d->buf[k];
        err_clear();
        o = e->gpu->dp_open(b, m, p, &cfg, sets, d->nsets, &ex, skip, sizeof skip);
    }
    if (open_agreed(o, skip, &ex, row)) return;
    exec_case(r, s, b, p, d, &ex, 1, row);
    ex.close(ex.st);
    set_scaling(row, resident_sps);
    if (strcmp(row->check, "fail") == 0 && !several) gpu_recover(r);
}

/* Every selected data-parallel mode of GPU backend b on p. */
static int run_gpu_dp(runner *r, const suite_entry *e, const backend_def *b, const problem *p,
                      int pi, const case_data *d, double resident_sps, double base_median,
                      const char *baseline)
{
    int rc = 0, any = 0;
    for (int m = 0; DP_MODES[m].name; m++) any |= gpu_dp_mode_runs(r, e, &DP_MODES[m]);
    if (any && (!r->gpu->usable || !backend_present(b))) {
        /* one row says why, not one per mode and problem (the GPU modes' rule) */
        if (pi > 0 || n_modes(r, e) > 0) return 0;   /* run_gpu_backend's row said it */
        result_row row;
        row_start(r, &row, e->def, NULL, b, "-");
        row_skip(&row, "no usable GPU: %s",
                 r->gpu->usable ? "this build has no GPU layer" : r->gpu->why);
        return ranks_rc(r, emit(r, &row, NAN, NULL));
    }
    for (int m = 0; DP_MODES[m].name && !rc; m++) {
        if (!gpu_dp_mode_runs(r, e, &DP_MODES[m])) continue;
        result_row row;
        row_start(r, &row, e->def, p, b, DP_MODES[m].name);
        char label[192];
        snprintf(label, sizeof label, "%s %s %s %s", e->def->name, p->desc, b->name,
                 DP_MODES[m].name);
        progress_start(r->prog, label);
        if (!d) row_fail(&row, "error: %s", "out of host memory for the problem's buffers");
        else gpu_dp_case(r, e, b, p, d, &DP_MODES[m], resident_sps, &row);
        rc = emit(r, &row, base_median, baseline);
        progress_finish_one(r->prog);
        if (!rc && r->dump_error[0]) rc = -1;
        rc = ranks_rc(r, rc);
    }
    return rc;
}

/* ---- a suite -------------------------------------------------------------- */

/* A skip row for backend b at dtype dt (why), once per suite: the problem
 * column is "-", as the rows that say a GPU is missing. */
static int dtype_skip_row(runner *r, const suite_def *s, const backend_def *b, dtype_t dt,
                          const char *why)
{
    result_row row;
    row_start(r, &row, s, NULL, b, "-");
    snprintf(row.dtype, sizeof row.dtype, "%s", dtype_name(dt));
    row_skip(&row, "%s", why);
    return ranks_rc(r, emit(r, &row, NAN, NULL));
}

/* Whether any of the nb backends runs work at dtype dt here (else the case
 * data is not built). */
static int dtype_has_work(const runner *r, const backend_def *const *order, int nb, dtype_t dt,
                          int axis)
{
    char why[200];
    for (int bi = 0; bi < nb; bi++) {
        const backend_def *b = order[bi];
        if (axis && backend_dt_skip(b, dt, why, sizeof why)) continue;
        if (!backend_present(b)) continue;
        if (b->dev == DEV_GPU && (!r->gpu->usable || r->gpu_lost)) continue;
        return 1;
    }
    return 0;
}

int runner_run(runner *r, const suite_entry *e, const problem *probs, int nprobs)
{
    const suite_def *s = e->def;
    const backend_def *order[MAX_BACKENDS];
    const char *baseline;
    dtype_t dts[DTYPE_COUNT];
    int nb = case_order(r, s, order, &baseline), rc = 0, ndt = run_dtypes(r, s, dts);
    if (!baseline && nb > 0 && (r->baseline || s->default_baseline) && comm_rank() == 0)
        fprintf(stderr, "bench: %s: baseline %s not selected: speedups left empty\n", s->name,
                r->baseline ? r->baseline : s->default_baseline);
    else if (baseline && s->dtypes && ndt > 0 && dts[0] != DTYPE_FP32 && comm_rank() == 0)
        fprintf(stderr, "bench: %s: speedups are against %s's fp32 rows and --dtype has no "
                "fp32: speedups left empty\n", s->name, baseline);
    for (int pi = 0; pi < nprobs && !rc; pi++) {
        double base_median = NAN;   /* the baseline at fp32: every dtype's speedup is against it */
        for (int di = 0; di < ndt && !rc; di++) {
            problem pd = probs[pi];
            const problem *p = &pd;
            case_data d;
            char what[200];
            /* not the suite's first case: its once-per-suite rows are written */
            int later = pi > 0 || di > 0;
            pd.dtype = dts[di];
            snprintf(what, sizeof what, "preparing %s %s %s (inputs and the reference)", s->name,
                     p->desc, s->dtypes ? dtype_name(pd.dtype) : "");
            interrupt_set_activity(what);
            memset(&d, 0, sizeof d);
            int ok = dtype_has_work(r, order, nb, pd.dtype, s->dtypes != 0) &&
                     data_build(r, s, p, &d) == 0;
            for (int bi = 0; bi < nb && !rc; bi++) {
                const backend_def *b = order[bi];
                const int several = r->comm && r->comm->size > 1;
                char why[200];
                int stop = interrupt_signal() != 0;
                if (several) stop = comm_max_int(stop);   /* every rank stops at the same case */
                if (stop) {
                    rc = 1;
                    break;
                }
                /* a GPU backend without a usable GPU has its one row saying so */
                const int no_gpu = b->dev == DEV_GPU &&
                                   (!r->gpu->usable || r->gpu_lost || !backend_present(b));
                if (s->dtypes && !no_gpu && backend_modes(r, e, b) > 0 &&
                    backend_dt_skip(b, pd.dtype, why, sizeof why)) {
                    if (pi == 0) rc = dtype_skip_row(r, s, b, pd.dtype, why);
                    continue;
                }
                if (b->dev == DEV_GPU) { /* one process's work: rank 0's, the others wait */
                    double sps = NAN;
                    if (!several || comm_rank() == 0 || suite_all_ranks(s))
                        rc = run_gpu_backend(r, e, b, p, later, ok ? &d : NULL, base_median,
                                             baseline, &sps);
                    if (several && !suite_all_ranks(s)) {
                        comm_quiet_barrier();
                        if (comm_max_int(rc != 0) && rc == 0) rc = 1;   /* rank 0 stopped there */
                    }
                    if (!rc)
                        rc = run_gpu_dp(r, e, b, p, later, ok ? &d : NULL, sps, base_median,
                                        baseline);
                    continue;
                }
                rc = run_cpu_backend(r, s, b, p, ok ? &d : NULL,
                                     bi == 0 && baseline && pd.dtype == DTYPE_FP32, &base_median,
                                     baseline);
            }
            data_free(s, &d);
        }
    }
    return rc;
}
