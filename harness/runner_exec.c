/* harness/runner_exec.c - one opened case, CPU or GPU, and its row
 * (runner_int.h): the checked run (planted faults for the tests, the trace,
 * the dump), the measure loop, the phases of a step, then the row emitted
 * with its speedup. */
#define _POSIX_C_SOURCE 200809L
#include "test_hooks.h"
#include "runner_int.h"
#include "repro.h"
#include "machine.h"
#include "mode.h"
#include "errmsg.h"
#include "interrupt.h"
#include "phase.h"
#include "stats.h"

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the checked run ------------------------------------------------------ */

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
            if (!(buf[i] = data_alloc(l32.buf[i].bytes))) goto done;
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

/* Whether this case runs on every rank of several (collectives inside). */
static int replicated(const runner *r, const suite_def *s, const char *mode)
{
    return r->comm && r->comm->size > 1 &&
           (suite_all_ranks(s) || mode_kind_of(mode) == MODE_KIND_DP);
}

/* Replicated cases: the ranks agree to go on (measure_cfg.agree); a code of
 * MEASURE_INTERRUPTED + sig carries the signal, adopted by every rank. */
static int agree_max(int code)
{
    int v = comm_max_int(code);
    if (v > MEASURE_INTERRUPTED && !interrupt_signal()) interrupt_adopt(v - MEASURE_INTERRUPTED);
    return v;
}

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

