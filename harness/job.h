/* harness/job.h - the process as a job: its standard descriptors, and the
 * ranks of a job of several (mpirun, srun) leaving together.
 *
 * Rank 0 writes the run; the others run the same cases (data-parallel ones
 * need them), emit nothing, and leave with rank 0's exit status. Each rank
 * calls job_verdict once before the run (rank 0's status so far: 0 go on, or
 * the exit code it stops with) and job_end once at the end. */
#ifndef HARNESS_JOB_H
#define HARNESS_JOB_H

/* A closed stdin, stdout or stderr (bench >&-) gets /dev/null: otherwise the
 * next file opened (the run's lock) would take its number and receive the
 * summary. */
void job_std_fds(void);

/* A hash of what this rank was asked to run: its arguments (MPI's own
 * removed) and the environment that changes a run (BENCH_*, CUDAEMU_*,
 * OMP_*, OPENBLAS_*; not CUDA_VISIBLE_DEVICES, which launchers set per rank). */
unsigned long long job_selection_hash(int argc, char *const *argv);

/* The one agreement before any work, called once by every rank (from the
 * usage-error path too): status is this rank's (0, or 2 with err its one-line
 * usage error), hash its job_selection_hash. A rank whose selection differs
 * from rank 0's prints one line naming itself; *say is set when this rank
 * should print its own err (rank 0 with an error; another rank whose error
 * rank 0 did not have: one line per distinct error, not one per rank). Every
 * rank gets the largest status (2 when the selections differ). One process:
 * status, *say = status != 0. */
int job_agree(int status, const char *err, unsigned long long hash, int *say);

/* Rank 0's v, sent to every rank the first time; later calls return v. */
int job_verdict(int v);

/* Sends rank 0's rc to every rank, ends MPI, returns the exit status. */
int job_end(int rc);

#endif
