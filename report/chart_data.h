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

typedef struct chart_ctx {
    const rundata *rd;
    const char *suite;
    FILE *dat;            /* the data file being written */
    char params[8192];    /* extra gnuplot -e assignments, "k='v'; " each */
    size_t plen;
    int truncated;        /* a parameter did not fit: the chart is not drawn */
    int has_cpu;          /* rows plotted include CPU rows */
    char gpu[128];        /* name of the (first) GPU whose rows are plotted */
    char subtitle[256];   /* what was selected, e.g. "largest shape 4096x4096x4096" */
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

/* Step suites (rows with samples_per_s; chart_steps.c): a panel per case
 * (the model). Samples/s vs batch per backend; speedup vs batch per GPU
 * backend and mode; phase times per backend and the loss per step per
 * backend (emulated rows too), each at the model's largest batch. */
int chart_samples(chart_ctx *c);
int chart_batch_speedup(chart_ctx *c);
int chart_phases(chart_ctx *c);
int chart_loss(chart_ctx *c);

/* Appends name='value' (gnuplot single-quoted, quotes doubled) / name=value. */
void chart_param_str(chart_ctx *c, const char *name, const char *value);
void chart_param_num(chart_ctx *c, const char *name, double value);

#endif
