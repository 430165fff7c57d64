/* tests/report/report_steps_test.c - the report of step suites (training) from
 * synthetic runs: two models (case cnn at batches 16 and 64, case mlp at 32),
 * CPU backends and a GPU backend in three modes, rows carrying samples_per_s,
 * phase_ms and a 4-step trace.
 * `test_report_steps data`: rd_batch / rd_phases / rd_trace read the columns
 *   (malformed cells read as nothing); each step chart's data file: samples/s
 *   vs batch per model and backend, speedup vs batch per GPU mode (none from
 *   emulated rows), the phases stacked at the largest batch, the loss curve
 *   with one point per step and backend, emulated rows included.
 * `test_report_steps md`: report.md's samples/s and steps/s columns, the
 *   Phases and Overlap tables; emulated rows show no timing anywhere.
 * `test_report_steps charts` (exit 77 without gnuplot): the charts exist for
 *   real rows; an emulated-only run gets its loss chart and a one-line reason
 *   for each timing chart it cannot have. */
#define _POSIX_C_SOURCE 200809L
#include "chart_data.h"
#include "plots.h"
#include "report.h"
#include "rundata.h"
#include "fixture.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char tmpdir[256];

/* One training-step row: a batch, a median, its phases and a 4-step trace. */
static result_row step_row(const char *model, int batch, const char *backend, const char *mode, double ms,
                           int emulated)
{
    char shape[32];
    snprintf(shape, sizeof shape, "%s-b%d", model, batch);
    result_row r = mk("train", model, backend, mode, shape, ms, "pass", emulated);
    r.flops = 1e6 * batch;
    r.gflops = r.flops / ms / 1e6;
    r.samples_per_s = batch / (ms / 1e3);
    r.speedup = emulated ? NAN : 40.0 / ms; /* cpu-blas runs 40 ms at every size */
    snprintf(r.phase_ms, sizeof r.phase_ms, "forward=%g;backward=%g;update=%g", ms / 4, ms * 5 / 8, ms / 8);
    snprintf(r.trace, sizeof r.trace, "2.3;2.2;2.1;%s", strcmp(backend, "cpu-omp") ? "2" : "2.01");
    return r;
}

/* The run: cnn at 16 and 64, mlp at 32; cpu-blas and cpu-omp (with_cpu),
 * cuda resident, sync-pinned and prefetch-2 (emulated when emulate: their
 * times then 123.456 ms, a number that must never show). */
static int train_run(const char *dir, int emulate, int with_cpu)
{
    static const struct { const char *model; int batch; } P[] = {{"cnn", 16}, {"cnn", 64}, {"mlp", 32}};
    result_row rows[32];
    int n = 0;
    for (int p = 0; p < 3; p++) {
        if (with_cpu) {
            rows[n++] = step_row(P[p].model, P[p].batch, "cpu-blas", "host", 40, 0);
            rows[n++] = step_row(P[p].model, P[p].batch, "cpu-omp", "host", 80, 0);
        }
        double g = emulate ? 123.456 : 10.0 * P[p].batch / 64;
        rows[n++] = step_row(P[p].model, P[p].batch, "cuda", "resident", g, emulate);
        rows[n++] = step_row(P[p].model, P[p].batch, "cuda", "sync-pinned", emulate ? g : 2 * g, emulate);
        result_row pf = step_row(P[p].model, P[p].batch, "cuda", "prefetch-2", emulate ? g : 1.5 * g, emulate);
        pf.overlap_eff = emulate ? 0.999 : 0.7;
        rows[n++] = pf;
    }
    return write_run(dir, rows, n);
}

/* Number of lines of text that hold two or more numbers (data points). */
static int data_lines(const char *text)
{
    int n = 0;
    for (const char *p = text; *p;) {
        double a, b;
        if (sscanf(p, "%lf %lf", &a, &b) == 2) n++;
        p = strchr(p, '\n');
        if (!p) break;
        p++;
    }
    return n;
}

