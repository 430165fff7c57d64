/* bench/cli.h - what the CLI says and checks around a run: --list and
 * --info, a usage error as its one line, warnings held until every check
 * passed, the environment's settings, and --emulate's re-run by bench-emu. */
#ifndef BENCH_CLI_H
#define BENCH_CLI_H

#include "env.h"
#include "opts.h"
#include "select.h"

#include <stddef.h>
#include <stdio.h>

/* The selection o names, over this build's registries (SUITES[], BACKENDS[]);
 * select_validate expands o's "all" in place. */
selection cli_selection(bench_opts *o);

/* bench --list: the selected suites, their problems, modes and backends. */
void cli_list(FILE *f, const bench_opts *o);
/* bench --info: the machine (the GPU layer prints its own lines). */
void cli_info(const env_info *e, FILE *f);

/* Prints a usage error as the one line it is (rank 0 only): a control
 * character in a value the person gave is shown escaped. */
void cli_err(const char *err);
/* err from this rank whichever it is: "bench: rank N: ..." on a rank other
 * than 0 (a usage error only it found; see job_agree). */
void cli_err_rank(const char *err);

/* Warnings found while the input is checked are held until every check has
 * passed: a refusal is then the one line a person reads, and a run that goes
 * ahead shows them (cli_notices_flush, rank 0). */
void cli_notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_notice_line(const char *line);
void cli_notices_flush(void);

/* The environment's settings of a run: thread counts (OMP_NUM_THREADS,
 * OPENBLAS_NUM_THREADS), cpu-omp's convolution route, BENCH_PLOTS_DIR.
 * 0, or 2 with one line in err. */
int cli_check_env(char *err, size_t errcap);

/* --emulate from a build whose GPU layer is not the emulator: the same
 * command, run by bench-emu beside this program. Returns 2 only on failure. */
int cli_exec_emulator(char **argv);

#endif
