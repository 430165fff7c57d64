/* harness/repro.h - the repro builder: the one place that writes a row's
 * repro command, from the environment settings before "bench" to the run-wide
 * options after the case's own. */
#ifndef BENCH_REPRO_H
#define BENCH_REPRO_H

#include <stddef.h>

/* What, beyond the case, re-runs a row the same way. */
typedef struct repro_run {
    int emulated;          /* --emulate; the emulator's settings go before the command */
    int emu_progress_set;  /* CUDAEMU_PROGRESS_MS was set by the user, not by bench */
    int device_given, device;
    int cuda_sync;         /* --cuda-sync */
    int steps;             /* --steps N (0: none) */
    const char *baseline;  /* --baseline NAME (NULL: none) */
    int devices;           /* --devices N (0: none) */
    double bucket_mb;      /* --bucket-mb X (<= 0: none) */
    int workers;           /* --workers N (0: none) */
} repro_run;

/* The run-wide parts of every repro: env gets the environment settings
 * ("CUDAEMU_DEVICES=2 ..."), extra the options after the case ("--emulate ...");
 * either is "" when there is none. */
void repro_run_parts(const repro_run *rr, char *env, size_t envcap, char *extra, size_t extracap);

/* Writes the whole repro command of one case into out. env and extra come
 * from repro_run_parts (NULL: none); dtype NULL when the suite has no dtypes. */
void repro_case(char *out, size_t cap, const char *env, const char *suite, const char *desc,
                const char *backend, const char *dtype, const char *mode, int threads,
                const char *extra);

/* A row spread over replicas > 1 ranks (comm "mpi" or "nccl-mpi"): the
 * launcher that makes them, "mpirun -np N" ("srun -n N" under Slurm),
 * inserted before "bench" in repro (after the environment settings); run
 * without it, the command would measure one replica. */
void repro_launcher(char *repro, size_t cap, int replicas, const char *comm);

#endif
