/* report/chart_data.h - what each chart shows: the rows it takes from a run
 * and the plain data file it hands to its gnuplot script.
 *
 * gnuplot 5.4 cannot read results.csv itself: with `set datafile separator
 * comma` a quoted field keeps the column count but strcol() returns it cut at
 * its first comma ("CUDA host emulator (emulated, not a GPU)" reads as "CUDA
 * host emulator (emulated"). So the C side filters the rows and writes one
 * whitespace-separated file per chart, blocks separated by two blank lines,
 * each block opening with its quoted series title (`title columnheader(1)`).
 */
#ifndef REPORT_CHART_DATA_H
#define REPORT_CHART_DATA_H

#include <stdio.h>
#include "rundata.h"

/* Room for one chart's gnuplot parameters. The longest they get: plotdir
 * (BENCH_PLOTS_DIR: at most PLOTS_DIR_MAX, 4078 bytes, report/plots.h), data
 * and out (the run's temporary folder, up to 4400 bytes, and the chart's
 * name; 9.4 KB, twice that if every character were a doubled quote), title
 * and devline (512 each), xt (48 labels of 96: 5 KB), pt1..pt48 (5 KB) and
 * the numbers and word lists (~4 KB): under 38 KB. A parameter that still
 * did not fit refuses the chart, naming this limit. */
#define CHART_PARAMS_MAX 65536

typedef struct chart_ctx {
    const rundata *rd;
    const char *suite;
    FILE *dat;            /* the data file being written */
    char params[CHART_PARAMS_MAX]; /* extra gnuplot -e assignments, "k='v'; " each */
    size_t plen;
    int truncated;        /* a parameter did not fit: the chart is not drawn */
    int has_cpu;          /* rows plotted include CPU rows */
    char gpu[128];        /* name of the (first) GPU whose rows are plotted */
    char subtitle[256];   /* what was selected, e.g. "largest shape 4096x4096x4096" */
    int device;           /* per-device charts (roofline): ROOF_CPU or ROOF_GPU; suite NULL */
} chart_ctx;

/* A builder writes the chart's blocks into c->dat and its parameters into
 * c->params; returns the number of blocks (0: no data, no chart). */
typedef int (*chart_builder)(chart_ctx *c);

int chart_throughput(chart_ctx *c);
int chart_speedup(chart_ctx *c);
int chart_split(chart_ctx *c);
int chart_bandwidth(chart_ctx *c);
int chart_overlap(chart_ctx *c);
int chart_error(chart_ctx *c);
/* Suites whose rows carry a direction (conv): grouped bars per case (the
 * named layer), one panel per direction. */
int chart_case_throughput(chart_ctx *c);
int chart_case_speedup(chart_ctx *c);

/* Suites whose rows span more than one dtype (chart_dtype.c): at the problem
 * measured at the most dtypes (the largest of those), bars per backend, one
 * per dtype, a panel per direction: GFLOP/s (timings: CPU host, GPU
 * resident; never an emulated row) and accuracy_lost (log axis; every
 * passing row, emulated ones marked). No chart below two dtypes. */
int chart_dtype(chart_ctx *c);
int chart_accuracy(chart_ctx *c);

/* Step suites (rows with samples_per_s; chart_steps.c): a panel per case
 * (the model). Samples/s vs batch per backend; speedup vs batch per GPU
 * backend and mode; phase times per backend and the loss per step per
 * backend (emulated rows too), each at the model's largest batch. */
int chart_samples(chart_ctx *c);
int chart_batch_speedup(chart_ctx *c);
int chart_phases(chart_ctx *c);
int chart_loss(chart_ctx *c);

/* One device kind's roofline (chart_roofline.c, c->device, c->suite NULL):
 * the run's measured roofs and paper peaks per dtype as lines, its timed
 * rows with an intensity as points (GFLOP/s vs FLOP/byte, log-log), a series
 * per backend and dtype. No chart for a device without roofs. */
int chart_roofline(chart_ctx *c);

/* A merge folder's suite (report/chart_merge.c, bench --merge): bars per
 * workload, one per machine, its speedup against the reference machine, a
 * panel per device kind. No chart for a run that is not a merge. */
int chart_merge(chart_ctx *c);

/* Gnuplot parameters, "name='value'; " appended to c->params, each whole or
 * not at all (c->truncated set: the chart is refused, never drawn with a cut
 * value). _str: text from cells, its quotes, backslashes, backquotes, '$'
 * and control characters made '_' (chart_clean), so no cell can close a
 * gnuplot string; _path: a file or folder name, kept as is (gnuplot
 * single-quoted, ' doubled; a control character refuses the chart); _num:
 * name=value. */
void chart_param_str(chart_ctx *c, const char *name, const char *value);
void chart_param_path(chart_ctx *c, const char *name, const char *path);
void chart_param_num(chart_ctx *c, const char *name, double value);

#endif
