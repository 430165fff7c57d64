/* report/merge.h - several machines' runs as one comparison (bench --merge).
 *
 * A merge folder's results.csv holds every row of its inputs, each with its
 * machine (the `machine` column), and context lines saying which inputs:
 * "merged: N runs", "reference: NAME", and per input K (1-based) "input-K:
 * DIR", "input-K-machine", "input-K-end" (how its run ended), "input-K-quiet"
 * and its roofs as "input-K-roof..." (the run's own "roofs:"/"roof-..."
 * lines), "input-K-price" and "weights" (merge_mix.h). Everything below reads that one table, so report.md, the charts and
 * bench --plot of a merge folder agree.
 *
 * Two rows compare only when their workload keys (harness/machine.h) are
 * equal; per workload, device kind and machine the fastest passing timing
 * stands for the machine (its "best"; a disturbed one is marked), and a
 * machine's speedup is the reference machine's median / its own.
 */
#ifndef REPORT_MERGE_H
#define REPORT_MERGE_H

#include "rundata.h"

/* The most runs one merge takes: each brings up to ~19 context lines, and a
 * results.csv holds at most CSV_MAX_CONTEXT (256). */
#define MERGE_MAX_INPUTS 12
#define MERGE_NAME_MAX 256 /* a machine's name: --name (64), or host/CPU model */

/* Whether rd is a merge folder's run (its "merged" context line). */
int merge_is(const rundata *rd);

/* The machine an input row ran on: its machine cell, else the run's
 * "machine" context line, else "<host>/<cpu>" of its context, into out. */
void merge_row_machine(const rundata *rd, int row, char *out, size_t cap);

/* The machines of a merge, in the order of the inputs, and the reference. */
typedef struct merge_machines {
    int n, ref;
    char name[MERGE_MAX_INPUTS][MERGE_NAME_MAX];
} merge_machines;
/* From the rows' machine cells in order of first appearance (inputs listed
 * by input-K-machine lines first, so one without rows keeps its column); the
 * reference from the "reference" line (else the first). */
void merge_machines_of(const rundata *rd, merge_machines *m);
/* Index of name in m, or -1. */
int merge_machine_index(const merge_machines *m, const char *name);

/* The context line "input-K-<key>" (key "": "input-K") of the input whose
 * machine is m->name[k], or NULL. */
const char *merge_input_ctx(const rundata *rd, const merge_machines *m, int k, const char *key);

/* One line of a suite's table: a workload on one device kind, and per
 * machine its best row (-1: none). */
typedef struct merge_line {
    const char *workload;
    const char *dev;   /* "cpu" or "gpu" */
    int best[MERGE_MAX_INPUTS];
} merge_line;

/* Whether row is one a comparison may use: a workload key, real hardware,
 * passed, a median > 0. */
int merge_comparable(const rundata *rd, int row);
/* The lines of suite, in order of first appearance; malloc'd into *out,
 * returns the count (-1: out of memory). */
int merge_lines(const rundata *rd, const merge_machines *m, const char *suite, merge_line **out);
/* Whether every machine has the line. */
int merge_line_complete(const merge_line *l, int nmach);
/* The reference's median / machine k's, on line l; NaN when either lacks it. */
double merge_ratio(const rundata *rd, const merge_machines *m, const merge_line *l, int k);
/* The geometric mean of machine k's ratios over the complete lines of device
 * kind dev; *count: how many (0: NaN). */
double merge_geomean(const rundata *rd, const merge_machines *m, const merge_line *lines, int n,
                     const char *dev, int k, int *count);

/* The fields of a workload key, by name: suite, version, shape, dtype, mode,
 * threads, replicas. */
enum { MERGE_F_SUITE = 0, MERGE_F_VERSION, MERGE_F_SHAPE, MERGE_F_DTYPE, MERGE_F_MODE,
       MERGE_F_THREADS, MERGE_F_REPLICAS, MERGE_NFIELDS };
extern const char *const MERGE_FIELD[MERGE_NFIELDS];
/* Splits a workload key into its fields (pointers into buf); 0, or -1 when
 * it is not of the key's form. */
int merge_split(const char *key, char *buf, size_t cap, const char *f[MERGE_NFIELDS]);
/* The one field in which keys a and b differ: its index, or -1 (equal,
 * malformed, or more than one). */
int merge_one_field(const char *a, const char *b);

#endif
