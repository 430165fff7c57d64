/* ci/gate.c - bench-gate CURRENT.csv BASELINE.csv [--tolerance F] [--strict] [--allow-missing]
 *
 * Fails CI when a speedup regresses. Speedups are ratios measured inside each
 * run (a backend's median against the baseline backend's, same shape, same
 * run), so drift of the whole machine cancels; the gate compares them case by
 * case, a case being the whole workload: (suite, case, shape, backend, dtype,
 * mode, replicas), an empty dtype read as fp32 and empty replicas as 1 (older
 * files); the thread count must match too (below).
 *
 *   ratio  = current speedup / baseline speedup
 *   noise  = 3 x the ratio's relative spread, from the rows' own MADs:
 *            sigma(speedup)/speedup ~ 1.4826 * sqrt((mad/median)^2 of the row
 *            + (mad/median)^2 of its baseline backend's row), combined over
 *            both runs
 *   SLOWER when ratio < 1 - tolerance AND 1 - ratio > noise
 *   faster when ratio > 1 + tolerance;   same otherwise
 *   missing: a gated baseline case that the current run lacks, or has only as
 *            a skip row (errored), emulated, or without a speedup; FAILED: one
 *            whose current check failed. Both fail the gate; --allow-missing
 *            lets missing cases pass (a deliberately smaller run), never FAILED.
 *   new: in the current run only (never fails).
 *   AMBIGUOUS: a gated case whose current row, or its baseline backend's row
 *            on the same problem, is disturbed (the `disturbed` column:
 *            something else ran while it was timed, harness/disturb.h):
 *            its speedup says nothing either way, so it is neither a pass
 *            nor a regression; measure again.
 * A baseline case is gated when it ran on hardware, passed, has a speedup and
 * is not the baseline backend itself (its data-parallel rows, replicas > 1,
 * are gated: their speedup is against its one-process row). Any failed check in CURRENT fails the
 * gate, and so does a comparison of nothing (no gated case in common).
 * What is gated, beyond that, is decided in caveat_of(): a case whose backend
 * or baseline backend carries a caveat in either run (the `caveat-NAME`
 * context line: a library on slower kernels than the machine has, whose
 * time is not steady) is listed "not gated (caveat: NAME)" and one line
 * says why; a case measured against another baseline backend than its
 * baseline row is "not compared" (a warning: remake the baseline).
 * A baseline made on another CPU (the `cpu` or `simd` context lines differ)
 * is compared but its regressions only warn, unless --strict. A case run with
 * another thread count than its baseline row is not compared (a warning;
 * --strict fails it).
 * Every cell is validated against the schema (harness/csv_schema.c); columns
 * are read by schema id, and only those below are required, so baselines
 * written before the flops/device_kind/repro columns still compare.
 * Cases are found through sorted key indexes (sort + binary search): two runs
 * of 200k rows each take 1.7-2.0 s and 550 MB on the 2-core CI machine; the
 * old per-row linear scans were quadratic (50k rows 38 s, 200k unfinished
 * after 15 min).
 *
 * A baseline per machine class: `--baselines DIR` instead of BASELINE.csv
 * takes DIR/<class>.csv, the class of CURRENT (harness/machine.h: its CPU
 * model and GPU names, from its context lines), and says which in its first
 * line; with none for the class it says so and compares against the first
 * baseline of DIR in name order, made on another CPU (regressions warn).
 * `--class CURRENT.csv` prints the class (ci/make-baseline names its file so).
 *
 * Exit: 0 pass, 1 a regression, failed check, missing case or nothing
 * compared, 2 unreadable or malformed input (naming file and line) or bad usage,
 * 3 ambiguous: no failure among the quiet cases, but at least one case was
 * disturbed (a quiet regression still exits 1).
 */
#define _POSIX_C_SOURCE 200809L
#include "csv.h"
#include "machine.h"
#include "schema.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Default tolerance: 0.30. Calibrated on the 2-core CI machine from repeated
 * runs of the CI gate suite (BENCH_GATE_ARGS, ci/baselines/README.md) while
 * the other core was busy compiling: a case's speedup moved by up to 26%
 * between runs (most by under 10%), so 30% keeps that noise inside the band
 * while a 2x slowdown (-50%) always fails. */
