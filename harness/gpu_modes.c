/* harness/gpu_modes.c - one implementation of every GPU execution mode
 * (see gpu_modes.h). Compiled as C against the CUDA toolkit and as C++
 * against emu/, so: casts on malloc, every variable declared before the
 * first CUDA_TRY (a goto may not cross an initialization in C++). */
#include "gpu_modes.h"
#include "../kernels/cuda_check.h"
#include "errmsg.h"
#include "stats.h"
#include "timer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SETS 4
#define MAX_STREAMS 8

/* The parts of one repetition: H2D of the shared input, H2D of the rest,
 * compute, D2H. */
enum { SPLIT_H2D_SHARED, SPLIT_H2D_IN, SPLIT_COMPUTE, SPLIT_D2H, NSPLIT };

typedef struct mode_state {
    const gpu_mode *m;
    const gpu_work *w;
    int pinned;
    /* device buffers; resident rotates among nsets input sets */
    void *d_shared[MAX_SETS], *d_in[MAX_SETS], *d_out;
    int nsets, next;
    /* host buffers (pageable or pinned) */
    void *h_shared, *h_in, *h_out;
    cudaStream_t s[MAX_STREAMS];
    cudaEvent_t ev[5], ev_shared;
    int copy_engines;
    size_t dev_bytes;   /* device memory the case allocated */
    /* per-call split (warm-ups first), for the medians */
    double *split[NSPLIT];
    int nsplit, split_cap;
} mode_state;

static void record_split(mode_state *st, double h2d_shared, double h2d_in, double comp, double d2h)
{
    if (st->nsplit >= st->split_cap) return;
    st->split[SPLIT_H2D_SHARED][st->nsplit] = h2d_shared;
    st->split[SPLIT_H2D_IN][st->nsplit] = h2d_in;
    st->split[SPLIT_COMPUTE][st->nsplit] = comp;
    st->split[SPLIT_D2H][st->nsplit] = d2h;
    st->nsplit++;
}

/* Copies every input to the device (stream st->s[0]) and waits. */
static int upload_inputs(mode_state *st, int set)
{
    const gpu_work *w = st->w;
    if (w->shared_bytes)
        CUDA_TRY(cudaMemcpyAsync(st->d_shared[set], st->h_shared, w->shared_bytes,
                                 cudaMemcpyHostToDevice, st->s[0]));
    if (w->in_bytes)
        CUDA_TRY(cudaMemcpyAsync(st->d_in[set], st->h_in, w->in_bytes, cudaMemcpyHostToDevice,
                                 st->s[0]));
    CUDA_TRY(cudaStreamSynchronize(st->s[0]));
    return 0;
fail:
    return -1;
}

static int rep_resident(void *p, double *ms)
{
    mode_state *st = (mode_state *)p;
    int k = st->next;
    float t = 0;
    st->next = (st->next + 1) % st->nsets;
    CUDA_TRY(cudaEventRecord(st->ev[0], st->s[0]));
    if (st->w->compute(st->w->ctx, 0, 1, st->d_shared[k], st->d_in[k], st->d_out, st->s[0]))
        goto fail;
    CUDA_TRY(cudaEventRecord(st->ev[1], st->s[0]));
    CUDA_TRY(cudaEventSynchronize(st->ev[1]));
    CUDA_TRY(cudaEventElapsedTime(&t, st->ev[0], st->ev[1]));
    *ms = t;
    return 0;
fail:
    return -1;
}

static int rep_sync(void *p, double *ms)
{
    mode_state *st = (mode_state *)p;
    const gpu_work *w = st->w;
    double t0 = timer_now_ms(), ts, t1, t2;
    (void)ms; /* host clock around the whole call */
    if (w->shared_bytes)
        CUDA_TRY(cudaMemcpy(st->d_shared[0], st->h_shared, w->shared_bytes, cudaMemcpyHostToDevice));
    /* a pageable H2D returns once staged: wait for its DMA, so the split is honest */
    CUDA_TRY(cudaStreamSynchronize(0));
    ts = timer_now_ms();
    if (w->in_bytes)
        CUDA_TRY(cudaMemcpy(st->d_in[0], st->h_in, w->in_bytes, cudaMemcpyHostToDevice));
    CUDA_TRY(cudaStreamSynchronize(0));
    t1 = timer_now_ms();
    if (w->compute(w->ctx, 0, 1, st->d_shared[0], st->d_in[0], st->d_out, st->s[0])) goto fail;
    CUDA_TRY(cudaStreamSynchronize(st->s[0]));
    t2 = timer_now_ms();
    CUDA_TRY(cudaMemcpy(st->h_out, st->d_out, w->out_bytes, cudaMemcpyDeviceToHost));
    record_split(st, ts - t0, t1 - ts, t2 - t1, timer_now_ms() - t2);
    return 0;
fail:
    return -1;
}

