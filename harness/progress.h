/* harness/progress.h - "case i of n, ETA" on stderr, only when it is a terminal. */
#ifndef HARNESS_PROGRESS_H
#define HARNESS_PROGRESS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct progress {
    int total, done;
    double start_ms;
    int tty;
} progress;

void progress_init(progress *p, int total);
/* Announces the case about to run (done + 1 of total). */
void progress_start(progress *p, const char *label);
/* Marks one case finished. */
void progress_finish_one(progress *p);
/* Clears the progress line. */
void progress_end(progress *p);

#ifdef __cplusplus
}
#endif
#endif
