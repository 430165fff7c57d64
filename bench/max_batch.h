/* bench/max_batch.h - bench --max-batch MODEL (max_batch.c). */
#ifndef BENCH_MAX_BATCH_H
#define BENCH_MAX_BATCH_H

#include <stdio.h>
#include "opts.h"
#include "run.h"

/* The bad input of --max-batch, before any work: a model the train suite
 * does not have, no GPU layer, no GPU backend of the suite (--backend). 0
 * with *b the backend, or 2 with err. */
int max_batch_check(const bench_opts *o, const backend_def **b, char *err, size_t cap);

/* Prints each device's largest batch to f. 0, or 1 when a device was
 * unusable or its confirming step failed. r: run_setup done. */
int max_batch_main(bench_run *r, const backend_def *b, FILE *f);

#endif
