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

/* Rank 0's v, sent to every rank the first time; later calls return v. */
int job_verdict(int v);

/* Sends rank 0's rc to every rank, ends MPI, returns the exit status. */
int job_end(int rc);

#endif
