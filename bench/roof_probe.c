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
 * The GPU, when a GPU backend of a selected suite runs on a real GPU (never
 * the emulator: its timings are not a GPU's, its rows get no roof), through
 * the runner's GPU case path (runner_time_gpu) and the GPU layer's table:
 *   bandwidth  the stream suite's GPU triad, resident, at a working set of
 *              4 x the L2, at least 256 MiB; the best backend
 *   h2d, d2h   the transfer suite's pinned async copies of 256 MiB (64 MiB
 *              with --quick), when an end-to-end mode or a copy runs
 *   launch     an empty kernel, 1000 launches between two events
 *   compute    the best GEMM of the GPU gemm backends that run the dtype,
 *              resident, at 8192 cubed (4096 with --quick)
 *   peaks      from the device's properties (harness/gpu_peaks.c)
 * When a suite of the run measures more than the probe (a larger GEMM, a
 * luckier triad), the probe's value stays the roof: such rows are above-roof
 * only past ROOF_ABOVE_PCT, and their note says the probe measured less. */
#define _POSIX_C_SOURCE 200809L
#include "roof_probe.h"
#include "errmsg.h"
#include "gpu_mode.h"
#include "gpu_peaks.h"
#include "registry.h"
#include "test_hooks.h"
#include "timer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PROBE_GEMM_N 1024
#define PROBE_GEMM_N_QUICK 512
#define PROBE_GEMM_MIN_S 0.5      /* a CPU GEMM probe's timed span, s (not --quick) */
#define PROBE_GEMM_MAX_REPS 400
#define PROBE_GPU_GEMM_N 8192
#define PROBE_GPU_GEMM_N_QUICK 4096
#define PROBE_GPU_STREAM_MIN (256.0 * 1048576)   /* bytes, and 4 x the L2 */
#define PROBE_COPY_MIB 256
#define PROBE_COPY_MIB_QUICK 64
#define PROBE_LAUNCHES 1000

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

