/* report/rundata.c - reading one run's results.csv for the report (see rundata.h). */
#include "rundata.h"
#include "../ops/dtype.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Columns a results.csv must have for the report to make sense of it; the
 * newer ones (flops, device_kind, repro) are optional: an older file still
 * gets its tables, with a note saying what it lacks. */
static const int REQUIRED[] = {COL_SUITE, COL_CASE, COL_BACKEND, COL_MODE, COL_SHAPE,
                               COL_MEDIAN_MS, COL_CHECK, COL_EMULATED};
/* Columns the charts need: without them no chart is drawn. */
static const int CHART_COLS[] = {COL_DEVICE_KIND, COL_FLOPS, COL_BYTES};

int rd_load(rundata *rd, const char *dir, char *err, size_t errcap)
{
    memset(rd, 0, sizeof *rd);
    snprintf(rd->csv_path, sizeof rd->csv_path, "%s/results.csv", dir);
    rd->t = csv_read_results(rd->csv_path, rd->idx, REQUIRED, (int)(sizeof REQUIRED / sizeof REQUIRED[0]),
                             err, errcap);
    return rd->t ? 0 : -1;
}

void rd_free(rundata *rd)
{
    csv_table_free(rd->t);
    rd->t = NULL;
}

int rd_nrows(const rundata *rd) { return rd->t->nrows; }

const char *rd_str(const rundata *rd, int row, int col) { return csv_get(rd->t, rd->idx, row, col); }

double rd_num(const rundata *rd, int row, int col)
{
    const char *s = rd_str(rd, row, col); /* validated: empty or a finite number */
    return *s ? strtod(s, NULL) : NAN;
}

int rd_is(const rundata *rd, int row, int col, const char *s) { return strcmp(rd_str(rd, row, col), s) == 0; }

int rd_emulated(const rundata *rd, int row) { return rd_is(rd, row, COL_EMULATED, "1"); }

int rd_is_timing(const rundata *rd, int row)
{
    return !rd_emulated(rd, row) && rd_is(rd, row, COL_CHECK, "pass");
}

int rd_is_gpu(const rundata *rd, int row) { return rd_is(rd, row, COL_DEVICE_KIND, "gpu"); }

int rd_missing_columns(const rundata *rd, char *out, size_t cap)
{
    int n = 0;
    size_t len = 0;
    out[0] = '\0';
    for (int c = 0; c < COL_COUNT; c++) {
        if (rd->idx[c] >= 0) continue;
        int w = snprintf(out + len, len < cap ? cap - len : 0, "%s%s", n ? " " : "", SCHEMA[c].name);
        if (w > 0 && len + (size_t)w < cap) len += (size_t)w;
        n++;
    }
    return n;
}

int rd_chartable(const rundata *rd)
{
    for (size_t i = 0; i < sizeof CHART_COLS / sizeof CHART_COLS[0]; i++)
        if (rd->idx[CHART_COLS[i]] < 0) return 0;
    return 1;
}

int rd_select(const rundata *rd, const char *suite, int numcol, int want, int *out, int cap)
{
    int n = 0;
    for (int i = 0; i < rd->t->nrows; i++) {
        if (suite && !rd_is(rd, i, COL_SUITE, suite)) continue;
        if (numcol >= 0 && isnan(rd_num(rd, i, numcol))) continue;
        if ((want & RD_TIMING) && !rd_is_timing(rd, i)) continue;
        if (want & RD_FULL_PRECISION) {
            int d = dtype_parse(rd_str(rd, i, COL_DTYPE));
            if (d == DTYPE_TF32 || d == DTYPE_BF16 || d == DTYPE_FP16) continue;
        }
        if (n < cap) out[n] = i;
        n++;
    }
    return n;
}