#define GATE_DEFAULT_TOLERANCE 0.30
#define GATE_NOISE_SIGMAS 3.0
#define USAGE_LINE "usage: gate CURRENT.csv (BASELINE.csv | --baselines DIR) [--tolerance F] [--strict] " \
    "[--allow-missing] | gate --class CURRENT.csv"
#define HELP USAGE_LINE "\n" \
    "  compares CURRENT's speedups with BASELINE's, case by case\n" \
    "  --baselines DIR  the baseline of CURRENT's machine class, DIR/<class>.csv (else the first one)\n" \
    "  --class          prints CURRENT's machine class: its CPU model and GPU names, as a file name\n" \
    "  --tolerance F    a slowdown beyond F (0 <= F < 1; default 0.30) outside the noise fails\n" \
    "  --strict         a baseline from another CPU, or another thread count, fails too\n" \
    "  --allow-missing  baseline cases the current run lacks pass\n" \
    "  exit 0 pass, 1 a regression, failed check or missing case, 2 bad input or usage,\n" \
    "  3 ambiguous: no quiet case failed, but a case was disturbed (measure again)\n"

/* The columns the gate reads; every other column may be absent. */
static const int NEEDED[] = {COL_SUITE, COL_CASE, COL_SHAPE, COL_BACKEND, COL_MODE, COL_BASELINE,
                             COL_SPEEDUP, COL_MEDIAN_MS, COL_MAD_MS, COL_CHECK, COL_EMULATED};

typedef struct gate_run {
    const char *path;
    csv_table *t;
    int idx[COL_COUNT];
    csv_keys cases;    /* every row by (suite, case, shape, backend, dtype, mode) */
    csv_keys problems; /* every row by (suite, case, shape, backend, dtype) */
    int failed_checks;
} gate_run;

typedef struct gate_opts {
    double tol;
    int strict, allow_missing;
    const char *paths[2];
    const char *baselines;   /* --baselines DIR: paths[1] chosen from it */
    int class_only;          /* --class: print paths[0]'s machine class */
} gate_opts;

typedef struct gate_count {
    int same, faster, slower, missing, failed, fresh, threads, ambiguous, caveat, other_base;
    const char *caveat_name, *caveat_why;   /* the first caveat met, for the summary */
} gate_count;

static const char *cell(const gate_run *g, int row, int col) { return csv_get(g->t, g->idx, row, col); }

/* A validated NUM cell: its value, or NaN when empty. */
static double num(const gate_run *g, int row, int col)
{
    const char *s = cell(g, row, col);
    return *s ? strtod(s, NULL) : NAN;
}

static int is(const gate_run *g, int row, int col, const char *s) { return strcmp(cell(g, row, col), s) == 0; }

/* A row the gate compares: ran on hardware, passed, has a speedup, and is not
 * the baseline backend measured against itself. */
static int gated(const gate_run *g, int row)
{
    /* the baseline backend against itself is its one-replica rows; its
     * data-parallel rows (replicas > 1) are measured against its own
     * one-process row, a ratio like any other */
    int self = strcmp(cell(g, row, COL_BACKEND), cell(g, row, COL_BASELINE)) == 0 &&
               atoi(cell(g, row, COL_REPLICAS)) <= 1;
    return is(g, row, COL_CHECK, "pass") && is(g, row, COL_EMULATED, "0") &&
           !isnan(num(g, row, COL_SPEEDUP)) && !self;
}

/* mad/median of a row, or 0 when either is missing. */
static double rel_mad(const gate_run *g, int row)
{
    double med = num(g, row, COL_MEDIAN_MS), mad = num(g, row, COL_MAD_MS);
    return (med > 0 && mad >= 0) ? mad / med : 0;
}

/* The relative noise of a row's speedup: its own MAD and that of the first
 * row of its baseline backend on the same problem with both numbers (at
 * fp32: every dtype's speedup is against the baseline's fp32 row). */
static double rel_noise(const gate_run *g, int row)
{
    const char *f[CSV_KEY_PROBLEM] = {cell(g, row, COL_SUITE), cell(g, row, COL_CASE),
                                      cell(g, row, COL_SHAPE), cell(g, row, COL_BASELINE),
                                      "fp32"};
    char key[1024];
    double base = 0;
    if (csv_key_join(f, CSV_KEY_PROBLEM, CSV_KEY_SEP, key, sizeof key) == 0)
        for (int i = csv_keys_find(&g->problems, key);
             i >= 0 && i < g->problems.n && strcmp(g->problems.e[i].key, key) == 0 && base == 0; i++)
            base = rel_mad(g, g->problems.e[i].row);
    double own = rel_mad(g, row);
    return 1.4826 * sqrt(own * own + base * base);
}