static void test_columns(void)
{
    char run[300], err[512];
    snprintf(run, sizeof run, "%s/cols", tmpdir);
    result_row rows[3];
    rows[0] = step_row("cnn", 64, "cpu-blas", "host", 40, 0);
    rows[1] = step_row("cnn", 16, "cpu-omp", "host", 7, 0);
    snprintf(rows[1].trace, sizeof rows[1].trace, "2.3;nan;inf;1.5");   /* a diverged run: gaps */
    rows[2] = step_row("cnn", 32, "cpu-naive", "host", 9, 0);
    write_run(run, rows, 3);
    rundata rd;
    EXPECT(rd_load(&rd, run, err, sizeof err) == 0, "load: %s", err);
    if (!rd.t) return;
    EXPECT(rd_batch(&rd, 0) == 64 && rd_batch(&rd, 1) == 16, "batch from samples_per_s x median: %g %g",
           rd_batch(&rd, 0), rd_batch(&rd, 1));
    char names[8][RD_PHASE_NAME];
    double ms[8], loss[8];
    EXPECT(rd_phases(&rd, 0, names, ms, 8) == 3 && strcmp(names[1], "backward") == 0 && ms[1] == 25,
           "phases of row 0");
    EXPECT(rd_trace(&rd, 1, loss, 8) == 4 && loss[0] == 2.3 && isnan(loss[1]) && isnan(loss[2]) && loss[3] == 1.5,
           "trace with nan/inf: NaN gaps");
    EXPECT(rd_trace(&rd, 0, loss, 2) == 2, "a trace is cut at cap");
    rd_free(&rd);
    /* a malformed list cell is refused when the file is read (exit 2 for
     * --plot and the gate, naming line and column), never charted */
    static const struct { int col; const char *cell, *want; } BAD[] = {
        {COL_PHASE_MS, "forward=1;backward", "column 'phase_ms': 'forward=1;backward'"},
        {COL_PHASE_MS, "forward=-1", "column 'phase_ms'"},
        {COL_PHASE_MS, "for ward=1", "column 'phase_ms'"},
        {COL_PHASE_MS, "forward=1e308", "column 'phase_ms'"},
        {COL_TRACE, "2.3;x;1", "column 'trace': '2.3;x;1'"},
        {COL_TRACE, "2.3;1e308", "column 'trace'"},
        {COL_TRACE, "2.3;-1", "column 'trace'"},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        rows[1] = step_row("cnn", 16, "cpu-omp", "host", 7, 0);
        char *cell = BAD[i].col == COL_PHASE_MS ? rows[1].phase_ms : rows[1].trace;
        snprintf(cell, BAD[i].col == COL_PHASE_MS ? sizeof rows[1].phase_ms : sizeof rows[1].trace, "%s",
                 BAD[i].cell);
        write_run(run, rows, 3);
        int rc = rd_load(&rd, run, err, sizeof err);
        EXPECT(rc != 0 && strstr(err, BAD[i].want), "'%s' refused: rc %d, %s", BAD[i].cell, rc, err);
        if (rc == 0) rd_free(&rd);
    }
}