/* H2D, compute, D2H on one stream with events between; one synchronization. */
static int rep_async(void *p, double *ms)
{
    mode_state *st = (mode_state *)p;
    const gpu_work *w = st->w;
    cudaStream_t s = st->s[0];
    float a = 0, a2 = 0, b = 0, c = 0;
    (void)ms;
    CUDA_TRY(cudaEventRecord(st->ev[0], s));
    if (w->shared_bytes)
        CUDA_TRY(cudaMemcpyAsync(st->d_shared[0], st->h_shared, w->shared_bytes,
                                 cudaMemcpyHostToDevice, s));
    CUDA_TRY(cudaEventRecord(st->ev[4], s));
    if (w->in_bytes)
        CUDA_TRY(cudaMemcpyAsync(st->d_in[0], st->h_in, w->in_bytes, cudaMemcpyHostToDevice, s));
    CUDA_TRY(cudaEventRecord(st->ev[1], s));
    if (w->compute(w->ctx, 0, 1, st->d_shared[0], st->d_in[0], st->d_out, s)) goto fail;
    CUDA_TRY(cudaEventRecord(st->ev[2], s));
    CUDA_TRY(cudaMemcpyAsync(st->h_out, st->d_out, w->out_bytes, cudaMemcpyDeviceToHost, s));
    CUDA_TRY(cudaEventRecord(st->ev[3], s));
    CUDA_TRY(cudaStreamSynchronize(s));
    CUDA_TRY(cudaEventElapsedTime(&a, st->ev[0], st->ev[4]));
    CUDA_TRY(cudaEventElapsedTime(&a2, st->ev[4], st->ev[1]));
    CUDA_TRY(cudaEventElapsedTime(&b, st->ev[1], st->ev[2]));
    CUDA_TRY(cudaEventElapsedTime(&c, st->ev[2], st->ev[3]));
    record_split(st, a, a2, b, c);
    return 0;
fail:
    return -1;
}

/* The chunked pipeline over N streams: the shared input first (stream 0, an
 * event the others wait on), then per chunk H2D, compute, D2H on its stream. */
static int rep_streams(void *p, double *ms)
{
    mode_state *st = (mode_state *)p;
    const gpu_work *w = st->w;
    int n = st->m->nstreams;
    size_t io, il, oo, ol;
    (void)ms;
    if (w->shared_bytes)
        CUDA_TRY(cudaMemcpyAsync(st->d_shared[0], st->h_shared, w->shared_bytes,
                                 cudaMemcpyHostToDevice, st->s[0]));
    CUDA_TRY(cudaEventRecord(st->ev_shared, st->s[0]));
    for (int i = 1; i < n; i++) CUDA_TRY(cudaStreamWaitEvent(st->s[i], st->ev_shared, 0));
    for (int c = 0; c < n; c++) {
        cudaStream_t s = st->s[c];
        if (w->chunk(w->ctx, c, n, &io, &il, &oo, &ol)) {
            err_set("work cannot be split into %d chunks", n);
            goto fail;
        }
        if (il)
            CUDA_TRY(cudaMemcpyAsync((char *)st->d_in[0] + io, (const char *)st->h_in + io, il,
                                     cudaMemcpyHostToDevice, s));
        if (w->compute(w->ctx, c, n, st->d_shared[0], st->d_in[0], st->d_out, s)) goto fail;
        if (ol)
            CUDA_TRY(cudaMemcpyAsync((char *)st->h_out + oo, (char *)st->d_out + oo, ol,
                                     cudaMemcpyDeviceToHost, s));
    }
    for (int i = 0; i < n; i++) CUDA_TRY(cudaStreamSynchronize(st->s[i]));
    return 0;
fail:
    return -1;
}

static measure_fn rep_fn(const gpu_mode *m)
{
    switch (m->kind) {
    case GPU_RESIDENT: return rep_resident;
    case GPU_SYNC_PAGEABLE:
    case GPU_SYNC_PINNED: return rep_sync;
    case GPU_ASYNC_PAGEABLE:
    case GPU_ASYNC_PINNED: return rep_async;
    case GPU_STREAMS: return rep_streams;
    }
    return rep_resident;
}

static double median_tail(const double *x, int n, int last)
{
    stats_summary s;
    if (last > n) last = n;
    if (last < 1 || stats_summarize(x + (n - last), last, &s)) return NAN;
    return s.median;
}

