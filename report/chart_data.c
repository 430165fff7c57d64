/* report/chart_data.c - the rows behind each chart, written as the plain data
 * file its gnuplot script reads (see chart_data.h for why, and the format).
 * Timing charts take only rows that ran on real hardware and passed their
 * check (rd_is_timing); the error chart takes every checked row and marks the
 * emulated ones. */
#include "mode.h"
#include "chart_data.h"
#include "chart_series.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The shape of the largest problem (by rd_work) among rows, GPU rows first
 * when prefer_gpu and any exist; "" when none. */
static void largest_shape(chart_ctx *c, const int *rows, int n, int prefer_gpu, char *out, size_t cap)
{
    double best = -1;
    int any_gpu = 0;
    for (int i = 0; i < n; i++) any_gpu |= rd_is_gpu(c->rd, rows[i]);
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (prefer_gpu && any_gpu && !rd_is_gpu(c->rd, rows[i])) continue;
        double w = rd_work(c->rd, rows[i]);
        if (w > best) {
            best = w;
            snprintf(out, cap, "%s", rd_str(c->rd, rows[i], COL_SHAPE));
        }
    }
}


/* Sets logy=1 when the positive values in pts span more than `decades`. */
static void param_logy(chart_ctx *c, const point *pts, int np, double decades)
{
    chart_param_num(c, "logy", chart_wants_log(pts, np, decades));
}

/* Throughput vs work: x = GFLOP per repetition (the flops column), one line
 * per backend (GPU: resident). The work count, not a size parsed from the
 * shape: it means the same for GEMM, convolution, a training step or STREAM. */
int chart_throughput(chart_ctx *c)
{
    int n;
    int *rows = chart_rows(c, COL_GFLOPS, RD_TIMING | RD_FULL_PRECISION, chart_keep_host_or_resident, &n);
    point *pts = malloc(sizeof(point) * (size_t)(n ? n : 1));
    labels l = {0};
    int np = 0;
    for (int i = 0; rows && pts && i < n; i++) {
        int r = rows[i];
        char lab[96];
        snprintf(lab, sizeof lab, "%s%s", rd_str(c->rd, r, COL_BACKEND), rd_is_gpu(c->rd, r) ? " (resident)" : "");
        int s = chart_label(&l, lab);
        if (s < 0) continue;
        chart_use_row(c, r);
        pts[np++] = (point){rd_num(c->rd, r, COL_FLOPS) / 1e9, rd_num(c->rd, r, COL_GFLOPS), 0, 0, 0, s};
    }
    int blocks = np ? chart_write_series(c, pts, np, &l) : 0;
    param_logy(c, pts, np, 1.5);
    free(rows);
    free(pts);
    return blocks;
}

static int keep_not_baseline(const rundata *rd, int row)
{
    return !rd_is(rd, row, COL_BACKEND, rd_str(rd, row, COL_BASELINE));
}

/* Speedup vs the baseline at the largest shape (GPU rows first): bars grouped
 * by backend, one bar per mode; columns x speedup bottom top (chart_speedup_bars). */
