/* report/json.h - the run in Google Benchmark's JSON layout (context + benchmarks),
 * readable by Google Benchmark's tools/compare.py. */
#ifndef REPORT_JSON_H
#define REPORT_JSON_H

#include <stdio.h>
#include "rundata.h"

/* Writes path whole or not at all. 0, or -1 with the reason on stderr. */
int json_write(const rundata *rd, const char *path);
/* How a benchmark entry holds schema column c (a COL_* id): 1 when in a key
 * of Google Benchmark's own or not at all (json_col_elsewhere); its key (its
 * schema name, or Google Benchmark's for GFLOP/s, GB/s, items_per_second).
 * A timing (schema_col_timed) is left out of an emulated row. Every other
 * column is written under its key whenever its cell has a value. */
int json_col_elsewhere(int c);
const char *json_col_key(int c);
/* s as a JSON string literal, quotes included (exposed for the tests). */
void json_put_string(FILE *f, const char *s);

#endif
