/* report/merge_md.c - a merge folder's report.md (see merge_md.h). */
#define _POSIX_C_SOURCE 200809L
#include "merge_md.h"
#include "md_table.h"
#include "merge.h"
#include "merge_mix.h"
#include "roofs.h"
#include "../ops/dtype.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void write_inputs(const rundata *rd, const merge_machines *m, FILE *f)
{
    fprintf(f, "## Inputs\n\n| machine | run folder | end | quiet |\n|---|---|---|---|\n");
    for (int k = 0; k < m->n; k++) {
        char name[MERGE_NAME_MAX + 16];
        snprintf(name, sizeof name, "%s%s", m->name[k], k == m->ref ? " (reference)" : "");
        const char *dir = merge_input_ctx(rd, m, k, ""), *end = merge_input_ctx(rd, m, k, "end"),
                   *q = merge_input_ctx(rd, m, k, "quiet");
        md_cell(f, name);
        md_cell(f, dir ? dir : "");
        md_cell(f, end ? end : "");
        md_cell(f, q ? q : "");
        fputs("|\n", f);
    }
    fputc('\n', f);
}

/* One machine's cell: its best backend, median, throughput, % of its roof,
 * and its speedup against the reference. */
static void best_cell(const rundata *rd, const merge_machines *m, const merge_line *l, int k, FILE *f)
{
    char buf[256] = "", *p = buf;
    size_t left = sizeof buf;
    int r = l->best[k];
#define PUT(...) do { int w_ = snprintf(p, left, __VA_ARGS__); if (w_ > 0 && (size_t)w_ < left) p += w_, left -= (size_t)w_; } while (0)
    if (r >= 0) {
        double gf = rd_num(rd, r, COL_GFLOPS), gb = rd_num(rd, r, COL_GBPS), pct = rd_num(rd, r, COL_PCT_ROOF);
        PUT("%s %.4g ms", rd_str(rd, r, COL_BACKEND), rd_num(rd, r, COL_MEDIAN_MS));
        if (isfinite(gf) && gf > 0) PUT(", %.4g GFLOP/s", gf);
        else if (isfinite(gb) && gb > 0) PUT(", %.4g GB/s", gb);
        if (isfinite(pct)) PUT(", %.3g %% roof", pct);
        double x = merge_ratio(rd, m, l, k);
        if (isfinite(x)) PUT(", %.3g×", x);
        int samples;
        double cost = merge_row_cost(rd, r, merge_price(rd, m, k), &samples);
        if (isfinite(cost)) PUT(", %.4g USD/1M %s", cost, samples ? "samples" : "reps");
        if (rd_is(rd, r, COL_DISTURBED, "1")) PUT(" (disturbed)");
    } else {
        PUT("—");
    }
#undef PUT
    md_cell(f, buf);
}

/* "a, b" of the machines with flag[k] set, or "none". */
static void names_of(const merge_machines *m, const int *flag, char *out, size_t cap)
{
    size_t u = 0;
    out[0] = '\0';
    for (int k = 0; k < m->n && u < cap; k++)
        if (flag[k]) u += (size_t)snprintf(out + u, cap - u, "%s%s", u ? ", " : "", m->name[k]);
    if (!u) snprintf(out, cap, "none");
}

/* The mix (merge_mix.h): each machine's time, cost and energy for it, and
 * the Pareto fronts, in one table and one sentence. */