/* Whether a row, or its baseline backend's row on the same problem (at
 * fp32, as in rel_noise), was disturbed: its speedup is ambiguous. 0, 1
 * (the row), 2 (its baseline's). A run without the column is quiet. */
static int disturbed(const gate_run *g, int row)
{
    if (is(g, row, COL_DISTURBED, "1")) return 1;
    const char *f[CSV_KEY_PROBLEM] = {cell(g, row, COL_SUITE), cell(g, row, COL_CASE),
                                      cell(g, row, COL_SHAPE), cell(g, row, COL_BASELINE),
                                      "fp32"};
    char key[1024];
    if (csv_key_join(f, CSV_KEY_PROBLEM, CSV_KEY_SEP, key, sizeof key) == 0)
        for (int i = csv_keys_find(&g->problems, key);
             i >= 0 && i < g->problems.n && strcmp(g->problems.e[i].key, key) == 0; i++)
            if (is(g, g->problems.e[i].row, COL_DISTURBED, "1")) return 2;
    return 0;
}

/* Which decides what the gate gates on, beyond gated(): a row whose backend,
 * or the baseline backend its speedup is against, runs below what it could
 * on its run's machine (the run's `caveat-NAME` context line, written from
 * backend_def.caveat: OpenBLAS on kernels of a narrower SIMD tier because it
 * did not recognise the CPU) is left out: such a library's time moved 1.6x
 * between quiet runs on the Intel CI machine, so a speedup against it says
 * nothing about our code. The backend named, or NULL; *why its line. */
static const char *caveat_of(const gate_run *g, int row, const char **why)
{
    const int cols[2] = {COL_BACKEND, COL_BASELINE};
    for (int i = 0; i < 2; i++) {
        char key[160];
        const char *name = cell(g, row, cols[i]);
        snprintf(key, sizeof key, "caveat-%s", name);
        if (*name && (*why = csv_context(g->t, key)) != NULL) return name;
    }
    return NULL;
}

/* The row of run g with the case key of row `row` of run other, or -1. */
static int find_case(const gate_run *g, const gate_run *other, int row)
{
    char key[1024];
    if (csv_row_key(other->t, other->idx, row, CSV_KEY_CASE, CSV_KEY_SEP, key, sizeof key)) return -1;
    int i = csv_keys_find(&g->cases, key);
    return i < 0 ? -1 : g->cases.e[i].row;
}

/* Reads, validates and indexes one run. 0, or 2 with the reason on stderr. */
static int load(gate_run *g, const char *path)
{
    char err[1024];
    g->path = path;
    g->t = csv_read_results(path, g->idx, NEEDED, (int)(sizeof NEEDED / sizeof NEEDED[0]), err, sizeof err);
    if (!g->t) {
        fprintf(stderr, "gate: %s\n", err);
        return 2;
    }
    for (int r = 0; r < g->t->nrows; r++) {
        g->failed_checks += is(g, r, COL_CHECK, "fail");
        double sp = num(g, r, COL_SPEEDUP);
        if (sp == 0) { /* a ratio of 0 is not a measurement */
            fprintf(stderr, "gate: %s:%d: speedup 0 is not a ratio of two times\n", path, g->t->line[r]);
            return 2;
        }
    }
    if (csv_keys_build(g->t, g->idx, CSV_KEY_CASE, &g->cases) ||
        csv_keys_build(g->t, g->idx, CSV_KEY_PROBLEM, &g->problems)) {
        fprintf(stderr, "gate: %s: out of memory\n", path);
        return 2;
    }
    return 0;
}

static void gate_run_free(gate_run *g)
{
    csv_table_free(g->t);
    csv_keys_free(&g->cases);
    csv_keys_free(&g->problems);
}

static int same_machine(const gate_run *a, const gate_run *b)
{
    const char *keys[] = {"cpu", "simd"};
    for (int i = 0; i < 2; i++) {
        const char *x = csv_context(a->t, keys[i]), *y = csv_context(b->t, keys[i]);
        if (!x || !y || strcmp(x, y) != 0) return 0;
    }
    return 1;
}

