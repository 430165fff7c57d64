/* harness/runner_int.h - what the runner's files share, and nothing outside
 * them includes:
 *   runner_data.c   a problem's host data: buffers, input sets, the reference
 *   runner_exec.c   an opened case checked and timed, and its row emitted
 *   runner_dump.c   a step suite's step 1 written to --dump
 *   runner_iter.c   which cases a run has, in order (runner_iter.h)
 *   runner.c        the run: every case the iterator yields, opened and run
 */
#ifndef HARNESS_RUNNER_INT_H
#define HARNESS_RUNNER_INT_H

#include "runner.h"
#include "runner_iter.h"

#define MAX_SETS 4

/* ---- a problem's host data (runner_data.c) -------------------------------- */

typedef struct case_data {
    case_layout l;
    int nsets;
    void *buf[MAX_SETS][LAYOUT_MAX_BUFS];   /* IN buffers per set; others shared */
    void *init[LAYOUT_MAX_BUFS];            /* INOUT: the initial state */
    void *ref;          /* from the inputs as the case holds them (rounded to its dtype) */
    void *ref_exact;    /* reduced dtypes: from the unrounded fp32 inputs (accuracy_lost) */
} case_data;

/* 64-byte aligned, a multiple of 64 bytes (NULL: out of memory). */
void *data_alloc(size_t n);
/* Builds p's buffers, input sets (filled, seeded) and (refs) references into
 * d. 0, or -1 out of memory (d holds what was allocated: data_free it). */
int data_build(const runner *r, const suite_def *s, const problem *p, case_data *d, int refs);
/* Frees what data_build allocated (a zeroed d: nothing); d is zeroed. */
void data_free(const suite_def *s, case_data *d);
/* INOUT buffers back to their initial state, whatever the case before left
 * (a training step's weights), and (poison) OUT buffers NaN. */
void data_reset(const case_data *d, int poison);

/* A CPU backend's case: b on p over d's input sets in turn. */
typedef struct cpu_state {
    const suite_def *s;
    const backend_def *b;
    const problem *p;
    case_data *d;
    int next;
    int slow;      /* HOOK_PLANT_SLOW names this backend: each repetition 2x */
} cpu_state;

/* Opens c's case into ex: the checked run starts from set 0, the initial
 * state and poisoned outputs. */
void cpu_open(cpu_state *c, case_exec *ex);

/* ---- an opened case and its row (runner_exec.c) --------------------------- */

/* A new row of case (s, p, b, mode): its identity, device, work and repro
 * (p NULL: a row for the whole suite, the problem column "-"). */
void row_start(const runner *r, result_row *row, const suite_def *s, const problem *p,
               const backend_def *b, const char *mode);
/* The row fails: note fmt with what (a backend that said nothing: a generic reason). */
void row_fail(result_row *row, const char *fmt, const char *what);
/* The row is skipped, saying why. */
void row_skip(result_row *row, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Runs an opened case: exec_check, the measure loop over exec_cfg, then
 * exec_timed; fills row. gpu: the case runs on the GPU layer. */
void exec_case(runner *r, const suite_def *s, const backend_def *b, const problem *p,
               const case_data *d, case_exec *ex, int gpu, result_row *row);
/* Its parts, for cases measured together (runner.c, --rounds):
 * exec_check: the checked run (a step suite's checked steps); 1 passed (time
 * it), 0 the row is decided (failed);
 * exec_cfg: how the case is timed (its judge, threads, energy source);
 * exec_timed: the row from its measurement m (the row takes m's samples),
 * then the case's finish and a step's phases. */
int exec_check(runner *r, const suite_def *s, const backend_def *b, const problem *p,
               const case_data *d, case_exec *ex, result_row *row);
measure_cfg exec_cfg(const runner *r, const suite_def *s, const case_exec *ex, int gpu,
                     const result_row *row);
void exec_timed(runner *r, const suite_def *s, const problem *p, case_exec *ex, int gpu,
                measure_result *m, result_row *row);
/* --rounds: n CPU cases of p whose checked runs are done (timed[i]: case i
 * passed it, opened in ex[i]), measured together in r->rounds alternating
 * rounds (measure_group); each timed row filled by exec_timed and its note
 * naming the rows it alternated with. At most CASE_MAX_BACKENDS. */
void exec_group(runner *r, const suite_def *s, const problem *p, int n, const int *timed,
                case_exec *ex, result_row *row);

/* Hands the row on, with its speedup against base_median (the baseline's,
 * NULL: none). 0, -1 when writing it failed; a case the run was interrupted
 * in is abandoned: its row is dropped (1). */
int row_emit(runner *r, result_row *row, double base_median, const char *baseline);

/* A job of several ranks goes on or stops together: rank 0's emit may fail
 * (a full disk), or a signal reach one rank only. */
/* The signal any rank of the job was interrupted by (0: none), adopted by
 * this one (interrupt_adopt); every rank calls it at the same point. */
int ranks_signal(void);
int ranks_rc(const runner *r, int rc);

/* ---- --dump (runner_dump.c) ----------------------------------------------- */

/* Step suites: step 1 of the case into dump_dir/<shape>-<backend>[-<mode>]/,
 * written into <that>.tmp/ and left there as r->dump_pending: row_emit
 * renames it once the case's row is written, and removes it when the case is
 * abandoned. 0, or -1 with err_set. */
int dump_case(runner *r, const suite_def *s, const problem *p, const backend_def *b,
              const char *mode, int replicas, const case_data *d, void *const *out);
/* The pending dump of the case just ended: kept when its row was written
 * (keep), else removed. 0, or -1 with dump_error set. */
int dump_settle(runner *r, int keep);

#endif
