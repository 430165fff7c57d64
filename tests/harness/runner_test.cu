/* tests/harness/runner_test.cu - the one runner and the GPU modes under the emulator.
 *
 *  1. every suite of the registry through the runner at awkward problems: every
 *     CPU row and every GPU backend x mode passes (streams-N skips exactly when
 *     the problem cannot be split N ways); row counts derive from the registry;
 *  2. streams-N output equals resident output bit for bit (matmul);
 *  3. a toy suite with what no shipped suite uses yet: a REDUCE output summed
 *     across chunks by the suite's reduce, a stateful INOUT counter that every
 *     mode advances once per repetition and never re-uploads, a workspace,
 *     setup/teardown hooks, a note the backend leaves for its row; a reduce
 *     that drops a partial is caught;
 *  4. a toy STREAMS_PIPELINE suite (independent items) in every mode;
 *  5. BENCH_PLANT_FAULT fails every suite's first backend through the runner;
 *  6. the handle registry knows cuBLAS once it was used; recovery of a healthy
 *     device is a no-op.
 * Built in the emulated flavour (and compiled by nvcc as a check). */
#include "gpu.h"
#include "gpu_exec.h"
#include "gpu_handles.h"
#include "cuda_check.h"
#include "registry.h"
#include "runner.h"
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- rows the runner emits ------------------------------------------------ */

#define MAX_ROWS 4096
static result_row rows[MAX_ROWS];
static int nrows;

static int keep_row(void *ctx, const result_row *row)
{
    (void)ctx;
    if (nrows < MAX_ROWS) {
        rows[nrows] = *row;
        rows[nrows].samples = NULL;
        nrows++;
    }
    return 0;
}

static gpu_status gpu;
static progress prog;

static runner make_runner(const backend_def *registry)
{
    runner r;
    memset(&r, 0, sizeof r);
    r.registry = registry;
    r.dtypes = DTYPE_BIT(DTYPE_FP32);   /* the dtype axis has its own test (cli.dtype) */
    r.mcfg = measure_cfg_default();
    r.mcfg.warmup = 0;
    r.mcfg.min_reps = r.mcfg.max_reps = 2;
    r.mcfg.min_time_s = 0;
    r.emu_cfg = r.mcfg;
    r.gpu = &gpu;
    r.gpu_open = gpu_exec_open;
    r.gpu_recover = gpu_recover_device;
    r.llc_bytes = 1 << 20;
    r.cpu_name = "test CPU";
    r.threads = 1;
    r.prog = &prog;
    r.emit = keep_row;
    r.named_problems = 1;
    return r;
}

static int nmodes_of(const suite_entry *e)
{
    int n = 0;
    if (e->def->modes)
        while (e->def->modes[n]) n++;
    else
        for (int m = 0; GPU_MODES[m].name; m++) n += gpu_mode_applies(&GPU_MODES[m], suite_step_count(e->def));
    return n;
}

/* ---- 1. every suite, every backend and mode ------------------------------ */

/* Candidates; each suite takes those it parses and the emulator runs quickly. */
static const char *const PROBLEMS[] = {"7x13x5", "33x65x17", "16x8x64", "1000", "4096", "1048576",
                                        "copy:4099", "triad:1000", "fwd:mb2ic3ih9oc4kh3ph1", "mlp-small-b4",
                                        "allreduce:4K", "reduce-scatter:4K", NULL};
#define EMU_WORK_MAX 2e7

static int take(const suite_def *d, const char *s, problem *p)
{
    char err[256];
    return d->parse(s, p, err, sizeof err) == 0 && p->flops + p->bytes <= EMU_WORK_MAX;
}

