/* tests/report/json_test.c - report/json.c read back by a small JSON reader:
 * the context's "roofs" object holds the run's roofs per device (bandwidth,
 * compute and paper peak per dtype, copies, launch latency, paper bandwidth),
 * each with its value, unit and how, equal to the roofs the run was written
 * with; a run without roofs says {"measured": false, "why": ...}; a run from
 * before the roofs has no "roofs" key. Each benchmark entry holds every
 * schema column that has a value in its row (derived from the schema, so a
 * new column is checked by itself), under its name or Google Benchmark's, and
 * an emulated row none of its timings. */
#define _POSIX_C_SOURCE 200809L
#include "fixture.h"
#include "json.h"
#include "report.h"
#include "roofs.h"
#include "rundata.h"
#include "schema.h"
#include "testutil.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- a JSON reader: skip a value, find a member, read a leaf ------------- */
static const char *ws(const char *p)
{
    while (p && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) p++;
    return p;
}

static const char *skip(const char *p);

static const char *skip_string(const char *p)
{
    if (!p || *p != '"') return NULL;
    for (p++; *p && *p != '"'; p++)
        if (*p == '\\' && !*++p) return NULL;
    return *p ? p + 1 : NULL;
}

static const char *skip_members(const char *p, char close)
{
    p = ws(p + 1);
    if (*p == close) return p + 1;
    for (;;) {
        if (close == '}') {
            p = ws(skip_string(ws(p)));
            if (!p || *p++ != ':') return NULL;
        }
        p = ws(skip(p));
        if (!p) return NULL;
        if (*p == close) return p + 1;
        if (*p++ != ',') return NULL;
    }
}

static const char *skip(const char *p)
{
    p = ws(p);
    if (!p) return NULL;
    if (*p == '{') return skip_members(p, '}');
    if (*p == '[') return skip_members(p, ']');
    if (*p == '"') return skip_string(p);
    if (!strncmp(p, "true", 4) || !strncmp(p, "null", 4)) return p + 4;
    if (!strncmp(p, "false", 5)) return p + 5;
    char *end;
    strtod(p, &end);
    return end > p ? end : NULL;
}

/* The value of member key of the object at p, or NULL. */
static const char *member(const char *p, const char *key)
{
    p = ws(p);
    if (!p || *p != '{') return NULL;
    p = ws(p + 1);
    size_t kn = strlen(key);
    while (p && *p == '"') {
        const char *k = p + 1, *e = skip_string(p);
        if (!e) return NULL;
        p = ws(e);
        if (*p++ != ':') return NULL;
        p = ws(p);
        if ((size_t)(e - 1 - k) == kn && strncmp(k, key, kn) == 0) return p;
        p = ws(skip(p));
        if (p && *p == ',') p = ws(p + 1);
    }
    return NULL;
}

/* The number of members of the object at p (-1: not an object). */
static int count_members(const char *p)
{
    p = ws(p);
    if (!p || *p != '{') return -1;
    int n = 0;
    for (p = ws(p + 1); p && *p == '"'; n++) {
        p = ws(skip_string(p));
        p = p && *p == ':' ? ws(skip(p + 1)) : NULL;
        if (p && *p == ',') p = ws(p + 1);
    }
    return n;
}

/* The value at a path of member names (NULL-terminated) from p. */
static const char *path(const char *p, ...)
{
    va_list ap;
    va_start(ap, p);
    for (const char *k; p && (k = va_arg(ap, const char *));) p = member(p, k);
    va_end(ap);
    return p;
}

/* Element i of the array at p, or NULL. */
static const char *element(const char *p, int i)
{
    p = ws(p);
    if (!p || *p != '[') return NULL;
    p = ws(p + 1);
    for (int k = 0; p && *p && *p != ']'; k++) {
        if (k == i) return p;
        p = ws(skip(p));
        if (p && *p == ',') p = ws(p + 1);
    }
    return NULL;
}

static double num(const char *p) { return p && (*p == '-' || (*p >= '0' && *p <= '9')) ? strtod(p, NULL) : NAN; }

