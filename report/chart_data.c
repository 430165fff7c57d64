/* report/chart_data.c - the rows behind each chart, written as the plain data
 * file its gnuplot script reads (see chart_data.h for why, and the format).
 * Timing charts take only rows that ran on real hardware and passed their
 * check (rd_is_timing); the error chart takes every checked row and marks the
 * emulated ones. */
#include "chart_data.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SERIES 48

typedef struct point {
    double x, y, a, b, c;
    int series;
} point;

typedef struct labels {
    int n;
    char s[MAX_SERIES][96];
} labels;

/* Index of s in l, added when new; -1 when l is full. */
static int label_index(labels *l, const char *s)
{
    for (int i = 0; i < l->n; i++)
        if (strcmp(l->s[i], s) == 0) return i;
    if (l->n == MAX_SERIES) return -1;
    snprintf(l->s[l->n], sizeof l->s[0], "%s", s);
    return l->n++;
}


/* Appends printf-style text at buf + *len when it fits whole; returns -1 and
 * leaves buf unchanged when it does not (snprintf's return is the length it
 * wanted, so adding it blindly would run past the end). */
static int append(char *buf, size_t cap, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int append(char *buf, size_t cap, size_t *len, const char *fmt, ...)
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

void chart_param_str(chart_ctx *c, const char *name, const char *value)
{
    char buf[2048];
    size_t n = 0;
    for (const char *p = value; *p && n + 3 < sizeof buf; p++) {
        if (*p == '\'') buf[n++] = '\'';
        buf[n++] = (*p == '\n') ? ' ' : *p;
    }
    buf[n] = '\0';
    if (append(c->params, sizeof c->params, &c->plen, "%s='%s'; ", name, buf)) c->truncated = 1;
}

void chart_param_num(chart_ctx *c, const char *name, double value)
{
    if (append(c->params, sizeof c->params, &c->plen, "%s=%.10g; ", name, value)) c->truncated = 1;
}

/* A quoted string for the data file (gnuplot takes no escapes there: '"' -> '\''). */
static void put_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) fputc(*s == '"' ? '\'' : (*s == '\n' ? ' ' : *s), f);
    fputc('"', f);
}

/* Records that a row is plotted: which devices the title must name. */
static void use_row(chart_ctx *c, int row)
{
    if (!rd_is_gpu(c->rd, row)) c->has_cpu = 1;
    else if (!c->gpu[0] && !rd_emulated(c->rd, row))
        snprintf(c->gpu, sizeof c->gpu, "%s", rd_str(c->rd, row, "device"));
}

/* The rows of this suite with a number in col (timings only when want says
 * so), further kept by keep (NULL: all). malloc'd; *n their count. */
static int *select_rows(chart_ctx *c, const char *col, int want, int (*keep)(const rundata *, int),
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

/* The shape of the largest problem (by rd_work) among rows, GPU rows first
 * when prefer_gpu and any exist; "" when none. */
static void largest_shape(chart_ctx *c, const int *rows, int n, int prefer_gpu, char *out, size_t cap)
{
    double best = -1;
    int any_gpu = 0;
    for (int i = 0; i < n; i++) any_gpu |= rd_is_gpu(c->rd, rows[i]);
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (prefer_gpu && any_gpu && !rd_is_gpu(c->rd, rows[i])) continue;
        double w = rd_work(c->rd, rows[i]);
        if (w > best) {
            best = w;
            snprintf(out, cap, "%s", rd_str(c->rd, rows[i], "shape"));
        }
    }
}

static int cmp_point(const void *pa, const void *pb)
{
    const point *a = pa, *b = pb;
    if (a->series != b->series) return a->series - b->series;
    return (a->x > b->x) - (a->x < b->x);
}

/* Writes points grouped into one block per series (sorted by x), each block
 * titled with its label; columns x y a b c. Returns the number of blocks. */
