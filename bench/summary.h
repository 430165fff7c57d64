/* bench/summary.h - what a run prints on stdout when it ends: every row only
 * with --verbose; then the findings (report/findings.h, read back from the
 * results.csv the run just closed: the same lines report.md opens with), the
 * failed checks always, and the closing count of rows. */
#ifndef BENCH_SUMMARY_H
#define BENCH_SUMMARY_H

#include <stdio.h>
#include "run.h"

/* Writes r's summary to f; outdir holds its results.csv. */
void summary_print(const bench_run *r, const char *outdir, FILE *f);

#endif
