/* report/chart_series.c - the machinery chart builders share (see chart_series.h). */
#include "mode.h"
#include "chart_series.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

int chart_label(labels *l, const char *s)
{
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->s[i], s) == 0) return i;
    if (l->n == MAX_SERIES) return -1;
    snprintf(l->s[l->n], sizeof l->s[0], "%s", s);
    chart_clean(l->s[l->n]);
    return l->n++;
}

/* snprintf's return is the length it wanted, so adding it blindly would run
 * past the end: a text that does not fit is not appended at all. */
int chart_append(char *buf, size_t cap, size_t *len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = *len < cap ? vsnprintf(buf + *len, cap - *len, fmt, ap) : -1;
    va_end(ap);
    if (w < 0 || (size_t)w >= cap - *len) {
        if (*len < cap) buf[*len] = '\0';
        return -1;
    }
    *len += (size_t)w;
    return 0;
}

int chart_unsafe(unsigned char ch)
{
    return ch < 0x20 || ch == 0x7f || ch == '"' || ch == '\\' || ch == '\'' || ch == '`' || ch == '$';
}

void chart_clean(char *s)
{
    for (; *s; s++)
        if (chart_unsafe((unsigned char)*s)) *s = '_';
}

/* Appends "name='value'; " to c->params: a single-quoted gnuplot string
 * (its only escape: ' doubled), with the characters chart_unsafe names made
 * '_' when clean (text from cells), a control character refusing the chart
 * when not (a path), and c->truncated set when it does not fit whole: a
 * parameter is never cut. */
static void param_put(chart_ctx *c, const char *name, const char *value, int clean)
{
    size_t start = c->plen;
    if (chart_append(c->params, sizeof c->params, &c->plen, "%s='", name)) goto cut;
    for (const unsigned char *p = (const unsigned char *)value; *p; p++) {
        char ch = (char)*p;
        if (clean && chart_unsafe(*p)) ch = '_';
        else if (*p < 0x20 || *p == 0x7f) goto cut; /* a path gnuplot could not take */
        if (c->plen + 3 >= sizeof c->params) goto cut;
        if (ch == '\'') c->params[c->plen++] = '\'';
        c->params[c->plen++] = ch;
    }
    c->params[c->plen] = '\0';
    if (chart_append(c->params, sizeof c->params, &c->plen, "'; ") == 0) return;
cut:
    c->plen = start;
    c->params[start] = '\0';
    c->truncated = 1;
}

void chart_param_str(chart_ctx *c, const char *name, const char *value) { param_put(c, name, value, 1); }

void chart_param_path(chart_ctx *c, const char *name, const char *path) { param_put(c, name, path, 0); }

void chart_param_xtics(chart_ctx *c, const char *name, const labels *l)
{
    char xt[MAX_SERIES * (sizeof l->s[0] + 16)] = "", lab[sizeof l->s[0]];
    size_t len = 0;
    for (int i = 0; i < l->n; i++) {
        snprintf(lab, sizeof lab, "%s", l->s[i]);
        chart_clean(lab); /* nothing can close the double quotes the scripts eval */
        if (chart_append(xt, sizeof xt, &len, "%s\"%s\" %d", i ? ", " : "", lab, i)) c->truncated = 1;
    }
    param_put(c, name, xt, 0);
}

void chart_param_num(chart_ctx *c, const char *name, double value)
{
    if (chart_append(c->params, sizeof c->params, &c->plen, "%s=%.10g; ", name, value)) c->truncated = 1;
}

/* A quoted string for the data file (gnuplot takes no escapes there): the
 * characters chart_unsafe names are written as '_'. */
void chart_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) fputc(chart_unsafe((unsigned char)*s) ? '_' : *s, f);
    fputc('"', f);
}

/* Records that a row is plotted: which devices the title must name. */
void chart_use_row(chart_ctx *c, int row)
{
    if (!rd_is_gpu(c->rd, row)) c->has_cpu = 1;
    else if (!c->gpu[0] && !rd_emulated(c->rd, row))
        snprintf(c->gpu, sizeof c->gpu, "%s", rd_str(c->rd, row, COL_DEVICE));
}

/* The rows of this suite with a number in col (timings only when want says
 * so), further kept by keep (NULL: all). malloc'd; *n their count. */
int *chart_rows(chart_ctx *c, int col, int want, int (*keep)(const rundata *, int),
                        int *n)
{
    int cap = rd_nrows(c->rd);
    int *rows = malloc(sizeof(int) * (size_t)(cap ? cap : 1));
    *n = 0;
    if (!rows) return NULL;
    int m = rd_select(c->rd, c->suite, col, want, rows, cap), k = 0;
    for (int i = 0; i < m; i++)
        if (!keep || keep(c->rd, rows[i])) rows[k++] = rows[i];
    *n = k;
    return rows;
}