/* --baselines dir: dir/<class>.csv when it exists, else the first .csv of
 * dir in name order (said in one line); into path. 0, or 2 (no baseline at
 * all, or an unreadable dir, one line). */
static int pick_baseline(const char *dir, const csv_table *cur, char *path, size_t cap)
{
    char cls[256];
    machine_class(csv_context(cur, "cpu"), (const char *const *)cur->context, cur->ncontext, cls,
                  sizeof cls);
    snprintf(path, cap, "%s/%s.csv", dir, cls);
    if (access(path, F_OK) == 0) {
        printf("gate: baseline %s (this machine's class: %s)\n", path, cls);
        return 0;
    }
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "gate: --baselines '%s': %s\n", dir, strerror(errno));
        return 2;
    }
    char first[256] = "";
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        size_t n = strlen(e->d_name);
        if (n > 4 && n < sizeof first && strcmp(e->d_name + n - 4, ".csv") == 0 &&
            (!first[0] || strcmp(e->d_name, first) < 0))
            snprintf(first, sizeof first, "%s", e->d_name);
    }
    closedir(d);
    if (!first[0]) {
        fprintf(stderr, "gate: --baselines '%s' holds no baseline (.csv) for class %s or any other\n",
                dir, cls);
        return 2;
    }
    snprintf(path, cap, "%s/%s", dir, first);
    printf("gate: no baseline for this machine's class (%s) in %s: comparing against %s, made on "
           "another machine (ci/make-baseline on this one makes %s.csv)\n", cls, dir, first, cls);
    return 0;
}

/* One table line: the case (key with '/'), baseline and current speedups, change, verdict. */
static void print_line(const gate_run *g, int row, double base, double cur, const char *verdict)
{
    char key[680], b[16] = "-", c[16] = "-", ch[16] = "-";
    csv_row_label(g->t, g->idx, row, key, sizeof key);
    if (!isnan(base)) snprintf(b, sizeof b, "%.4g", base);
    if (!isnan(cur)) snprintf(c, sizeof c, "%.4g", cur);
    if (!isnan(base) && !isnan(cur)) snprintf(ch, sizeof ch, "%+.1f%%", 100 * (cur / base - 1));
    printf("%-58s %9s %9s %8s  %s\n", key, b, c, ch, verdict);
}

/* The verdict on one gated baseline row against the current run; counts it. */
static void judge(const gate_run *base, int brow, const gate_run *cur, const gate_opts *o, gate_count *n)
{
    int crow = find_case(cur, base, brow);
    double bsp = num(base, brow, COL_SPEEDUP);
    if (crow >= 0 && is(cur, crow, COL_CHECK, "fail")) {
        print_line(base, brow, bsp, NAN, "FAILED (check failed)");
        n->failed++;
        return;
    }
    if (crow < 0 || !gated(cur, crow)) {
        const char *why = crow < 0 ? "missing"
                          : is(cur, crow, COL_CHECK, "skip") ? "missing (skipped: errored)"
                          : is(cur, crow, COL_EMULATED, "1") ? "missing (emulated)"
                                                              : "missing (no speedup)";
        print_line(base, brow, bsp, NAN, why);
        n->missing++;
        return;
    }
    /* a speedup measured with another thread count is not the same quantity */
    if (*cell(base, brow, COL_THREADS) && strcmp(cell(base, brow, COL_THREADS), cell(cur, crow, COL_THREADS))) {
        char why[96];
        snprintf(why, sizeof why, "not compared (threads %s, baseline %s)", cell(cur, crow, COL_THREADS),
                 cell(base, brow, COL_THREADS));
        print_line(base, brow, bsp, num(cur, crow, COL_SPEEDUP), why);
        n->threads++;
        return;
    }
    /* a speedup against another backend is another quantity (the gate suite's
     * peer changed, or --baseline): not compared */
    if (strcmp(cell(base, brow, COL_BASELINE), cell(cur, crow, COL_BASELINE))) {
        char why[160];
        snprintf(why, sizeof why, "not compared (against %.40s, baseline against %.40s)",
                 cell(cur, crow, COL_BASELINE), cell(base, brow, COL_BASELINE));
        print_line(base, brow, bsp, num(cur, crow, COL_SPEEDUP), why);
        n->other_base++;
        return;
    }
    const char *cwhy = NULL, *cname = caveat_of(cur, crow, &cwhy);
    if (!cname) cname = caveat_of(base, brow, &cwhy);
    if (cname) {
        char why[120];
        snprintf(why, sizeof why, "not gated (caveat: %.60s)", cname);
        print_line(base, brow, bsp, num(cur, crow, COL_SPEEDUP), why);
        if (!n->caveat++) n->caveat_name = cname, n->caveat_why = cwhy;
        return;
    }
    int dist = disturbed(cur, crow);
    if (dist) { /* something else ran: neither a pass nor a regression */
        print_line(base, brow, bsp, num(cur, crow, COL_SPEEDUP),
                   dist == 1 ? "AMBIGUOUS (disturbed)" : "AMBIGUOUS (its baseline row disturbed)");
        n->ambiguous++;
        return;
    }
    double csp = num(cur, crow, COL_SPEEDUP), ratio = csp / bsp;
    double bn = rel_noise(base, brow), cn = rel_noise(cur, crow);
    double noise = GATE_NOISE_SIGMAS * sqrt(bn * bn + cn * cn);
    const char *verdict = "same";
    if (ratio < 1 - o->tol && 1 - ratio > noise) {
        verdict = "SLOWER";
        n->slower++;
    } else if (ratio > 1 + o->tol) {
        verdict = "faster";
        n->faster++;
    } else {
        n->same++;
    }
    print_line(base, brow, bsp, csp, verdict);
}

