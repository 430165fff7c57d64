/* harness/phase.h - one step's time by phase, for the phase_ms column.
 *
 * Code that runs a step (a training step's forward, backward, update) marks
 * where each phase begins: phase_mark("forward", stream). Marks cost nothing
 * unless the runner profiles that step: phase_begin(sync), one run of the
 * step, phase_end(...) (the runner profiles a few steps and keeps each
 * phase's median). While profiling, a mark first waits for the work
 * queued so far (sync(stream): the GPU layer's stream synchronization; NULL on
 * the CPU, whose ops are done when they return), then reads the host clock, so
 * each phase is its own work end to end (host clock after synchronizing, as
 * every host timing here). The runner is single-threaded: one profile at a time,
 * and only the thread that began it marks it (marks from other host threads,
 * a data-parallel step's other replicas, are ignored).
 */
#ifndef HARNESS_PHASE_H
#define HARNESS_PHASE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PHASE_MAX 8

/* Starts profiling the next step. sync may be NULL. */
void phase_begin(int (*sync)(void *stream));
/* A phase begins (and the one before it ends). name must outlive phase_end. */
void phase_mark(const char *name, void *stream);
/* Ends the last phase and profiling: the phases' names and times (ms), at
 * most cap. Returns how many, or -1 when nothing was marked or a sync failed. */
int phase_end(const char **names, double *ms, int cap);

#ifdef __cplusplus
}
#endif
#endif
