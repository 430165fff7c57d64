/* harness/workers.h - worker processes forked by bench itself, sharing memory:
 * what a Hogwild case (dp_mode.h's workers modes) runs on. Knows nothing of
 * what the workers compute: each runs a job callback, told its index.
 *
 * Shared memory (workers_shared) is mapped MAP_SHARED|MAP_ANONYMOUS before
 * workers_start forks, so every worker and the parent see the same pages;
 * everything else a worker reads is its copy-on-write image of the parent
 * at the fork. Workers live until workers_stop; each workers_run hands every
 * worker one job and waits until all have done it.
 *
 * No process is left behind, whatever ends the run:
 *   - the parent reaps every worker (workers_stop, and at once when one dies);
 *   - a signal that interrupts the run (interrupt.h) is seen by the waiting
 *     parent, which kills and reaps the workers (SIGKILL) and reports it;
 *   - a parent that dies without that (SIGKILL, a second signal) takes the
 *     workers with it: each sets PR_SET_PDEATHSIG to SIGKILL and then checks
 *     that its parent is still the one that forked it (it may have died in
 *     between);
 *   - the workers form their own process group, so a terminal's Ctrl-C
 *     reaches the parent alone, which ends them as above;
 *   - every signal disposition is the default in a worker (the parent's
 *     handlers would turn a SIGTERM into a flag nobody reads there).
 * A worker that dies (killed by a signal, or exiting) ends the case: the
 * parent's workers_run fails naming the worker, its pid and the signal.
 *
 * OpenMP after fork: libgomp keeps its thread pool in the calling thread's
 * state; in a child forked from a process whose main thread has led a
 * parallel region, that pool names threads the child does not have, and the
 * child's next parallel region from the main thread waits for them forever
 * (seen here: libgomp 12, a 2-thread team in the parent, the child's first
 * region hangs). So a worker runs its jobs on a fresh thread it creates
 * after the fork, whose pool is empty: its OpenMP teams (and OpenBLAS's,
 * which shuts its own pool down around fork) start from scratch.
 */
#ifndef HARNESS_WORKERS_H
#define HARNESS_WORKERS_H

#include <stddef.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define WORKERS_MAX 64   /* also --workers' limit */

typedef struct workers workers;

/* n bytes of zeroed memory shared with the workers forked after this call
 * (NULL, err_set: out of memory). workers_unshare frees it. */
void *workers_shared(size_t n);
void workers_unshare(void *p, size_t n);

/* The job of worker w (0..n-1), run in the worker on its fresh thread (see
 * above): init once after the fork (may be NULL), then job once per
 * workers_run. 0, or -1 (the worker reports it to the parent; err_set's
 * message is lost with the worker). */
typedef struct workers_job {
    int (*init)(void *ctx, int w);
    int (*job)(void *ctx, int w);
    void *ctx;
} workers_job;

/* Forks n workers (1..WORKERS_MAX) that wait for jobs. 0, or -1 with err_set
 * (the workers forked so far are killed and reaped). */
int workers_start(workers **out, int n, const workers_job *job);

/* Every worker runs its job once; returns when all have. 0; -1 with err_set
 * when a job failed or a worker died ("worker 1 (pid 1234) killed by
 * SIGKILL"): the workers are then killed and reaped, and later calls fail;
 * 1 when the run was interrupted (interrupt_signal): the same. */
int workers_run(workers *w);

/* The start of any process bench forks that must not outlive it (a worker,
 * harness/neighbour.c's busy child), called first in the child: it dies
 * with the thread that forked it (PR_SET_PDEATHSIG SIGKILL; _exit(1) at
 * once when `parent` is already gone), every signal at its default action,
 * none blocked. Async-signal-safe calls only. */
void workers_child_init(pid_t parent);

/* Tells the workers to exit and reaps them (SIGKILL after a grace period);
 * frees w. NULL: nothing. */
void workers_stop(workers *w);

#ifdef __cplusplus
}
#endif
#endif
