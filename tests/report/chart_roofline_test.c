/* tests/report/chart_roofline_test.c - report/chart_roofline.c on a synthetic
 * run with CPU and real-GPU rows and roofs written by the real writer
 * (roofs_context_lines, csv_writer): each chart's data holds the rows of its
 * device that are timings with an intensity, CPU host and GPU resident, at
 * (intensity, GFLOP/s), a series per backend and dtype; emulated, failed,
 * end-to-end rows and rows without an intensity (STREAM) are absent; every
 * roof is a line min(compute, x * bandwidth) through its ridge (compute /
 * bandwidth), the paper peaks after them; a run without roofs (--no-roofs)
 * or a device without roofs has no chart, and report.md says why.
 * With gnuplot (`charts` argument, else exit 77): roofline-cpu.png and
 * roofline-gpu.png drawn and linked from report.md, none for --no-roofs. */
#define _POSIX_C_SOURCE 200809L
#include "chart_data.h"
#include "csv.h"
#include "fixture.h"
#include "report.h"
#include "roofs.h"
#include "rundata.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmpdir[256];

/* The roofs of the synthetic machine: CPU 20 GB/s, fp32 400 and bf16 800
 * GFLOP/s, a paper fp32 peak of 600; GPU 3000 GB/s, fp32 50000 GFLOP/s,
 * copies 25 GB/s, a paper fp32 peak 60000 at paper bandwidth 3350. */
static void machine(roofs *rf, int gpu)
{
    roofs_init(rf);
    rf->measured = 1;
    rf->probe_s = 1.5;
    roof_device *c = &rf->dev[ROOF_CPU], *g = &rf->dev[ROOF_GPU];
    c->present = 1;
    c->bw = (roof_num){20, "STREAM triad, 2 threads"};
    c->compute[DTYPE_FP32] = (roof_num){400, "cpu-blas 2048^3"};
    c->compute[DTYPE_BF16] = (roof_num){800, "cpu-onednn 2048^3"};
    c->peak[DTYPE_FP32] = (roof_num){600, "2 cores x 3 GHz x 100"};
    if (!gpu) return;
    g->present = 1;
    g->bw = (roof_num){3000, "device STREAM triad"};
    g->compute[DTYPE_FP32] = (roof_num){50000, "cublas 8192^3"};
    g->h2d = (roof_num){25, "pinned 256 MiB"};
    g->d2h = (roof_num){26, "pinned 256 MiB"};
    g->launch = (roof_num){4.5, "empty kernel"};
    g->peak[DTYPE_FP32] = (roof_num){60000, "132 SMs x 1.98 GHz"};
    g->peak_bw = (roof_num){3350, "HBM3"};
}

/* A matmul row with its io_bytes (A, B read, C written once, 4 bytes a
 * value: the test's own count) and the verdict the roofs give it. */
static result_row gemm(const roofs *rf, const char *backend, const char *mode, int n, double ms,
                       const char *dtype, int emulated, const char *check)
{
    char shape[64], cs[64];
    snprintf(shape, sizeof shape, "%dx%dx%d", n, n, n);
    snprintf(cs, sizeof cs, "square-%d", n);
    result_row r = mk("matmul", cs, backend, mode, shape, ms, check, emulated);
    snprintf(r.dtype, sizeof r.dtype, "%s", dtype);
    r.io_bytes = 3.0 * n * n * 4;
    roof_verdict(rf, NULL, &r);
    return r;
}

/* The synthetic run: CPU and GPU rows that belong on the charts, and rows
 * that do not (emulated, failed, end to end, STREAM without an intensity). */