static void every_suite(void)
{
    for (int si = 0; SUITES[si].def; si++) {
        const suite_entry *e = &SUITES[si];
        problem probs[8];
        int np = 0;
        for (int i = 0; PROBLEMS[i]; i++)
            if (np < 8 && take(e->def, PROBLEMS[i], &probs[np])) np++;
        EXPECT(np > 0, "%s accepts one of the test problems", e->def->name);
        runner r = make_runner(BACKENDS);
        nrows = 0;
        EXPECT(runner_run(&r, e, probs, np) == 0, "%s: runner", e->def->name);
        int want = 0;
        int once = 0; /* a backend without fp32 (the run's dtype): one skip row */
        for (int b = 0; BACKENDS[b].name; b++)
            if (strcmp(BACKENDS[b].op, e->def->op) == 0) {
                if (e->def->dtypes && !(BACKENDS[b].dtypes & DTYPE_BIT(DTYPE_FP32))) once++;
                else want += BACKENDS[b].dev == DEV_CPU ? 1 : nmodes_of(e);
            }
        EXPECT(nrows == want * np + once, "%s: %d rows, want %d x %d problems + %d from the registry",
               e->def->name, nrows, want, np, once);
        EXPECT(runner_count(&r, e, np) == nrows, "%s: runner_count %d", e->def->name,
               runner_count(&r, e, np));
        for (int i = 0; i < nrows; i++) {
            const result_row *w = &rows[i];
            const gpu_mode *m = gpu_mode_find(w->mode);
            int split = 0; /* how many chunks the problem splits into at most */
            for (int p = 0; p < np; p++)
                if (strcmp(probs[p].desc, w->shape) == 0) {
                    case_layout l;
                    memset(&l, 0, sizeof l);
                    e->def->layout(&probs[p], &l);
                    split = l.max_chunks;
                }
            /* this runner has no MPI (r.comm NULL): the MPI backends say so */
            const backend_def *bd = NULL;
            for (int b = 0; BACKENDS[b].name; b++)
                if (strcmp(BACKENDS[b].op, e->def->op) == 0 && strcmp(BACKENDS[b].name, w->backend) == 0)
                    bd = &BACKENDS[b];
            if (bd && e->def->dtypes && !(bd->dtypes & DTYPE_BIT(DTYPE_FP32))) {
                EXPECT(strcmp(w->check, "skip") == 0 && strstr(w->note, "has no fp32 path"),
                       "%s %s: %s (%s): want a skip naming fp32", w->suite, w->backend, w->check,
                       w->note);
                continue;
            }
            int mpi_skip = bd && bd->dev == DEV_CPU && (bd->needs & NEEDS_MPI);
            if (mpi_skip) {
                EXPECT(strcmp(w->check, "skip") == 0 && strstr(w->note, "needs MPI"),
                       "%s %s %s: %s (%s): want a skip naming MPI", w->suite, w->shape, w->backend,
                       w->check, w->note);
                continue;
            }
            int expect_skip = m && m->kind == GPU_STREAMS && m->nstreams > split;
            EXPECT(strcmp(w->check, expect_skip ? "skip" : "pass") == 0,
                   "%s %s %s %s: %s (%s)", w->suite, w->shape, w->backend, w->mode, w->check,
                   w->note);
            EXPECT(strcmp(w->device_kind, strcmp(w->mode, "host") ? "gpu" : "cpu") == 0,
                   "device kind %s for mode %s", w->device_kind, w->mode);
            EXPECT(strstr(w->repro, w->backend) && strstr(w->repro, w->shape) &&
                       strstr(w->repro, w->mode),
                   "repro names backend, problem and mode: %s", w->repro);
            if (!expect_skip && strcmp(w->mode, "host") != 0)
                EXPECT(w->emulated == 1 && isnan(w->speedup), "emulated GPU row, no speedup");
            if (!expect_skip && m && m->kind != GPU_RESIDENT && !e->def->modes)
                EXPECT(!isnan(w->h2d_ms) && !isnan(w->d2h_ms), "%s split", w->mode);
            if (!expect_skip && m && m->kind == GPU_STREAMS) /* a ratio of emulator times */
                EXPECT(isnan(w->overlap_eff), "%s: emulated, no overlap efficiency", w->mode);
        }
    }
}

/* ---- 2. streams-N equals resident ----------------------------------------- */

static int exec_once(const gpu_mode *m, const gpu_work *w, void *out, size_t bytes, int buf)
{
    case_exec ex;
    void *host[LAYOUT_MAX_BUFS];
    char skip[128];
    double ms = -1;
    if (gpu_exec_open(m, w, &ex, skip, sizeof skip)) return -1;
    int rc = ex.run(ex.st, &ms) || ex.outputs(ex.st, host);
    if (!rc) memcpy(out, host[buf], bytes);
    ex.close(ex.st);
    return rc ? -1 : 0;
}

