/* bench/suite_matmul.c - the matmul suite: C = A*B (fp32, row-major) on every
 * CPU backend and every GPU backend in every GPU execution mode, over a square
 * sweep and real-model layer shapes. Each backend x mode x shape is checked
 * against the double reference on the same seeded inputs, then timed;
 * speedup = baseline median / this median, same shape, same run (never for
 * emulated rows). */
#include "suite.h"
#include "gemm_backends.h"
#include "gpu_cases.h"
#include "gpu_mode.h"
#include "gemm_ref.h"
#include "check.h"
#include "errmsg.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct named_shape {
    const char *name;
    int M, N, K;
} named_shape;

/* MxNxK: C is MxN, the reduction is K. Model layers: M = tokens or batch. */
static const named_shape DEFAULT_SHAPES[] = {
    {"square-128", 128, 128, 128},     {"square-256", 256, 256, 256},
    {"square-512", 512, 512, 512},     {"square-1024", 1024, 1024, 1024},
    {"square-2048", 2048, 2048, 2048},
    {"mlp-fc1", 256, 512, 784},        /* MNIST MLP, batch 256: 784 -> 512 */
    {"mlp-fc2", 256, 10, 512},         /* 512 -> 10 classes */
    {"gpt2-qkv", 1024, 2304, 768},     /* GPT-2 small, 1024 tokens: x W_qkv */
    {"gpt2-attn-out", 1024, 768, 768}, /* attention output projection */
    {"gpt2-mlp-up", 1024, 3072, 768},  /* MLP 768 -> 3072 */
    {"gpt2-mlp-down", 1024, 768, 3072},/* MLP 3072 -> 768 */
};
/* With a real GPU the default sweep goes on to sizes only a GPU makes quick. */
static const named_shape GPU_EXTRA_SHAPES[] = {
    {"square-4096", 4096, 4096, 4096},
    {"square-8192", 8192, 8192, 8192},
};
/* Emulated GPU cases run one repetition each, and only up to this size in
 * default sweeps (fibers are slow; --sizes runs whatever is named). */
#define EMU_DEFAULT_MAX_FLOPS (2.0 * 256 * 256 * 256)

static const named_shape QUICK_SHAPES[] = {
    {"square-64", 64, 64, 64},
    {"square-128", 128, 128, 128},
    {"square-256", 256, 256, 256},
    {"odd-67x45x129", 67, 45, 129},
    {"mlp-fc1", 256, 512, 784},
};

#define NSHAPES(a) ((int)(sizeof a / sizeof a[0]))

/* The shapes of this run; with_gpu adds the real-GPU sizes to default sweeps. */
static int shape_list(const bench_opts *o, int with_gpu, named_shape *out, char (*names)[64])
{
    if (o->nsizes) {
        for (int i = 0; i < o->nsizes; i++) {
            const gemm_shape *s = &o->sizes[i];
            if (s->M == s->N && s->N == s->K) snprintf(names[i], 64, "square-%d", s->M);
            else snprintf(names[i], 64, "gemm-%dx%dx%d", s->M, s->N, s->K);
            out[i] = (named_shape){names[i], s->M, s->N, s->K};
        }
        return o->nsizes;
    }
    const named_shape *src = o->quick ? QUICK_SHAPES : DEFAULT_SHAPES;
    int n = o->quick ? NSHAPES(QUICK_SHAPES) : NSHAPES(DEFAULT_SHAPES);
    memcpy(out, src, (size_t)n * sizeof *out);
    if (with_gpu && !o->quick) {
        memcpy(out + n, GPU_EXTRA_SHAPES, sizeof GPU_EXTRA_SHAPES);
        n += NSHAPES(GPU_EXTRA_SHAPES);
    }
    return n;
}

static int gpu_backend_selected(const bench_opts *o)
{
    int n = 0;
    for (int b = 0; GPU_GEMM_DESCS[b].name; b++) n += suite_backend_selected(o, GPU_GEMM_DESCS[b].name);
    return n;
}

static int count_modes(void)
{
    int n = 0;
    while (GPU_MODES[n].name) n++;
    return n;
}

