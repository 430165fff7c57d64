/* report/chart_steps.c - the charts of step suites (training): rows whose
 * numbers imply a batch (rd_batch: samples_per_s x median_ms). One panel per
 * case (the model; its rows at every batch share it), so models of very
 * different cost keep their own axes. Nothing here reads a shape string or a
 * backend name: the batch comes from the row's numbers, the device from
 * device_kind, the phases and losses from their own columns.
 *
 *   samples        samples/s vs batch, a line per backend (GPU: resident)
 *   batch-speedup  speedup vs batch, a line per GPU backend and mode
 *   phases         forward / backward / update per backend, stacked, at
 *                  each model's largest batch
 *   loss           the loss after each step per backend, overlaid, at each
 *                  model's largest batch; emulated rows too (a loss is not a
 *                  timing)
 */
#include "mode.h"
#include "chart_data.h"
#include "chart_series.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int has_batch(const rundata *rd, int row) { return !isnan(rd_batch(rd, row)); }

/* CPU rows and GPU resident rows of a step suite. */
static int keep_step_host_or_resident(const rundata *rd, int row)
{
    return has_batch(rd, row) && (mode_is_primary(rd_str(rd, row, COL_MODE)));
}

static int keep_step_gpu(const rundata *rd, int row) { return has_batch(rd, row) && rd_is_gpu(rd, row); }

/* The series title of a backend's row: "(resident)" on GPU rows, and
 * "(emulated)" on emulated ones. */
static void backend_label(const rundata *rd, int row, char *out, size_t cap)
{
    const int tag = rd_is_gpu(rd, row) && mode_is_primary(rd_str(rd, row, COL_MODE));
    snprintf(out, cap, "%s%s%s%s%s", rd_str(rd, row, COL_BACKEND), tag ? " (" : "",
             tag ? rd_str(rd, row, COL_MODE) : "", tag ? ")" : "",
             rd_emulated(rd, row) ? " (emulated)" : "");
}

/* Per case (the panels, in order of first appearance): the largest batch
 * among rows; panel titles "case, batch B" into titled. */
static void largest_batches(chart_ctx *c, const int *rows, int n, labels *cases, double *batch, labels *titled)
{
    for (int i = 0; rows && i < n; i++) chart_label(cases, rd_str(c->rd, rows[i], COL_CASE));
    for (int k = 0; k < cases->n; k++) batch[k] = rd_max_batch(c->rd, rows, n, cases->s[k]);
    titled->n = cases->n;
    for (int k = 0; k < cases->n; k++)
        snprintf(titled->s[k], sizeof titled->s[k], "%.60s, batch %.0f", cases->s[k], batch[k]);
}

/* Whether row is at its case's largest batch; its panel into *panel. */
static int at_largest(const chart_ctx *c, int row, labels *cases, const double *batch, int *panel)
{
    *panel = chart_label(cases, rd_str(c->rd, row, COL_CASE));
    return *panel >= 0 && rd_batch(c->rd, row) == batch[*panel];
}

/* Samples/s vs batch, log-log: a panel per case, a line per backend. */
int chart_samples(chart_ctx *c)
{
    int n;
    int *rows = chart_rows(c, COL_SAMPLES_PER_S, RD_TIMING, keep_step_host_or_resident, &n);
    point *pts = malloc(sizeof(point) * (size_t)(n ? n : 1));
    labels cases = {0}, series = {0};
    int np = 0;
    for (int i = 0; rows && pts && i < n; i++) {
        int r = rows[i];
        char lab[96];
        backend_label(c->rd, r, lab, sizeof lab);
        int k = chart_label(&cases, rd_str(c->rd, r, COL_CASE)), s = chart_label(&series, lab);
        if (k < 0 || s < 0) continue;
        chart_use_row(c, r);
        pts[np++] = (point){rd_batch(c->rd, r), rd_num(c->rd, r, COL_SAMPLES_PER_S), 0, 0, k, s};
    }
    int blocks = np ? chart_write_panels(c, pts, np, &cases, &series) : 0;
    free(rows);
    free(pts);
    return blocks;
}

