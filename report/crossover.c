/* report/crossover.c - crossovers along a size axis (see crossover.h). */
#include "crossover.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define XO_MAX_POINTS 128

double xo_interpolate(double x0, double r0, double x1, double r1)
{
    const double l0 = log(r0), l1 = log(r1);
    if (l1 == l0) return x0;
    const double t = -l0 / (l1 - l0);
    return exp(log(x0) + t * (log(x1) - log(x0)));
}

/* A row that may stand on a curve: a timing on a size axis. */
static int usable(const rundata *rd, int i)
{
    return rd_str(rd, i, COL_SWEEP)[0] && rd_num(rd, i, COL_SWEEP_X) > 0 &&
           rd_num(rd, i, COL_MEDIAN_MS) > 0 && rd_is_timing(rd, i);
}

static int same_col(const rundata *rd, int a, int b, int col)
{
    return strcmp(rd_str(rd, a, col), rd_str(rd, b, col)) == 0;
}

/* Rows a and b are on the same axis and compare: suite, sweep, dtype,
 * direction and replicas alike. */
static int same_axis(const rundata *rd, int a, int b)
{
    static const int COLS[] = {COL_SUITE, COL_SWEEP, COL_DTYPE, COL_DIRECTION, COL_REPLICAS};
    for (size_t k = 0; k < sizeof COLS / sizeof COLS[0]; k++)
        if (!same_col(rd, a, b, COLS[k])) return 0;
    return 1;
}

static int same_curve(const rundata *rd, int a, int b)
{
    return same_axis(rd, a, b) && same_col(rd, a, b, COL_BACKEND) && same_col(rd, a, b, COL_MODE);
}

/* Row m is an incumbent for challenger c: the best CPU (c a GPU row), or a
 * library of c's device kind in c's mode (vs_library). */
static int incumbent(const rundata *rd, int c, int m, int vs_library)
{
    if (vs_library)
        return rd_is(rd, m, COL_ROLE, "library") && same_col(rd, c, m, COL_DEVICE_KIND) &&
               same_col(rd, c, m, COL_MODE);
    return rd_is(rd, m, COL_DEVICE_KIND, "cpu");
}

typedef struct point {
    double x, ratio;
    int inc;   /* the incumbent's row at x */
} point;

static int by_x(const void *a, const void *b)
{
    const double x = ((const point *)a)->x, y = ((const point *)b)->x;
    return (x > y) - (x < y);
}

/* The points of challenger curve c (its first row) in rows [first, n):
 * one per size both measured. Returns how many. */
static int points_of(const rundata *rd, int first, int c, int vs_library, point *pt)
{
    const int n = rd_nrows(rd);
    int np = 0;
    for (int k = first; k < n && np < XO_MAX_POINTS; k++) {
        if (!usable(rd, k) || !same_curve(rd, c, k)) continue;
        const double x = rd_num(rd, k, COL_SWEEP_X);
        int dup = 0;
        for (int q = 0; q < np; q++) dup |= pt[q].x == x;
        if (dup) continue;
        int best = -1;
        for (int m = first; m < n; m++) {
            if (m == k || !usable(rd, m) || !same_axis(rd, c, m) || rd_num(rd, m, COL_SWEEP_X) != x ||
                !incumbent(rd, c, m, vs_library))
                continue;
            if (best < 0 || rd_num(rd, m, COL_MEDIAN_MS) < rd_num(rd, best, COL_MEDIAN_MS)) best = m;
        }
        if (best < 0) continue;
        pt[np++] = (point){x, rd_num(rd, best, COL_MEDIAN_MS) / rd_num(rd, k, COL_MEDIAN_MS), best};
    }
    qsort(pt, (size_t)np, sizeof *pt, by_x);
    return np;
}

/* Classifies np >= 2 points sorted by x into o. */
static void classify(const rundata *rd, const point *pt, int np, crossover *o)
{
    int wins = 0, last = -1;
    for (int i = 0; i < np; i++) wins += pt[i].ratio > 1;
    o->npoints = np;
    o->x_lo = pt[0].x;
    o->x_hi = pt[np - 1].x;
    snprintf(o->against, sizeof o->against, "%s", rd_str(rd, pt[np - 1].inc, COL_BACKEND));
    o->x = NAN;
    if (wins == np || wins == 0) {
        o->kind = wins ? XO_EVERY : XO_NEVER;
        return;
    }
    const int ends_winning = pt[np - 1].ratio > 1;
    /* the last change of side: from there on the largest size's side holds */
    for (int i = 0; i + 1 < np; i++)
        if ((pt[i].ratio > 1) != (pt[i + 1].ratio > 1)) last = i;
    o->kind = ends_winning ? XO_FROM : XO_BELOW;
    o->x_lo = pt[last].x;
    o->x_hi = pt[last + 1].x;
    o->x = xo_interpolate(pt[last].x, pt[last].ratio, pt[last + 1].x, pt[last + 1].ratio);
    snprintf(o->against, sizeof o->against, "%s", rd_str(rd, pt[last + 1].inc, COL_BACKEND));
}

