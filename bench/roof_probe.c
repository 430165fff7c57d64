/* bench/roof_probe.c - the roof probe: before the cases, the roofs the run's
 * rows need (harness/roofs.h), measured with the suites' own kernels through
 * the runner (runner_time_cpu: stream's triad, matmul's GEMMs, never a second
 * STREAM or GEMM), and the CPU's paper peak.
 *
 * Measured only for what the run's rows need: the CPU when a CPU backend of a
 * selected suite runs, its bandwidth when a problem counts bytes, a dtype's
 * compute roof when a problem of a suite running that dtype counts FLOPs.
 *   bandwidth  STREAM triad with every thread, each CPU stream backend but
 *              the reference, at a working set of twice the last-level cache
 *              (at least 64 MiB, at most a quarter of memory); the best
 *   compute    the best GEMM of each CPU gemm backend but the reference (the
 *              plain loops take seconds) that runs the dtype, at 1024 cubed
 *              (512 with --quick)
 * When a suite of the run measures more than the probe (a larger GEMM, a
 * luckier triad), the probe's value stays the roof: such rows are above-roof
 * only past ROOF_ABOVE_PCT, and their note says the probe measured less.
 * A real GPU's roofs are not probed yet (its rows get none). */
#define _POSIX_C_SOURCE 200809L
#include "roof_probe.h"
#include "registry.h"
#include "test_hooks.h"
#include "timer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROBE_GEMM_N 1024
#define PROBE_GEMM_N_QUICK 512

/* The timing of a probe measurement: short, a median of a few. */
static measure_cfg probe_cfg(int quick)
{
    measure_cfg c = measure_cfg_default();
    c.warmup = 1;
    c.min_reps = 3;
    c.max_reps = 50;
    c.min_time_s = quick ? 0.02 : 0.1;
    c.budget_s = quick ? 0.5 : 2.0;
    return c;
}

/* What the run's rows need: the CPU at all, its bandwidth, its compute per
 * dtype (a DTYPE_BIT set). */
static int needs_cpu(const bench_run *r, int *bw, unsigned *dts,
                     problem (*probs)[PLAN_MAX_PROBLEMS], const int *nprobs)
{
    const bench_opts *o = r->opt;
    int cpu = 0;
    *bw = 0;
    *dts = 0;
    for (int i = 0; i < o->nsuites; i++) {
        const suite_def *s = suite_find(o->suites[i])->def;
        const backend_def *bs[64];
        int nb = runner_backends_of(r->run.registry, s->op, bs, 64), any = 0;
        unsigned run_dts = 0;
        for (int k = 0; k < nb; k++)
            if (bs[k]->dev == DEV_CPU && runner_backend_selected(&r->run, bs[k]) &&
                runner_mode_selected(&r->run, "host")) {
                any = 1;
                run_dts |= s->dtypes ? bs[k]->dtypes & s->dtypes & r->run.dtypes
                                     : DTYPE_BIT(backend_dtype(bs[k]));
            }
        if (!any) continue;
        cpu = 1;
        for (int p = 0; p < nprobs[i]; p++) {
            if (probs[i][p].io_elems > 0 || probs[i][p].bytes > 0) *bw = 1;
            if (probs[i][p].flops > 0) *dts |= run_dts;
        }
    }
    return cpu;
}

/* The present CPU backends of op but its reference (the first row). */
static int cpu_backends(const runner *run, const char *op, const backend_def **out, int cap)
{
    const backend_def *bs[64];
    int nb = runner_backends_of(run->registry, op, bs, 64), n = 0;
    for (int k = 1; k < nb && n < cap; k++)
        if (bs[k]->dev == DEV_CPU && backend_present(bs[k])) out[n++] = bs[k];
    return n;
}

