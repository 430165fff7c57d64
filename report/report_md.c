/* report/report_md.c - the readable report of a run (see report_md.h). */
#define _POSIX_C_SOURCE 200809L
#include "report_md.h"
#include "report.h"
#include "atomic_file.h"
#include "findings.h"
#include "md_table.h"
#include "merge.h"
#include "merge_md.h"
#include "plots.h"
#include "report_precision.h"
#include "report_roofs.h"
#include "roofline.h"
#include "report_steps.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void put_env_row(FILE *f, const char *what, const char *value)
{
    if (!value || !*value) return;
    md_cell(f, what);
    md_cell(f, value);
    fputs("|\n", f);
}

/* CUDA versions are recorded as 1000*major + 10*minor. */
static void cuda_version(const char *v, char *out, size_t cap)
{
    char *end;
    long n = v ? strtol(v, &end, 10) : 0;
    if (v && *v && *end == '\0' && n > 0) snprintf(out, cap, "%ld.%ld", n / 1000, (n % 1000) / 10);
    else snprintf(out, cap, "%s", v ? v : "");
}

static void write_environment(const rundata *rd, FILE *f)
{
    const csv_table *t = rd->t;
    char buf[1024];
    fprintf(f, "## Environment\n\n| | |\n|---|---|\n");
    put_env_row(f, "CPU", rd_context(rd, "cpu"));
    put_env_row(f, "Cores", rd_context(rd, "cores"));
    put_env_row(f, "SIMD", rd_context(rd, "simd"));
    const char *mem = rd_context(rd, "memory_gb");
    if (mem) snprintf(buf, sizeof buf, "%s GiB", mem);
    put_env_row(f, "Memory", mem ? buf : NULL);
    put_env_row(f, "Compiler", rd_context(rd, "compiler"));
    const char *ob = rd_context(rd, "openblas"), *core = rd_context(rd, "openblas_core");
    if (ob) snprintf(buf, sizeof buf, "%s%s%s%s", ob, core ? " (core " : "", core ? core : "", core ? ")" : "");
    put_env_row(f, "OpenBLAS", ob ? buf : NULL);
    const char *obt = rd_context(rd, "openblas_threads"), *omp = rd_context(rd, "omp_threads");
    if (obt || omp) snprintf(buf, sizeof buf, "OpenBLAS %s, OpenMP %s", obt ? obt : "?", omp ? omp : "?");
    put_env_row(f, "Threads", (obt || omp) ? buf : NULL);
    int ngpu = 0;
    for (int i = 0; i < t->ncontext; i++)
        if (strncmp(t->context[i], "gpu: ", 5) == 0) put_env_row(f, ngpu++ ? "" : "GPU", t->context[i] + 5);
    put_env_row(f, "GPU layer", rd_context(rd, "gpu_layer"));
    char drv[64], rt[64];
    cuda_version(rd_context(rd, "cuda_driver"), drv, sizeof drv);
    cuda_version(rd_context(rd, "cuda_runtime"), rt, sizeof rt);
    if (*drv || *rt) snprintf(buf, sizeof buf, "driver %s, runtime %s", *drv ? drv : "-", *rt ? rt : "-");
    put_env_row(f, "CUDA", (*drv || *rt) ? buf : NULL);
    put_env_row(f, "Host", rd_context(rd, "host"));
    put_env_row(f, "OS", rd_context(rd, "os"));
    put_env_row(f, "bench", rd_context(rd, "bench_version"));
    put_env_row(f, "git", rd_context(rd, "git"));
    const char *cmd = rd_context(rd, "command");
    if (cmd) snprintf(buf, sizeof buf, "`%s`", cmd);
    put_env_row(f, "Command", cmd ? buf : NULL);
    fputc('\n', f);
}

/* A cell holding `cmd` (a repro command), or an empty cell when there is none. */
static void put_code_cell(FILE *f, const char *cmd)
{
    char buf[700] = "";
    if (*cmd) snprintf(buf, sizeof buf, "`%s`", cmd);
    md_cell(f, buf);
}

/* "Failed checks" with every failed row and the command that re-runs it, the
 * one line saying all passed (only of a run that recorded its end), or that
 * the run has no rows (not a pass). */
