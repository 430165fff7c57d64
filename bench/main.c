/* bench/main.c - the bench CLI: validate everything, then run the suites,
 * write results.csv (rows flushed as they finish), the summary, the report.
 * Exit: 0 every check passed, 1 a check failed or a case errored, 2 bad usage. */
#define _POSIX_C_SOURCE 200809L
#include "opts.h"
#include "outdir.h"
#include "run.h"
#include "suite.h"
#include "gemm_cpu.h"
#include "errmsg.h"
#include "gpu.h"
#include "gpu_cases.h"
#ifdef BENCH_HAVE_REPORT
#include "report.h"
#endif

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef BENCH_VERSION
#define BENCH_VERSION "0.0.0"
#endif

static void print_list(FILE *f)
{
    fprintf(f, "suites:\n");
    for (int i = 0; SUITES[i]; i++) {
        fprintf(f, "  %-10s %s\n    backends:", SUITES[i]->name, SUITES[i]->about);
        const char *const *names = SUITES[i]->backends();
        for (int b = 0; names[b]; b++) fprintf(f, " %s", names[b]);
        fprintf(f, "\n");
    }
}

static void print_info(const env_info *e, FILE *f)
{
    fprintf(f, "bench %s (git %s)\n", e->version, e->git);
    fprintf(f, "host:      %s (%s)\n", e->host, e->os);
    fprintf(f, "cpu:       %s, %d logical cores\n", e->cpu, e->cores);
    fprintf(f, "simd:      %s\n", e->simd);
    fprintf(f, "memory:    %.1f GiB\n", e->memory_gb);
    fprintf(f, "llc:       %.0f KiB\n", e->llc_bytes / 1024);
    fprintf(f, "compiler:  %s\n", e->compiler);
    fprintf(f, "openblas:  %s (core %s, %d threads)\n", e->openblas, e->openblas_core,
            e->openblas_threads);
    fprintf(f, "openmp:    %d threads\n", e->omp_threads);
}

/* --emulate from the CUDA (or GPU-less) build: the same command, run by
 * bench-emu, the build of bench whose GPU layer is the host emulator. */
static int exec_emulator(char **argv)
{
    char self[PATH_MAX], path[PATH_MAX + 16];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n < 0) {
        fprintf(stderr, "bench: --emulate: cannot locate this program: %s\n", strerror(errno));
        return 2;
    }
    self[n] = '\0';
    snprintf(path, sizeof path, "%s/bench-emu", dirname(self));
    execv(path, argv);
    fprintf(stderr, "bench: --emulate: cannot run %s: %s\n", path, strerror(errno));
    return 2;
}

static int known_backend(const bench_opts *o, const char *name)
{
    for (int s = 0; s < o->nsuites; s++) {
        const char *const *names = suite_find(o->suites[s])->backends();
        for (int b = 0; names[b]; b++)
            if (strcmp(names[b], name) == 0) return 1;
    }
    return 0;
}

/* Whether any selected backend runs on the GPU (names are device-variant:
 * every backend that is not cpu-* is a GPU backend). */
static int wants_gpu(const bench_opts *o)
{
    for (int s = 0; s < o->nsuites; s++) {
        const char *const *names = suite_find(o->suites[s])->backends();
        for (int b = 0; names[b]; b++)
            if (strncmp(names[b], "cpu-", 4) != 0 && suite_backend_selected(o, names[b])) return 1;
    }
    return 0;
}

