/* bench/run.c - one run: its set-up from the options, emitting rows, the
 * summary table, its end. */
#define _POSIX_C_SOURCE 200809L
#include "run.h"
#include "cli.h"
#include "disturb.h"
#include "energy_gpu.h"
#include "comm.h"
#include "errmsg.h"
#include "gemm_cpu.h"
#include "gpu_exec.h"
#include "gpu_handles.h"
#include "interrupt.h"
#include "job.h"
#include "machine.h"
#include "outdir.h"
#include "registry.h"
#include "repro.h"
#include "summary.h"
#ifdef BENCH_HAVE_REPORT
#include "report.h"
#endif

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

int run_emit(void *ctx, const result_row *row)
{
    bench_run *r = (bench_run *)ctx;
    int rc = csv_write_row(r->csv, row);
    if (rc) { /* not written: not in the summary either */
        r->io_error = 1;
        return -1;
    }
    if (strcmp(row->check, "fail") == 0) r->failed++;
    if (r->nrows == r->cap) {
        int cap = r->cap ? r->cap * 2 : 64;
        result_row *p = realloc(r->rows, (size_t)cap * sizeof *p);
        if (!p) return -1;
        r->rows = p;
        r->cap = cap;
    }
    r->rows[r->nrows] = *row;
    r->rows[r->nrows].samples = NULL;
    r->rows[r->nrows].nsamples = 0;
    r->nrows++;
    return rc;
}

static void fmt_num(char *buf, size_t cap, double v, const char *fmt)
{
    if (isnan(v)) snprintf(buf, cap, "-");
    else snprintf(buf, cap, fmt, v);
}

void run_print_summary(const bench_run *r, FILE *f)
{
    fprintf(f, "%-9s %-16s %-15s %-12s %-5s %-18s %10s %12s %9s %-5s\n", "suite", "case",
            "shape", "backend", "dtype", "mode", "median_ms", "throughput", "speedup", "check");
    for (int i = 0; i < r->nrows; i++) {
        const result_row *w = &r->rows[i];
        char med[24], gf[32], sp[24];
        /* emulated rows: no timing, no throughput (the emulator's time is
         * not a GPU's); throughput in the unit the row counts its work in */
        fmt_num(med, sizeof med, w->emulated ? NAN : w->median_ms, "%.4g");
        if (w->emulated) fmt_num(gf, sizeof gf, NAN, "");
        else if (!isnan(w->gflops)) fmt_num(gf, sizeof gf, w->gflops, "%.4g GFLOP/s");
        else fmt_num(gf, sizeof gf, w->gbps, "%.4g GB/s");
        fmt_num(sp, sizeof sp, w->speedup, "%.3gx");
        fprintf(f, "%-9s %-16s %-15s %-12s %-5s %-18s %10s %12s %9s %-5s%s\n", w->suite,
                w->case_name, w->shape, w->backend, w->dtype, w->mode, med, gf, sp, w->check,
                w->emulated ? " (emulated)" : w->disturbed ? " (disturbed)" : "");
    }
    int skipped = 0;
    for (int i = 0; i < r->nrows; i++) skipped += strcmp(r->rows[i].check, "skip") == 0;
    fprintf(f, "%d rows: %d passed, %d failed, %d skipped\n", r->nrows,
            r->nrows - r->failed - skipped, r->failed, skipped);
    char quiet[128];
    run_quiet_line(r, quiet, sizeof quiet);
    fprintf(f, "quiet: %s%s\n", quiet,
            strncmp(quiet, "no", 2) == 0 ? " (something else ran: see the rows' notes)" : "");
}

void run_quiet_line(const bench_run *r, char *buf, size_t cap)
{
    int timed = 0, disturbed = 0, retried = 0;
    for (int i = 0; i < r->nrows; i++) {
        const result_row *w = &r->rows[i];
        if (w->tries <= 0 || w->emulated) continue; /* not timed, or not judged */
        timed++;
        disturbed += w->disturbed != 0;
        retried += w->tries > 1;
    }
    disturb_quiet_line(buf, cap, timed, disturbed, retried);
}

