/* report/report_roofs.h - report.md's roofs section (report_roofs.c): the
 * run's roofs from its context lines, and how many rows got each verdict. */
#ifndef REPORT_REPORT_ROOFS_H
#define REPORT_REPORT_ROOFS_H

#include <stdio.h>
#include "rundata.h"

/* Writes the "Roofs" section (nothing for a run without roof lines). */
void report_roofs_write(const rundata *rd, FILE *f);

#endif
