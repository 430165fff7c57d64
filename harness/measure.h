/* harness/measure.h - the one timing loop.
 *
 * Warm-up runs first (untimed: module load, handle creation, page faults stay
 * out of the numbers), then repetitions until BOTH min_reps samples and
 * min_time_s of measured time are reached, stopping early only at max_reps or
 * when the case's budget_s of wall time is spent (then at least one sample),
 * or failing at once when the run is interrupted (interrupt.h).
 * Every sample is kept.
 *
 * Each measurement is judged (disturb.h): when something else ran meanwhile,
 * the case is measured again (the warm-up not repeated), at most
 * DISTURB_MAX_TRIES times in all and only within what is left of budget_s;
 * the least disturbed measurement is kept. Replicated cases agree to measure
 * again (any rank disturbed: all do) and keep the last measurement, so they
 * stay in step.
 *
 * With a neighbour (measure_cfg.neighbour, neighbour.h) every judged case of
 * one process is measured once more after that, with its own budget_s,
 * beside the neighbour, which lives only meanwhile: its median is
 * measure_result.neighbour_median_ms; its samples are not kept.
 *
 * A repetition is one call of the callable. A callable that times itself
 * (CUDA events around device work) stores its time in *ms; otherwise it leaves
 * *ms negative and the harness times the call with the monotonic host clock,
 * so the callable must have finished its work (synchronized) when it returns.
 */
#ifndef HARNESS_MEASURE_H
#define HARNESS_MEASURE_H

#include "stats.h"
#include "disturb.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The agree code of an interrupted rank: this + its signal (measure_cfg.agree). */
#define MEASURE_INTERRUPTED 2

typedef struct measure_cfg {
    int warmup;          /* untimed calls first */
    int min_reps;
    int max_reps;
    double min_time_s;   /* measured time to accumulate */
    double budget_s;     /* wall-time cap for the case, warm-up included */
    /* Replicated cases (every rank runs them, with collectives inside each
     * repetition): every decision to go on is agreed, so all ranks run the
     * same number of repetitions. agree(code) returns the largest code over
     * the ranks (0 go on, 1 enough, MEASURE_INTERRUPTED + the signal:
     * interrupted). NULL: this process decides. */
    int (*agree)(int code);
    /* What the disturbance rule applies (disturb_kind; 0: not judged, one
     * measurement) and the CPU threads the row was given. */
    int judge;
    int threads;
    /* Where energy_j is read from (energy.h): the CPU packages (the
     * default), the GPU the case runs on, or nothing (emulated rows). */
    int energy;
    /* neighbour_kind (neighbour.h): measure again beside it; 0: no. Not for
     * cases that are not judged (emulated rows) or replicated (agree). */
    int neighbour;
} measure_cfg;

enum { MEASURE_ENERGY_CPU = 0, MEASURE_ENERGY_GPU = 1, MEASURE_ENERGY_NONE = 2 };

/* Defaults: 2 warm-ups, >= 5 reps and >= 0.25 s, <= 1000 reps, 10 s budget. */
measure_cfg measure_cfg_default(void);

/* One repetition: returns 0 on success (non-zero aborts the measurement). */
typedef int (*measure_fn)(void *ctx, double *ms);

typedef struct measure_result {
    double *samples;     /* ms, owned */
    int n;
    stats_summary stats;
    int hit_budget;      /* stopped by budget_s before min_reps/min_time */
    int hit_max;         /* stopped by max_reps before min_time */
    int tries;           /* measurements taken (the kept one among them) */
    disturb_finding kept;   /* the kept measurement's judgment */
    disturb_finding seen;   /* the first disturbed measurement's (tries > 1) */
    double seen_median_ms;  /* its median repetition; NAN: no try was disturbed */
    double energy_j;     /* the energy over the kept measurement's repetitions,
                          * from measure_cfg.energy's source (energy.h); NAN:
                          * not known */
    double neighbour_median_ms; /* the median beside measure_cfg.neighbour;
                                 * NAN: not measured */
} measure_result;

/* Returns 0, or the callable's non-zero status (or -1 out of memory). */
int measure_run(const measure_cfg *cfg, measure_fn fn, void *ctx, measure_result *out);

/* Measures n callables (rows; row i timed as cfg[i] says) in alternating
 * rounds, so that load that comes and goes reaches every row alike (a ratio
 * of two rows is measured as one): every row's warm-ups, then rounds
 * 1..rounds, each giving every row in turn repetitions until it has
 * k/rounds of its min_reps and min_time_s, or of its max_reps (a row already
 * there sits the round out; the last round takes it to its stop rules). Each row's
 * statistics, judgment (its own repetitions' signals, summed over its
 * slices), budget_s and energy come from its repetitions alone; out[i] is
 * row i's, as measure_run gives it. When any row was disturbed, every row is
 * measured again (the same rule), and the try kept is the one whose most
 * disturbed row is the least: the rows of a ratio come from one try.
 * measure_run is this with n = 1. Rounds below 2, one row, or replicated
 * rows (cfg[0].agree): one round, the rows one after another. Returns 0, or
 * the first failing callable's status (or -1); out[] is then freed. */
int measure_group(const measure_cfg *cfg, int n, const measure_fn *fns, void *const *ctxs,
                  int rounds, measure_result *out);
void measure_result_free(measure_result *r);

#ifdef __cplusplus
}
#endif
#endif