static void test_chart_data(void)
{
    char run[300], text[16384];
    snprintf(run, sizeof run, "%s/real", tmpdir);
    EXPECT(train_run(run, 0, 1) == 0, "writing the synthetic run");

    /* samples/s vs batch: panel cnn (two batches), panel mlp; GPU resident only */
    int b = chart_text(run, "train", chart_samples, text, sizeof text);
    EXPECT(b == 6, "samples: 2 panels x 3 backends:\n%s", text);
    EXPECT(strstr(text, "\"cpu-blas\"\n16 400 0 0\n64 1600 0 0\n") && strstr(text, "\"cuda (resident)\"\n16 6400 ") &&
               strstr(text, "npanels=2;") && strstr(text, "pt1='cnn';") && strstr(text, "pt2='mlp';") &&
               !strstr(text, "sync-pinned") && !strstr(text, "prefetch"),
           "samples/s per model and backend over the batch:\n%s", text);

    /* speedup vs batch: GPU rows only, a line per mode, canonical mode order */
    b = chart_text(run, "train", chart_batch_speedup, text, sizeof text);
    EXPECT(b == 6, "batch-speedup: 2 panels x 3 modes:\n%s", text);
    EXPECT(strstr(text, "\"cuda resident\"\n16 16 0 0\n64 4 0 0\n") &&
               strstr(text, "\"cuda sync-pinned\"\n16 8 0 0\n64 2 0 0\n") && !strstr(text, "cpu-omp") &&
               strstr(text, "mcol='2 4 10';") && strstr(text, "bdt='1 1 1';") && strstr(text, "baseline='cpu-blas';"),
           "speedup per GPU mode over the batch:\n%s", text);

    /* phases: at each model's largest batch (cnn: 64), stacked */
    b = chart_text(run, "train", chart_phases, text, sizeof text);
    EXPECT(b == 6, "phases: 2 panels x 3 phases:\n%s", text);
    EXPECT(strstr(text, "\"forward\"\n0 10 0 10\n1 20 0 20\n2 2.5 0 2.5\n") &&
               strstr(text, "\"backward\"\n0 25 10 35\n") && strstr(text, "\"update\"\n0 5 35 40\n") &&
               strstr(text, "pt1='cnn, batch 64';") && strstr(text, "pt2='mlp, batch 32';") &&
               strstr(text, "xt='\"cpu-blas\" 0, \"cpu-omp\" 1, \"cuda (resident)\" 2';") && !strstr(text, "\n0 4 0 4\n"),
           "phases stacked at the largest batch only (cnn-b16's forward 4 ms not drawn):\n%s", text);

    /* loss: one line per backend (cuda's three modes are one), 4 points each */
    b = chart_text(run, "train", chart_loss, text, sizeof text);
    EXPECT(b == 6 && data_lines(text) == 24, "loss: 2 panels x 3 backends x 4 steps, got %d blocks, %d points:\n%s",
           b, data_lines(text), text);
    EXPECT(strstr(text, "\"cpu-omp\"\n1 2.3 0 0\n2 2.2 0 0\n3 2.1 0 0\n4 2.01 0 0\n") && strstr(text, "nsteps=4;"),
           "the loss after each step:\n%s", text);

    /* emulated GPU rows: no timing chart draws them, the loss chart does */
    snprintf(run, sizeof run, "%s/emu", tmpdir);
    EXPECT(train_run(run, 1, 1) == 0, "writing the synthetic run");
    EXPECT(chart_text(run, "train", chart_batch_speedup, text, sizeof text) == 0, "no speedup from emulated rows:\n%s",
           text);
    b = chart_text(run, "train", chart_samples, text, sizeof text);
    EXPECT(b == 4 && !strstr(text, "cuda"), "samples: CPU rows only:\n%s", text);
    b = chart_text(run, "train", chart_phases, text, sizeof text);
    EXPECT(b == 6 && !strstr(text, "cuda"), "phases: CPU rows only:\n%s", text);
    b = chart_text(run, "train", chart_loss, text, sizeof text);
    EXPECT(b == 6 && data_lines(text) == 24 && strstr(text, "\"cuda (emulated)\"\n1 2.3 "),
           "loss: emulated rows drawn, marked:\n%s", text);

    /* a suite without samples_per_s has no step chart */
    snprintf(run, sizeof run, "%s/matmul", tmpdir);
    result_row mm[2] = {mk("matmul", "sq", "cpu-blas", "host", "64x64x64", 1, "pass", 0),
                        mk("matmul", "sq", "cpu-omp", "host", "64x64x64", 2, "pass", 0)};
    write_run(run, mm, 2);
    EXPECT(chart_text(run, "matmul", chart_samples, text, sizeof text) == 0 &&
               chart_text(run, "matmul", chart_loss, text, sizeof text) == 0,
           "no step chart for matmul rows:\n%s", text);
}