int chart_speedup(chart_ctx *c)
{
    int n;
    int *rows = chart_rows(c, COL_SPEEDUP, RD_TIMING | RD_FULL_PRECISION, keep_not_baseline, &n);
    char shape[64];
    largest_shape(c, rows, n, 1, shape, sizeof shape);
    labels backends = {0}, modes = {0};
    /* modes as series, in canonical order */
    for (int m = 0; mode_at_rank(m); m++)
        for (int i = 0; i < n; i++)
            if (rd_is(c->rd, rows[i], COL_SHAPE, shape) && rd_is(c->rd, rows[i], COL_MODE, mode_at_rank(m))) {
                chart_label(&modes, mode_at_rank(m));
                break;
            }
    for (int i = 0; i < n; i++)
        if (rd_is(c->rd, rows[i], COL_SHAPE, shape) && mode_rank(rd_str(c->rd, rows[i], COL_MODE)) < 99)
            chart_label(&backends, rd_str(c->rd, rows[i], COL_BACKEND));
    point *pts = malloc(sizeof(point) * (size_t)(n ? n : 1));
    int np = 0, maxbars = 1;
    for (int b = 0; pts && b < backends.n; b++) {
        int first = np;
        for (int m = 0; m < modes.n; m++)
            for (int i = 0; i < n; i++) {
                int r = rows[i];
                if (!rd_is(c->rd, r, COL_SHAPE, shape) || !rd_is(c->rd, r, COL_BACKEND, backends.s[b]) ||
                    !rd_is(c->rd, r, COL_MODE, modes.s[m]))
                    continue;
                chart_use_row(c, r);
                pts[np++] = (point){b, rd_num(c->rd, r, COL_SPEEDUP), 0, 0, 0, m};
                break;
            }
        if (np - first > maxbars) maxbars = np - first;
    }
    /* bars of one backend side by side, centred on its group */
    double w = fmin(0.8 / maxbars, 0.3);
    for (int b = 0, i = 0; b < backends.n; b++) {
        int first = i;
        while (i < np && pts[i].x == b) i++;
        for (int j = first; j < i; j++) pts[j].x = b + (j - first - (i - first - 1) / 2.0) * w;
    }
    chart_speedup_bars(c, pts, np);
    int blocks = np ? chart_write_series(c, pts, np, &modes) : 0;
    chart_param_xtics(c, "xt", &backends);
    chart_param_num(c, "bw", w);
    chart_param_num(c, "ngroups", backends.n);
    chart_param_num(c, "nbars", np);
    int sty[MAX_SERIES];
    for (int m = 0; m < modes.n; m++) sty[m] = mode_rank(modes.s[m]) + 1;
    chart_param_words(c, "sty", sty, modes.n);
    const char *base = n ? rd_str(c->rd, rows[0], COL_BASELINE) : "";
    chart_param_str(c, "baseline", base);
    snprintf(c->subtitle, sizeof c->subtitle, "shape %s, vs %s", shape, base);
    free(rows);
    free(pts);
    return blocks;
}

static int keep_gpu_e2e(const rundata *rd, int row)
{
    const char *m = rd_str(rd, row, COL_MODE);
    return rd_is_gpu(rd, row) && (strncmp(m, "sync-", 5) == 0 || strncmp(m, "async-", 6) == 0);
}

/* End-to-end split (H2D, compute, D2H) per backend and mode at the largest
 * shape with GPU rows; one block, one bar per line: x h2d compute d2h median. */
int chart_split(chart_ctx *c)
{
    int n;
    int *rows = chart_rows(c, COL_H2D_MS, RD_TIMING | RD_FULL_PRECISION, keep_gpu_e2e, &n);
    char shape[64];
    largest_shape(c, rows, n, 1, shape, sizeof shape);
    labels bars = {0};
    point *pts = malloc(sizeof(point) * (size_t)(n ? n : 1));
    int np = 0;
    /* backends in order of appearance, modes in canonical order within each */
    labels backends = {0};
    for (int i = 0; i < n; i++)
        if (rd_is(c->rd, rows[i], COL_SHAPE, shape)) chart_label(&backends, rd_str(c->rd, rows[i], COL_BACKEND));
    for (int b = 0; pts && b < backends.n; b++)
        for (int m = 0; mode_at_rank(m); m++)
            for (int i = 0; i < n; i++) {
                int r = rows[i];
                if (!rd_is(c->rd, r, COL_SHAPE, shape) || !rd_is(c->rd, r, COL_BACKEND, backends.s[b]) ||
                    !rd_is(c->rd, r, COL_MODE, mode_at_rank(m)))
                    continue;
                char lab[96];
                snprintf(lab, sizeof lab, "%s %s", backends.s[b], mode_at_rank(m));
                if (chart_label(&bars, lab) < 0) break;
                chart_use_row(c, r);
                pts[np] = (point){np, rd_num(c->rd, r, COL_H2D_MS), rd_num(c->rd, r, COL_COMPUTE_MS),
                                    rd_num(c->rd, r, COL_D2H_MS), rd_num(c->rd, r, COL_MEDIAN_MS), 0};
                np++;
                break;
            }
    if (np) {
        chart_quoted(c->dat, "bars");
        fputc('\n', c->dat);
        for (int i = 0; i < np; i++) {
            chart_quoted(c->dat, bars.s[i]);
            fprintf(c->dat, " %.10g %.10g %.10g %.10g\n", pts[i].y, pts[i].a, pts[i].b, pts[i].c);
        }
    }
    snprintf(c->subtitle, sizeof c->subtitle, "shape %s", shape);
    free(rows);
    free(pts);
    return np ? 1 : 0;
}