/* Host buffers of the mode's kind; pinned allocation time goes to alloc_ms. */
static int alloc_host(mode_state *st, result_row *row)
{
    const gpu_work *w = st->w;
    size_t sizes[3] = {w->shared_bytes, w->in_bytes, w->out_bytes};
    void **bufs[3] = {&st->h_shared, &st->h_in, &st->h_out};
    double t0 = timer_now_ms();
    for (int i = 0; i < 3; i++) {
        size_t n = sizes[i] ? sizes[i] : 1;
        if (st->pinned) {
            CUDA_TRY(cudaMallocHost(bufs[i], n));
        } else {
            *bufs[i] = malloc(n);
            if (!*bufs[i]) {
                err_set("out of host memory (%zu bytes)", n);
                goto fail;
            }
        }
    }
    if (st->pinned) row->alloc_ms = timer_now_ms() - t0;
    if (w->shared_bytes) memcpy(st->h_shared, w->shared_in, w->shared_bytes);
    if (w->in_bytes) memcpy(st->h_in, w->in, w->in_bytes);
    return 0;
fail:
    return -1;
}

static void free_state(mode_state *st)
{
    for (int k = 0; k < MAX_SETS; k++) {
        cudaFree(st->d_shared[k]);
        cudaFree(st->d_in[k]);
    }
    cudaFree(st->d_out);
    void *h[3] = {st->h_shared, st->h_in, st->h_out};
    for (int i = 0; i < 3; i++) {
        if (st->pinned) cudaFreeHost(h[i]);
        else free(h[i]);
    }
    for (int i = 0; i < MAX_STREAMS; i++)
        if (st->s[i]) cudaStreamDestroy(st->s[i]);
    for (int i = 0; i < 5; i++)
        if (st->ev[i]) cudaEventDestroy(st->ev[i]);
    if (st->ev_shared) cudaEventDestroy(st->ev_shared);
    for (int i = 0; i < NSPLIT; i++) free(st->split[i]);
}

/* Input sets for resident mode: enough that reps do not re-read from L2. */
static int resident_sets(const gpu_work *w, size_t free_bytes)
{
    int dev = 0, l2 = 0;
    size_t set = w->shared_bytes + w->in_bytes;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev) != cudaSuccess)
        l2 = 0;
    if (set == 0) return 1;
    int n = (int)ceil(2.0 * l2 / (double)set);
    if (n < 1) n = 1;
    if (n > MAX_SETS) n = MAX_SETS;
    while (n > 1 && (double)n * set > 0.5 * (double)free_bytes) n--;
    return n;
}

/* The serial split of the same work (async, one stream): medians of 3 runs. */
static int serial_split(mode_state *st, double out[NSPLIT])
{
    double dummy;
    st->nsplit = 0;
    for (int i = 0; i < 3; i++)
        if (rep_async(st, &dummy)) return -1;
    for (int i = 0; i < NSPLIT; i++) out[i] = median_tail(st->split[i], st->nsplit, 3);
    st->nsplit = 0;
    return 0;
}

/* The best time N chunks can take, from the serial split: the shared input's
 * copy (nothing overlaps it), then an N-stage pipeline of chunks with stages
 * h, c, d = the serial H2D, compute and D2H divided by N: h + c + d plus
 * (N-1) times the slowest stage, where H2D and D2H share one engine (h + d)
 * unless the device has two copy engines. */
static double ideal_pipeline(const double sp[NSPLIT], int n, int copy_engines)
{
    double h = sp[SPLIT_H2D_IN] / n, c = sp[SPLIT_COMPUTE] / n, d = sp[SPLIT_D2H] / n;
    double slowest = copy_engines >= 2 ? fmax(fmax(h, c), d) : fmax(h + d, c);
    return sp[SPLIT_H2D_SHARED] + h + c + d + (n - 1) * slowest;
}

