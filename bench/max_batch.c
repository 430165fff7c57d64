/* bench/max_batch.c - bench --max-batch MODEL: the largest batch of a
 * training step that fits on each device, the number Lambda's benchmark
 * publishes per GPU.
 *
 * For each device: its free memory (cudaMemGetInfo), then a binary search
 * over the batch for the largest whose device memory estimate
 * (runner_case_dev_bytes: a resident case under the default allocator) fits
 * in it, then one unchecked step at that batch through the runner's GPU case
 * path to confirm it (its failure is a failed check: exit 1). The batch runs
 * from 1 to the largest the suite accepts (its parser says which). The
 * backend: --backend, else the suite's first GPU backend.
 */
#include "max_batch.h"
#include "errmsg.h"
#include "measure.h"
#include "registry.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MB_SUITE "train"
#define MB_MODE "resident"

/* Problem MODEL-b<batch> of suite e: 0, or -1 (the suite refuses it: err). */
static int at_batch(const suite_entry *e, const char *model, long batch, problem *p, char *err,
                    size_t cap)
{
    char desc[96];
    snprintf(desc, sizeof desc, "%s-b%ld", model, batch);
    memset(p, 0, sizeof *p);
    return e->def->parse(desc, p, err, cap) ? -1 : 0;
}

int max_batch_check(const bench_opts *o, const backend_def **b, char *err, size_t cap)
{
    const suite_entry *e = suite_find(MB_SUITE);
    problem p;
    char why[200];
    *b = NULL;
    if (!e || !e->gpu) {
        snprintf(err, cap, "bench: --max-batch needs a GPU backend of the %s suite: this build "
                 "has no GPU layer (try --emulate)", MB_SUITE);
        return 2;
    }
    if (at_batch(e, o->max_batch, 1, &p, why, sizeof why)) {
        snprintf(err, cap, "bench: bad --max-batch '%.40s': not a model of the %s suite (%s)",
                 o->max_batch, MB_SUITE, e->def->problem_help);
        return 2;
    }
    for (int i = 0; BACKENDS[i].name && !*b; i++)
        if (strcmp(BACKENDS[i].op, e->def->op) == 0 && BACKENDS[i].dev == DEV_GPU &&
            (o->nbackends == 0 || strcmp(BACKENDS[i].name, o->backends[0]) == 0))
            *b = &BACKENDS[i];
    if (!*b || o->nbackends > 1) {
        snprintf(err, cap, "bench: --max-batch needs one GPU backend of the %s suite%s%s (see "
                 "bench --list --suite %s)", MB_SUITE, o->nbackends ? ": not " : "",
                 o->nbackends ? o->backends[0] : "", MB_SUITE);
        return 2;
    }
    return 0;
}

/* The largest batch the suite accepts (it refuses the next), from 1 up. */
static long batch_limit(const suite_entry *e, const char *model)
{
    problem p;
    char why[200];
    long lo = 1, hi = 2;
    while (hi < (1L << 30) && at_batch(e, model, hi, &p, why, sizeof why) == 0) lo = hi, hi *= 2;
    while (hi - lo > 1) {   /* lo accepted, hi refused */
        long mid = lo + (hi - lo) / 2;
        if (at_batch(e, model, mid, &p, why, sizeof why) == 0) lo = mid;
        else hi = mid;
    }
    return lo;
}

static double est_at(bench_run *r, const suite_entry *e, const backend_def *b, const char *model,
                     long batch)
{
    problem p;
    char why[200];
    if (at_batch(e, model, batch, &p, why, sizeof why)) return -1;
    return runner_case_dev_bytes(e, b, &p, r->run.llc_bytes);
}

/* The search on the current device: 0 found (or none fits), 1 the step failed. */
static int search_device(bench_run *r, const backend_def *b, int dev, FILE *f)
{
    const suite_entry *e = suite_find(MB_SUITE);
    const char *model = r->opt->max_batch;
    const double MiB = 1024.0 * 1024.0;
    size_t fr = 0, tot = 0;
    char why[256];
    problem p;
    if (gpu_mem_get(&fr, &tot, why, sizeof why)) {
        fprintf(f, "max-batch %s on gpu %d (%s): unknown: %s\n", model, dev, r->gpu.name, why);
        return 1;
    }
    long lim = batch_limit(e, model), lo = 0, hi = lim + 1;   /* lo fits (0: none), hi does not */
    while (hi - lo > 1) {
        long mid = lo + (hi - lo) / 2;
        if (est_at(r, e, b, model, mid) <= (double)fr) lo = mid;
        else hi = mid;
    }
    if (lo == 0) {
        fprintf(f, "max-batch %s on gpu %d (%s): none: batch 1 needs %.1f MiB, %.1f MiB free\n",
                model, dev, r->gpu.name, est_at(r, e, b, model, 1) / MiB, fr / MiB);
        return 0;
    }
    measure_cfg one = measure_cfg_default();   /* one step, no warm-up */
    one.warmup = 0;
    one.min_reps = one.max_reps = 1;
    one.min_time_s = 0;
    at_batch(e, model, lo, &p, why, sizeof why);
    double ms = runner_time_gpu(&r->run, e, &p, b, MB_MODE, &one);
    fprintf(f, "max-batch %s on gpu %d (%s): %ld (%s, %s: estimate %.3f MiB of %.3f MiB free",
            model, dev, r->gpu.name, lo, b->name, MB_MODE, est_at(r, e, b, model, lo) / MiB, fr / MiB);
    if (lo < lim) fprintf(f, "; batch %ld needs %.3f MiB", lo + 1, est_at(r, e, b, model, lo + 1) / MiB);
    else fprintf(f, "; the suite's largest batch");
    if (isnan(ms)) {   /* the step failed */
        fprintf(f, "); the step failed: %s\n", err_get());
        return 1;
    }
    fprintf(f, "); one step ran\n");
    return 0;
}

int max_batch_main(bench_run *r, const backend_def *b, FILE *f)
{
    int failed = 0;
    for (int dev = 0;; dev++) {
        gpu_probe(dev, &r->gpu);
        if (r->gpu.bad_device) break;
        if (!r->gpu.usable) {
            fprintf(f, "max-batch %s on gpu %d: unusable: %s\n", r->opt->max_batch, dev, r->gpu.why);
            failed = 1;
            break;   /* none answers: the runtime's one reason */
        }
        failed |= search_device(r, b, dev, f);
    }
    return failed;
}
