/* report/chart_dtype.c - the precision charts of a suite whose rows span
 * more than one dtype: throughput (GFLOP/s) and accuracy_lost per dtype, per
 * backend, at one representative problem: the one measured at the most
 * dtypes, the largest (rd_work) of those. Grouped bars: x = backend, one bar
 * per dtype (coloured by dtype, the same colour in both charts), a panel per
 * direction (conv) or one panel (matmul). Both draw with plots/dtype.gp
 * (accuracy.gp loads it). Throughput takes timings only (rd_is_timing: no
 * emulated row, no failed one), CPU host and GPU resident rows; accuracy
 * takes every passing row, emulated ones marked: an accuracy is not a
 * timing. */
#include "mode.h"
#include "chart_data.h"
#include "chart_series.h"
#include "../ops/dtype.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The representative problem among rows: a row of the problem measured at
 * the most distinct dtypes, ties to the larger work (its largest row's
 * rd_work), then to the first seen; -1 when rows is empty. *ndt: that
 * problem's dtype count. */
static int representative(const rundata *rd, const int *rows, int n, int *ndt)
{
    int best = -1, best_nd = 0;
    double best_work = -1;
    for (int i = 0; i < n; i++) {
        int first = 1; /* each problem counted once, at its first row */
        for (int j = 0; j < i && first; j++) first = !rd_same_problem(rd, rows[i], rows[j]);
        if (!first) continue;
        int nd = 0;
        double work = -1;
        for (int j = i; j < n; j++) {
            if (!rd_same_problem(rd, rows[i], rows[j])) continue;
            double w = rd_work(rd, rows[j]);
            if (w > work) work = w;
            int seen = 0; /* a dtype counted at its first row of this problem */
            for (int k = i; k < j && !seen; k++)
                seen = rd_same_problem(rd, rows[i], rows[k]) &&
                       strcmp(rd_str(rd, rows[k], COL_DTYPE), rd_str(rd, rows[j], COL_DTYPE)) == 0;
            nd += !seen;
        }
        if (nd > best_nd || (nd == best_nd && work > best_work)) {
            best = rows[i];
            best_nd = nd;
            best_work = work;
        }
    }
    *ndt = best_nd;
    return best;
}

/* Bars of rows[0..n) at the representative problem (at least two dtypes, or
 * no chart): value column col, x groups = backends (GPU: "(resident)"; an
 * emulated row: "(emulated)"), bars per dtype centred on their group, panels
 * per direction. logy: 1 always (accuracy), or when the values span more than
 * 1.5 decades. Parameters: chart_write_panels's, xt, ngroups, bw, sty (dtype
 * rank + 1 per series: its colour), logy, ymin, ylim, accuracy. */
