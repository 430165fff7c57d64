/* harness/csv.h - the one CSV writer (results.csv) and a small CSV reader.
 * Writer: '#'-prefixed context lines, then the header, then one row per
 * measurement, each assembled whole and handed to the file in one write(2),
 * so an interrupted run keeps every finished row and never a torn one.
 * Numbers are written with 10 significant digits (byte counts stay exact).
 * Quoting follows RFC 4180: a field with a comma, quote, CR or LF (or a
 * leading '#') is quoted, quotes doubled.  Reader: skips '#' lines, the first
 * other line is the header; a row with another number of fields than the
 * header, or a last row without its end of line, is an error.
 * Input is bounded: the reader takes a regular file only (a folder, /dev/zero,
 * a FIFO are refused before a byte is read), of at most CSV_MAX_BYTES, rows
 * of at most CSV_MAX_LINE bytes, CSV_MAX_CELLS cells in all, no NUL byte, no
 * column named twice; it skips a UTF-8 byte order mark, holds one 64 KiB
 * chunk and one row besides the table, and stops when interrupt_signal() is
 * set. Each limit is an error naming the file, the line and the limit.
 */
#ifndef HARNESS_CSV_H
#define HARNESS_CSV_H

#include <stdio.h>
#include "result.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct csv_writer csv_writer;

/* Creates path (it must not exist) and writes the context lines ("# key: value" each;
 * context may be NULL) and the header.  Returns NULL with errno set on failure. */
csv_writer *csv_writer_open(const char *path, const char *const *context, int ncontext);
/* Appends one row and flushes. Returns 0 on success, -1 on an I/O error (a
 * full disk, a size limit), in which case any part of the row that reached the
 * file is cut off again: the file keeps whole rows only. After a failure
 * every later row fails too. */
int csv_write_row(csv_writer *w, const result_row *r);
/* Appends a context line ("# key: value") after the rows (a reader takes '#'
 * lines anywhere as context): e.g. "interrupted: SIGINT". 0 or -1 as a row. */
int csv_write_context(csv_writer *w, const char *line);
/* The first failure's reason ("No space left on device"). */
const char *csv_writer_error(const csv_writer *w);
/* Syncs and closes; returns 0 or -1 when a write had failed. */
int csv_writer_close(csv_writer *w);

/* The reader's limits. The longest row bench writes is ~8 MB: the samples_ms
 * of --reps' maximum, 1,000,000 samples (8.1 MB measured, copy:1K); rows of
 * other runs are far shorter (measured: --suite all --quick 9.4 KB at most,
 * --suite train --steps 300 with its loss trace 12.0 KB). */
#define CSV_MAX_LINE (16 << 20)   /* bytes in one row (with its quoted newlines) */
#define CSV_MAX_BYTES (256 << 20) /* bytes in one file */
#define CSV_MAX_CELLS (16 << 20)  /* rows x columns, header included: the table's size */

/* The head of a results file into f: the context lines ("# key: value"
 * each, line breaks made spaces) and the schema's header line. */
void csv_put_head(FILE *f, const char *const *context, int ncontext);
/* One row of n cells into f, each quoted as csv_quote does. 0, or -1 (out
 * of memory, a write error; check ferror too). */
int csv_put_cells(FILE *f, const char *const *cells, int n);

/* Quotes one field into out (size cap); returns the length or -1 if it does not fit. */
int csv_quote(const char *field, char *out, size_t cap);

/* The '#' context lines a reader keeps: at most CSV_MAX_CONTEXT of at most
 * CSV_MAX_CONTEXT_LINE bytes each; past either the file is refused (naming
 * file, line and limit). bench writes ~20, under 120 bytes each (measured:
 * --suite all --quick 21 lines, the longest 110 bytes), plus one at the end
 * ("finished" or "interrupted"). */
#define CSV_MAX_CONTEXT 256
#define CSV_MAX_CONTEXT_LINE 4096

/* A table as read. Compact: every cell's text (unquoted, NUL-terminated)
 * lies in one arena, and a row costs 4 bytes a cell (its offset) plus 4 (its
 * source line): memory is about the file's bytes + 4 x its cells + 4 x its
 * rows, so at most ~3x the file for one-character cells and, at the caps
 * (CSV_MAX_BYTES, CSV_MAX_CELLS), under 420 MiB with the row being read.
 * Measured (/usr/bin/time -v, max RSS): 1,048,575 rows x 16 cells (34.5 MB)
 * 105 MB in csvq (the old reader, a block a row: 194 MB); header "x" and 16
 * Mi rows of "x" (32 MB) refused at the header by --plot and bench-gate
 * with nothing read (old: 730-885 MB); 128 MiB of '#' lines refused at line
 * 257 (old: 2.6 GB; 256 MiB took 5.25 GB and 25 s). Read cells with
 * csv_field. */
