/* report/report.h - a run's output beyond results.csv: gnuplot charts
 * (<run>/plots/), the readable report (<run>/report.md) and Google Benchmark
 * JSON. Both entry points read the run's results.csv, so a finished run and
 * an earlier one (bench --plot DIR) are reported the same way. */
#ifndef REPORT_REPORT_H
#define REPORT_REPORT_H

#ifdef __cplusplus
extern "C" {
#endif

/* What report.md and bench --plot say of a run whose results.csv records no
 * end (neither a "finished" nor an "interrupted" context line); %d: rows. */
#define REPORT_UNENDED "the run did not record its end (killed, or from an older bench): %d rows, " \
                       "possibly incomplete"

/* What a report did, for bench --plot to say. */
typedef struct report_outcome {
    int rows;            /* rows in results.csv */
    int ended;           /* it records the run's end ("finished" or "interrupted") */
    int charts_planned;  /* charts with data (M) */
    int charts_drawn;    /* of those, redrawn (N) */
    int signal;          /* a signal caught during the report stopped it (0: none) */
    int md_written;      /* report.md was rewritten */
    int json_written;    /* the JSON was written */
} report_outcome;

/* At the end of a run: charts (when plots and gnuplot is on PATH; otherwise a
 * one-line note), <run_dir>/report.md, and the JSON at json_path (NULL: none).
 * Every file is written whole or not at all, never through a link in the run
 * folder. A signal caught while it runs (not one caught before: an
 * interrupted run still reports) stops it at once: the chart in progress
 * keeps its earlier version, report.md is left as it was. 0, or -1 with the reason on stderr. */
int report_finish(const char *run_dir, const char *json_path, int plots);

/* bench --plot DIR: the same from DIR/results.csv. Returns an exit code:
 * 0 ok, 1 when an output could not be written, 2 when DIR/results.csv is
 * unreadable, malformed or holds an invalid value (one line on stderr naming
 * the file, line and column; csv_validate), or has no rows (nothing is
 * written then), 128 + N when signal N stopped it (every chart drawn before
 * it is kept, the one in progress keeps its earlier version, report.md and
 * the JSON are left as they were). out (may be NULL) says what was done. */
int report_rerender(const char *run_dir, const char *json_path, int plots, report_outcome *out);

#ifdef __cplusplus
}
#endif
#endif
