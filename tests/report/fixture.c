/* tests/report/fixture.c - synthetic runs for the report tests (see fixture.h). */
#define _POSIX_C_SOURCE 200809L
#include "fixture.h"
#include "csv.h"
#include "roofs.h"
#include "rundata.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

char *slurp(const char *path)
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

int exists_nonempty(const char *dir, const char *file)
{
    char p[512];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", dir, file);
    return stat(p, &st) == 0 && st.st_size > 0;
}

int exists(const char *dir, const char *file)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, file);
    return access(p, F_OK) == 0;
}

result_row mk(const char *suite, const char *cs, const char *backend, const char *mode,
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
    snprintf(r.device_kind, sizeof r.device_kind, "%s", strncmp(backend, "cpu-", 4) ? "gpu" : "cpu");
    snprintf(r.repro, sizeof r.repro, "bench --suite %s --sizes %s --backend %s --mode %s", suite, shape,
             backend, mode);
    r.emulated = emulated;
    r.reps = 5;
    r.threads = strncmp(backend, "cpu-", 4) ? 0 : 2;
    if (strcmp(check, "skip") != 0) {
        double m = 0, n = 0, k = 0; /* a shape that is not MxNxK counts no flops */
        sscanf(shape, "%lfx%lfx%lf", &m, &n, &k);
        r.median_ms = r.min_ms = r.max_ms = ms;
        r.mad_ms = 0;
        r.flops = 2 * m * n * k;
        r.gflops = r.flops / ms / 1e6;
        r.rel_err = 1e-7;
        r.max_abs_err = 2e-6;
        r.tolerance = 5e-6;
    }
    return r;
}

static const char *const CTX[] = {"utc: 2026-01-02T03:04:05Z", "host: testhost", "cpu: Test CPU, 2 cores",
                                  "cores: 2", "command: bench --suite matmul"};

/* Writes dir/results.csv from rows after the context lines extra[0..nextra)
 * (following the fixture's); 0 or -1. */
static int write_run_with(const char *dir, const char (*extra)[512], int nextra, result_row *rows, int n)
{
    enum { NCTX = (int)(sizeof CTX / sizeof CTX[0]) };
    const char *ctx[NCTX + 64];
    int nc = 0;
    for (int i = 0; i < NCTX; i++) ctx[nc++] = CTX[i];
    for (int i = 0; i < nextra && nc < NCTX + 64; i++) ctx[nc++] = extra[i];
    char path[512];
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/results.csv", dir);
    unlink(path); /* the writer makes a new file only: a rewrite replaces the run */
    csv_writer *w = csv_writer_open(path, ctx, nc);
    if (!w) return -1;
    for (int i = 0; i < n; i++) csv_write_row(w, &rows[i]);
    char end[32]; /* a finished run records its end last, as bench does */
    snprintf(end, sizeof end, "finished: %d rows", n);
    csv_write_context(w, end);
    return csv_writer_close(w);
}

int write_run(const char *dir, result_row *rows, int n) { return write_run_with(dir, NULL, 0, rows, n); }

int write_run_roofs(const char *dir, const roofs *rf, result_row *rows, int n)
{
    static char lines[64][512];
    int nl = 0;
    roofs_context_lines(rf, lines, &nl, 64);
    return write_run_with(dir, (const char (*)[512])lines, nl, rows, n);
}

/* Builds one chart of suite from dir's run into text (data file, then a line
 * "params: ..."); returns the number of blocks. */
int chart_text(const char *dir, const char *suite, chart_builder build, char *text, size_t cap)
{
    rundata rd;
    char err[512];
    text[0] = '\0';
    if (rd_load(&rd, dir, err, sizeof err)) {
        snprintf(text, cap, "rd_load: %s", err);
        return -1;
    }
    chart_ctx c;
    memset(&c, 0, sizeof c);
    c.rd = &rd;
    c.suite = suite;
    c.dat = tmpfile();
    int blocks = build(&c);
    rewind(c.dat);
    size_t n = fread(text, 1, cap - 1, c.dat);
    text[n] = '\0';
    fclose(c.dat);
    snprintf(text + n, cap - n, "\nparams: %s", c.params);
    rd_free(&rd);
    return blocks;
}