static int cmp_point(const void *pa, const void *pb)
{
    const point *a = pa, *b = pb;
    if (a->series != b->series) return a->series - b->series;
    return (a->x > b->x) - (a->x < b->x);
}

/* Writes points grouped into one block per series (sorted by x), each block
 * titled with its label; columns x y a b c. Returns the number of blocks. */
int chart_write_series(chart_ctx *c, point *pts, int np, const labels *l)
{
    qsort(pts, (size_t)np, sizeof *pts, cmp_point);
    int blocks = 0;
    for (int s = 0; s < l->n; s++) {
        int wrote = 0;
        for (int i = 0; i < np; i++) {
            if (pts[i].series != s) continue;
            if (!wrote++) {
                if (blocks++) fputs("\n\n", c->dat);
                chart_quoted(c->dat, l->s[s]);
                fputc('\n', c->dat);
            }
            fprintf(c->dat, "%.10g %.10g %.10g %.10g %.10g\n", pts[i].x, pts[i].y, pts[i].a, pts[i].b,
                    pts[i].c);
        }
    }
    return blocks;
}

static int cmp_panel_point(const void *pa, const void *pb)
{
    const point *a = pa, *b = pb;
    if (a->c != b->c) return (a->c > b->c) - (a->c < b->c);
    return cmp_point(pa, pb);
}

int chart_write_panels(chart_ctx *c, point *pts, int np, const labels *panels, const labels *series)
{
    qsort(pts, (size_t)np, sizeof *pts, cmp_panel_point);
    int blocks = 0, p0[MAX_SERIES], p1[MAX_SERIES], ser[MAX_SERIES * 8], nser = 0;
    for (int d = 0; d < panels->n; d++) {
        p0[d] = blocks;
        for (int s = 0; s < series->n; s++) {
            int wrote = 0;
            for (int i = 0; i < np; i++) {
                if ((int)pts[i].c != d || pts[i].series != s) continue;
                if (!wrote++) {
                    if (blocks++) fputs("\n\n", c->dat);
                    chart_quoted(c->dat, series->s[s]);
                    fputc('\n', c->dat);
                    if (nser < MAX_SERIES * 8) ser[nser++] = s + 1;
                    else c->truncated = 1;
                }
                fprintf(c->dat, "%.10g %.10g %.10g %.10g\n", pts[i].x, pts[i].y, pts[i].a, pts[i].b);
            }
        }
        p1[d] = blocks - 1;
    }
    chart_param_num(c, "npanels", panels->n);
    chart_param_words(c, "p0", p0, panels->n);
    chart_param_words(c, "p1", p1, panels->n);
    chart_param_words(c, "ser", ser, nser);
    for (int d = 0; d < panels->n; d++) {
        char name[16];
        snprintf(name, sizeof name, "pt%d", d + 1);
        chart_param_str(c, name, panels->s[d]);
    }
    return blocks;
}

void chart_param_words(chart_ctx *c, const char *name, const int *v, int n)
{
    char buf[512] = "";
    size_t len = 0;
    for (int i = 0; i < n; i++)
        if (chart_append(buf, sizeof buf, &len, "%s%d", i ? " " : "", v[i])) c->truncated = 1;
    chart_param_str(c, name, buf);
}

/* Rows that count flops, CPU (host) or GPU resident (kernel alone). */
int chart_keep_host_or_resident(const rundata *rd, int row)
{
    return mode_is_primary(rd_str(rd, row, COL_MODE)) && rd_num(rd, row, COL_FLOPS) > 0;
}

/* Whether the positive values in pts span more than `decades` (a log axis). */
int chart_wants_log(const point *pts, int np, double decades)
{
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < np; i++)
        if (pts[i].y > 0) {
            lo = fmin(lo, pts[i].y);
            hi = fmax(hi, pts[i].y);
        }
    return hi > 0 && hi / lo > pow(10, decades);
}


/* Speedup bars (see chart_series.h). */
void chart_speedup_bars(chart_ctx *c, point *pts, int np)
{
    int logy = chart_wants_log(pts, np, 1.0);
    double lim = 1;
    for (int i = 0; i < np; i++) {
        double from = logy ? 1 : 0;
        pts[i].a = fmin(from, pts[i].y);
        pts[i].b = fmax(from, pts[i].y);
        if (pts[i].y > 0) lim = fmax(lim, fmax(pts[i].y, 1 / pts[i].y));
    }
    chart_param_num(c, "logy", logy);
    chart_param_num(c, "ylim", pow(lim, 1.25)); /* room for the value labels */
}

