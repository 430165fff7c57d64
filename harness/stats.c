/* harness/stats.c - median, min, max, mean, MAD of timing samples. */
#include "stats.h"

#include <stdlib.h>
#include <string.h>
#include <math.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_sorted(const double *v, int n)
{
    return (n % 2) ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int stats_summarize(const double *x, int n, stats_summary *s)
{
    if (n < 1) return -1;
    double *v = malloc((size_t)n * sizeof *v);
    if (!v) return -1;
    memcpy(v, x, (size_t)n * sizeof *v);
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    double sum = 0;
    for (int i = 0; i < n; i++) sum += v[i];
    s->n = n;
    s->min = v[0];
    s->max = v[n - 1];
    s->mean = sum / n;
    s->median = median_sorted(v, n);
    for (int i = 0; i < n; i++) v[i] = fabs(x[i] - s->median);
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    s->mad = median_sorted(v, n);
    free(v);
    return 0;
}

double stats_rel_spread(const stats_summary *s)
{
    return s->median > 0 ? s->mad / s->median : 0.0;
}
