/* tests/harness/disturb_test.c - the "disturbed" rule (harness/disturb.c) on
 * synthetic metrics and samples: a quiet set passes, each signal alone trips
 * it, unknown signals never do; plateaus on and off the tick; and the timing
 * loop measuring a disturbed case again (harness/measure.c). */
#define _POSIX_C_SOURCE 200809L
#include "disturb.h"
#include "measure.h"
#include "result.h"
#include "test_hooks.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { N = 20 };

/* Back-to-back samples of ms each (jitter +-j alternating), ending from t0. */
static void series(double ms, double j, double t0, double *s, double *e)
{
    double t = t0;
    for (int i = 0; i < N; i++) {
        s[i] = ms + (i % 2 ? j : -j);
        t += s[i];
        e[i] = t;
    }
}

static disturb_metrics quiet(void)
{
    disturb_metrics m = {.wall_ms = 100, .cpu_ms = 99, .nivcsw = 1, .runq_ms = 1, .steal_ms = 0,
                         .online_cpus = 2, .usable_cpus = 2};
    return m;
}

/* Judges m with samples s/e as a CPU row of `threads`; checks the signal bits. */
static void expect_signals(const char *what, disturb_kind k, int threads, const disturb_metrics *m,
                           const double *s, const double *e, unsigned want, const char *text)
{
    disturb_finding f;
    disturb_judge(k, threads, m, s, e, N, &f);
    EXPECT(f.signals == want, "%s: signals %#x, want %#x (%s)", what, f.signals, want, f.what);
    EXPECT(f.disturbed == (want != 0), "%s: disturbed %d", what, f.disturbed);
    EXPECT((f.score >= 1) == (want != 0), "%s: score %g", what, f.score);
    if (text) EXPECT(strstr(f.what, text) != NULL, "%s: what '%s' lacks '%s'", what, f.what, text);
    if (!want) EXPECT(f.what[0] == 0, "%s: quiet yet '%s'", what, f.what);
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Try 1 (the first 5 calls) sleeps 10 ms: no CPU time; then it computes 10 ms (long
 * enough that a sanitizer's or a tick's CPU accounting cannot hide the sleep). */
static int calls;
static int sleepy_then_busy(void *ctx, double *ms)
{
    (void)ctx;
    (void)ms;
    if (calls++ < 5) { /* asleep twice as long as a busy repetition */
        struct timespec d = {0, 20000000L};
        nanosleep(&d, NULL);
    } else {
        volatile double x = 0;
        for (double t0 = now_ms(); now_ms() - t0 < 10.0;) x += 1;
    }
    return 0;
}

static int always_sleepy(void *ctx, double *ms)
{
    (void)ctx;
    (void)ms;
    struct timespec d = {0, 10000000L};
    nanosleep(&d, NULL);
    return 0;
}

int main(void)
{
    double s[N], e[N];
    disturb_metrics m = quiet();
    /* a 0.9 ms case with 1% jitter: quiet, as a CPU row and as a GPU row */
    series(0.9, 0.009, 1000.3, s, e);
    expect_signals("quiet", DISTURB_CPU_ROW, 1, &m, s, e, 0, NULL);
    expect_signals("quiet gpu", DISTURB_GPU_ROW, 0, &m, s, e, 0, NULL);
    /* each signal alone */
    m = quiet();
    m.cpu_ms = 48;
    expect_signals("cpu", DISTURB_CPU_ROW, 1, &m, s, e, DISTURB_SIG_CPU, "CPU 48% of wall x 1 thread");
    /* GPU rows: the host thread waits for the device; CPU time is not a signal */
    expect_signals("cpu on a gpu row", DISTURB_GPU_ROW, 0, &m, s, e, 0, NULL);
    /* 2 threads: one thread's worth is the bar (idle workers are no disturbance) */
    m.cpu_ms = 99;
    expect_signals("2 threads, one busy", DISTURB_CPU_ROW, 2, &m, s, e, 0, NULL);
    m = quiet();
    m.nivcsw = 37;
    expect_signals("switches", DISTURB_CPU_ROW, 1, &m, s, e, DISTURB_SIG_SWITCHES,
                   "37 involuntary switches");
    m.nivcsw = 4; /* a few switches in 0.1 s are a quiet machine's */
    expect_signals("few switches", DISTURB_CPU_ROW, 1, &m, s, e, 0, NULL);
    m = quiet();
    m.runq_ms = 30;
    expect_signals("run queue", DISTURB_CPU_ROW, 1, &m, s, e, DISTURB_SIG_RUNQ, "run queue 30% of wall");
    m.usable_cpus = 1; /* 2 threads on 1 CPU wait for each other: not a disturbance */
    expect_signals("run queue, oversubscribed", DISTURB_CPU_ROW, 2, &m, s, e, 0, NULL);
    m = quiet();
    m.steal_ms = 30;
    expect_signals("steal", DISTURB_CPU_ROW, 1, &m, s, e, DISTURB_SIG_STEAL, "steal 15% of 2 CPUs");
    m.steal_ms = 10; /* one /proc/stat tick is rounding */
    expect_signals("one tick of steal", DISTURB_CPU_ROW, 1, &m, s, e, 0, NULL);
    /* unknown signals (no /proc, no schedstat) never trip */
    m = quiet();
    m.cpu_ms = m.nivcsw = m.runq_ms = m.steal_ms = NAN;
    expect_signals("unknown", DISTURB_CPU_ROW, 1, &m, s, e, 0, NULL);

    /* plateaus: the 16.00 ms with a tiny MAD, ending in phase with a 4 ms tick */
    m = quiet();
    series(16.0, 0.003, 4000.02, s, e);
    expect_signals("plateau", DISTURB_CPU_ROW, 1, &m, s, e, DISTURB_SIG_PLATEAU,
                   "plateau at multiples of 4 ms");
    double tick = 0;
    EXPECT(disturb_plateau(s, e, N, &tick) == 1 && tick == 4, "tick %g", tick);
    /* on the grid (16.05 is within 0.1 ms of 16) but drifting out of phase: real work */
    series(16.05, 0.003, 4000.02, s, e);
    expect_signals("on the grid, out of phase", DISTURB_CPU_ROW, 1, &m, s, e, 0, NULL);
    /* mixed multiples (8, 12, 16 ms), every end just after a 4 ms boundary */
    for (int i = 0; i < N; i++) {
        s[i] = 4.0 * (2 + i % 3) + (i % 2 ? 0.01 : -0.01);
        e[i] = 8000 + 40.0 * i + 0.03 + (i % 2 ? 0.01 : 0);
    }
    expect_signals("mixed multiples", DISTURB_CPU_ROW, 1, &m, s, e, DISTURB_SIG_PLATEAU, "4 ms");
    /* a 10 ms tick */
    series(20.0, 0.01, 10000.05, s, e);
    EXPECT(disturb_plateau(s, e, N, &tick) == 1 && tick == 10, "tick %g", tick);
    /* too few samples, or none below one tick, say nothing */
    EXPECT(disturb_plateau(s, e, 4, &tick) == 0, "4 samples");
    series(0.5, 0.0, 2000.0, s, e);
    EXPECT(disturb_plateau(s, e, N, &tick) == 0, "below a tick");
    /* the least disturbed: a worse disturbance scores higher */
    disturb_finding a, b;
    m = quiet();
    m.cpu_ms = 60;
    series(0.9, 0.009, 1000.3, s, e);
    disturb_judge(DISTURB_CPU_ROW, 1, &m, s, e, N, &a);
    m.cpu_ms = 20;
    disturb_judge(DISTURB_CPU_ROW, 1, &m, s, e, N, &b);
    EXPECT(a.disturbed && b.disturbed && b.score > a.score, "scores %g %g", a.score, b.score);
    /* not judged: nothing */
    disturb_judge(DISTURB_NONE, 1, &m, s, e, N, &a);
    EXPECT(!a.disturbed && a.score == 0, "none judged");

    /* the timing loop: a disturbed measurement (asleep: no CPU time) is
     * measured again and the later one kept; a case that stays disturbed is
     * measured DISTURB_MAX_TRIES times and flagged */
    measure_cfg c = {.warmup = 0, .min_reps = 5, .max_reps = 5, .min_time_s = 0, .budget_s = 10,
                     .judge = DISTURB_CPU_ROW, .threads = 1};
    measure_result r;
    /* the hook CTest sets for every test: flagged, one try */
    setenv(HOOK_NO_REMEASURE, "1", 1);
    EXPECT(measure_run(&c, always_sleepy, NULL, &r) == 0 && r.tries == 1 && r.kept.disturbed,
           "BENCH_NO_REMEASURE: tries %d disturbed %d", r.tries, r.kept.disturbed);
    measure_result_free(&r);
    unsetenv(HOOK_NO_REMEASURE);
    EXPECT(measure_run(&c, sleepy_then_busy, NULL, &r) == 0, "run");
    /* the loop is under test here (each signal alone is tested above, on
     * synthetic metrics): a sleeping try is disturbed by some signal (the CPU
     * rule; under ASan its runtime's own CPU time can hide it, and the
     * switches or the 10 ms plateau show it) */
    EXPECT(r.tries >= 2 && r.seen.disturbed && r.seen.signals, "tries %d, seen %#x (%s)", r.tries,
           r.seen.signals, r.seen.what);
    EXPECT(r.n == 5 && calls == 5 * r.tries, "n %d calls %d tries %d", r.n, calls, r.tries);
    /* the first disturbed try's median is kept (>= its 20 ms sleeps), and the
     * row says how much slower it ran than the kept measurement (on a busy
     * machine the busy tries may be disturbed too, and the kept any of them) */
    EXPECT(r.seen_median_ms >= 20, "seen median %g", r.seen_median_ms);
    {
        result_row row;
        result_row_init(&row);
        snprintf(row.device_kind, sizeof row.device_kind, "cpu");
        result_fill_timing(&row, &r, 0, 0);
        EXPECT(fabs(row.disturbed_x - r.seen_median_ms / r.stats.median) < 1e-12 &&
               (r.kept.disturbed || strstr(row.note, "x the kept median); ")) && row.tries == r.tries,
               "disturbed_x %g tries %d note '%s'", row.disturbed_x, row.tries, row.note);
    }
    measure_result_free(&r);
    {   /* the same on a synthetic measurement: try 1 at 30 ms disturbed, kept at 10 */
        measure_result sm;
        memset(&sm, 0, sizeof sm);
        sm.stats.n = 5;
        sm.stats.median = 10;
        sm.tries = 2;
        sm.seen.disturbed = 1;
        snprintf(sm.seen.what, sizeof sm.seen.what, "12 involuntary switches");
        sm.seen_median_ms = 30;
        sm.energy_j = NAN;
        result_row row;
        result_row_init(&row);
        result_fill_timing(&row, &sm, 0, 0);
        EXPECT(fabs(row.disturbed_x - 3) < 1e-12 && strstr(row.note, "measured again after a disturbed "
               "try (12 involuntary switches; 3.00x the kept median); 2 tries"), "disturbed_x %g note '%s'",
               row.disturbed_x, row.note);
        sm.tries = 1;   /* not measured again: no ratio */
        result_row_init(&row);
        result_fill_timing(&row, &sm, 0, 0);
        EXPECT(isnan(row.disturbed_x), "one try: disturbed_x %g", row.disturbed_x);
    }
    EXPECT(measure_run(&c, always_sleepy, NULL, &r) == 0, "run");
    EXPECT(r.tries == DISTURB_MAX_TRIES && r.kept.disturbed && r.kept.signals,
           "tries %d disturbed %d (%s)", r.tries, r.kept.disturbed, r.kept.what);
    measure_result_free(&r);
    /* not judged (emulated rows, the old callers): one measurement */
    c.judge = DISTURB_NONE;
    EXPECT(measure_run(&c, always_sleepy, NULL, &r) == 0 && r.tries == 1 && !r.kept.disturbed,
           "unjudged tries %d", r.tries);
    measure_result_free(&r);
    /* no budget left for another try: one measurement, flagged */
    c.judge = DISTURB_CPU_ROW;
    c.budget_s = 0.001;
    EXPECT(measure_run(&c, always_sleepy, NULL, &r) == 0 && r.tries == 1 && r.kept.disturbed,
           "no budget: tries %d", r.tries);
    measure_result_free(&r);
    TEST_END();
}
