/* harness/progress.c - a one-line progress indicator with ETA on a terminal. */
#define _POSIX_C_SOURCE 200809L
#include "progress.h"
#include "interrupt.h"
#include "timer.h"

#include <stdio.h>
#include <unistd.h>

void progress_init(progress *p, int total)
{
    p->total = total;
    p->done = 0;
    p->start_ms = timer_now_ms();
    p->tty = isatty(STDERR_FILENO);
}

void progress_start(progress *p, const char *label)
{
    char what[240];
    snprintf(what, sizeof what, "running %s (this case is dropped)", label);
    interrupt_set_activity(what); /* what a signal's message says it waits for */
    if (!p->tty) return;
    char eta[32] = "";
    if (p->done > 0) {
        double per = (timer_now_ms() - p->start_ms) / p->done;
        snprintf(eta, sizeof eta, ", ETA %.0fs", per * (p->total - p->done) / 1e3);
    }
    fprintf(stderr, "\r\033[K[%d/%d%s] %s", p->done + 1, p->total, eta, label);
    fflush(stderr);
}

void progress_finish_one(progress *p) { p->done++; }

void progress_end(progress *p)
{
    if (p->tty) fprintf(stderr, "\r\033[K");
}
