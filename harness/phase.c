/* harness/phase.c - one step's time by phase (see phase.h). */
#include "phase.h"
#include "timer.h"

#include <string.h>

static struct {
    int on, n, failed;
    int (*sync)(void *stream);
    void *stream;                 /* of the last mark: phase_end waits for it */
    const char *name[PHASE_MAX];
    double t[PHASE_MAX + 1];
} P;

/* The profile belongs to the thread that began it: a data-parallel step's
 * other replicas, on their own host threads, run the same marked code, and
 * their marks are not this profile's. */
static _Thread_local int t_profiling;

void phase_begin(int (*sync)(void *stream))
{
    memset(&P, 0, sizeof P);
    P.on = 1;
    P.sync = sync;
    t_profiling = 1;
}

static double now_synced(void *stream)
{
    if (P.sync && P.sync(stream)) P.failed = 1;
    return timer_now_ms();
}

void phase_mark(const char *name, void *stream)
{
    if (!t_profiling || !P.on || P.n >= PHASE_MAX) return;
    P.t[P.n] = now_synced(P.n ? P.stream : stream);
    P.name[P.n++] = name;
    P.stream = stream;
}

int phase_end(const char **names, double *ms, int cap)
{
    int n = P.n;
    if (!P.on || n == 0) {
        P.on = 0;
        t_profiling = 0;
        return -1;
    }
    P.t[n] = now_synced(P.stream);
    P.on = 0;
    t_profiling = 0;
    if (P.failed) return -1;
    if (n > cap) n = cap;
    for (int i = 0; i < n; i++) {
        names[i] = P.name[i];
        ms[i] = P.t[i + 1] - P.t[i];
    }
    return n;
}