/* Bytes the case needs: operands, output, and the (possibly full) reference. */
static double shape_bytes(const named_shape *s)
{
    double mk = (double)s->M * s->K, kn = (double)s->K * s->N, mn = (double)s->M * s->N;
    return 4.0 * (mk + kn + mn) + 20.0 * mn;
}

static int matmul_plan(const bench_opts *o, int *ncases, char *err, size_t errcap)
{
    named_shape shapes[OPT_MAX_LIST];
    char names[OPT_MAX_LIST][64];
    int ns = shape_list(o, 1, shapes, names);
    double mem = env_memory_bytes();
    for (int i = 0; i < ns; i++) {
        const named_shape *s = &shapes[i];
        double biggest = fmax((double)s->M * s->K, fmax((double)s->K * s->N, (double)s->M * s->N));
        if (biggest > (double)INT32_MAX) {
            snprintf(err, errcap, "bench: size %dx%dx%d too large (a matrix over 2^31 elements)",
                     s->M, s->N, s->K);
            return 2;
        }
        if (mem > 0 && shape_bytes(s) > 0.75 * mem) {
            snprintf(err, errcap,
                     "bench: size %dx%dx%d needs %.1f GiB, more than this machine's %.1f GiB allows",
                     s->M, s->N, s->K, shape_bytes(s) / 1073741824.0, mem / 1073741824.0);
            return 2;
        }
    }
    int nb = 0, base_ok = 0;
    for (int b = 0; GEMM_CPU_IMPLS[b].name; b++) {
        nb += suite_backend_selected(o, GEMM_CPU_IMPLS[b].name);
        base_ok |= strcmp(GEMM_CPU_IMPLS[b].name, o->baseline) == 0;
    }
    if (!base_ok) {
        snprintf(err, errcap, "bench: --baseline '%s' must be a CPU backend of matmul", o->baseline);
        return 2;
    }
    *ncases = (nb + gpu_backend_selected(o) * count_modes()) * ns; /* an upper bound, for the ETA */
    return 0;
}

typedef struct timed_ctx {
    const gemm_impl *impl;
    const named_shape *s;
    float **A, **B, *C;
    int nsets, next;
} timed_ctx;

static int timed_rep(void *p, double *ms)
{
    timed_ctx *c = p;
    int k = c->next;
    c->next = (c->next + 1) % c->nsets;
    (void)ms; /* host clock: CPU work is finished when fn returns */
    return c->impl->fn(c->s->M, c->s->N, c->s->K, 1.0f, c->A[k], c->s->K, c->B[k], c->s->N,
                       0.0f, c->C, c->s->N);
}

static float *alloc_floats(size_t n)
{
    size_t bytes = (n * sizeof(float) + 63) / 64 * 64;
    return aligned_alloc(64, bytes ? bytes : 64);
}

/* Runs one backend on one shape: check, then time; fills row. */
static void run_backend(bench_run *r, const gemm_impl *impl, const named_shape *s,
                        timed_ctx *ctx, const gemm_ref *ref, result_row *row)
{
    const bench_opts *o = r->opt;
    int named = o->nbackends > 0;
    double flops = 2.0 * s->M * s->N * s->K;
    if (!named && !o->nsizes && impl->default_max_flops > 0 && flops > impl->default_max_flops) {
        snprintf(row->check, sizeof row->check, "skip");
        snprintf(row->note, sizeof row->note,
                 "%s skipped above %.3g FLOP in default sweeps; name it with --backend to run",
                 impl->name, impl->default_max_flops);
        return;
    }
    /* validate before timing: poisoned output, set 0 */
    check_poison(ctx->C, (size_t)s->M * s->N);
    err_clear();
    if (impl->fn(s->M, s->N, s->K, 1.0f, ctx->A[0], s->K, ctx->B[0], s->N, 0.0f, ctx->C, s->N)) {
        snprintf(row->check, sizeof row->check, "fail");
        snprintf(row->note, sizeof row->note, "error: %s", *err_get() ? err_get() : "backend failed");
        return;
    }
    gemm_plant_fault(impl->name, ctx->C, (size_t)s->M * s->N);
    char why[200] = "";
    check_result cr = gemm_ref_check(ref, ctx->C, DTYPE_FP32, why, sizeof why);
    row->max_abs_err = cr.max_abs_err;
    row->rel_err = cr.rel_err;
    row->tolerance = cr.tolerance;
    if (!cr.pass) {
        snprintf(row->check, sizeof row->check, "fail");
        snprintf(row->note, sizeof row->note, "check failed: %s", why);
        return;
    }
    snprintf(row->check, sizeof row->check, "pass");
    measure_result m;
    ctx->impl = impl;
    ctx->next = 0;
    err_clear();
    int rc = measure_run(&r->mcfg, timed_rep, ctx, &m);
    if (rc) {
        snprintf(row->check, sizeof row->check, "fail");
        snprintf(row->note, sizeof row->note, "error while timing: %s",
                 *err_get() ? err_get() : "the backend returned an error");
        return;
    }
    result_fill_timing(row, &m, flops, 0);
}

