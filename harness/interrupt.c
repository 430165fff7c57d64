/* harness/interrupt.c - see interrupt.h. */
#define _POSIX_C_SOURCE 200809L
#include "interrupt.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

static volatile sig_atomic_t caught;

static void on_signal(int sig)
{
    if (!caught) caught = sig;   /* the first one is the one reported */
    signal(SIGINT, SIG_DFL);     /* a second one, of either kind, ends the process */
    signal(SIGTERM, SIG_DFL);
}

void interrupt_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGXFSZ, SIG_IGN);
}

int interrupt_signal(void) { return caught; }

const char *interrupt_name(int sig)
{
    static char buf[24];
    if (sig == SIGINT) return "SIGINT";
    if (sig == SIGTERM) return "SIGTERM";
    snprintf(buf, sizeof buf, "signal %d", sig);
    return buf;
}
