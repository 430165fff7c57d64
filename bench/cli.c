/* bench/cli.c - what the CLI says and checks around a run (cli.h). */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "gpu_alloc.h"
#include "comm.h"
#include "conv_cpu.h"
#include "dp_mode.h"
#include "gpu_mode.h"
#include "outdir.h"
#include "registry.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

selection cli_selection(bench_opts *o)
{
    return (selection){
        .suite_table = SUITES, .backend_table = BACKENDS,
        .suites = o->suites, .nsuites = &o->nsuites, .max_suites = OPT_MAX_LIST,
        .backends = o->backends, .nbackends = o->nbackends, .modes = o->modes,
        .nmodes = o->nmodes, .baseline = o->baseline, .dtypes = o->dtypes,
        .devices = o->devices, .workers = o->workers,
    };
}

void cli_list(FILE *f, const bench_opts *o)
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
        if (suite_step_count(d) && !own) {
            fprintf(f, "    device allocators (--alloc; GPU modes: <mode>+<alloc>):");
            for (int a = 0; GPU_ALLOCS[a].name; a++) fprintf(f, " %s", GPU_ALLOCS[a].name);
            fprintf(f, "\n");
        }
        if (d->dp_open) {
            for (int w = 0; w < 2; w++) {
                fprintf(f, w ? "    workers modes (CPU backends; --workers N):"
                             : "    data-parallel modes (CPU backends; mpirun -np N):");
                for (int m = 0; DP_MODES[m].name; m++)
                    if (DP_MODES[m].workers == w) fprintf(f, " %s", DP_MODES[m].name);
                fprintf(f, "\n");
            }
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

void cli_info(const env_info *e, FILE *f)
{
    fprintf(f, "bench %s (git %s)\n", e->version, e->git);
    fprintf(f, "host:      %s (%s)\n", e->host, e->os);
    fprintf(f, "cpu:       %s, %d logical cores (%d usable by this process)\n", e->cpu, e->cores,
            e->usable_cpus);
    fprintf(f, "simd:      %s\n", e->simd);
    fprintf(f, "memory:    %.1f GiB\n", e->memory_gb);
    fprintf(f, "llc:       %.0f KiB\n", e->llc_bytes / 1024);
    fprintf(f, "compiler:  %s\n", e->compiler);
    if (e->openblas_threads > 0)
        fprintf(f, "openblas:  %s (core %s, %d threads)\n", e->openblas, e->openblas_core,
                e->openblas_threads);
    else
        fprintf(f, "openblas:  %s\n", e->openblas);
    fprintf(f, "openmp:    %d threads\n", e->omp_threads);
}

/* err on stderr, one line: control characters shown as \xNN. */
static void put_err(const char *err)
{
    for (const unsigned char *p = (const unsigned char *)err; *p; p++)
        if (*p < 0x20 || *p == 0x7f) fprintf(stderr, "\\x%02x", *p);
        else fputc(*p, stderr);
    fputc('\n', stderr);
}

void cli_err(const char *err)
{
    if (comm_rank() != 0) return; /* every rank found the same: rank 0 says it */
    put_err(err);
}

void cli_err_rank(const char *err)
{
    if (comm_rank() == 0) {
        put_err(err);
        return;
    }
    fprintf(stderr, "bench: rank %d: ", comm_rank());
    put_err(strncmp(err, "bench: ", 7) == 0 ? err + 7 : err);
}

static char notices[4096];
static size_t nnotices;

void cli_notice(const char *fmt, ...)
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

void cli_notice_line(const char *line)
{
    cli_notice("%s", line);
}

void cli_notices_flush(void)
{
    if (comm_rank() == 0) fputs(notices, stderr);
    nnotices = 0;
    notices[0] = '\0';
}

int cli_check_env(char *err, size_t errcap)
{
    if (env_threads_check(OPT_MAX_THREADS, err, errcap)) return 2;
    if (conv_cpu_omp_check_env(err, errcap)) return 2;
    /* the chart scripts' folder goes into gnuplot's parameters: bounded, quotable */
    const char *pd = getenv("BENCH_PLOTS_DIR");
    if (pd && strlen(pd) > 4000) {
        snprintf(err, errcap, "bench: BENCH_PLOTS_DIR is %zu characters long, more than the "
                 "limit of 4000", strlen(pd));
        return 2;
    }
    if (pd && outdir_name_ok("BENCH_PLOTS_DIR", pd, err, errcap)) return 2;
    return 0;
}

int cli_exec_emulator(char **argv)
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
