/* report/report_precision.h - report.md's precision table: per suite whose
 * rows span more than one dtype, GFLOP/s and accuracy lost per dtype, a line
 * per problem and backend. */
#ifndef REPORT_REPORT_PRECISION_H
#define REPORT_REPORT_PRECISION_H

#include <stdio.h>
#include "rundata.h"

/* Writes suite's precision table into f ("### <suite>: precision", a line
 * per problem and backend: case, shape or direction, backend; per dtype of
 * the suite (rd_dtypes, skip rows' included) its GFLOP/s, "(N×)" vs the
 * same backend's fp32 at the same problem, and its accuracy_lost). CPU rows
 * host, GPU rows resident. An emulated row has no GFLOP/s (not a timing),
 * a failed one "**fail**", a dtype the backend skipped "skip" (the reason
 * is in the suite's main table). Nothing when the suite has fewer than two
 * dtypes. */
void report_precision_write(const rundata *rd, FILE *f, const char *suite);

#endif