/* Challenger c's pair, into o when it has two common sizes: 1, else 0. */
static int pair(const rundata *rd, int first, int c, int vs_library, crossover *o)
{
    point pt[XO_MAX_POINTS];
    const int np = points_of(rd, first, c, vs_library, pt);
    if (np < 2) return 0;
    memset(o, 0, sizeof *o);
    snprintf(o->suite, sizeof o->suite, "%s", rd_str(rd, c, COL_SUITE));
    snprintf(o->sweep, sizeof o->sweep, "%s", rd_str(rd, c, COL_SWEEP));
    snprintf(o->dtype, sizeof o->dtype, "%s", rd_str(rd, c, COL_DTYPE));
    snprintf(o->direction, sizeof o->direction, "%s", rd_str(rd, c, COL_DIRECTION));
    snprintf(o->who, sizeof o->who, "%s", rd_str(rd, c, COL_BACKEND));
    snprintf(o->mode, sizeof o->mode, "%s", rd_str(rd, c, COL_MODE));
    o->vs_library = vs_library;
    classify(rd, pt, np, o);
    return 1;
}

int crossovers_find(const rundata *rd, crossover *out, int cap)
{
    const int n = rd_nrows(rd);
    int count = 0;
    crossover o;
    for (int c = 0; c < n; c++) {
        if (!usable(rd, c)) continue;
        int first = 1;   /* c opens its curve: no earlier row of it */
        for (int k = 0; k < c && first; k++) first = !(usable(rd, k) && same_curve(rd, k, c));
        if (!first) continue;
        int axis0 = c;   /* the axis's first row: every point is at or after it */
        for (int k = 0; k < c; k++)
            if (usable(rd, k) && same_axis(rd, k, c)) {
                axis0 = k;
                break;
            }
        for (int vs = 0; vs < 2; vs++) {
            if (vs == 0 && !rd_is_gpu(rd, c)) continue;
            if (vs == 1 && !rd_is(rd, c, COL_ROLE, "ours")) continue;
            if (!pair(rd, axis0, c, vs, &o)) continue;
            if (count < cap) out[count] = o;
            count++;
        }
    }
    return count;
}

/* A size: whole numbers as they are, large or interpolated ones to 3 digits. */
static void fmt_x(double x, int exact, char *buf, size_t cap)
{
    if (exact && x < 1e7) snprintf(buf, cap, "%.0f", x);
    else snprintf(buf, cap, "%.3g", x);
}

void crossover_sentence(const crossover *c, char *buf, size_t cap)
{
    char head[160], lo[32], hi[32], x[32], against[64];
    snprintf(head, sizeof head, "%s %s%s%s %s: %s %s", c->suite, c->sweep, c->direction[0] ? " " : "",
             c->direction, c->dtype, c->who, c->mode);
    if (c->vs_library) snprintf(against, sizeof against, "the library (%s)", c->against);
    else snprintf(against, sizeof against, "the best CPU (%s)", c->against);
    fmt_x(c->x_lo, 1, lo, sizeof lo);
    fmt_x(c->x_hi, 1, hi, sizeof hi);
    fmt_x(c->x, 0, x, sizeof x);
    switch (c->kind) {
    case XO_EVERY:
        snprintf(buf, cap, "%s beats %s at every size measured (%s to %s, %d sizes)", head, against, lo,
                 hi, c->npoints);
        break;
    case XO_NEVER:
        snprintf(buf, cap, "%s never beats %s in the sizes measured (%s to %s, %d sizes)", head, against,
                 lo, hi, c->npoints);
        break;
    case XO_FROM:
        snprintf(buf, cap, "%s overtakes %s at %s ≈ %s (between %s and %s)", head, against, c->sweep, x,
                 lo, hi);
        break;
    case XO_BELOW:
        snprintf(buf, cap, "%s beats %s only below %s ≈ %s (between %s and %s), slower above", head,
                 against, c->sweep, x, lo, hi);
        break;
    }
}
