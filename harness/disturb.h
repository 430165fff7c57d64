/* harness/disturb.h - whether something else ran while a case was timed.
 *
 * The one timing loop (measure.h) takes a snapshot before and after each
 * measurement; the difference says what the machine did meanwhile:
 *   the process's CPU time (user + sys, getrusage) against the wall time,
 *   involuntary context switches (getrusage ru_nivcsw: another task took the CPU),
 *   run-queue wait of our threads (/proc/self/task/<tid>/schedstat, 2nd field:
 *   ready to run, but waiting for a CPU),
 *   steal time (/proc/stat: a hypervisor ran someone else on our CPUs),
 * and the samples themselves may sit on a plateau: multiples of the scheduler
 * tick, ending in phase with it (a 0.9 ms convolution read as 16.00 ms with a
 * tiny MAD when its threads only got the CPU back at a tick).
 * A signal the machine does not offer (no /proc, no schedstat) is "not
 * known" (NAN), never an error, and never trips the rule.
 * The thresholds and the rule "disturbed = ..." live in disturb.c, once.
 */
#ifndef HARNESS_DISTURB_H
#define HARNESS_DISTURB_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Which signals apply to a row: CPU rows (host-timed work on our threads)
 * get every signal; GPU rows (the host thread waits for the device, so its
 * CPU time says nothing) every signal but CPU time; NONE: not judged
 * (emulated rows: their time means nothing). */
typedef enum { DISTURB_NONE = 0, DISTURB_CPU_ROW, DISTURB_GPU_ROW } disturb_kind;

/* What the machine had done up to one instant. */
typedef struct disturb_snap {
    double wall_ms;   /* monotonic clock */
    double cpu_ms;    /* process user + sys; NAN: not known */
    double nivcsw;    /* involuntary context switches; NAN: not known */
    double runq_ms;   /* run-queue wait summed over our threads; NAN: not known */
    double steal_ms;  /* steal summed over every CPU; NAN: not known */
} disturb_snap;

void disturb_snap_take(disturb_snap *s);

/* What happened between two snapshots. NAN: not known. */
typedef struct disturb_metrics {
    double wall_ms, cpu_ms, nivcsw, runq_ms, steal_ms;
    int online_cpus;   /* steal is machine-wide: per CPU */
    int usable_cpus;   /* our affinity: more threads than these wait for each other */
} disturb_metrics;

/* b - a, with this machine's CPU counts. */
void disturb_metrics_between(const disturb_snap *a, const disturb_snap *b, disturb_metrics *m);

/* sum += m: the metrics of several spans of one row (measure_group's
 * slices); sum zeroed: the first span. */
void disturb_metrics_add(disturb_metrics *sum, const disturb_metrics *m);

/* Signals, as bits of disturb_finding.signals. */
enum {
    DISTURB_SIG_CPU = 1, DISTURB_SIG_SWITCHES = 2, DISTURB_SIG_RUNQ = 4,
    DISTURB_SIG_STEAL = 8, DISTURB_SIG_PLATEAU = 16
};

typedef struct disturb_finding {
    int disturbed;      /* any signal tripped */
    unsigned signals;   /* DISTURB_SIG_* that tripped */
    double score;       /* how disturbed: the largest signal's ratio to its threshold
                         * (>= 1 tripped); the least disturbed try has the lowest */
    char what[160];     /* what was seen: "CPU 48% of wall x 1 thread, 37 involuntary switches" */
} disturb_finding;

/* The rule: judges one measurement of a row of kind `kind` run with
 * `threads` CPU threads (0 for GPU rows), from its metrics and its n samples
 * (ms) with the monotonic time each ended at (ends_ms; NULL: no plateau
 * test). */
void disturb_judge(disturb_kind kind, int threads, const disturb_metrics *m, const double *samples,
                   const double *ends_ms, int n, disturb_finding *f);

/* The plateau test alone: 1 when at least DISTURB_PLATEAU_FRAC of the samples
 * (DISTURB_PLATEAU_FRAC) are whole multiples of a scheduler tick and end in phase with it (the tick
 * in *tick_ms), else 0. */
int disturb_plateau(const double *samples, const double *ends_ms, int n, double *tick_ms);

/* The run's verdict on the machine, the CSV's closing `quiet` context line
 * (without "quiet: "): "yes: 0 of T timed rows disturbed, R measured again",
 * "no: D of T timed rows stayed disturbed, R measured again", or "unknown:
 * no timed rows". timed: rows judged (timed, not emulated); disturbed: those
 * flagged; retried: those with tries > 1. */
void disturb_quiet_line(char *buf, size_t cap, int timed, int disturbed, int retried);

/* Re-measuring a disturbed case: at most this many measurements in all
 * (measure.c; each within what is left of the case's budget_s). */
#define DISTURB_MAX_TRIES 3

#ifdef __cplusplus
}
#endif
#endif
