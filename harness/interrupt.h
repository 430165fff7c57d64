/* harness/interrupt.h - SIGINT and SIGTERM end a run cleanly.
 *
 * The first signal only sets a flag (and restores the default action, so a
 * second one ends the process at once): the measure loop stops repeating, the
 * runner abandons the case in progress (its row is not emitted) and runs no
 * other, and bench writes what it finished, the report marked interrupted,
 * and exits 128 + the signal. */
#ifndef HARNESS_INTERRUPT_H
#define HARNESS_INTERRUPT_H

#ifdef __cplusplus
extern "C" {
#endif

/* Installs the handlers (and ignores SIGXFSZ, so a file size limit is a write
 * error naming the file, not a silent death). */
void interrupt_install(void);
/* The signal that interrupted the run, or 0. */
int interrupt_signal(void);
/* "SIGINT", "SIGTERM" or "signal N". */
const char *interrupt_name(int sig);

#ifdef __cplusplus
}
#endif
#endif
