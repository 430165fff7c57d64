/* tests/report/test_report.c - report.md, JSON and charts from synthetic runs.
 * `test_report files`: JSON is valid (checked by a small recursive-descent
 * validator), names and values as expected, a note with quotes and a newline
 * escaped, NaN keys omitted, skip rows as errored benchmarks; report.md lists
 * failed checks before the tables, or says all passed; --plot on a missing or
 * malformed run exits 2.
 * `test_report charts` (exit 77 without gnuplot): charts exist for the data a
 * run has and for nothing else; emulated GPU rows make no timing chart. */
#define _POSIX_C_SOURCE 200809L
#include "csv.h"
#include "plots.h"
#include "report.h"
#include "../testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- a tiny JSON validator: value := object | array | string | number | literal */
static const char *js_ws(const char *p)
{
    while (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t') p++;
    return p;
}
static const char *js_value(const char *p, int depth);
static const char *js_string(const char *p)
{
    if (*p++ != '"') return NULL;
    while (*p != '"') {
        if ((unsigned char)*p < 0x20) return NULL; /* raw control character */
        if (*p == '\\') {
            p++;
            if (*p == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!strchr("0123456789abcdefABCDEF", p[i]) || !p[i]) return NULL;
                p += 4;
            } else if (!*p || !strchr("\"\\/bfnrt", *p)) return NULL;
        }
        p++;
    }
    return p + 1;
}
static const char *js_number(const char *p)
{
    const char *s = p;
    if (*p == '-') p++;
    if (*p == '0') p++;
    else if (*p >= '1' && *p <= '9') while (*p >= '0' && *p <= '9') p++;
    else return NULL;
    if (*p == '.') {
        if (!(*++p >= '0' && *p <= '9')) return NULL;
        while (*p >= '0' && *p <= '9') p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-') p++;
        if (!(*p >= '0' && *p <= '9')) return NULL;
        while (*p >= '0' && *p <= '9') p++;
    }
    return p > s ? p : NULL;
}
static const char *js_members(const char *p, char close, int depth)
{
    p = js_ws(p + 1);
    if (*p == close) return p + 1;
    for (;;) {
        if (close == '}') {
            p = js_string(js_ws(p));
            if (!p || *(p = js_ws(p)) != ':') return NULL;
            p++;
        }
        p = js_value(p, depth + 1);
        if (!p) return NULL;
        p = js_ws(p);
        if (*p == close) return p + 1;
        if (*p++ != ',') return NULL;
    }
}
static const char *js_value(const char *p, int depth)
{
    if (depth > 64) return NULL;
    p = js_ws(p);
    if (*p == '{') return js_members(p, '}', depth);
    if (*p == '[') return js_members(p, ']', depth);
    if (*p == '"') return js_string(p);
    if (!strncmp(p, "true", 4)) return p + 4;
    if (!strncmp(p, "false", 5)) return p + 5;
    if (!strncmp(p, "null", 4)) return p + 4;
    return js_number(p);
}
static int json_valid(const char *text)
{
    const char *end = js_value(text, 0);
    return end && *js_ws(end) == '\0';
}

/* ---- synthetic runs */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) n = 0;
    if (s) s[n] = '\0';
    fclose(f);
    return s;
}

static int exists_nonempty(const char *dir, const char *file)
{
    char p[512];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", dir, file);
    return stat(p, &st) == 0 && st.st_size > 0;
}

static int exists(const char *dir, const char *file)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, file);
    return access(p, F_OK) == 0;
}

