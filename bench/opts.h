/* bench/opts.h - the bench command line: parsing and validation.
 * Everything a person can get wrong is rejected here, with one line naming
 * the bad value, before any work starts (exit code 2). */
#ifndef BENCH_OPTS_H
#define BENCH_OPTS_H

#include <stddef.h>
#include <stdio.h>
#include "machine.h"

#define OPT_MAX_LIST 32
#define OPT_PATH 1024
#define OPT_MAX_THREADS 4096
#define OPT_MAX_STEPS 300   /* the trace column holds 300 losses */
#define OPT_MAX_PRICE 1e6   /* USD per hour: --price, --price-per-hour */

typedef struct bench_opts {
    const char *suites[OPT_MAX_LIST];   /* expanded: "all" -> every suite */
    int nsuites;
    const char *backends[OPT_MAX_LIST]; /* empty: every backend of each suite */
    int nbackends;
    const char *sizes[OPT_MAX_LIST];    /* problems, parsed by each suite; empty: defaults */
    int nsizes;
    const char *modes[OPT_MAX_LIST];    /* host, resident, ...; empty: every mode */
    int nmodes;
    unsigned dtypes;     /* --dtype: DTYPE_BIT set; 0: the default (see --help) */
    const char *max_batch;   /* --max-batch MODEL (NULL: not given) */
    unsigned allocs;     /* --alloc: bit i for GPU_ALLOCS[i]; 0: the default alone */
    int quick;
    int reps;            /* 0: harness default (count and time) */
    double min_time_s;   /* < 0: harness default */
    int rounds;          /* --rounds: host CPU rows in alternating rounds (0: one after another) */
    int threads;         /* CPU threads */
    const char *baseline;   /* NULL: each suite's own */
    char out[OPT_PATH];  /* "" -> results/<UTC time> */
    char name[72];         /* --name: the machine column ("": host/class) */
    char json[OPT_PATH];
    char plot_dir[OPT_PATH];
    const char *merge[OPT_MAX_LIST]; /* --merge DIR...: run folders of several machines */
    int nmerge;
    const char *reference;  /* --merge: the reference machine (NULL: the first input's) */
    machine_kv prices[OPT_MAX_LIST];  /* --merge --price NAME=USD_PER_HOUR, ... */
    int nprices;
    machine_kv weights[OPT_MAX_LIST]; /* --merge --weights KEY=W, ... (none: every suite equally) */
    int nweights;
    double price_per_hour;  /* a run's --price-per-hour (0: not given) */
    int no_plots;
    int no_roofs;       /* --no-roofs: no roof probe, no verdicts */
    int neighbour;       /* --neighbour: neighbour_kind (harness/neighbour.h; 0: none) */
    int verbose;         /* stdout: every row, not only the summary */
    int force;           /* --out may hold an earlier run: replace it */
    int list, info, help, version, columns;
    int emulate;
    int device;
    int device_given;
    int cuda_sync;
    int require_gpu;     /* --require-gpu: no usable GPU is exit 1, before any work */
    int steps;           /* train: steps the loss trace records (0: the checked steps) */
    double bucket_mb;    /* ddp-overlap's gradient buckets, MiB (0: DDP's 25) */
    int devices;         /* GPU data-parallel replicas in this process (0: 1) */
    int workers;         /* --workers: hogwild's forked processes (0: none) */
    char dump[OPT_PATH]; /* train: folder for step 1 of every case ("": none) */
    char command[2048];  /* the command line, for the record */
    unsigned long long given; /* bit i: the option table's row i was given */
} bench_opts;

/* Parses argv into o. On bad input writes one line to err and returns 2. */
int opts_parse(int argc, char **argv, bench_opts *o, char *err, size_t errcap);

void opts_usage(FILE *f);

/* An option that needs what the run's selection lacks (its row's `needs`,
 * SEL_* facts of harness/select.h, those among `decided` so far; has: the
 * facts it has; facts decided in separate calls are each needed) would
 * change nothing: the first given, in the option table's
 * order, is refused. 0, or 2 with one line in err. */
struct selection;
int opts_check_needs(const bench_opts *o, const struct selection *s, unsigned has,
                     unsigned decided, char *err, size_t errcap);

#endif
