/* report/report_precision.c - report.md's precision table of a suite whose
 * rows span more than one dtype (see report_precision.h). One line per
 * problem (case and shape, or case and direction) and backend; for each
 * dtype of the suite, in canonical order, its GFLOP/s (with the speedup vs
 * the same backend's fp32 on the same problem) and its accuracy_lost. CPU
 * rows in mode host, GPU rows resident: the throughput chart's rows. */
#include "mode.h"
#include "report_precision.h"
#include "md_table.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DTYPES 8

/* A row the table shows: CPU host or GPU resident, not skipped. */
static int tabled(const rundata *rd, int row, const char *suite)
{
    return rd_is(rd, row, COL_SUITE, suite) && !rd_is(rd, row, COL_CHECK, "skip") &&
           mode_is_primary(rd_str(rd, row, COL_MODE));
}

/* Whether rows a and b belong on one line: the same problem and, for conv,
 * the same direction (a line per direction; the charts take a layer's
 * directions as one problem, a panel each). */
static int same_line(const rundata *rd, int a, int b)
{
    return rd_same_problem(rd, a, b) && rd_is(rd, a, COL_DIRECTION, rd_str(rd, b, COL_DIRECTION));
}

/* The backend as the table names it: "(emulated)" marks an emulated row. */
static void backend_label(const rundata *rd, int row, char *out, size_t cap)
{
    snprintf(out, cap, "%s%s", rd_str(rd, row, COL_BACKEND), rd_emulated(rd, row) ? " (emulated)" : "");
}

/* The tabled row of suite on the line of row p, backend label lab and
 * dtype d; -1 when there is none. */
static int find_row(const rundata *rd, const char *suite, int p, const char *lab, const char *d)
{
    char l[192];
    for (int i = 0; i < rd_nrows(rd); i++) {
        if (!tabled(rd, i, suite) || !rd_is(rd, i, COL_DTYPE, d) || !same_line(rd, i, p)) continue;
        backend_label(rd, i, l, sizeof l);
        if (strcmp(l, lab) == 0) return i;
    }
    return -1;
}

/* Whether suite has a skip row of backend (of row r) at dtype d: a skip is
 * per backend and dtype, not per problem. */
static int skipped(const rundata *rd, const char *suite, int r, const char *d)
{
    for (int i = 0; i < rd_nrows(rd); i++)
        if (rd_is(rd, i, COL_SUITE, suite) && rd_is(rd, i, COL_CHECK, "skip") && rd_is(rd, i, COL_DTYPE, d) &&
            rd_is(rd, i, COL_BACKEND, rd_str(rd, r, COL_BACKEND)))
            return 1;
    return 0;
}

/* The two cells of one dtype: GFLOP/s ("×" vs fp32 when the fp32 row is a
 * timing too; empty for an emulated row: not a timing; "**fail**" for a
 * failed one; "skip" when the backend skipped the dtype) and accuracy_lost. */
static void dtype_cells(const rundata *rd, FILE *f, int r, int fp32, int skip)
{
    char buf[96] = "";
    if (r < 0) {
        md_cell(f, skip ? "skip" : "");
        md_cell(f, "");
        return;
    }
    double g = rd_num(rd, r, COL_GFLOPS), g32 = fp32 >= 0 ? rd_num(rd, fp32, COL_GFLOPS) : NAN;
    if (rd_is(rd, r, COL_CHECK, "fail")) snprintf(buf, sizeof buf, "**fail**");
    else if (rd_is_timing(rd, r) && isfinite(g) && fp32 != r && fp32 >= 0 && rd_is_timing(rd, fp32) && g32 > 0)
        snprintf(buf, sizeof buf, "%.4g (%.3g×)", g, g / g32);
    else if (rd_is_timing(rd, r) && isfinite(g)) snprintf(buf, sizeof buf, "%.4g", g);
    md_cell(f, buf);
    md_numcell(f, "%.1e", rd_num(rd, r, COL_ACCURACY_LOST));
}

void report_precision_write(const rundata *rd, FILE *f, const char *suite)
{
    const char *dt[MAX_DTYPES];
    int nd = rd_dtypes(rd, suite, dt, MAX_DTYPES), n = rd_nrows(rd), dir = 0;
    if (nd < 2) return;
    for (int i = 0; i < n && !dir; i++) dir = tabled(rd, i, suite) && rd_str(rd, i, COL_DIRECTION)[0];
    fprintf(f, "### %s: precision\n\n"
               "GFLOP/s per dtype (× the same backend's fp32 on the same problem) and accuracy lost "
               "(relative L2 distance from the reference on the unrounded fp32 inputs); CPU rows host, "
               "GPU rows resident. Emulated rows have no GFLOP/s; skip and fail: see the table above.\n\n",
            suite);
    fprintf(f, "| case | %s | backend |", dir ? "direction" : "shape");
    for (int d = 0; d < nd; d++) fprintf(f, " %s GFLOP/s | %s lost |", dt[d], dt[d]);
    fputs("\n|---|---|---|", f);
    for (int d = 0; d < nd; d++) fputs("---:|---:|", f);
    fputc('\n', f);
    char lab[192], other[192];
    /* problems in order of first appearance, each problem's backends likewise */
    for (int p = 0; p < n; p++) {
        if (!tabled(rd, p, suite)) continue;
        int first = 1;
        for (int q = 0; q < p && first; q++) first = !(tabled(rd, q, suite) && same_line(rd, p, q));
        if (!first) continue;
        for (int b = p; b < n; b++) {
            if (!tabled(rd, b, suite) || !same_line(rd, b, p)) continue;
            backend_label(rd, b, lab, sizeof lab);
            int seen = 0;
            for (int q = p; q < b && !seen; q++)
                if (tabled(rd, q, suite) && same_line(rd, q, p)) {
                    backend_label(rd, q, other, sizeof other);
                    seen = strcmp(lab, other) == 0;
                }
            if (seen) continue;
            md_cell(f, rd_str(rd, b, COL_CASE));
            md_cell(f, rd_str(rd, b, dir ? COL_DIRECTION : COL_SHAPE));
            md_cell(f, lab);
            int fp32 = find_row(rd, suite, b, lab, "fp32");
            for (int d = 0; d < nd; d++) {
                int r = find_row(rd, suite, b, lab, dt[d]);
                dtype_cells(rd, f, r, fp32, r < 0 && skipped(rd, suite, b, dt[d]));
            }
            fputs("|\n", f);
        }
    }
    fputc('\n', f);
}