int gpu_mode_run(const gpu_mode *m, const gpu_work *w, const measure_cfg *cfg, result_row *row)
{
    mode_state st;
    measure_result mr;
    check_result cr;
    size_t free0 = 0, total = 0;
    int dev = 0, nstreams = m->kind == GPU_STREAMS ? m->nstreams : 1;
    double serial[NSPLIT] = {NAN, NAN, NAN, NAN};
    char why[200] = "";
    memset(&st, 0, sizeof st);
    memset(&mr, 0, sizeof mr);
    st.m = m;
    st.w = w;
    st.pinned = m->kind == GPU_SYNC_PINNED || m->kind == GPU_ASYNC_PINNED || m->kind == GPU_STREAMS;
    st.split_cap = cfg->warmup + cfg->max_reps + 4;
    for (int i = 0; i < NSPLIT; i++) {
        st.split[i] = (double *)malloc((size_t)st.split_cap * sizeof(double));
        if (!st.split[i]) {
            err_set("out of host memory");
            goto fail;
        }
    }
    CUDA_TRY(cudaGetDevice(&dev));
    CUDA_TRY(cudaDeviceGetAttribute(&st.copy_engines, cudaDevAttrAsyncEngineCount, dev));
    CUDA_TRY(cudaMemGetInfo(&free0, &total));
    st.nsets = m->kind == GPU_RESIDENT ? resident_sets(w, free0) : 1;
    for (int k = 0; k < st.nsets; k++) {
        CUDA_TRY(cudaMalloc(&st.d_shared[k], w->shared_bytes ? w->shared_bytes : 1));
        CUDA_TRY(cudaMalloc(&st.d_in[k], w->in_bytes ? w->in_bytes : 1));
        st.dev_bytes += w->shared_bytes + w->in_bytes;
    }
    CUDA_TRY(cudaMalloc(&st.d_out, w->out_bytes ? w->out_bytes : 1));
    st.dev_bytes += w->out_bytes;
    /* blocking streams: ordered with the legacy default stream, which the
     * blocking cudaMemcpy of the sync modes uses (a pageable H2D may return
     * before its DMA lands); they do not order among themselves */
    for (int i = 0; i < nstreams; i++)
        CUDA_TRY(cudaStreamCreateWithFlags(&st.s[i], cudaStreamDefault));
    for (int i = 0; i < 5; i++) CUDA_TRY(cudaEventCreate(&st.ev[i]));
    CUDA_TRY(cudaEventCreateWithFlags(&st.ev_shared, cudaEventDisableTiming));
    if (alloc_host(&st, row)) goto fail;

    /* validate before timing: poisoned outputs, one run, check */
    for (int k = 0; k < st.nsets; k++)
        if (upload_inputs(&st, k)) goto fail;
    /* on our stream: a legacy-stream cudaMemset is unordered with non-blocking
     * streams and could land after the computation */
    CUDA_TRY(cudaMemsetAsync(st.d_out, 0xFF, w->out_bytes, st.s[0]));
    CUDA_TRY(cudaStreamSynchronize(st.s[0]));
    memset(st.h_out, 0xFF, w->out_bytes);
    {
        double dummy = -1;
        if (rep_fn(m)(&st, &dummy)) goto fail;
    }
    if (m->kind == GPU_RESIDENT) {
        CUDA_TRY(cudaMemcpyAsync(st.h_out, st.d_out, w->out_bytes, cudaMemcpyDeviceToHost,
                                 st.s[0]));
        CUDA_TRY(cudaStreamSynchronize(st.s[0]));
    }
    row->peak_dev_mb = (double)st.dev_bytes / (1024.0 * 1024.0);
    cr = w->check(w->ctx, st.h_out, why, sizeof why);
    row->max_abs_err = cr.max_abs_err;
    row->rel_err = cr.rel_err;
    row->tolerance = cr.tolerance;
    if (!cr.pass) {
        snprintf(row->check, sizeof row->check, "fail");
        snprintf(row->note, sizeof row->note, "check failed: %s", why);
        free_state(&st);
        return 0;
    }
    snprintf(row->check, sizeof row->check, "pass");

    if (m->kind == GPU_STREAMS && serial_split(&st, serial)) goto fail;
    st.nsplit = 0;
    st.next = 0;
    err_clear();
    if (measure_run(cfg, rep_fn(m), &st, &mr)) goto fail;
    result_fill_timing(row, &mr, w->flops, 0);
    if (m->kind == GPU_RESIDENT) {
        row->compute_ms = mr.stats.median;
    } else if (m->kind == GPU_STREAMS) {
        double ideal = ideal_pipeline(serial, m->nstreams, st.copy_engines);
        double sum = serial[SPLIT_H2D_SHARED] + serial[SPLIT_H2D_IN] + serial[SPLIT_COMPUTE] +
                     serial[SPLIT_D2H];
        row->h2d_ms = serial[SPLIT_H2D_SHARED] + serial[SPLIT_H2D_IN];
        row->compute_ms = serial[SPLIT_COMPUTE];
        row->d2h_ms = serial[SPLIT_D2H];
        row->overlap_eff = ideal / mr.stats.median;
        size_t used = strlen(row->note);
        snprintf(row->note + used, sizeof row->note - used,
                 "%ssplit is the serial run: sum %.4g ms, ideal %d-chunk pipeline %.4g ms "
                 "(%d copy engines)",
                 used ? "; " : "", sum, m->nstreams, ideal, st.copy_engines);
    } else {
        row->h2d_ms = median_tail(st.split[SPLIT_H2D_SHARED], st.nsplit, mr.n) +
                      median_tail(st.split[SPLIT_H2D_IN], st.nsplit, mr.n);
        row->compute_ms = median_tail(st.split[SPLIT_COMPUTE], st.nsplit, mr.n);
        row->d2h_ms = median_tail(st.split[SPLIT_D2H], st.nsplit, mr.n);
    }
    free_state(&st);
    return 0;
fail:
    snprintf(row->check, sizeof row->check, "fail");
    snprintf(row->note, sizeof row->note, "error: %s", err_get());
    measure_result_free(&mr);
    row->samples = NULL;
    row->nsamples = 0;
    free_state(&st);
    return -1;
}
