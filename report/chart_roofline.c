/* report/chart_roofline.c - the roofline chart of one device kind (plots/
 * roofline.gp draws it): log-log, x = arithmetic intensity (FLOP/byte), y =
 * GFLOP/s. The run's measured roofs (its `roof-...` context lines, read back
 * by roofs_parse_line) as solid lines: min(compute roof of the dtype,
 * intensity x bandwidth roof), one per dtype with a compute roof, the ridge
 * at compute / bandwidth; the paper peaks dashed (min(peak, intensity x the
 * paper bandwidth) when that is known, else flat). Then the rows: every timing
 * (passed, not emulated) of this device with an intensity and GFLOP/s, CPU
 * host or GPU resident (an end-to-end row's time holds its copies, which the
 * compute and bandwidth roofs do not), one series per backend and dtype:
 * coloured by dtype, as its roof is (a point reads against the roof of its
 * colour), a point type per backend. Per backend rather than per suite
 * because a backend spans suites and the question the chart answers is how
 * close each implementation gets to the machine; the suites sit apart on the
 * x axis anyway (GEMM right, convolutions middle, steps left).
 *
 * Rows without an intensity are left out: STREAM and the copies count no
 * FLOPs (the bandwidth roof is STREAM triad itself), transfers are not on the
 * device's roofs. A device without roofs in the run (--no-roofs, no probe for
 * it) has no chart; report.md says why (roofline_links_write).
 *
 * Data blocks, in order: nroof measured roofs, npeak paper peaks (columns
 * x y), then the point series (columns x y). Parameters: nroof, npeak, rsty
 * (dtype rank + 1 per roof and peak block: its colour), lcs (dtype rank + 1
 * per series: its colour), pts (backend index + 1 per series: its point
 * type), xlo, xhi. */
#include "chart_data.h"
#include "chart_series.h"
#include "mode.h"
#include "roofline.h"
#include "plots.h"
#include "../ops/dtype.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int roofline_roofs(const rundata *rd, roofs *rf)
{
    int any = 0;
    roofs_init(rf);
    for (int i = 0; i < rd->t->ncontext; i++) any |= roofs_parse_line(rf, rd->t->context[i]);
    return any;
}

static int known(const roof_num *n) { return isfinite(n->v) && n->v > 0; }

/* A roof's value for its title: whole numbers from 1000 up (50000, never
 * 5e+04), four digits below. */
static const char *val(char *buf, size_t cap, double v)
{
    snprintf(buf, cap, v >= 1000 ? "%.0f" : "%.4g", v);
    return buf;
}

/* A row this device's chart shows (see the top of the file). */
static int on_chart(const rundata *rd, int row, int dev)
{
    double x = rd_num(rd, row, COL_INTENSITY), y = rd_num(rd, row, COL_GFLOPS);
    return roof_dev_of(rd_str(rd, row, COL_DEVICE_KIND)) == dev && x > 0 && isfinite(x) && y > 0 &&
           isfinite(y) && mode_is_primary(rd_str(rd, row, COL_MODE));
}

/* One roof line from xlo to xhi: min(top, x * slope) (slope NAN: flat at
 * top; top NAN: the bandwidth line alone), through the ridge top / slope when
 * it lies inside. */
static void roof_block(chart_ctx *c, int *blocks, const char *title, double top, double slope, double xlo,
                       double xhi)
{
    double xs[3] = {xlo, NAN, xhi};
    if (isfinite(top) && isfinite(slope) && top / slope > xlo && top / slope < xhi) xs[1] = top / slope;
    if ((*blocks)++) fputs("\n\n", c->dat);
    chart_quoted(c->dat, title);
    fputc('\n', c->dat);
    for (int i = 0; i < 3; i++) {
        if (!isfinite(xs[i])) continue;
        double y = !isfinite(slope) ? top : !isfinite(top) ? xs[i] * slope : fmin(top, xs[i] * slope);
        fprintf(c->dat, "%.10g %.10g\n", xs[i], y);
    }
}