int exec_check(runner *r, const suite_def *s, const backend_def *b, const problem *p,
               const case_data *d, case_exec *ex, result_row *row)
{
    const int rep = replicated(r, s, row->mode);
    void *host[LAYOUT_MAX_BUFS] = {0};
    char why[200] = "";
    double dummy = -1, worst = -1;
    int steps = suite_step_count(s) > 0 && !ex->check ? suite_step_count(s) : 1;
    int traced = suite_step_count(s) > 0 && r->trace_steps > steps && !ex->check ? r->trace_steps
                                                                                 : steps;
    err_clear();
    case_note_clear();
    for (int step = 0; step < traced; step++) {
        /* between checked steps (--steps traces hundreds): a signal to any
         * rank ends the case on every rank, at the same step; the row is
         * dropped (row_emit) */
        if (step > 0 && (rep ? ranks_signal() : interrupt_signal())) {
            row_fail(row, "error: %s", "interrupted");
            return 0;
        }
        dummy = -1;
        int failed = ex->run(ex->st, &dummy) || ex->outputs(ex->st, host);
        if (step == 0) note_take(row); /* what the backend chose (a library's algorithm) */
        if (rep) {
            snprintf(why, sizeof why, "%s", failed ? err_get() : "");
            if (!ranks_pass(!failed, why, sizeof why)) {
                row_fail(row, "error: %s", why);
                return 0;
            }
        }
        if (failed) {
            row_fail(row, "error: %s", err_get());
            return 0;
        }
        if (suite_step_count(s) > 0) trace_add(row, &d->l, host);
        if (s->steps && s->steps->scaler &&   /* the last step's stands */
            !s->steps->scaler(p, host, &row->loss_scale, &row->skipped_steps))
            row->loss_scale = row->skipped_steps = NAN;
        if (step >= steps) continue;   /* --steps: the trace goes on, unchecked */
        if (step == 0) plant_fault(b, &d->l, host);
        if (step == 0 && plant_reduced(s, b, p, d, host)) {
            row_fail(row, "error: %s", err_get());
            return 0;
        }
        check_result cr;
        if (ex->check) ex->check(ex->st, &cr, why, sizeof why);
        else cr = s->check(p, d->ref, step, p->dtype, host, why, sizeof why);
        if (step == 0) { /* the accuracy given up: against the unrounded inputs' reference */
            char ignored[200];
            row->accuracy_lost = d->ref_exact && !ex->check
                ? s->check(p, d->ref_exact, 0, p->dtype, host, ignored, sizeof ignored).rel_err
                : cr.rel_err;
        }
        if (s->steps && s->steps->accuracy && !ex->check) { /* a step suite's own measure */
            const double a = s->steps->accuracy(p, d->ref, step, host);
            if (!isnan(a)) row->accuracy_lost = a;
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
        if (step == 0 && r->dump_dir && s->steps && s->steps->dump && !ex->check &&
            dump_case(r, s, p, b, row->mode, row->replicas, d, host)) {
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
            if (suite_step_count(s) > 0 && !ex->check)
                snprintf(row->note, sizeof row->note, "check failed at step %d: %s", step + 1, why);
            else
                snprintf(row->note, sizeof row->note, "check failed: %s", why);
            return 0;
        }
    }
    snprintf(row->check, sizeof row->check, "pass");
    return 1;
}

measure_cfg exec_cfg(const runner *r, const suite_def *s, const case_exec *ex, int gpu,
                     const result_row *row)
{
    const int rep = replicated(r, s, row->mode);
    measure_cfg cfg = gpu && r->gpu->emulated ? r->emu_cfg : r->mcfg;
    if (rep) cfg.agree = agree_max;
    /* what tells that something else ran (disturb.h); emulated rows: nothing */
    cfg.judge = !gpu && !ex->elsewhere ? DISTURB_CPU_ROW
                : gpu && r->gpu->emulated  ? DISTURB_NONE
                                           : DISTURB_GPU_ROW;
    cfg.threads = row->threads;
    /* a row's energy: its device's; none for an emulated GPU row (the CPU ran
     * it) or a GPU row on several GPUs (the source reads one) */
    cfg.energy = !gpu ? MEASURE_ENERGY_CPU
               : r->gpu->emulated || row->replicas > 1 ? MEASURE_ENERGY_NONE : MEASURE_ENERGY_GPU;
    return cfg;
}

void exec_timed(runner *r, const suite_def *s, const problem *p, case_exec *ex, int gpu,
                measure_result *mr, result_row *row)
{
    const int rep = replicated(r, s, row->mode);
    const double per = ex->per_run > 0 ? ex->per_run : 1;
    measure_result m = *mr;
    if (rep) { /* a step takes as long as its slowest rank; disturbed on any, disturbed */
        m.kept.disturbed = comm_max_int(m.kept.disturbed);
        comm_max_doubles(m.samples, m.n);
        if (stats_summarize(m.samples, m.n, &m.stats)) {
            row_fail(row, "error while timing: %s", "out of memory for statistics");
            measure_result_free(&m);
            return;
        }
    }
    result_fill_timing(row, &m, p->flops * per, p->bytes * per);
    if (per != 1) { /* the work columns count one run */
        if (row->flops > 0) row->flops *= per;
        if (row->bytes > 0) row->bytes *= per;
    }
    if (p->items > 0 && row->median_ms > 0)
        row->samples_per_s = p->items * per / (row->median_ms / 1e3);
    if (ex->finish && ex->finish(ex->st, &m, row)) {
        row_fail(row, "error: %s", err_get());
        return;
    }
    /* phases are marked by the process that steps (not by one that waits for
     * workers elsewhere) */
    if (suite_step_count(s) > 0 && !ex->elsewhere && profile_phases(r, ex, gpu, row)) {
        row_fail(row, "error while profiling a step: %s", err_get());
        return;
    }
    /* the row points into m's samples until emitted */
}

void exec_case(runner *r, const suite_def *s, const backend_def *b, const problem *p,
               const case_data *d, case_exec *ex, int gpu, result_row *row)
{
    measure_result m;
    if (!exec_check(r, s, b, p, d, ex, row)) return;
    measure_cfg cfg = exec_cfg(r, s, ex, gpu, row);
    err_clear();
    if (measure_run(&cfg, ex->run, ex->st, &m)) {
        row_fail(row, "error while timing: %s", err_get());
        return;
    }
    exec_timed(r, s, p, ex, gpu, &m, row);
}

/* Cases checked apart and timed together (runner_int.h): timed[i] says which
 * of the n passed their checked run; the others' rows are as they are. */
void exec_group(runner *r, const suite_def *s, const problem *p, int n, const int *timed,
                case_exec *ex, result_row *row)
{
    measure_cfg cfg[CASE_MAX_BACKENDS];
    measure_fn fn[CASE_MAX_BACKENDS];
    void *ctx[CASE_MAX_BACKENDS];
    measure_result m[CASE_MAX_BACKENDS];
    int at[CASE_MAX_BACKENDS], k = 0;
    for (int i = 0; i < n && i < CASE_MAX_BACKENDS; i++)
        if (timed[i]) {
            cfg[k] = exec_cfg(r, s, &ex[i], 0, &row[i]);
            fn[k] = ex[i].run;
            ctx[k] = ex[i].st;
            at[k++] = i;
        }
    err_clear();
    if (k > 0 && measure_group(cfg, k, fn, ctx, r->rounds, m)) {
        for (int j = 0; j < k; j++) row_fail(&row[at[j]], "error while timing: %s", err_get());
        return;
    }
    for (int j = 0; j < k; j++) {
        result_row *w = &row[at[j]];
        exec_timed(r, s, p, &ex[at[j]], 0, &m[j], w);
        if (k < 2 || strcmp(w->check, "pass") != 0) continue;
        /* what it alternated with: a ratio of these rows was measured as one */
        size_t u = strlen(w->note);
        u += (size_t)snprintf(w->note + u, sizeof w->note - u, "%sinterleaved in %d rounds with",
                              u ? "; " : "", r->rounds);
        for (int o = 0; o < k && u < sizeof w->note; o++)
            if (o != j)
                u += (size_t)snprintf(w->note + u, sizeof w->note - u, " %s", row[at[o]].backend);
    }
}

/* ---- rows ----------------------------------------------------------------- */

void row_start(const runner *r, result_row *row, const suite_def *s, const problem *p,
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
    snprintf(row->role, sizeof row->role, "%s", backend_role(b));
    snprintf(row->machine, sizeof row->machine, "%s", r->machine ? r->machine : "");
    row->version = s->version > 0 ? s->version : 1;
    if (p) {
        if (p->flops > 0) row->flops = p->flops;
        if (p->bytes > 0) row->bytes = p->bytes;
        /* the compulsory traffic at the row's dtype; the bandwidth suites' bytes */
        int dt = dtype_parse(row->dtype);
        row->io_bytes = problem_io_bytes(p, dt >= 0 ? (dtype_t)dt : DTYPE_FP32);
        if (p->sweep[0] && p->sweep_x > 0) {
            snprintf(row->sweep, sizeof row->sweep, "%s", p->sweep);
            row->sweep_x = p->sweep_x;
        }
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
int row_emit(runner *r, result_row *row, double base_median, const char *baseline)
{
    repro_launcher(row->repro, sizeof row->repro, row->replicas, row->comm);
    if (interrupt_signal()) {
        free(row->samples);
        row->samples = NULL;
        dump_settle(r, 0); /* no row, no dump */
        return 1;
    }
    if (row->emulated) /* the emulator's times mean nothing: no throughput, ratio or part of them */
        result_row_drop_timed(row);
    if (baseline && !row->emulated) {
        snprintf(row->baseline, sizeof row->baseline, "%s", baseline);
        row->speedup = base_median / row->median_ms;   /* NAN when either is missing */
    }
    if (row->energy_j > 0) { /* the energy's ratios, once the row's work and rate are final */
        if (row->flops > 0) row->gflops_per_w = row->flops / row->energy_j / 1e9;
        if (row->samples_per_s > 0 && row->median_ms > 0)
            row->samples_per_j = row->samples_per_s * row->median_ms / 1e3 / row->energy_j;
    }
    machine_workload(row->suite, row->version, row->shape, row->dtype, row->mode, row->threads,
                     row->replicas, row->workload, sizeof row->workload);
    int rc = r->emit(r->emit_ctx, row);
    free(row->samples);
    row->samples = NULL;
    if (dump_settle(r, rc == 0) && rc == 0) rc = -1;
    return rc;
}

void row_fail(result_row *row, const char *fmt, const char *what)
{
    snprintf(row->check, sizeof row->check, "fail");
    snprintf(row->note, sizeof row->note, fmt, *what ? what : "the backend returned an error");
}

void row_skip(result_row *row, const char *fmt, ...)
{
    va_list ap;
    snprintf(row->check, sizeof row->check, "skip");
    va_start(ap, fmt);
    vsnprintf(row->note, sizeof row->note, fmt, ap);
    va_end(ap);
}

int ranks_signal(void)
{
    int sig = comm_max_int(interrupt_signal());
    if (sig && !interrupt_signal()) interrupt_adopt(sig); /* another rank's: ours too */
    return sig;
}

int ranks_rc(const runner *r, int rc)
{
    if (!r->comm || r->comm->size <= 1) return rc;
    /* a signal to any rank (one sitting out rank 0's case included) ends the run on all */
    double v[2] = {rc != 0, interrupt_signal()};
    comm_max_doubles(v, 2);
    if (v[1] > 0 && !interrupt_signal()) interrupt_adopt((int)v[1]);
    return (v[0] > 0 || v[1] > 0) && rc == 0 ? 1 : rc;
}
