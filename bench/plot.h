/* bench/plot.h - bench --plot DIR: redraw an earlier run's charts and
 * rewrite its report.md (and --json) from DIR/results.csv, as a writer of
 * DIR: under DIR's lock, never through a link inside it, each chart replaced
 * only once redrawn whole, stopped cleanly by a signal. */
#ifndef BENCH_PLOT_H
#define BENCH_PLOT_H

#include "opts.h"

/* Runs bench --plot o->plot_dir (with o->json, o->no_plots). Refuses, exit 2
 * with one line and nothing written (no lock file left that it made): a
 * name the chart scripts cannot open, a --json naming the run's own files,
 * a DIR that is not a folder, a DIR a live bench run (or --plot) holds
 * (naming its pid), a link (or a non-regular file) at report.md, plots/, a
 * chart file in plots/ or a --json inside DIR, and a results.csv that is
 * invalid or has no rows. A run that did not record its end gets one line
 * saying so (report.md says the same). A signal (interrupt_signal()) stops
 * it at once (the chart in progress keeps its earlier version) with one line
 * saying how many charts were redrawn and that report.md was left as it
 * was: exit 128 + the signal.
 * Returns the exit code: 0, 1 when an output could not be written, 2, or
 * 128 + N. */
int plot_main(const bench_opts *o);

#endif
