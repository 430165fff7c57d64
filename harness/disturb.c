/* harness/disturb.c - snapshots of what the machine did, and the one rule
 * "disturbed = ..." with its thresholds (disturb.h). */
#define _GNU_SOURCE
#include "disturb.h"
#include "timer.h"

#include <dirent.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* ---- the thresholds: every one here, with why ---------------------------- */

/* CPU rows: the calling thread computes through the whole timed region (a
 * CPU repetition never sleeps or waits for a device), so the process's CPU
 * time is at least the wall time x 1 thread when nothing else ran. Below 80%
 * a fifth of the time went to another task. The bar is one thread's worth,
 * not wall x threads: backends leave threads idle on purpose (OpenBLAS runs
 * small products on one thread and its workers sleep), so the other threads'
 * shortfall is judged by the run-queue wait below, which counts only time a
 * thread was ready to run. */
#define DISTURB_CPU_FRAC 0.80
/* Involuntary switches: a CPU-bound thread on a quiet machine is preempted a
 * few times a second at most (kernel workers, timers); a busy task on the
 * same CPU preempts it every scheduler slice, 100 to 300 times a second. 20
 * per second per thread sits between; at least 5, so that one stray switch
 * in a 0.1 s measurement is not a disturbance. */
#define DISTURB_SWITCHES_PER_S 20.0
#define DISTURB_SWITCHES_MIN 5.0
/* Run-queue wait: our threads were ready but another task held the CPU. 10%
 * of the wall time can make the median up to 10% slow: more than the spread
 * a quiet run shows (STATS_SPREAD_WARN is 5%). Not applied when the row has
 * more threads than usable CPUs: then they wait for each other. */
#define DISTURB_RUNQ_FRAC 0.10
/* Steal (virtual machines): 5% of every CPU's time taken by the hypervisor;
 * at least 20 ms (two of /proc/stat's 10 ms ticks: one is rounding). */
#define DISTURB_STEAL_FRAC 0.05
#define DISTURB_STEAL_MIN_MS 20.0
/* Plateaus: the scheduler ticks of common kernels (HZ 100, 250, 1000). A
 * sample is on the grid within max(20 us, tick / 40) of a whole multiple
 * (wake-up latency), and it ends in phase with the tick within the same
 * tolerance. Both for at least 60% of the samples, of at least 5: on a
 * loaded machine a planted 4 ms plateau had 11 of 20 samples within 0.1 ms,
 * the rest pushed off by late wake-ups or by preemption. Work whose true time
 * is a whole number of ticks is rare, and its back-to-back repetitions drift
 * out of phase unless each is exact to about 2 x tolerance / n: under 1% of
 * rows slower than a tick, with a tight MAD, could be flagged by chance. */
static const double DISTURB_TICKS_MS[] = {10.0, 4.0, 1.0};
#define DISTURB_PLATEAU_TOL_MIN_MS 0.02
#define DISTURB_PLATEAU_FRAC 0.60
#define DISTURB_PLATEAU_MIN_N 5
/* A plateau outweighs a signal just past its threshold when picking the
 * least disturbed try: its time is wrong by whole ticks. */
#define DISTURB_PLATEAU_SCORE 2.0

/* ---- snapshots ------------------------------------------------------------ */

/* Run-queue wait summed over our threads, ms; NAN when no thread has a
 * readable schedstat (no /proc, or a kernel without schedstats). */
static double runq_ms(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d) return NAN;
    double sum = 0;
    int known = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[300];
        snprintf(path, sizeof path, "/proc/self/task/%.200s/schedstat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        unsigned long long run, wait;
        if (fscanf(f, "%llu %llu", &run, &wait) == 2) {
            sum += (double)wait / 1e6;
            known = 1;
        }
        fclose(f);
    }
    closedir(d);
    return known ? sum : NAN;
}

/* Steal summed over every CPU, ms (the "cpu" line's 8th field); NAN when
 * /proc/stat is missing or has no steal field. */
static double steal_ms(void)
{
    FILE *f = fopen("/proc/stat", "r");
    if (!f) return NAN;
    unsigned long long v[8];
    int got = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                     &v[4], &v[5], &v[6], &v[7]);
    fclose(f);
    long hz = sysconf(_SC_CLK_TCK);
    return got == 8 && hz > 0 ? (double)v[7] * 1e3 / (double)hz : NAN;
}