static void write_checks(const rundata *rd, FILE *f)
{
    int n = rd_nrows(rd), failed = 0, skipped = 0;
    for (int i = 0; i < n; i++) {
        failed += rd_is(rd, i, COL_CHECK, "fail");
        skipped += rd_is(rd, i, COL_CHECK, "skip");
    }
    if (n == 0) {
        fprintf(f, "**No rows**: this run measured nothing, so nothing passed.\n\n");
        return;
    }
    if (!failed && !rd_recorded_end(rd)) { /* "all" would claim rows that may be missing */
        fprintf(f, "**%d checks passed** (%d skipped) in the rows recorded; the run may have had "
                   "more.\n\n", n - skipped, skipped);
        return;
    }
    if (!failed) {
        fprintf(f, "**All %d checks passed** (%d skipped).\n\n", n - skipped, skipped);
        return;
    }
    fprintf(f, "## Failed checks\n\n%d of %d checks failed (%d skipped).\n\n", failed, n - skipped, skipped);
    fprintf(f, "| suite | case | shape | backend | mode | dtype | rel err / tolerance | note | re-run |\n"
               "|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < n; i++) {
        if (!rd_is(rd, i, COL_CHECK, "fail")) continue;
        static const int COLS[] = {COL_SUITE, COL_CASE, COL_SHAPE, COL_BACKEND, COL_MODE, COL_DTYPE};
        for (int c = 0; c < 6; c++) md_cell(f, rd_str(rd, i, COLS[c]));
        char err[96] = "";
        double re = rd_num(rd, i, COL_REL_ERR), tol = rd_num(rd, i, COL_TOLERANCE);
        if (!isnan(re) || !isnan(tol)) snprintf(err, sizeof err, "%.3g / %.3g", re, tol);
        md_cell(f, err);
        md_cell(f, rd_str(rd, i, COL_NOTE));
        put_code_cell(f, rd_str(rd, i, COL_REPRO));
        fputs("|\n", f);
    }
    fputc('\n', f);
}

/* A note when the file predates some schema columns: what it lacks and what
 * that costs (no charts without device_kind/flops, no re-run commands). */
static void write_missing_columns(const rundata *rd, FILE *f)
{
    char miss[1024];
    if (!rd_missing_columns(rd, miss, sizeof miss)) return;
    fprintf(f, "> This results.csv lacks the column(s) %s (written by an older bench)%s%s. "
               "Re-run the command below for a complete report.\n\n",
            miss, rd_chartable(rd) ? "" : ": no charts are drawn",
            rd->idx[COL_REPRO] < 0 ? ", and rows carry no re-run command" : "");
}

static void write_suite_table(const rundata *rd, FILE *f, const char *suite)
{
    int has_gflops = rd_select(rd, suite, COL_GFLOPS, RD_ANY, NULL, 0) > 0;
    int has_gbps = rd_select(rd, suite, COL_GBPS, RD_ANY, NULL, 0) > 0;
    int steps = report_is_step_suite(rd, suite);
    const char *dts[2]; /* a dtype column when the suite spans dtypes: rows differ by it alone */
    int has_dtype = rd_dtypes(rd, suite, dts, 2) > 1;
    fprintf(f, "| case | shape | backend | mode |%s median ms |%s%s%s speedup | rel err / tolerance | check |\n",
            has_dtype ? " dtype |" : "", has_gflops ? " GFLOP/s |" : "", has_gbps ? " GB/s |" : "",
            steps ? " samples/s | steps/s |" : "");
    fprintf(f, "|---|---|---|---|%s---:|%s%s%s---:|---:|---|\n", has_dtype ? "---|" : "",
            has_gflops ? "---:|" : "", has_gbps ? "---:|" : "", steps ? "---:|---:|" : "");
    for (int i = 0; i < rd_nrows(rd); i++) {
        if (!rd_is(rd, i, COL_SUITE, suite)) continue;
        int emu = rd_emulated(rd, i);
        char buf[512];
        md_cell(f, rd_str(rd, i, COL_CASE));
        md_cell(f, rd_str(rd, i, COL_SHAPE));
        snprintf(buf, sizeof buf, "%s%s", rd_str(rd, i, COL_BACKEND), emu ? " (emulated)" : "");
        md_cell(f, buf);
        md_cell(f, rd_str(rd, i, COL_MODE));
        if (has_dtype) md_cell(f, rd_str(rd, i, COL_DTYPE));
        /* emulated timings are not GPU results: not shown as such */
        md_numcell(f, "%.4g", emu ? NAN : rd_num(rd, i, COL_MEDIAN_MS));
        if (has_gflops) md_numcell(f, "%.4g", emu ? NAN : rd_num(rd, i, COL_GFLOPS));
        if (has_gbps) md_numcell(f, "%.4g", emu ? NAN : rd_num(rd, i, COL_GBPS));
        if (steps) { /* a step's rate: samples (the batch) and steps per second */
            md_numcell(f, "%.4g", emu ? NAN : rd_num(rd, i, COL_SAMPLES_PER_S));
            md_numcell(f, "%.4g", emu ? NAN : 1e3 / rd_num(rd, i, COL_MEDIAN_MS));
        }
        md_numcell(f, "%.3g×", emu ? NAN : rd_num(rd, i, COL_SPEEDUP));
        double re = rd_num(rd, i, COL_REL_ERR), tol = rd_num(rd, i, COL_TOLERANCE);
        buf[0] = '\0';
        if (!isnan(re)) snprintf(buf, sizeof buf, "%.2g / %.2g", re, tol);
        md_cell(f, buf);
        const char *check = rd_str(rd, i, COL_CHECK), *note = rd_str(rd, i, COL_NOTE);
        int loud = strcmp(check, "pass") != 0; /* skip and fail say why */
        snprintf(buf, sizeof buf, "%s%s%s%s%s", loud && strcmp(check, "fail") == 0 ? "**" : "", check,
                 loud && strcmp(check, "fail") == 0 ? "**" : "", loud && *note ? ": " : "",
                 loud ? note : "");
        md_cell(f, buf);
        fputs("|\n", f);
    }
    fputc('\n', f);
}