static int build_rows(const roofs *rf, result_row *rows)
{
    int n = 0;
    rows[n++] = gemm(rf, "cpu-blas", "host", 256, 0.2, "fp32", 0, "pass");
    rows[n++] = gemm(rf, "cpu-blas", "host", 1024, 6.0, "fp32", 0, "pass");
    rows[n++] = gemm(rf, "cpu-omp", "host", 1024, 8.0, "fp32", 0, "pass");
    rows[n++] = gemm(rf, "cpu-omp", "host", 1024, 4.0, "bf16", 0, "pass");
    rows[n++] = gemm(rf, "cpu-naive", "host", 64, 0.5, "fp32", 0, "fail");
    rows[n++] = gemm(rf, "cublas", "resident", 1024, 0.05, "fp32", 0, "pass");
    rows[n++] = gemm(rf, "cuda-tiled", "resident", 1024, 0.2, "fp32", 0, "pass");
    rows[n++] = gemm(rf, "cuda-tiled", "sync-pinned", 1024, 1.2, "fp32", 0, "pass");
    /* an emulated row gets no intensity from the roofs; one given one by hand
     * (an edited file) must still stay off the chart: it is no timing */
    rows[n] = gemm(rf, "cuda-tiled", "resident", 256, 0.1, "bf16", 1, "pass");
    rows[n].intensity = rows[n].flops / rows[n].io_bytes;
    n++;
    result_row s = mk("stream", "triad-16M", "cpu-omp", "host", "16777216", 20, "pass", 0);
    s.bytes = s.io_bytes = 16777216.0 * 12;
    s.gbps = s.bytes / 20 / 1e6;
    roof_verdict(rf, NULL, &s);
    rows[n++] = s;
    return n;
}

/* What the test expects on a device's chart, from the rows themselves. */
static int expected_on(const result_row *r, const char *kind)
{
    return strcmp(r->device_kind, kind) == 0 && !r->emulated && strcmp(r->check, "pass") == 0 &&
           isfinite(r->intensity) && r->intensity > 0 &&
           (strcmp(r->mode, "host") == 0 || strcmp(r->mode, "resident") == 0);
}

/* Builds the roofline of device d from dir's run (the fixture's chart_text,
 * with the device set). */
static int roofline_text(const char *dir, int d, char *text, size_t cap)
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
    c.device = d;
    c.dat = tmpfile();
    int blocks = chart_roofline(&c);
    rewind(c.dat);
    size_t n = fread(text, 1, cap - 1, c.dat);
    text[n] = '\0';
    fclose(c.dat);
    snprintf(text + n, cap - n, "\nparams: %s", c.params);
    rd_free(&rd);
    return blocks;
}

/* The block titled title (its first line after the title): NULL when none. */
static const char *block(const char *text, const char *title)
{
    char q[200];
    snprintf(q, sizeof q, "\"%s", title);
    const char *b = strstr(text, q);
    return b ? strchr(b, '\n') + 1 : NULL;
}

/* Whether the block titled title holds the point (x, y) (relative 1e-6). */
static int has_point(const char *text, const char *title, double x, double y)
{
    const char *p = block(text, title);
    while (p && *p && *p != '\n' && *p != '"') {
        double px, py;
        if (sscanf(p, "%lf %lf", &px, &py) == 2 && fabs(px - x) <= 1e-6 * x && fabs(py - y) <= 1e-6 * y)
            return 1;
        p = strchr(p, '\n');
        p = p ? p + 1 : NULL;
    }
    return 0;
}

/* Data lines of a text (not titles, not blank, not the params line). */
static int data_lines(const char *text)
{
    int n = 0;
    for (const char *p = text; *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        n += len > 0 && *p != '"' && strncmp(p, "params:", 7) != 0;
        p += len + (e != NULL);
    }
    return n;
}

/* The number after "name=" in the params line. */
static double param(const char *text, const char *name)
{
    char q[64];
    snprintf(q, sizeof q, " %s=", name);
    const char *p = strstr(text, "params:");
    p = p ? strstr(p, q) : NULL;
    return p ? atof(p + strlen(q)) : NAN;
}