/* A roof whose kept measurement stayed disturbed says so, and what ran. */
static void how_disturbed(roof_num *n, const disturb_finding *f)
{
    const size_t h = strlen(n->how);
    if (f->disturbed && h < sizeof n->how)
        snprintf(n->how + h, sizeof n->how - h, "; " ROOF_DISTURBED_TAG ": %s", f->what);
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
        disturb_finding f = {0};
        double med = NAN, ms = runner_time_cpu(&r->run, s, &p, bs[k], cfg, &f, &med);
        double gbps = p.bytes / (ms * 1e6);
        if (!(gbps > 0) || (isfinite(v->bw.v) && gbps <= v->bw.v)) continue;
        v->bw.v = gbps;
        snprintf(v->bw.how, sizeof v->bw.how, "STREAM triad, fastest repetition: %s, %d "
                 "threads, %lldM elements (%.0f MiB, %.1fx the LLC)", bs[k]->name, r->run.threads, n / 1048576,
                 p.bytes / 1048576.0, p.bytes / r->run.llc_bytes);
        how_disturbed(&v->bw, &f);
        roof_how_varied(&v->bw, ms, med, p.bytes / (med * 1e6), ROOF_UNIT_BW);
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
        disturb_finding best = {0};
        double best_ms = NAN, best_med = NAN;
        for (int k = 0; k < nb; k++) {
            if (!(bs[k]->dtypes & DTYPE_BIT(d)) || backend_dt_skip(bs[k], (dtype_t)d, why, sizeof why))
                continue;
            disturb_finding f = {0};
            double med = NAN, ms = runner_time_cpu(&r->run, s, &p, bs[k], cfg, &f, &med);
            double gf = p.flops / (ms * 1e6);
            u += (size_t)snprintf(tried + u, u < sizeof tried ? sizeof tried - u : 0, "%s%s",
                                  u ? ", " : "", bs[k]->name);
            if (!(gf > 0) || (isfinite(v->compute[d].v) && gf <= v->compute[d].v)) continue;
            v->compute[d].v = gf;
            snprintf(v->compute[d].how, sizeof v->compute[d].how, "best GEMM at %s, fastest "
                     "repetition: %s", desc, bs[k]->name);
            best = f;
            best_ms = ms;
            best_med = med;
        }
        if (isfinite(v->compute[d].v) && u) { /* which backends it was the best of */
            size_t h = strlen(v->compute[d].how);
            snprintf(v->compute[d].how + h, sizeof v->compute[d].how - h, " (of %s)", tried);
            how_disturbed(&v->compute[d], &best);
            roof_how_varied(&v->compute[d], best_ms, best_med, p.flops / (best_med * 1e6),
                            ROOF_UNIT_COMPUTE);
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
 * that; bf16 with AMX-BF16 (fp16 with AMX-FP16) one TMUL per core: a 16x16
 * tile of 32-deep dot products (16384 FLOP) every 16 cycles, 1024 FLOP per
 * cycle. */
#define AMX_FLOP_PER_CYCLE 1024.0
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
        double per = f32;
        char why[96];
        snprintf(why, sizeof why, "%d-lane %s, 2 %s units per core assumed", lanes,
                 lanes == 16 ? "AVX-512" : lanes == 8 ? "AVX" : "SSE", fma ? "FMA" : "add/mul");
        const char *amx = d == DTYPE_BF16 ? "amx_bf16" : d == DTYPE_FP16 ? "amx_fp16" : NULL;
        if (amx && strstr(simd, amx)) {
            per = AMX_FLOP_PER_CYCLE;
            snprintf(why, sizeof why, "%s: one 16x16x32 tile product per 16 cycles",
                     d == DTYPE_BF16 ? "AMX-BF16" : "AMX-FP16");
        } else if (d == DTYPE_BF16 && strstr(simd, "avx512_bf16")) {
            per = 2 * f32;
            strncat(why, ", x2 AVX512_BF16", sizeof why - strlen(why) - 1);
        } else if (d == DTYPE_FP16 && strstr(simd, "avx512_fp16")) {
            per = 2 * f32;
            strncat(why, ", x2 AVX512_FP16", sizeof why - strlen(why) - 1);
        }
        v->peak[d].v = r->env.cores * ghz * per;
        /* a measured roof above the paper one: the clock read is not the
         * one the cores ran at (a VM's nominal clock, turbo), or AMX ran */
        const int under = v->compute[d].v > v->peak[d].v;
        const int amx_other = per != AMX_FLOP_PER_CYCLE && strstr(simd, "amx_tile") != NULL;
        snprintf(v->peak[d].how, sizeof v->peak[d].how,
                 "paper: %d cores x %.2f GHz (%s) x %.0f FLOP/cycle (%s)%s%s", r->env.cores, ghz,
                 src, per, why,
                 under ? "; below the measured roof: the cores ran faster than this clock (turbo)"
                       : "", under && amx_other ? ", or a library used AMX" : "");
    }
}

/* ---- the GPU ---------------------------------------------------------------- */

/* What the run's GPU rows need: the GPU at all (a real one), its bandwidth,
 * its copy roofs (an end-to-end mode or a suite's copies), its compute per
 * dtype. */