static result_row mk(const char *suite, const char *cs, const char *backend, const char *mode,
                     const char *shape, double ms, const char *check, int emulated)
{
    result_row r;
    result_row_init(&r);
    snprintf(r.suite, sizeof r.suite, "%s", suite);
    snprintf(r.case_name, sizeof r.case_name, "%s", cs);
    snprintf(r.backend, sizeof r.backend, "%s", backend);
    snprintf(r.mode, sizeof r.mode, "%s", mode);
    snprintf(r.dtype, sizeof r.dtype, "fp32");
    snprintf(r.shape, sizeof r.shape, "%s", shape);
    snprintf(r.check, sizeof r.check, "%s", check);
    snprintf(r.device, sizeof r.device, "%s",
             emulated ? "CUDA host emulator (emulated, not a GPU)"
                      : strncmp(backend, "cpu-", 4) ? "NVIDIA H100 80GB HBM3" : "Test CPU, 2 cores");
    snprintf(r.baseline, sizeof r.baseline, "cpu-blas");
    r.emulated = emulated;
    r.reps = 5;
    r.threads = strncmp(backend, "cpu-", 4) ? 0 : 2;
    if (strcmp(check, "skip") != 0) {
        double m, n, k;
        sscanf(shape, "%lfx%lfx%lf", &m, &n, &k);
        r.median_ms = r.min_ms = r.max_ms = ms;
        r.mad_ms = 0;
        r.gflops = 2 * m * n * k / ms / 1e6;
        r.rel_err = 1e-7;
        r.max_abs_err = 2e-6;
        r.tolerance = 5e-6;
    }
    return r;
}

static const char *const CTX[] = {"utc: 2026-01-02T03:04:05Z", "host: testhost", "cpu: Test CPU, 2 cores",
                                  "cores: 2", "command: bench --suite matmul"};

/* Writes dir/results.csv from rows; 0 or -1. */
static int write_run(const char *dir, result_row *rows, int n)
{
    char path[512];
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/results.csv", dir);
    csv_writer *w = csv_writer_open(path, CTX, 5);
    if (!w) return -1;
    for (int i = 0; i < n; i++) csv_write_row(w, &rows[i]);
    return csv_writer_close(w);
}

/* A small matmul run on CPU and a real GPU at two shapes. failing: one row fails
 * with a note holding quotes and a newline. emulate_gpu: GPU rows emulated. */
static int matmul_run(const char *dir, int failing, int emulate_gpu, int with_cpu)
{
    result_row rows[32];
    int n = 0;
    const char *shapes[] = {"64x64x64", "256x256x256"};
    for (int s = 0; s < 2; s++) {
        char cs[32];
        snprintf(cs, sizeof cs, "square-%s", s ? "256" : "64");
        double scale = s ? 64 : 1;
        if (with_cpu) {
            rows[n] = mk("matmul", cs, "cpu-blas", "host", shapes[s], 0.01 * scale, "pass", 0);
            rows[n++].speedup = 1;
            rows[n] = mk("matmul", cs, "cpu-omp", "host", shapes[s], 0.02 * scale, "pass", 0);
            rows[n++].speedup = 0.5;
        }
        rows[n] = mk("matmul", cs, "cuda-tiled", "resident", shapes[s], 0.001 * scale, "pass", emulate_gpu);
        rows[n++].speedup = emulate_gpu ? NAN : 10;
        result_row e2e = mk("matmul", cs, "cuda-tiled", "sync-pinned", shapes[s], 0.004 * scale, "pass", emulate_gpu);
        e2e.speedup = emulate_gpu ? NAN : 2.5;
        e2e.h2d_ms = 0.002 * scale;
        e2e.compute_ms = 0.001 * scale;
        e2e.d2h_ms = 0.001 * scale;
        rows[n++] = e2e;
        result_row st = mk("matmul", cs, "cuda-tiled", "streams-2", shapes[s], 0.003 * scale, "pass", emulate_gpu);
        st.overlap_eff = 0.8;
        rows[n++] = st;
    }
    if (failing) {
        rows[n] = mk("matmul", "odd-7x13x5", "cpu-omp", "host", "7x13x5", 0.001, "fail", 0);
        rows[n].rel_err = 0.5;
        snprintf(rows[n++].note, sizeof rows[0].note, "wrong: \"C[3]\" = 7\nexpected 5");
    }
    rows[n] = mk("matmul", "-", "cublas", "-", "-", 0, "skip", 0);
    snprintf(rows[n++].note, sizeof rows[0].note, "no usable GPU: cudaErrorNoDevice");
    return write_run(dir, rows, n);
}

static char tmpdir[256];