static void write_which(const rundata *rd, const merge_machines *m, FILE *f)
{
    merge_mix x;
    const char *wl = rd_context(rd, "weights");
    fprintf(f, "## Which machine\n\n");
    if (merge_mix_of(rd, m, &x) || x.bad_weights || !x.nlines) {
        fprintf(f, "No mix to weigh: %s.\n\n", x.bad_weights ? "its weights line does not parse"
                   : "no weighted workload ran on every machine");
        return;
    }
    fprintf(f, "Weights: %s. The mix is a job of %d workload%s every machine has, each repeated "
               "its weight (a suite's weight split equally among its workloads): per machine its "
               "time (Σ weight × its best median), cost (that time × its price per hour) and "
               "energy (Σ weight × `energy_j`).", wl ? wl : "every suite equally (the default)",
            x.nlines, x.nlines == 1 ? "" : "s");
    if (x.left_out[0]) fprintf(f, " Not in the mix (no workload every machine has): %s.", x.left_out);
    fputs("\n\n| machine | price (USD/h) | time (ms per mix) | cost (USD per 1M mixes) | energy (J per mix) "
          "| on the Pareto front |\n|---|---|---|---|---|---|\n", f);
    int noprice[MERGE_MAX_INPUTS], noenergy[MERGE_MAX_INPUTS];
    for (int k = 0; k < m->n; k++) {
        char t[48], c[48] = "—", e[48] = "—", front[64] = "—";
        const char *p = merge_input_ctx(rd, m, k, "price");
        snprintf(t, sizeof t, "%.4g", x.time_ms[k]);
        if (isfinite(x.cost[k])) snprintf(c, sizeof c, "%.4g", x.cost[k]);
        if (isfinite(x.energy_j[k])) snprintf(e, sizeof e, "%.4g", x.energy_j[k]);
        if (x.front_cost[k] || x.front_energy[k])
            snprintf(front, sizeof front, "%s%s%s", x.front_cost[k] ? "time–cost" : "",
                     x.front_cost[k] && x.front_energy[k] ? ", " : "", x.front_energy[k] ? "time–energy" : "");
        md_cell(f, m->name[k]);
        md_cell(f, p && isfinite(x.price[k]) ? p : "—");
        md_cell(f, t);
        md_cell(f, c);
        md_cell(f, e);
        md_cell(f, front);
        fputs("|\n", f);
        noprice[k] = !isfinite(x.cost[k]);
        noenergy[k] = !isfinite(x.energy_j[k]);
    }
    char a[600], b[600], np[600], ne[600];
    names_of(m, x.front_cost, a, sizeof a);
    names_of(m, x.front_energy, b, sizeof b);
    names_of(m, noprice, np, sizeof np);
    names_of(m, noenergy, ne, sizeof ne);
    fprintf(f, "\nOn the Pareto front: time vs cost %s; time vs energy %s (no price: %s; no energy: %s).\n\n",
            a, b, np, ne);
}

static void write_suite(const rundata *rd, const merge_machines *m, FILE *f, const char *dir, const char *suite)
{
    merge_line *l = NULL;
    int n = merge_lines(rd, m, suite, &l);
    fprintf(f, "## %s\n\n", suite);
    if (n <= 0) {
        fprintf(f, "No row of %s can be compared (none ran on real hardware and passed).\n\n", suite);
        free(l);
        return;
    }
    fprintf(f, "Per workload and device kind, each machine's fastest backend (median, throughput, "
               "%% of its roof) and its speedup: `%s`'s median ÷ its own; a row that stayed disturbed says so.\n\n| workload | device ",
            m->name[m->ref]);
    for (int k = 0; k < m->n; k++) md_cell(f, m->name[k]);
    fputs("|\n|---|---|", f);
    for (int k = 0; k < m->n; k++) fputs("---|", f);
    fputc('\n', f);
    for (int i = 0; i < n; i++) {
        md_cell(f, l[i].workload);
        md_cell(f, l[i].dev);
        for (int k = 0; k < m->n; k++) best_cell(rd, m, &l[i], k, f);
        fputs("|\n", f);
    }
    fputc('\n', f);
    static const char *const DEVS[] = {"cpu", "gpu"};
    for (int d = 0; d < 2; d++) {
        int any = 0, cnt = 0;
        for (int i = 0; i < n; i++) any |= strcmp(l[i].dev, DEVS[d]) == 0;
        if (!any) continue;
        merge_geomean(rd, m, l, n, DEVS[d], 0, &cnt);
        if (!cnt) {
            fprintf(f, "Geometric mean (%s): no %s workload every machine has.\n\n", DEVS[d], DEVS[d]);
            continue;
        }
        fprintf(f, "Geometric mean of the speedups (%s) over the %d workload%s every machine has:", DEVS[d],
                cnt, cnt == 1 ? "" : "s");
        for (int k = 0; k < m->n; k++)
            fprintf(f, "%s %s %.3g×", k ? "," : "", m->name[k], merge_geomean(rd, m, l, n, DEVS[d], k, &cnt));
        fputs(".\n\n", f);
    }
    char rel[300], path[4600];
    snprintf(rel, sizeof rel, "plots/merge-%s.png", suite);
    snprintf(path, sizeof path, "%s/%s", dir, rel);
    if (access(path, R_OK) == 0) fprintf(f, "![%s: speedup per workload and machine](%s)\n\n", suite, rel);
    free(l);
}

