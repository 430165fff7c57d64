/* harness/comm.h - the replica seam, process level: which rank of how many
 * this process is, the agreement the runner needs between ranks, and the MPI
 * collectives table (ops/comm_ops.h) over host buffers.
 *
 * Flavours (the comm column): none (one process, one replica), mpi (processes
 * launched by mpirun / mpiexec / srun, host buffers), nccl (the GPUs of one
 * process) and nccl-mpi (one GPU per rank, NCCL bootstrapped over MPI); the
 * NCCL flavours live in the GPU layer. Distributed work runs on MPI and NCCL,
 * never on a transport of our own.
 *
 * MPI starts at comm_init when the launcher's environment says this process
 * is one of several ranks (OMPI_COMM_WORLD_SIZE, PMIX_RANK, PMI_SIZE,
 * SLURM_STEP_NUM_TASKS under srun), and bench starts it no other way (one
 * replica runs on comm_none_ops). A build without MPI has one rank; its MPI
 * cases skip.
 * Every MPI call is checked: errors return (MPI_ERRORS_RETURN) and name the
 * call and MPI's error string. The agreement helpers cannot go on when MPI
 * fails under them (the ranks would drift apart and hang): they abort the
 * job with one line.
 */
#ifndef HARNESS_COMM_H
#define HARNESS_COMM_H

#include <stddef.h>
#include "../ops/comm_ops.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Starts MPI when launched as one rank of several (see above). 0, or -1 with
 * err_set. */
int comm_init(int *argc, char ***argv);
/* This process's rank and the number of ranks (0 and 1 without MPI; before
 * MPI starts, the rank the launcher's environment gives, so that a usage
 * error is told once). */
int comm_rank(void);
int comm_size(void);
/* The rank among the ranks on this node (picks the GPU of a rank). */
int comm_local_rank(void);
/* The ranks on this node, this one included (1 without MPI): they share its
 * memory. */
int comm_local_size(void);
/* The MPI library's version, once MPI started ("" otherwise): the run's
 * context records it. */
const char *comm_mpi_version(void);
/* Ends MPI if it was started (after the last collective). */
void comm_finalize(void);

/* ---- agreement between the ranks (one rank: identity) ---- */

/* The largest v over the ranks. */
int comm_max_int(int v);
/* Elementwise max over the ranks of v[0..n). */
void comm_max_doubles(double *v, int n);
/* Root's n bytes to every rank. */
void comm_bcast_bytes(void *buf, size_t n, int root);
/* Waits for every rank without spinning a core (a rank idle while rank 0
 * runs a one-process case must not slow it). */
void comm_quiet_barrier(void);
/* The lowest rank whose ok is 0 (-1: every rank ok), and its why (at most
 * whycap bytes) copied to every rank. */
int comm_first_failure(int ok, char *why, size_t whycap);

/* The MPI collectives over MPI_COMM_WORLD (host buffers). 0, or 1 with why
 * (no MPI in this build, or MPI not started: no launcher). */
int comm_mpi_ops(comm_ops *out, char *why, size_t whycap);

/* Closes the group that comm_group(c, 1) opened, exactly once, whatever
 * happened inside: rc is the status of the calls made in it. rc != 0: the
 * group is still closed (NCCL then cancels it and answers the failure
 * again, naming ncclGroupEnd), and the first failure's message (err_get,
 * naming the call that failed) is the one kept; returns rc. rc == 0: the
 * close's own status (its message names it). Every group opened is closed
 * through this. */
int comm_group_close(const comm_ops *c, int rc);

/* One replica, no engine (comm none): every collective is a copy or nothing.
 * A data-parallel mode run without a launcher is its one-replica case. */
void comm_none_ops(comm_ops *out);

#ifdef __cplusplus
}
#endif
#endif
