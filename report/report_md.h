/* report/report_md.h - <run>/report.md: environment, failed checks first,
 * one results table per suite, the run's charts. */
#ifndef REPORT_REPORT_MD_H
#define REPORT_REPORT_MD_H

#include "rundata.h"

/* Writes <dir>/report.md (dirfd: <dir> open) whole or not at all, never
 * through a link (af_open_at); embeds the charts found in <dir>/plots/. A
 * run that did not record its end (no "finished" nor "interrupted" context
 * line) is said to be possibly incomplete, never "all checks passed".
 * 0, or -1 with the reason on stderr. */
int report_md_write(const rundata *rd, int dirfd, const char *dir);

#endif