static void test_data(void)
{
    roofs rf;
    machine(&rf, 1);
    result_row rows[32];
    int n = build_rows(&rf, rows);
    char run[300];
    snprintf(run, sizeof run, "%s/roofed", tmpdir);
    EXPECT(write_run_roofs(run, &rf, rows, n) == 0, "writing the run");
    static char text[1 << 16];
    static const char *const KIND[ROOF_NDEV] = {"cpu", "gpu"};
    for (int d = 0; d < ROOF_NDEV; d++) {
        const roof_device *v = &rf.dev[d];
        int blocks = roofline_text(run, d, text, sizeof text);
        int nroof = 0, npeak = 0, npts = 0;
        for (int t = 0; t < DTYPE_COUNT; t++) nroof += v->compute[t].v > 0, npeak += v->peak[t].v > 0;
        double xlo = param(text, "xlo"), xhi = param(text, "xhi");
        EXPECT(param(text, "nroof") == nroof && param(text, "npeak") == npeak, "%s: roof counts:\n%s", KIND[d],
               text);
        EXPECT(xlo > 0 && xhi > xlo, "%s: an x range: %g..%g", KIND[d], xlo, xhi);
        /* every roof: from xlo on the bandwidth line, through the ridge, flat to xhi */
        for (int t = 0; t < DTYPE_COUNT; t++) {
            if (!(v->compute[t].v > 0)) continue;
            char title[64];
            double cmp = v->compute[t].v, ridge = cmp / v->bw.v;
            snprintf(title, sizeof title, "%s roof:", dtype_name((dtype_t)t));
            EXPECT(has_point(text, title, ridge, cmp), "%s %s roof through its ridge (%g, %g):\n%s", KIND[d],
                   title, ridge, cmp, text);
            EXPECT(has_point(text, title, xlo, fmin(cmp, xlo * v->bw.v)) && has_point(text, title, xhi, cmp),
                   "%s %s roof ends:\n%s", KIND[d], title, text);
            EXPECT(xlo < ridge && ridge < xhi, "%s: the ridge inside the range", KIND[d]);
        }
        for (int t = 0; t < DTYPE_COUNT; t++) {
            if (!(v->peak[t].v > 0)) continue;
            char title[64];
            snprintf(title, sizeof title, "%s paper peak:", dtype_name((dtype_t)t));
            double top = v->peak[t].v, at = v->peak_bw.v > 0 ? top / v->peak_bw.v : xhi;
            EXPECT(has_point(text, title, at, top) && has_point(text, title, xhi, top), "%s %s:\n%s", KIND[d],
                   title, text);
        }
        /* every row that belongs here, at (flops / io_bytes, flops / time) */
        for (int i = 0; i < n; i++) {
            char title[96];
            snprintf(title, sizeof title, "%s %s\"", rows[i].backend, rows[i].dtype);
            double x = rows[i].flops / rows[i].io_bytes, y = rows[i].flops / rows[i].median_ms / 1e6;
            int want = expected_on(&rows[i], KIND[d]);
            npts += want;
            if (want)
                EXPECT(has_point(text, title, x, y), "%s: %s %s %s at (%g, %g):\n%s", KIND[d], rows[i].backend,
                       rows[i].mode, rows[i].shape, x, y, text);
        }
        /* nothing else: roof lines have 2 or 3 points each, the rest are the rows */
        int roof_pts = 0;
        for (int t = 0; t < DTYPE_COUNT; t++) roof_pts += (v->compute[t].v > 0) * 3;
        for (int t = 0; t < DTYPE_COUNT; t++) roof_pts += (v->peak[t].v > 0) * (v->peak_bw.v > 0 ? 3 : 2);
        EXPECT(data_lines(text) == roof_pts + npts, "%s: %d data lines, want %d roof + %d row points:\n%s",
               KIND[d], data_lines(text), roof_pts, npts, text);
        EXPECT(npts > 0 && blocks > nroof + npeak, "%s: rows plotted (%d blocks)", KIND[d], blocks);
        EXPECT(!strstr(text, "(emulated") && !strstr(text, "sync-pinned"), "%s: no emulated or e2e series",
               KIND[d]);
    }
    /* the roofs give an emulated row no intensity, STREAM (no flops) none */
    result_row emu = gemm(&rf, "cuda-tiled", "resident", 256, 0.1, "fp32", 1, "pass");
    EXPECT(isnan(emu.intensity) && strstr(emu.note, "emulated: no roof"), "emulated: no intensity");
    EXPECT(isnan(rows[n - 1].intensity), "STREAM counts no flops: no intensity");

    /* a device without roofs (a CPU-only run) and a run without roofs: no chart */
    machine(&rf, 0);
    EXPECT(write_run_roofs(run, &rf, rows, n) == 0, "writing the CPU-roofed run");
    EXPECT(roofline_text(run, ROOF_GPU, text, sizeof text) == 0, "no GPU roofs, no GPU chart:\n%s", text);
    EXPECT(roofline_text(run, ROOF_CPU, text, sizeof text) > 0, "the CPU chart stays");
    roofs_init(&rf);
    snprintf(rf.why, sizeof rf.why, "--no-roofs");
    EXPECT(write_run_roofs(run, &rf, rows, n) == 0, "writing the roofless run");
    for (int d = 0; d < ROOF_NDEV; d++)
        EXPECT(roofline_text(run, d, text, sizeof text) == 0, "--no-roofs: no %s chart:\n%s", KIND[d], text);
    EXPECT(report_rerender(run, NULL, 0, NULL) == 0, "report of the roofless run");
    char md[340];
    snprintf(md, sizeof md, "%s/report.md", run);
    char *m = slurp(md);
    EXPECT(m && strstr(m, "*Roofline chart: none: the roofs were not measured (--no-roofs).*"),
           "report.md says why there is no roofline:\n%s", m ? m : "");
    free(m);
}

