/* bench/main.c - the bench CLI: validate everything, then run the suites,
 * write results.csv (rows flushed as they finish), the summary, the report.
 * Exit: 0 every check passed, 1 a check failed or a case errored, 2 bad usage. */
#define _POSIX_C_SOURCE 200809L
#include "mode.h"
#include "opts.h"
#include "outdir.h"
#include "plot.h"
#include "run.h"
#include "registry.h"
#include "gemm_cpu.h"
#include "conv_cpu.h"
#include "errmsg.h"
#include "gpu.h"
#include "gpu_exec.h"
#include "gpu_handles.h"
#include "gpu_mode.h"
#include "interrupt.h"
#include "job.h"
#include "schema.h"
#include "plan.h"
#include "repro.h"
#include "select.h"
#ifdef BENCH_HAVE_REPORT
#include "report.h"
#endif

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <unistd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef BENCH_VERSION
#define BENCH_VERSION "0.0.0"
#endif

static void print_list(FILE *f, const bench_opts *o)
{
    fprintf(f, "suites:\n");
    for (int i = 0; SUITES[i].def; i++) {
        const suite_def *d = SUITES[i].def;
        int chosen = 0;
        for (int k = 0; k < o->nsuites; k++) chosen |= strcmp(o->suites[k], d->name) == 0;
        if (!chosen) continue;
        fprintf(f, "  %-10s %s\n", d->name, d->about);
        fprintf(f, "    problems (--sizes): %s\n", d->problem_help);
        if (d->default_baseline) fprintf(f, "    baseline: %s\n", d->default_baseline);
        fprintf(f, "    gpu modes:");
        const char *const *own = d->modes;
        for (int m = 0; own ? own[m] != NULL : GPU_MODES[m].name != NULL; m++)
            if (own || gpu_mode_applies(&GPU_MODES[m], suite_step_count(d)))
                fprintf(f, " %s", own ? own[m] : GPU_MODES[m].name);
        fprintf(f, "\n");
        if (d->dp_open) {
            fprintf(f, "    data-parallel modes (CPU backends; mpirun -np N):");
            for (int m = 0; DP_MODES[m].name; m++) fprintf(f, " %s", DP_MODES[m].name);
            fprintf(f, "\n");
        }
        for (int b = 0; BACKENDS[b].name; b++) {
            const backend_def *k = &BACKENDS[b];
            char needs[64];
            if (strcmp(k->op, d->op) != 0) continue;
            backend_needs_str(k->needs, needs, sizeof needs);
            char dts[64];
            fprintf(f, "    %-13s %-4s %-19s needs %-16s %s\n", k->name, dev_kind_name(k->dev),
                    dtype_list(k->dtypes, ",", dts, sizeof dts), needs, k->about);
        }
    }
}

