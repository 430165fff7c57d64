/* harness/measure.c - warm-up, repeat to count and time, keep every sample. */
#include "measure.h"
#include "timer.h"
#include "errmsg.h"
#include "interrupt.h"

#include <stdlib.h>
#include <string.h>

measure_cfg measure_cfg_default(void)
{
    measure_cfg c = {.warmup = 2, .min_reps = 5, .max_reps = 1000,
                     .min_time_s = 0.25, .budget_s = 10.0};
    return c;
}

static int one_rep(measure_fn fn, void *ctx, double *ms)
{
    double self = -1.0;
    double t0 = timer_now_ms();
    int rc = fn(ctx, &self);
    double t1 = timer_now_ms();
    *ms = self >= 0 ? self : t1 - t0;
    return rc;
}

/* What the ranks decide together (measure_cfg.agree), or this one alone. */
static int decide(const measure_cfg *cfg, int code)
{
    return cfg->agree ? cfg->agree(code) : code;
}

int measure_run(const measure_cfg *cfg, measure_fn fn, void *ctx, measure_result *out)
{
    memset(out, 0, sizeof *out);
    double start = timer_now_ms();
    double budget_ms = cfg->budget_s * 1e3;
    double ms;
    for (int i = 0; i < cfg->warmup; i++) {
        if (decide(cfg, interrupt_signal() ? MEASURE_INTERRUPTED + interrupt_signal() : 0)) break;
        int rc = one_rep(fn, ctx, &ms);
        if (rc) return rc;
        /* slow case: keep time for samples */
        if (decide(cfg, timer_now_ms() - start > budget_ms / 2)) break;
    }
    int cap = 64;
    out->samples = malloc((size_t)cap * sizeof *out->samples);
    if (!out->samples) {
        err_set("out of memory for timing samples");
        return -1;
    }
    double measured = 0;
    for (;;) {
        int code = 0;
        if (interrupt_signal()) code = MEASURE_INTERRUPTED + interrupt_signal();
        else if (out->n >= cfg->min_reps && measured >= cfg->min_time_s * 1e3) code = 1;
        else if (out->n >= cfg->max_reps) code = 1;
        else if (out->n >= 1 && timer_now_ms() - start > budget_ms) code = 1;
        code = decide(cfg, code);
        if (code >= MEASURE_INTERRUPTED) { /* the runner abandons the case */
            measure_result_free(out);
            err_set("interrupted by %s", interrupt_signal() ? interrupt_name(interrupt_signal())
                                                            : "a signal on another rank");
            return -1;
        }
        if (code == 1) {
            int enough = out->n >= cfg->min_reps && measured >= cfg->min_time_s * 1e3;
            if (!enough && out->n >= cfg->max_reps) out->hit_max = 1;
            else if (!enough) out->hit_budget = 1;
            break;
        }
        int rc = one_rep(fn, ctx, &ms);
        if (rc) {
            measure_result_free(out);
            return rc;
        }
        if (out->n == cap) {
            cap *= 2;
            double *p = realloc(out->samples, (size_t)cap * sizeof *p);
            if (!p) {
                measure_result_free(out);
                err_set("out of memory for timing samples");
                return -1;
            }
            out->samples = p;
        }
        out->samples[out->n++] = ms;
        measured += ms;
    }
    if (stats_summarize(out->samples, out->n, &out->stats)) {
        measure_result_free(out);
        err_set("out of memory for statistics");
        return -1;
    }
    return 0;
}

void measure_result_free(measure_result *r)
{
    free(r->samples);
    r->samples = NULL;
    r->n = 0;
}
