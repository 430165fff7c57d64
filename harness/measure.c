/* harness/measure.c - warm-up, repeat to count and time, keep every sample;
 * judge each measurement and measure a disturbed one again (disturb.h); one
 * row alone or several in alternating rounds, by the same loop. */
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
#include <stdio.h>
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

/* One row of a group while it is measured (measure_group). */
typedef struct row_run {
    measure_fn fn;
    void *ctx;
    measure_result cur;      /* this try's samples */
    double *ends;            /* when each sample ended (grown with them) */
    int cap;
    double measured;         /* ms of samples this try */
    double spent;            /* wall ms of its warm-ups and slices, every try (budget_s) */
    double try_ms;           /* wall ms of its slices this try */
    int stopped;             /* its stop rules said enough this try */
    disturb_metrics dm;      /* its slices' signals, summed */
    double energy_j;         /* its slices' energy, summed (NAN: not known) */
    disturb_finding first;   /* its first disturbed try's judgment */
    double first_median;
} row_run;

/* Room for one more sample. 0, or -1 with err_set. */
static int grow(row_run *w)
{
    if (w->cur.n < w->cap) return 0;
    int cap = w->cap ? 2 * w->cap : 64;
    double *p = realloc(w->cur.samples, (size_t)cap * sizeof *p);
    if (p) w->cur.samples = p;
    double *e = p ? realloc(w->ends, (size_t)cap * sizeof *e) : NULL;
    if (!e) {
        err_set("out of memory for timing samples");
        return -1;
    }
    w->ends = e;
    w->cap = cap;
    return 0;
}

/* Row w's slice of round k of `rounds`: repetitions until the stop rules say
 * enough (then w->stopped) or, before the last round, until it has k/rounds
 * of its reps and time, or of max_reps (a fast row that will stop at the cap
 * spreads its capped repetitions over the rounds too). Its signals and energy
 * are added to the row's. 0, or the callable's status / -1 with err_set. */
static int slice(const measure_cfg *cfg, row_run *w, double plateau, double budget_ms, int k,
                 int rounds)
{
    if (w->stopped) return 0;
    const long share_reps = ((long)k * cfg->min_reps + rounds - 1) / rounds;
    const long share_max = ((long)k * cfg->max_reps + rounds - 1) / rounds;
    const double share_ms = cfg->min_time_s * 1e3 * k / rounds;
    disturb_snap a, b;
    disturb_metrics dm;
    energy_span es;
    double ms, end;
    int rc = 0;
    energy_span_begin(&es, cfg->energy == MEASURE_ENERGY_CPU ? energy_cpu() : NULL,
                      cfg->energy == MEASURE_ENERGY_GPU ? energy_gpu_get() : NULL);
    disturb_snap_take(&a);
    const double t0 = timer_now_ms();
    for (;;) {
        int code = 0;
        if (interrupt_signal()) code = MEASURE_INTERRUPTED + interrupt_signal();
        else if (w->cur.n >= cfg->min_reps && w->measured >= cfg->min_time_s * 1e3) code = 1;
        else if (w->cur.n >= cfg->max_reps) code = 1;
        else if (w->cur.n >= 1 && w->spent + (timer_now_ms() - t0) > budget_ms) code = 1;
        code = decide(cfg, code);
        if (code >= MEASURE_INTERRUPTED) { /* the runner abandons the case */
            err_set("interrupted by %s", interrupt_signal() ? interrupt_name(interrupt_signal())
                                                            : "a signal on another rank");
            rc = -1;
            break;
        }
        if (code == 1) {
            int enough = w->cur.n >= cfg->min_reps && w->measured >= cfg->min_time_s * 1e3;
            if (!enough && w->cur.n >= cfg->max_reps) w->cur.hit_max = 1;
            else if (!enough) w->cur.hit_budget = 1;
            w->stopped = 1;
            break;
        }
        if (k < rounds && ((w->cur.n >= share_reps && w->measured >= share_ms) ||
                           w->cur.n >= share_max))
            break;
        if ((rc = one_rep(w->fn, w->ctx, plateau, &ms, &end)) || (rc = grow(w))) break;
        w->ends[w->cur.n] = end;
        w->cur.samples[w->cur.n++] = ms;
        w->measured += ms;
    }
    const double wall = timer_now_ms() - t0;
    disturb_snap_take(&b);
    w->energy_j += energy_span_end(&es);
    disturb_metrics_between(&a, &b, &dm);
    disturb_metrics_add(&w->dm, &dm);
    w->spent += wall;
    w->try_ms += wall;
    return rc;
}

/* Every row's repetitions of one try, in rounds (measure_group); then each
 * row's statistics and judgment. 0, or the callable's status / -1. */