/* The string at p, unescaped (\" \\ \n; \uXXXX as '?'), into out. */
static const char *str(const char *p, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = '\0';
    if (!p || *p != '"') return NULL;
    for (p++; *p && *p != '"' && n + 1 < cap; p++) {
        char ch = *p;
        if (ch == '\\') {
            ch = *++p;
            if (ch == 'n') ch = '\n';
            else if (ch == 'u') ch = '?', p += 4;
        }
        out[n++] = ch;
    }
    out[n] = '\0';
    return out;
}

/* ---- the runs ----------------------------------------------------------- */
static char tmpdir[256];

static void machine(roofs *rf)
{
    roofs_init(rf);
    rf->measured = 1;
    rf->probe_s = 2.25;
    roof_device *c = &rf->dev[ROOF_CPU], *g = &rf->dev[ROOF_GPU];
    c->present = g->present = 1;
    c->bw = (roof_num){15.25, "STREAM triad, 2 threads, 600 MiB"};
    c->compute[DTYPE_FP32] = (roof_num){327.1, "best GEMM at 512x512x512"};
    c->compute[DTYPE_BF16] = (roof_num){640, "cpu-onednn \"amx\" 2048^3"};
    c->peak[DTYPE_FP32] = (roof_num){268.8, "2 cores x 2.10 GHz x 64"};
    g->bw = (roof_num){3000, "device STREAM triad"};
    g->compute[DTYPE_FP32] = (roof_num){51000, "cublas 8192^3"};
    g->compute[DTYPE_FP16] = (roof_num){700000, "cublas 8192^3 fp16"};
    g->h2d = (roof_num){25.5, "pinned 256 MiB"};
    g->d2h = (roof_num){26.25, "pinned 256 MiB"};
    g->launch = (roof_num){4.5, "empty kernel"};
    g->peak_bw = (roof_num){3350, "HBM3, 5120-bit"};
    g->peak[DTYPE_FP32] = (roof_num){67000, "132 SMs x 1.98 GHz"};
}

/* Rows: CPU and real-GPU matmul with every new column filled, an emulated
 * GPU row, a skip row. */
static int build_rows(const roofs *rf, result_row *rows)
{
    int n = 0;
    rows[n] = mk("matmul", "square-512", "cpu-blas", "host", "512x512x512", 1.0, "pass", 0);
    rows[n].io_bytes = 3.0 * 512 * 512 * 4;
    roof_verdict(rf, NULL, &rows[n]);
    snprintf(rows[n].sweep, sizeof rows[n].sweep, "square");
    rows[n].sweep_x = 512;
    rows[n].tries = 2;
    rows[n++].disturbed = 1;
    rows[n] = mk("matmul", "square-512", "cublas", "resident", "512x512x512", 0.01, "pass", 0);
    rows[n].io_bytes = 3.0 * 512 * 512 * 4;
    roof_verdict(rf, NULL, &rows[n]);
    rows[n].speedup_vs_best_cpu = 100;
    snprintf(rows[n].best_cpu, sizeof rows[n].best_cpu, "cpu-blas");
    snprintf(rows[n].role, sizeof rows[n].role, "library");
    rows[n++].tries = 1;
    rows[n] = mk("matmul", "square-512", "cuda-tiled", "resident", "512x512x512", 0.5, "pass", 1);
    rows[n].io_bytes = 3.0 * 512 * 512 * 4;
    roof_verdict(rf, NULL, &rows[n]);
    rows[n].pct_roof = 55; /* an edited file: the JSON still writes no timing of an emulated row */
    rows[n++].speedup_vs_best_cpu = 2;
    rows[n] = mk("matmul", "-", "cudnn", "-", "-", 0, "skip", 0);
    snprintf(rows[n++].note, sizeof rows[0].note, "no usable GPU");
    return n;
}

/* Checks one roof at o (value, unit, how) against v. */
static void expect_roof(const char *o, const char *what, const roof_num *v, const char *unit)
{
    char buf[400];
    EXPECT(o != NULL, "%s: no such object", what);
    if (!o) return;
    EXPECT(fabs(num(member(o, "value")) - v->v) <= 1e-9 * v->v, "%s value %g, want %g", what,
           num(member(o, "value")), v->v);
    EXPECT(str(member(o, "unit"), buf, sizeof buf) && strcmp(buf, unit) == 0, "%s unit '%s', want %s", what, buf,
           unit);
    EXPECT(str(member(o, "how"), buf, sizeof buf) && strcmp(buf, v->how) == 0, "%s how '%s', want '%s'", what,
           buf, v->how);
}