/* Each machine's roofs (its input-K-roof... lines), a column per machine. */
static void write_roofs(const rundata *rd, const merge_machines *m, FILE *f)
{
    static roofs rf[MERGE_MAX_INPUTS];
    int any = 0, present = 0;
    for (int k = 0; k < m->n; k++) {
        char pre[32];
        roofs_init(&rf[k]);
        for (int i = 1; i <= MERGE_MAX_INPUTS; i++) {
            snprintf(pre, sizeof pre, "input-%d-machine", i);
            const char *v = rd_context(rd, pre);
            if (!v || strcmp(v, m->name[k]) != 0) continue;
            size_t pl = (size_t)snprintf(pre, sizeof pre, "input-%d-", i);
            for (int c = 0; c < rd->t->ncontext; c++)
                if (strncmp(rd->t->context[c], pre, pl) == 0)
                    any |= roofs_parse_line(&rf[k], rd->t->context[c] + pl);
        }
        for (int d = 0; d < ROOF_NDEV; d++) present |= rf[k].dev[d].present;
    }
    fprintf(f, "## Roofs\n\n");
    if (!present) {
        fprintf(f, "No input %s roofs%s: no row has `pct_roof`.\n\n", any ? "measured" : "recorded",
                any ? " (`roofs: not measured`)" : "");
        return;
    }
    fprintf(f, "What each machine can do, measured in its own run (`roof-…` lines; paper peaks "
               "marked): the rows' `pct_roof` above is against these.\n\n| device | roof ");
    for (int k = 0; k < m->n; k++) md_cell(f, m->name[k]);
    fputs("|\n|---|---|", f);
    for (int k = 0; k < m->n; k++) fputs("---|", f);
    fputc('\n', f);
    for (int d = 0; d < ROOF_NDEV; d++) {
        /* each roof a row: (what, unit, the value per machine) */
        enum { NR = 5 + 2 * DTYPE_COUNT };
        for (int w = 0; w < NR; w++) {
            char what[48], val[48];
            const char *unit = "GFLOP/s";
            int shown = 0;
            for (int k = 0; k < m->n && !shown; k++) shown = rf[k].dev[d].present;
            if (!shown) break;
            const roof_num *v[MERGE_MAX_INPUTS];
            for (int k = 0; k < m->n; k++) {
                const roof_device *x = &rf[k].dev[d];
                if (w == 0) v[k] = &x->bw, unit = "GB/s", snprintf(what, sizeof what, "bandwidth");
                else if (w <= DTYPE_COUNT) v[k] = &x->compute[w - 1], snprintf(what, sizeof what, "compute %s", dtype_name((dtype_t)(w - 1)));
                else if (w == DTYPE_COUNT + 1) v[k] = &x->h2d, unit = "GB/s", snprintf(what, sizeof what, "host to device");
                else if (w == DTYPE_COUNT + 2) v[k] = &x->d2h, unit = "GB/s", snprintf(what, sizeof what, "device to host");
                else if (w == DTYPE_COUNT + 3) v[k] = &x->launch, unit = "us", snprintf(what, sizeof what, "launch latency");
                else if (w == DTYPE_COUNT + 4) v[k] = &x->peak_bw, unit = "GB/s", snprintf(what, sizeof what, "paper bandwidth");
                else v[k] = &x->peak[w - DTYPE_COUNT - 5], snprintf(what, sizeof what, "paper %s", dtype_name((dtype_t)(w - DTYPE_COUNT - 5)));
            }
            int has = 0;
            for (int k = 0; k < m->n; k++) has |= isfinite(v[k]->v);
            if (!has) continue;
            md_cell(f, roof_dev_name(d));
            md_cell(f, what);
            for (int k = 0; k < m->n; k++) {
                val[0] = '\0';
                if (isfinite(v[k]->v)) snprintf(val, sizeof val, "%.4g %s", v[k]->v, unit);
                md_cell(f, val);
            }
            fputs("|\n", f);
        }
    }
    fputc('\n', f);
}

/* "a, b" of the machines that have line l (have: 1) or lack it (have: 0). */
static void machines_with(const merge_machines *m, const merge_line *l, int have, char *out, size_t cap)
{
    size_t u = 0;
    out[0] = '\0';
    for (int k = 0; k < m->n; k++)
        if ((l->best[k] >= 0) == have) {
            int w = snprintf(out + u, cap - u, "%s%s", u ? ", " : "", m->name[k]);
            if (w > 0 && u + (size_t)w < cap) u += (size_t)w;
        }
}

/* A field's value for people: threads "t2" and replicas "x1" read 2 and 1. */
static void field_of(const char *key, int fi, char *out, size_t cap)
{
    char buf[512];
    const char *f[MERGE_NFIELDS];
    if (merge_split(key, buf, sizeof buf, f) == 0) snprintf(out, cap, "%s", f[fi]);
    else snprintf(out, cap, "?");
}

