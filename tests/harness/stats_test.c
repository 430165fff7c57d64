/* tests/harness/stats_test.c - statistics on known samples; the timing loop's stop rules. */
#include "measure.h"
#include "stats.h"
#include "testutil.h"

#include <math.h>

static int calls;
static int fixed_rep(void *ctx, double *ms)
{
    (void)ctx;
    calls++;
    *ms = 2.0; /* self-timed: 2 ms each */
    return 0;
}
static int failing_rep(void *ctx, double *ms)
{
    (void)ctx;
    (void)ms;
    return 7;
}

int main(void)
{
    stats_summary s;
    const double odd[] = {5, 1, 4, 2, 3};
    EXPECT(stats_summarize(odd, 5, &s) == 0, "odd");
    EXPECT(s.n == 5 && s.median == 3 && s.min == 1 && s.max == 5 && s.mean == 3, "median %g", s.median);
    EXPECT(s.mad == 1, "mad %g", s.mad); /* |x-3| = 2,2,1,1,0 -> 1 */
    const double even[] = {10, 1, 2, 3};
    EXPECT(stats_summarize(even, 4, &s) == 0, "even");
    EXPECT(s.median == 2.5, "even median %g", s.median);
    EXPECT(s.mad == 1.0, "even mad %g", s.mad); /* 7.5,1.5,0.5,0.5 -> 1.0 */
    EXPECT(fabs(stats_rel_spread(&s) - 0.4) < 1e-12, "spread %g", stats_rel_spread(&s));
    const double one[] = {4.25};
    EXPECT(stats_summarize(one, 1, &s) == 0 && s.median == 4.25 && s.mad == 0, "single");
    EXPECT(stats_summarize(one, 0, &s) == -1, "empty rejected");

    /* min count and min time both bind: 2 ms samples, min 0.05 s -> 25 reps */
    measure_cfg c = {.warmup = 3, .min_reps = 5, .max_reps = 1000, .min_time_s = 0.05, .budget_s = 10};
    measure_result m;
    calls = 0;
    EXPECT(measure_run(&c, fixed_rep, NULL, &m) == 0, "run");
    EXPECT(m.n == 25, "reps by time: %d", m.n);
    EXPECT(calls == 28, "warm-up calls not counted as samples: %d calls", calls);
    EXPECT(m.stats.median == 2.0 && m.samples[24] == 2.0, "every sample kept");
    measure_result_free(&m);
    c.min_time_s = 0;
    c.min_reps = 7;
    EXPECT(measure_run(&c, fixed_rep, NULL, &m) == 0 && m.n == 7, "reps by count: %d", m.n);
    measure_result_free(&m);
    c.min_reps = 100;
    c.max_reps = 10;
    EXPECT(measure_run(&c, fixed_rep, NULL, &m) == 0 && m.n == 10, "max reps: %d", m.n);
    measure_result_free(&m);
    EXPECT(measure_run(&c, failing_rep, NULL, &m) == 7, "callable failure propagates");
    TEST_END();
}
