/* tests/report/report_test.c - report.md, JSON and charts from synthetic runs.
 * `test_report files`: JSON is valid (checked by a small recursive-descent
 * validator), names and values as expected, a note with quotes and a newline
 * escaped, NaN keys omitted, skip rows as errored benchmarks; report.md lists
 * failed checks before the tables, or says all passed; --plot on a missing or
 * malformed run exits 2; every invalid cell (check 'maybe', a number 'nan' or
 * 'abc'), a duplicate case, or an empty run exits 2 naming file, line and
 * column, and writes nothing; a file from before flops/device_kind/repro gets
 * its tables and a note; failed checks carry their re-run command; JSON rows
 * their repro, flops and bytes; GPU rows are told by device_kind alone.
 * `test_report chartdata`: what each chart's data file holds: throughput x is
 * GFLOP per repetition, speedup bars rise from the axis (or from 1x on a log
 * axis centred on 1x), bandwidth lines per backend and mode for any suite
 * with bytes (STREAM), emulated rows never drawn as timings.
 * `test_report charts` (exit 77 without gnuplot): charts exist for the data a
 * run has and for nothing else; emulated GPU rows make no timing chart. */
#define _POSIX_C_SOURCE 200809L
#include "chart_data.h"
#include "csv.h"
#include "plots.h"
#include "report.h"
#include "rundata.h"
#include "fixture.h"
#include "testutil.h"

#include <fcntl.h>
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
        snprintf(rows[n].dtype, sizeof rows[0].dtype, "bf16");
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
        EXPECT(strstr(j, "\"name\": \"matmul/square-256/cpu-omp/fp32/host/256x256x256\""), "benchmark name");
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
        EXPECT(strstr(j, "\"flops\": 33554432,"), "flops per repetition of 256^3 as a counter");
        EXPECT(strstr(j, "\"repro\": \"bench --suite matmul --sizes 256x256x256 --backend cpu-omp --mode host\""),
               "the row's repro command");
    }
    free(j);
    char *m = slurp(md);
    EXPECT(m != NULL, "no report.md");
    if (m) {
        char *failed = strstr(m, "## Failed checks"), *table = strstr(m, "| case | shape |");
        EXPECT(failed && table && failed < table, "Failed checks must come before the tables");
        EXPECT(failed && strstr(failed, "| matmul | odd-7x13x5 | 7x13x5 | cpu-omp | host | bf16 |"),
               "the failed row is listed, with its dtype");
        EXPECT(failed && strstr(failed, "| re-run |") &&
                   strstr(failed, "| `bench --suite matmul --sizes 7x13x5 --backend cpu-omp --mode host` |"),
               "the failed row carries its re-run command");
        EXPECT(!strstr(m, "All "), "no all-passed line when a check failed");
        EXPECT(strstr(m, "| CPU | Test CPU, 2 cores |"), "environment table");
        EXPECT(strstr(m, "skip: no usable GPU: cudaErrorNoDevice"), "skip row with its note");
    }
    free(m);

    snprintf(run, sizeof run, "%s/pass", tmpdir);
    snprintf(md, sizeof md, "%s/report.md", run);
    EXPECT(matmul_run(run, 0, 1, 1) == 0, "writing the synthetic run");
    EXPECT(report_rerender(run, NULL, 0, NULL) == 0, "report_rerender");
    m = slurp(md);
    EXPECT(m && strstr(m, "**All 10 checks passed** (1 skipped)."), "all-passed line:\n%s", m ? m : "");
    EXPECT(m && !strstr(m, "Failed checks"), "no failed section");
    EXPECT(m && strstr(m, "| cuda-tiled (emulated) | resident |  |  |  |"),
           "emulated rows flagged, without timing or speedup");
    EXPECT(!exists(run, "plots"), "plots=0 renders nothing");
    free(m);

    /* the same run without its "# finished:" line (killed, or an older bench):
     * possibly incomplete, never "all checks passed" */
    char csv[340];
    snprintf(csv, sizeof csv, "%s/results.csv", run);
    char *text = slurp(csv), *end = text ? strstr(text, "# finished: 11 rows\n") : NULL;
    EXPECT(end != NULL, "the fixture records the run's end");
    if (end) {
        memmove(end, end + strlen("# finished: 11 rows\n"), strlen(end + strlen("# finished: 11 rows\n")) + 1);
        FILE *f = fopen(csv, "w");
        if (f) {
            fputs(text, f);
            fclose(f);
        }
        report_outcome out;
        EXPECT(report_rerender(run, NULL, 0, &out) == 0 && out.rows == 11 && !out.ended, "unended run re-rendered");
        m = slurp(md);
        EXPECT(m && strstr(m, "**Possibly incomplete**: the run did not record its end (killed, or from an older "
                              "bench): 11 rows, possibly incomplete.") &&
                   strstr(m, "**10 checks passed** (1 skipped) in the rows recorded") && !strstr(m, "All "),
               "unended run:\n%s", m ? m : "");
        free(m);
    }
    free(text);
}