/* The JSON of dir's run (report_rerender, no charts), malloc'd. */
static char *json_of(const char *dir)
{
    char json[400];
    snprintf(json, sizeof json, "%s/out.json", dir);
    EXPECT(report_rerender(dir, json, 0, NULL) == 0, "report of %s", dir);
    return slurp(json);
}

static void test_roofs(void)
{
    roofs rf;
    machine(&rf);
    result_row rows[8];
    int n = build_rows(&rf, rows);
    char run[300];
    snprintf(run, sizeof run, "%s/roofed", tmpdir);
    EXPECT(write_run_roofs(run, &rf, rows, n) == 0, "writing the run");
    char *j = json_of(run);
    EXPECT(j && skip(j) && *ws(skip(j)) == '\0', "the JSON parses whole:\n%s", j ? j : "");
    const char *r = path(j, "context", "roofs", NULL);
    const char *measured = member(r, "measured");
    EXPECT(measured && !strncmp(measured, "true", 4), "roofs measured:\n%s", j ? j : "");
    EXPECT(fabs(num(member(r, "probe_s")) - rf.probe_s) < 1e-12, "probe_s");
    char key[64];
    for (int d = 0; d < ROOF_NDEV; d++) {
        const roof_device *v = &rf.dev[d];
        const char *o = member(r, roof_dev_name(d));
        EXPECT(o != NULL, "roofs.%s", roof_dev_name(d));
        if (!o) continue;
        int nmember = 0; /* every known roof and nothing else */
        const struct { const char *key; const roof_num *v; const char *unit; } ONE[] = {
            {"bandwidth", &v->bw, ROOF_UNIT_BW}, {"h2d", &v->h2d, ROOF_UNIT_BW}, {"d2h", &v->d2h, ROOF_UNIT_BW},
            {"launch", &v->launch, ROOF_UNIT_LATENCY}, {"peak_bandwidth", &v->peak_bw, ROOF_UNIT_BW}};
        for (size_t k = 0; k < sizeof ONE / sizeof ONE[0]; k++) {
            snprintf(key, sizeof key, "%s.%s", roof_dev_name(d), ONE[k].key);
            if (isfinite(ONE[k].v->v)) expect_roof(member(o, ONE[k].key), key, ONE[k].v, ONE[k].unit), nmember++;
            else EXPECT(!member(o, ONE[k].key), "%s: unknown, yet written", key);
        }
        for (int t = 0; t < DTYPE_COUNT; t++)
            for (int pk = 0; pk < 2; pk++) {
                const roof_num *x = pk ? &v->peak[t] : &v->compute[t];
                const char *grp = pk ? "peak" : "compute";
                snprintf(key, sizeof key, "%s.%s.%s", roof_dev_name(d), grp, dtype_name((dtype_t)t));
                const char *g = member(o, grp), *e = g ? member(g, dtype_name((dtype_t)t)) : NULL;
                if (isfinite(x->v)) expect_roof(e, key, x, ROOF_UNIT_COMPUTE);
                else EXPECT(!e, "%s: unknown, yet written", key);
            }
        int groups = 0;
        for (int pk = 0; pk < 2; pk++) {
            int any = 0;
            for (int t = 0; t < DTYPE_COUNT; t++) any |= isfinite(pk ? v->peak[t].v : v->compute[t].v);
            groups += any;
        }
        int seen = count_members(o);
        EXPECT(seen == nmember + groups, "roofs.%s: %d members, want %d", roof_dev_name(d), seen, nmember + groups);
    }
    /* the rows: every column with a value, from the schema */
    rundata rd;
    char err[256], buf[2048];
    EXPECT(rd_load(&rd, run, err, sizeof err) == 0, "%s", err);
    const char *bm = member(j, "benchmarks");
    for (int i = 0; i < rd_nrows(&rd); i++) {
        const char *e = element(bm, i);
        EXPECT(e != NULL, "benchmark %d", i);
        if (!e) continue;
        int emu = rd_emulated(&rd, i);
        for (int c = 0; c < COL_COUNT; c++) {
            if (json_col_elsewhere(c)) continue;
            const char *v = member(e, json_col_key(c));
            if (emu && schema_col_timed(c)) {
                EXPECT(!v, "row %d (emulated): a timing '%s' written", i, json_col_key(c));
                continue;
            }
            if (SCHEMA[c].type == COLT_STR) {
                const char *want = rd_str(&rd, i, c);
                if (*want)
                    EXPECT(str(v, buf, sizeof buf) && strcmp(buf, want) == 0, "row %d: %s '%s', want '%s'", i,
                           json_col_key(c), buf, want);
                else EXPECT(!v, "row %d: empty %s written", i, json_col_key(c));
            } else {
                double want = rd_num(&rd, i, c);
                if (isfinite(want))
                    EXPECT(fabs(num(v) - want) <= 1e-9 * fabs(want), "row %d: %s %g, want %g", i, json_col_key(c),
                           num(v), want);
                else EXPECT(!v, "row %d: empty %s written", i, json_col_key(c));
            }
        }
    }
    /* the new columns are among them, with their values */
    const char *e0 = element(bm, 0), *e1 = element(bm, 1);
    EXPECT(str(member(e0, "verdict"), buf, sizeof buf) && !strcmp(buf, rows[0].verdict) && *buf, "verdict");
    EXPECT(fabs(num(member(e0, "intensity")) / (512.0 * 512 * 512 * 2 / (3.0 * 512 * 512 * 4)) - 1) < 1e-9,
           "intensity");
    EXPECT(num(member(e0, "GFLOP/s")) > 0 && !member(e0, "gflops"), "GFLOP/s under Google Benchmark's key");
    const char *e2 = element(bm, 2); /* the emulated row: no timing, though the file had some */
    EXPECT(e2 && !member(e2, "pct_roof") && !member(e2, "speedup_vs_best_cpu") && !member(e2, "GFLOP/s") &&
               num(member(e2, "emulated")) == 1, "emulated row without timings");
    EXPECT(num(member(e0, "disturbed")) == 1 && num(member(e0, "tries")) == 2, "disturbed, tries");
    EXPECT(num(member(e1, "speedup_vs_best_cpu")) == 100 && str(member(e1, "best_cpu"), buf, sizeof buf) &&
               !strcmp(buf, "cpu-blas"), "speedup_vs_best_cpu, best_cpu");
    rd_free(&rd);
    free(j);
}