/* Compares the runs, prints the table and the summary; returns the exit code. */
static int compare(const gate_run *cur, const gate_run *base, const gate_opts *o)
{
    gate_count n = {0};
    printf("%-58s %9s %9s %8s  %s\n", "case (suite/case/shape/backend/dtype/mode)", "baseline", "current",
           "change", "verdict");
    for (int r = 0; r < base->t->nrows; r++)
        if (gated(base, r)) judge(base, r, cur, o, &n);
    for (int r = 0; r < cur->t->nrows; r++) {
        if (!gated(cur, r)) continue;
        int brow = find_case(base, cur, r);
        if (brow >= 0 && gated(base, brow)) continue;
        print_line(cur, r, NAN, num(cur, r, COL_SPEEDUP), "new");
        n.fresh++;
    }
    int machine_ok = same_machine(cur, base), compared = n.same + n.faster + n.slower;
    if (cur->failed_checks)
        printf("gate: %d failed check%s in %s\n", cur->failed_checks, cur->failed_checks == 1 ? "" : "s",
               cur->path);
    if (!machine_ok)
        printf("gate: warning: the baseline was made on another CPU (cpu/simd context lines "
               "differ): regressions %s\n", o->strict ? "still fail (--strict)" : "only warn");
    if (n.missing)
        printf("gate: %d baseline case%s missing from %s%s\n", n.missing, n.missing == 1 ? " is" : "s are",
               cur->path, o->allow_missing ? " (allowed: --allow-missing)" : " (--allow-missing allows that)");
    if (n.threads)
        printf("gate: warning: %d case%s ran with another thread count than the baseline: not "
               "compared%s\n", n.threads, n.threads == 1 ? "" : "s", o->strict ? " (--strict: fails)" : "");
    if (n.other_base)
        printf("gate: warning: %d case%s measured against another baseline backend than in the "
               "baseline: not compared (remake the baseline)\n", n.other_base,
               n.other_base == 1 ? " was" : "s were");
    if (n.caveat)
        printf("gate: %d case%s not gated: %s runs below what it could on this machine (%s)\n",
               n.caveat, n.caveat == 1 ? "" : "s", n.caveat_name, n.caveat_why);
    if (n.ambiguous)
        printf("gate: %d case%s AMBIGUOUS: disturbed in %s (something else ran while timed: see "
               "the rows' notes); neither passed nor failed: measure again\n", n.ambiguous,
               n.ambiguous == 1 ? "" : "s", cur->path);
    if (!compared && !n.ambiguous) printf("gate: no case was compared: nothing to pass\n");
    int fail = cur->failed_checks > 0 || n.failed > 0 || (!compared && !n.ambiguous) ||
               (n.threads > 0 && o->strict) || (n.slower > 0 && (machine_ok || o->strict)) ||
               (n.missing > 0 && !o->allow_missing);
    printf("gate: %d same, %d faster, %d SLOWER, %d missing, %d failed, %d new, %d ambiguous "
           "(tolerance %.0f%%); %s\n", n.same, n.faster, n.slower, n.missing, n.failed, n.fresh,
           n.ambiguous, 100 * o->tol, fail ? "FAIL" : n.ambiguous ? "AMBIGUOUS" : "PASS");
    return fail ? 1 : n.ambiguous ? 3 : 0;
}

