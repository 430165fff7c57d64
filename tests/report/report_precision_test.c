/* tests/report/report_precision_test.c - the dtype axis in the report, from
 * a synthetic run at several dtypes (matmul: square-64 at four, square-256,
 * larger, at two; conv: one layer, two directions, two dtypes) and an
 * fp32-only one.
 * `data`: the dtype and accuracy charts' data: the problem with the most
 * dtypes (not the largest), bars per backend centred by dtype, GPU resident
 * only, emulated rows never a throughput bar but an accuracy bar, a panel
 * per conv direction; no chart at one dtype.
 * `md`: report.md's precision table: its cells (GFLOP/s, × fp32, accuracy
 * lost, skip, emulated without GFLOP/s), the dtype column of the main
 * table; nothing for an fp32-only run.
 * `charts` (exit 77 without gnuplot): dtype-* and accuracy-* drawn for the
 * multi-dtype run and embedded in report.md, not for the fp32-only run. */
#define _POSIX_C_SOURCE 200809L
#include "chart_data.h"
#include "plots.h"
#include "report.h"
#include "fixture.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[256];

/* A row at dtype dt with the given GFLOP/s and accuracy_lost. */
static result_row at(const char *suite, const char *cs, const char *backend, const char *mode, const char *shape,
                     const char *dt, double gflops, double lost, int emulated)
{
    result_row r = mk(suite, cs, backend, mode, shape, 1.0, "pass", emulated);
    snprintf(r.dtype, sizeof r.dtype, "%s", dt);
    r.gflops = gflops;
    r.accuracy_lost = lost;
    return r;
}

/* A skip row as bench writes one: per backend and dtype, no problem. */
static result_row skip(const char *suite, const char *backend, const char *dt)
{
    result_row r = mk(suite, "-", backend, "-", "-", 0, "skip", 0);
    snprintf(r.dtype, sizeof r.dtype, "%s", dt);
    snprintf(r.note, sizeof r.note, "%s has no %s path", backend, dt);
    return r;
}

/* The multi-dtype run; GPU rows emulated when emulate. */
static int dtype_run(const char *dir, int emulate)
{
    result_row r[32];
    int n = 0;
    static const char *const DT[] = {"fp32", "tf32", "bf16", "fp16"};
    static const double NAIVE[] = {1, 0.5, 0.25, 0.2}, NAIVE_LOST[] = {2.5e-8, 2.6e-4, 2.7e-3, 3.4e-4};
    r[n++] = at("matmul", "square-64", "cpu-blas", "host", "64x64x64", "fp32", 50, 3e-7, 0);
    r[n++] = skip("matmul", "cpu-blas", "tf32");
    for (int d = 0; d < 4; d++)
        r[n++] = at("matmul", "square-64", "cpu-naive", "host", "64x64x64", DT[d], NAIVE[d], NAIVE_LOST[d], 0);
    r[n++] = at("matmul", "square-64", "cpu-blas", "host", "64x64x64", "bf16", 120, 2.7e-3, 0);
    r[n++] = skip("matmul", "cpu-blas", "fp16");
    r[n++] = at("matmul", "square-64", "cuda-tiled", "resident", "64x64x64", "fp32", 900, 2e-7, emulate);
    r[n++] = at("matmul", "square-64", "cuda-tiled", "resident", "64x64x64", "tf32", 1800, 2.6e-4, emulate);
    r[n++] = at("matmul", "square-64", "cuda-tiled", "sync-pinned", "64x64x64", "fp32", 333, 2e-7, emulate);
    /* larger, at fewer dtypes: not the charts' problem */
    r[n++] = at("matmul", "square-256", "cpu-blas", "host", "256x256x256", "fp32", 77, 3e-7, 0);
    r[n++] = at("matmul", "square-256", "cpu-naive", "host", "256x256x256", "bf16", 0.3, 2.7e-3, 0);
    static const char *const DIR[] = {"fwd", "bwd-data"};
    for (int k = 0; k < 2; k++)
        for (int d = 0; d < 2; d++) {
            char shape[64];
            snprintf(shape, sizeof shape, "%s:mb2ic4ih8oc8kh3", DIR[k]);
            r[n] = at("conv", "layer-a", "cpu-naive", "host", shape, d ? "bf16" : "fp32", 2.0 + k + d, d ? 2.6e-3 : 0, 0);
            r[n].flops = 1e6;
            snprintf(r[n++].direction, sizeof r[0].direction, "%s", DIR[k]);
        }
    return write_run(dir, r, n);
}

/* An fp32-only run: no precision table, no dtype chart. */
static int fp32_run(const char *dir)
{
    result_row r[2];
    r[0] = at("matmul", "square-64", "cpu-blas", "host", "64x64x64", "fp32", 50, 3e-7, 0);
    r[1] = at("matmul", "square-64", "cpu-naive", "host", "64x64x64", "fp32", 1, 2.5e-8, 0);
    return write_run(dir, r, 2);
}