static void probe_bandwidth(const bench_run *r, roof_device *v, const measure_cfg *cfg)
{
    const suite_def *s = suite_find("stream")->def;
    double ws = fmax(2.0 * r->run.llc_bytes, 64.0 * 1048576.0), mem = env_memory_bytes();
    if (mem > 0 && ws > mem / 4) ws = mem / 4;
    long long n = (long long)ceil(ws / 12.0 / 1048576.0) * 1048576; /* 3 fp32 arrays */
    char desc[48], err[200];
    problem p;
    snprintf(desc, sizeof desc, "triad:%lldM", n / 1048576);
    if (s->parse(desc, &p, err, sizeof err)) return;
    p.dtype = DTYPE_FP32;
    const backend_def *bs[16];
    int nb = cpu_backends(&r->run, s->op, bs, 16);
    for (int k = 0; k < nb; k++) {
        double ms = runner_time_cpu(&r->run, s, &p, bs[k], cfg);
        double gbps = p.bytes / (ms * 1e6);
        if (!(gbps > 0) || (isfinite(v->bw.v) && gbps <= v->bw.v)) continue;
        v->bw.v = gbps;
        snprintf(v->bw.how, sizeof v->bw.how, "STREAM triad, fastest repetition: %s, %d "
                 "threads, %lldM elements (%.0f MiB, %.1fx the LLC)", bs[k]->name, r->run.threads, n / 1048576,
                 p.bytes / 1048576.0, p.bytes / r->run.llc_bytes);
    }
}

static void probe_compute(const bench_run *r, roof_device *v, unsigned dts, const measure_cfg *cfg)
{
    const suite_def *s = suite_find("matmul")->def;
    const int n = r->opt->quick ? PROBE_GEMM_N_QUICK : PROBE_GEMM_N;
    char desc[48], err[200], why[160];
    problem p;
    snprintf(desc, sizeof desc, "%dx%dx%d", n, n, n);
    if (s->parse(desc, &p, err, sizeof err)) return;
    const backend_def *bs[16];
    int nb = cpu_backends(&r->run, s->op, bs, 16);
    for (int d = 0; d < DTYPE_COUNT; d++) {
        if (!(dts & DTYPE_BIT(d))) continue;
        p.dtype = (dtype_t)d;
        char tried[160] = "";
        size_t u = 0;
        for (int k = 0; k < nb; k++) {
            if (!(bs[k]->dtypes & DTYPE_BIT(d)) || backend_dt_skip(bs[k], (dtype_t)d, why, sizeof why))
                continue;
            double ms = runner_time_cpu(&r->run, s, &p, bs[k], cfg);
            double gf = p.flops / (ms * 1e6);
            u += (size_t)snprintf(tried + u, u < sizeof tried ? sizeof tried - u : 0, "%s%s",
                                  u ? ", " : "", bs[k]->name);
            if (!(gf > 0) || (isfinite(v->compute[d].v) && gf <= v->compute[d].v)) continue;
            v->compute[d].v = gf;
            snprintf(v->compute[d].how, sizeof v->compute[d].how, "best GEMM at %s, fastest "
                     "repetition: %s", desc, bs[k]->name);
        }
        if (isfinite(v->compute[d].v) && u) { /* which backends it was the best of */
            size_t h = strlen(v->compute[d].how);
            snprintf(v->compute[d].how + h, sizeof v->compute[d].how - h, " (of %s)", tried);
        }
    }
}

/* The CPU's clock in GHz: the highest frequency cpufreq reports, else
 * /proc/cpuinfo's current MHz (a VM's nominal clock); NAN when neither. */
static double cpu_ghz(const char **src)
{
    FILE *f = fopen("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq", "r");
    double v = NAN;
    if (f) {
        double khz;
        if (fscanf(f, "%lf", &khz) == 1 && khz > 0) v = khz / 1e6;
        fclose(f);
        *src = "cpufreq max";
        if (isfinite(v)) return v;
    }
    f = fopen("/proc/cpuinfo", "r");
    if (!f) return NAN;
    char line[512];
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "cpu MHz", 7) == 0 && strchr(line, ':')) {
            v = strtod(strchr(line, ':') + 1, NULL) / 1e3;
            break;
        }
    fclose(f);
    *src = "/proc/cpuinfo";
    return v > 0 ? v : NAN;
}