/* --tolerance F: a finite number, 0 <= F < 1. 0, or 2 naming the value. */
static int parse_tolerance(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !(v >= 0 && v < 1)) {
        fprintf(stderr, "gate: bad --tolerance '%s' (want a number F with 0 <= F < 1, e.g. 0.3)\n", s);
        return 2;
    }
    *out = v;
    return 0;
}

/* A usage error: one line, the reason then the usage. Returns 2. */
static int usage_error(const char *why, const char *arg)
{
    fprintf(stderr, "gate: %s%s%s (" USAGE_LINE ")\n", why, arg ? " " : "", arg ? arg : "");
    return 2;
}

/* Whether option opt was seen before (seen: a flag); refuses a repeat. 0, or
 * 2 with "gate: OPT is given twice" on stderr. */
static int once(int *seen, const char *opt)
{
    if (*seen) {
        fprintf(stderr, "gate: %s is given twice\n", opt);
        return 2;
    }
    *seen = 1;
    return 0;
}

/* Parses the command line. 0; 1 when --help printed the usage (exit 0); or 2
 * with the reason on stderr, one line. */
static int parse_args(int argc, char **argv, gate_opts *o)
{
    int np = 0, tol = 0, strict = 0, allow = 0, dir = 0, cls = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(HELP, stdout);
            return 1;
        } else if (strcmp(a, "--tolerance") == 0) {
            if (i + 1 >= argc) return usage_error("--tolerance wants a value", NULL);
            if (once(&tol, a) || parse_tolerance(argv[++i], &o->tol)) return 2;
        } else if (strcmp(a, "--strict") == 0) {
            if (once(&strict, a)) return 2;
            o->strict = 1;
        } else if (strcmp(a, "--allow-missing") == 0) {
            if (once(&allow, a)) return 2;
            o->allow_missing = 1;
        } else if (strcmp(a, "--baselines") == 0) {
            if (i + 1 >= argc) return usage_error("--baselines wants a folder", NULL);
            if (once(&dir, a)) return 2;
            o->baselines = argv[++i];
        } else if (strcmp(a, "--class") == 0) {
            if (once(&cls, a)) return 2;
            o->class_only = 1;
        } else if (a[0] == '-') {
            char why[300];
            snprintf(why, sizeof why, "unknown option '%.256s'", a);
            return usage_error(why, NULL);
        } else if (np == 2) {
            char why[300];
            snprintf(why, sizeof why, "a third file '%.256s'", a);
            return usage_error(why, NULL);
        } else {
            o->paths[np++] = a;
        }
    }
    const int want = o->class_only || o->baselines ? 1 : 2;
    if (o->class_only && (o->baselines || tol || strict || allow))
        return usage_error("--class takes one file and no other option", NULL);
    if (np != want) {
        if (want == 1) return usage_error(np ? "want one file with --baselines or --class, got two"
                                             : "want the current run's file", NULL);
        return usage_error(np ? "want two files, got one" : "want two files", NULL);
    }
    return 0;
}

int main(int argc, char **argv)
{
    gate_opts o = {GATE_DEFAULT_TOLERANCE, 0, 0, {NULL, NULL}, NULL, 0};
    int rc = parse_args(argc, argv, &o);
    if (rc) return rc == 1 ? 0 : 2;
    gate_run cur = {0}, base = {0};
    char picked[PATH_MAX + 300];
    rc = load(&cur, o.paths[0]);
    if (!rc && o.class_only) {
        machine_class(csv_context(cur.t, "cpu"), (const char *const *)cur.t->context, cur.t->ncontext,
                      picked, sizeof picked);
        printf("%s\n", picked);
        gate_run_free(&cur);
        return 0;
    }
    if (!rc && o.baselines) {
        rc = pick_baseline(o.baselines, cur.t, picked, sizeof picked);
        o.paths[1] = picked;
    }
    if (!rc) rc = load(&base, o.paths[1]);
    if (!rc) rc = compare(&cur, &base, &o);
    gate_run_free(&cur);
    gate_run_free(&base);
    return rc;
}
