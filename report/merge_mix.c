/* report/merge_mix.c - cost and the mix of a merge (see merge_mix.h). */
#include "merge_mix.h"
#include "machine.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIX_MAX_WEIGHTS 64

double merge_price(const rundata *rd, const merge_machines *m, int k)
{
    const char *v = merge_input_ctx(rd, m, k, "price");
    double p = v ? strtod(v, NULL) : NAN;
    return isfinite(p) && p > 0 ? p : NAN;
}

double merge_row_cost(const rundata *rd, int row, double price, int *samples)
{
    double sps = rd_num(rd, row, COL_SAMPLES_PER_S), med = rd_num(rd, row, COL_MEDIAN_MS);
    *samples = isfinite(sps) && sps > 0;
    if (!isfinite(price)) return NAN;
    return *samples ? price * 1e6 / (3600 * sps) : price * med / 3.6;
}

/* Pareto front of (a, b) over the machines with a finite b, into front. */
static void pareto(const double *a, const double *b, int n, int *front)
{
    for (int i = 0; i < n; i++) {
        front[i] = isfinite(b[i]);
        for (int j = 0; j < n && front[i]; j++)
            if (j != i && isfinite(b[j]) && a[j] <= a[i] && b[j] <= b[i] && (a[j] < a[i] || b[j] < b[i]))
                front[i] = 0;
    }
}

int merge_mix_of(const rundata *rd, const merge_machines *m, merge_mix *x)
{
    static machine_kv w[MIX_MAX_WEIGHTS];
    int nw = 0, used[MIX_MAX_WEIGHTS] = {0};
    memset(x, 0, sizeof *x);
    const char *wl = rd_context(rd, "weights");
    const int def = !wl || strncmp(wl, "every suite", 11) == 0;
    char err[300];
    if (!def && machine_kv_parse(wl, "weights", 0, 0, 1e9, w, &nw, MIX_MAX_WEIGHTS, err, sizeof err)) {
        x->bad_weights = 1;
        return 0;
    }
    for (int k = 0; k < m->n; k++) x->price[k] = merge_price(rd, m, k);
    const char *suites[64];
    int ns = rd_suites(rd, suites, 64);
    for (int s = 0; s < ns; s++) {
        merge_line *l = NULL;
        int n = merge_lines(rd, m, suites[s], &l), complete = 0;
        if (n < 0) return -1;
        for (int i = 0; i < n; i++) complete += merge_line_complete(&l[i], m->n);
        double sw = def ? 1 : 0;
        for (int j = 0; j < nw; j++)
            if (strcmp(w[j].name, suites[s]) == 0) sw = w[j].v, used[j] |= complete > 0;
        for (int i = 0; i < n; i++) {
            if (!merge_line_complete(&l[i], m->n)) continue;
            double wi = sw / complete;
            for (int j = 0; j < nw; j++)
                if (strcmp(w[j].name, l[i].workload) == 0) wi += w[j].v, used[j] = 1;
            if (!(wi > 0)) continue;
            x->nlines++;
            for (int k = 0; k < m->n; k++) {
                int r = l[i].best[k];
                double e = rd_num(rd, r, COL_ENERGY_J);
                x->time_ms[k] += wi * rd_num(rd, r, COL_MEDIAN_MS);
                x->energy_j[k] += isfinite(e) && e > 0 ? wi * e : NAN;
            }
        }
        free(l);
    }
    size_t u = 0;
    for (int j = 0; j < nw; j++)
        if (!used[j] && u < sizeof x->left_out)
            u += (size_t)snprintf(x->left_out + u, sizeof x->left_out - u, "%s%s", u ? ", " : "", w[j].name);
    for (int k = 0; k < m->n; k++) {
        if (!x->nlines) x->energy_j[k] = NAN;
        x->cost[k] = x->nlines && isfinite(x->price[k]) ? x->time_ms[k] * x->price[k] / 3.6 : NAN;
    }
    pareto(x->time_ms, x->cost, m->n, x->front_cost);
    pareto(x->time_ms, x->energy_j, m->n, x->front_energy);
    return 0;
}
