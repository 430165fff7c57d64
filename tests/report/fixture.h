/* tests/report/fixture.h - synthetic runs for the report tests: rows built
 * in C (mk), written as a run's results.csv through the real writer
 * (write_run), read back as files and as one chart's data (chart_text). */
#ifndef TESTS_REPORT_FIXTURE_H
#define TESTS_REPORT_FIXTURE_H

#include <stddef.h>
#include "chart_data.h"
#include "result.h"

/* The whole file (malloc'd), or NULL. */
char *slurp(const char *path);
int exists(const char *dir, const char *file);
int exists_nonempty(const char *dir, const char *file);

/* A row: device and device_kind from the backend's prefix (test data only:
 * the report itself reads device_kind); an MxNxK shape counts 2MNK flops,
 * any other none; checked rows carry a small error within tolerance. */
result_row mk(const char *suite, const char *cs, const char *backend, const char *mode,
           const char *shape, double ms, const char *check, int emulated);

/* Writes dir/results.csv (created, replacing one there) from rows; 0 or -1. */
int write_run(const char *dir, result_row *rows, int n);

/* The same with rf's roof context lines (roofs_context_lines, as bench
 * writes them) after the fixture's context. */
struct roofs;
int write_run_roofs(const char *dir, const struct roofs *rf, result_row *rows, int n);

/* Builds one chart of suite from dir's run into text (its data file, then a
 * line "params: ..."); returns the number of blocks, -1 when the run does not
 * load (the reason in text). */
int chart_text(const char *dir, const char *suite, chart_builder build, char *text, size_t cap);

#endif
