/* report/report_steps.h - report.md's sections for step suites (rows with
 * samples_per_s: training steps): the phase split of one profiled step per
 * backend at each model's largest batch, and the overlap efficiency of the
 * rows that carry one (prefetch-2). Timings only: emulated rows never show. */
#ifndef REPORT_REPORT_STEPS_H
#define REPORT_REPORT_STEPS_H

#include <stdio.h>
#include "rundata.h"

/* Whether suite's rows are training steps (some carry samples_per_s). */
int report_is_step_suite(const rundata *rd, const char *suite);

/* Writes the "Phases" and "Overlap" subsections of suite (nothing for a
 * suite that is not a step suite). */
void report_steps_write(const rundata *rd, FILE *f, const char *suite);

#endif