static void streams_equal_resident(void)
{
    const suite_entry *e = suite_find("matmul");
    problem p;
    char err[128];
    EXPECT(e->def->parse("37x29x41", &p, err, sizeof err) == 0, "parse");
    case_layout l;
    memset(&l, 0, sizeof l);
    e->def->layout(&p, &l);
    void *host[LAYOUT_MAX_BUFS] = {0};
    for (int i = 0; i < l.nbufs; i++) host[i] = malloc(l.buf[i].bytes);
    e->def->fill(&p, 0, host);
    size_t cbytes = l.buf[2].bytes;
    float *res = (float *)malloc(cbytes), *got = (float *)malloc(cbytes);
    for (int b = 0; BACKENDS[b].name; b++) {
        if (strcmp(BACKENDS[b].op, "gemm") || BACKENDS[b].dev != DEV_GPU ||
            !(BACKENDS[b].dtypes & DTYPE_BIT(DTYPE_FP32)))
            continue; /* the fp32 problem: backends that run fp32 */
        gpu_work w = {e->def, e->gpu, &BACKENDS[b], &p, &l, host, NULL, 0, NULL};
        EXPECT(exec_once(gpu_mode_find("resident"), &w, res, cbytes, 2) == 0, "resident: %s",
               err_get());
        for (int m = 0; GPU_MODES[m].name; m++) {
            if (GPU_MODES[m].kind != GPU_STREAMS) continue;
            memset(got, 0, cbytes);
            EXPECT(exec_once(&GPU_MODES[m], &w, got, cbytes, 2) == 0, "%s", GPU_MODES[m].name);
            if (!(BACKENDS[b].needs & NEEDS_CUBLAS)) {
                EXPECT(memcmp(got, res, cbytes) == 0, "%s %s equals resident bit for bit",
                       BACKENDS[b].name, GPU_MODES[m].name);
                continue;
            }
            /* A library picks its kernel by shape: a chunk's rows may be summed
             * in another order than the whole product's (cuBLAS on a GPU; the
             * emulator's cuBLAS is OpenBLAS, whose small-matrix kernels on
             * AVX-512 CPUs differ by M): equal within the fp32 tolerance. */
            const double tol = check_tolerance(DTYPE_FP32, 41);
            size_t bad = 0;
            for (size_t i = 0; i < cbytes / sizeof(float); i++)
                bad += !(fabs((double)got[i] - res[i]) <= tol * (1.0 + fabs((double)res[i])));
            EXPECT(bad == 0, "%s %s: %zu elements differ from resident beyond %g", BACKENDS[b].name,
                   GPU_MODES[m].name, bad, tol);
        }
    }
    for (int i = 0; i < l.nbufs; i++) free(host[i]);
    free(res);
    free(got);
}

/* ---- 3. a toy suite: REDUCE, stateful INOUT, workspace, hooks ------------- */

enum { TX, TS, TSTEPS };
static int setups, teardowns, bad_reduce;

static __global__ void toy_sum_kernel(const float *x, long n, float *s, int *steps, int bump,
                                      float *ws)
{
    double acc = 0;
    for (long i = 0; i < n; i++) acc += x[i];
    ws[0] = 1.0f;            /* the workspace is real device memory */
    *s = (float)acc;
    if (bump) *steps += 1;   /* once per repetition: chunk 0 only */
}

static __global__ void toy_reduce_kernel(float *dst, const float *part, int n)
{
    float acc = 0;
    for (int c = 0; c < n; c++) acc += part[c];
    *dst = acc;
}

static int toy_parse(const char *s, problem *p, char *err, size_t errcap)
{
    (void)err, (void)errcap;
    memset(p, 0, sizeof *p);
    p->dim[0] = atol(s);
    snprintf(p->name, sizeof p->name, "toy-%s", s);
    snprintf(p->desc, sizeof p->desc, "%s", s);
    p->bytes = 4.0 * (double)p->dim[0];
    return p->dim[0] > 0 ? 0 : -1;
}

