/* ci/gate.c - bench-gate CURRENT.csv BASELINE.csv [--tolerance F] [--strict]
 *
 * Fails CI when a speedup regresses. Speedups are ratios measured inside each
 * run (a backend's median against the baseline backend's, same shape, same
 * run), so drift of the whole machine cancels; the gate compares them case by
 * case, a case being (suite, case, shape, backend, mode).
 *
 *   ratio  = current speedup / baseline speedup
 *   noise  = 3 x the ratio's relative spread, from the rows' own MADs:
 *            sigma(speedup)/speedup ~ 1.4826 * sqrt((mad/median)^2 of the row
 *            + (mad/median)^2 of its baseline backend's row), combined over
 *            both runs
 *   SLOWER when ratio < 1 - tolerance AND 1 - ratio > noise
 *   faster when ratio > 1 + tolerance;   same otherwise
 *   missing: in the baseline only (fails with --strict); new: in current only.
 * Rows that are emulated, not passing, without a speedup, or the baseline
 * backend itself are not compared. Any failed check in CURRENT fails the gate.
 * A baseline made on another CPU (the `cpu` or `simd` context lines differ)
 * is compared but its regressions only warn, unless --strict.
 *
 * Exit: 0 pass, 1 a regression or failed check, 2 unreadable or malformed
 * input (naming file and line) or bad usage.
 */
#define _POSIX_C_SOURCE 200809L
#include "csv.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Default tolerance: 0.30. Calibrated on the 2-core CI machine from repeated
 * runs of the CI gate suite (BENCH_GATE_ARGS, ci/baselines/README.md) while
 * the other core was busy compiling: a case's speedup moved by up to 26%
 * between runs (most by under 10%), so 30% keeps that noise inside the band
 * while a 2x slowdown (-50%) always fails. */
#define GATE_DEFAULT_TOLERANCE 0.30
#define GATE_NOISE_SIGMAS 3.0

typedef struct gate_row {
    char key[320];
    double speedup, rel_noise;
    int line;
} gate_row;

typedef struct gate_run {
    const char *path;
    csv_table *t;
    gate_row *rows;
    int n;
    int failed_checks;
} gate_run;

static int num(const char *s, double *out)
{
    char *end;
    if (!*s) return 1; /* empty: not applicable */
    errno = 0;
    *out = strtod(s, &end);
    return (errno || *end || end == s) ? -1 : 0;
}

static const char *const NEEDED[] = {"suite", "case", "shape", "backend", "mode", "baseline",
                                     "speedup", "median_ms", "mad_ms", "check", "emulated"};

/* The relative MAD of the baseline backend's row for the same case, or 0. */
static double base_rel_mad(const csv_table *t, int row, int c[])
{
    const char *base = csv_field(t, row, c[5]);
    for (int r = 0; r < t->nrows; r++) {
        if (strcmp(csv_field(t, r, c[3]), base) != 0) continue;
        if (strcmp(csv_field(t, r, c[0]), csv_field(t, row, c[0])) ||
            strcmp(csv_field(t, r, c[1]), csv_field(t, row, c[1])) ||
            strcmp(csv_field(t, r, c[2]), csv_field(t, row, c[2])))
            continue;
        double med = NAN, mad = NAN;
        if (num(csv_field(t, r, c[7]), &med) == 0 && num(csv_field(t, r, c[8]), &mad) == 0 &&
            med > 0)
            return mad / med;
    }
    return 0;
}

/* Loads the comparable rows. Returns 0, or 2 with a message. */
static int load(gate_run *g, const char *path)
{
    char err[512];
    int c[11];
    g->path = path;
    g->t = csv_read(path, err, sizeof err);
    if (!g->t) {
        fprintf(stderr, "gate: %s\n", err);
        return 2;
    }
    for (int i = 0; i < 11; i++) {
        c[i] = csv_col(g->t, NEEDED[i]);
        if (c[i] < 0) {
            fprintf(stderr, "gate: %s:%d: no column '%s'\n", path, 1 + g->t->ncontext, NEEDED[i]);
            return 2;
        }
    }
    g->rows = calloc((size_t)g->t->nrows + 1, sizeof *g->rows);
    for (int r = 0; r < g->t->nrows; r++) {
        const char *check = csv_field(g->t, r, c[9]);
        double sp = NAN, med = NAN, mad = NAN;
        int line = g->t->line[r];
        if (strcmp(check, "fail") == 0) g->failed_checks++;
        int e1 = num(csv_field(g->t, r, c[6]), &sp), e2 = num(csv_field(g->t, r, c[7]), &med),
            e3 = num(csv_field(g->t, r, c[8]), &mad);
        if (e1 < 0 || e2 < 0 || e3 < 0 || (e1 == 0 && !(isfinite(sp) && sp > 0)) ||
            (e2 == 0 && !(isfinite(med) && med >= 0)) || (e3 == 0 && !(isfinite(mad) && mad >= 0))) {
            fprintf(stderr, "gate: %s:%d: speedup, median_ms or mad_ms is not a finite positive "
                            "number\n", path, line);
            return 2;
        }
        if (strcmp(check, "pass") != 0 || strcmp(csv_field(g->t, r, c[10]), "0") != 0 || e1 ||
            strcmp(csv_field(g->t, r, c[3]), csv_field(g->t, r, c[5])) == 0)
            continue;
        gate_row *w = &g->rows[g->n++];
        snprintf(w->key, sizeof w->key, "%s/%s/%s/%s/%s", csv_field(g->t, r, c[0]),
                 csv_field(g->t, r, c[1]), csv_field(g->t, r, c[2]), csv_field(g->t, r, c[3]),
                 csv_field(g->t, r, c[4]));
        double own = (e2 == 0 && e3 == 0 && med > 0) ? mad / med : 0;
        double base = base_rel_mad(g->t, r, c);
        w->speedup = sp;
        w->rel_noise = 1.4826 * sqrt(own * own + base * base);
        w->line = line;
    }
    return 0;
}

