/* harness/stats.h - summary statistics of timing samples. */
#ifndef HARNESS_STATS_H
#define HARNESS_STATS_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct stats_summary {
    int n;
    double median, min, max, mean;
    double mad;   /* median absolute deviation from the median (unscaled) */
} stats_summary;

/* Summarizes n >= 1 samples (x is not modified). Returns 0, or -1 when n < 1
 * or memory runs out. The median of an even count is the mean of the middle two. */
int stats_summarize(const double *x, int n, stats_summary *s);

/* Relative spread MAD / median; 0 when the median is 0. */
double stats_rel_spread(const stats_summary *s);

/* A spread above this fraction of the median earns a warning in the output. */
#define STATS_SPREAD_WARN 0.05

#ifdef __cplusplus
}
#endif
#endif
