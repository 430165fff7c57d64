/* harness/env.h - the machine a number was measured on.
 * Recorded with every run (CSV context lines, report, JSON) and printed by
 * bench --info. GPU lines are added by the GPU layer. */
#ifndef HARNESS_ENV_H
#define HARNESS_ENV_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ENV_LINE 512

typedef struct env_info {
    char utc[32];
    char version[32];
    char git[64];
    char host[64];
    char os[128];
    char cpu[128];
    int cores;             /* online logical CPUs */
    int usable_cpus;       /* the CPUs' worth this process may use: affinity, cgroup quota */
    char simd[128];        /* the vector extensions this CPU has */
    double memory_gb;
    double llc_bytes;      /* last-level cache, for buffer rotation */
    char compiler[96];
    char openblas[160];    /* openblas_get_config() */
    char openblas_core[48];
    int openblas_threads;
    int omp_threads;
} env_info;

void env_collect(env_info *e);

/* Appends "key: value" lines (without "# ") describing e and the command line
 * to lines[*n...], at most max lines in all. */
void env_context_lines(const env_info *e, const char *command,
                       char (*lines)[ENV_LINE], int *n, int max);

/* Memory this process may use in bytes: physical memory, or the cgroup's
 * memory.max when that is lower (0 when unknown). */
double env_memory_bytes(void);
/* CPUs this process may run on (sched affinity), capped by a cgroup v2 CPU
 * quota rounded up; at least 1. */
int env_usable_cpus(void);
/* This process's resident memory now, in bytes (0 when unknown). */
double env_rss_bytes(void);

/* Thread counts from the environment get the cap of --threads (max):
 * libgomp crashes on OMP_NUM_THREADS=100000. OMP_NUM_THREADS may be a nesting
 * list ("4,2"), OPENBLAS_NUM_THREADS one number; digits only. 0, or 2 with
 * one line in err. */
int env_threads_check(int max, char *err, size_t errcap);

#ifdef __cplusplus
}
#endif
#endif
