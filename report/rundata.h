/* report/rundata.h - one run's results.csv, read once, asked in one vocabulary.
 * Every reader of a run (charts, report.md, JSON) goes through these helpers,
 * by schema column id (harness/schema.h, COL_*): a field, a number (NaN when
 * the cell is empty), which rows are timings, which ran on a GPU (the
 * device_kind column), how much work a row did (the flops and bytes columns),
 * and "rows of suite S with numeric column C". Nothing here parses a shape
 * string or a backend name.
 */
#ifndef REPORT_RUNDATA_H
#define REPORT_RUNDATA_H

#include <stddef.h>
#include "csv.h"
#include "schema.h"

typedef struct rundata {
    csv_table *t;
    int idx[COL_COUNT];        /* csv_bind: position of each schema column, or -1 */
    char csv_path[4096];
} rundata;

/* Reads <dir>/results.csv and validates every cell against the schema
 * (csv_validate: numbers, check words, duplicate cases). 0, or -1 with a
 * one-line reason naming the file, line and column in err. */
int rd_load(rundata *rd, const char *dir, char *err, size_t errcap);
void rd_free(rundata *rd);

int rd_nrows(const rundata *rd);
/* Field of column col (a COL_* id); "" when the file lacks the column. */
const char *rd_str(const rundata *rd, int row, int col);
/* Number of column col; NaN for an empty cell or a missing column. */
double rd_num(const rundata *rd, int row, int col);
/* Whether the field of column col equals s. */
int rd_is(const rundata *rd, int row, int col, const char *s);
int rd_emulated(const rundata *rd, int row);
/* A timing a chart may show: ran on real hardware, checked and passed. */
int rd_is_timing(const rundata *rd, int row);
/* A row of a GPU backend (device_kind = gpu). */
int rd_is_gpu(const rundata *rd, int row);

/* The schema columns this file lacks (it predates them), space-separated,
 * into out; returns how many. */
int rd_missing_columns(const rundata *rd, char *out, size_t cap);
/* Whether the file has what the charts need (device_kind, flops, bytes). */
int rd_chartable(const rundata *rd);

enum { RD_ANY = 0, RD_TIMING = 1, RD_FULL_PRECISION = 2 };
/* Indices of the rows of suite (NULL: any) whose column numcol (a COL_* id;
 * -1: none) holds a number, and that are timings when want has RD_TIMING,
 * and not at a reduced dtype (tf32, bf16, fp16: the dtype charts have them)
 * when want has RD_FULL_PRECISION.
 * Writes at most cap indices into out; returns how many rows matched. */
int rd_select(const rundata *rd, const char *suite, int numcol, int want, int *out, int cap);

/* The suites in order of first appearance; returns the count (<= cap). */
int rd_suites(const rundata *rd, const char **out, int cap);

/* The work of a row, for ordering problems by size: its flops per
 * repetition, or its bytes when it counts no flops; NaN when neither. */
double rd_work(const rundata *rd, int row);

/* ---- precision (the dtype axis) ------------------------------------------ */

/* The canonical rank of a row's dtype (ops/dtype.h's order: fp32, tf32,
 * bf16, fp16, u8), for ordering columns, bars and colours; DTYPE_COUNT for
 * an empty or unknown dtype. */
int rd_dtype_rank(const rundata *rd, int row);

/* The distinct dtypes of suite's rows (skip rows included: a dtype a
 * backend lacks is still an axis value), in canonical order, at most cap;
 * returns the count. */
int rd_dtypes(const rundata *rd, const char *suite, const char **out, int cap);

/* Whether rows a and b measured the same problem: the same case and, for
 * rows without a direction, the same shape (a conv layer's directions are
 * one problem; its shapes differ only by the direction). */
int rd_same_problem(const rundata *rd, int a, int b);

/* ---- training-step rows (samples_per_s, phase_ms, trace) ---------------- */

/* The batch (samples per step) a row's numbers imply: samples_per_s x
 * median_ms / 1000, rounded (samples_per_s is batch / median); NaN when the
 * row has no samples_per_s or no median. Emulated rows have both: their
 * product is still the batch, though neither is a timing. */
double rd_batch(const rundata *rd, int row);

/* The largest batch among rows[0..n) whose case is case_name (the model of
 * a training step), or 0 when none has a batch. */
double rd_max_batch(const rundata *rd, const int *rows, int n, const char *case_name);

#define RD_PHASE_NAME 32
/* The phases of a row's phase_ms cell ("forward=1.2;backward=2.3;update=0.1"),
 * in their order, up to cap: names and milliseconds. Returns the count; 0
 * when the cell is empty or malformed (a name too long, a value that is not
 * a finite number >= 0): such a cell is drawn as nothing, never in part. */
int rd_phases(const rundata *rd, int row, char (*names)[RD_PHASE_NAME], double *ms, int cap);

/* The losses of a row's trace cell (';'-separated numbers; "nan" and "inf"
 * read as NaN: a diverged step is a gap, not an error), up to cap. Returns
 * the count; 0 when the cell is empty or malformed. */
int rd_trace(const rundata *rd, int row, double *out, int cap);

/* Context "key: value", or NULL. */
const char *rd_context(const rundata *rd, const char *key);

/* Whether the run recorded its end: a "finished" line (every run writes one
 * last), an "interrupted" one, or a "stopped" one (a failed --dump write
 * stopped it). A run killed without a chance to write one (SIGKILL, power
 * loss), or one from an older bench, has none. */
int rd_recorded_end(const rundata *rd);

#endif