/* With gnuplot: both charts drawn and linked beside the Roofs section. */
static int test_charts(void)
{
    if (access("/usr/bin/gnuplot", X_OK) != 0 && system("command -v gnuplot >/dev/null 2>&1") != 0) return 77;
    roofs rf;
    machine(&rf, 1);
    result_row rows[32];
    int n = build_rows(&rf, rows);
    char run[300], md[340];
    snprintf(run, sizeof run, "%s/drawn", tmpdir);
    snprintf(md, sizeof md, "%s/report.md", run);
    EXPECT(write_run_roofs(run, &rf, rows, n) == 0, "writing the run");
    EXPECT(report_rerender(run, NULL, 1, NULL) == 0, "report with charts");
    static const char *const KIND[ROOF_NDEV] = {"cpu", "gpu"};
    char *m = slurp(md);
    const char *roofs_at = m ? strstr(m, "## Roofs") : NULL, *suite_at = m ? strstr(m, "## matmul") : NULL;
    for (int d = 0; d < ROOF_NDEV; d++) {
        char png[64], svg[64], link[128];
        snprintf(png, sizeof png, "plots/roofline-%s.png", KIND[d]);
        snprintf(svg, sizeof svg, "plots/roofline-%s.svg", KIND[d]);
        snprintf(link, sizeof link, "![Roofline (%s)](%s)", KIND[d], png);
        EXPECT(exists_nonempty(run, png) && exists_nonempty(run, svg), "%s drawn", png);
        const char *l = m ? strstr(m, link) : NULL;
        EXPECT(l && roofs_at && suite_at && l > roofs_at && l < suite_at, "%s linked after Roofs:\n%s", link,
               m ? m : "");
    }
    EXPECT(!exists(run, "plots/roofline-matmul.png"), "the roofline is per device, not per suite");
    free(m);
    /* the same run re-rendered without roofs: the charts go, report.md says why */
    roofs_init(&rf);
    snprintf(rf.why, sizeof rf.why, "--no-roofs");
    EXPECT(write_run_roofs(run, &rf, rows, n) == 0, "writing the roofless run");
    EXPECT(report_rerender(run, NULL, 1, NULL) == 0, "report with charts");
    for (int d = 0; d < ROOF_NDEV; d++) {
        char png[64];
        snprintf(png, sizeof png, "plots/roofline-%s.png", KIND[d]);
        EXPECT(!exists(run, png), "--no-roofs: %s removed", png);
    }
    m = slurp(md);
    EXPECT(m && !strstr(m, "![Roofline") && strstr(m, "*Roofline chart: none: the roofs were not measured"),
           "no link, the reason:\n%s", m ? m : "");
    free(m);
    return 0;
}

int main(int argc, char **argv)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/roofline_test.XXXXXX");
    if (!mkdtemp(tmpdir)) return 1;
    int skip = 0;
    if (argc > 1 && strcmp(argv[1], "charts") == 0) skip = test_charts() == 77;
    else test_data();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    if (skip) {
        printf("gnuplot not found: skipped\n");
        return 77;
    }
    TEST_END();
}