/* The GPU rows of one shape: every selected GPU backend in every mode. */
static void run_gpu(bench_run *r, const named_shape *s, int si, const gemm_problem *p,
                    double base_median)
{
    const bench_opts *o = r->opt;
    char shape[64];
    snprintf(shape, sizeof shape, "%dx%dx%d", s->M, s->N, s->K);
    double flops = 2.0 * s->M * s->N * s->K;
    for (int b = 0; GPU_GEMM_DESCS[b].name; b++) {
        const gpu_gemm_desc *d = &GPU_GEMM_DESCS[b];
        if (!suite_backend_selected(o, d->name)) continue;
        result_row row;
        int oversize = r->gpu.emulated && !o->nsizes && flops > EMU_DEFAULT_MAX_FLOPS;
        if (!r->gpu.usable || oversize) {
            /* one row says why, not one per mode (nor per shape, unless the
             * GPU was lost mid-run) */
            if (!r->gpu.usable && si > 0 && !r->gpu_lost) continue;
            run_row_start(r, &row, "matmul", r->gpu.usable ? s->name : "-", d->name, "-",
                          dtype_name(d->dtype), r->gpu.usable ? shape : "-");
            snprintf(row.check, sizeof row.check, "skip");
            if (oversize)
                snprintf(row.note, sizeof row.note,
                         "emulated: default sweeps stop at %.3g FLOP; name sizes with --sizes",
                         EMU_DEFAULT_MAX_FLOPS);
            else
                snprintf(row.note, sizeof row.note, "no usable GPU: %s", r->gpu.why);
            run_emit(r, &row);
            continue;
        }
        for (int m = 0; GPU_MODES[m].name; m++) {
            run_row_start(r, &row, "matmul", s->name, d->name, GPU_MODES[m].name,
                          dtype_name(d->dtype), shape);
            char label[160];
            snprintf(label, sizeof label, "matmul %s %s %s", shape, d->name, GPU_MODES[m].name);
            progress_start(&r->prog, label);
            if (gpu_gemm_case(b, GPU_MODES[m].name, p, run_gpu_cfg(r), &row))
                run_gpu_recover(r);
            if (!row.emulated && !isnan(base_median)) {
                snprintf(row.baseline, sizeof row.baseline, "%s", o->baseline);
                row.speedup = base_median / row.median_ms;
            }
            run_emit(r, &row);
            free(row.samples);
            progress_finish_one(&r->prog);
        }
    }
}