static void toy_layout(const problem *p, case_layout *l)
{
    layout_add(l, "x", ROLE_IN, SPLIT_CHUNK, (size_t)p->dim[0] * 4);
    layout_add(l, "s", ROLE_OUT, SPLIT_REDUCE, 4);
    layout_add(l, "steps", ROLE_INOUT, SPLIT_WHOLE, 4);
    l->workspace = 64;
    l->stateful = 1;
    l->streams = STREAMS_CHUNK;
    l->max_chunks = (int)p->dim[0];
}

static void toy_fill(const problem *p, int set, void *const *host)
{
    rng_fill_uniform((float *)host[TX], (size_t)p->dim[0], 77 + set);
    *(int *)host[TSTEPS] = 100;
}

static void *toy_ref(const problem *p, void *const *host)
{
    double *r = (double *)malloc(sizeof(double));
    *r = 0;
    for (long i = 0; i < p->dim[0]; i++) *r += ((const float *)host[TX])[i];
    return r;
}

static check_result toy_check(const problem *p, const void *ref, int step, dtype_t dt, void *const *host,
                              char *why, size_t whycap)
{
    (void)step; /* one-step suite */
    double got = *(const float *)host[TS];
    check_result r = check_compare_d(&got, (const double *)ref, 1,
                                     check_tolerance(dt, (long)p->dim[0]));
    if (!r.pass) snprintf(why, whycap, "sum %g, reference %g", got, *(const double *)ref);
    if (*(const int *)host[TSTEPS] != 101) {
        snprintf(why, whycap, "steps %d after the checked run, want 101", *(const int *)host[TSTEPS]);
        r.pass = 0;
    }
    return r;
}

static void toy_chunk(const problem *p, int buf, int c, int n, size_t *off, size_t *len)
{
    long r0 = p->dim[0] * c / n, r1 = p->dim[0] * (c + 1) / n;
    (void)buf;
    *off = (size_t)r0 * 4;
    *len = (size_t)(r1 - r0) * 4;
}

static int toy_compute(const backend_def *b, const problem *p, int c, int n, void *const *dev,
                       void *ws, void *stream)
{
    size_t off, len;
    (void)b;
    if (!ws) {
        err_set("no workspace");
        return -1;
    }
    toy_chunk(p, TX, c, n, &off, &len);
    case_note_set("toy algorithm %d", 7);   /* what a library would say it chose */
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(1, 1, 1);
    cfg.blockDim = dim3(1, 1, 1);
    cfg.stream = (cudaStream_t)stream;
    LAUNCH_TRY(cudaLaunchKernelEx(&cfg, toy_sum_kernel, (const float *)((char *)dev[TX] + off),
                                  (long)(len / 4), (float *)dev[TS], (int *)dev[TSTEPS], c == 0,
                                  (float *)ws));
    return 0;
fail:
    return -1;
}

static int toy_reduce(const problem *p, int buf, void *dst, const void *partials, int n,
                      void *stream)
{
    (void)p, (void)buf;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(1, 1, 1);
    cfg.blockDim = dim3(1, 1, 1);
    cfg.stream = (cudaStream_t)stream;
    LAUNCH_TRY(cudaLaunchKernelEx(&cfg, toy_reduce_kernel, (float *)dst, (const float *)partials,
                                  bad_reduce ? n - 1 : n));
    return 0;
fail:
    return -1;
}

/* The backend's own workspace: a float per chunk, more than the layout's. */
static unsigned long long toy_workspace(const backend_def *b, const problem *p, int nchunks)
{
    (void)b, (void)p;
    return 4096ull * (unsigned long long)nchunks;
}

static int toy_setup(const backend_def *b, const problem *p, void *const *dev, void *stream)
{
    (void)b, (void)p, (void)dev, (void)stream;
    setups++;
    return 0;
}

static void toy_teardown(const backend_def *b, const problem *p)
{
    (void)b, (void)p;
    teardowns++;
}

static void toy_ref_free(void *r) { free(r); }
static int toy_no_cpu(const backend_def *b, const problem *p, void *const *h)
{
    (void)b, (void)p, (void)h;
    return -1;
}
static int toy_defaults(int q, int big, problem *out, int cap)
{
    char e[8];
    (void)q, (void)big, (void)cap;
    return toy_parse("1000", out, e, sizeof e) == 0;
}

