/* harness/energy.h - the CPU's package energy, from Linux's powercap.
 *
 * RAPL's package zones (Intel, and AMD since Linux 5.8, both as
 * /sys/class/powercap/intel-rapl:N: the top-level zones; their sub-zones
 * intel-rapl:N:M, core and uncore, are inside them and not added again) count
 * microjoules in energy_uj, wrapping at max_energy_range_uj. The one timing
 * loop (measure.h) reads them around each measurement; a row's energy_j is
 * the energy of the kept measurement over its repetitions, for the whole
 * package (everything the package ran meanwhile, not only this process).
 * When no zone can be read (no powercap: a VM, not Linux; energy_uj readable
 * by root only since Linux 5.10) the why says so and rows get no energy,
 * never zero.
 * The hook BENCH_POWERCAP_ROOT points the search at another folder (tests).
 */
#ifndef HARNESS_ENERGY_H
#define HARNESS_ENERGY_H

#include <stddef.h>
#include "energy_gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ENERGY_MAX_ZONES 16

typedef struct energy_src {
    int nzones;                         /* 0: none readable (why says why) */
    char dir[ENERGY_MAX_ZONES][300];    /* each zone's folder */
    char name[ENERGY_MAX_ZONES][32];    /* its name file: "package-0" */
    double range_uj[ENERGY_MAX_ZONES];  /* where its counter wraps */
    char why[240];                      /* nzones 0: why there is no energy */
} energy_src;

/* Finds the package zones under root (NULL: BENCH_POWERCAP_ROOT, else
 * /sys/class/powercap) whose counters can be read now. 0 when at least one
 * zone was found, else -1 with e->why set. */
int energy_open(energy_src *e, const char *root);

/* The process's source, opened once (the measurement loop's). */
const energy_src *energy_cpu(void);

/* Reads every zone's counter into uj (e->nzones values). 0, or -1 when one
 * could not be read. */
int energy_read(const energy_src *e, double *uj);

/* The joules between two readings of e, each counter's wrap counted once
 * (a counter that went down wrapped); NAN when nothing moved (a counter that
 * never moves is not a measurement). */
double energy_between_j(const energy_src *e, const double *a, const double *b);

/* One measurement's energy, from the CPU packages or a GPU (energy_gpu.h):
 * the one interface the timing loop reads both through. */
typedef struct energy_span {
    const energy_src *cpu;          /* the packages' counters, or NULL */
    const energy_gpu *gpu;          /* a GPU's source, or NULL */
    int ok;                         /* begin read its source */
    double a[ENERGY_MAX_ZONES];     /* cpu: the counters at begin */
    energy_gpu_span g;              /* gpu: its counter or sampling thread */
} energy_span;

/* Starts a measurement of cpu (when not NULL) or else gpu (when not NULL).
 * 0, or -1 when there is nothing to read (end then gives NAN). */
int energy_span_begin(energy_span *s, const energy_src *cpu, const energy_gpu *gpu);
/* Ends it: the joules in between, or NAN (nothing read, a call failed, a
 * counter that did not move). Call once after every begin. */
double energy_span_end(energy_span *s);

/* The context line of e (without "energy-cpu: ") into out. */
void energy_describe(const energy_src *e, char *out, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