void disturb_snap_take(disturb_snap *s)
{
    struct rusage ru;
    s->runq_ms = runq_ms();
    s->steal_ms = steal_ms();
    if (getrusage(RUSAGE_SELF, &ru) == 0) {
        s->cpu_ms = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
                    (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
        s->nivcsw = (double)ru.ru_nivcsw;
    } else {
        s->cpu_ms = s->nivcsw = NAN;
    }
    s->wall_ms = timer_now_ms(); /* last: the /proc reads are before the region */
}

void disturb_metrics_between(const disturb_snap *a, const disturb_snap *b, disturb_metrics *m)
{
    m->wall_ms = b->wall_ms - a->wall_ms;
    m->cpu_ms = b->cpu_ms - a->cpu_ms;       /* NAN stays NAN */
    m->nivcsw = b->nivcsw - a->nivcsw;
    m->runq_ms = b->runq_ms - a->runq_ms;
    m->steal_ms = b->steal_ms - a->steal_ms;
    long on = sysconf(_SC_NPROCESSORS_ONLN);
    m->online_cpus = on > 0 ? (int)on : 1;
    cpu_set_t set;
    m->usable_cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : m->online_cpus;
}

void disturb_metrics_add(disturb_metrics *sum, const disturb_metrics *m)
{
    sum->wall_ms += m->wall_ms;
    sum->cpu_ms += m->cpu_ms;   /* NAN stays NAN */
    sum->nivcsw += m->nivcsw;
    sum->runq_ms += m->runq_ms;
    sum->steal_ms += m->steal_ms;
    sum->online_cpus = m->online_cpus;
    sum->usable_cpus = m->usable_cpus;
}

/* ---- plateaus ------------------------------------------------------------- */

int disturb_plateau(const double *samples, const double *ends_ms, int n, double *tick_ms)
{
    if (!samples || !ends_ms || n < DISTURB_PLATEAU_MIN_N) return 0;
    const double two_pi = 6.283185307179586;
    for (size_t t = 0; t < sizeof DISTURB_TICKS_MS / sizeof DISTURB_TICKS_MS[0]; t++) {
        double q = DISTURB_TICKS_MS[t], tol = fmax(DISTURB_PLATEAU_TOL_MIN_MS, q / 40);
        int on = 0;
        for (int i = 0; i < n; i++) {
            double k = round(samples[i] / q);
            on += k >= 1 && fabs(samples[i] - k * q) <= tol;
        }
        if (on < DISTURB_PLATEAU_FRAC * n) continue;
        /* in phase: the ends' circular mean modulo the tick, then how many sit near it */
        double sx = 0, sy = 0;
        for (int i = 0; i < n; i++) {
            double th = two_pi * fmod(ends_ms[i], q) / q;
            sx += cos(th);
            sy += sin(th);
        }
        double mean = atan2(sy, sx) / two_pi * q;
        int inphase = 0;
        for (int i = 0; i < n; i++) {
            double d = fabs(fmod(ends_ms[i], q) - (mean < 0 ? mean + q : mean));
            inphase += fmin(d, q - d) <= tol;
        }
        if (inphase >= DISTURB_PLATEAU_FRAC * n) {
            if (tick_ms) *tick_ms = q;
            return 1;
        }
    }
    return 0;
}

/* ---- the rule ------------------------------------------------------------- */

/* Records one signal's ratio to its threshold; >= 1 trips it (bit, text). */
static void trip(disturb_finding *f, unsigned bit, double ratio, const char *text)
{
    if (isnan(ratio)) return;
    if (ratio > f->score) f->score = ratio;
    if (ratio < 1) return;
    f->disturbed = 1;
    f->signals |= bit;
    size_t u = strlen(f->what);
    snprintf(f->what + u, sizeof f->what - u, "%s%s", u ? ", " : "", text);
}

void disturb_judge(disturb_kind kind, int threads, const disturb_metrics *m, const double *samples,
                   const double *ends_ms, int n, disturb_finding *f)
{
    memset(f, 0, sizeof *f);
    if (kind == DISTURB_NONE || !(m->wall_ms > 0)) return;
    const double wall = m->wall_ms;
    const int t = threads > 0 ? threads : 1;
    char text[96];
    /* disturbed = CPU time short of one thread's worth (CPU rows) */
    if (kind == DISTURB_CPU_ROW && !isnan(m->cpu_ms)) {
        snprintf(text, sizeof text, "CPU %.0f%% of wall x %d thread%s",
                 100 * m->cpu_ms / (wall * t), t, t == 1 ? "" : "s");
        trip(f, DISTURB_SIG_CPU, (1 - m->cpu_ms / wall) / (1 - DISTURB_CPU_FRAC), text);
    }
    /* or involuntary switches beyond the quiet rate */
    if (!isnan(m->nivcsw)) {
        double bar = fmax(DISTURB_SWITCHES_MIN, DISTURB_SWITCHES_PER_S * wall / 1e3 * t);
        snprintf(text, sizeof text, "%.0f involuntary switches", m->nivcsw);
        trip(f, DISTURB_SIG_SWITCHES, m->nivcsw / bar, text);
    }
    /* or our threads waited in the run queue */
    if (!isnan(m->runq_ms) && threads <= m->usable_cpus) {
        snprintf(text, sizeof text, "run queue %.0f%% of wall", 100 * m->runq_ms / wall);
        trip(f, DISTURB_SIG_RUNQ, m->runq_ms / (DISTURB_RUNQ_FRAC * wall), text);
    }
    /* or the hypervisor stole CPU time */
    if (!isnan(m->steal_ms) && m->steal_ms >= DISTURB_STEAL_MIN_MS) {
        int c = m->online_cpus > 0 ? m->online_cpus : 1;
        snprintf(text, sizeof text, "steal %.0f%% of %d CPU%s", 100 * m->steal_ms / (wall * c), c,
                 c == 1 ? "" : "s");
        trip(f, DISTURB_SIG_STEAL, m->steal_ms / (DISTURB_STEAL_FRAC * wall * c), text);
    }
    /* or the samples sit on the scheduler tick */
    double tick = 0;
    if (disturb_plateau(samples, ends_ms, n, &tick)) {
        snprintf(text, sizeof text, "plateau at multiples of %g ms", tick);
        trip(f, DISTURB_SIG_PLATEAU, DISTURB_PLATEAU_SCORE, text);
    }
}

void disturb_quiet_line(char *buf, size_t cap, int timed, int disturbed, int retried)
{
    if (timed <= 0) snprintf(buf, cap, "unknown: no timed rows");
    else if (!disturbed)
        snprintf(buf, cap, "yes: 0 of %d timed rows disturbed, %d measured again", timed, retried);
    else
        snprintf(buf, cap, "no: %d of %d timed rows stayed disturbed, %d measured again", disturbed,
                 timed, retried);
}
