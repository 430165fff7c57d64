/* bench/merge.h - bench --merge DIR... --out DIR [--reference NAME]: run
 * folders of several machines merged, read-only, into one new folder: a
 * results.csv holding every input row with its machine, report.md comparing
 * the machines per workload (report/merge_md.c), the charts and --json. */
#ifndef BENCH_MERGE_H
#define BENCH_MERGE_H

#include "opts.h"

/* Runs bench --merge o->merge[0..o->nmerge) into o->out. Refuses, exit 2
 * with one line and nothing written (no folder made, no lock file left in
 * an input): more than MERGE_MAX_INPUTS folders, a folder given twice
 * (however spelled), one that is not a folder or holds no results.csv, a
 * results.csv that is a link, a folder a live bench run holds (naming its
 * pid), a results.csv the reader refuses (bounds, cells, a truncated last
 * row), one with a column this bench does not know or without the workload
 * column, an input that is itself a merge or has no rows, two inputs of one
 * machine, a --reference that is none of the machines, and an --out (or
 * --json) inside an input or in use, as a run's --out is refused. Inputs are
 * held shared (outdir_hold_input) while they are read. Returns 0, 1 when an
 * output could not be written, 2, or 128 + N after signal N. */
int merge_main(const bench_opts *o);

#endif