int rd_suites(const rundata *rd, const char **out, int cap)
{
    int n = 0;
    for (int i = 0; i < rd->t->nrows; i++) {
        const char *s = rd_str(rd, i, COL_SUITE);
        int seen = 0;
        for (int j = 0; j < n && !seen; j++) seen = strcmp(out[j], s) == 0;
        if (!seen && *s && n < cap) out[n++] = s;
    }
    return n;
}

double rd_work(const rundata *rd, int row)
{
    double f = rd_num(rd, row, COL_FLOPS);
    return f > 0 ? f : rd_num(rd, row, COL_BYTES);
}

int rd_dtype_rank(const rundata *rd, int row)
{
    int d = dtype_parse(rd_str(rd, row, COL_DTYPE));
    return d < 0 ? DTYPE_COUNT : d;
}

int rd_dtypes(const rundata *rd, const char *suite, const char **out, int cap)
{
    int n = 0;
    for (int rank = 0; rank <= DTYPE_COUNT; rank++) /* canonical order; unknown names last */
        for (int i = 0; i < rd->t->nrows && n < cap; i++) {
            const char *d = rd_str(rd, i, COL_DTYPE);
            if (!*d || !rd_is(rd, i, COL_SUITE, suite) || rd_dtype_rank(rd, i) != rank) continue;
            int seen = 0;
            for (int j = 0; j < n && !seen; j++) seen = strcmp(out[j], d) == 0;
            if (!seen) out[n++] = d;
        }
    return n;
}

int rd_same_problem(const rundata *rd, int a, int b)
{
    if (strcmp(rd_str(rd, a, COL_CASE), rd_str(rd, b, COL_CASE)) != 0) return 0;
    int dir = rd_str(rd, a, COL_DIRECTION)[0] && rd_str(rd, b, COL_DIRECTION)[0];
    return dir || strcmp(rd_str(rd, a, COL_SHAPE), rd_str(rd, b, COL_SHAPE)) == 0;
}

const char *rd_context(const rundata *rd, const char *key) { return csv_context(rd->t, key); }

double rd_batch(const rundata *rd, int row)
{
    double sps = rd_num(rd, row, COL_SAMPLES_PER_S), ms = rd_num(rd, row, COL_MEDIAN_MS);
    if (!(sps > 0 && ms > 0)) return NAN;
    double b = round(sps * ms / 1e3);
    return b >= 1 ? b : NAN;
}

double rd_max_batch(const rundata *rd, const int *rows, int n, const char *case_name)
{
    double best = 0;
    for (int i = 0; i < n; i++)
        if (rd_is(rd, rows[i], COL_CASE, case_name)) best = fmax(best, rd_batch(rd, rows[i]));
    return best;
}

int rd_phases(const rundata *rd, int row, char (*names)[RD_PHASE_NAME], double *ms, int cap)
{
    const char *s = rd_str(rd, row, COL_PHASE_MS);
    int n = 0;
    while (*s && n < cap) {
        size_t len = strcspn(s, "=;");
        if (len == 0 || len >= RD_PHASE_NAME || s[len] != '=') return 0;
        char *end;
        double v = strtod(s + len + 1, &end);
        if (end == s + len + 1 || !isfinite(v) || v < 0 || (*end && *end != ';')) return 0;
        memcpy(names[n], s, len);
        names[n][len] = '\0';
        ms[n++] = v;
        s = *end ? end + 1 : end;
    }
    return n;
}

int rd_trace(const rundata *rd, int row, double *out, int cap)
{
    const char *s = rd_str(rd, row, COL_TRACE);
    int n = 0;
    while (*s && n < cap) {
        char *end;
        double v = strtod(s, &end);
        if (end == s || (*end && *end != ';')) return 0;
        out[n++] = isfinite(v) ? v : NAN;
        s = *end ? end + 1 : end;
    }
    return n;
}

int rd_recorded_end(const rundata *rd)
{
    return rd_context(rd, "finished") || rd_context(rd, "interrupted") || rd_context(rd, "stopped");
}
