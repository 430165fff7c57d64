/* report/rundata.h - one run's results.csv, read once, asked in one vocabulary.
 * Every reader of a run (charts, report.md, JSON) goes through these helpers:
 * a field by row and column name, a number (NaN when the cell is empty or not
 * a number), which rows are timings, and "rows of suite S with numeric column C".
 */
#ifndef REPORT_RUNDATA_H
#define REPORT_RUNDATA_H

#include <stddef.h>
#include "csv.h"

typedef struct rundata {
    csv_table *t;
    char csv_path[4096];
} rundata;

/* Reads <dir>/results.csv. 0, or -1 with a one-line reason (naming the file
 * and, for a malformed file, the line) in err. */
int rd_load(rundata *rd, const char *dir, char *err, size_t errcap);
void rd_free(rundata *rd);

int rd_nrows(const rundata *rd);
/* Field by column name ("" when the column does not exist). */
const char *rd_str(const rundata *rd, int row, const char *col);
/* Number by column name; NaN for an empty or non-numeric cell. */
double rd_num(const rundata *rd, int row, const char *col);
/* Whether the string field equals s. */
int rd_is(const rundata *rd, int row, const char *col, const char *s);
int rd_emulated(const rundata *rd, int row);
/* A timing a chart may show: ran on real hardware, checked and passed. */
int rd_is_timing(const rundata *rd, int row);
/* A GPU row: a backend not named cpu-*, and not a skip row's "-" mode. */
int rd_is_gpu(const rundata *rd, int row);

enum { RD_ANY = 0, RD_TIMING = 1 };
/* Indices of the rows of suite (NULL: any) whose column numcol (NULL: none)
 * holds a number, and that are timings when want == RD_TIMING. Writes at most
 * cap indices into out; returns how many rows matched (may exceed cap). */
int rd_select(const rundata *rd, const char *suite, const char *numcol, int want, int *out,
              int cap);

/* The suites in order of first appearance; returns the count (<= cap). */
int rd_suites(const rundata *rd, const char **out, int cap);

/* M, N, K of an "MxNxK" shape (a plain number n reads as n x 1 x 1).
 * 0, or -1 when the shape is not of that form. */
int rd_shape_mnk(const char *shape, double *m, double *n, double *k);
/* Size of a row for ordering and charts: M*N*K for GEMM shapes, the bytes
 * column or the shape as a number otherwise; NaN when none applies. */
double rd_work(const rundata *rd, int row);

/* Context "key: value", or NULL. */
const char *rd_context(const rundata *rd, const char *key);

#endif