static int needs_gpu(const bench_run *r, int *bw, int *copies, unsigned *dts,
                     problem (*probs)[PLAN_MAX_PROBLEMS], const int *nprobs)
{
    const bench_opts *o = r->opt;
    int gpu = 0;
    *bw = *copies = 0;
    *dts = 0;
    if (!r->use_gpu || !r->gpu.usable || r->gpu.emulated) return 0;
    for (int i = 0; i < o->nsuites; i++) {
        const suite_def *s = suite_find(o->suites[i])->def;
        int any_mode = 0, e2e = 0;
        if (s->modes) {
            for (int k = 0; s->modes[k]; k++)
                if (runner_mode_selected(&r->run, s->modes[k])) {
                    any_mode = 1;
                    if (s->mode_copy && s->mode_copy(s->modes[k]) != ROOF_COPY_NONE) e2e = 1;
                }
        } else {
            for (const gpu_mode *m = GPU_MODES; m->name; m++)
                if (gpu_mode_applies(m, suite_step_count(s)) &&
                    runner_mode_selected(&r->run, m->name)) {
                    any_mode = 1;
                    if (m->kind != GPU_RESIDENT) e2e = 1;
                }
        }
        const backend_def *bs[64];
        int nb = runner_backends_of(r->run.registry, s->op, bs, 64), any = 0;
        unsigned run_dts = 0;
        for (int k = 0; k < nb && any_mode; k++)
            if (bs[k]->dev == DEV_GPU && backend_present(bs[k]) &&
                runner_backend_selected(&r->run, bs[k])) {
                any = 1;
                run_dts |= s->dtypes ? bs[k]->dtypes & s->dtypes & r->run.dtypes
                                     : DTYPE_BIT(backend_dtype(bs[k]));
            }
        if (!any) continue;
        gpu = 1;
        if (e2e && !suite_step_count(s)) *copies = 1;   /* a whole step: MFU alone */
        for (int p = 0; p < nprobs[i]; p++) {
            if (probs[i][p].io_elems > 0 || probs[i][p].bytes > 0) *bw = 1;
            if (probs[i][p].flops > 0) *dts |= run_dts;
        }
    }
    return gpu;
}

/* The present GPU backends of op that run dtype dt (-1: any). */
static int gpu_backends(const runner *run, const char *op, int dt, const backend_def **out, int cap)
{
    const backend_def *bs[64];
    char why[160];
    int nb = runner_backends_of(run->registry, op, bs, 64), n = 0;
    for (int k = 0; k < nb && n < cap; k++)
        if (bs[k]->dev == DEV_GPU && backend_present(bs[k]) &&
            (dt < 0 || ((bs[k]->dtypes & DTYPE_BIT(dt)) &&
                        !backend_dt_skip(bs[k], (dtype_t)dt, why, sizeof why))))
            out[n++] = bs[k];
    return n;
}

/* One GPU measurement that failed: said on stderr, the roof stays unknown. */
static void gpu_failed(const char *what, const backend_def *b)
{
    fprintf(stderr, "bench: roof probe: %s with %s not measured: %s\n", what, b->name,
            err_get()[0] ? err_get() : "no time");
}

static void probe_gpu_bandwidth(const bench_run *r, roof_device *v, double l2,
                                const measure_cfg *cfg)
{
    const suite_entry *e = suite_find("stream");
    double ws = fmax(4.0 * l2, PROBE_GPU_STREAM_MIN);
    long long n = (long long)ceil(ws / 12.0 / 1048576.0) * 1048576; /* 3 fp32 arrays */
    char desc[48], err[200];
    problem p;
    snprintf(desc, sizeof desc, "triad:%lldM", n / 1048576);
    if (e->def->parse(desc, &p, err, sizeof err)) return;
    p.dtype = DTYPE_FP32;
    const backend_def *bs[16];
    int nb = gpu_backends(&r->run, e->def->op, -1, bs, 16);
    for (int k = 0; k < nb; k++) {
        double ms = runner_time_gpu(&r->run, e, &p, bs[k], "resident", cfg);
        if (!(ms > 0)) gpu_failed("the STREAM triad", bs[k]);
        double gbps = p.bytes / (ms * 1e6);
        if (!(gbps > 0) || (isfinite(v->bw.v) && gbps <= v->bw.v)) continue;
        v->bw.v = gbps;
        snprintf(v->bw.how, sizeof v->bw.how, "STREAM triad, fastest repetition: %s resident, "
                 "%lldM elements (%.0f MiB, %.1fx the L2)", bs[k]->name, n / 1048576,
                 p.bytes / 1048576.0, l2 > 0 ? p.bytes / l2 : NAN);
    }
}

