/* report/chart_series.h - the machinery every chart builder shares (inside
 * report/ only): series labels, the rows a chart takes, points written as
 * titled blocks (one per series, or panel by panel), gnuplot parameters, the
 * canonical order of execution modes. chart_data.c (the per-repetition
 * charts) and chart_steps.c (the training-step charts) build on it.
 */
#ifndef REPORT_CHART_SERIES_H
#define REPORT_CHART_SERIES_H

#include <stdio.h>
#include "chart_data.h"

#define MAX_SERIES 48

/* One plotted value: x, y, three extra columns (a, b: e.g. a bar's bottom
 * and top; c: free, e.g. a panel index), and its series. */
typedef struct point {
    double x, y, a, b, c;
    int series;
} point;

/* Distinct names in order of first use (series titles, groups, panels). */
typedef struct labels {
    int n;
    char s[MAX_SERIES][96];
} labels;

/* Index of s in l, added when new; -1 when l is full. */
int chart_label(labels *l, const char *s);

/* Appends printf-style text at buf + *len when it fits whole; returns -1 and
 * leaves buf unchanged when it does not. */
int chart_append(char *buf, size_t cap, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Whether a character may not reach gnuplot inside a string: a quote of
 * either kind, a backslash (an escape in "..."), a backquote (gnuplot runs
 * `...` as a shell command inside "..." on a command line, and the scripts
 * eval xtics), '$', a control character. Every text taken from a cell
 * (labels, titles, parameters, data-file titles) has them made '_', whatever
 * the reader's validation let through: no cell can close a string. */
int chart_unsafe(unsigned char ch);
/* Makes every chart_unsafe character of s '_', in place. */
void chart_clean(char *s);

/* A quoted string for the data file (gnuplot takes no escapes there): the
 * chart_unsafe characters written as '_'. */
void chart_quoted(FILE *f, const char *s);

/* "name='\"label\" 0, \"label\" 1, ...'; " for `set xtics` (the scripts eval
 * it) from l, every label cleaned (chart_clean); whole or c->truncated. */
void chart_param_xtics(chart_ctx *c, const char *name, const labels *l);

/* Records that a row is plotted: which devices the title must name. */
void chart_use_row(chart_ctx *c, int row);

/* The rows of this suite with a number in col (timings only when want ==
 * RD_TIMING), further kept by keep (NULL: all). malloc'd; *n their count. */
int *chart_rows(chart_ctx *c, int col, int want, int (*keep)(const rundata *, int), int *n);

/* Writes points grouped into one block per series (sorted by x), each block
 * titled with its label; columns x y a b c. Returns the number of blocks. */
int chart_write_series(chart_ctx *c, point *pts, int np, const labels *l);

/* Writes points panel by panel (pts[i].c: the panel index into panels), one
 * block per series within a panel (sorted by x); columns x y a b. Sets the
 * parameters npanels, p0 and p1 (first and last block of each panel), ser
 * (series number + 1 per block, for its style) and pt1, pt2, ... (each
 * panel's title, from panels). Returns the number of blocks. */
int chart_write_panels(chart_ctx *c, point *pts, int np, const labels *panels, const labels *series);

/* "name='v1 v2 ...'" from n integers, in block order (e.g. colour indices). */
void chart_param_words(chart_ctx *c, const char *name, const int *v, int n);

/* Rows that count flops, CPU (host) or GPU resident (kernel alone). */
int chart_keep_host_or_resident(const rundata *rd, int row);

/* Whether the positive y values in pts span more than `decades` (a log axis). */
int chart_wants_log(const point *pts, int np, double decades);

/* Bar extents of speedups, columns a (bottom) and b (top): on a linear axis
 * (from 0) every bar rises from the axis; on a log axis (speedups spanning
 * more than a decade) the axis is centred on 1x, symmetric in decades
 * (ylim: it runs from 1/ylim to ylim) and a bar grows up (faster) or down
 * (slower) from 1x. Sets the logy and ylim parameters. */
void chart_speedup_bars(chart_ctx *c, point *pts, int np);

/* The canonical order of execution modes (for bars, legends and colours),
 * NULL-terminated, and the rank of a mode in it (99: not listed). */


#endif