static int matmul_run(bench_run *r)
{
    const bench_opts *o = r->opt;
    named_shape shapes[OPT_MAX_LIST];
    char names[OPT_MAX_LIST][64];
    int ns = shape_list(o, r->gpu.usable && !r->gpu.emulated && gpu_backend_selected(o), shapes,
                        names);
    /* baseline first, so every other row's speedup is known when it is written */
    const gemm_impl *order[8];
    int nb = 0;
    for (int b = 0; GEMM_CPU_IMPLS[b].name; b++)
        if (strcmp(GEMM_CPU_IMPLS[b].name, o->baseline) == 0 &&
            suite_backend_selected(o, GEMM_CPU_IMPLS[b].name))
            order[nb++] = &GEMM_CPU_IMPLS[b];
    int have_baseline = nb == 1;
    for (int b = 0; GEMM_CPU_IMPLS[b].name; b++)
        if (strcmp(GEMM_CPU_IMPLS[b].name, o->baseline) != 0 &&
            suite_backend_selected(o, GEMM_CPU_IMPLS[b].name))
            order[nb++] = &GEMM_CPU_IMPLS[b];
    if (!have_baseline)
        fprintf(stderr, "bench: matmul: baseline %s not selected: speedups left empty\n",
                o->baseline);

    for (int si = 0; si < ns; si++) {
        const named_shape *s = &shapes[si];
        size_t mk = (size_t)s->M * s->K, kn = (size_t)s->K * s->N, mn = (size_t)s->M * s->N;
        /* rotate input sets while one set would sit in the last-level cache */
        double set_bytes = 4.0 * (double)(mk + kn);
        int nsets = (int)fmin(4.0, fmax(1.0, ceil(2.0 * r->env.llc_bytes / set_bytes)));
        float *A[4] = {0}, *B[4] = {0}, *C = alloc_floats(mn);
        gemm_ref ref = {0};
        int ok = C != NULL;
        for (int k = 0; k < nsets && ok; k++) {
            A[k] = alloc_floats(mk);
            B[k] = alloc_floats(kn);
            ok = A[k] && B[k];
            if (ok) {
                rng_fill_uniform(A[k], mk, 1000003ULL * (unsigned)si + 2 * k + 1);
                rng_fill_uniform(B[k], kn, 1000003ULL * (unsigned)si + 2 * k + 2);
            }
        }
        if (ok) ok = gemm_ref_build(&ref, s->M, s->N, s->K, 1.0f, A[0], B[0], 0.0f, NULL) == 0;
        double base_median = NAN;
        timed_ctx ctx = {NULL, s, A, B, C, nsets, 0};
        char shape[64];
        snprintf(shape, sizeof shape, "%dx%dx%d", s->M, s->N, s->K);
        for (int b = 0; b < nb; b++) {
            const gemm_impl *impl = order[b];
            result_row row;
            run_row_start(r, &row, "matmul", s->name, impl->name, "host", "fp32", shape);
            row.threads = impl->serial ? 1 : cpu_threads_get();
            char label[160];
            snprintf(label, sizeof label, "matmul %s %s", shape, impl->name);
            progress_start(&r->prog, label);
            if (!ok) {
                snprintf(row.check, sizeof row.check, "fail");
                snprintf(row.note, sizeof row.note, "error: out of memory for %s", shape);
            } else {
                run_backend(r, impl, s, &ctx, &ref, &row);
            }
            if (have_baseline) {
                snprintf(row.baseline, sizeof row.baseline, "%s", o->baseline);
                if (b == 0) base_median = row.median_ms;
                row.speedup = base_median / row.median_ms; /* NAN when either is missing */
            }
            run_emit(r, &row);
            free(row.samples);
            progress_finish_one(&r->prog);
        }
        if (ok) {
            gemm_problem p = {s->M, s->N, s->K, A[0], B[0], &ref};
            run_gpu(r, s, si, &p, base_median);
        }
        gemm_ref_free(&ref);
        for (int k = 0; k < nsets; k++) {
            free(A[k]);
            free(B[k]);
        }
        free(C);
    }
    return 0;
}

static const char *const *matmul_backends(void)
{
    static const char *names[16];
    int n = 0;
    for (int b = 0; GEMM_CPU_IMPLS[b].name; b++) names[n++] = GEMM_CPU_IMPLS[b].name;
    for (int b = 0; GPU_GEMM_DESCS[b].name; b++) names[n++] = GPU_GEMM_DESCS[b].name;
    names[n] = NULL;
    return names;
}

const suite_def SUITE_MATMUL = {
    "matmul",
    "fp32 GEMM, square sweep and model-layer shapes, every backend checked then timed",
    1,
    matmul_backends,
    matmul_plan,
    matmul_run,
};