static void gate_run_free(gate_run *g)
{
    csv_table_free(g->t);
    free(g->rows);
}

static const gate_row *find(const gate_run *g, const char *key)
{
    for (int i = 0; i < g->n; i++)
        if (strcmp(g->rows[i].key, key) == 0) return &g->rows[i];
    return NULL;
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

int main(int argc, char **argv)
{
    const char *paths[2] = {NULL, NULL};
    double tol = GATE_DEFAULT_TOLERANCE;
    int strict = 0, np = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--tolerance") == 0 && i + 1 < argc) {
            char *end;
            tol = strtod(argv[++i], &end);
            if (*end || !(tol >= 0 && tol < 1)) {
                fprintf(stderr, "gate: bad --tolerance '%s' (want 0 <= F < 1)\n", argv[i]);
                return 2;
            }
        } else if (strcmp(argv[i], "--strict") == 0) {
            strict = 1;
        } else if (argv[i][0] == '-' || np == 2) {
            fprintf(stderr, "gate: bad argument '%s'\nusage: gate CURRENT.csv BASELINE.csv "
                            "[--tolerance F] [--strict]\n", argv[i]);
            return 2;
        } else {
            paths[np++] = argv[i];
        }
    }
    if (np != 2) {
        fprintf(stderr, "usage: gate CURRENT.csv BASELINE.csv [--tolerance F] [--strict]\n");
        return 2;
    }
    gate_run cur = {0}, base = {0};
    if (load(&cur, paths[0]) || load(&base, paths[1])) {
        gate_run_free(&cur);
        gate_run_free(&base);
        return 2;
    }
    int machine_ok = same_machine(&cur, &base);
    int nsame = 0, nfast = 0, nslow = 0, nmiss = 0, nnew = 0;
    printf("%-58s %9s %9s %8s  %s\n", "case (suite/case/shape/backend/mode)", "baseline", "current",
           "change", "verdict");
    for (int i = 0; i < base.n; i++) {
        const gate_row *b = &base.rows[i], *c = find(&cur, b->key);
        if (!c) {
            printf("%-58s %9.4g %9s %8s  missing\n", b->key, b->speedup, "-", "-");
            nmiss++;
            continue;
        }
        double ratio = c->speedup / b->speedup;
        double noise = GATE_NOISE_SIGMAS * sqrt(b->rel_noise * b->rel_noise + c->rel_noise * c->rel_noise);
        const char *verdict = "same";
        if (ratio < 1 - tol && 1 - ratio > noise) {
            verdict = "SLOWER";
            nslow++;
        } else if (ratio > 1 + tol) {
            verdict = "faster";
            nfast++;
        } else {
            nsame++;
        }
        printf("%-58s %9.4g %9.4g %+7.1f%%  %s\n", b->key, b->speedup, c->speedup,
               100 * (ratio - 1), verdict);
    }
    for (int i = 0; i < cur.n; i++)
        if (!find(&base, cur.rows[i].key)) {
            printf("%-58s %9s %9.4g %8s  new\n", cur.rows[i].key, "-", cur.rows[i].speedup, "-");
            nnew++;
        }
    if (cur.failed_checks)
        printf("gate: %d failed check%s in %s\n", cur.failed_checks,
               cur.failed_checks == 1 ? "" : "s", cur.path);
    if (!machine_ok)
        printf("gate: warning: the baseline was made on another CPU (cpu/simd context lines "
               "differ): regressions %s\n", strict ? "still fail (--strict)" : "only warn");
    int fail = cur.failed_checks > 0 || (nslow > 0 && (machine_ok || strict)) ||
               (strict && nmiss > 0);
    printf("gate: %d same, %d faster, %d SLOWER, %d missing, %d new (tolerance %.0f%%); %s\n",
           nsame, nfast, nslow, nmiss, nnew, 100 * tol, fail ? "FAIL" : "PASS");
    gate_run_free(&cur);
    gate_run_free(&base);
    return fail ? 1 : 0;
}