static void test_data(void)
{
    char run[300], text[8192];
    snprintf(run, sizeof run, "%s/gpu", tmpdir);
    EXPECT(dtype_run(run, 0) == 0, "writing the run");
    /* square-64 (four dtypes) over square-256 (larger, two); one panel; bars
     * of a backend centred on it in dtype order (0.2 apart); a log axis
     * from 0.01 (the decade below 0.2, half a decade down) */
    EXPECT(chart_text(run, "matmul", chart_dtype, text, sizeof text) == 4, "dtype blocks:\n%s", text);
    EXPECT(strstr(text, "\"fp32\"\n-0.1 50 0.01 50\n0.7 1 0.01 1\n1.9 900 0.01 900\n") &&
               strstr(text, "\"tf32\"\n0.9 0.5 0.01 0.5\n2.1 1800 0.01 1800\n") &&
               strstr(text, "\"bf16\"\n0.1 120 0.01 120\n1.1 0.25 0.01 0.25\n") &&
               strstr(text, "\"fp16\"\n1.3 0.2 0.01 0.2\n"),
           "dtype bars at square-64:\n%s", text);
    EXPECT(strstr(text, "xt='\"cpu-blas\" 0, \"cpu-naive\" 1, \"cuda-tiled (resident)\" 2';") &&
               strstr(text, "sty='1 2 3 4';") && strstr(text, "logy=1;") && strstr(text, "npanels=1;"),
           "dtype chart parameters:\n%s", text);
    EXPECT(!strstr(text, " 77 ") && !strstr(text, " 333 "), "square-256 and sync-pinned rows not drawn:\n%s", text);
    EXPECT(chart_text(run, "matmul", chart_accuracy, text, sizeof text) == 4 &&
               strstr(text, "\"bf16\"\n0.1 0.0027 ") && strstr(text, "accuracy=1;"),
           "accuracy bars:\n%s", text);
    /* conv: a panel per direction; an exact result (0) is a bar of no height */
    EXPECT(chart_text(run, "conv", chart_accuracy, text, sizeof text) == 4 && strstr(text, "npanels=2;") &&
               strstr(text, "pt1='fwd';") && strstr(text, "pt2='bwd-data';") &&
               strstr(text, "\"fp32\"\n-0.125 0 0.0001 0.0001\n"),
           "conv accuracy panels:\n%s", text);

    /* emulated GPU rows: never a throughput bar, still an accuracy bar */
    snprintf(run, sizeof run, "%s/emu", tmpdir);
    EXPECT(dtype_run(run, 1) == 0, "writing the run");
    EXPECT(chart_text(run, "matmul", chart_dtype, text, sizeof text) == 4 && !strstr(text, "cuda-tiled") &&
               !strstr(text, " 900 ") && !strstr(text, " 1800 "),
           "emulated rows drawn as throughput:\n%s", text);
    EXPECT(chart_text(run, "matmul", chart_accuracy, text, sizeof text) == 4 &&
               strstr(text, "\"cuda-tiled (emulated)\" 2"),
           "emulated rows' accuracy drawn, marked:\n%s", text);

    snprintf(run, sizeof run, "%s/fp32", tmpdir);
    EXPECT(fp32_run(run) == 0, "writing the run");
    EXPECT(chart_text(run, "matmul", chart_dtype, text, sizeof text) == 0 &&
               chart_text(run, "matmul", chart_accuracy, text, sizeof text) == 0,
           "one dtype: no dtype or accuracy chart:\n%s", text);
}

/* report.md of dir (malloc'd), written by report_finish without charts. */
static char *md_of(const char *dir)
{
    char md[340];
    if (report_finish(dir, NULL, 0) != 0) return NULL;
    snprintf(md, sizeof md, "%s/report.md", dir);
    return slurp(md);
}

