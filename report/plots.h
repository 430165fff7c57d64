/* report/plots.h - the run's charts: which have data, rendering them with
 * gnuplot into <run>/plots/<chart>-<suite>.png and .svg. */
#ifndef REPORT_PLOTS_H
#define REPORT_PLOTS_H

#include "rundata.h"

/* The chart kinds, in report order: name (file stem) and title. */
int plots_nkinds(void);
const char *plots_kind_name(int k);
const char *plots_kind_title(int k);
/* Whether kind k is drawn once per device kind over every suite
 * (<name>-cpu, <name>-gpu: the roofline) rather than once per suite. */
int plots_kind_per_device(int k);
/* Why suite has no chart of kind k though its rows are what the kind shows
 * (e.g. the speedup-vs-batch chart of training rows that all ran emulated):
 * one clause for report.md; NULL when the kind is not about this suite. */
const char *plots_kind_absent(int k, const rundata *rd, const char *suite);

/* What became of a render's charts. */
typedef struct plots_outcome {
    int planned;   /* charts with data (M) */
    int drawn;     /* of those, drawn and moved into plots/ (N) */
    int signal;    /* a signal caught while drawing stopped it (0: none) */
    int nospace;   /* a write failed for want of room: no further chart was tried */
} plots_outcome;

/* Renders every chart with data for every suite of the run into
 * <dir>/plots/<chart>-<suite>.png and .svg (a per-device kind:
 * <chart>-cpu, <chart>-gpu); dirfd is <dir> open. Each chart
 * is drawn in a temporary folder inside plots/ and renamed over the earlier
 * one only once gnuplot made it whole, so a failed or interrupted chart
 * keeps the earlier one; plots/ and the charts in it are never written
 * through a link (a plots/ link: no charts, -1). Stops at the first write
 * that fails for want of room (ENOSPC, EFBIG: one line), and at a signal
 * caught while drawing (interrupt_stops_report(): a signal caught before
 * the report began does not stop it, so an interrupted run still gets its
 * charts). Stale charts of kinds that now have no data are
 * removed when it was not stopped. Without gnuplot on PATH, or for a file
 * without the columns charts need (rd_chartable), prints one note and
 * returns 0. out (may be NULL) says what was drawn. 0, or -1 when a chart
 * failed or it was stopped (reason on stderr, except for a signal). */
int plots_render(const rundata *rd, int dirfd, const char *dir, plots_outcome *out);

/* The longest chart scripts' folder (BENCH_PLOTS_DIR) charts can use, in
 * bytes: its longest script's path, "<dir>/layer-speedup.gp", must fit
 * PATH_MAX (4096 with its NUL), so 4096 - 1 - 17 = 4078. Every parameter
 * buffer holds it whole (CHART_PARAMS_MAX, report/chart_data.h); a longer
 * folder is refused with one line naming this limit. bench/cli.c's check
 * (4000) is within it. */
#define PLOTS_DIR_MAX 4078

/* Full path of gnuplot found on PATH into out; 0, or -1 when there is none. */
int plots_find_gnuplot(char *out, size_t cap);

#endif