void run_free(bench_run *r)
{
    free(r->rows);
    r->rows = NULL;
    r->nrows = r->cap = 0;
    energy_gpu_close(energy_gpu_use()); /* NVML shut down, when it was opened */
}

static int emit_nothing(void *ctx, const result_row *row)
{
    (void)ctx;
    (void)row;
    return 0;
}

void run_setup(bench_run *r, const selection *s)
{
    const bench_opts *o = r->opt;
    runner *run = &r->run;
    run->registry = s->backend_table;
    run->backends = o->backends;
    run->nbackends = o->nbackends;
    run->modes = o->modes;
    run->nmodes = o->nmodes;
    run->baseline = o->baseline;
    run->named_problems = o->nsizes > 0;
    /* precision: all of a suite's dtypes in full default sweeps; fp32 where
     * problems are named or the sweep is a smoke run (--quick) */
    run->dtypes = o->dtypes ? o->dtypes
                            : (o->nsizes > 0 || o->quick ? DTYPE_BIT(DTYPE_FP32) : DTYPES_FLOAT);
    run->allocs = o->allocs;
    run->gpu = &r->gpu;
    run->gpu_open = gpu_exec_open;
    run->gpu_recover = gpu_recover_device;
    run->gpu_sync = gpu_stream_sync;
    run->gpu_props = gpu_props_get;
    run->gpu_launch_us = gpu_launch_us;
    run->llc_bytes = r->env.llc_bytes;
    run->cpu_name = r->env.cpu;
    run->threads = cpu_threads_get();
    run->blas_threads = cpu_threads_blas();
    /* OPENBLAS_NUM_THREADS cannot differ: every CPU backend runs one count */
    const char *ob = getenv("OPENBLAS_NUM_THREADS");
    if (ob && atoi(ob) != run->threads)
        cli_notice("bench: OPENBLAS_NUM_THREADS=%s is not used: every CPU backend, cpu-blas "
                   "included, runs %d threads (--threads N sets them)\n", ob, run->threads);
    if (run->threads > r->env.usable_cpus)
        cli_notice("bench: %d threads on %d usable CPU%s (affinity or cgroup quota): threads "
                   "share cores and times suffer; --threads %d fits\n", run->threads,
                   r->env.usable_cpus, r->env.usable_cpus == 1 ? "" : "s", r->env.usable_cpus);
    if (run->blas_threads < run->threads)
        cli_notice("bench: OpenBLAS runs at most %d threads (its build's limit), not %d: its rows "
                   "say so\n", run->blas_threads, run->threads);
    run->prog = &r->prog;
    run->emit = comm_rank() == 0 ? run_emit : emit_nothing;
    run->emit_ctx = r;
    run->bucket_mb = o->bucket_mb;
    run->trace_steps = o->steps; /* every rank: a replicated step traces on all or none */
    run->devices = o->devices;
    run->workers = o->workers;
    static comm_ops world;
    if (comm_size() > 1) { /* launched as one rank of several: MPI is running */
        if (comm_mpi_ops(&world, run->comm_why, sizeof run->comm_why) == 0) run->comm = &world;
    } else if (select_wants_comm(s)) { /* one replica: no engine, no MPI to start */
        comm_none_ops(&world);
        run->comm = &world;
        snprintf(run->comm_why, sizeof run->comm_why, "one process: launch with mpirun -np N "
                 "(N >= 2) or srun to measure MPI between ranks");
    }
}

int run_plan(bench_run *r, const selection *s, problem (*probs)[PLAN_MAX_PROBLEMS], int *nprobs,
             char *err, size_t errcap)
{
    const bench_opts *o = r->opt;
    plan_suite suites[OPT_MAX_LIST];
    for (int i = 0; i < o->nsuites; i++) suites[i] = select_plan_suite(s, i);
    plan_request q = {
        .suites = suites, .nsuites = o->nsuites, .sizes = o->sizes, .nsizes = o->nsizes,
        .quick = o->quick, .big = r->gpu.usable && !r->gpu.emulated && select_wants_gpu(s),
        /* the ranks on this node share its memory */
        .mem = env_memory_bytes() / comm_local_size(), .llc_bytes = r->run.llc_bytes, .notice = cli_notice_line,
    };
    return plan_problems(&q, probs, nprobs, err, errcap);
}