/* h2d and d2h: the transfer suite's pinned async copies (device time). */
static void probe_copies(const bench_run *r, roof_device *v, const measure_cfg *cfg)
{
    const suite_entry *e = suite_find("transfer");
    static const struct { const char *mode; roof_copy way; } WAYS[] = {
        {"h2d-pinned-async", ROOF_COPY_H2D}, {"d2h-pinned-async", ROOF_COPY_D2H}};
    const int mib = r->opt->quick ? PROBE_COPY_MIB_QUICK : PROBE_COPY_MIB;
    char desc[48], err[200];
    problem p;
    snprintf(desc, sizeof desc, "%dMiB", mib);
    if (e->def->parse(desc, &p, err, sizeof err)) return;
    p.dtype = DTYPE_U8;
    const backend_def *bs[4];
    int nb = gpu_backends(&r->run, e->def->op, -1, bs, 4);
    for (size_t w = 0; w < sizeof WAYS / sizeof *WAYS; w++) {
        roof_num *x = WAYS[w].way == ROOF_COPY_H2D ? &v->h2d : &v->d2h;
        for (int k = 0; k < nb; k++) {
            double ms = runner_time_gpu(&r->run, e, &p, bs[k], WAYS[w].mode, cfg);
            if (!(ms > 0)) gpu_failed(WAYS[w].mode, bs[k]);
            double gbps = p.bytes / (ms * 1e6);
            if (!(gbps > 0) || (isfinite(x->v) && gbps <= x->v)) continue;
            x->v = gbps;
            snprintf(x->how, sizeof x->how, "%s %s copies of %d MiB, fastest repetition",
                     bs[k]->name, WAYS[w].mode, mib);
        }
    }
}

static void probe_gpu_compute(const bench_run *r, roof_device *v, unsigned dts,
                              const measure_cfg *cfg)
{
    const suite_entry *e = suite_find("matmul");
    const int n = r->opt->quick ? PROBE_GPU_GEMM_N_QUICK : PROBE_GPU_GEMM_N;
    char desc[48], err[200];
    problem p;
    snprintf(desc, sizeof desc, "%dx%dx%d", n, n, n);
    if (e->def->parse(desc, &p, err, sizeof err)) return;
    for (int d = 0; d < DTYPE_COUNT; d++) {
        if (!(dts & DTYPE_BIT(d))) continue;
        p.dtype = (dtype_t)d;
        const backend_def *bs[16];
        int nb = gpu_backends(&r->run, e->def->op, d, bs, 16);
        char tried[160] = "";
        size_t u = 0;
        for (int k = 0; k < nb; k++) {
            double ms = runner_time_gpu(&r->run, e, &p, bs[k], "resident", cfg);
            if (!(ms > 0)) gpu_failed(desc, bs[k]);
            double gf = p.flops / (ms * 1e6);
            u += (size_t)snprintf(tried + u, u < sizeof tried ? sizeof tried - u : 0, "%s%s",
                                  u ? ", " : "", bs[k]->name);
            if (!(gf > 0) || (isfinite(v->compute[d].v) && gf <= v->compute[d].v)) continue;
            v->compute[d].v = gf;
            snprintf(v->compute[d].how, sizeof v->compute[d].how, "best GEMM at %s, resident, "
                     "fastest repetition: %s", desc, bs[k]->name);
        }
        if (isfinite(v->compute[d].v) && u) {
            size_t h = strlen(v->compute[d].how);
            snprintf(v->compute[d].how + h, sizeof v->compute[d].how - h, " (of %s)", tried);
        }
    }
}

