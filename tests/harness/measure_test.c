/* tests/harness/measure_test.c - the test of harness/measure.c: the one
 * timing loop, alone and over several rows in alternating rounds
 * (measure_group, bench --rounds). Fake rows record the order their
 * repetitions ran in; asserted:
 *   1. two rows, exact counts, 3 rounds: warm-ups, then each row's share of
 *      the repetitions in turn (aabbaabbaabb), every row its min_reps;
 *   2. three rows whose counts do not divide: each round takes a row to the
 *      rounded-up share (aaabbbccc then aabbcc);
 *   3. one round, one row, and replicated rows (an agree function): the rows
 *      one after another, as measure_run always measured;
 *   4. rows timed by the host clock to a minimum time: n x rounds blocks of
 *      repetitions, each row's samples summing to at least the minimum; rows
 *      stopped by max_reps before their minimum time share the cap too;
 *   5. a failing repetition: its status, and no samples left to free.
 * Counts derive from the configurations, never from literals of the loop. */
#include "measure.h"
#include "testutil.h"

#include <string.h>
#include <time.h>

static char order[4096];
static int norder;

typedef struct fake {
    char id;          /* what it writes into order */
    double sleep_ms;  /* host-timed repetitions sleep this long */
    int fail_at;      /* this call (1-based) returns 7; 0: never */
    int calls;
} fake;

static int fake_rep(void *ctx, double *ms)
{
    fake *f = (fake *)ctx;
    f->calls++;
    if (f->fail_at && f->calls == f->fail_at) return 7;
    if (norder < (int)sizeof order - 1) order[norder++] = f->id;
    order[norder] = '\0';
    if (f->sleep_ms > 0) {
        struct timespec t = {0, (long)(f->sleep_ms * 1e6)};
        nanosleep(&t, NULL);   /* *ms left negative: the harness times it */
    } else {
        *ms = 0.001;           /* times itself: the minimum time is never the limit */
    }
    return 0;
}

/* The expected order: warm-ups of each row, then per round each row's
 * repetitions up to its rounded-up share of reps (exact-count rows). */
static void expect_order(int n, int rounds, int warmup, int reps, char *out, size_t cap)
{
    size_t u = 0;
    int done[8] = {0};
    for (int i = 0; i < n; i++)
        for (int k = 0; k < warmup && u + 1 < cap; k++) out[u++] = (char)('a' + i);
    for (int k = 1; k <= rounds; k++)
        for (int i = 0; i < n; i++)
            for (int share = (k * reps + rounds - 1) / rounds; done[i] < share && u + 1 < cap;
                 done[i]++)
                out[u++] = (char)('a' + i);
    out[u] = '\0';
}

/* Runs n fake rows (ids a, b, ...) under cfg in `rounds`; 0 or the status. */
static int run_group(const measure_cfg *cfg, int n, int rounds, fake *f, measure_result *out)
{
    measure_cfg cfgs[8];
    measure_fn fns[8];
    void *ctxs[8];
    norder = 0;
    order[0] = '\0';
    for (int i = 0; i < n; i++) {
        cfgs[i] = *cfg;
        fns[i] = fake_rep;
        ctxs[i] = &f[i];
        f[i].id = (char)('a' + i);
        f[i].calls = 0;
    }
    return measure_group(cfgs, n, fns, ctxs, rounds, out);
}

static int agree_same(int code) { return code; }

/* How many blocks of one id the order has ("aabba": 3). */
static int blocks(const char *s)
{
    int b = 0;
    for (int i = 0; s[i]; i++) b += i == 0 || s[i] != s[i - 1];
    return b;
}

