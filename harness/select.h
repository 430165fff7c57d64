/* harness/select.h - the run's selection (suites, backends, modes, baseline)
 * checked against the registries before any work: names that do not exist,
 * modes no chosen backend runs, and what the selection has, so that an option
 * meant for something it lacks is refused (bench's option table says, per
 * option, which of these it needs). Knows suites and backends only through
 * the tables it is handed (SUITES[], BACKENDS[]), never by name. */
#ifndef HARNESS_SELECT_H
#define HARNESS_SELECT_H

#include "backend.h"
#include "plan.h"
#include "suite.h"

#include <stddef.h>

/* What a selection has: an option that needs one of these (bench's option
 * table, its `needs`) changes nothing where the selection lacks it. */
enum {
    SEL_GPU = 1u << 0,      /* a GPU case (--cuda-sync, --device, --emulate) */
    SEL_GPU_DP = 1u << 1,   /* a data-parallel mode of a GPU backend (--devices) */
    SEL_OVERLAP = 1u << 2,  /* ddp-overlap runs of a data-parallel suite (--bucket-mb) */
    SEL_BASELINE = 1u << 3, /* the --baseline is among the chosen backends */
    SEL_STEPS = 1u << 4,    /* a training step runs (known once the cases are counted) */
    SEL_WORKERS = 1u << 5,  /* a workers mode (hogwild) can run: a chosen CPU backend of a
                             * suite with one, and --mode names it or is not given */
    SEL_CPU_PAIR = 1u << 6, /* a suite runs host rows of two or more chosen CPU backends
                             * (--rounds alternates between them) */
};
/* The facts select_has gives; SEL_STEPS comes from select_has_steps. */
#define SEL_BEFORE_PLAN (SEL_GPU | SEL_GPU_DP | SEL_OVERLAP | SEL_BASELINE | SEL_WORKERS | \
                         SEL_CPU_PAIR)

typedef struct selection {
    const suite_entry *suite_table;   /* SUITES[], terminated by def NULL */
    const backend_def *backend_table; /* BACKENDS[], terminated by name NULL */
    const char **suites;              /* suite names; "all" is expanded in place */
    int *nsuites;
    int max_suites;                   /* room in suites[] */
    const char *const *backends;      /* none: every backend of each suite */
    int nbackends;
    const char *const *modes;         /* none: every mode */
    int nmodes;
    const char *baseline;             /* NULL: each suite's own */
    unsigned dtypes;                  /* --dtype: DTYPE_BIT set; 0: the default */
    int devices;                      /* --devices (0: not given) */
    int workers;                      /* --workers (0: not given) */
} selection;

/* Expands "all" (without fp32 in dtypes, the suites with no dtype axis are
 * left out, saying so on stderr) and checks that every suite, backend, mode
 * and the baseline exists among the selected suites. 0, or 2 with err. */
int select_validate(const selection *s, char *err, size_t errcap);

/* After select_validate: a mode no chosen backend runs, --devices under a
 * launcher of several ranks; --workers with a GPU backend named, under a
 * launcher of several ranks, or a workers mode named without it. 0, or 2
 * with err. */
int select_check(const selection *s, char *err, size_t errcap);

/* After select_validate: the SEL_BEFORE_PLAN facts the selection has. */
unsigned select_has(const selection *s);
/* SEL_STEPS when a suite with a training step has cases (ncases[i] of
 * suite i), else 0. */
unsigned select_has_steps(const selection *s, const int *ncases);

/* Writes the one line refusing option opt, which needs the fact `need` the
 * selection lacks: it would change nothing. Returns 2. */
int select_refuse(const selection *s, unsigned need, const char *opt, char *err, size_t errcap);

/* Whether a chosen backend runs on the GPU in a selected mode. */
int select_wants_gpu(const selection *s);
/* Whether the run needs collectives: a job of several ranks, a data-parallel
 * mode named, or a suite whose cases run on every rank. */
int select_wants_comm(const selection *s);

/* The planner's view of suite i: its definition, and whether it runs a GPU
 * backend (the host copies of the GPU modes then count in its memory). */
plan_suite select_plan_suite(const selection *s, int i);

#endif