static void test_json_and_md(void)
{
    char run[300], json[320], md[320];
    snprintf(run, sizeof run, "%s/fail", tmpdir);
    snprintf(json, sizeof json, "%s/out.json", tmpdir);
    snprintf(md, sizeof md, "%s/report.md", run);
    EXPECT(matmul_run(run, 1, 0, 1) == 0, "writing the synthetic run");
    EXPECT(report_finish(run, json, 0) == 0, "report_finish");
    char *j = slurp(json);
    EXPECT(j != NULL, "no JSON at %s", json);
    if (j) {
        EXPECT(json_valid(j), "JSON does not validate:\n%s", j);
        EXPECT(strstr(j, "\"name\": \"matmul/square-256/cpu-omp/host/256x256x256\""), "benchmark name");
        EXPECT(strstr(j, "\"real_time\": 1.28,"), "real_time = median of cpu-omp at 256^3");
        EXPECT(strstr(j, "\"time_unit\": \"ms\""), "time_unit");
        EXPECT(strstr(j, "\"run_type\": \"iteration\""), "run_type");
        EXPECT(strstr(j, "\"date\": \"2026-01-02T03:04:05Z\""), "context date");
        EXPECT(strstr(j, "\"cpu\": \"Test CPU, 2 cores\""), "context cpu");
        EXPECT(strstr(j, "\"note\": \"wrong: \\\"C[3]\\\" = 7\\nexpected 5\""), "escaped note");
        EXPECT(strstr(j, "\"check_pass\": 0"), "failed row has check_pass 0");
        EXPECT(strstr(j, "\"error_occurred\": true"), "skip row as an errored benchmark");
        EXPECT(strstr(j, "\"error_message\": \"no usable GPU: cudaErrorNoDevice\""), "skip note");
        EXPECT(!strstr(j, "nan") && !strstr(j, "NaN") && !strstr(j, "inf"), "a NaN/inf leaked");
        EXPECT(!strstr(j, "GB/s"), "gbps is empty in every row: the key must be omitted");
        EXPECT(strstr(j, "\"overlap_eff\": 0.8"), "a present counter is written");
    }
    free(j);
    char *m = slurp(md);
    EXPECT(m != NULL, "no report.md");
    if (m) {
        char *failed = strstr(m, "## Failed checks"), *table = strstr(m, "| case | shape |");
        EXPECT(failed && table && failed < table, "Failed checks must come before the tables");
        EXPECT(failed && strstr(failed, "| matmul | odd-7x13x5 | 7x13x5 | cpu-omp | host |"),
               "the failed row is listed");
        EXPECT(!strstr(m, "All "), "no all-passed line when a check failed");
        EXPECT(strstr(m, "| CPU | Test CPU, 2 cores |"), "environment table");
        EXPECT(strstr(m, "skip: no usable GPU: cudaErrorNoDevice"), "skip row with its note");
    }
    free(m);

    snprintf(run, sizeof run, "%s/pass", tmpdir);
    snprintf(md, sizeof md, "%s/report.md", run);
    EXPECT(matmul_run(run, 0, 1, 1) == 0, "writing the synthetic run");
    EXPECT(report_rerender(run, NULL, 0) == 0, "report_rerender");
    m = slurp(md);
    EXPECT(m && strstr(m, "**All 10 checks passed** (1 skipped)."), "all-passed line:\n%s", m ? m : "");
    EXPECT(m && !strstr(m, "Failed checks"), "no failed section");
    EXPECT(m && strstr(m, "| cuda-tiled (emulated) | resident |  |  |  |"),
           "emulated rows flagged, without timing or speedup");
    EXPECT(!exists(run, "plots"), "plots=0 renders nothing");
    free(m);
}

static void test_rerender_errors(void)
{
    char run[300], path[320];
    snprintf(run, sizeof run, "%s/missing", tmpdir);
    EXPECT(report_rerender(run, NULL, 1) == 2, "missing run folder exits 2");
    snprintf(run, sizeof run, "%s/malformed", tmpdir);
    mkdir(run, 0755);
    snprintf(path, sizeof path, "%s/results.csv", run);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("# utc: x\nsuite,case,backend\nmatmul,a,b\nmatmul,only-two\n", f);
        fclose(f);
    }
    EXPECT(report_rerender(run, NULL, 1) == 2, "a row with a missing field exits 2");
    EXPECT(!exists(run, "report.md"), "nothing written for a malformed run");
    f = fopen(path, "w");
    if (f) {
        fputs("a,b\n1,2\n", f);
        fclose(f);
    }
    EXPECT(report_rerender(run, NULL, 1) == 2, "a CSV that is not a bench run exits 2");
}