/* Speedup vs the baseline by batch, for GPU rows: a panel per case, a line
 * per backend and mode (colour: the mode; dashes: the backend), so the batch
 * where the GPU starts to win (crosses 1x) shows per execution mode. Own
 * parameters: mcol (mode rank + 1 per series), bdt (backend number + 1 per
 * series), baseline, logy. */
int chart_batch_speedup(chart_ctx *c)
{
    int n;
    int *rows = chart_rows(c, COL_SPEEDUP, RD_TIMING, keep_step_gpu, &n);
    point *pts = malloc(sizeof(point) * (size_t)(n ? n : 1));
    labels cases = {0}, series = {0}, backends = {0};
    int np = 0, mcol[MAX_SERIES], bdt[MAX_SERIES];
    /* series in canonical mode order, backends in order of appearance */
    for (int m = 0; mode_at_rank(m); m++)
        for (int i = 0; rows && i < n; i++) {
            int r = rows[i];
            if (!rd_is(c->rd, r, COL_MODE, mode_at_rank(m))) continue;
            char lab[96];
            int b = chart_label(&backends, rd_str(c->rd, r, COL_BACKEND));
            snprintf(lab, sizeof lab, "%s %s", rd_str(c->rd, r, COL_BACKEND), mode_at_rank(m));
            int known = series.n, s = chart_label(&series, lab);
            if (s < 0 || b < 0) continue;
            if (s == known) mcol[s] = m + 1, bdt[s] = b + 1;
            int k = chart_label(&cases, rd_str(c->rd, r, COL_CASE));
            if (k < 0 || !pts) continue;
            chart_use_row(c, r);
            pts[np++] = (point){rd_batch(c->rd, r), rd_num(c->rd, r, COL_SPEEDUP), 0, 0, k, s};
        }
    int blocks = np ? chart_write_panels(c, pts, np, &cases, &series) : 0;
    chart_param_words(c, "mcol", mcol, series.n);
    chart_param_words(c, "bdt", bdt, series.n);
    const char *base = "";
    for (int i = 0; i < n && !*base; i++) base = rd_str(c->rd, rows[i], COL_BASELINE);
    chart_param_str(c, "baseline", *base ? base : "the baseline");
    chart_param_num(c, "logy", chart_wants_log(pts, np, 1.0));
    if (*base) snprintf(c->subtitle, sizeof c->subtitle, "vs %s", base);
    free(rows);
    free(pts);
    return blocks;
}

static int keep_step_phases(const rundata *rd, int row)
{
    return keep_step_host_or_resident(rd, row) && rd_str(rd, row, COL_PHASE_MS)[0];
}

/* One profiled step split into its phases (the phase_ms column), stacked
 * bars per backend, a panel per case at its largest batch. Series: the
 * phases in order of first appearance; columns x ms bottom top. Own
 * parameters: xt (the backends), nx, bw. */
