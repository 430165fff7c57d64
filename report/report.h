/* report/report.h - a run's output beyond results.csv: gnuplot charts
 * (<run>/plots/), the readable report (<run>/report.md) and Google Benchmark
 * JSON. Both entry points read the run's results.csv, so a finished run and
 * an earlier one (bench --plot DIR) are reported the same way. */
#ifndef REPORT_REPORT_H
#define REPORT_REPORT_H

#ifdef __cplusplus
extern "C" {
#endif

/* At the end of a run: charts (when plots and gnuplot is on PATH; otherwise a
 * one-line note), <run_dir>/report.md, and the JSON at json_path (NULL: none).
 * Every file is written whole or not at all. 0, or -1 with the reason on stderr. */
int report_finish(const char *run_dir, const char *json_path, int plots);

/* bench --plot DIR: the same from DIR/results.csv. Returns an exit code:
 * 0 ok, 1 when an output could not be written, 2 when DIR/results.csv is
 * unreadable, malformed or holds an invalid value (one line on stderr naming
 * the file, line and column; csv_validate), or has no rows; nothing is
 * written then. */
int report_rerender(const char *run_dir, const char *json_path, int plots);

#ifdef __cplusplus
}
#endif
#endif