static const suite_def TOY = {
    .name = "toy",
    .about = "reduce, state, workspace",
    .op = "toy",
    .default_baseline = NULL,
    .problem_help = "N",
    .version = 1,
    .parse = toy_parse,
    .defaults = toy_defaults,
    .layout = toy_layout,
    .fill = toy_fill,
    .ref_build = toy_ref,
    .ref_free = toy_ref_free,
    .check = toy_check,
    .cpu_run = toy_no_cpu,
    .chunk = toy_chunk,
    .emu_max_work = 0,
    .modes = NULL,
    .mode_copy = NULL,
    .expand = NULL,
    .steps = NULL,
    .dp_open = NULL,
    .coll = NULL,
    .dtypes = 0,
};
static const suite_gpu TOY_GPU = {
    .compute = toy_compute,
    .reduce = toy_reduce,
    .setup = toy_setup,
    .teardown = toy_teardown,
    .open_mode = NULL,
    .workspace = toy_workspace,
    .dp_open = NULL,
};
static const backend_def TOY_BACKENDS[] = {
    {.name = "cuda-toy", .op = "toy", .dev = DEV_GPU, .dtypes = DTYPE_BIT(DTYPE_FP32), .fn = (backend_entry)toy_compute, .fn_dt = NULL, .needs = NEEDS_GPU, .flags = 0, .default_max_flops = 0, .about = "toy", .ops = NULL, .dt_skip = NULL, .dt_path = NULL, .caveat = NULL},
    {.name = "cuda-pipe", .op = "pipe", .dev = DEV_GPU, .dtypes = DTYPE_BIT(DTYPE_FP32), .fn = (backend_entry)toy_compute, .fn_dt = NULL, .needs = NEEDS_GPU, .flags = 0, .default_max_flops = 0, .about = "toy", .ops = NULL, .dt_skip = NULL, .dt_path = NULL, .caveat = NULL},
    {.name = NULL, .op = NULL, .dev = DEV_CPU, .dtypes = DTYPE_BIT(DTYPE_FP32), .fn = NULL, .fn_dt = NULL, .needs = 0, .flags = 0, .default_max_flops = 0, .about = NULL, .ops = NULL, .dt_skip = NULL, .dt_path = NULL, .caveat = NULL}};