static int write_series(chart_ctx *c, point *pts, int np, const labels *l)
{
    qsort(pts, (size_t)np, sizeof *pts, cmp_point);
    int blocks = 0;
    for (int s = 0; s < l->n; s++) {
        int wrote = 0;
        for (int i = 0; i < np; i++) {
            if (pts[i].series != s) continue;
            if (!wrote++) {
                if (blocks++) fputs("\n\n", c->dat);
                put_quoted(c->dat, l->s[s]);
                fputc('\n', c->dat);
            }
            fprintf(c->dat, "%.10g %.10g %.10g %.10g %.10g\n", pts[i].x, pts[i].y, pts[i].a, pts[i].b,
                    pts[i].c);
        }
    }
    return blocks;
}

/* "name:value" words per block, in block order (e.g. colour indices). */
static void param_words(chart_ctx *c, const char *name, const int *v, int n)
{
    char buf[512] = "";
    size_t len = 0;
    for (int i = 0; i < n; i++)
        if (append(buf, sizeof buf, &len, "%s%d", i ? " " : "", v[i])) c->truncated = 1;
    chart_param_str(c, name, buf);
}

static int keep_host_or_resident(const rundata *rd, int row)
{
    double m, n, k;
    return (rd_is(rd, row, "mode", "host") || rd_is(rd, row, "mode", "resident")) &&
           rd_shape_mnk(rd_str(rd, row, "shape"), &m, &n, &k) == 0;
}

/* Sets logy=1 when the positive values in pts span more than `decades`. */
static void param_logy(chart_ctx *c, const point *pts, int np, double decades)
{
    double lo = INFINITY, hi = 0;
    for (int i = 0; i < np; i++)
        if (pts[i].y > 0) {
            lo = fmin(lo, pts[i].y);
            hi = fmax(hi, pts[i].y);
        }
    chart_param_num(c, "logy", (hi > 0 && hi / lo > pow(10, decades)) ? 1 : 0);
}

/* Throughput vs size: x = cbrt(M*N*K), one line per backend (GPU: resident). */
int chart_throughput(chart_ctx *c)
{
    int n;
    int *rows = select_rows(c, "gflops", RD_TIMING, keep_host_or_resident, &n);
    point *pts = malloc(sizeof(point) * (size_t)(n ? n : 1));
    labels l = {0};
    int np = 0;
    for (int i = 0; rows && pts && i < n; i++) {
        int r = rows[i];
        double m, nn, k;
        rd_shape_mnk(rd_str(c->rd, r, "shape"), &m, &nn, &k);
        char lab[96];
        snprintf(lab, sizeof lab, "%s%s", rd_str(c->rd, r, "backend"), rd_is_gpu(c->rd, r) ? " (resident)" : "");
        int s = label_index(&l, lab);
        if (s < 0) continue;
        use_row(c, r);
        pts[np++] = (point){cbrt(m * nn * k), rd_num(c->rd, r, "gflops"), 0, 0, 0, s};
    }
    int blocks = np ? write_series(c, pts, np, &l) : 0;
    param_logy(c, pts, np, 1.5);
    free(rows);
    free(pts);
    return blocks;
}

/* Canonical order of modes, for bars and legends. */
static const char *const MODE_ORDER[] = {"host", "resident", "sync-pageable", "sync-pinned",
                                         "async-pageable", "async-pinned", "streams-2",
                                         "streams-4", "streams-8", NULL};

static int mode_rank(const char *mode)
{
    for (int i = 0; MODE_ORDER[i]; i++)
        if (strcmp(MODE_ORDER[i], mode) == 0) return i;
    return 99;
}

static int keep_not_baseline(const rundata *rd, int row)
{
    return !rd_is(rd, row, "backend", rd_str(rd, row, "baseline"));
}

/* Speedup vs the baseline at the largest shape (GPU rows first): bars grouped
 * by backend, one bar per mode, growing from the 1x line. */