void run_prepare(bench_run *r, int emu_progress_set)
{
    const bench_opts *o = r->opt;
    runner *run = &r->run;
    run->mcfg = measure_cfg_default();
    run->emu_cfg = run->mcfg;
    run->emu_cfg.warmup = 0;
    run->emu_cfg.min_reps = run->emu_cfg.max_reps = 1;
    run->emu_cfg.min_time_s = 0;
    if (o->quick) {
        run->mcfg.min_time_s = 0.1;
        run->mcfg.budget_s = 3.0;
    }
    if (o->min_time_s >= 0) run->mcfg.min_time_s = o->min_time_s;
    run->rounds = o->rounds;
    if (o->reps) { /* exactly N: no time rule, no budget */
        run->mcfg.min_reps = run->mcfg.max_reps = o->reps;
        run->mcfg.min_time_s = 0;
        run->mcfg.budget_s = INFINITY;
    }
    run->mcfg.neighbour = o->neighbour; /* emulated rows: not (emu_cfg) */
    /* what else a row's repro needs to re-run it the same way */
    static char repro_env[256], repro_extra[160];
    repro_run rr = {
        .emulated = r->gpu.emulated, .emu_progress_set = emu_progress_set,
        .device_given = o->device_given, .device = o->device,
        .cuda_sync = bench_cuda_sync_launches, .steps = o->steps, .baseline = o->baseline,
        .devices = o->devices, .bucket_mb = o->bucket_mb, .workers = o->workers,
    };
    repro_run_parts(&rr, repro_env, sizeof repro_env, repro_extra, sizeof repro_extra);
    if (*repro_extra) run->repro_extra = repro_extra;
    if (*repro_env) run->repro_env = repro_env;
}

/* What asked this run for a GPU, in words for the refusal ("--require-gpu",
 * "--device 1", "--backend cuda-regtile": a backend whose registry row runs
 * on the GPU), or NULL: then GPU cases without a GPU are skip rows. */
static const char *gpu_asked(const bench_opts *o, const selection *s, char *buf, size_t cap)
{
    if (o->require_gpu) return "--require-gpu";
    if (o->device_given) {
        snprintf(buf, cap, "--device %d", o->device);
        return buf;
    }
    for (int i = 0; i < o->nbackends; i++)
        for (const backend_def *b = s->backend_table; b->name; b++)
            if (b->dev == DEV_GPU && strcmp(b->name, o->backends[i]) == 0) {
                snprintf(buf, cap, "--backend %s", b->name);
                return buf;
            }
    return NULL;
}

int run_probe(bench_run *r, const selection *s, char *err, size_t errcap)
{
    const bench_opts *o = r->opt;
    char asked_buf[96];
    const char *asked = gpu_asked(o, s, asked_buf, sizeof asked_buf);
    r->use_gpu = select_wants_gpu(s);
    if (r->use_gpu || o->device_given) gpu_probe(o->device, &r->gpu);
    if (r->gpu.bad_device) {
        snprintf(err, errcap, "bench: bad --device %d: %s", o->device, r->gpu.why);
        return 2;
    }
    /* asked for a GPU and none answers: the machine, not the input, so 1,
     * never a run of skip rows that "passes" having run nothing */
    if (asked && !r->gpu.usable) {
        snprintf(err, errcap, "bench: %s needs a usable GPU and there is none: %s", asked,
                 r->gpu.why);
        return 1;
    }
    return 0;
}

/* A context line per backend of the registry that runs below what it could
 * on this machine (backend_def.caveat), once per name: "caveat-NAME: why".
 * The gate leaves such a backend's speedups out (ci/gate.c, caveat_of). */
static void caveat_context_lines(const backend_def *reg, char (*ctx)[ENV_LINE], int *n, int max)
{
    for (const backend_def *b = reg; b && b->name; b++) {
        const char *why = b->caveat ? b->caveat() : NULL;
        int seen = 0;
        for (const backend_def *a = reg; a < b; a++) seen |= strcmp(a->name, b->name) == 0;
        if (why && *why && !seen && *n < max) snprintf(ctx[(*n)++], ENV_LINE, "caveat-%s: %s", b->name, why);
    }
}

