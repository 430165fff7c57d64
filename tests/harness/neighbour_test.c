/* tests/harness/neighbour_test.c - the busy neighbour (harness/neighbour.c)
 * and the timing loop's measurement beside it (harness/measure.c): the
 * child exists, at nice 19, during the second measurement only, and is gone
 * after it, also when that measurement fails or is interrupted; the ratio
 * is filled only when the case was measured beside it. No timing asserted. */
#define _GNU_SOURCE
#include "neighbour.h"
#include "measure.h"
#include "interrupt.h"
#include "result.h"
#include "test_hooks.h"
#include "testutil.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Our children (every thread's /proc children list): how many, and how many
 * of them run at nice 19 (field 19 of /proc/<pid>/stat). */
static int children(int *nice19)
{
    int n = 0;
    *nice19 = 0;
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    while (d && (e = readdir(d))) {
        if (e->d_name[0] == '.') continue;
        char path[300];
        snprintf(path, sizeof path, "/proc/self/task/%.200s/children", e->d_name);
        FILE *f = fopen(path, "r");
        int pid;
        while (f && fscanf(f, "%d", &pid) == 1) {
            n++;
            char sp[64], buf[1024];
            snprintf(sp, sizeof sp, "/proc/%d/stat", pid);
            FILE *s = fopen(sp, "r");
            size_t got = s ? fread(buf, 1, sizeof buf - 1, s) : 0;
            if (s) fclose(s);
            buf[got] = 0;
            const char *p = strrchr(buf, ')'); /* the fields after the name: state is 3rd */
            int field = 2;
            long v = 0;
            for (; p && *p && field < 19; p++)
                if (*p == ' ') field++;
            if (p && field == 19 && sscanf(p, "%ld", &v) == 1 && v == 19) (*nice19)++;
        }
        if (f) fclose(f);
    }
    if (d) closedir(d);
    return n;
}

/* What each call saw: children and nice-19 children; fail_at: the call
 * that fails (0: none); raise_at: the call that raises SIGUSR1. */
enum { MAXC = 256 };
static int seen[MAXC], seen19[MAXC], ncalls, fail_at, raise_at;

static int rep(void *ctx, double *ms)
{
    (void)ctx;
    *ms = -1;
    int n19, n = children(&n19);
    if (ncalls < MAXC) seen[ncalls] = n, seen19[ncalls] = n19;
    ncalls++;
    if (raise_at && ncalls == raise_at) raise(SIGUSR1);
    return fail_at && ncalls == fail_at;
}

/* No child left, none waiting to be reaped. */
static void expect_none_left(const char *what)
{
    int n19;
    EXPECT(children(&n19) == 0, "%s: a child is left", what);
    errno = 0;
    EXPECT(waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD, "%s: a child to reap", what);
}

static measure_cfg cfg_of(int judge, int neighbour)
{
    measure_cfg c = measure_cfg_default();
    c.warmup = 1;
    c.min_reps = c.max_reps = 3;
    c.min_time_s = 0;
    c.judge = judge;
    c.threads = 1;
    c.energy = MEASURE_ENERGY_NONE;
    c.neighbour = neighbour;
    return c;
}

int main(void)
{
    EXPECT(neighbour_parse("busy") == NEIGHBOUR_BUSY, "busy");
    EXPECT(neighbour_parse("idle") < 0 && neighbour_parse("") < 0 && neighbour_parse(NULL) < 0,
           "only busy is a kind");
    setenv(HOOK_NO_REMEASURE, "1", 1); /* one quiet measurement: its calls are counted */

    /* 1. beside: quiet calls see no child; the last 3 (the second
     * measurement) see exactly one, at nice 19; none after */
    measure_cfg c = cfg_of(DISTURB_CPU_ROW, NEIGHBOUR_BUSY);
    measure_result m;
    ncalls = fail_at = raise_at = 0;
    EXPECT(measure_run(&c, rep, NULL, &m) == 0, "beside: measure_run failed");
    EXPECT(ncalls == 1 + 3 + 3, "beside: %d calls, want warm-up + 3 + 3", ncalls);
    for (int i = 0; i < ncalls && i < MAXC; i++) {
        const int beside = i >= ncalls - 3;
        EXPECT(seen[i] == beside && seen19[i] == beside, "beside: call %d saw %d children (%d at "
               "nice 19), want %d", i, seen[i], seen19[i], beside);
    }
    expect_none_left("beside");
    EXPECT(m.n == 3 && m.neighbour_median_ms > 0, "beside: %d samples, median beside %g", m.n,
           m.neighbour_median_ms);
    result_row row;
    result_row_init(&row);
    result_fill_timing(&row, &m, 0, 0);
    EXPECT(fabs(row.neighbour_x - m.neighbour_median_ms / m.stats.median) < 1e-12,
           "neighbour_x %g", row.neighbour_x);
    measure_result_free(&m);

    /* 2. no neighbour asked, or a row not judged (emulated): one measurement,
     * no child, no ratio */
    for (int k = 0; k < 2; k++) {
        c = k ? cfg_of(DISTURB_NONE, NEIGHBOUR_BUSY) : cfg_of(DISTURB_CPU_ROW, NEIGHBOUR_NONE);
        ncalls = 0;
        EXPECT(measure_run(&c, rep, NULL, &m) == 0, "case %d: measure_run failed", k);
        EXPECT(ncalls == 4, "case %d: %d calls, want 4", k, ncalls);
        for (int i = 0; i < ncalls; i++) EXPECT(seen[i] == 0, "case %d: call %d saw a child", k, i);
        result_row_init(&row);
        result_fill_timing(&row, &m, 0, 0);
        EXPECT(isnan(m.neighbour_median_ms) && isnan(row.neighbour_x), "case %d: neighbour_x %g", k,
               row.neighbour_x);
        measure_result_free(&m);
    }

    /* 3. the measurement beside fails (2nd call of it): an error, no child left */
    c = cfg_of(DISTURB_CPU_ROW, NEIGHBOUR_BUSY);
    ncalls = 0;
    fail_at = 1 + 3 + 2;
    EXPECT(measure_run(&c, rep, NULL, &m) != 0, "failing: measure_run succeeded");
    EXPECT(seen[ncalls - 1] == 1, "failing: the failing call saw %d children", seen[ncalls - 1]);
    expect_none_left("failing");

    /* 4. interrupted beside the neighbour (SIGUSR1, caught by interrupt.h):
     * the loop stops, the child is reaped */
    interrupt_install();
    ncalls = fail_at = 0;
    raise_at = 1 + 3 + 1;
    EXPECT(measure_run(&c, rep, NULL, &m) != 0, "interrupted: measure_run succeeded");
    EXPECT(interrupt_signal() == SIGUSR1 && ncalls == raise_at, "interrupted: signal %d after %d calls",
           interrupt_signal(), ncalls);
    expect_none_left("interrupted");
    TEST_END();
}
