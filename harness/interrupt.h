/* harness/interrupt.h - every signal that would end the process ends a run
 * cleanly instead, as README "Files: what happens to them" says.
 *
 * Caught: SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGUSR1, SIGUSR2,
 * SIGALRM, SIGXCPU, SIGXFSZ sent by a process; and, while nobody else handles
 * them, SIGVTALRM, SIGPROF, SIGIO, SIGPWR, SIGSTKFLT and SIGRTMIN..SIGRTMAX:
 * every signal whose default action ends the process, faults aside (SEGV,
 * BUS, FPE, ILL, ABRT, TRAP, SYS stay crashes). SIGHUP stays ignored when it
 * was ignored at start (nohup). The kernel's own SIGXFSZ, for a write past
 * the file size limit, is no interruption: that write fails (EFBIG) and is
 * reported as a write error. With SIGPIPE ignored by the parent, a write to a
 * closed stdout fails with EPIPE: bench checks stdout and counts that as
 * SIGPIPE (interrupt_raise_pipe).
 *
 * The first signal only sets a flag; when the process is still busy a second
 * later, a watcher thread says on stderr what the run is finishing (the
 * activity last announced) and that a second signal quits at once:
 * the measure loop stops repeating, the runner abandons the case in progress
 * (its row is not emitted) and runs no other, and bench writes what it
 * finished, the report marked interrupted, and exits 128 + the signal. A
 * second signal that a person or a scheduler sends (INT, TERM, HUP, QUIT,
 * USR1/2, ALRM) ends the process at once (its default action); SIGPIPE,
 * SIGXCPU and SIGXFSZ, which the kernel repeats on its own, never do (a closed
 * stdout must not cost the report). */
#ifndef HARNESS_INTERRUPT_H
#define HARNESS_INTERRUPT_H

#ifdef __cplusplus
extern "C" {
#endif

/* Installs the handlers. */
void interrupt_install(void);
/* The first signal that interrupted the run, or 0. */
int interrupt_signal(void);
/* Records (a copy of, cut to 250 characters) what the process is busy with,
 * for the message a signal prints ("bench: SIGINT received while <what>:
 * stopping as soon as ..."): "running matmul 2048 cpu-naive (this case is
 * dropped)". NULL clears. */
void interrupt_set_activity(const char *what);
/* A report begins (a run's own, or --plot's): the signal caught so far, if
 * any, does not stop it (a run's report is written past the signal that
 * interrupted the run). protect_read: reading the CSV is never stopped (a
 * run's own report must not be lost to a signal). */
void interrupt_report_begin(int protect_read);
/* For readers of a results.csv: the signal that should stop reading now, or
 * 0 (interrupt_stops_report(), unless the report protects its read). */
int interrupt_stops_reading(void);
/* The signal that should stop reading or writing a report now, or 0: one
 * caught after the report began (none when one was caught before
 * interrupt_report_begin), and never SIGPIPE (a closed stdout never costs a
 * file). Outside a report (the gate's reader): any signal but SIGPIPE. */
int interrupt_stops_report(void);
/* The process is about to print its closing line: the watcher stays quiet. */
void interrupt_done(void);
/* Another rank of the job was interrupted by sig: this process counts as
 * interrupted by it too (unless it already was), so that every rank ends the
 * run as one process ends it on that signal. */
void interrupt_adopt(int sig);
/* Stdout could not be written (EPIPE with SIGPIPE ignored): counts as SIGPIPE. */
void interrupt_raise_pipe(void);
/* "SIGINT", "SIGHUP", ... or "signal N". */
const char *interrupt_name(int sig);

#ifdef __cplusplus
}
#endif
#endif
