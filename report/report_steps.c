/* report/report_steps.c - report.md's sections for step suites (training;
 * see report_steps.h). Timings come from timing rows only (rd_is_timing: on
 * hardware, passed): an emulated row's phases and overlap are never shown. */
#include "mode.h"
#include "report_steps.h"
#include "md_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int report_is_step_suite(const rundata *rd, const char *suite)
{
    return rd_select(rd, suite, COL_SAMPLES_PER_S, RD_ANY, NULL, 0) > 0;
}

/* Timing rows of suite with a phase split, CPU or GPU resident. */
static int phase_row(const rundata *rd, int row, const char *suite)
{
    return rd_is(rd, row, COL_SUITE, suite) && rd_is_timing(rd, row) && rd_str(rd, row, COL_PHASE_MS)[0] &&
           !isnan(rd_batch(rd, row)) && mode_is_primary(rd_str(rd, row, COL_MODE));
}

enum { MAX_PHASES = 8 };

/* "Phases": one profiled step by phase, per backend, for each case (model) at
 * its largest batch; a column per phase name (in order of first appearance)
 * and their sum. Nothing when no timing row has a phase split. */
static void write_phases(const rundata *rd, FILE *f, const char *suite)
{
    int nr = rd_nrows(rd), n = 0;
    int *rows = malloc(sizeof(int) * (size_t)(nr ? nr : 1));
    if (!rows) return;
    char cols[MAX_PHASES][RD_PHASE_NAME];
    int ncols = 0;
    for (int i = 0; i < nr; i++) {
        if (!phase_row(rd, i, suite)) continue;
        rows[n++] = i;
        char names[MAX_PHASES][RD_PHASE_NAME];
        double ms[MAX_PHASES];
        int m = rd_phases(rd, i, names, ms, MAX_PHASES);
        for (int p = 0; p < m; p++) {
            int seen = 0;
            for (int c = 0; c < ncols && !seen; c++) seen = strcmp(cols[c], names[p]) == 0;
            if (!seen && ncols < MAX_PHASES) memcpy(cols[ncols++], names[p], RD_PHASE_NAME);
        }
    }
    if (ncols) {
        fprintf(f, "### Phases\n\nOne profiled step (host clock after synchronizing) by phase, in ms, at each "
                   "model's largest batch.\n\n| case | batch | backend | mode |");
        for (int c = 0; c < ncols; c++) fprintf(f, " %s |", cols[c]);
        fprintf(f, " sum |\n|---|---:|---|---|");
        for (int c = 0; c <= ncols; c++) fputs("---:|", f);
        fputc('\n', f);
    }
    for (int i = 0; ncols && i < n; i++) {
        int r = rows[i];
        double b = rd_batch(rd, r);
        char names[MAX_PHASES][RD_PHASE_NAME];
        double ms[MAX_PHASES], sum = 0;
        int m = rd_phases(rd, r, names, ms, MAX_PHASES);
        if (!m || b != rd_max_batch(rd, rows, n, rd_str(rd, r, COL_CASE))) continue;
        md_cell(f, rd_str(rd, r, COL_CASE));
        md_numcell(f, "%.0f", b);
        md_cell(f, rd_str(rd, r, COL_BACKEND));
        md_cell(f, rd_str(rd, r, COL_MODE));
        for (int c = 0; c < ncols; c++) {
            double v = NAN;
            for (int p = 0; p < m && p < MAX_PHASES; p++)
                if (strcmp(names[p], cols[c]) == 0) v = ms[p];
            md_numcell(f, "%.4g", v);
        }
        for (int p = 0; p < m; p++) sum += ms[p];
        md_numcell(f, "%.4g", sum);
        fputs("|\n", f);
    }
    if (ncols) fputc('\n', f);
    free(rows);
}

/* "Overlap": the rows with an overlap efficiency (prefetch-2: the next
 * batch's copy behind this step's compute), timings only; one line when
 * every such row was emulated. */
static void write_overlap(const rundata *rd, FILE *f, const char *suite)
{
    int any = rd_select(rd, suite, COL_OVERLAP_EFF, RD_ANY, NULL, 0);
    int timed = rd_select(rd, suite, COL_OVERLAP_EFF, RD_TIMING, NULL, 0);
    if (!any) return;
    fprintf(f, "### Overlap\n\n");
    if (!timed) {
        fprintf(f, "Overlap efficiency: no row that ran on hardware and passed carries one (an "
                   "emulated timing means nothing): not shown.\n\n");
        return;
    }
    fprintf(f, "Overlap efficiency: ideal pipelined time ÷ measured (1 = the copies hide fully "
               "behind compute).\n\n| case | shape | backend | mode | median ms | overlap eff |\n"
               "|---|---|---|---|---:|---:|\n");
    for (int i = 0; i < rd_nrows(rd); i++) {
        if (!rd_is(rd, i, COL_SUITE, suite) || !rd_is_timing(rd, i) || isnan(rd_num(rd, i, COL_OVERLAP_EFF)))
            continue;
        md_cell(f, rd_str(rd, i, COL_CASE));
        md_cell(f, rd_str(rd, i, COL_SHAPE));
        md_cell(f, rd_str(rd, i, COL_BACKEND));
        md_cell(f, rd_str(rd, i, COL_MODE));
        md_numcell(f, "%.4g", rd_num(rd, i, COL_MEDIAN_MS));
        md_numcell(f, "%.3f", rd_num(rd, i, COL_OVERLAP_EFF));
        fputs("|\n", f);
    }
    fputc('\n', f);
}

void report_steps_write(const rundata *rd, FILE *f, const char *suite)
{
    if (!report_is_step_suite(rd, suite)) return;
    write_phases(rd, f, suite);
    write_overlap(rd, f, suite);
}