/* The GPU's roofs: measured, and its paper peaks from its properties. */
static void probe_gpu(const bench_run *r, roof_device *v, int bw, int copies, unsigned dts,
                      const measure_cfg *cfg)
{
    const runner *run = &r->run;
    gpu_props g;
    char why[256];
    double l2 = 0;
    if (run->gpu_props && run->gpu_props(r->opt->device, &g, why, sizeof why) == 0) {
        l2 = g.l2_bytes;
        gpu_paper_peaks(&g, dts | DTYPE_BIT(DTYPE_FP32), v);
    } else {
        fprintf(stderr, "bench: roof probe: no GPU paper peaks: %s\n", why);
    }
    if (bw) probe_gpu_bandwidth(r, v, l2, cfg);
    if (copies) probe_copies(r, v, cfg);
    double us;
    if (run->gpu_launch_us && run->gpu_launch_us(PROBE_LAUNCHES, &us, why, sizeof why) == 0) {
        v->launch.v = us;
        snprintf(v->launch.how, sizeof v->launch.how, "an empty kernel, %d launches back to back "
                 "between two events", PROBE_LAUNCHES);
    } else {
        fprintf(stderr, "bench: roof probe: no launch latency: %s\n", why);
    }
    if (dts) probe_gpu_compute(r, v, dts, cfg);
    for (int d = 0; d < DTYPE_COUNT; d++) /* a paper peak below the measured roof says so */
        if (v->compute[d].v > v->peak[d].v) {
            size_t h = strlen(v->peak[d].how);
            snprintf(v->peak[d].how + h, sizeof v->peak[d].how - h, "; below the measured roof: "
                     "the SMs ran faster than this clock, or the table is wrong for this part");
        }
}

void roof_probe(bench_run *r, problem (*probs)[PLAN_MAX_PROBLEMS], const int *nprobs, roofs *rf)
{
    roofs_init(rf);
    if (r->opt->no_roofs || getenv(HOOK_NO_ROOFS)) {
        snprintf(rf->why, sizeof rf->why, "%s", r->opt->no_roofs ? "--no-roofs" : HOOK_NO_ROOFS);
        return;
    }
    int bw, gbw, copies;
    unsigned dts, gdts;
    int cpu = needs_cpu(r, &bw, &dts, probs, nprobs);
    int gpu = needs_gpu(r, &gbw, &copies, &gdts, probs, nprobs);
    if (!cpu && !gpu) {
        snprintf(rf->why, sizeof rf->why, "%s", r->use_gpu && r->gpu.emulated
                 ? "no CPU rows; emulated GPU rows get none" : "no rows with a roof");
        return;
    }
    char what[256], list[64];
    size_t u = 0;
    if (cpu)
        u += (size_t)snprintf(what, sizeof what, "cpu%s%s%s", bw ? ": STREAM triad" : "",
                              dts ? ", GEMM " : "", dts ? dtype_list(dts, ",", list, sizeof list) : "");
    if (gpu)
        snprintf(what + u, sizeof what - u, "%sgpu: %slaunch%s%s%s", u ? "; " : "",
                 gbw ? "STREAM triad, " : "", copies ? ", pinned copies" : "",
                 gdts ? ", GEMM " : "", gdts ? dtype_list(gdts, ",", list, sizeof list) : "");
    fprintf(stderr, "bench: measuring roofs (%s; --no-roofs skips) ...\n", what);
    double t0 = timer_now_ms();
    measure_cfg cfg = probe_cfg(r->opt->quick);
    if (cpu) {
        roof_device *v = &rf->dev[ROOF_CPU];
        measure_cfg ccfg = cfg;   /* judged as a CPU row: measured again while disturbed */
        ccfg.judge = DISTURB_CPU_ROW;
        ccfg.threads = r->run.threads;
        if (bw) probe_bandwidth(r, v, &ccfg);
        /* the GEMMs sample longer: a VM's throughput moves in phases of tens
         * of repetitions (bf16 AMX GEMMs 2.5x apart within one measurement on
         * a 2-vCPU VM), and the roof is the fastest the machine gave */
        measure_cfg gcfg = ccfg;
        if (!r->opt->quick) {
            gcfg.min_time_s = PROBE_GEMM_MIN_S;
            gcfg.max_reps = PROBE_GEMM_MAX_REPS;
        }
        if (dts) probe_compute(r, v, dts, &gcfg);
        paper_peaks(r, v, dts);
        v->present = 1;
    }
    if (gpu) {
        probe_gpu(r, &rf->dev[ROOF_GPU], gbw, copies, gdts, &cfg);
        rf->dev[ROOF_GPU].present = 1;
    }
    rf->measured = 1;
    rf->probe_s = (timer_now_ms() - t0) / 1e3;
    fprintf(stderr, "bench: roofs measured in %.2f s\n", rf->probe_s);
}
