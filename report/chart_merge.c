/* report/chart_merge.c - a merge folder's chart per suite (bench --merge):
 * grouped bars, x groups the workloads, a bar per machine, its speedup
 * against the reference machine (report/merge.h), a panel per device kind.
 * Drawn by plots/merge.gp (layers.gp's bars). */
#include "chart_data.h"
#include "chart_series.h"
#include "merge.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int chart_merge(chart_ctx *c)
{
    if (!merge_is(c->rd)) return 0;
    merge_machines m;
    merge_line *l = NULL;
    merge_machines_of(c->rd, &m);
    int n = merge_lines(c->rd, &m, c->suite, &l);
    labels devs = {0}, groups = {0}, series = {0};
    point *pts = malloc(sizeof(point) * (size_t)(n > 0 ? n * m.n : 1));
    int np = 0;
    for (int k = 0; k < m.n; k++) chart_label(&series, m.name[k]); /* a colour per machine, in order */
    for (int i = 0; pts && i < n; i++) {
        const char *w = strchr(l[i].workload, '/'); /* the suite is the chart's title */
        int d = chart_label(&devs, l[i].dev), g = chart_label(&groups, w ? w + 1 : l[i].workload);
        for (int k = 0; k < m.n && d >= 0 && g >= 0; k++) {
            double y = merge_ratio(c->rd, &m, &l[i], k);
            if (!isfinite(y) || k >= MAX_SERIES) continue;
            chart_use_row(c, l[i].best[k]);
            pts[np++] = (point){g, y, 0, 0, d, k};
        }
    }
    double w = fmin(0.8 / (m.n ? m.n : 1), 0.3);
    for (int i = 0; i < np; i++) pts[i].x += (pts[i].series - (m.n - 1) / 2.0) * w;
    chart_speedup_bars(c, pts, np);
    int blocks = np ? chart_write_panels(c, pts, np, &devs, &series) : 0;
    chart_param_xtics(c, "xt", &groups);
    chart_param_num(c, "bw", w);
    chart_param_num(c, "ncases", groups.n);
    chart_param_num(c, "speedup", 1);
    chart_param_str(c, "baseline", m.n ? m.name[m.ref] : "");
    if (m.n) snprintf(c->subtitle, sizeof c->subtitle, "machines vs %s", m.name[m.ref]);
    free(pts);
    free(l);
    return blocks;
}
