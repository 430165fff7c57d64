/* harness/plan.c - the planner: --sizes (or each suite's defaults) into the
 * run's problems, expanded and without repeats, then admitted by memory. */
#define _POSIX_C_SOURCE 200809L
#include "plan.h"
#include "env.h"
#include "runner.h"

#include <stdio.h>
#include <string.h>

/* Whether probs[n] names the same case as one of probs[0..n). */
static int repeats_problem(const problem *probs, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(probs[i].name, probs[n].name) == 0 && strcmp(probs[i].desc, probs[n].desc) == 0)
            return 1;
    return 0;
}

/* Parses every --sizes entry with every suite that accepts it. 0 or 2 with err. */
static int plan_sizes(const plan_request *q, problem (*probs)[PLAN_MAX_PROBLEMS], int *nprobs,
                      const char *syntax, char *err, size_t errcap)
{
    for (int i = 0; i < q->nsizes; i++) {
        int taken = 0;
        for (int s = 0; s < q->nsuites; s++) {
            const suite_def *d = q->suites[s].def;
            problem parsed;
            int rc = d->parse(q->sizes[i], &parsed, err, errcap);
            if (rc == 2) return 2;
            if (rc != 0) continue;
            /* one entry may stand for several problems (conv: every direction) */
            int room = PLAN_MAX_PROBLEMS - nprobs[s], k = 1;
            if (d->expand) k = d->expand(&parsed, &probs[s][nprobs[s]], room);
            else if (room > 0) probs[s][nprobs[s]] = parsed;
            if (room < 1 || k < 1) {
                snprintf(err, errcap, "bench: too many %s problems in --sizes (at most %d)",
                         d->name, PLAN_MAX_PROBLEMS);
                return 2;
            }
            for (int j = 0; j < k; j++, nprobs[s]++)
                if (repeats_problem(probs[s], nprobs[s])) {
                    /* one case, one row: readers reject a results.csv that repeats a case */
                    snprintf(err, errcap, "bench: '%s' in --sizes repeats %s problem %s",
                             q->sizes[i], d->name, probs[s][nprobs[s]].desc);
                    return 2;
                }
            taken = 1;
        }
        if (!taken) {
            snprintf(err, errcap, "bench: '%s' in --sizes is a problem of none of the selected "
                     "suites (%s)", q->sizes[i], syntax);
            return 2;
        }
    }
    return 0;
}

/* Admits suite s's problems by memory. 0 or 2 with err. */
static int plan_admit(const plan_request *q, int s, const problem *probs, int n,
                      char *err, size_t errcap)
{
    const suite_def *d = q->suites[s].def;
    for (int i = 0; i < n; i++) {
        /* this process's own memory (libraries, the registry) counts too */
        double own = env_rss_bytes();
        double need = runner_case_bytes(d, &probs[i], q->llc_bytes, q->suites[s].gpu_in) + own;
        if (q->mem > 0 && need > 0.75 * q->mem) {
            snprintf(err, errcap,
                     "bench: %s problem %s needs %.1f GiB of host memory (with bench's own "
                     "%.0f MiB), more than 75%% of the %.1f GiB this process may use (%.1f GiB)",
                     d->name, probs[i].desc, need / 1073741824.0, own / 1048576.0,
                     q->mem / 1073741824.0, 0.75 * q->mem / 1073741824.0);
            return 2;
        }
    }
    return 0;
}

int plan_problems(const plan_request *q, problem (*probs)[PLAN_MAX_PROBLEMS], int *nprobs,
                  char *err, size_t errcap)
{
    char syntax[512] = "";
    size_t used = 0;
    for (int s = 0; s < q->nsuites; s++) {
        const suite_def *d = q->suites[s].def;
        used += (size_t)snprintf(syntax + used, used < sizeof syntax ? sizeof syntax - used : 0,
                                 "%s%s: %s", s ? "; " : "", d->name, d->problem_help);
        nprobs[s] = 0;
        if (!q->nsizes) nprobs[s] = d->defaults(q->quick, q->big, probs[s], PLAN_MAX_PROBLEMS);
    }
    if (plan_sizes(q, probs, nprobs, syntax, err, errcap)) return 2;
    for (int s = 0; s < q->nsuites; s++) {
        if (q->nsizes && nprobs[s] == 0 && q->notice) {
            char line[640];
            snprintf(line, sizeof line,
                     "bench: %s: no problem in --sizes is of its form (%s): nothing to run\n",
                     q->suites[s].def->name, q->suites[s].def->problem_help);
            q->notice(line);
        }
        if (plan_admit(q, s, probs[s], nprobs[s], err, errcap)) return 2;
    }
    return 0;
}