static int measure_try(const measure_cfg *cfg, row_run *w, int n, int rounds, double plateau)
{
    for (int i = 0; i < n; i++) {
        memset(&w[i].cur, 0, sizeof w[i].cur);
        memset(&w[i].dm, 0, sizeof w[i].dm);
        w[i].cap = 0;
        w[i].ends = NULL;
        w[i].measured = w[i].try_ms = w[i].energy_j = 0;
        w[i].stopped = 0;
    }
    for (int k = 1; k <= rounds; k++)
        for (int i = 0; i < n; i++) {
            int rc = slice(&cfg[i], &w[i], plateau, cfg[i].budget_s * 1e3, k, rounds);
            if (rc) return rc;
        }
    for (int i = 0; i < n; i++) {
        if (stats_summarize(w[i].cur.samples, w[i].cur.n, &w[i].cur.stats)) {
            err_set("out of memory for statistics");
            return -1;
        }
        w[i].cur.energy_j = w[i].energy_j;
        disturb_judge((disturb_kind)cfg[i].judge, cfg[i].threads, &w[i].dm, w[i].cur.samples,
                      w[i].ends, w[i].cur.n, &w[i].cur.kept);
        free(w[i].ends);
        w[i].ends = NULL;
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
    row_run w;
    memset(&w, 0, sizeof w);
    w.fn = fn;
    w.ctx = ctx;
    int rc = measure_try(cfg, &w, 1, 1, plateau); /* one row, one round, a budget of its own */
    neighbour_stop(pid);
    free(w.ends);
    if (rc) {
        measure_result_free(&w.cur);
        measure_result_free(out);
        return rc;
    }
    out->neighbour_median_ms = w.cur.stats.median;
    measure_result_free(&w.cur);
    return 0;
}

int measure_run(const measure_cfg *cfg, measure_fn fn, void *ctx, measure_result *out)
{
    void *const ctxs[1] = {ctx};
    return measure_group(cfg, 1, &fn, ctxs, 1, out);
}

int measure_group(const measure_cfg *cfg, int n, const measure_fn *fns, void *const *ctxs,
                  int rounds, measure_result *out)
{
    const double plateau = plateau_ms();
    const int no_remeasure = getenv(HOOK_NO_REMEASURE) != NULL;
    double ms, end;
    int rc = 0;
    if (n < 1) return 0;
    if (rounds < 2 || n == 1 || cfg->agree) rounds = 1;
    row_run *w = calloc((size_t)n, sizeof *w);
    for (int i = 0; i < n; i++) {
        memset(&out[i], 0, sizeof out[i]);
        out[i].energy_j = NAN;
    }
    if (!w) {
        err_set("out of memory for timing samples");
        return -1;
    }
    /* every row's warm-ups first */
    for (int i = 0; i < n && !rc; i++) {
        const double t0 = timer_now_ms(), budget_ms = cfg[i].budget_s * 1e3;
        w[i].fn = fns[i];
        w[i].ctx = ctxs[i];
        w[i].first_median = NAN;
        for (int k = 0; k < cfg[i].warmup; k++) {
            if (decide(&cfg[i], interrupt_signal() ? MEASURE_INTERRUPTED + interrupt_signal() : 0))
                break;
            if ((rc = one_rep(w[i].fn, w[i].ctx, plateau, &ms, &end))) break;
            /* slow case: keep time for samples */
            if (decide(&cfg[i], timer_now_ms() - t0 > budget_ms / 2)) break;
        }
        w[i].spent = timer_now_ms() - t0;
    }
    /* measure; while a row is disturbed, all again within what is left of the budget */
    double kept_score = 0;
    for (int tries = 1; !rc; tries++) {
        if ((rc = measure_try(cfg, w, n, rounds, plateau))) break;
        double score = 0;
        int disturbed = 0, fits = 1, judged = 0;
        for (int i = 0; i < n; i++) {
            const measure_result *c = &w[i].cur;
            score = c->kept.score > score ? c->kept.score : score;
            disturbed |= c->kept.disturbed;
            if (c->kept.disturbed && !w[i].first.disturbed) {
                w[i].first = c->kept;
                w[i].first_median = c->stats.median;
            }
        }
        for (int i = 0; i < n && disturbed; i++)   /* measured again for another's sake */
            if (!w[i].first.disturbed && !*w[i].first.what)
                snprintf(w[i].first.what, sizeof w[i].first.what, "%s",
                         "in another row it alternates with");
        for (int i = 0; i < n; i++) {
            /* another try may take as long as this one did */
            fits &= w[i].spent + w[i].try_ms <= cfg[i].budget_s * 1e3;
            judged |= cfg[i].judge != DISTURB_NONE;
        }
        /* the least disturbed try so far; replicated cases keep the last,
         * the same try on every rank (their samples are combined rank by rank) */
        const int keep = tries == 1 || cfg->agree || score < kept_score;
        if (keep) kept_score = score;
        for (int i = 0; i < n; i++) {
            if (keep) {
                measure_result_free(&out[i]);
                out[i] = w[i].cur;
            } else {
                measure_result_free(&w[i].cur);
            }
            out[i].tries = tries;
            out[i].seen = w[i].first;
            out[i].seen_median_ms = w[i].first_median;
        }
        int again = judged && disturbed && tries < DISTURB_MAX_TRIES &&
                    !no_remeasure && fits;
        if (!decide(cfg, again)) break;
    }
    if (rc) /* a try failed: nothing of it was kept */
        for (int i = 0; i < n; i++) {
            measure_result_free(&w[i].cur);
            measure_result_free(&out[i]);
        }
    /* each kept row once more beside the neighbour (--neighbour), one by one */
    for (int i = 0; i < n && !rc; i++) {
        out[i].neighbour_median_ms = NAN;
        if (cfg[i].neighbour && (rc = measure_beside(&cfg[i], fns[i], ctxs[i], plateau, &out[i])))
            for (int j = 0; j < n; j++) /* out[i] freed by measure_beside */
                if (j != i) measure_result_free(&out[j]);
    }
    for (int i = 0; i < n; i++) free(w[i].ends);
    free(w);
    return rc;
}

void measure_result_free(measure_result *r)
{
    free(r->samples);
    r->samples = NULL;
    r->n = 0;
}