int chart_roofline(chart_ctx *c)
{
    roofs rf;
    const int d = c->device;
    if (d < 0 || d >= ROOF_NDEV || !roofline_roofs(c->rd, &rf) || !rf.measured || !rf.dev[d].present)
        return 0;
    const roof_device *v = &rf.dev[d];
    int n = rd_nrows(c->rd), np = 0;
    int *rows = malloc(sizeof(int) * (size_t)(n ? n : 1));
    if (!rows) return 0;
    /* the rows first: the x range covers them and every ridge */
    double lo = INFINITY, hi = 0;
    int m = rd_select(c->rd, NULL, COL_INTENSITY, RD_TIMING, rows, n);
    for (int i = 0; i < m; i++)
        if (on_chart(c->rd, rows[i], d)) {
            double x = rd_num(c->rd, rows[i], COL_INTENSITY);
            lo = fmin(lo, x), hi = fmax(hi, x);
            rows[np++] = rows[i];
        }
    for (int t = 0; t < DTYPE_COUNT; t++) {
        double r[2] = {known(&v->compute[t]) && known(&v->bw) ? v->compute[t].v / v->bw.v : NAN,
                       known(&v->peak[t]) && known(&v->peak_bw) ? v->peak[t].v / v->peak_bw.v : NAN};
        for (int k = 0; k < 2; k++)
            if (isfinite(r[k])) lo = fmin(lo, r[k]), hi = fmax(hi, r[k]);
    }
    if (!(hi > 0)) lo = 1.0 / 16, hi = 64;   /* neither: a flat roof over a default span */
    double xlo = pow(10, floor(log10(lo / 3))), xhi = pow(10, ceil(log10(hi * 3)));
    if (xhi / xlo < 100) xhi = xlo * 100;
    /* the measured roofs, then the paper peaks, each a block */
    int blocks = 0, nroof = 0, npeak = 0, rsty[2 * DTYPE_COUNT + 1], nsty = 0;
    char title[160], a[32], b[32];
    for (int t = 0; t < DTYPE_COUNT; t++) {
        if (!known(&v->compute[t])) continue;
        if (known(&v->bw))
            snprintf(title, sizeof title,
                     "%s roof: %s " ROOF_UNIT_COMPUTE ", %s " ROOF_UNIT_BW ", ridge %.3g FLOP/B",
                     dtype_name((dtype_t)t), val(a, sizeof a, v->compute[t].v), val(b, sizeof b, v->bw.v),
                     v->compute[t].v / v->bw.v);
        else
            snprintf(title, sizeof title, "%s roof: %s " ROOF_UNIT_COMPUTE, dtype_name((dtype_t)t),
                     val(a, sizeof a, v->compute[t].v));
        roof_block(c, &blocks, title, v->compute[t].v, known(&v->bw) ? v->bw.v : NAN, xlo, xhi);
        rsty[nsty++] = t + 1;
        nroof++;
    }
    if (!nroof && known(&v->bw)) { /* no compute roof: the bandwidth line alone */
        snprintf(title, sizeof title, "bandwidth roof: %s " ROOF_UNIT_BW, val(a, sizeof a, v->bw.v));
        roof_block(c, &blocks, title, NAN, v->bw.v, xlo, xhi);
        rsty[nsty++] = DTYPE_FP32 + 1;
        nroof++;
    }
    for (int t = 0; t < DTYPE_COUNT; t++) {
        if (!known(&v->peak[t])) continue;
        snprintf(title, sizeof title, "%s paper peak: %s " ROOF_UNIT_COMPUTE "%s%s%s", dtype_name((dtype_t)t),
                 val(a, sizeof a, v->peak[t].v), known(&v->peak_bw) ? ", " : "",
                 known(&v->peak_bw) ? val(b, sizeof b, v->peak_bw.v) : "", known(&v->peak_bw) ? " " ROOF_UNIT_BW : "");
        roof_block(c, &blocks, title, v->peak[t].v, known(&v->peak_bw) ? v->peak_bw.v : NAN, xlo, xhi);
        rsty[nsty++] = t + 1;
        npeak++;
    }
    /* the rows: a series per backend and dtype, in order of first appearance */
    labels series = {0}, backends = {0};
    int lcs[MAX_SERIES], pts[MAX_SERIES];
    point *p = malloc(sizeof(point) * (size_t)(np ? np : 1));
    int npts = 0;
    for (int i = 0; p && i < np; i++) {
        int r = rows[i], rank = rd_dtype_rank(c->rd, r);
        char lab[96];
        snprintf(lab, sizeof lab, "%s %s", rd_str(c->rd, r, COL_BACKEND), rd_str(c->rd, r, COL_DTYPE));
        int b = chart_label(&backends, rd_str(c->rd, r, COL_BACKEND));
        int s = chart_label(&series, lab);
        if (b < 0 || s < 0) continue;   /* past MAX_SERIES: left out, never merged */
        lcs[s] = rank + 1;
        pts[s] = b + 1;
        chart_use_row(c, r);
        p[npts++] = (point){rd_num(c->rd, r, COL_INTENSITY), rd_num(c->rd, r, COL_GFLOPS), 0, 0, 0, s};
    }
    if (blocks && npts) fputs("\n\n", c->dat);
    int nser = npts ? chart_write_series(c, p, npts, &series) : 0;
    blocks += nser;
    free(p);
    free(rows);
    if (!blocks) return 0;
    /* chart_write_series writes only the columns x y a b c; the script reads 1:2 */
    chart_param_num(c, "nroof", nroof);
    chart_param_num(c, "npeak", npeak);
    chart_param_words(c, "rsty", rsty, nsty);
    chart_param_words(c, "lcs", lcs, series.n);
    chart_param_words(c, "pts", pts, series.n);
    chart_param_num(c, "xlo", xlo);
    chart_param_num(c, "xhi", xhi);
    snprintf(c->subtitle, sizeof c->subtitle, "measured roofs of the run, %d row%s", npts, npts == 1 ? "" : "s");
    if (d == ROOF_CPU) c->has_cpu = 1;
    return blocks;
}

void roofline_links_write(const rundata *rd, FILE *f, const char *dir)
{
    roofs rf;
    if (!roofline_roofs(rd, &rf)) return;   /* a run from before the roofs */
    if (!rf.measured) {
        fprintf(f, "*Roofline chart: none: the roofs were not measured (%s).*\n\n",
                rf.why[0] ? rf.why : "none");
        return;
    }
    for (int k = 0; k < plots_nkinds(); k++) {
        if (!plots_kind_per_device(k)) continue;
        for (int d = 0; d < ROOF_NDEV; d++) {
            char rel[256], path[4600];
            snprintf(rel, sizeof rel, "plots/%s-%s.png", plots_kind_name(k), roof_dev_name(d));
            snprintf(path, sizeof path, "%s/%s", dir, rel);
            if (access(path, R_OK) == 0)
                fprintf(f, "![%s (%s)](%s)\n\n", plots_kind_title(k), roof_dev_name(d), rel);
        }
    }
}