static int dtype_bars(chart_ctx *c, int *rows, int n, int col, int accuracy)
{
    int ndt, rep = representative(c->rd, rows, n, &ndt);
    if (rep < 0 || ndt < 2) return 0;
    labels dirs = {0}, groups = {0}, series = {0};
    /* series: the problem's dtypes in canonical order */
    for (int rank = 0; rank <= DTYPE_COUNT; rank++) /* unknown names last */
        for (int i = 0; i < n; i++)
            if (rd_same_problem(c->rd, rows[i], rep) && rd_dtype_rank(c->rd, rows[i]) == rank)
                chart_label(&series, rd_str(c->rd, rows[i], COL_DTYPE));
    point *pts = malloc(sizeof(point) * (size_t)n);
    int np = 0;
    for (int i = 0; pts && i < n; i++) {
        int r = rows[i];
        if (!rd_same_problem(c->rd, r, rep)) continue;
        char lab[96];
        snprintf(lab, sizeof lab, "%s%s", rd_str(c->rd, r, COL_BACKEND),
                 rd_emulated(c->rd, r) ? " (emulated)" : rd_is_gpu(c->rd, r) ? " (resident)" : "");
        int d = chart_label(&dirs, rd_str(c->rd, r, COL_DIRECTION));
        int g = chart_label(&groups, lab);
        int s = chart_label(&series, rd_str(c->rd, r, COL_DTYPE));
        if (d < 0 || g < 0 || s < 0) continue;
        chart_use_row(c, r);
        pts[np++] = (point){g, rd_num(c->rd, r, col), 0, 0, d, s};
    }
    /* the bars of one group (in one panel) side by side, in dtype order, centred */
    double w = fmin(0.8 / (series.n ? series.n : 1), 0.25), lo = INFINITY, hi = 0;
    for (int i = 0; i < np; i++) {
        int k = 0, m = 0;
        for (int j = 0; j < np; j++)
            if (pts[j].x == pts[i].x && pts[j].c == pts[i].c) {
                m++;
                k += pts[j].series < pts[i].series;
            }
        if (pts[i].y > 0) lo = fmin(lo, pts[i].y), hi = fmax(hi, pts[i].y);
        pts[i].a = k - (m - 1) / 2.0; /* its offset, in bar widths: x is moved below */
    }
    int logy = accuracy || chart_wants_log(pts, np, 1.5);
    /* a log axis starts half a decade below the smallest value: a zero
     * (an exact result) is a bar of no height, its label says 0 */
    double from = logy ? (isfinite(lo) ? pow(10, floor(log10(lo) - 0.5)) : 1e-9) : 0;
    for (int i = 0; i < np; i++) {
        pts[i].x += pts[i].a * w;
        pts[i].a = from;
        pts[i].b = fmax(pts[i].y, from);
    }
    int blocks = np ? chart_write_panels(c, pts, np, &dirs, &series) : 0;
    int sty[MAX_SERIES];
    for (int s = 0; s < series.n; s++) {
        int rank = 0; /* the rank of the series' dtype, from a row that has it */
        for (int i = 0; i < n; i++)
            if (rd_is(c->rd, rows[i], COL_DTYPE, series.s[s])) {
                rank = rd_dtype_rank(c->rd, rows[i]);
                break;
            }
        sty[s] = rank + 1;
    }
    chart_param_words(c, "sty", sty, series.n);
    chart_param_xtics(c, "xt", &groups);
    chart_param_num(c, "ngroups", groups.n);
    chart_param_num(c, "bw", w);
    chart_param_num(c, "nbars", np);
    chart_param_num(c, "logy", logy);
    chart_param_num(c, "ymin", from);
    /* room above the tallest bar for its upright value label */
    chart_param_num(c, "ylim", hi > 0 ? (logy ? hi * pow(hi / from, 0.3) : hi * 1.25) : 1);
    chart_param_num(c, "accuracy", accuracy);
    const char *shape = rd_str(c->rd, rep, COL_DIRECTION)[0] ? "" : rd_str(c->rd, rep, COL_SHAPE);
    snprintf(c->subtitle, sizeof c->subtitle, "%s%s%s (the problem with the most dtypes)",
             rd_str(c->rd, rep, COL_CASE), *shape ? " " : "", shape);
    free(pts);
    return blocks;
}

/* GPU rows: resident mode alone, CPU rows host (the throughput chart's rows). */
int chart_dtype(chart_ctx *c)
{
    int n;
    int *rows = chart_rows(c, COL_GFLOPS, RD_TIMING, chart_keep_host_or_resident, &n);
    int blocks = rows ? dtype_bars(c, rows, n, COL_GFLOPS, 0) : 0;
    free(rows);
    return blocks;
}

/* Rows that passed their check in mode host or resident (emulated ones too). */
static int keep_passed_host_or_resident(const rundata *rd, int row)
{
    return rd_is(rd, row, COL_CHECK, "pass") &&
           mode_is_primary(rd_str(rd, row, COL_MODE));
}

int chart_accuracy(chart_ctx *c)
{
    int n;
    int *rows = chart_rows(c, COL_ACCURACY_LOST, RD_ANY, keep_passed_host_or_resident, &n);
    int blocks = rows ? dtype_bars(c, rows, n, COL_ACCURACY_LOST, 1) : 0;
    free(rows);
    return blocks;
}
