/* report/findings.c - a run's findings on one screen (see findings.h). */
#include "findings.h"
#include "crossover.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define MAX_XO 256
#define MAX_MODES 16

/* One finding: a markdown bullet or an indented text line; a detail of the
 * finding above it (subline): a nested bullet, or a line indented under it. */
static void vline(FILE *f, const char *prefix, const char *fmt, va_list ap)
{
    fputs(prefix, f);
    vfprintf(f, fmt, ap);
    fputc('\n', f);
}

static void line(FILE *f, findings_style st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void line(FILE *f, findings_style st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline(f, st == FINDINGS_MD ? "- " : "  ", fmt, ap);
    va_end(ap);
}

static void subline(FILE *f, findings_style st, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void subline(FILE *f, findings_style st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vline(f, st == FINDINGS_MD ? "  - " : "    ", fmt, ap);
    va_end(ap);
}

/* ---- the machine ---------------------------------------------------------- */

/* Which backends lost speed to another process, per backend over its rows
 * with a ratio in column col (a median beside the process over the quiet
 * one): the geometric mean and the worst row. disturbed_x: rows measured
 * again after something else ran, by geometric mean; neighbour_x: rows
 * measured beside --neighbour's busy loop, by the worst. Slowest first;
 * nothing when no row has the ratio. */
#define NEIGHBOUR_MAX 6
typedef struct {
    const char *b;
    double logsum, worst;
    int n, at;
} neighbour_acc;

static void neighbour(const rundata *rd, FILE *f, findings_style st, int col)
{
    neighbour_acc per[NEIGHBOUR_MAX * 4];
    const int by_worst = col == COL_NEIGHBOUR_X;
    int nb = 0;
    for (int i = 0; i < rd_nrows(rd); i++) {
        const double x = rd_num(rd, i, col);
        if (!(x > 0) || rd_emulated(rd, i)) continue;
        const char *b = rd_str(rd, i, COL_BACKEND);
        int k = 0;
        while (k < nb && strcmp(per[k].b, b) != 0) k++;
        if (k == nb) {
            if (nb == (int)(sizeof per / sizeof per[0])) continue;
            per[nb] = (neighbour_acc){.b = b, .at = i, .worst = x};
            nb++;
        }
        per[k].logsum += log(x);
        per[k].n++;
        if (x > per[k].worst) per[k].worst = x, per[k].at = i;
    }
    if (!nb) return;
    char text[600];
    size_t u = 0;
    for (int shown = 0; shown < nb && shown < NEIGHBOUR_MAX; shown++) {
        int w = shown; /* the slowest left: a selection, the list is short */
        for (int k = shown + 1; k < nb; k++)
            if (by_worst ? per[k].worst > per[w].worst
                         : per[k].logsum / per[k].n > per[w].logsum / per[w].n)
                w = k;
        if (w != shown) {
            neighbour_acc t = per[w];
            per[w] = per[shown];
            per[shown] = t;
        }
        const neighbour_acc *a = &per[shown];
        if (u >= sizeof text) continue;
        if (by_worst)
            u += (size_t)snprintf(text + u, sizeof text - u, "%s%s worst %.2fx (%s %s), %.2fx over %d row%s",
                                  shown ? "; " : "", a->b, a->worst, rd_str(rd, a->at, COL_SUITE),
                                  rd_str(rd, a->at, COL_SHAPE), exp(a->logsum / a->n), a->n,
                                  a->n == 1 ? "" : "s");
        else
            u += (size_t)snprintf(text + u, sizeof text - u, "%s%s %.2fx (%d row%s)", shown ? ", " : "",
                                  a->b, exp(a->logsum / a->n), a->n, a->n == 1 ? "" : "s");
    }
    if (by_worst)
        line(f, st, "Beside a nice -n 19 busy loop (--neighbour busy: each row's median beside it over "
                    "its quiet one, the worst row and the geometric mean per backend): %s%s",
             text, nb > NEIGHBOUR_MAX ? "; ..." : "");
    else
        line(f, st, "Beside another process (rows measured again: a disturbed try's median over the kept "
                    "one, geometric mean per backend): %s%s", text, nb > NEIGHBOUR_MAX ? ", ..." : "");
}

static void machine(const rundata *rd, FILE *f, findings_style st)
{
    const csv_table *t = rd->t;
    const char *cpu = rd_context(rd, "cpu"), *cores = rd_context(rd, "cores");
    char gpus[512] = "";
    size_t len = 0;
    for (int i = 0; i < t->ncontext && len + 2 < sizeof gpus; i++)
        if (strncmp(t->context[i], "gpu: ", 5) == 0)
            len += (size_t)snprintf(gpus + len, sizeof gpus - len, "%s%s", len ? "; " : "", t->context[i] + 5);
    int emulated = 0, disturbed = 0;
    for (int i = 0; i < rd_nrows(rd); i++) {
        emulated += rd_emulated(rd, i);
        disturbed += rd_is(rd, i, COL_DISTURBED, "1");
    }
    line(f, st, "Machine: %s%s%s%s; GPU: %s%s", cpu ? cpu : "CPU not recorded", cores ? " (" : "",
         cores ? cores : "", cores ? " cores)" : "", *gpus ? gpus : "none",
         emulated ? " (GPU rows emulated: correctness only, no timings, speedups or crossovers)" : "");
    const char *quiet = rd_context(rd, "quiet");
    if (quiet) line(f, st, "Quiet: %s", quiet);
    else line(f, st, "Quiet: not recorded (results.csv has no quiet: line)");
    if (disturbed) line(f, st, "%d row%s stayed disturbed after being measured again: the disturbed column "
                         "and the notes say what ran", disturbed, disturbed == 1 ? "" : "s");
    neighbour(rd, f, st, COL_DISTURBED_X);
    neighbour(rd, f, st, COL_NEIGHBOUR_X);
    char roofs[600] = "";
    len = 0;
    for (int i = 0; i < t->ncontext && len + 2 < sizeof roofs; i++)
        if (strncmp(t->context[i], "roof-", 5) == 0)
            len += (size_t)snprintf(roofs + len, sizeof roofs - len, "%s%s", len ? "; " : "", t->context[i]);
    if (*roofs) line(f, st, "Roofs: %s", roofs);
    /* per device kind its energy source and its most efficient row; the GPU's
     * only when the run has GPU rows */
    static const char *const KEY[2] = {"energy-cpu", "energy-gpu"}, *const NAME[2] = {"CPU", "GPU"};
    for (int d = 0; d < 2; d++) {
        const char *energy = rd_context(rd, KEY[d]);
        double best = NAN;
        int at = -1, rows = 0;
        for (int i = 0; i < rd_nrows(rd); i++) {
            if ((rd_is_gpu(rd, i) != 0) != d) continue;
            rows++;
            const double g = rd_num(rd, i, COL_GFLOPS_PER_W);
            if (g > 0 && !(g <= best)) best = g, at = i;
        }
        if (!energy || (d == 1 && !rows)) continue;
        if (at >= 0)
            line(f, st, "Energy (%s): %s; most GFLOP per joule: %.3g (%s %s %s)", NAME[d], energy, best,
                 rd_str(rd, at, COL_SUITE), rd_str(rd, at, COL_SHAPE), rd_str(rd, at, COL_BACKEND));
        else
            line(f, st, "Energy (%s): %s%s", NAME[d], energy,
                 strncmp(energy, "none", 4) == 0 ? ": no energy_j column" : "; no row got a reading");
    }
}

static void checks(const rundata *rd, FILE *f, findings_style st)
{
    int pass = 0, fail = 0, skip = 0;
    for (int i = 0; i < rd_nrows(rd); i++) {
        pass += rd_is(rd, i, COL_CHECK, "pass");
        fail += rd_is(rd, i, COL_CHECK, "fail");
        skip += rd_is(rd, i, COL_CHECK, "skip");
    }
    line(f, st, "Checks: %d passed, %d failed%s, %d skipped", pass, fail,
         fail ? (st == FINDINGS_MD ? " (**see Failed checks**)" : " (listed below)") : "", skip);
}

/* ---- per suite: the fastest backends and the GPU speedups ---------------- */

/* A row that ranks: a timing with a median. */
static int ranks(const rundata *rd, int i, const char *suite)
{
    return rd_is(rd, i, COL_SUITE, suite) && rd_is_timing(rd, i) && rd_num(rd, i, COL_MEDIAN_MS) > 0;
}

/* Rows a and b are one problem: case, shape, direction and dtype alike. */
static int same_problem(const rundata *rd, int a, int b)
{
    static const int COLS[] = {COL_CASE, COL_SHAPE, COL_DIRECTION, COL_DTYPE};
    for (size_t k = 0; k < sizeof COLS / sizeof COLS[0]; k++)
        if (strcmp(rd_str(rd, a, COLS[k]), rd_str(rd, b, COLS[k])) != 0) return 0;
    return 1;
}

/* The backend of kind kind ("cpu", "gpu") fastest on the most problems of
 * suite (CPU rows in their host mode, GPU rows in any mode), into best;
 * *wins of *problems. */
static void fastest(const rundata *rd, const char *suite, const char *kind, char *best, size_t cap,
                    int *wins, int *problems)
{
    const int n = rd_nrows(rd);
    int *winner = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
    int nw = 0;
    *best = '\0';
    *wins = *problems = 0;
    if (!winner) return;
    for (int p = 0; p < n; p++) {
        if (!ranks(rd, p, suite) || !rd_is(rd, p, COL_DEVICE_KIND, kind)) continue;
        int first = 1, w = p;
        for (int q = 0; q < p && first; q++)
            first = !(ranks(rd, q, suite) && rd_is(rd, q, COL_DEVICE_KIND, kind) && same_problem(rd, p, q));
        if (!first) continue;
        for (int q = p + 1; q < n; q++)
            if (ranks(rd, q, suite) && rd_is(rd, q, COL_DEVICE_KIND, kind) && same_problem(rd, p, q) &&
                rd_num(rd, q, COL_MEDIAN_MS) < rd_num(rd, w, COL_MEDIAN_MS))
                w = q;
        winner[nw++] = w;
    }
    *problems = nw;
    for (int i = 0; i < nw; i++) {
        int c = 0;
        for (int j = 0; j < nw; j++) c += rd_is(rd, winner[j], COL_BACKEND, rd_str(rd, winner[i], COL_BACKEND));
        if (c > *wins) {
            *wins = c;
            snprintf(best, cap, "%s", rd_str(rd, winner[i], COL_BACKEND));
        }
    }
    free(winner);
}

/* "resident 0.5–14× (best: cublas square-2048)" per GPU mode, into out. */
static void gpu_speedups(const rundata *rd, const char *suite, char *out, size_t cap)
{
    const char *modes[MAX_MODES];
    int nm = 0;
    size_t len = 0;
    *out = '\0';
    for (int i = 0; i < rd_nrows(rd); i++) {
        if (!ranks(rd, i, suite) || !(rd_num(rd, i, COL_SPEEDUP_VS_BEST_CPU) > 0)) continue;
        const char *m = rd_str(rd, i, COL_MODE);
        int seen = 0;
        for (int k = 0; k < nm; k++) seen |= strcmp(modes[k], m) == 0;
        if (!seen && nm < MAX_MODES) modes[nm++] = m;
    }
    for (int k = 0; k < nm && len + 1 < cap; k++) {
        double lo = INFINITY, hi = -INFINITY;
        int at = -1;
        for (int i = 0; i < rd_nrows(rd); i++) {
            const double s = rd_num(rd, i, COL_SPEEDUP_VS_BEST_CPU);
            if (!ranks(rd, i, suite) || !(s > 0) || !rd_is(rd, i, COL_MODE, modes[k])) continue;
            if (s < lo) lo = s;
            if (s > hi) {
                hi = s;
                at = i;
            }
        }
        len += (size_t)snprintf(out + len, cap - len, "%s%s %.2g–%.3g× (best: %s %s)", k ? "; " : "",
                                modes[k], lo, hi, rd_str(rd, at, COL_BACKEND), rd_str(rd, at, COL_CASE));
    }
}

static void suites(const rundata *rd, FILE *f, findings_style st)
{
    const char *names[64];
    const int ns = rd_suites(rd, names, 64);
    for (int s = 0; s < ns; s++) {
        char cpu[32], gpu[32], sp[1024];
        int cw, cn, gw, gn, rows = 0, emulated = 0, cpu_rows = 0;
        for (int i = 0; i < rd_nrows(rd); i++)
            if (rd_is(rd, i, COL_SUITE, names[s])) {
                rows++;
                cpu_rows += !rd_is_gpu(rd, i);
                emulated += rd_is_gpu(rd, i) && rd_emulated(rd, i) && rd_is(rd, i, COL_CHECK, "pass");
            }
        fastest(rd, names[s], "cpu", cpu, sizeof cpu, &cw, &cn);
        fastest(rd, names[s], "gpu", gpu, sizeof gpu, &gw, &gn);
        char cpus[96] = "", gpus[160] = "";
        if (cn) snprintf(cpus, sizeof cpus, "; fastest CPU %s (%d of %d problems)", cpu, cw, cn);
        else if (cpu_rows) snprintf(cpus, sizeof cpus, "; no CPU timing");
        if (gn) snprintf(gpus, sizeof gpus, "; fastest GPU %s (%d of %d)", gpu, gw, gn);
        else if (emulated) snprintf(gpus, sizeof gpus, "; %d GPU rows emulated (not timed)", emulated);
        line(f, st, "%s (%d row%s)%s%s", names[s], rows, rows == 1 ? "" : "s", cpus, gpus);
        gpu_speedups(rd, names[s], sp, sizeof sp);
        if (*sp) line(f, st, "%s GPU ÷ best CPU by mode: %s", names[s], sp);
    }
}

/* ---- crossovers ----------------------------------------------------------- */

/* GPU against the best CPU first, then ours against the library. */
static int find_sorted(const rundata *rd, crossover *xo, int cap)
{
    int n = crossovers_find(rd, xo, cap), k = 0;
    if (n > cap) n = cap;
    crossover *tmp = malloc(sizeof *tmp * (size_t)(n > 0 ? n : 1));
    if (!tmp) return 0;
    for (int vs = 0; vs < 2; vs++)
        for (int i = 0; i < n; i++)
            if (xo[i].vs_library == vs) tmp[k++] = xo[i];
    memcpy(xo, tmp, sizeof *tmp * (size_t)n);
    free(tmp);
    return n;
}

static void crossovers(const rundata *rd, FILE *f, findings_style st)
{
    crossover *xo = malloc(sizeof *xo * MAX_XO);
    if (!xo) return;
    const int n = find_sorted(rd, xo, MAX_XO);
    char s[512];
    if (n == 0)
        line(f, st, "Crossovers: none (no size axis with timed rows of both sides at two sizes or more)");
    for (int i = 0; i < n && i < FINDINGS_MAX_XO; i++) {
        crossover_sentence(&xo[i], s, sizeof s);
        line(f, st, "%s", s);
    }
    if (n > FINDINGS_MAX_XO)
        line(f, st, "%d more crossovers: %s", n - FINDINGS_MAX_XO,
             st == FINDINGS_MD ? "[Crossovers](#crossovers) below" : "report.md's Crossovers section");
    free(xo);
}

void findings_crossovers_write(const rundata *rd, FILE *f)
{
    crossover *xo = malloc(sizeof *xo * MAX_XO);
    if (!xo) return;
    const int n = find_sorted(rd, xo, MAX_XO);
    char s[512];
    if (n > FINDINGS_MAX_XO) {
        fprintf(f, "## Crossovers\n\nWhere a GPU backend in a mode overtakes the best CPU backend, and our "
                   "kernels the library of their device (interpolated on log axes between the sizes "
                   "measured).\n\n");
        for (int i = 0; i < n; i++) {
            crossover_sentence(&xo[i], s, sizeof s);
            fprintf(f, "- %s\n", s);
        }
        fputc('\n', f);
    }
    free(xo);
}

/* ---- rows far from their roof -------------------------------------------- */

/* The reason roof_verdict gave row i ("low: ..." or "above-roof: ..." at a
 * part of the note of its own), or the whole note when it has none. */
static const char *far_reason(const rundata *rd, int i)
{
    const char *note = rd_str(rd, i, COL_NOTE), *v = rd_str(rd, i, COL_VERDICT);
    const size_t k = strlen(v);
    for (const char *p = note; (p = strstr(p, v)) != NULL; p += k)
        if ((p == note || (p >= note + 2 && p[-2] == ';' && p[-1] == ' ')) && p[k] == ':' &&
            p[k + 1] == ' ')
            return p;
    return note;
}

/* The reason's kind: its text with every number written as '#', so that
 * "47.2 us a repetition" and "10.4 us a repetition" are one kind. */
static void reason_kind(const char *r, char *out, size_t cap)
{
    size_t n = 0;
    for (const char *p = r; *p && n + 1 < cap; p++) {
        if (*p >= '0' && *p <= '9') {
            out[n++] = '#';
            while (p[1] && strchr("0123456789.eE+-", p[1]) &&
                   !((p[1] == '-' || p[1] == '+') && !(p[0] == 'e' || p[0] == 'E')))
                p++;
        } else {
            out[n++] = *p;
        }
    }
    out[n] = '\0';
}

static int far_row(const rundata *rd, int i)
{
    return rd_is(rd, i, COL_VERDICT, "low") || rd_is(rd, i, COL_VERDICT, "above-roof");
}

/* One line per kind of reason, in the order of their first rows: how many
 * rows, which backends, the first row's reason and where it is. */
static void roofs(const rundata *rd, FILE *f, findings_style st)
{
    int low = 0, above = 0, kinds = 0;
    const int n = rd_nrows(rd);
    for (int i = 0; i < n; i++) {
        low += rd_is(rd, i, COL_VERDICT, "low");
        above += rd_is(rd, i, COL_VERDICT, "above-roof");
    }
    if (!low && !above) return;
    line(f, st, "Far from the roof: %d row%s low, %d above the roof; by reason (the verdict column "
                "has every row):", low, low == 1 ? "" : "s", above);
    char ki[512], kq[512];
    for (int i = 0; i < n; i++) {
        if (!far_row(rd, i)) continue;
        reason_kind(far_reason(rd, i), ki, sizeof ki);
        int first = 1, rows = 0, nb = 0;
        for (int q = 0; q < i && first; q++)
            if (far_row(rd, q)) {
                reason_kind(far_reason(rd, q), kq, sizeof kq);
                first = strcmp(ki, kq) != 0;
            }
        if (!first) continue;
        if (++kinds > FINDINGS_MAX_ROOF) continue;   /* counted below */
        char bk[160] = "";
        size_t len = 0;
        for (int q = i; q < n; q++) {
            if (!far_row(rd, q)) continue;
            reason_kind(far_reason(rd, q), kq, sizeof kq);
            if (strcmp(ki, kq) != 0) continue;
            rows++;
            const char *b = rd_str(rd, q, COL_BACKEND);
            int seen = 0;
            for (int u = i; u < q && !seen; u++) {
                if (!far_row(rd, u) || !rd_is(rd, u, COL_BACKEND, b)) continue;
                reason_kind(far_reason(rd, u), kq, sizeof kq);
                seen = strcmp(ki, kq) == 0;
            }
            if (!seen && nb++ < 3)
                len += (size_t)snprintf(bk + len, len < sizeof bk ? sizeof bk - len : 0, "%s%s",
                                        len ? ", " : "", b);
        }
        if (nb > 3 && len < sizeof bk)
            snprintf(bk + len, sizeof bk - len, " and %d more", nb - 3);
        const char *bound = rd_str(rd, i, COL_BOUND);
        subline(f, st, "%d row%s (%s): %s; first: %s %s %s %s %s at %.3g%% of the %s roof", rows,
             rows == 1 ? "" : "s", bk, far_reason(rd, i), rd_str(rd, i, COL_SUITE),
             rd_str(rd, i, COL_SHAPE), rd_str(rd, i, COL_BACKEND), rd_str(rd, i, COL_MODE),
             rd_str(rd, i, COL_DTYPE), rd_num(rd, i, COL_PCT_ROOF), *bound ? bound : "?");
    }
    if (kinds > FINDINGS_MAX_ROOF)
        subline(f, st, "%d more reasons: the notes of the low and above-roof rows give them",
             kinds - FINDINGS_MAX_ROOF);
}

/* ---- accuracy given up ----------------------------------------------------- */

static void accuracy(const rundata *rd, FILE *f, findings_style st)
{
    const char *names[64], *dts[8];
    const int ns = rd_suites(rd, names, 64);
    for (int s = 0; s < ns; s++) {
        const int nd = rd_dtypes(rd, names[s], dts, 8);
        if (nd < 2) continue; /* one dtype: nothing given up against another */
        char buf[512] = "";
        size_t len = 0;
        for (int d = 0; d < nd && len + 1 < sizeof buf; d++) {
            if (strcmp(dts[d], "fp32") == 0) continue;
            double worst = -1;
            int at = -1;
            for (int i = 0; i < rd_nrows(rd); i++) {
                const double a = rd_num(rd, i, COL_ACCURACY_LOST);
                if (rd_is(rd, i, COL_SUITE, names[s]) && rd_is(rd, i, COL_DTYPE, dts[d]) && a > worst) {
                    worst = a;
                    at = i;
                }
            }
            if (at >= 0)
                len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s up to %.2g (%s)", len ? ", " : "",
                                        dts[d], worst, rd_str(rd, at, COL_BACKEND));
        }
        if (*buf) line(f, st, "Accuracy given up in %s (largest accuracy_lost): %s", names[s], buf);
    }
}

/* ---- skips ---------------------------------------------------------------- */

/* One line per reason: the skip rows with the same note and device kind,
 * counted by (suite, backend). */
static void skips(const rundata *rd, FILE *f, findings_style st)
{
    const int n = rd_nrows(rd);
    for (int i = 0; i < n; i++) {
        if (!rd_is(rd, i, COL_CHECK, "skip")) continue;
        const char *note = rd_str(rd, i, COL_NOTE), *kind = rd_str(rd, i, COL_DEVICE_KIND);
        int first = 1, backends = 0, rows = 0;
        for (int q = 0; q < i && first; q++)
            first = !(rd_is(rd, q, COL_CHECK, "skip") && rd_is(rd, q, COL_NOTE, note) &&
                      rd_is(rd, q, COL_DEVICE_KIND, kind));
        if (!first) continue;
        char in[256] = "";
        size_t len = 0;
        for (int q = i; q < n; q++) {
            if (!rd_is(rd, q, COL_CHECK, "skip") || !rd_is(rd, q, COL_NOTE, note) ||
                !rd_is(rd, q, COL_DEVICE_KIND, kind))
                continue;
            rows++;
            int seen = 0, suite_seen = 0;
            for (int p = i; p < q; p++)
                if (rd_is(rd, p, COL_CHECK, "skip") && rd_is(rd, p, COL_NOTE, note) &&
                    rd_is(rd, p, COL_DEVICE_KIND, kind) && rd_is(rd, p, COL_SUITE, rd_str(rd, q, COL_SUITE))) {
                    suite_seen = 1;
                    seen |= rd_is(rd, p, COL_BACKEND, rd_str(rd, q, COL_BACKEND));
                }
            backends += !seen;
            if (!suite_seen && len + 1 < sizeof in)
                len += (size_t)snprintf(in + len, sizeof in - len, "%s%s", len ? ", " : "", rd_str(rd, q, COL_SUITE));
        }
        line(f, st, "%d %s backend%s skipped (%d row%s; %s): %s", backends, strcmp(kind, "gpu") ? "CPU" : "GPU",
             backends == 1 ? "" : "s", rows, rows == 1 ? "" : "s", in, *note ? note : "no reason recorded");
    }
}

void findings_write(const rundata *rd, FILE *f, findings_style st)
{
    if (st == FINDINGS_MD) fprintf(f, "## Findings\n\n");
    machine(rd, f, st);
    checks(rd, f, st);
    suites(rd, f, st);
    crossovers(rd, f, st);
    roofs(rd, f, st);
    accuracy(rd, f, st);
    skips(rd, f, st);
    if (st == FINDINGS_MD) fputc('\n', f);
}
