/* report/roofline.h - the roofline charts' side of the report (chart_roofline.c):
 * the run's roofs read back from its context lines, and report.md's links to
 * the charts (one per device kind with roofs: plots/roofline-cpu.png,
 * plots/roofline-gpu.png), or why there are none. */
#ifndef REPORT_ROOFLINE_H
#define REPORT_ROOFLINE_H

#include <stdio.h>
#include "roofs.h"
#include "rundata.h"

/* The run's roofs from its `roof-...` and `roofs:` context lines into rf;
 * 1 when it has any (0: a run from before the roofs, rf all unknown). */
int roofline_roofs(const rundata *rd, roofs *rf);

/* report.md, beside the Roofs section: an image link per roofline chart in
 * <dir>/plots, or one line saying why a run without roofs has none. */
void roofline_links_write(const rundata *rd, FILE *f, const char *dir);

#endif