int chart_speedup(chart_ctx *c)
{
    int n;
    int *rows = select_rows(c, "speedup", RD_TIMING, keep_not_baseline, &n);
    char shape[64];
    largest_shape(c, rows, n, 1, shape, sizeof shape);
    labels backends = {0}, modes = {0};
    /* modes as series, in canonical order */
    for (int m = 0; MODE_ORDER[m]; m++)
        for (int i = 0; i < n; i++)
            if (rd_is(c->rd, rows[i], "shape", shape) && rd_is(c->rd, rows[i], "mode", MODE_ORDER[m])) {
                label_index(&modes, MODE_ORDER[m]);
                break;
            }
    for (int i = 0; i < n; i++)
        if (rd_is(c->rd, rows[i], "shape", shape) && mode_rank(rd_str(c->rd, rows[i], "mode")) < 99)
            label_index(&backends, rd_str(c->rd, rows[i], "backend"));
    point *pts = malloc(sizeof(point) * (size_t)(n ? n : 1));
    int np = 0, maxbars = 1;
    for (int b = 0; pts && b < backends.n; b++) {
        int first = np;
        for (int m = 0; m < modes.n; m++)
            for (int i = 0; i < n; i++) {
                int r = rows[i];
                if (!rd_is(c->rd, r, "shape", shape) || !rd_is(c->rd, r, "backend", backends.s[b]) ||
                    !rd_is(c->rd, r, "mode", modes.s[m]))
                    continue;
                use_row(c, r);
                pts[np++] = (point){b, rd_num(c->rd, r, "speedup"), 0, 0, 0, m};
                break;
            }
        if (np - first > maxbars) maxbars = np - first;
    }
    /* bars of one backend side by side, centred on its group */
    double w = fmin(0.8 / maxbars, 0.3);
    for (int b = 0, i = 0; b < backends.n; b++) {
        int first = i;
        while (i < np && pts[i].x == b) i++;
        for (int j = first; j < i; j++) pts[j].x = b + (j - first - (i - first - 1) / 2.0) * w;
    }
    int blocks = np ? write_series(c, pts, np, &modes) : 0;
    char xt[2048] = "";
    size_t len = 0;
    for (int b = 0; b < backends.n; b++)
        if (append(xt, sizeof xt, &len, "%s\"%s\" %d", b ? ", " : "", backends.s[b], b)) c->truncated = 1;
    chart_param_str(c, "xt", xt);
    chart_param_num(c, "bw", w);
    chart_param_num(c, "ngroups", backends.n);
    chart_param_num(c, "nbars", np);
    int sty[MAX_SERIES];
    for (int m = 0; m < modes.n; m++) sty[m] = mode_rank(modes.s[m]) + 1;
    param_words(c, "sty", sty, modes.n);
    param_logy(c, pts, np, 1.0);
    const char *base = n ? rd_str(c->rd, rows[0], "baseline") : "";
    chart_param_str(c, "baseline", base);
    snprintf(c->subtitle, sizeof c->subtitle, "shape %s, vs %s", shape, base);
    free(rows);
    free(pts);
    return blocks;
}

static int keep_gpu_e2e(const rundata *rd, int row)
{
    const char *m = rd_str(rd, row, "mode");
    return rd_is_gpu(rd, row) && (strncmp(m, "sync-", 5) == 0 || strncmp(m, "async-", 6) == 0);
}

/* End-to-end split (H2D, compute, D2H) per backend and mode at the largest
 * shape with GPU rows; one block, one bar per line: x h2d compute d2h median. */
int chart_split(chart_ctx *c)
{
    int n;
    int *rows = select_rows(c, "h2d_ms", RD_TIMING, keep_gpu_e2e, &n);
    char shape[64];
    largest_shape(c, rows, n, 1, shape, sizeof shape);
    labels bars = {0};
    point *pts = malloc(sizeof(point) * (size_t)(n ? n : 1));
    int np = 0;
    /* backends in order of appearance, modes in canonical order within each */
    labels backends = {0};
    for (int i = 0; i < n; i++)
        if (rd_is(c->rd, rows[i], "shape", shape)) label_index(&backends, rd_str(c->rd, rows[i], "backend"));
    for (int b = 0; pts && b < backends.n; b++)
        for (int m = 0; MODE_ORDER[m]; m++)
            for (int i = 0; i < n; i++) {
                int r = rows[i];
                if (!rd_is(c->rd, r, "shape", shape) || !rd_is(c->rd, r, "backend", backends.s[b]) ||
                    !rd_is(c->rd, r, "mode", MODE_ORDER[m]))
                    continue;
                char lab[96];
                snprintf(lab, sizeof lab, "%s %s", backends.s[b], MODE_ORDER[m]);
                if (label_index(&bars, lab) < 0) break;
                use_row(c, r);
                pts[np] = (point){np, rd_num(c->rd, r, "h2d_ms"), rd_num(c->rd, r, "compute_ms"),
                                    rd_num(c->rd, r, "d2h_ms"), rd_num(c->rd, r, "median_ms"), 0};
                np++;
                break;
            }
    if (np) {
        put_quoted(c->dat, "bars");
        fputc('\n', c->dat);
        for (int i = 0; i < np; i++) {
            put_quoted(c->dat, bars.s[i]);
            fprintf(c->dat, " %.10g %.10g %.10g %.10g\n", pts[i].y, pts[i].a, pts[i].b, pts[i].c);
        }
    }
    snprintf(c->subtitle, sizeof c->subtitle, "shape %s", shape);
    free(rows);
    free(pts);
    return np ? 1 : 0;
}