static void test_rerender_errors(void)
{
    char run[300], path[320];
    snprintf(run, sizeof run, "%s/missing", tmpdir);
    EXPECT(report_rerender(run, NULL, 1, NULL) == 2, "missing run folder exits 2");
    snprintf(run, sizeof run, "%s/malformed", tmpdir);
    mkdir(run, 0755);
    snprintf(path, sizeof path, "%s/results.csv", run);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs("# utc: x\nsuite,case,backend\nmatmul,a,b\nmatmul,only-two\n", f);
        fclose(f);
    }
    EXPECT(report_rerender(run, NULL, 1, NULL) == 2, "a row with a missing field exits 2");
    EXPECT(!exists(run, "report.md"), "nothing written for a malformed run");
    f = fopen(path, "w");
    if (f) {
        fputs("a,b\n1,2\n", f);
        fclose(f);
    }
    EXPECT(report_rerender(run, NULL, 1, NULL) == 2, "a CSV that is not a bench run exits 2");
}

/* Writes text as dir/results.csv. */
static void write_text(const char *dir, const char *text)
{
    char path[512];
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/results.csv", dir);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

/* The CSV of a small passing run, as text (malloc'd). */
static char *run_text(const char *name)
{
    char run[300], path[320];
    snprintf(run, sizeof run, "%s/%s", tmpdir, name);
    matmul_run(run, 0, 0, 1);
    snprintf(path, sizeof path, "%s/results.csv", run);
    return slurp(path);
}

/* s with its first occurrence of from replaced by to (malloc'd). */
static char *patched(const char *s, const char *from, const char *to)
{
    const char *p = strstr(s, from);
    size_t n = strlen(s), fl = strlen(from), tl = strlen(to);
    char *out = malloc(n + tl + 1);
    if (!out) return NULL;
    if (!p) {
        memcpy(out, s, n + 1);
        return out;
    }
    size_t pre = (size_t)(p - s);
    memcpy(out, s, pre);
    memcpy(out + pre, to, tl);
    memcpy(out + pre + tl, p + fl, n - pre - fl + 1);
    return out;
}

/* rd_load's message for the run dir, into err; returns rd_load's result. */
static int load_err(const char *dir, char *err, size_t cap)
{
    rundata rd;
    err[0] = '\0';
    int rc = rd_load(&rd, dir, err, cap);
    if (rc == 0) rd_free(&rd);
    return rc;
}

static void test_invalid_values(void)
{
    char *good = run_text("valid");
    EXPECT(good != NULL, "no synthetic CSV");
    if (!good) return;
    /* the header line: the first line not starting with '#' */
    int header_line = 1;
    for (const char *p = good; *p == '#'; p = strchr(p, '\n') + 1) header_line++;
    static const struct { const char *from, *to, *col, *want; } BAD[] = {
        {",pass,", ",maybe,", "check", "'maybe' is not pass fail skip"},
        {",0.01,0.01,0.01,", ",nan,0.01,0.01,", "median_ms", "'nan' is not a finite number"},
        {",0.01,0.01,0.01,", ",abc,0.01,0.01,", "median_ms", "'abc' is not a finite number"},
        {",0.01,0.01,0.01,", ",-1,0.01,0.01,", "median_ms", "'-1' is not a finite number"},
        {",cpu,,bench", ",CPU,,bench", "device_kind", "'CPU' is not cpu gpu"},
        {",2,5,", ",2.5,5,", "threads", "'2.5' is not an integer"},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        char run[300], err[1024], want[160];
        snprintf(run, sizeof run, "%s/bad%zu", tmpdir, i);
        char *text = patched(good, BAD[i].from, BAD[i].to);
        EXPECT(text && strcmp(text, good) != 0, "planting %s", BAD[i].to);
        write_text(run, text ? text : "");
        free(text);
        /* the first data row holds the planted value */
        snprintf(want, sizeof want, "results.csv:%d: column '%s': %s", header_line + 1, BAD[i].col, BAD[i].want);
        EXPECT(load_err(run, err, sizeof err) == -1 && strstr(err, want), "planted %s: want '%s', got '%s'",
               BAD[i].to, want, err);
        EXPECT(report_rerender(run, NULL, 0, NULL) == 2, "invalid value %s exits 2", BAD[i].to);
        EXPECT(!exists(run, "report.md"), "nothing written for an invalid value");
    }

    /* a duplicate row: an error naming both lines, not a check counted twice */
    char run[300], err[1024], want[200];
    snprintf(run, sizeof run, "%s/dup", tmpdir);
    const char *row1 = strchr(strstr(good, "\nsuite,") + 1, '\n') + 1;
    size_t rl = strcspn(row1, "\n") + 1;
    size_t gl = strlen(good);
    char *dup = malloc(gl + rl + 1);
    memcpy(dup, good, gl);
    memcpy(dup + gl, row1, rl);
    dup[gl + rl] = '\0';
    write_text(run, dup);
    free(dup);
    int nrows = 0;
    for (const char *p = row1; *p; p++) nrows += *p == '\n';
    snprintf(want, sizeof want, "results.csv:%d: duplicate case matmul/square-64/64x64x64/cpu-blas/fp32/host (also on line %d)",
             header_line + nrows + 1, header_line + 1);
    EXPECT(load_err(run, err, sizeof err) == -1 && strstr(err, want), "duplicate: want '%s', got '%s'", want, err);
    EXPECT(report_rerender(run, NULL, 0, NULL) == 2 && !exists(run, "report.md"), "duplicate rows exit 2");

    /* header only: "no rows", not "All 0 checks passed" */
    snprintf(run, sizeof run, "%s/empty", tmpdir);
    char *hdr = strdup(good);
    *strchr(strstr(hdr, "\nsuite,") + 1, '\n') = '\0';
    strcat(hdr, "\n");
    write_text(run, hdr);
    free(hdr);
    EXPECT(report_rerender(run, NULL, 0, NULL) == 2 && !exists(run, "report.md"), "--plot on an empty run exits 2");
    EXPECT(report_finish(run, NULL, 0) == 0, "a finished run with no rows still gets its report");
    char md[340];
    snprintf(md, sizeof md, "%s/report.md", run);
    char *m = slurp(md);
    EXPECT(m && strstr(m, "**No rows**") && !strstr(m, "checks passed"), "empty run says so:\n%s", m ? m : "");
    free(m);

    /* a file from before flops/device_kind/repro: tables and a note, no charts */
    snprintf(run, sizeof run, "%s/old", tmpdir);
    write_text(run, "# utc: 2026-01-01T00:00:00Z\n"
                    "suite,case,backend,mode,dtype,shape,threads,reps,median_ms,check,emulated,speedup,baseline\n"
                    "matmul,square-64,cpu-blas,host,fp32,64x64x64,2,5,0.01,pass,0,1,cpu-blas\n"
                    "matmul,square-64,cpu-omp,host,fp32,64x64x64,2,5,0.02,fail,0,0.5,cpu-blas\n");
    EXPECT(report_rerender(run, NULL, 1, NULL) == 0, "an older results.csv is still reported");
    snprintf(md, sizeof md, "%s/report.md", run);
    m = slurp(md);
    EXPECT(m && strstr(m, "flops device_kind direction repro") && strstr(m, "no charts are drawn") &&
               strstr(m, "rows carry no re-run command"),
           "the note names what the old file lacks:\n%s", m ? m : "");
    EXPECT(m && strstr(m, "| matmul | square-64 | 64x64x64 | cpu-omp | host |"), "its failed check is listed");
    EXPECT(!exists(run, "plots"), "no charts from a file without device_kind/flops");
    free(m);
    free(good);
}

static void test_chart_data(void)
{
    char run[300], text[8192];
    snprintf(run, sizeof run, "%s/cd", tmpdir);
    EXPECT(matmul_run(run, 0, 0, 1) == 0, "writing the synthetic run");
    /* throughput: x = GFLOP per repetition (2*256^3 / 1e9), from the flops column */
    EXPECT(chart_text(run, "matmul", chart_throughput, text, sizeof text) == 3, "throughput blocks:\n%s", text);
    EXPECT(strstr(text, "\"cpu-omp\"\n0.000524288 26.2144 0 0 0\n0.033554432 26.2144 "),
           "throughput x is GFLOP per repetition:\n%s", text);

    /* speedup within a decade: a linear axis, every bar from 0 up to its value */
    result_row rows[4];
    rows[0] = mk("matmul", "square-64", "cpu-blas", "host", "64x64x64", 1.0, "pass", 0);
    rows[0].speedup = 1;
    rows[1] = mk("matmul", "square-64", "cpu-omp", "host", "64x64x64", 1.064, "pass", 0);
    rows[1].speedup = 0.94;
    rows[2] = mk("matmul", "square-64", "cuda-tiled", "resident", "64x64x64", 0.5, "pass", 0);
    rows[2].speedup = 2;
    rows[3] = mk("matmul", "square-64", "cuda-tiled", "sync-pinned", "64x64x64", 0.5, "pass", 1);
    rows[3].speedup = 1.5; /* emulated: never a bar */
    snprintf(run, sizeof run, "%s/lin", tmpdir);
    write_run(run, rows, 4);
    chart_text(run, "matmul", chart_speedup, text, sizeof text);
    EXPECT(strstr(text, "\n0 0.94 0 0.94 ") && strstr(text, "\n1 2 0 2 "),
           "linear speedup bars rise from 0:\n%s", text);
    EXPECT(strstr(text, "logy=0;") && !strstr(text, "sync-pinned"), "linear axis, emulated row not drawn:\n%s", text);
    /* speedups spanning more than a decade: log axis centred on 1x, bars from 1x */
    rows[2].speedup = 40;
    write_run(run, rows, 4);
    chart_text(run, "matmul", chart_speedup, text, sizeof text);
    EXPECT(strstr(text, "\n0 0.94 0.94 1 ") && strstr(text, "\n1 40 1 40 ") && strstr(text, "logy=1;"),
           "log speedup bars grow from 1x:\n%s", text);
    char *ylim = strstr(text, "ylim=");
    EXPECT(ylim && atof(ylim + 5) > 40 && atof(ylim + 5) < 200, "log axis symmetric around 1x, above 40x: %s",
           ylim ? ylim : "");

    /* bandwidth for any suite counting bytes: STREAM-like rows, two backends */
    result_row st[5];
    const char *be[] = {"cpu-naive", "cpu-omp", "cuda-stream", "cuda-stream", "cpu-omp"};
    const char *mo[] = {"host", "host", "resident", "sync-pinned", "host"};
    for (int i = 0; i < 5; i++) {
        st[i] = mk("stream", i == 4 ? "triad-1M" : "copy-1M", be[i], mo[i], "1048576", 1, "pass", i == 3);
        st[i].flops = NAN;
        st[i].gflops = NAN;
        st[i].bytes = i == 4 ? 12582912 : 8388608;
        st[i].gbps = 10.0 * (i + 1);
    }
    snprintf(run, sizeof run, "%s/stream", tmpdir);
    write_run(run, st, 5);
    EXPECT(chart_text(run, "stream", chart_bandwidth, text, sizeof text) == 3, "bandwidth blocks:\n%s", text);
    EXPECT(strstr(text, "\"cpu-naive host\"\n8388608 10 ") && strstr(text, "\"cpu-omp host\"\n8388608 20 ") &&
               strstr(text, "\n12582912 50 ") && strstr(text, "\"cuda-stream resident\"\n8388608 30 "),
           "one line per backend and mode, GB/s vs bytes:\n%s", text);
    EXPECT(!strstr(text, "sync-pinned"), "emulated row not drawn as a timing:\n%s", text);
    EXPECT(chart_text(run, "stream", chart_throughput, text, sizeof text) == 0, "no flops: no throughput chart");

    /* conv: bars per layer (case), a panel per direction (the direction
     * column, never the shape), series per backend; speedups per backend
     * and mode, the baseline not drawn against itself */
    {
        result_row cv[8];
        const char *cs[] = {"layer-a", "layer-b"}, *dir[] = {"fwd", "bwd-data"};
        int k = 0;
        for (int d = 0; d < 2; d++)
            for (int l = 0; l < 2; l++)
                for (int b = 0; b < 2; b++, k++) {
                    char shape[64];
                    snprintf(shape, sizeof shape, "%s:mb2ic%dih8oc4kh3", dir[d], 3 + l);
                    cv[k] = mk("conv", cs[l], b ? "cpu-omp" : "cpu-blas", "host", shape, 1.0 + b, "pass", 0);
                    snprintf(cv[k].direction, sizeof cv[k].direction, "%s", dir[d]);
                    cv[k].flops = 1e9;
                    cv[k].gflops = 10.0 * (k + 1);
                    cv[k].speedup = b ? 0.5 : 1.0;
                }
        snprintf(run, sizeof run, "%s/conv", tmpdir);
        write_run(run, cv, 8);
        EXPECT(chart_text(run, "conv", chart_case_throughput, text, sizeof text) == 4,
               "layer throughput: a block per direction and backend:\n%s", text);
        EXPECT(strstr(text, "\"cpu-blas\"\n-0.15 10 0 10\n0.85 30 0 30\n") &&
                   strstr(text, "\"cpu-omp\"\n0.15 60 0 60\n1.15 80 0 80\n") &&
                   strstr(text, "npanels=2;") && strstr(text, "pt1='fwd';") && strstr(text, "pt2='bwd-data';") &&
                   strstr(text, "p0='0 2';") && strstr(text, "p1='1 3';") &&
                   strstr(text, "xt='\"layer-a\" 0, \"layer-b\" 1';"),
               "layer throughput bars:\n%s", text);
        EXPECT(chart_text(run, "conv", chart_case_speedup, text, sizeof text) == 2 &&
                   strstr(text, "\"cpu-omp host\"\n0 0.5 0 0.5\n1 0.5 0 0.5\n") && !strstr(text, "cpu-blas host"),
               "layer speedups, baseline not drawn:\n%s", text);
        snprintf(run, sizeof run, "%s/cd", tmpdir);
        EXPECT(chart_text(run, "matmul", chart_case_throughput, text, sizeof text) == 0,
               "no direction column values: no layer chart:\n%s", text);
    }

    /* device kind from the column, never the name: a GPU backend named cpu-* */
    rows[1].device_kind[0] = 'g', rows[1].device_kind[1] = 'p', rows[1].device_kind[2] = 'u';
    snprintf(run, sizeof run, "%s/kind", tmpdir);
    write_run(run, rows, 4);
    rundata rd;
    char err[256];
    EXPECT(rd_load(&rd, run, err, sizeof err) == 0, "load: %s", err);
    if (rd.t) {
        EXPECT(rd_is_gpu(&rd, 1) && !rd_is_gpu(&rd, 0) && rd_is_gpu(&rd, 2), "rd_is_gpu reads device_kind");
        rd_free(&rd);
    }
}

/* Defence in depth: names the reader would refuse (a quote that closes the
 * xtics string eval'd by speedup.gp and error.gp, a backquote that gnuplot
 * substitutes inside a double-quoted string), loaded here without
 * validation, still run no command when every chart is drawn; the charts
 * are drawn with the names made harmless. */
static void test_hostile_names(void)
{
    char run[300], pwned[320], pwned2[320], from[640], to[640];
    snprintf(run, sizeof run, "%s/hostile", tmpdir);
    snprintf(pwned, sizeof pwned, "%s/PWNED", tmpdir);
    snprintf(pwned2, sizeof pwned2, "%s/PWNED2", tmpdir);
    char *good = run_text("hostile");
    snprintf(to, sizeof to, "\"a\"\" 0); system(\"\"touch %s\"\"); set xtics (\"\"b\",host", pwned);
    char *t1 = good ? patched(good, "cpu-omp,host", to) : NULL;
    snprintf(to, sizeof to, "c`touch %s`$d\\,host", pwned2); /* the largest shape's row */
    snprintf(from, sizeof from, "cpu-omp,host");
    char *t2 = t1 ? patched(t1, from, to) : NULL;
    EXPECT(t2 && strstr(t2, "system(") && strstr(t2, "`touch"), "planting the names");
    if (t2) write_text(run, t2);
    free(good);
    free(t1);
    free(t2);
    rundata rd;
    memset(&rd, 0, sizeof rd);
    char err[512], csv[400];
    snprintf(csv, sizeof csv, "%s/results.csv", run);
    rd.t = csv_read(csv, err, sizeof err); /* no csv_validate: the first layer bypassed */
    EXPECT(rd.t != NULL, "raw read: %s", err);
    if (!rd.t) return;
    snprintf(rd.csv_path, sizeof rd.csv_path, "%s", csv);
    csv_bind(rd.t, rd.idx);
    int dirfd = open(run, O_RDONLY | O_DIRECTORY);
    plots_outcome out;
    memset(&out, 0, sizeof out);
    int rc = plots_render(&rd, dirfd, run, &out);
    close(dirfd);
    rd_free(&rd);
    EXPECT(access(pwned, F_OK) != 0, "a quote in a backend name ran a command (%s exists)", pwned);
    EXPECT(access(pwned2, F_OK) != 0, "a backquote in a backend name ran a command (%s exists)", pwned2);
    char plots[320];
    snprintf(plots, sizeof plots, "%s/plots", run);
    EXPECT(rc == 0 && exists_nonempty(plots, "speedup-matmul.png") && exists_nonempty(plots, "error-matmul.png"),
           "charts with hostile names drawn: rc %d, %d of %d", rc, out.drawn, out.planned);
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
    test_hostile_names();
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
    else if (strcmp(what, "chartdata") == 0) test_chart_data();
    else {
        test_json_and_md();
        test_rerender_errors();
        test_invalid_values();
    }
    if (!test_failures) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
        if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    } else fprintf(stderr, "outputs kept in %s\n", tmpdir);
    TEST_END();
}