/* Paper peaks: cores x clock x FLOP per cycle from the SIMD features,
 * assuming two FMA units per core (Intel server cores since Skylake-SP, AMD
 * Zen 4): fp32 (and tf32, computed in fp32 on a CPU) 2 x lanes x 2; bf16 with
 * AVX512_BF16 (vdpbf16ps: twice the pairs) and fp16 with AVX512_FP16 twice
 * that; AMX tiles not counted. */
static void paper_peaks(const bench_run *r, roof_device *v, unsigned dts)
{
    const char *simd = r->env.simd, *src = "";
    double ghz = cpu_ghz(&src);
    int lanes = strstr(simd, "avx512f") ? 16 : strstr(simd, "avx2") || strstr(simd, "avx") ? 8 : 4;
    int fma = strstr(simd, "fma") != NULL || lanes == 16;
    double f32 = 2.0 * lanes * (fma ? 2 : 1);   /* FLOP per cycle per core */
    if (!isfinite(ghz)) return;
    for (int d = 0; d < DTYPE_COUNT; d++) {
        if (!(dts & DTYPE_BIT(d))) continue;
        double x = 1;
        const char *why = "";
        if (d == DTYPE_BF16 && strstr(simd, "avx512_bf16")) x = 2, why = ", x2 AVX512_BF16";
        if (d == DTYPE_FP16 && strstr(simd, "avx512_fp16")) x = 2, why = ", x2 AVX512_FP16";
        v->peak[d].v = r->env.cores * ghz * f32 * x;
        /* a measured roof above the paper one: the clock read is not the
         * one the cores ran at (a VM's nominal clock, turbo), or AMX ran */
        int under = v->compute[d].v > v->peak[d].v;
        snprintf(v->peak[d].how, sizeof v->peak[d].how,
                 "paper: %d cores x %.2f GHz (%s) x %.0f FLOP/cycle (%d-lane %s, 2 %s units per "
                 "core assumed%s; AMX not counted)%s", r->env.cores, ghz, src, f32 * x, lanes,
                 lanes == 16 ? "AVX-512" : lanes == 8 ? "AVX" : "SSE", fma ? "FMA" : "add/mul", why,
                 under ? "; below the measured roof: the cores ran faster than this clock (turbo), "
                         "or a library used AMX" : "");
    }
}

void roof_probe(bench_run *r, problem (*probs)[PLAN_MAX_PROBLEMS], const int *nprobs, roofs *rf)
{
    roofs_init(rf);
    if (r->opt->no_roofs || getenv(HOOK_NO_ROOFS)) {
        snprintf(rf->why, sizeof rf->why, "%s", r->opt->no_roofs ? "--no-roofs" : HOOK_NO_ROOFS);
        return;
    }
    int bw;
    unsigned dts;
    if (!needs_cpu(r, &bw, &dts, probs, nprobs)) {
        snprintf(rf->why, sizeof rf->why, "no CPU rows; GPU roofs are not probed");
        return;
    }
    char what[160], list[64];
    snprintf(what, sizeof what, "cpu%s%s%s", bw ? ": STREAM triad" : "", dts ? ", GEMM " : "",
             dts ? dtype_list(dts, ",", list, sizeof list) : "");
    fprintf(stderr, "bench: measuring roofs (%s; --no-roofs skips) ...\n", what);
    double t0 = timer_now_ms();
    measure_cfg cfg = probe_cfg(r->opt->quick);
    roof_device *v = &rf->dev[ROOF_CPU];
    if (bw) probe_bandwidth(r, v, &cfg);
    if (dts) probe_compute(r, v, dts, &cfg);
    paper_peaks(r, v, dts);
    v->present = 1;
    rf->measured = 1;
    rf->probe_s = (timer_now_ms() - t0) / 1e3;
    fprintf(stderr, "bench: roofs measured in %.2f s\n", rf->probe_s);
}