/* Bandwidth (GB/s) vs bytes moved per repetition (a copy's size, a STREAM
 * kernel's arrays), one line per mode, or per backend and mode when the suite's
 * rows come from several backends (stream). Style words per block: a copy
 * direction (h2d, d2h, d2d) picks colour 1-3, any other line colour 4 on; dash
 * by pageable/pinned, point by sync/async. */
int chart_bandwidth(chart_ctx *c)
{
    int n;
    int *rows = select_rows(c, "gbps", RD_TIMING, NULL, &n);
    labels l = {0};
    point *pts = malloc(sizeof(point) * (size_t)(n ? n : 1));
    int np = 0, several = 0;
    for (int i = 1; rows && i < n; i++)
        several |= !rd_is(c->rd, rows[i], "backend", rd_str(c->rd, rows[0], "backend"));
    for (int i = 0; rows && pts && i < n; i++) {
        int r = rows[i];
        double x = rd_work(c->rd, r);
        if (!(x > 0)) continue;
        char lab[sizeof l.s[0]];
        snprintf(lab, sizeof lab, "%s%s%s", several ? rd_str(c->rd, r, "backend") : "",
                 several ? " " : "", rd_str(c->rd, r, "mode"));
        int s = label_index(&l, lab);
        if (s < 0) continue;
        use_row(c, r);
        pts[np++] = (point){x, rd_num(c->rd, r, "gbps"), 0, 0, 0, s};
    }
    int blocks = np ? write_series(c, pts, np, &l) : 0;
    int col[MAX_SERIES], dt[MAX_SERIES], pt[MAX_SERIES], k = 0, other = 0;
    for (int s = 0; s < l.n; s++) {
        int used = 0;
        for (int i = 0; i < np && !used; i++) used = pts[i].series == s;
        if (!used) continue;
        const char *m = l.s[s];
        const char *dir = strstr(m, "h2d") ? "h2d" : strstr(m, "d2h") ? "d2h" : strstr(m, "d2d") ? "d2d" : "";
        col[k] = *dir ? (dir[0] == 'h' ? 1 : dir[2] == 'h' ? 2 : 3) : 4 + other++ % 6;
        dt[k] = strstr(m, "pageable") ? 2 : 1;
        pt[k] = strstr(m, "async") ? 9 : (strstr(m, "sync") ? 7 : 5);
        k++;
    }
    param_words(c, "lcs", col, k);
    param_words(c, "dts", dt, k);
    param_words(c, "pts", pt, k);
    free(rows);
    free(pts);
    return blocks;
}

static int keep_streams(const rundata *rd, int row)
{
    return strncmp(rd_str(rd, row, "mode"), "streams-", 8) == 0;
}

/* Overlap efficiency vs number of streams at the largest shape, per backend. */
int chart_overlap(chart_ctx *c)
{
    int n;
    int *rows = select_rows(c, "overlap_eff", RD_TIMING, keep_streams, &n);
    char shape[64];
    largest_shape(c, rows, n, 1, shape, sizeof shape);
    labels l = {0};
    point *pts = malloc(sizeof(point) * (size_t)(n ? n : 1));
    int np = 0;
    for (int i = 0; rows && pts && i < n; i++) {
        int r = rows[i];
        if (!rd_is(c->rd, r, "shape", shape)) continue;
        int s = label_index(&l, rd_str(c->rd, r, "backend"));
        if (s < 0) continue;
        use_row(c, r);
        pts[np++] = (point){atof(rd_str(c->rd, r, "mode") + 8), rd_num(c->rd, r, "overlap_eff"), 0, 0, 0, s};
    }
    int blocks = np ? write_series(c, pts, np, &l) : 0;
    snprintf(c->subtitle, sizeof c->subtitle, "shape %s", shape);
    free(rows);
    free(pts);
    return blocks;
}