/* The GPU energy source of the run (energy_gpu.h): NVML for a real GPU, or
 * none and why. */
static void gpu_energy_open(const bench_run *r)
{
    energy_gpu *g = energy_gpu_use();
    char why[300];
    if (strcmp(GPU_FLAVOUR, "none") == 0) {
        snprintf(why, sizeof why, "no GPU layer: %s", r->gpu.why[0] ? r->gpu.why : "built without the CUDA toolkit");
        energy_gpu_none(g, why);
    } else if (!r->use_gpu) {
        energy_gpu_none(g, "this run has no GPU case");
    } else if (!r->gpu.usable) {
        snprintf(why, sizeof why, "no usable GPU: %s", r->gpu.why);
        energy_gpu_none(g, why);
    } else if (r->gpu.emulated) {
        energy_gpu_none(g, "emulated: the CUDA host emulator runs GPU rows on the CPU, so they get "
                           "no energy");
    } else {
        energy_gpu_open(g, NULL, r->gpu.pci, r->gpu.device);
    }
}

int run_open(bench_run *r, const char *outdir, const char *csvpath)
{
    const bench_opts *o = r->opt;
    if (o->steps > 20 && r->gpu.emulated)
        fprintf(stderr, "bench: --steps %d on the emulator: every emulated case runs %d steps "
                        "(minutes each at batch 64 and above)\n", o->steps, o->steps);
    char ctx[48][ENV_LINE];
    int nctx = 0;
    env_context_lines(&r->env, o->command, ctx, &nctx, 48);
    gpu_context_lines(ctx, &nctx, 48);
    roofs_context_lines(&r->roofs, ctx, &nctx, 48);
    caveat_context_lines(r->run.registry, ctx, &nctx, 48);
    gpu_energy_open(r);
    if (o->price_per_hour > 0 && nctx < 48) /* what merge's cost reads (report/merge_mix.h) */
        snprintf(ctx[nctx++], ENV_LINE, "price-per-hour: %.10g", o->price_per_hour);
    if (nctx < 48) {
        char line[ENV_LINE - 16];
        energy_gpu_describe(energy_gpu_get(), line, sizeof line);
        snprintf(ctx[nctx++], ENV_LINE, "energy-gpu: %s", line);
    }
    if (o->rounds > 1 && nctx < 48) /* how the host rows were measured (runner.h) */
        snprintf(ctx[nctx++], ENV_LINE, "rounds: %d (each problem's CPU host rows measured "
                 "together, in alternating rounds)", o->rounds);
    if (comm_size() > 1 && nctx < 48) /* the job's ranks and their MPI */
        snprintf(ctx[nctx++], ENV_LINE, "mpi: %d ranks, %s", comm_size(), comm_mpi_version());
    const char *ctxp[48];
    for (int i = 0; i < nctx; i++) ctxp[i] = ctx[i];
    if (o->name[0]) {
        snprintf(r->machine, sizeof r->machine, "%s", o->name);
    } else {
        char cls[160];
        machine_class(r->env.cpu, ctxp, nctx, cls, sizeof cls);
        snprintf(r->machine, sizeof r->machine, "%s/%s", r->env.host, cls);
    }
    r->run.machine = r->machine;
    if (nctx < 48) {
        snprintf(ctx[nctx], ENV_LINE, "machine: %s", r->machine);
        ctxp[nctx] = ctx[nctx];
        nctx++;
    }
    r->csv = csv_writer_open(csvpath, ctxp, nctx);
    if (!r->csv) {
        fprintf(stderr, "bench: cannot write '%s': %s\n", csvpath, strerror(errno));
        return 1; /* a write failure (a full disk), not bad usage */
    }
    outdir_link_latest(outdir);
    job_verdict(0);
    if (r->use_gpu && !r->gpu.usable) fprintf(stderr, "bench: GPU cases skipped: %s\n", r->gpu.why);
    else if (r->use_gpu && r->gpu.emulated)
        fprintf(stderr, "bench: GPU cases run on the CUDA host emulator: correctness only, "
                        "their timings mean nothing\n");
    return 0;
}