static void test_md(void)
{
    char run[300], md[340];
    snprintf(run, sizeof run, "%s/mdreal", tmpdir);
    snprintf(md, sizeof md, "%s/report.md", run);
    EXPECT(train_run(run, 0, 1) == 0, "writing the synthetic run");
    EXPECT(report_finish(run, NULL, 0) == 0, "report_finish");
    char *m = slurp(md);
    EXPECT(m && strstr(m, "| samples/s | steps/s |") &&
               strstr(m, "| cnn | cnn-b64 | cpu-blas | host | 40 | 1.6 | 1600 | 25 | 1× |"),
           "samples/s and steps/s columns:\n%s", m ? m : "");
    char *ph = m ? strstr(m, "### Phases") : NULL;
    EXPECT(ph && strstr(ph, "| case | batch | backend | mode | forward | backward | update | sum |") &&
               strstr(ph, "| cnn | 64 | cpu-blas | host | 10 | 25 | 5 | 40 |") &&
               strstr(ph, "| mlp | 32 | cuda | resident | 1.25 | 3.125 | 0.625 | 5 |") &&
               !strstr(ph, "| cnn | 16 |"),
           "phase table at the largest batch:\n%s", ph ? ph : "");
    char *ov = m ? strstr(m, "### Overlap") : NULL;
    EXPECT(ov && strstr(ov, "| cnn | cnn-b64 | cuda | prefetch-2 | 15 | 0.700 |"), "overlap table:\n%s",
           ov ? ov : "");
    free(m);

    snprintf(run, sizeof run, "%s/mdemu", tmpdir);
    snprintf(md, sizeof md, "%s/report.md", run);
    EXPECT(train_run(run, 1, 1) == 0, "writing the synthetic run");
    EXPECT(report_finish(run, NULL, 0) == 0, "report_finish");
    m = slurp(md);
    /* 123.456 ms, 518.4 samples/s (64 / 0.123456), 8.1 steps/s, overlap 0.999 */
    EXPECT(m && !strstr(m, "123.5") && !strstr(m, "518.4") && !strstr(m, "8.1") && !strstr(m, "0.999") &&
               strstr(m, "| cnn | cnn-b64 | cuda (emulated) | resident |  |  |  |  |  |"),
           "emulated rows show no timing:\n%s", m ? m : "");
    EXPECT(m && strstr(m, "Overlap efficiency: no row that ran on hardware") && !strstr(m, "| cuda | resident |"),
           "no emulated phases or overlap:\n%s", m ? m : "");
    free(m);
}

static void test_charts(void)
{
    char run[300], plots[320], md[340];
    snprintf(run, sizeof run, "%s/chreal", tmpdir);
    snprintf(plots, sizeof plots, "%s/plots", run);
    EXPECT(train_run(run, 0, 1) == 0, "writing the synthetic run");
    EXPECT(report_finish(run, NULL, 1) == 0, "report_finish with charts");
    static const char *const STEP[] = {"samples", "batch-speedup", "phases", "loss"};
    for (int i = 0; i < 4; i++) {
        char png[64], svg[64];
        snprintf(png, sizeof png, "%s-train.png", STEP[i]);
        snprintf(svg, sizeof svg, "%s-train.svg", STEP[i]);
        EXPECT(exists_nonempty(plots, png) && exists_nonempty(plots, svg), "%s missing or empty", png);
    }
    snprintf(md, sizeof md, "%s/report.md", run);
    char *m = slurp(md);
    EXPECT(m && strstr(m, "](plots/loss-train.png)") && strstr(m, "](plots/batch-speedup-train.png)") &&
               !strstr(m, "no chart:"),
           "report.md embeds the step charts:\n%s", m ? m : "");
    free(m);

    /* GPU rows only, all emulated: the loss chart, and a reason for the others */
    snprintf(run, sizeof run, "%s/chemu", tmpdir);
    snprintf(plots, sizeof plots, "%s/plots", run);
    EXPECT(train_run(run, 1, 0) == 0, "writing the synthetic run");
    EXPECT(report_finish(run, NULL, 1) == 0, "report_finish with charts");
    EXPECT(exists_nonempty(plots, "loss-train.png"), "loss chart from emulated rows");
    for (int i = 0; i < 3; i++) {
        char png[64];
        snprintf(png, sizeof png, "%s-train.png", STEP[i]);
        EXPECT(!exists(plots, png), "%s must not exist for emulated rows", png);
    }
    snprintf(md, sizeof md, "%s/report.md", run);
    m = slurp(md);
    EXPECT(m && strstr(m, "*Speedup vs batch size per GPU mode: no chart: no GPU row ran on real hardware") &&
               strstr(m, "*Samples/s vs batch size: no chart: no row ran on real hardware and passed") &&
               strstr(m, "](plots/loss-train.png)"),
           "one line per missing step chart:\n%s", m ? m : "");
    free(m);
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "data";
    char gp[4096];
    if (strcmp(what, "charts") == 0 && plots_find_gnuplot(gp, sizeof gp) != 0) {
        printf("gnuplot not on PATH: chart test skipped\n");
        return 77;
    }
    snprintf(tmpdir, sizeof tmpdir, "/tmp/test_report_steps.XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    if (strcmp(what, "charts") == 0) test_charts();
    else if (strcmp(what, "md") == 0) test_md();
    else {
        test_columns();
        test_chart_data();
    }
    if (!test_failures) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
        if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    } else fprintf(stderr, "outputs kept in %s\n", tmpdir);
    TEST_END();
}