static int keep_checked(const rundata *rd, int row)
{
    return rd_is(rd, row, "check", "pass") || rd_is(rd, row, "check", "fail");
}

/* Numerical error: per backend (emulated ones apart), the row closest to its
 * tolerance (largest rel_err / tolerance); bar = its rel_err (floored at 1e-12
 * for the log axis), marker = its tolerance. Blocks, those present: checked on
 * hardware, emulated (correctness only), failed; columns x rel_err tolerance.
 * The backends label the x axis (param xt). */
int chart_error(chart_ctx *c)
{
    int n;
    /* rows with a tolerance: a result with NaN/Inf has no rel_err (empty cell)
     * but failed all the same, and is drawn as 100% error */
    int *rows = select_rows(c, "tolerance", RD_ANY, keep_checked, &n);
    labels l = {0};
    int worst[MAX_SERIES];
    double ratio[MAX_SERIES];
    for (int i = 0; rows && i < n; i++) {
        int r = rows[i];
        char lab[96];
        snprintf(lab, sizeof lab, "%s%s", rd_str(c->rd, r, "backend"), rd_emulated(c->rd, r) ? " (emulated)" : "");
        int known = l.n, s = label_index(&l, lab);
        if (s < 0) continue;
        double tol = rd_num(c->rd, r, "tolerance"), re = rd_num(c->rd, r, "rel_err");
        double q = isnan(re) ? INFINITY : (tol > 0) ? re / tol : re;
        /* a failed row outranks a passing one; then the larger ratio */
        int fails = rd_is(c->rd, r, "check", "fail");
        int held = s != known && rd_is(c->rd, worst[s], "check", "fail");
        if (s == known || (fails && !held) || (fails == held && q > ratio[s])) {
            worst[s] = r;
            ratio[s] = q;
        }
    }
    static const char *const GROUP[] = {"checked on hardware", "emulated (correctness only)", "check failed"};
    point pts[MAX_SERIES];
    int np = 0;
    for (int s = 0; s < l.n; s++) {
        int r = worst[s];
        int g = rd_is(c->rd, r, "check", "fail") ? 2 : rd_emulated(c->rd, r) ? 1 : 0;
        use_row(c, r);
        double re = rd_num(c->rd, r, "rel_err");
        pts[np] = (point){s, isnan(re) ? 1.0 : fmax(re, 1e-12), rd_num(c->rd, r, "tolerance"), 0, 0, g};
        np++;
    }
    /* series in fixed group order, so colours keep their meaning */
    labels present = {0};
    int sty[3], k = 0;
    for (int g = 0; g < 3; g++)
        for (int i = 0; i < np; i++)
            if (pts[i].series == g) {
                sty[k++] = g + 1;
                label_index(&present, GROUP[g]);
                break;
            }
    for (int i = 0; i < np; i++) pts[i].series = label_index(&present, GROUP[(int)pts[i].series]);
    int blocks = np ? write_series(c, pts, np, &present) : 0;
    param_words(c, "sty", sty, k);
    char xt[2048] = "";
    size_t len = 0;
    for (int s = 0; s < l.n; s++)
        if (append(xt, sizeof xt, &len, "%s\"%s\" %d", s ? ", " : "", l.s[s], s)) c->truncated = 1;
    chart_param_str(c, "xt", xt);
    chart_param_num(c, "nbars", l.n);
    double lo = INFINITY;
    for (int i = 0; i < np; i++) lo = fmin(lo, fmin(pts[i].y, pts[i].a > 0 ? pts[i].a : INFINITY));
    chart_param_num(c, "ymin", isfinite(lo) ? pow(10, floor(log10(lo)) - 0.5) : 1e-9);
    free(rows);
    return blocks;
}
