/* harness/result.c - building a result row: defaults, timing columns. */
#include "result.h"
#include "measure.h"
#include "schema.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void result_row_init(result_row *r)
{
    memset(r, 0, sizeof *r);
    for (int c = 0; c < COL_COUNT; c++) /* every number column: not known (NAN) */
        if (SCHEMA[c].type == COLT_NUM) *(double *)((char *)r + SCHEMA[c].offset) = NAN;
    r->replicas = 1;
    snprintf(r->comm, sizeof r->comm, "none");
}

void result_row_drop_timed(result_row *r)
{
    for (int c = 0; c < COL_COUNT; c++) {
        if (schema_col_timed(c) != 2) continue;
        char *field = (char *)r + SCHEMA[c].offset;
        if (SCHEMA[c].type == COLT_NUM) *(double *)field = NAN;
        else if (SCHEMA[c].type == COLT_STR) field[0] = '\0';
    }
}

void result_fill_timing(result_row *row, const struct measure_result *m, double flops, double bytes)
{
    const stats_summary *s = &m->stats;
    row->reps = s->n;
    row->median_ms = s->median;
    row->min_ms = s->min;
    row->max_ms = s->max;
    row->mad_ms = s->mad;
    row->samples = m->samples;
    row->nsamples = m->n;
    if (m->n > 0 && m->energy_j > 0) /* its device's (measure_cfg.energy) */
        row->energy_j = m->energy_j / m->n;   /* NAN stays NAN */
    if (s->median > 0) {
        if (flops > 0) row->gflops = flops / (s->median * 1e6);
        if (bytes > 0) row->gbps = bytes / (s->median * 1e6);
    }
    double spread = stats_rel_spread(s);
    size_t used = strlen(row->note);
    if (spread > STATS_SPREAD_WARN)
        used += (size_t)snprintf(row->note + used, sizeof row->note - used,
                                 "%shigh spread: MAD %.1f%% of median", used ? "; " : "",
                                 100.0 * spread);
    if (m->hit_budget && used < sizeof row->note)
        used += (size_t)snprintf(row->note + used, sizeof row->note - used,
                                 "%stime budget reached after %d reps", used ? "; " : "", s->n);
    if (m->hit_max && used < sizeof row->note)
        used += (size_t)snprintf(row->note + used, sizeof row->note - used,
                                 "%sstopped at the %d-rep cap before the minimum time",
                                 used ? "; " : "", s->n);
    /* disturbed measurements (disturb.h): what was seen, and how often it was measured */
    row->tries = m->tries > 0 ? m->tries : 1;
    row->disturbed = m->kept.disturbed;
    if (row->tries > 1 && m->seen_median_ms > 0 && s->median > 0)
        row->disturbed_x = m->seen_median_ms / s->median;
    if (m->neighbour_median_ms > 0 && s->median > 0)
        row->neighbour_x = m->neighbour_median_ms / s->median;
    if (used >= sizeof row->note) return;
    if (m->kept.disturbed)
        snprintf(row->note + used, sizeof row->note - used, "%sdisturbed: %s; %d tr%s",
                 used ? "; " : "", *m->kept.what ? m->kept.what : "on another rank", row->tries,
                 row->tries == 1 ? "y" : "ies");
    else if (row->tries > 1) {
        char x[48] = ""; /* no try of its own disturbed: no ratio */
        if (row->disturbed_x > 0)
            snprintf(x, sizeof x, "; %.2fx the kept median", row->disturbed_x);
        snprintf(row->note + used, sizeof row->note - used,
                 "%smeasured again after a disturbed try (%s%s); %d tries", used ? "; " : "",
                 *m->seen.what ? m->seen.what : "on another rank", x, row->tries);
    }
}