static void test_no_roofs(void)
{
    roofs rf;
    result_row rows[8];
    machine(&rf);
    int n = build_rows(&rf, rows);
    roofs_init(&rf);
    snprintf(rf.why, sizeof rf.why, "--no-roofs");
    char run[300], buf[128];
    snprintf(run, sizeof run, "%s/roofless", tmpdir);
    EXPECT(write_run_roofs(run, &rf, rows, n) == 0, "writing the run");
    char *j = json_of(run);
    const char *r = path(j, "context", "roofs", NULL);
    const char *measured = member(r, "measured");
    EXPECT(measured && !strncmp(measured, "false", 5), "not measured:\n%s", j ? j : "");
    EXPECT(str(member(r, "why"), buf, sizeof buf) && !strcmp(buf, "--no-roofs"), "why '%s'", buf);
    EXPECT(!member(r, "cpu") && !member(r, "gpu") && !member(r, "probe_s"), "no roofs without a measure");
    free(j);
    snprintf(run, sizeof run, "%s/old", tmpdir);
    EXPECT(write_run(run, rows, n) == 0, "writing the run");
    j = json_of(run);
    EXPECT(j && path(j, "context", "cpu", NULL) && !path(j, "context", "roofs", NULL),
           "a run before the roofs: no roofs key");
    free(j);
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/json_test.XXXXXX");
    if (!mkdtemp(tmpdir)) return 1;
    test_roofs();
    test_no_roofs();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    TEST_END();
}