static void toy_suite(void)
{
    const suite_entry e = {&TOY, &TOY_GPU};
    problem p[2];
    char err[8];
    toy_parse("1000", &p[0], err, sizeof err);
    toy_parse("5", &p[1], err, sizeof err);
    runner r = make_runner(TOY_BACKENDS);
    nrows = setups = teardowns = 0;
    runner_run(&r, &e, p, 2);
    int modes = nmodes_of(&e), opened = 0;
    EXPECT(nrows == 2 * modes, "toy rows %d", nrows);
    for (int i = 0; i < nrows; i++) {
        const gpu_mode *m = gpu_mode_find(rows[i].mode);
        int skip = m->kind == GPU_STREAMS && m->nstreams > atoi(rows[i].shape);
        opened += !skip;
        EXPECT(strcmp(rows[i].check, skip ? "skip" : "pass") == 0, "toy %s %s: %s (%s)",
               rows[i].shape, rows[i].mode, rows[i].check, rows[i].note);
        if (!skip) {
            /* x, s, steps, the partials and the backend's workspace (4 KiB a chunk) */
            const gpu_mode *gm = gpu_mode_find(rows[i].mode);
            int chunks = gm->kind == GPU_STREAMS ? gm->nstreams : 1;
            long long n = atoll(rows[i].shape);
            double want = (double)(4 * n + 4 + 4 + 4096 * chunks + (chunks > 1 ? 4 * chunks : 0)) /
                          (1024.0 * 1024.0);
            EXPECT(rows[i].peak_dev_mb >= want - 1e-9, "%s: peak %g MiB, want >= %g (the backend's "
                   "workspace counted)", rows[i].mode, rows[i].peak_dev_mb, want);
        }
        if (!skip) EXPECT(strstr(rows[i].note, "toy algorithm 7") != NULL, "the backend's note: %s",
                          rows[i].note);
    }
    EXPECT(setups == opened && teardowns == opened, "setup %d teardown %d, cases %d", setups,
           teardowns, opened);

    /* the state advances once per repetition in every mode, never re-uploaded */
    case_layout l;
    memset(&l, 0, sizeof l);
    toy_layout(&p[0], &l);
    void *host[LAYOUT_MAX_BUFS] = {0};
    for (int i = 0; i < l.nbufs; i++) host[i] = calloc(1, l.buf[i].bytes);
    toy_fill(&p[0], 0, host);
    gpu_work w = {&TOY, &TOY_GPU, &TOY_BACKENDS[0], &p[0], &l, host, NULL, 0, NULL};
    for (int m = 0; GPU_MODES[m].name; m++) {
        case_exec ex;
        void *out[LAYOUT_MAX_BUFS];
        char skip[128];
        double ms = -1;
        EXPECT(gpu_exec_open(&GPU_MODES[m], &w, &ex, skip, sizeof skip) == 0, "open %s",
               GPU_MODES[m].name);
        for (int k = 0; k < 3; k++) EXPECT(ex.run(ex.st, &ms) == 0, "run: %s", err_get());
        EXPECT(ex.outputs(ex.st, out) == 0, "outputs");
        EXPECT(*(int *)out[TSTEPS] == 103, "%s: steps %d after 3 runs, want 103",
               GPU_MODES[m].name, *(int *)out[TSTEPS]);
        ex.close(ex.st);
    }
    for (int i = 0; i < l.nbufs; i++) free(host[i]);

    /* a reduce that drops a partial: every streams-N row fails, the others pass */
    bad_reduce = 1;
    nrows = 0;
    runner_run(&r, &e, p, 1);
    for (int i = 0; i < nrows; i++) {
        int streams = gpu_mode_find(rows[i].mode)->kind == GPU_STREAMS;
        EXPECT(strcmp(rows[i].check, streams ? "fail" : "pass") == 0, "bad reduce %s: %s",
               rows[i].mode, rows[i].check);
    }
    bad_reduce = 0;
}

/* ---- 4. a pipeline of independent items ----------------------------------- */

static __global__ void twice_kernel(const float *x, float *y, long n)
{
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n; i += (long)gridDim.x * blockDim.x)
        y[i] = 2.0f * x[i];
}

static void pipe_layout(const problem *p, case_layout *l)
{
    layout_add(l, "x", ROLE_IN, SPLIT_WHOLE, (size_t)p->dim[0] * 4);
    layout_add(l, "y", ROLE_OUT, SPLIT_WHOLE, (size_t)p->dim[0] * 4);
    l->streams = STREAMS_PIPELINE;
}

static void pipe_fill(const problem *p, int set, void *const *host)
{
    rng_fill_uniform((float *)host[0], (size_t)p->dim[0], 5 + set);
}

static void *pipe_ref(const problem *p, void *const *host)
{
    double *r = (double *)malloc(sizeof(double) * (size_t)p->dim[0]);
    for (long i = 0; i < p->dim[0]; i++) r[i] = 2.0 * ((const float *)host[0])[i];
    return r;
}

static check_result pipe_check(const problem *p, const void *ref, int step, dtype_t dt, void *const *host,
                               char *why, size_t whycap)
{
    (void)step; /* one-step suite */
    (void)dt;
    check_result r = check_compare((const float *)host[1], (const double *)ref, (size_t)p->dim[0], 0);
    if (!r.pass) snprintf(why, whycap, "y != 2x at %ld", r.worst_index);
    return r;
}

static int pipe_compute(const backend_def *b, const problem *p, int c, int n, void *const *dev,
                        void *ws, void *stream)
{
    (void)b, (void)c, (void)n, (void)ws;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(4, 1, 1);
    cfg.blockDim = dim3(64, 1, 1);
    cfg.stream = (cudaStream_t)stream;
    LAUNCH_TRY(cudaLaunchKernelEx(&cfg, twice_kernel, (const float *)dev[0], (float *)dev[1],
                                  (long)p->dim[0]));
    return 0;
fail:
    return -1;
}