typedef struct csv_table {
    int ncols, nrows;
    char **header;      /* ncols names */
    int header_line;    /* the header's line in the file */
    int *line;          /* source line number of each row, for error messages */
    int ncontext;
    char **context;     /* the '#' lines, without the leading "# " */
    char *text;         /* every row's cells, NUL-terminated, back to back */
    unsigned *cell;     /* nrows x ncols offsets into text */
} csv_table;

/* printf-style one-line reason into err (size cap; nothing when err is NULL). */
void csv_errorf(char *err, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Reads a whole CSV file. On failure returns NULL and writes a one-line reason
 * naming the file and line into err (size errcap). */
csv_table *csv_read(const char *path, char *err, size_t errcap);
/* A check of the header, run as soon as it is read (before any row): 0, or
 * -1 with the reason in err (the read then fails with it). t has its header,
 * header_line and context, no rows yet. */
typedef int (*csv_header_fn)(const csv_table *t, void *arg, const char *path, char *err, size_t errcap);
/* csv_read that calls check (may be NULL) on the header: a file without the
 * columns a reader needs is refused before its rows are read. */
csv_table *csv_read_checked(const char *path, csv_header_fn check, void *arg, char *err, size_t errcap);
void csv_table_free(csv_table *t);
/* Index of a column by name, or -1. */
int csv_col(const csv_table *t, const char *name);
/* Field of row i in column c ("" when c < 0). */
const char *csv_field(const csv_table *t, int row, int col);
/* Binds the schema (harness/schema.h) to t: idx[c] is the position of column
 * c in t, or -1 when t lacks it. Readers then ask csv_get(t, idx, row, COL_X). */
void csv_bind(const csv_table *t, int *idx);
const char *csv_get(const csv_table *t, const int *idx, int row, int col_id);

/* ---- reading results through the schema (csv_schema.c) ----------------- */

/* 0 when t has every schema column in cols[0..n); else -1 with
 * "path:line: not a bench results file: no column 'x'" (the header's line) in err. */
int csv_require(const csv_table *t, const int *idx, const int *cols, int n, const char *path,
                char *err, size_t errcap);
/* Checks every cell of every schema column t has against its schema type:
 * NUM a finite number >= 0 or empty, INT an integer >= 0, SAMP ';'-separated
 * numbers, and the columns with a fixed vocabulary (schema_allowed: check,
 * emulated, device_kind) one of its words; then that no two rows share a case
 * key. 0, or -1 with "path:line: column 'c': 'v' is not ..." (or "duplicate
 * case K (also on line L)") in err. */
int csv_validate(const csv_table *t, const int *idx, const char *path, char *err, size_t errcap);
/* csv_read + csv_bind + csv_require(required) + csv_validate: the one way a
 * results file is read; the required columns are checked right after the
 * header line, before any row is read. NULL with the reason in err. */
csv_table *csv_read_results(const char *path, int *idx, const int *required, int nrequired,
                            char *err, size_t errcap);

/* A case key, the whole workload: suite, case, shape, backend, dtype, mode,
 * replicas joined by a separator (an empty dtype reads fp32, an empty replicas
 * 1). The first CSV_KEY_PROBLEM columns name one backend's problem (no mode),
 * the first CSV_KEY_MODE add the mode. */
enum { CSV_KEY_PROBLEM = 5, CSV_KEY_MODE = 6, CSV_KEY_CASE = 7 };
#define CSV_KEY_SEP '\x1f'
/* Joins n fields with sep into out; 0, or -1 when it does not fit. */
int csv_key_join(const char *const *fields, int n, char sep, char *out, size_t cap);
/* The key of a row over its first ncols key columns; 0 or -1 (too long). */
int csv_row_key(const csv_table *t, const int *idx, int row, int ncols, char sep, char *out,
                size_t cap);

/* The case of a row for people: suite/case/shape/backend/dtype/mode, then
 * " xN" when it was spread over N > 1 replicas. */
void csv_row_label(const csv_table *t, const int *idx, int row, char *out, size_t cap);

/* Rows indexed by key (sorted; equal keys in row order), for O(log n) lookups. */
typedef struct csv_keyed {
    char *key;
    int row;
} csv_keyed;
typedef struct csv_keys {
    int n;
    csv_keyed *e;
} csv_keys;
/* Indexes every row of t by its first ncols key columns (CSV_KEY_SEP). 0 or -1 (memory). */
int csv_keys_build(const csv_table *t, const int *idx, int ncols, csv_keys *k);
/* Position in k->e of the first entry with this key, or -1; equal keys follow it. */
int csv_keys_find(const csv_keys *k, const char *key);
void csv_keys_free(csv_keys *k);

/* Value of a "key: value" context line, or NULL. */
const char *csv_context(const csv_table *t, const char *key);

#ifdef __cplusplus
}
#endif
#endif