static void print_info(const env_info *e, FILE *f)
{
    fprintf(f, "bench %s (git %s)\n", e->version, e->git);
    fprintf(f, "host:      %s (%s)\n", e->host, e->os);
    fprintf(f, "cpu:       %s, %d logical cores (%d usable by this process)\n", e->cpu, e->cores,
            e->usable_cpus);
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

/* Warnings found while the input is checked are held until every check has
 * passed: a refusal is then the one line a person reads (rule: bad input gets
 * one line), and a run that goes ahead shows them. */
static char notices[4096];
static size_t nnotices;

static void notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void notice(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (nnotices < sizeof notices) {
        int n = vsnprintf(notices + nnotices, sizeof notices - nnotices, fmt, ap);
        if (n > 0) nnotices += (size_t)n;
        if (nnotices >= sizeof notices) nnotices = sizeof notices - 1;
    }
    va_end(ap);
}

static void notices_flush(void)
{
    if (comm_rank() == 0) fputs(notices, stderr);
    nnotices = 0;
    notices[0] = '\0';
}

/* Prints a usage error as the one line it is: a control character in a
 * value the person gave (a newline in --suite) is shown escaped. */
static void print_err(const char *err)
{
    if (comm_rank() != 0) return; /* every rank found the same: rank 0 says it */
    for (const unsigned char *p = (const unsigned char *)err; *p; p++)
        if (*p < 0x20 || *p == 0x7f) fprintf(stderr, "\\x%02x", *p);
        else fputc(*p, stderr);
    fputc('\n', stderr);
}

#define MAX_PROBLEMS PLAN_MAX_PROBLEMS

static void notice_line(const char *line)
{
    notice("%s", line);
}

/* The problems of each selected suite, planned by harness/plan.c. 0 or 2 with err. */
static int plan_run(const bench_opts *o, const selection *sel, const runner *r,
                    problem (*probs)[MAX_PROBLEMS], int *nprobs, char *err, size_t errcap)
{
    plan_suite suites[OPT_MAX_LIST];
    for (int s = 0; s < o->nsuites; s++) suites[s] = select_plan_suite(sel, s);
    plan_request q = {
        .suites = suites, .nsuites = o->nsuites, .sizes = o->sizes, .nsizes = o->nsizes,
        .quick = o->quick, .big = r->gpu->usable && !r->gpu->emulated && select_wants_gpu(sel),
        .mem = env_memory_bytes(), .llc_bytes = r->llc_bytes, .notice = notice_line,
    };
    return plan_problems(&q, probs, nprobs, err, errcap);
}

static int emit_nothing(void *ctx, const result_row *row)
{
    (void)ctx;
    (void)row;
    return 0;
}

/* A rank other than 0: the same cases (the runner keeps the ranks in step),
 * nothing written; rank 0's exit status. */
static int follow(bench_run *r, const bench_opts *o, problem probs[][MAX_PROBLEMS],
                  const int *nprobs)
{
    int stop = 0;
    progress_init(&r->prog, 0);
    r->prog.tty = 0;
    for (int i = 0; i < o->nsuites && !stop; i++)
        stop = runner_run(&r->run, suite_find(o->suites[i]), probs[i], nprobs[i]);
    gpu_handles_release_all();
    run_free(r);
    return job_end(0);
}

int main(int argc, char **argv)
{
    bench_opts o;
    char err[1024] = "";
    job_std_fds();
    if (opts_parse(argc, argv, &o, err, sizeof err)) {
        print_err(err);
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
    const selection sel = {
        .suite_table = SUITES, .backend_table = BACKENDS,
        .suites = o.suites, .nsuites = &o.nsuites, .max_suites = OPT_MAX_LIST,
        .backends = o.backends, .nbackends = o.nbackends, .modes = o.modes,
        .nmodes = o.nmodes, .baseline = o.baseline, .dtypes = o.dtypes, .devices = o.devices,
    };
    if (o.list) { /* --suite narrows it; an unknown name is a usage error as anywhere */
        if (select_validate(&sel, err, sizeof err)) goto usage;
        print_list(stdout, &o);
        return 0;
    }
    if (o.columns) {
        schema_print_markdown(stdout);
        return 0;
    }
    if (o.emulate && strcmp(GPU_FLAVOUR, "emulator") != 0) return exec_emulator(argv);
    /* bench's emulated cases keep the emulator's purely lazy streams (its
     * progress thread would run queued work while the host computes a
     * reference, and hide a missing synchronization); a user's own setting wins */
    int emu_progress_set = getenv("CUDAEMU_PROGRESS_MS") != NULL;
    if (strcmp(GPU_FLAVOUR, "emulator") == 0 && !emu_progress_set) setenv("CUDAEMU_PROGRESS_MS", "0", 0);
    if (env_threads_check(OPT_MAX_THREADS, err, sizeof err)) goto usage;
    if (conv_cpu_omp_check_env(err, sizeof err)) goto usage;
    {   /* the chart scripts' folder goes into gnuplot's parameters: bounded, quotable */
        const char *pd = getenv("BENCH_PLOTS_DIR");
        if (pd && strlen(pd) > 4000) {
            snprintf(err, sizeof err, "bench: BENCH_PLOTS_DIR is %zu characters long, more than "
                     "the limit of 4000", strlen(pd));
            goto usage;
        }
        if (pd && outdir_name_ok("BENCH_PLOTS_DIR", pd, err, sizeof err)) goto usage;
    }
    interrupt_install();
    if (o.threads) cpu_threads_set(o.threads);
    else cpu_threads_set(cpu_threads_get());
    if (o.cuda_sync || (getenv("BENCH_CUDA_SYNC") && strcmp(getenv("BENCH_CUDA_SYNC"), "1") == 0))
        bench_cuda_sync_launches = 1;

    static bench_run r;
    static problem probs[OPT_MAX_LIST][MAX_PROBLEMS];
    int nprobs[OPT_MAX_LIST];
    memset(&r, 0, sizeof r);
    r.opt = &o;
    env_collect(&r.env);
    if (o.info) {
        print_info(&r.env, stdout);
        gpu_info_print(stdout);
        return 0;
    }
    if (o.plot_dir[0]) return plot_main(&o);

    /* --- every check on the person's input, before any work ------------ */
    if (comm_init(&argc, &argv)) { /* MPI, when launched as one rank of several */
        snprintf(err, sizeof err, "bench: %s", err_get());
        goto usage;
    }
    if (select_validate(&sel, err, sizeof err) || select_check(&sel, err, sizeof err) ||
        opts_check_needs(&o, &sel, select_has(&sel), SEL_BEFORE_PLAN, err, sizeof err))
        goto usage;
    runner *run = &r.run;
    run->registry = BACKENDS;
    run->backends = o.backends;
    run->nbackends = o.nbackends;
    run->modes = o.modes;
    run->nmodes = o.nmodes;
    run->baseline = o.baseline;
    run->named_problems = o.nsizes > 0;
    /* precision: all of a suite's dtypes in full default sweeps; fp32 where
     * problems are named or the sweep is a smoke run (--quick) */
    run->dtypes = o.dtypes ? o.dtypes
                           : (o.nsizes > 0 || o.quick ? DTYPE_BIT(DTYPE_FP32) : DTYPES_FLOAT);
    run->gpu = &r.gpu;
    run->gpu_open = gpu_exec_open;
    run->gpu_recover = gpu_recover_device;
    run->gpu_sync = gpu_stream_sync;
    run->llc_bytes = r.env.llc_bytes;
    run->cpu_name = r.env.cpu;
    run->threads = cpu_threads_get();
    run->blas_threads = cpu_threads_blas();
    {   /* OPENBLAS_NUM_THREADS cannot differ: every CPU backend runs one count */
        const char *ob = getenv("OPENBLAS_NUM_THREADS");
        if (ob && atoi(ob) != run->threads)
            notice("bench: OPENBLAS_NUM_THREADS=%s is not used: every CPU backend, "
                            "cpu-blas included, runs %d threads (--threads N sets them)\n",
                    ob, run->threads);
        if (run->threads > r.env.usable_cpus)
            notice("bench: %d threads on %d usable CPU%s (affinity or cgroup quota): "
                            "threads share cores and times suffer; --threads %d fits\n",
                    run->threads, r.env.usable_cpus, r.env.usable_cpus == 1 ? "" : "s",
                    r.env.usable_cpus);
    }
    if (run->blas_threads < run->threads)
        notice("bench: OpenBLAS runs at most %d threads (its build's limit), not %d: "
                        "its rows say so\n", run->blas_threads, run->threads);
    const int lead = comm_rank() == 0;
    run->prog = &r.prog;
    run->emit = lead ? run_emit : emit_nothing;
    run->emit_ctx = &r;
    run->bucket_mb = o.bucket_mb;
    run->devices = o.devices;
    static comm_ops world;
    if (comm_size() > 1) { /* launched as one rank of several: MPI is running */
        if (comm_mpi_ops(&world, run->comm_why, sizeof run->comm_why) == 0) run->comm = &world;
    } else if (select_wants_comm(&sel)) { /* one replica: no engine, no MPI to start */
        comm_none_ops(&world);
        run->comm = &world;
        snprintf(run->comm_why, sizeof run->comm_why, "one process: launch with mpirun -np N "
                 "(N >= 2) or srun to measure MPI between ranks");
    }
    int use_gpu = select_wants_gpu(&sel);
    if (use_gpu || o.device_given) gpu_probe(o.device, &r.gpu);
    if (o.device_given && !r.gpu.usable && !r.gpu.bad_device) {
        snprintf(err, sizeof err, "bench: --device %d: no such GPU (%s)", o.device, r.gpu.why);
        goto usage;
    }
    if (r.gpu.bad_device) {
        snprintf(err, sizeof err, "bench: bad --device %d: %s", o.device, r.gpu.why);
        goto usage;
    }
    if (plan_run(&o, &sel, run, probs, nprobs, err, sizeof err)) goto usage;
    int total = 0, ncases[OPT_MAX_LIST];
    for (int i = 0; i < o.nsuites; i++) total += ncases[i] = runner_count(run, suite_find(o.suites[i]), nprobs[i]);
    for (int i = 0; i < o.nsuites && total > 0; i++)
        if (ncases[i] == 0 && nprobs[i] > 0 && (o.nbackends || o.nmodes))
            notice("bench: %s: none of the selected backends and modes is one of its "
                            "(see bench --list): nothing to run\n", o.suites[i]);
    if (total == 0) {
        snprintf(err, sizeof err, "bench: the selection runs nothing: no selected suite has a "
                                  "problem with a selected backend and mode (see bench --list)");
        goto usage;
    }
    char outdir[PATH_MAX] = "";
    if (lead && outdir_choose(o.out, o.force, outdir, sizeof outdir, err, sizeof err)) goto usage;
    if (lead && o.json[0] && outdir_check_json(o.json, outdir, err, sizeof err)) goto usage;
    if (opts_check_needs(&o, &sel, select_has_steps(&sel, ncases), SEL_STEPS, err, sizeof err))
        goto usage;
    if (lead && o.dump[0] && outdir_check_dump(o.dump, outdir, err, sizeof err)) goto usage;

    /* --- the run --------------------------------------------------------- */
    run->mcfg = measure_cfg_default();
    run->emu_cfg = run->mcfg;
    run->emu_cfg.warmup = 0;
    run->emu_cfg.min_reps = run->emu_cfg.max_reps = 1;
    run->emu_cfg.min_time_s = 0;
    if (o.quick) {
        run->mcfg.min_time_s = 0.1;
        run->mcfg.budget_s = 3.0;
    }
    if (o.min_time_s >= 0) run->mcfg.min_time_s = o.min_time_s;
    if (o.reps) { /* exactly N: no time rule, no budget */
        run->mcfg.min_reps = run->mcfg.max_reps = o.reps;
        run->mcfg.min_time_s = 0;
        run->mcfg.budget_s = INFINITY;
    }
    {   /* what else a row's repro needs to re-run it the same way */
        static char repro_env[256], repro_extra[160];
        repro_run rr = {
            .emulated = r.gpu.emulated, .emu_progress_set = emu_progress_set,
            .device_given = o.device_given, .device = o.device,
            .cuda_sync = bench_cuda_sync_launches, .steps = o.steps, .baseline = o.baseline,
            .devices = o.devices, .bucket_mb = o.bucket_mb,
        };
        repro_run_parts(&rr, repro_env, sizeof repro_env, repro_extra, sizeof repro_extra);
        if (*repro_extra) run->repro_extra = repro_extra;
        if (*repro_env) run->repro_env = repro_env;
    }
    char csvpath[PATH_MAX + 16];
    if (lead && interrupt_signal()) { /* during the checks: nothing was made yet */
        fprintf(stderr, "bench: interrupted by %s before the run began: nothing written\n",
                interrupt_name(interrupt_signal()));
        return job_end(job_verdict(128 + interrupt_signal()));
    }
    notices_flush();
    if (!lead) { /* rank 0 makes the run folder; the others wait for its word */
        int v = job_verdict(0);
        if (v) return job_end(v);
        return follow(&r, &o, probs, nprobs);
    }
    int claim = outdir_claim(outdir, sizeof outdir, !o.out[0], o.force, err, sizeof err);
    if (claim) {
        print_err(err);
        return job_end(job_verdict(claim));
    }
    snprintf(csvpath, sizeof csvpath, "%s/results.csv", outdir);
    if (o.dump[0]) {
        int d = outdir_make_dump(o.dump, err, sizeof err); /* undoes the claim on failure */
        if (d) {
            print_err(err);
            return job_end(job_verdict(d));
        }
        run->dump_dir = o.dump;
    }
    run->trace_steps = o.steps;
    if (o.steps > 20 && r.gpu.emulated)
        fprintf(stderr, "bench: --steps %d on the emulator: every emulated case runs %d steps "
                        "(minutes each at batch 64 and above)\n", o.steps, o.steps);
    char ctx[24][ENV_LINE];
    int nctx = 0;
    env_context_lines(&r.env, o.command, ctx, &nctx, 24);
    gpu_context_lines(ctx, &nctx, 24);
    if (comm_size() > 1 && nctx < 24) /* the job's ranks and their MPI */
        snprintf(ctx[nctx++], ENV_LINE, "mpi: %d ranks, %s", comm_size(), comm_mpi_version());
    const char *ctxp[24];
    for (int i = 0; i < nctx; i++) ctxp[i] = ctx[i];
    r.csv = csv_writer_open(csvpath, ctxp, nctx);
    if (!r.csv) {
        fprintf(stderr, "bench: cannot write '%s': %s\n", csvpath, strerror(errno));
        outdir_undo();
        return job_end(job_verdict(1)); /* a write failure (a full disk), not bad usage */
    }
    outdir_link_latest(outdir);
    job_verdict(0);
    if (use_gpu && !r.gpu.usable) fprintf(stderr, "bench: GPU cases skipped: %s\n", r.gpu.why);
    else if (use_gpu && r.gpu.emulated)
        fprintf(stderr, "bench: GPU cases run on the CUDA host emulator: correctness only, "
                        "their timings mean nothing\n");
    progress_init(&r.prog, total);
    int stop = 0;
    for (int i = 0; i < o.nsuites && !stop; i++)
        stop = runner_run(run, suite_find(o.suites[i]), probs[i], nprobs[i]);
    progress_end(&r.prog);
    interrupt_set_activity("writing the report (results.csv is complete)");
    gpu_handles_release_all();
    int sig = interrupt_signal();
    char line[64];
    if (sig) {
        snprintf(line, sizeof line, "interrupted: %s", interrupt_name(sig));
        if (csv_write_context(r.csv, line)) stop = -1;
    }
    snprintf(line, sizeof line, "finished: %d rows", r.nrows); /* the run recorded its end */
    if (stop >= 0 && !r.io_error && csv_write_context(r.csv, line)) stop = -1;
    if (run->dump_error[0]) /* the rows so far are whole; the run stopped there */
        fprintf(stderr, "bench: %s; the run stopped after %d rows\n", run->dump_error, r.nrows);
    else if (stop < 0 || r.io_error)
        fprintf(stderr, "bench: writing '%s' failed: %s; it keeps the %d whole rows written "
                        "before, and the run stopped\n",
                csvpath, csv_writer_error(r.csv), r.nrows);
    if (csv_writer_close(r.csv)) r.io_error = 1;
#ifdef BENCH_HAVE_REPORT
    /* the report before stdout: a closed stdout must never cost it */
    if (report_finish(outdir, o.json[0] ? o.json : NULL, !o.no_plots)) r.io_error = 1;
#endif
    run_print_summary(&r, stdout);
    printf("results: %s\n", csvpath);
    if (fflush(stdout) != 0 && errno == EPIPE) interrupt_raise_pipe(); /* SIGPIPE ignored */
    int rc = (r.failed || r.io_error || stop < 0) ? 1 : 0;
    interrupt_done(); /* the closing line follows: the watcher stays quiet */
    if (!sig && interrupt_signal()) { /* every case finished; the report was cut short */
        int s2 = interrupt_signal();
        if (s2 != SIGPIPE) /* a closed stdout cost only the summary */
            fprintf(stderr, "bench: interrupted by %s while writing the report: all %d rows are "
                            "in %s; charts or report.md may be missing (bench --plot %s redraws "
                            "them)\n", interrupt_name(s2), r.nrows, csvpath, outdir);
        else
            fprintf(stderr, "bench: stdout was closed (%s): the summary was not shown; all %d "
                            "rows and the report are in %s\n", interrupt_name(s2), r.nrows, outdir);
        run_free(&r);
        return job_end(128 + s2);
    }
    if (sig) {
        fprintf(stderr, "bench: interrupted by %s: %d finished rows kept in %s\n",
                interrupt_name(sig), r.nrows, outdir);
        rc = 128 + sig;
    }
    run_free(&r);
    return job_end(rc);

usage:
    print_err(err);
    outdir_undo(); /* exit 2 leaves nothing behind */
    return job_end(job_verdict(2));
}