int chart_phases(chart_ctx *c)
{
    int n;
    int *rows = chart_rows(c, -1, RD_TIMING, keep_step_phases, &n);
    labels cases = {0}, titled = {0}, phases = {0}, backends = {0};
    double batch[MAX_SERIES];
    largest_batches(c, rows, n, &cases, batch, &titled);
    point *pts = malloc(sizeof(point) * (size_t)(n ? n : 1) * 8);
    int np = 0;
    for (int i = 0; rows && pts && i < n; i++) {
        int r = rows[i], k;
        char names[8][RD_PHASE_NAME], lab[96];
        double ms[8];
        int nph = rd_phases(c->rd, r, names, ms, 8);
        if (!nph || !at_largest(c, r, &cases, batch, &k)) continue;
        backend_label(c->rd, r, lab, sizeof lab);
        int x = chart_label(&backends, lab);
        if (x < 0) continue;
        chart_use_row(c, r);
        double bottom = 0;
        for (int p = 0; p < nph; p++) {
            int s = chart_label(&phases, names[p]);
            if (s < 0) continue;
            pts[np++] = (point){x, ms[p], bottom, bottom + ms[p], k, s};
            bottom += ms[p];
        }
    }
    int blocks = np ? chart_write_panels(c, pts, np, &titled, &phases) : 0;
    chart_param_xtics(c, "xt", &backends);
    chart_param_num(c, "nx", backends.n);
    chart_param_num(c, "bw", 0.6);
    snprintf(c->subtitle, sizeof c->subtitle, "one profiled step, largest batch");
    free(rows);
    free(pts);
    return blocks;
}

static int keep_step_trace(const rundata *rd, int row)
{
    return has_batch(rd, row) && rd_str(rd, row, COL_TRACE)[0] &&
           (rd_is(rd, row, COL_CHECK, "pass") || rd_is(rd, row, COL_CHECK, "fail"));
}

/* The loss after each step, a line per backend, overlaid so that agreement
 * (or drift) shows; a panel per case at its largest batch. Every checked row
 * counts, emulated ones too (a loss is not a timing); of a backend's rows the
 * host or resident one (else its first) stands for it: every mode trains
 * from the same start. Columns x = step (1, 2, ...), loss. Own parameter:
 * nsteps (the longest trace). */
int chart_loss(chart_ctx *c)
{
    int n;
    int *rows = chart_rows(c, -1, RD_ANY, keep_step_trace, &n);
    labels cases = {0}, titled = {0}, series = {0};
    double batch[MAX_SERIES];
    largest_batches(c, rows, n, &cases, batch, &titled);
    /* the row standing for each (case, series) */
    int pick[MAX_SERIES][MAX_SERIES];
    for (int k = 0; k < MAX_SERIES; k++)
        for (int s = 0; s < MAX_SERIES; s++) pick[k][s] = -1;
    for (int i = 0; rows && i < n; i++) {
        int r = rows[i], k;
        char lab[96];
        if (!at_largest(c, r, &cases, batch, &k)) continue;
        snprintf(lab, sizeof lab, "%s%s", rd_str(c->rd, r, COL_BACKEND), rd_emulated(c->rd, r) ? " (emulated)" : "");
        int s = chart_label(&series, lab);
        if (s < 0) continue;
        int main_mode = mode_is_primary(rd_str(c->rd, r, COL_MODE));
        if (pick[k][s] < 0 || (main_mode && !mode_is_primary(rd_str(c->rd, pick[k][s], COL_MODE))))
            pick[k][s] = r;
    }
    enum { MAX_STEPS = 1024 };
    int cap = 0, np = 0, nsteps = 0;
    for (int k = 0; k < cases.n; k++)
        for (int s = 0; s < series.n; s++) cap += pick[k][s] >= 0 ? MAX_STEPS : 0;
    point *pts = malloc(sizeof(point) * (size_t)(cap ? cap : 1));
    double *loss = malloc(sizeof(double) * MAX_STEPS);
    for (int k = 0; pts && loss && k < cases.n; k++)
        for (int s = 0; s < series.n; s++) {
            if (pick[k][s] < 0) continue;
            int m = rd_trace(c->rd, pick[k][s], loss, MAX_STEPS);
            if (m) chart_use_row(c, pick[k][s]);
            if (m > nsteps) nsteps = m;
            for (int j = 0; j < m; j++) pts[np++] = (point){j + 1, loss[j], 0, 0, k, s};
        }
    int blocks = np ? chart_write_panels(c, pts, np, &titled, &series) : 0;
    chart_param_num(c, "nsteps", nsteps);
    free(rows);
    free(pts);
    free(loss);
    return blocks;
}