/* Rows that moved a counted number of bytes. */
static int keep_bytes(const rundata *rd, int row) { return rd_num(rd, row, COL_BYTES) > 0; }

/* Line style words of one bandwidth series (mode m, series index s):
 * copy directions keep their colour (H2D, D2H, D2D), other series cycle;
 * dashes for pageable memory, points by sync / async / other. */
static void bandwidth_style(const char *m, int s, int *col, int *dt, int *pt)
{
    *col = strncmp(m, "h2d", 3) == 0 ? 1 : strncmp(m, "d2h", 3) == 0 ? 2 : strncmp(m, "d2d", 3) == 0 ? 3 : s + 1;
    *dt = strstr(m, "pageable") ? 2 : 1;
    *pt = strstr(m, "async") ? 9 : (strstr(m, "sync") ? 7 : 5);
}

/* Bandwidth (GB/s) vs bytes moved per repetition, one line per backend and
 * mode (titled by the mode alone when one backend moved them all, as in the
 * transfer suite): the transfer suite's copies, STREAM's kernels, any suite
 * that counts bytes. Style words per block: see bandwidth_style. */
int chart_bandwidth(chart_ctx *c)
{
    int n;
    int *rows = chart_rows(c, COL_GBPS, RD_TIMING | RD_FULL_PRECISION, keep_bytes, &n);
    labels l = {0}, backends = {0};
    point *pts = malloc(sizeof(point) * (size_t)(n ? n : 1));
    int np = 0;
    for (int i = 0; rows && i < n; i++) chart_label(&backends, rd_str(c->rd, rows[i], COL_BACKEND));
    for (int i = 0; rows && pts && i < n; i++) {
        int r = rows[i];
        char lab[96];
        snprintf(lab, sizeof lab, "%s%s%s", backends.n > 1 ? rd_str(c->rd, r, COL_BACKEND) : "",
                 backends.n > 1 ? " " : "", rd_str(c->rd, r, COL_MODE));
        int s = chart_label(&l, lab);
        if (s < 0) continue;
        chart_use_row(c, r);
        pts[np++] = (point){rd_num(c->rd, r, COL_BYTES), rd_num(c->rd, r, COL_GBPS), 0, 0, 0, s};
    }
    int blocks = np ? chart_write_series(c, pts, np, &l) : 0;
    int col[MAX_SERIES], dt[MAX_SERIES], pt[MAX_SERIES], k = 0;
    for (int s = 0; s < l.n; s++) { /* the series labels end with their mode */
        const char *sp = strrchr(l.s[s], ' ');
        bandwidth_style(sp ? sp + 1 : l.s[s], k, &col[k], &dt[k], &pt[k]);
        k++;
    }
    chart_param_words(c, "lcs", col, k);
    chart_param_words(c, "dts", dt, k);
    chart_param_words(c, "pts", pt, k);
    free(rows);
    free(pts);
    return blocks;
}

static int keep_streams(const rundata *rd, int row)
{
    return strncmp(rd_str(rd, row, COL_MODE), "streams-", 8) == 0;
}

/* Overlap efficiency vs number of streams at the largest shape, per backend. */
int chart_overlap(chart_ctx *c)
{
    int n;
    int *rows = chart_rows(c, COL_OVERLAP_EFF, RD_TIMING | RD_FULL_PRECISION, keep_streams, &n);
    char shape[64];
    largest_shape(c, rows, n, 1, shape, sizeof shape);
    labels l = {0};
    point *pts = malloc(sizeof(point) * (size_t)(n ? n : 1));
    int np = 0;
    for (int i = 0; rows && pts && i < n; i++) {
        int r = rows[i];
        if (!rd_is(c->rd, r, COL_SHAPE, shape)) continue;
        int s = chart_label(&l, rd_str(c->rd, r, COL_BACKEND));
        if (s < 0) continue;
        chart_use_row(c, r);
        pts[np++] = (point){atof(rd_str(c->rd, r, COL_MODE) + 8), rd_num(c->rd, r, COL_OVERLAP_EFF), 0, 0, 0, s};
    }
    int blocks = np ? chart_write_series(c, pts, np, &l) : 0;
    snprintf(c->subtitle, sizeof c->subtitle, "shape %s", shape);
    free(rows);
    free(pts);
    return blocks;
}

