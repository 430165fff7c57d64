/* bench/roof_probe.h - the roof probe of a run (roof_probe.c says what it
 * measures and how). */
#ifndef BENCH_ROOF_PROBE_H
#define BENCH_ROOF_PROBE_H

#include "roofs.h"
#include "run.h"

/* Fills rf with the roofs the planned problems need, measured now (a line on
 * stderr says what and how long), or says why not (--no-roofs). */
void roof_probe(bench_run *r, problem (*probs)[PLAN_MAX_PROBLEMS], const int *nprobs, roofs *rf);

#endif