static void test_charts(void)
{
    char run[300], plots[320];
    snprintf(run, sizeof run, "%s/gpu", tmpdir);
    snprintf(plots, sizeof plots, "%s/plots", run);
    EXPECT(matmul_run(run, 0, 0, 1) == 0, "writing the synthetic run");
    EXPECT(report_finish(run, NULL, 1) == 0, "report_finish with charts");
    static const char *const WANT[] = {"throughput", "speedup", "split", "overlap", "error"};
    for (int i = 0; i < 5; i++) {
        char png[64], svg[64];
        snprintf(png, sizeof png, "%s-matmul.png", WANT[i]);
        snprintf(svg, sizeof svg, "%s-matmul.svg", WANT[i]);
        EXPECT(exists_nonempty(plots, png), "%s missing or empty", png);
        EXPECT(exists_nonempty(plots, svg), "%s missing or empty", svg);
    }
    EXPECT(!exists(plots, "bandwidth-matmul.png") && !exists(plots, "bandwidth-transfer.png"),
           "no transfer chart without transfer rows");
    EXPECT(!exists(plots, "throughput-matmul.dat") && !exists(plots, "throughput-matmul.log"),
           "data files removed after rendering");
    char md[340];
    snprintf(md, sizeof md, "%s/report.md", run);
    char *m = slurp(md);
    EXPECT(m && strstr(m, "](plots/throughput-matmul.png)") && strstr(m, "](plots/error-matmul.png)"),
           "report.md embeds the charts");
    free(m);

    /* every GPU row emulated, CPU rows too: GPU rows never on a timing chart */
    snprintf(run, sizeof run, "%s/emu", tmpdir);
    snprintf(plots, sizeof plots, "%s/plots", run);
    EXPECT(matmul_run(run, 0, 1, 1) == 0, "writing the synthetic run");
    EXPECT(report_finish(run, NULL, 1) == 0, "report_finish with charts");
    EXPECT(!exists(plots, "split-matmul.png") && !exists(plots, "overlap-matmul.png"),
           "emulated rows make no split/overlap chart");
    char svg[340];
    snprintf(svg, sizeof svg, "%s/throughput-matmul.svg", plots);
    char *s = slurp(svg);
    EXPECT(s && strstr(s, "cpu-omp") && !strstr(s, "cuda-tiled"), "throughput shows CPU rows only");
    free(s);
    EXPECT(exists_nonempty(plots, "error-matmul.png"), "the error chart may show emulated rows");

    /* only emulated GPU rows: no timing chart at all, the error chart stays */
    snprintf(run, sizeof run, "%s/emuonly", tmpdir);
    snprintf(plots, sizeof plots, "%s/plots", run);
    EXPECT(matmul_run(run, 0, 1, 0) == 0, "writing the synthetic run");
    EXPECT(report_finish(run, NULL, 1) == 0, "report_finish with charts");
    for (int i = 0; i < 4; i++) {
        char png[64];
        snprintf(png, sizeof png, "%s-matmul.png", WANT[i]);
        EXPECT(!exists(plots, png), "%s must not exist for emulated rows", png);
    }
    EXPECT(exists_nonempty(plots, "error-matmul.png"), "error chart for emulated rows");
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "files";
    char gp[4096];
    if (strcmp(what, "charts") == 0 && plots_find_gnuplot(gp, sizeof gp) != 0) {
        printf("gnuplot not on PATH: chart test skipped\n");
        return 77;
    }
    snprintf(tmpdir, sizeof tmpdir, "/tmp/test_report.XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    if (strcmp(what, "charts") == 0) test_charts();
    else {
        test_json_and_md();
        test_rerender_errors();
    }
    if (!test_failures) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
        if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    } else fprintf(stderr, "outputs kept in %s\n", tmpdir);
    TEST_END();
}
