/* report/rundata.c - reading one run's results.csv for the report (see rundata.h). */
#include "rundata.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Columns a results.csv must have for the report to make sense of it. */
static const char *const REQUIRED[] = {"suite", "case", "backend", "mode", "shape",
                                       "median_ms", "check", "emulated", NULL};

int rd_load(rundata *rd, const char *dir, char *err, size_t errcap)
{
    memset(rd, 0, sizeof *rd);
    snprintf(rd->csv_path, sizeof rd->csv_path, "%s/results.csv", dir);
    rd->t = csv_read(rd->csv_path, err, errcap);
    if (!rd->t) return -1;
    for (int i = 0; REQUIRED[i]; i++)
        if (csv_col(rd->t, REQUIRED[i]) < 0) {
            snprintf(err, errcap, "%s:%d: not a bench results file: no column '%s'",
                     rd->csv_path, rd->t->ncontext + 1, REQUIRED[i]);
            rd_free(rd);
            return -1;
        }
    return 0;
}

void rd_free(rundata *rd)
{
    csv_table_free(rd->t);
    rd->t = NULL;
}

int rd_nrows(const rundata *rd) { return rd->t->nrows; }

const char *rd_str(const rundata *rd, int row, const char *col)
{
    return csv_field(rd->t, row, csv_col(rd->t, col));
}

double rd_num(const rundata *rd, int row, const char *col)
{
    const char *s = rd_str(rd, row, col);
    if (!*s) return NAN;
    char *end;
    double v = strtod(s, &end);
    return (*end == '\0') ? v : NAN;
}

int rd_is(const rundata *rd, int row, const char *col, const char *s)
{
    return strcmp(rd_str(rd, row, col), s) == 0;
}

int rd_emulated(const rundata *rd, int row) { return rd_is(rd, row, "emulated", "1"); }

int rd_is_timing(const rundata *rd, int row)
{
    return !rd_emulated(rd, row) && rd_is(rd, row, "check", "pass");
}

int rd_is_gpu(const rundata *rd, int row)
{
    return strncmp(rd_str(rd, row, "backend"), "cpu-", 4) != 0 && !rd_is(rd, row, "mode", "-");
}

int rd_select(const rundata *rd, const char *suite, const char *numcol, int want, int *out,
              int cap)
{
    int n = 0;
    for (int i = 0; i < rd->t->nrows; i++) {
        if (suite && !rd_is(rd, i, "suite", suite)) continue;
        if (numcol && isnan(rd_num(rd, i, numcol))) continue;
        if (want == RD_TIMING && !rd_is_timing(rd, i)) continue;
        if (n < cap) out[n] = i;
        n++;
    }
    return n;
}

int rd_suites(const rundata *rd, const char **out, int cap)
{
    int n = 0;
    for (int i = 0; i < rd->t->nrows; i++) {
        const char *s = rd_str(rd, i, "suite");
        int seen = 0;
        for (int j = 0; j < n && !seen; j++) seen = strcmp(out[j], s) == 0;
        if (!seen && *s && n < cap) out[n++] = s;
    }
    return n;
}

int rd_shape_mnk(const char *shape, double *m, double *n, double *k)
{
    double v[3] = {1, 1, 1};
    const char *p = shape;
    for (int i = 0; i < 3; i++) {
        char *end;
        v[i] = strtod(p, &end);
        if (end == p || !(v[i] > 0)) return -1;
        if (*end == '\0') break;
        if (*end != 'x' || i == 2) return -1;
        p = end + 1;
    }
    *m = v[0];
    *n = v[1];
    *k = v[2];
    return 0;
}

double rd_work(const rundata *rd, int row)
{
    double b = rd_num(rd, row, "bytes");
    if (!isnan(b)) return b;
    double m, n, k;
    if (rd_shape_mnk(rd_str(rd, row, "shape"), &m, &n, &k) == 0) return m * n * k;
    return NAN;
}

const char *rd_context(const rundata *rd, const char *key) { return csv_context(rd->t, key); }