static int keep_checked(const rundata *rd, int row)
{
    return rd_is(rd, row, COL_CHECK, "pass") || rd_is(rd, row, COL_CHECK, "fail");
}

/* Numerical error: per backend (emulated ones apart), the row closest to its
 * tolerance (largest rel_err / tolerance); bar = its rel_err (floored at 1e-12
 * for the log axis), marker = its tolerance. Blocks, those present: checked on
 * hardware, emulated (correctness only), failed; columns x rel_err tolerance.
 * The backends label the x axis (param xt). */
int chart_error(chart_ctx *c)
{
    int n;
    /* rows with a tolerance: a result with NaN/Inf has no rel_err (empty cell)
     * but failed all the same, and is drawn as 100% error */
    int *rows = chart_rows(c, COL_TOLERANCE, RD_ANY, keep_checked, &n);
    labels l = {0};
    int worst[MAX_SERIES];
    double ratio[MAX_SERIES];
    for (int i = 0; rows && i < n; i++) {
        int r = rows[i];
        char lab[96];
        snprintf(lab, sizeof lab, "%s%s", rd_str(c->rd, r, COL_BACKEND), rd_emulated(c->rd, r) ? " (emulated)" : "");
        int known = l.n, s = chart_label(&l, lab);
        if (s < 0) continue;
        double tol = rd_num(c->rd, r, COL_TOLERANCE), re = rd_num(c->rd, r, COL_REL_ERR);
        double q = isnan(re) ? INFINITY : (tol > 0) ? re / tol : re;
        /* a failed row outranks a passing one; then the larger ratio */
        int fails = rd_is(c->rd, r, COL_CHECK, "fail");
        int held = s != known && rd_is(c->rd, worst[s], COL_CHECK, "fail");
        if (s == known || (fails && !held) || (fails == held && q > ratio[s])) {
            worst[s] = r;
            ratio[s] = q;
        }
    }
    static const char *const GROUP[] = {"checked on hardware", "emulated (correctness only)", "check failed"};
    point pts[MAX_SERIES];
    int np = 0;
    for (int s = 0; s < l.n; s++) {
        int r = worst[s];
        int g = rd_is(c->rd, r, COL_CHECK, "fail") ? 2 : rd_emulated(c->rd, r) ? 1 : 0;
        chart_use_row(c, r);
        double re = rd_num(c->rd, r, COL_REL_ERR);
        pts[np] = (point){s, isnan(re) ? 1.0 : fmax(re, 1e-12), rd_num(c->rd, r, COL_TOLERANCE), 0, 0, g};
        np++;
    }
    /* series in fixed group order, so colours keep their meaning */
    labels present = {0};
    int sty[3], k = 0;
    for (int g = 0; g < 3; g++)
        for (int i = 0; i < np; i++)
            if (pts[i].series == g) {
                sty[k++] = g + 1;
                chart_label(&present, GROUP[g]);
                break;
            }
    for (int i = 0; i < np; i++) pts[i].series = chart_label(&present, GROUP[(int)pts[i].series]);
    int blocks = np ? chart_write_series(c, pts, np, &present) : 0;
    chart_param_words(c, "sty", sty, k);
    chart_param_xtics(c, "xt", &l);
    chart_param_num(c, "nbars", l.n);
    double lo = INFINITY;
    for (int i = 0; i < np; i++) lo = fmin(lo, fmin(pts[i].y, pts[i].a > 0 ? pts[i].a : INFINITY));
    chart_param_num(c, "ymin", isfinite(lo) ? pow(10, floor(log10(lo)) - 0.5) : 1e-9);
    free(rows);
    return blocks;
}

/* ---- per case and direction (conv) ----------------------------------------- */