/* Expands "all" and checks suites, backends, baseline. 0 or 2 with err. */
static int validate_selection(bench_opts *o, char *err, size_t errcap)
{
    int all = 0;
    for (int i = 0; i < o->nsuites; i++) all |= strcmp(o->suites[i], "all") == 0;
    if (all) {
        o->nsuites = 0;
        for (int i = 0; SUITES[i] && o->nsuites < OPT_MAX_LIST; i++)
            o->suites[o->nsuites++] = SUITES[i]->name;
    }
    for (int i = 0; i < o->nsuites; i++)
        if (!suite_find(o->suites[i])) {
            snprintf(err, errcap, "bench: unknown suite '%s' (see bench --list)", o->suites[i]);
            return 2;
        }
    for (int i = 0; i < o->nbackends; i++)
        if (!known_backend(o, o->backends[i])) {
            snprintf(err, errcap, "bench: unknown backend '%s' for the selected suites (see bench --list)",
                     o->backends[i]);
            return 2;
        }
    int sized = 0;
    for (int i = 0; i < o->nsuites; i++) sized |= suite_find(o->suites[i])->uses_sizes;
    if (o->nsizes && !sized) {
        snprintf(err, errcap, "bench: --sizes applies to none of the selected suites (matmul uses it)");
        return 2;
    }
    if (o->baseline_given && !known_backend(o, o->baseline)) {
        snprintf(err, errcap, "bench: unknown --baseline '%s' (see bench --list)", o->baseline);
        return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    bench_opts o;
    char err[1024] = "";
    if (opts_parse(argc, argv, &o, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 2;
    }
    if (o.help) {
        opts_usage(stdout);
        return 0;
    }
    if (o.version) {
        printf("bench %s\n", BENCH_VERSION);
        return 0;
    }
    if (o.list) {
        print_list(stdout);
        return 0;
    }
    if (o.emulate && strcmp(GPU_FLAVOUR, "emulator") != 0) return exec_emulator(argv);
    if (o.threads) cpu_threads_set(o.threads);
    else cpu_threads_set(cpu_threads_get());
    if (o.cuda_sync || (getenv("BENCH_CUDA_SYNC") && strcmp(getenv("BENCH_CUDA_SYNC"), "1") == 0))
        bench_cuda_sync_launches = 1;

    bench_run r;
    memset(&r, 0, sizeof r);
    r.opt = &o;
    env_collect(&r.env);
    if (o.info) {
        print_info(&r.env, stdout);
        gpu_info_print(stdout);
        return 0;
    }
    if (o.plot_dir[0]) {
#ifdef BENCH_HAVE_REPORT
        return report_rerender(o.plot_dir, o.json[0] ? o.json : NULL, !o.no_plots);
#else
        fprintf(stderr, "bench: --plot: this build has no report support\n");
        return 2;
#endif
    }

    /* --- every check on the person's input, before any work ------------ */
    if (validate_selection(&o, err, sizeof err)) goto usage;
    int total = 0;
    for (int i = 0; i < o.nsuites; i++) {
        int n = 0;
        if (suite_find(o.suites[i])->plan(&o, &n, err, sizeof err)) goto usage;
        total += n;
    }
    int use_gpu = wants_gpu(&o);
    if (use_gpu || o.device_given) gpu_probe(o.device, &r.gpu);
    if (r.gpu.bad_device) {
        snprintf(err, sizeof err, "bench: bad --device %d: %s", o.device, r.gpu.why);
        goto usage;
    }
    char outdir[PATH_MAX];
    if (outdir_choose(o.out, outdir, sizeof outdir, err, sizeof err)) goto usage;
    if (o.json[0] && outdir_check_file(o.json, err, sizeof err)) goto usage;

    /* --- the run --------------------------------------------------------- */
    r.mcfg = measure_cfg_default();
    r.emu_cfg = r.mcfg;
    r.emu_cfg.warmup = 0;
    r.emu_cfg.min_reps = r.emu_cfg.max_reps = 1;
    r.emu_cfg.min_time_s = 0;
    if (o.quick) {
        r.mcfg.min_time_s = 0.1;
        r.mcfg.budget_s = 3.0;
    }
    if (o.min_time_s >= 0) r.mcfg.min_time_s = o.min_time_s;
    if (o.reps) { /* exactly N: no time rule, no budget */
        r.mcfg.min_reps = r.mcfg.max_reps = o.reps;
        r.mcfg.min_time_s = 0;
        r.mcfg.budget_s = INFINITY;
    }
    char csvpath[PATH_MAX + 16];
    snprintf(csvpath, sizeof csvpath, "%s/results.csv", outdir);
    int existed = access(outdir, F_OK) == 0;
    if (outdir_mkdirs(outdir) != 0) {
        fprintf(stderr, "bench: cannot create --out '%s'\n", outdir);
        return 2;
    }
    char ctx[24][ENV_LINE];
    int nctx = 0;
    env_context_lines(&r.env, o.command, ctx, &nctx, 24);
    gpu_context_lines(ctx, &nctx, 24);
    const char *ctxp[24];
    for (int i = 0; i < nctx; i++) ctxp[i] = ctx[i];
    r.csv = csv_writer_open(csvpath, ctxp, nctx);
    if (!r.csv) {
        fprintf(stderr, "bench: cannot write '%s': %s\n", csvpath, strerror(errno));
        if (!existed) rmdir(outdir); /* leave nothing behind */
        return 2;
    }
    outdir_link_latest(outdir);
    if (use_gpu && !r.gpu.usable) fprintf(stderr, "bench: GPU cases skipped: %s\n", r.gpu.why);
    else if (use_gpu && r.gpu.emulated)
        fprintf(stderr, "bench: GPU cases run on the CUDA host emulator: correctness only, "
                        "their timings mean nothing\n");
    progress_init(&r.prog, total);
    for (int i = 0; i < o.nsuites; i++) {
        const suite_def *d = suite_find(o.suites[i]);
        if (d->run(&r)) r.io_error = 1;
    }
    progress_end(&r.prog);
    gpu_cases_release();
    if (csv_writer_close(r.csv)) r.io_error = 1;
    run_print_summary(&r, stdout);
    printf("results: %s\n", csvpath);
#ifdef BENCH_HAVE_REPORT
    if (report_finish(outdir, o.json[0] ? o.json : NULL, !o.no_plots)) r.io_error = 1;
#endif
    int rc = (r.failed || r.io_error) ? 1 : 0;
    run_free(&r);
    return rc;

usage:
    fprintf(stderr, "%s\n", err);
    return 2;
}
