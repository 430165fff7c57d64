/* harness/measure.c - warm-up, repeat to count and time, keep every sample;
 * judge each measurement and measure a disturbed one again (disturb.h). */
#define _GNU_SOURCE
#include "measure.h"
#include "test_hooks.h"
#include "timer.h"
#include "errmsg.h"
#include "interrupt.h"
#include "energy.h"
#include "neighbour.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>

measure_cfg measure_cfg_default(void)
{
    measure_cfg c = {.warmup = 2, .min_reps = 5, .max_reps = 1000,
                     .min_time_s = 0.25, .budget_s = 10.0};
    return c;
}

/* Test hook BENCH_PLANT_PLATEAU_MS=Q: every host-timed repetition sleeps
 * until the next multiple of Q ms of the monotonic clock, as a thread that
 * gets the CPU back only at a scheduler tick does. 0 when unset. */
static double plateau_ms(void)
{
    const char *v = getenv(HOOK_PLANT_PLATEAU_MS);
    double q = v ? strtod(v, NULL) : 0;
    if (!(q > 0 && q <= 1000)) return 0;
    prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0); /* wake within 1 us of the boundary */
    return q;
}

static void sleep_to_multiple(double q_ms)
{
    struct timespec now, at;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double ms = (double)now.tv_sec * 1e3 + (double)now.tv_nsec / 1e6;
    double next = (floor(ms / q_ms) + 1) * q_ms;
    at.tv_sec = (time_t)(next / 1e3);
    at.tv_nsec = (long)((next - (double)at.tv_sec * 1e3) * 1e6);
    if (at.tv_nsec >= 1000000000L) {
        at.tv_sec++;
        at.tv_nsec -= 1000000000L;
    }
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) == EINTR) {}
}

/* One repetition: its time in *ms, the monotonic time it ended at in *end. */
static int one_rep(measure_fn fn, void *ctx, double plateau, double *ms, double *end)
{
    double self = -1.0;
    double t0 = timer_now_ms();
    int rc = fn(ctx, &self);
    if (plateau > 0) sleep_to_multiple(plateau);
    double t1 = timer_now_ms();
    *ms = self >= 0 ? self : t1 - t0;
    *end = t1;
    return rc;
}

/* What the ranks decide together (measure_cfg.agree), or this one alone. */
static int decide(const measure_cfg *cfg, int code)
{
    return cfg->agree ? cfg->agree(code) : code;
}

/* One measurement: repetitions until the stop rules say enough (budget_ms
 * counted from start). ends gets each sample's end time (grown with the
 * samples). 0, or the callable's status / -1 with out freed. */
static int measure_once(const measure_cfg *cfg, measure_fn fn, void *ctx, double plateau,
                        double start, double budget_ms, measure_result *out, double **ends)
{
    int cap = 64;
    memset(out, 0, sizeof *out);
    out->samples = malloc((size_t)cap * sizeof *out->samples);
    *ends = malloc((size_t)cap * sizeof **ends);
    if (!out->samples || !*ends) {
        measure_result_free(out);
        err_set("out of memory for timing samples");
        return -1;
    }
    double measured = 0, ms, end;
    for (;;) {
        int code = 0;
        if (interrupt_signal()) code = MEASURE_INTERRUPTED + interrupt_signal();
        else if (out->n >= cfg->min_reps && measured >= cfg->min_time_s * 1e3) code = 1;
        else if (out->n >= cfg->max_reps) code = 1;
        else if (out->n >= 1 && timer_now_ms() - start > budget_ms) code = 1;
        code = decide(cfg, code);
        if (code >= MEASURE_INTERRUPTED) { /* the runner abandons the case */
            measure_result_free(out);
            err_set("interrupted by %s", interrupt_signal() ? interrupt_name(interrupt_signal())
                                                            : "a signal on another rank");
            return -1;
        }
        if (code == 1) {
            int enough = out->n >= cfg->min_reps && measured >= cfg->min_time_s * 1e3;
            if (!enough && out->n >= cfg->max_reps) out->hit_max = 1;
            else if (!enough) out->hit_budget = 1;
            break;
        }
        int rc = one_rep(fn, ctx, plateau, &ms, &end);
        if (rc) {
            measure_result_free(out);
            return rc;
        }
        if (out->n == cap) {
            cap *= 2;
            double *p = realloc(out->samples, (size_t)cap * sizeof *p);
            if (p) out->samples = p;
            double *e = p ? realloc(*ends, (size_t)cap * sizeof *e) : NULL;
            if (!e) {
                measure_result_free(out);
                err_set("out of memory for timing samples");
                return -1;
            }
            *ends = e;
        }
        (*ends)[out->n] = end;
        out->samples[out->n++] = ms;
        measured += ms;
    }
    if (stats_summarize(out->samples, out->n, &out->stats)) {
        measure_result_free(out);
        err_set("out of memory for statistics");
        return -1;
    }
    return 0;
}

