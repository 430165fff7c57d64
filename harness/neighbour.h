/* harness/neighbour.h - a process bench starts beside a measurement on
 * purpose (--neighbour): how much a case slows when another process wants a
 * CPU, measured rather than waited for (disturb.h catches the accidental
 * ones).
 *
 * The one kind, "busy": a child forked by bench that lowers itself to
 * nice 19 and spins, never sleeping, on any CPU of bench's affinity. It
 * lives only while one measurement runs (measure.c: each timed row is
 * measured quietly first, then once more beside it; neighbour_x is the
 * ratio).
 *
 * No child is left behind, whatever ends the run, as harness/workers.c's
 * workers: bench kills (SIGKILL) and reaps it after the measurement, also
 * when the measurement failed or was interrupted (interrupt.h); a bench
 * that dies without that (SIGKILL, a second signal) takes it along
 * (PR_SET_PDEATHSIG, then a check that the parent is still the one that
 * forked it); it runs in its own process group (a terminal's Ctrl-C reaches
 * bench alone, which ends it as above), with every signal at its default.
 */
#ifndef HARNESS_NEIGHBOUR_H
#define HARNESS_NEIGHBOUR_H

#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { NEIGHBOUR_NONE = 0, NEIGHBOUR_BUSY = 1 } neighbour_kind;

/* The kind a name (--neighbour's value) names, or -1. */
int neighbour_parse(const char *name);
/* The names, for messages: "busy". */
const char *neighbour_names(void);
/* The one line the report says about a kind: "a nice -n 19 busy loop". */
const char *neighbour_what(neighbour_kind k);

/* Starts a neighbour of kind k (not NEIGHBOUR_NONE). Its pid, or -1 with
 * err_set (fork failed). */
pid_t neighbour_start(neighbour_kind k);

/* Kills (SIGKILL) and reaps the neighbour; pid <= 0: nothing. */
void neighbour_stop(pid_t pid);

#ifdef __cplusplus
}
#endif
#endif
