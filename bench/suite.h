/* bench/suite.h - a suite is a list of problems and the backends that solve them.
 * Suites are listed in suites.c; main.c validates options against them before
 * any work, then runs each selected suite. */
#ifndef BENCH_SUITE_H
#define BENCH_SUITE_H

#include "run.h"

typedef struct suite_def {
    const char *name;
    const char *about;
    int uses_sizes;     /* --sizes applies to it */
    /* The backends it knows, NULL-terminated, reference first. */
    const char *const *(*backends)(void);
    /* Checks the options that concern this suite (sizes fit in memory, ...) and
     * counts the cases it will run. Returns 0, or 2 with a one-line err. */
    int (*plan)(const bench_opts *o, int *ncases, char *err, size_t errcap);
    /* Runs every case, handing rows to run_emit. Returns 0; -1 on a fatal error. */
    int (*run)(bench_run *r);
} suite_def;

extern const suite_def *const SUITES[];   /* NULL-terminated */

const suite_def *suite_find(const char *name);
/* Whether the run selected this backend (no --backend selects all). */
int suite_backend_selected(const bench_opts *o, const char *backend);

extern const suite_def SUITE_MATMUL;
extern const suite_def SUITE_TRANSFER;

#endif
