/* report/merge_md.h - a merge folder's report.md (bench --merge): the
 * inputs, per suite the workloads x machines table with speedups against the
 * reference machine and their geometric mean, the roofs side by side, the
 * charts, and what could not be compared. */
#ifndef REPORT_MERGE_MD_H
#define REPORT_MERGE_MD_H

#include <stdio.h>
#include "rundata.h"

/* Writes the report of the merge rd (merge_is) into f; the charts found in
 * <dir>/plots/ are linked. */
void merge_md_write(const rundata *rd, FILE *f, const char *dir);

#endif