static void write_not_compared(const rundata *rd, const merge_machines *m, FILE *f)
{
    int said = 0;
    fprintf(f, "## Not compared, or compared with care\n\n");
    const char *suites[64];
    int ns = rd_suites(rd, suites, 64);
    for (int s = 0; s < ns; s++) {
        merge_line *l = NULL;
        int n = merge_lines(rd, m, suites[s], &l);
        char *covered = calloc((size_t)(n > 0 ? n : 1), 1);
        for (int i = 0; covered && i < n; i++) {
            if (covered[i] || merge_line_complete(&l[i], m->n)) continue;
            char have[512], rest[1024] = "", lack[512] = "";
            size_t u = 0, v = 0;
            machines_with(m, &l[i], 1, have, sizeof have);
            for (int k = 0; k < m->n; k++) {
                if (l[i].best[k] >= 0) continue;
                int j = 0, fi = -1;
                /* what machine k ran instead: the same problem (suite and shape) one field
                 * away (version, dtype, mode, threads, replicas); another shape is another problem */
                for (; j < n; j++)
                    if (j != i && l[j].best[k] >= 0 && strcmp(l[i].dev, l[j].dev) == 0 &&
                        (fi = merge_one_field(l[i].workload, l[j].workload)) >= 0 &&
                        fi != MERGE_F_SUITE && fi != MERGE_F_SHAPE)
                        break;
                int w;
                if (j < n) {
                    char va[128], vb[128];
                    field_of(l[i].workload, fi, va, sizeof va);
                    field_of(l[j].workload, fi, vb, sizeof vb);
                    w = snprintf(rest + u, sizeof rest - u, "%s%s %s vs %s on %s", u ? "; " : "",
                                 MERGE_FIELD[fi], va, vb, m->name[k]);
                    if (w > 0 && u + (size_t)w < sizeof rest) u += (size_t)w;
                    int all = !merge_line_complete(&l[j], m->n); /* the other side says the same */
                    for (int q = 0; q < m->n; q++) all &= l[j].best[q] >= 0 || l[i].best[q] >= 0;
                    if (all) covered[j] = 1;
                } else {
                    w = snprintf(lack + v, sizeof lack - v, "%s%s", v ? ", " : "", m->name[k]);
                    if (w > 0 && v + (size_t)w < sizeof lack) v += (size_t)w;
                }
            }
            fprintf(f, "- `%s` (%s) on %s only", l[i].workload, l[i].dev, have);
            if (*rest) fprintf(f, ": %s (the keys differ in that field only: not compared)", rest);
            if (*lack) fprintf(f, "%s not on %s", *rest ? ";" : ":", lack);
            fputc('\n', f);
            said++;
        }
        free(covered);
        free(l);
    }
    for (int k = 0; k < m->n; k++) {
        int emu = 0, dist = 0, nokey = 0;
        char mach[MERGE_NAME_MAX];
        for (int r = 0; r < rd_nrows(rd); r++) {
            merge_row_machine(rd, r, mach, sizeof mach);
            if (strcmp(mach, m->name[k]) != 0) continue;
            emu += rd_emulated(rd, r);
            dist += !rd_emulated(rd, r) && rd_is(rd, r, COL_DISTURBED, "1");
            nokey += !rd_str(rd, r, COL_WORKLOAD)[0];
        }
        if (emu) fprintf(f, "- %s: %d emulated row%s (no time: correctness runs, not GPU timings)\n",
                         m->name[k], emu, emu == 1 ? "" : "s"), said++;
        if (dist) fprintf(f, "- %s: %d row%s stayed disturbed (something else ran while they were "
                             "timed): compared, marked (disturbed), read with care\n", m->name[k], dist,
                          dist == 1 ? "" : "s"), said++;
        if (nokey) fprintf(f, "- %s: %d row%s without a workload key (an older bench)\n", m->name[k],
                           nokey, nokey == 1 ? "" : "s"), said++;
        const char *end = merge_input_ctx(rd, m, k, "end"), *q = merge_input_ctx(rd, m, k, "quiet");
        if (end && strncmp(end, "finished:", 9) != 0)
            fprintf(f, "- %s: its run did not finish (%s): a workload it lacks is missing, not "
                       "slower\n", m->name[k], end), said++;
        if (q && strncmp(q, "no", 2) == 0)
            fprintf(f, "- %s: its run was not quiet (quiet: %s)\n", m->name[k], q), said++;
    }
    if (!said) fprintf(f, "Nothing: every workload ran on every machine, quietly, to the end.\n");
    fputc('\n', f);
}

void merge_md_write(const rundata *rd, FILE *f, const char *dir)
{
    merge_machines m;
    merge_machines_of(rd, &m);
    fprintf(f, "# Merge of %d machines\n\nReference machine: **%s**. Rows compare only when their "
               "workload keys are equal (`results/README.md`, `workload`); every input row is in "
               "[results.csv](results.csv) with its machine.\n\n", m.n, m.n ? m.name[m.ref] : "none");
    write_inputs(rd, &m, f);
    write_which(rd, &m, f);
    const char *suites[64];
    int ns = rd_suites(rd, suites, 64);
    for (int s = 0; s < ns; s++) write_suite(rd, &m, f, dir, suites[s]);
    write_roofs(rd, &m, f);
    write_not_compared(rd, &m, f);
}