/* Rows with a direction (the passes of a layer) that count flops, CPU or GPU
 * resident: the throughput bars. */
static int keep_direction_throughput(const rundata *rd, int row)
{
    return rd_str(rd, row, COL_DIRECTION)[0] && chart_keep_host_or_resident(rd, row);
}

/* Rows with a direction that are not the baseline itself: the speedup bars. */
static int keep_direction_speedup(const rundata *rd, int row)
{
    return rd_str(rd, row, COL_DIRECTION)[0] && keep_not_baseline(rd, row);
}

/* Grouped bars: x groups = cases (in order of appearance), one bar per series
 * (backend; for speedups backend and mode) side by side, one panel per
 * direction. Blocks are written panel by panel, series by series; columns
 * x value bottom top. Parameters: chart_write_panels's (npanels, p0, p1, ser,
 * pt1.. = the directions), xt, bw, ncases, logy, ylim, speedup, baseline. */
static int case_panels(chart_ctx *c, int col, int (*keep)(const rundata *, int), int speedup)
{
    int n;
    int *rows = chart_rows(c, col, RD_TIMING | RD_FULL_PRECISION, keep, &n);
    labels dirs = {0}, cases = {0}, series = {0};
    point *pts = malloc(sizeof(point) * (size_t)(n ? n : 1));
    int np = 0;
    for (int i = 0; rows && pts && i < n; i++) {
        int r = rows[i];
        char lab[96];
        if (speedup)
            snprintf(lab, sizeof lab, "%s %s", rd_str(c->rd, r, COL_BACKEND), rd_str(c->rd, r, COL_MODE));
        else
            snprintf(lab, sizeof lab, "%s%s", rd_str(c->rd, r, COL_BACKEND),
                     rd_is_gpu(c->rd, r) ? " (resident)" : "");
        int d = chart_label(&dirs, rd_str(c->rd, r, COL_DIRECTION));
        int k = chart_label(&cases, rd_str(c->rd, r, COL_CASE));
        int s = chart_label(&series, lab);
        if (d < 0 || k < 0 || s < 0) continue;
        chart_use_row(c, r);
        pts[np++] = (point){k, rd_num(c->rd, r, col), 0, 0, d, s};
    }
    double w = fmin(0.8 / (series.n ? series.n : 1), 0.3), lo = INFINITY, hi = 0;
    for (int i = 0; i < np; i++) {
        pts[i].x += (pts[i].series - (series.n - 1) / 2.0) * w;
        if (pts[i].y > 0) lo = fmin(lo, pts[i].y), hi = fmax(hi, pts[i].y);
    }
    if (speedup) {
        chart_speedup_bars(c, pts, np);
    } else { /* from 0, or on a log axis from the decade below the smallest */
        int logy = chart_wants_log(pts, np, 1.5);
        double from = logy ? pow(10, floor(log10(lo))) : 0;
        for (int i = 0; i < np; i++) pts[i].a = from, pts[i].b = pts[i].y;
        chart_param_num(c, "logy", logy);
        chart_param_num(c, "ylim", hi > 0 ? hi * (logy ? 2.5 : 1.15) : 1);
    }
    int blocks = chart_write_panels(c, pts, np, &dirs, &series);
    chart_param_xtics(c, "xt", &cases);
    chart_param_num(c, "bw", w);
    chart_param_num(c, "ncases", cases.n);
    chart_param_num(c, "speedup", speedup);
    const char *base = speedup && n ? rd_str(c->rd, rows[0], COL_BASELINE) : "";
    chart_param_str(c, "baseline", base);
    if (speedup) snprintf(c->subtitle, sizeof c->subtitle, "vs %s", base);
    free(rows);
    free(pts);
    return blocks;
}

/* Throughput (GFLOP/s) per case, bars per backend (GPU: resident), a panel
 * per direction. */
int chart_case_throughput(chart_ctx *c) { return case_panels(c, COL_GFLOPS, keep_direction_throughput, 0); }

/* Speedup vs the baseline per case, bars per backend and mode, a panel per direction. */
int chart_case_speedup(chart_ctx *c) { return case_panels(c, COL_SPEEDUP, keep_direction_speedup, 1); }
