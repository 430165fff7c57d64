/* harness/neighbour.c - the busy child beside a measurement (neighbour.h):
 * fork, nice 19, spin; kill and reap. */
#define _GNU_SOURCE
#include "neighbour.h"
#include "errmsg.h"
#include "workers.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int neighbour_parse(const char *name)
{
    return name && strcmp(name, "busy") == 0 ? NEIGHBOUR_BUSY : -1;
}

const char *neighbour_names(void) { return "busy"; }

const char *neighbour_what(neighbour_kind k)
{
    return k == NEIGHBOUR_BUSY ? "a nice -n 19 busy loop" : "nothing";
}

/* The child's life after the fork; never returns. Async-signal-safe calls
 * only (the parent has threads). */
static void busy_main(pid_t parent)
{
    workers_child_init(parent);
    (void)setpriority(PRIO_PROCESS, 0, 19); /* before it leads a group: see start */
    (void)setpgid(0, 0);
    for (volatile unsigned long spin = 0;; spin++) {
    }
}

pid_t neighbour_start(neighbour_kind k)
{
    if (k != NEIGHBOUR_BUSY) {
        err_set("neighbour kind %d: want %s", (int)k, neighbour_names());
        return -1;
    }
    const pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) busy_main(parent);
    if (pid < 0) {
        err_set("fork of the busy neighbour: %s", strerror(errno));
        return -1;
    }
    /* the child does both too, whichever runs first: the niceness here so
     * that it holds before the measurement begins; the group after it, so
     * that a child leading its group is at nice 19 (tests tell it by that
     * from the commands bench runs) */
    if (setpriority(PRIO_PROCESS, (id_t)pid, 19) != 0) {
        err_set("setpriority of the busy neighbour (pid %d): %s", (int)pid, strerror(errno));
        neighbour_stop(pid);
        return -1;
    }
    (void)setpgid(pid, pid);
    return pid;
}

void neighbour_stop(pid_t pid)
{
    if (pid <= 0) return;
    kill(pid, SIGKILL);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
    }
}