/* The kept measurement's case once more, with a budget of its own, beside
 * cfg->neighbour (measure.h): its median into out->neighbour_median_ms. The
 * neighbour is stopped whatever the measurement's end. 0, or the callable's
 * status / -1 (out freed). */
static int measure_beside(const measure_cfg *cfg, measure_fn fn, void *ctx, double plateau,
                          measure_result *out)
{
    if (cfg->judge == DISTURB_NONE || cfg->agree) return 0;
    pid_t pid = neighbour_start((neighbour_kind)cfg->neighbour);
    if (pid < 0) {
        measure_result_free(out);
        return -1;
    }
    measure_result near;
    double *ends = NULL, t0 = timer_now_ms();
    int rc = measure_once(cfg, fn, ctx, plateau, t0, cfg->budget_s * 1e3, &near, &ends);
    neighbour_stop(pid);
    free(ends);
    if (rc) {
        measure_result_free(out);
        return rc;
    }
    out->neighbour_median_ms = near.stats.median;
    measure_result_free(&near);
    return 0;
}

int measure_run(const measure_cfg *cfg, measure_fn fn, void *ctx, measure_result *out)
{
    memset(out, 0, sizeof *out);
    out->energy_j = NAN;
    double start = timer_now_ms();
    double budget_ms = cfg->budget_s * 1e3;
    double ms, end, plateau = plateau_ms();
    for (int i = 0; i < cfg->warmup; i++) {
        if (decide(cfg, interrupt_signal() ? MEASURE_INTERRUPTED + interrupt_signal() : 0)) break;
        int rc = one_rep(fn, ctx, plateau, &ms, &end);
        if (rc) return rc;
        /* slow case: keep time for samples */
        if (decide(cfg, timer_now_ms() - start > budget_ms / 2)) break;
    }
    /* measure; while disturbed, again within what is left of the budget */
    const int no_remeasure = getenv(HOOK_NO_REMEASURE) != NULL;
    double *ends = NULL;
    disturb_finding first = {0};
    double first_median = NAN;
    for (int tries = 1;; tries++) {
        measure_result cur;
        disturb_snap a, b;
        disturb_metrics dm;
        double t0 = timer_now_ms();
        energy_span es;
        energy_span_begin(&es, cfg->energy == MEASURE_ENERGY_CPU ? energy_cpu() : NULL,
                          cfg->energy == MEASURE_ENERGY_GPU ? energy_gpu_get() : NULL);
        disturb_snap_take(&a);
        int rc = measure_once(cfg, fn, ctx, plateau, t0, budget_ms - (t0 - start), &cur, &ends);
        disturb_snap_take(&b);
        cur.energy_j = energy_span_end(&es);
        if (rc) {
            free(ends);
            measure_result_free(out);
            return rc;
        }
        disturb_metrics_between(&a, &b, &dm);
        disturb_judge((disturb_kind)cfg->judge, cfg->threads, &dm, cur.samples, ends, cur.n,
                      &cur.kept);
        free(ends);
        ends = NULL;
        const int disturbed = cur.kept.disturbed;
        if (disturbed && !first.disturbed) {
            first = cur.kept;
            first_median = cur.stats.median;
        }
        /* the least disturbed so far; replicated cases keep the last, the
         * same try on every rank (their samples are combined rank by rank) */
        if (tries == 1 || cfg->agree || cur.kept.score < out->kept.score) {
            measure_result_free(out);
            *out = cur;
        } else {
            measure_result_free(&cur);
        }
        out->tries = tries;
        out->seen = first;
        out->seen_median_ms = first_median;
        /* again when this one was disturbed and another fits in the budget:
         * it may take as long as this one did */
        double now = timer_now_ms();
        int again = cfg->judge != DISTURB_NONE && disturbed && tries < DISTURB_MAX_TRIES &&
                    !no_remeasure &&
                    (now - start) + (now - t0) <= budget_ms;
        if (!decide(cfg, again)) break;
    }
    out->neighbour_median_ms = NAN;
    return cfg->neighbour ? measure_beside(cfg, fn, ctx, plateau, out) : 0;
}

void measure_result_free(measure_result *r)
{
    free(r->samples);
    r->samples = NULL;
    r->n = 0;
}