static const suite_def PIPE = {
    .name = "pipe",
    .about = "independent items",
    .op = "pipe",
    .default_baseline = NULL,
    .problem_help = "N",
    .version = 1,
    .parse = toy_parse,
    .defaults = toy_defaults,
    .layout = pipe_layout,
    .fill = pipe_fill,
    .ref_build = pipe_ref,
    .ref_free = toy_ref_free,
    .check = pipe_check,
    .cpu_run = toy_no_cpu,
    .chunk = toy_chunk,
    .emu_max_work = 0,
    .modes = NULL,
    .mode_copy = NULL,
    .expand = NULL,
    .steps = NULL,
    .dp_open = NULL,
    .coll = NULL,
    .dtypes = 0,
};
static const suite_gpu PIPE_GPU = {
    .compute = pipe_compute,
    .reduce = NULL,
    .setup = NULL,
    .teardown = NULL,
    .open_mode = NULL,
    .workspace = NULL,
    .dp_open = NULL,
};

static void pipeline_suite(void)
{
    const suite_entry e = {&PIPE, &PIPE_GPU};
    problem p;
    char err[8];
    toy_parse("3001", &p, err, sizeof err);
    runner r = make_runner(TOY_BACKENDS);
    nrows = 0;
    runner_run(&r, &e, &p, 1);
    EXPECT(nrows == nmodes_of(&e), "pipeline rows %d", nrows);
    for (int i = 0; i < nrows; i++) {
        EXPECT(strcmp(rows[i].check, "pass") == 0, "pipeline %s: %s (%s)", rows[i].mode,
               rows[i].check, rows[i].note);
        if (gpu_mode_find(rows[i].mode)->kind == GPU_STREAMS)
            EXPECT(strstr(rows[i].note, "item pipeline") != NULL, "pipeline ideal: %s", rows[i].note);
    }
}

/* ---- 5. a planted fault fails every suite through the runner ------------- */

static void planted_faults(void)
{
    int suites = 0, tested = 0;
    for (int si = 0; SUITES[si].def; si++, suites++) {
        const suite_entry *e = &SUITES[si];
        const backend_def *first = NULL;
        for (int b = 0; BACKENDS[b].name && !first; b++) /* one this runner runs (no MPI) */
            if (strcmp(BACKENDS[b].op, e->def->op) == 0 &&
                !(BACKENDS[b].dev == DEV_CPU && (BACKENDS[b].needs & NEEDS_MPI)))
                first = &BACKENDS[b];
        problem p;
        int ok = 0;
        for (int i = 0; PROBLEMS[i] && !ok; i++) ok = take(e->def, PROBLEMS[i], &p);
        if (!first || !ok) continue;
        const char *names[] = {first->name};
        runner r = make_runner(BACKENDS);
        r.backends = names;
        r.nbackends = 1;
        setenv("BENCH_PLANT_FAULT", first->name, 1);
        nrows = 0;
        runner_run(&r, e, &p, 1);
        unsetenv("BENCH_PLANT_FAULT");
        int failed = 0, other = 0;
        for (int i = 0; i < nrows; i++) {
            if (strcmp(rows[i].check, "fail") == 0 && strstr(rows[i].note, "check failed")) failed++;
            else if (strcmp(rows[i].check, "skip") != 0) other++;
        }
        EXPECT(failed > 0 && other == 0, "%s/%s: planted fault: %d failed, %d not", e->def->name,
               first->name, failed, other);
        tested++;
    }
    EXPECT(tested == suites, "planted a fault in %d of %d suites", tested, suites);
}

int main(void)
{
    gpu_probe(0, &gpu);
    EXPECT(gpu.usable && gpu.emulated, "emulator probe: usable %d emulated %d (%s)", gpu.usable,
           gpu.emulated, gpu.why);
    EXPECT(strstr(gpu.name, "emulat") != NULL, "device name says emulated: %s", gpu.name);
    progress_init(&prog, 0);
    every_suite();
    EXPECT(gpu_handles_count() >= 1, "cuBLAS registered its handles (%d kinds)", gpu_handles_count());
    EXPECT(gpu_recover_device(&gpu) == 0 && gpu.usable, "recovering a healthy device");
    streams_equal_resident();
    toy_suite();
    pipeline_suite();
    planted_faults();
    gpu_handles_release_all();
    TEST_END();
}