int run_follow(bench_run *r, problem (*probs)[PLAN_MAX_PROBLEMS], const int *nprobs)
{
    const bench_opts *o = r->opt;
    int stop = 0;
    progress_init(&r->prog, 0);
    r->prog.tty = 0;
    for (int i = 0; i < o->nsuites && !stop; i++)
        stop = runner_run(&r->run, suite_find(o->suites[i]), probs[i], nprobs[i]);
    gpu_handles_release_all();
    run_free(r);
    return 0;
}

int run_finish(bench_run *r, const char *outdir, const char *csvpath, int stop)
{
    const bench_opts *o = r->opt;
    interrupt_set_activity("writing the report (results.csv is complete)");
    gpu_handles_release_all();
    int sig = interrupt_signal();
    char line[160];
    if (sig) {
        snprintf(line, sizeof line, "interrupted: %s", interrupt_name(sig));
        if (csv_write_context(r->csv, line)) stop = -1;
    }
    char quiet[160];
    run_quiet_line(r, quiet, sizeof quiet);
    snprintf(line, sizeof line, "quiet: %.100s", quiet); /* whether something else ran */
    if (stop >= 0 && !r->io_error && csv_write_context(r->csv, line)) stop = -1;
    snprintf(line, sizeof line, "finished: %d rows", r->nrows); /* the run recorded its end */
    if (stop >= 0 && !r->io_error && csv_write_context(r->csv, line)) stop = -1;
    if (r->run.dump_error[0] && !r->io_error) { /* stopped by a failed dump: results.csv is whole */
        char why[sizeof r->run.dump_error + 48];
        snprintf(why, sizeof why, "stopped: after %d rows: %s", r->nrows, r->run.dump_error);
        if (csv_write_context(r->csv, why)) r->io_error = 1;
    }
    if (r->run.dump_error[0]) /* the rows so far are whole; the run stopped there */
        fprintf(stderr, "bench: %s; the run stopped after %d rows\n", r->run.dump_error, r->nrows);
    else if (stop < 0 || r->io_error)
        fprintf(stderr, "bench: writing '%s' failed: %s; it keeps the %d whole rows written "
                        "before, and the run stopped\n",
                csvpath, csv_writer_error(r->csv), r->nrows);
    if (csv_writer_close(r->csv)) r->io_error = 1;
#ifdef BENCH_HAVE_REPORT
    /* the report before stdout: a closed stdout must never cost it */
    if (report_finish(outdir, o->json[0] ? o->json : NULL, !o->no_plots)) r->io_error = 1;
#else
    (void)o;
#endif
    summary_print(r, outdir, stdout);
    printf("results: %s\n", csvpath);
    if (fflush(stdout) != 0 && errno == EPIPE) interrupt_raise_pipe(); /* SIGPIPE ignored */
    int rc = (r->failed || r->io_error || stop < 0) ? 1 : 0;
    interrupt_done(); /* the closing line follows: the watcher stays quiet */
    if (!sig && interrupt_signal()) { /* every case finished; the report was cut short */
        int s2 = interrupt_signal();
        if (s2 != SIGPIPE) /* a closed stdout cost only the summary */
            fprintf(stderr, "bench: interrupted by %s while writing the report: all %d rows are "
                            "in %s; charts or report.md may be missing (bench --plot %s redraws "
                            "them)\n", interrupt_name(s2), r->nrows, csvpath, outdir);
        else
            fprintf(stderr, "bench: stdout was closed (%s): the summary was not shown; all %d "
                            "rows and the report are in %s\n", interrupt_name(s2), r->nrows, outdir);
        run_free(r);
        return 128 + s2;
    }
    if (sig) {
        fprintf(stderr, "bench: interrupted by %s: %d finished rows kept in %s\n",
                interrupt_name(sig), r->nrows, outdir);
        rc = 128 + sig;
    }
    run_free(r);
    return rc;
}
