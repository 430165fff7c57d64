/* report/merge_mix.h - cost, and the "which machine" view of a merge
 * (bench --merge --price, --weights; README "Many machines, one comparison").
 *
 * Prices: per input K the context line "input-K-price: USD (from where)",
 * its machine's price in USD per hour: --price NAME=USD at merge time, else
 * the run's own "price-per-hour" line (bench --price-per-hour). A row's cost:
 *   per million repetitions  price x median_ms / 3.6   (USD/h x ms x 1e6 / 3.6e6 ms/h)
 *   per million samples      price x 1e6 / (3600 x samples_per_s)  (training rows)
 * The mix: the context line "weights: KEY=W,..." over workload keys or suites
 * ("weights: every suite equally (the default)": each suite weighs 1). It is
 * a job of w_l repetitions of each line l (a workload on one device kind, as
 * in the suite tables) that every machine has: a key's weight goes to its
 * lines, a suite's is split equally among its lines every machine has. For
 * that job, each machine's
 *   time   = sum of w_l x median of its best row (ms per mix)
 *   cost   = time x price / 3.6   (USD per million mixes; none without a price)
 *   energy = sum of w_l x energy_j (J per mix; none unless every line has one)
 * and a machine is on the Pareto front of time vs cost (time vs energy) when
 * no other machine with a cost (an energy) is as fast and as cheap (as
 * frugal) and better in one of the two.
 */
#ifndef REPORT_MERGE_MIX_H
#define REPORT_MERGE_MIX_H

#include "merge.h"

typedef struct merge_mix {
    int nlines;                           /* lines in the mix (0: no mix) */
    int bad_weights;                      /* the weights line did not parse */
    double price[MERGE_MAX_INPUTS];       /* USD per hour; NaN: none */
    double time_ms[MERGE_MAX_INPUTS];
    double cost[MERGE_MAX_INPUTS];        /* USD per million mixes; NaN: no price */
    double energy_j[MERGE_MAX_INPUTS];    /* NaN: a line without energy_j */
    int front_cost[MERGE_MAX_INPUTS], front_energy[MERGE_MAX_INPUTS];
    char left_out[1024];                  /* weighted names with no line every machine has */
} merge_mix;

/* Machine k's price per hour (its input-K-price line), or NaN. */
double merge_price(const rundata *rd, const merge_machines *m, int k);

/* Row's cost at price: USD per million repetitions, or per million samples
 * where the row has samples_per_s (*samples set to 1); NaN without a price. */
double merge_row_cost(const rundata *rd, int row, double price, int *samples);

/* The mix of rd's merge (its weights line) for machines m. 0, or -1 out of
 * memory. */
int merge_mix_of(const rundata *rd, const merge_machines *m, merge_mix *x);

#endif