/* The charts of this suite that exist in <dir>/plots/; when charts were
 * drawn (the folder exists), one line for each chart the suite's rows are
 * about that has none, saying why (plots_kind_absent). */
static void write_charts(const rundata *rd, FILE *f, const char *dir, const char *suite)
{
    char pdir[4300];
    snprintf(pdir, sizeof pdir, "%s/plots", dir);
    int drawn = access(pdir, F_OK) == 0;
    for (int k = 0; k < plots_nkinds(); k++) {
        if (plots_kind_per_device(k)) continue; /* the roofline: beside the Roofs section */
        char rel[256], path[4600];
        snprintf(rel, sizeof rel, "plots/%s-%s.png", plots_kind_name(k), suite);
        snprintf(path, sizeof path, "%s/%s", dir, rel);
        const char *why = drawn ? plots_kind_absent(k, rd, suite) : NULL;
        if (access(path, R_OK) == 0) fprintf(f, "![%s](%s)\n\n", plots_kind_title(k), rel);
        else if (why) fprintf(f, "*%s: no chart: %s.*\n\n", plots_kind_title(k), why);
    }
}

int report_md_write(const rundata *rd, int dirfd, const char *dir)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/report.md", dir);
    atomic_file a;
    if (af_open_at(&a, dirfd, "report.md", path)) return -1;
    FILE *f = a.f;
    if (merge_is(rd)) { /* a merge folder (bench --merge): machines side by side */
        merge_md_write(rd, f, dir);
        return af_commit(&a);
    }
    const char *utc = rd_context(rd, "utc");
    fprintf(f, "# Benchmark run %s\n\n", utc ? utc : "(time not recorded)");
    const char *stopped = rd_context(rd, "interrupted");
    const char *cut = rd_context(rd, "stopped");
    if (stopped)
        fprintf(f, "**Interrupted** (%s): this run did not finish; below are the rows it "
                   "finished.\n\n", stopped);
    else if (cut)
        fprintf(f, "**Stopped** (%s): this run did not finish; below are the rows it "
                   "finished.\n\n", cut);
    else if (!rd_recorded_end(rd))
        fprintf(f, "**Possibly incomplete**: " REPORT_UNENDED ".\n\n", rd_nrows(rd));
    findings_write(rd, f, FINDINGS_MD);
    findings_crossovers_write(rd, f);
    fprintf(f, "Every row of [results.csv](results.csv); emulated GPU rows show no timing: they are "
               "correctness runs, not GPU timings.\n\n");
    write_checks(rd, f);
    write_missing_columns(rd, f);
    write_environment(rd, f);
    report_roofs_write(rd, f);
    roofline_links_write(rd, f, dir);
    const char *suites[64];
    int ns = rd_suites(rd, suites, 64);
    for (int s = 0; s < ns; s++) {
        const char *base = NULL;
        for (int i = 0; i < rd_nrows(rd) && !base; i++)
            if (rd_is(rd, i, COL_SUITE, suites[s]) && *rd_str(rd, i, COL_BASELINE)) base = rd_str(rd, i, COL_BASELINE);
        fprintf(f, "## %s\n\n", suites[s]);
        if (base) fprintf(f, "Speedup: `%s` median ÷ this median, same shape, same run.\n\n", base);
        write_suite_table(rd, f, suites[s]);
        report_precision_write(rd, f, suites[s]);
        report_steps_write(rd, f, suites[s]);
        write_charts(rd, f, dir, suites[s]);
    }
    return af_commit(&a);
}