static void test_md(void)
{
    char run[300];
    snprintf(run, sizeof run, "%s/gpu", tmpdir);
    EXPECT(dtype_run(run, 0) == 0, "writing the run");
    char *m = md_of(run);
    EXPECT(m != NULL, "no report.md");
    if (!m) return;
    char *main_table = strstr(m, "| case | shape | backend | mode | dtype | median ms |");
    char *prec = strstr(m, "### matmul: precision"), *conv = strstr(m, "## conv");
    EXPECT(main_table && prec && conv && main_table < prec && prec < conv,
           "the precision table follows matmul's main table (with its dtype column):\n%s", m);
    EXPECT(strstr(m, "| case | shape | backend | fp32 GFLOP/s | fp32 lost | tf32 GFLOP/s | tf32 lost | "
                     "bf16 GFLOP/s | bf16 lost | fp16 GFLOP/s | fp16 lost |"),
           "a column pair per dtype, in canonical order:\n%s", m);
    EXPECT(strstr(m, "| square-64 | 64x64x64 | cpu-blas | 50 | 3.0e-07 | skip |  | 120 (2.4×) | 2.7e-03 | skip |  |\n"),
           "cpu-blas: GFLOP/s, × fp32, accuracy lost, skips:\n%s", m);
    EXPECT(strstr(m, "| square-64 | 64x64x64 | cpu-naive | 1 | 2.5e-08 | 0.5 (0.5×) | 2.6e-04 | 0.25 (0.25×) | "
                     "2.7e-03 | 0.2 (0.2×) | 3.4e-04 |\n"),
           "cpu-naive at four dtypes:\n%s", m);
    EXPECT(strstr(m, "| square-64 | 64x64x64 | cuda-tiled | 900 | 2.0e-07 | 1800 (2×) | 2.6e-04 |  |  |  |  |\n"),
           "GPU resident row, no row at bf16/fp16 (nor a skip): empty:\n%s", m);
    EXPECT(strstr(m, "| square-256 | 256x256x256 | cpu-naive |  |  |  |  | 0.3 | 2.7e-03 |  |  |\n") &&
               !strstr(prec, "333"),
           "no fp32 row: no ×; sync-pinned not in the table:\n%s", m);
    EXPECT(strstr(m, "### conv: precision") && strstr(m, "| case | direction | backend | fp32 GFLOP/s |") &&
               strstr(m, "| layer-a | bwd-data | cpu-naive | 3 | 0.0e+00 | 4 (1.33×) | 2.6e-03 |\n"),
           "conv: a line per direction:\n%s", m);
    free(m);

    snprintf(run, sizeof run, "%s/emu", tmpdir);
    EXPECT(dtype_run(run, 1) == 0, "writing the run");
    m = md_of(run);
    EXPECT(m && strstr(m, "| square-64 | 64x64x64 | cuda-tiled (emulated) |  | 2.0e-07 |  | 2.6e-04 |  |  |  |  |\n"),
           "emulated rows: accuracy lost, no GFLOP/s:\n%s", m ? m : "");
    free(m);

    snprintf(run, sizeof run, "%s/fp32", tmpdir);
    EXPECT(fp32_run(run) == 0, "writing the run");
    m = md_of(run);
    EXPECT(m && !strstr(m, "precision") && strstr(m, "| case | shape | backend | mode | median ms |"),
           "fp32 only: no precision table, no dtype column:\n%s", m ? m : "");
    free(m);
}

static void test_charts(void)
{
    char run[300], plots[320], md[340];
    snprintf(run, sizeof run, "%s/charts", tmpdir);
    snprintf(plots, sizeof plots, "%s/plots", run);
    EXPECT(dtype_run(run, 0) == 0, "writing the run");
    EXPECT(report_finish(run, NULL, 1) == 0, "report_finish with charts");
    static const char *const WANT[] = {"dtype-matmul", "accuracy-matmul", "dtype-conv", "accuracy-conv"};
    for (int i = 0; i < 4; i++) {
        char png[64], svg[64];
        snprintf(png, sizeof png, "%s.png", WANT[i]);
        snprintf(svg, sizeof svg, "%s.svg", WANT[i]);
        EXPECT(exists_nonempty(plots, png) && exists_nonempty(plots, svg), "%s missing or empty", WANT[i]);
    }
    snprintf(md, sizeof md, "%s/report.md", run);
    char *m = slurp(md);
    EXPECT(m && strstr(m, "](plots/dtype-matmul.png)") && strstr(m, "](plots/accuracy-conv.png)"),
           "report.md embeds the precision charts");
    free(m);

    snprintf(run, sizeof run, "%s/fp32charts", tmpdir);
    snprintf(plots, sizeof plots, "%s/plots", run);
    EXPECT(fp32_run(run) == 0, "writing the run");
    EXPECT(report_finish(run, NULL, 1) == 0, "report_finish with charts");
    EXPECT(exists_nonempty(plots, "throughput-matmul.png") && !exists(plots, "dtype-matmul.png") &&
               !exists(plots, "accuracy-matmul.png"),
           "fp32 only: no dtype or accuracy chart");
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "md";
    char gp[4096];
    if (strcmp(what, "charts") == 0 && plots_find_gnuplot(gp, sizeof gp) != 0) {
        printf("gnuplot not on PATH: chart test skipped\n");
        return 77;
    }
    snprintf(tmpdir, sizeof tmpdir, "/tmp/test_report_precision.XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    if (strcmp(what, "charts") == 0) test_charts();
    else if (strcmp(what, "data") == 0) test_data();
    else test_md();
    if (!test_failures) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
        if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    } else fprintf(stderr, "outputs kept in %s\n", tmpdir);
    TEST_END();
}
