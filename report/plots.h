/* report/plots.h - the run's charts: which have data, rendering them with
 * gnuplot into <run>/plots/<chart>-<suite>.png and .svg. */
#ifndef REPORT_PLOTS_H
#define REPORT_PLOTS_H

#include "rundata.h"

/* The chart kinds, in report order: name (file stem) and title. */
int plots_nkinds(void);
const char *plots_kind_name(int k);
const char *plots_kind_title(int k);
/* Why suite has no chart of kind k though its rows are what the kind shows
 * (e.g. the speedup-vs-batch chart of training rows that all ran emulated):
 * one clause for report.md; NULL when the kind is not about this suite. */
const char *plots_kind_absent(int k, const rundata *rd, const char *suite);

/* Renders every chart with data for every suite of the run; removes stale
 * charts of kinds that now have none. Without gnuplot on PATH, or for a file
 * without the columns charts need (rd_chartable), prints one note and returns 0.
 * 0, or -1 when a chart failed (reason on stderr). */
int plots_render(const rundata *rd, const char *dir);

/* Full path of gnuplot found on PATH into out; 0, or -1 when there is none. */
int plots_find_gnuplot(char *out, size_t cap);

#endif
