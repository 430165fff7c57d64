/* report/json.h - the run in Google Benchmark's JSON layout (context + benchmarks),
 * readable by Google Benchmark's tools/compare.py. */
#ifndef REPORT_JSON_H
#define REPORT_JSON_H

#include <stdio.h>
#include "rundata.h"

/* Writes path whole or not at all. 0, or -1 with the reason on stderr. */
int json_write(const rundata *rd, const char *path);
/* s as a JSON string literal, quotes included (exposed for the tests). */
void json_put_string(FILE *f, const char *s);

#endif