int main(void)
{
    char want[4096];
    measure_result out[8];
    fake f[8];
    measure_cfg cfg = measure_cfg_default();
    cfg.judge = DISTURB_NONE;   /* fake rows: no re-measuring on a busy test machine */
    cfg.energy = MEASURE_ENERGY_NONE;
    cfg.min_time_s = 0;

    /* 1. two rows, 6 repetitions each, 3 rounds */
    memset(f, 0, sizeof f);
    cfg.warmup = 1;
    cfg.min_reps = cfg.max_reps = 6;
    EXPECT(run_group(&cfg, 2, 3, f, out) == 0, "two rows: measured");
    expect_order(2, 3, cfg.warmup, cfg.min_reps, want, sizeof want);
    EXPECT(strcmp(order, want) == 0, "two rows in 3 rounds: order %s, want %s", order, want);
    EXPECT(blocks(order + 2 * cfg.warmup) == 2 * 3, "two rows in 3 rounds: %d blocks in %s",
           blocks(order + 2 * cfg.warmup), order);
    for (int i = 0; i < 2; i++) {
        EXPECT(out[i].n == cfg.min_reps, "row %d: %d samples, want %d", i, out[i].n, cfg.min_reps);
        EXPECT(out[i].tries == 1 && !out[i].hit_budget && !out[i].hit_max, "row %d: one try", i);
        measure_result_free(&out[i]);
    }

    /* 2. three rows, 5 repetitions in 2 rounds: shares of 3, then 5 */
    cfg.warmup = 0;
    cfg.min_reps = cfg.max_reps = 5;
    EXPECT(run_group(&cfg, 3, 2, f, out) == 0, "three rows: measured");
    expect_order(3, 2, cfg.warmup, cfg.min_reps, want, sizeof want);
    EXPECT(strcmp(order, want) == 0, "three rows in 2 rounds: order %s, want %s", order, want);
    for (int i = 0; i < 3; i++) {
        EXPECT(out[i].n == cfg.min_reps, "row %d: %d samples", i, out[i].n);
        measure_result_free(&out[i]);
    }

    /* 3. one round, one row, replicated rows: one row after another */
    EXPECT(run_group(&cfg, 2, 1, f, out) == 0, "one round: measured");
    expect_order(2, 1, cfg.warmup, cfg.min_reps, want, sizeof want);
    EXPECT(strcmp(order, want) == 0, "one round: order %s, want %s", order, want);
    for (int i = 0; i < 2; i++) measure_result_free(&out[i]);
    EXPECT(measure_run(&cfg, fake_rep, &f[0], &out[0]) == 0 && out[0].n == cfg.min_reps,
           "measure_run: %d samples", out[0].n);
    measure_result_free(&out[0]);
    measure_cfg rep = cfg;
    rep.agree = agree_same;
    EXPECT(run_group(&rep, 2, 3, f, out) == 0, "replicated: measured");
    EXPECT(strcmp(order, want) == 0, "replicated rows are not interleaved: order %s, want %s",
           order, want);
    for (int i = 0; i < 2; i++) measure_result_free(&out[i]);

    /* 4. host-timed rows to a minimum time: every round gives each row a
     * slice, so the order has rows x rounds blocks */
    cfg.min_reps = 1;
    cfg.max_reps = 1000;
    cfg.min_time_s = 0.04;
    f[0].sleep_ms = f[1].sleep_ms = 1.0;
    EXPECT(run_group(&cfg, 2, 4, f, out) == 0, "timed rows: measured");
    /* a sleep longer than a round's share (a loaded machine) lets its row
     * sit the next round out: then at least alternating */
    double longest = 0;
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < out[i].n; k++)
            longest = out[i].samples[k] > longest ? out[i].samples[k] : longest;
    if (longest < cfg.min_time_s * 1e3 / 4)
        EXPECT(blocks(order) == 2 * 4, "timed rows in 4 rounds: %d blocks in %s", blocks(order),
               order);
    else
        EXPECT(blocks(order) >= 3, "timed rows in 4 rounds: %d blocks in %s", blocks(order), order);
    for (int i = 0; i < 2; i++) {
        double sum = 0;
        for (int k = 0; k < out[i].n; k++) sum += out[i].samples[k];
        EXPECT(sum >= cfg.min_time_s * 1e3, "row %d: %.3f ms measured, want %.3f", i, sum,
               cfg.min_time_s * 1e3);
        measure_result_free(&out[i]);
    }
    f[0].sleep_ms = f[1].sleep_ms = 0;

    /* 4b. rows that stop at max_reps before their minimum time (fast
     * repetitions): the capped repetitions are shared over the rounds too */
    cfg.min_reps = 1;
    cfg.max_reps = 6;
    cfg.min_time_s = 1000;
    EXPECT(run_group(&cfg, 2, 3, f, out) == 0, "capped rows: measured");
    expect_order(2, 3, cfg.warmup, cfg.max_reps, want, sizeof want);
    EXPECT(strcmp(order, want) == 0, "capped rows in 3 rounds: order %s, want %s", order, want);
    for (int i = 0; i < 2; i++) {
        EXPECT(out[i].n == cfg.max_reps && out[i].hit_max, "capped row %d: %d samples, hit_max %d",
               i, out[i].n, out[i].hit_max);
        measure_result_free(&out[i]);
    }

    /* 5. a failing repetition ends the group with its status */
    cfg.min_time_s = 0;
    cfg.min_reps = cfg.max_reps = 4;
    f[1].fail_at = 3;
    EXPECT(run_group(&cfg, 2, 2, f, out) == 7, "a failing row: status 7");
    EXPECT(out[0].samples == NULL && out[1].samples == NULL, "a failing row: samples freed");
    TEST_END();
}
