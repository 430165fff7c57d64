/* harness/gpu_modes.c - every GPU execution mode, once, for any suite's work.
 *
 * The work is the suite's buffers (layout.h) and its compute callback
 * (suite.h); gpu_exec_open prepares one mode and hands the runner a case_exec
 * whose repetition is the mode's (gpu_modes_rep.c); this file opens the case,
 * reads its outputs, finishes its row and closes it:
 *
 *   resident        every buffer on the device; device time from CUDA events
 *                   around the computation; IN buffers rotate among sets when
 *                   one set would sit in the L2 cache
 *   sync-pageable   malloc'd host buffers; blocking H2D, compute, blocking D2H;
 *   sync-pinned     cudaMallocHost buffers; end-to-end host time; the split
 *                   (h2d_ms, compute_ms, d2h_ms) from the host clock after each
 *                   synchronous step
 *   async-pageable  cudaMemcpyAsync on a stream, one synchronization at the end;
 *   async-pinned    split from events between the steps (async copies from
 *                   pageable memory are staged by the driver and do not overlap)
 *   streams-N       pinned. STREAMS_CHUNK: WHOLE inputs first (stream 0, an event
 *                   the others wait on), then per chunk c on stream c: H2D of its
 *                   CHUNK inputs, compute, D2H of its CHUNK outputs; REDUCE
 *                   outputs get one partial per chunk, summed by the suite's
 *                   reduce() on stream 0 after every chunk, then copied back.
 *                   STREAMS_PIPELINE: N independent items, item c on stream c
 *                   with its own buffers (H2D, compute, D2H), computes ordered
 *                   item after item when the work is stateful; the time is per
 *                   item. overlap_eff = ideal / measured, the ideal being what
 *                   the pipeline can take at best, from a serial run of the same
 *                   work (see ideal_pipeline)
 *   prefetch-2      step suites (a training step): pinned; step i computes on
 *                   stream 0 from one of two device input buffers while the
 *                   batch of step i+1 is copied on stream 1 into the other,
 *                   events ordering the two (a DataLoader that prefetches with
 *                   pin_memory and non_blocking copies); host time per step;
 *                   overlap_eff = ideal / measured, the ideal max(H2D, compute
 *                   + D2H) from a serial run of the same step
 *
 * In the end-to-end modes IN (and non-stateful INOUT) buffers are copied in and
 * OUT (and non-stateful INOUT) buffers copied out every repetition; stateful
 * INOUT buffers (a model's weights) and `keep` OUT buffers (its gradients)
 * stay on the device, so every mode times the same work. In a step suite
 * (layout.sets) step s copies in input set s mod sets, in every mode. Pinned allocation is timed apart (alloc_ms);
 * every device buffer, partials and workspace come from the case's pool
 * (gpu_pool.h, of the kind the case names: gpu_alloc.h); peak_dev_mb is its
 * peak allocated, reserved_dev_mb its peak reserved (library handles' own
 * memory is not counted). The checked run reads outputs where the
 * mode leaves them: the host copies of the end-to-end modes (so a wrong chunk
 * offset fails), the device buffers of resident mode.
 *
 * Compiled as C against the CUDA toolkit and as C++ against emu/, so: casts on
 * malloc, every variable declared before the first CUDA_TRY (a goto may not
 * cross an initialization in C++).
 */
#include "gpu_modes_impl.h"
#include "errmsg.h"
#include "stats.h"
#include "timer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the case_exec -------------------------------------------------------- */

static int ex_run(void *p, double *ms)
{
    mode_state *st = (mode_state *)p;
    return gpu_modes_rep_fn(st)(st, ms);
}

/* Host copies of the outputs of the checked run: resident and stateful INOUT
 * buffers come from the device; the end-to-end modes' own copies otherwise.
 * Pipeline items must all agree with item 0. */
static int ex_outputs(void *p, void **host)
{
    mode_state *st = (mode_state *)p;
    const case_layout *l = st->l;
    for (int i = 0; i < l->nbufs; i++) {
        const case_buf *b = &l->buf[i];
        host[i] = has_host(b->role) ? st->h[0][i] : NULL;
        int from_dev = st->m->kind == GPU_RESIDENT
                           ? (b->role == ROLE_OUT || b->role == ROLE_INOUT)
                           : (b->role == ROLE_INOUT && l->stateful) || (b->role == ROLE_OUT && b->keep);
        if (from_dev && b->bytes)
            CUDA_TRY(cudaMemcpyAsync(st->h[0][i], st->d[0][i], b->bytes, cudaMemcpyDeviceToHost,
                                     st->s[0]));
    }
    CUDA_TRY(cudaStreamSynchronize(st->s[0]));
    if (st->pipeline && !l->stateful)
        for (int c = 1; c < st->nstreams; c++)
            for (int i = 0; i < l->nbufs; i++)
                if (copied_out(st, i) && memcmp(st->h[c][i], st->h[0][i], l->buf[i].bytes)) {
                    err_set("pipeline item %d's %s differs from item 0's", c, l->buf[i].name);
                    return -1;
                }
    return 0;
fail:
    return -1;
}

static double median_tail(const double *x, int n, int last)
{
    stats_summary s;
    if (last > n) last = n;
    if (last < 1 || stats_summarize(x + (n - last), last, &s)) return NAN;
    return s.median;
}

/* The serial split of the same work (async, one stream): medians of 3 runs. */
static int serial_split(mode_state *st, double out[NSPLIT])
{
    double dummy;
    st->nsplit = 0;
    for (int i = 0; i < 3; i++)
        if (gpu_modes_rep_async(st, &dummy)) return -1;
    for (int i = 0; i < NSPLIT; i++) out[i] = median_tail(st->split[i], st->nsplit, 3);
    st->nsplit = 0;
    return 0;
}

/* The best time the pipeline can take, from the serial split. CHUNK: the
 * WHOLE inputs' copy (nothing overlaps it), then an N-stage pipeline of chunks
 * with stages h, c, d = the serial H2D, compute and D2H divided by N:
 * h + c + d plus (N-1) times the slowest stage, where H2D and D2H share one
 * engine (h + d) unless the device has two copy engines. PIPELINE: N items of
 * a whole serial run each, per item. */
static double ideal_pipeline(const double sp[NSPLIT], int n, int copy_engines, int pipeline)
{
    double div = pipeline ? 1 : n;
    double h = (pipeline ? sp[SPLIT_H2D_SHARED] + sp[SPLIT_H2D_IN] : sp[SPLIT_H2D_IN]) / div;
    double c = sp[SPLIT_COMPUTE] / div, d = sp[SPLIT_D2H] / div;
    double slowest = copy_engines >= 2 ? fmax(fmax(h, c), d) : fmax(h + d, c);
    double t = (pipeline ? 0 : sp[SPLIT_H2D_SHARED]) + h + c + d + (n - 1) * slowest;
    return pipeline ? t / n : t;
}

static int ex_finish(void *p, const measure_result *mr, result_row *row)
{
    mode_state *st = (mode_state *)p;
    double serial[NSPLIT];
    row->peak_dev_mb = (double)st->pool.peak_allocated / (1024.0 * 1024.0);
    row->reserved_dev_mb = (double)st->pool.peak_reserved / (1024.0 * 1024.0);
    if (st->transient) {   /* a step suite: what its allocator did */
        size_t used = strlen(row->note);
        snprintf(row->note + used, sizeof row->note - used,
                 "%sallocator %s: %d device allocations in %d steps", used ? "; " : "",
                 st->pool.a->name, st->pool.mallocs, st->steps);
    }
    if (st->pinned) row->alloc_ms = st->alloc_ms;
    if (st->m->kind == GPU_RESIDENT) {
        row->compute_ms = mr->stats.median;
    } else if (st->m->kind == GPU_STREAMS || st->m->kind == GPU_PREFETCH) {
        /* both against the serial run of the same work (async, one stream) */
        int pre = st->m->kind == GPU_PREFETCH;
        char times[96] = "";
        if (pre) {
            /* the prefetched batch is dropped first (the serial run copies into
             * slot 0) and the next step fetches its own again */
            CUDA_TRY(cudaStreamSynchronize(st->s[1]));
            st->primed = 0;
        }
        if (serial_split(st, serial)) return -1;
        double h = serial[SPLIT_H2D_SHARED] + serial[SPLIT_H2D_IN];
        double sum = h + serial[SPLIT_COMPUTE] + serial[SPLIT_D2H];
        /* prefetch-2: the batch's copy hides behind the step, max(H2D, compute + D2H) */
        double ideal = pre ? fmax(h, serial[SPLIT_COMPUTE] + serial[SPLIT_D2H])
                           : ideal_pipeline(serial, st->nstreams, st->copy_engines, st->pipeline);
        row->h2d_ms = h;
        row->compute_ms = serial[SPLIT_COMPUTE];
        row->d2h_ms = serial[SPLIT_D2H];
        row->overlap_eff = ideal / mr->stats.median;
        if (NOTE_TIMES)
            snprintf(times, sizeof times, " of %.4g ms; the serial run %.4g ms", ideal, sum);
        size_t used = strlen(row->note);
        if (pre)
            snprintf(row->note + used, sizeof row->note - used,
                     "%ssplit is the serial run (ideal: each batch's copy hidden behind the "
                     "step before%s)", used ? "; " : "", times);
        else
            snprintf(row->note + used, sizeof row->note - used,
                     "%ssplit is the serial run (ideal: a %d-%s pipeline%s; %d copy engines)",
                     used ? "; " : "", st->nstreams, st->pipeline ? "item" : "chunk", times,
                     st->copy_engines);
    } else {
        row->h2d_ms = median_tail(st->split[SPLIT_H2D_SHARED], st->nsplit, mr->n) +
                      median_tail(st->split[SPLIT_H2D_IN], st->nsplit, mr->n);
        row->compute_ms = median_tail(st->split[SPLIT_COMPUTE], st->nsplit, mr->n);
        row->d2h_ms = median_tail(st->split[SPLIT_D2H], st->nsplit, mr->n);
    }
    return 0;
fail:
    return -1;
}

static void ex_close(void *p)
{
    mode_state *st = (mode_state *)p;
    if (!st) return;
    if (st->setup_done && st->w.gpu->teardown) st->w.gpu->teardown(st->w.b, st->w.p);
    gpu_pool_close(&st->pool);   /* every device buffer; before the streams go */
    for (int k = 0; k < MAX_SETS; k++)
        for (int i = 0; i < NBUF; i++) {
            /* slot k > 0 may alias slot 0 (buffers that do not rotate) */
            if (st->h[k][i] && (k == 0 || st->h[k][i] != st->h[0][i])) {
                if (st->pinned) cudaFreeHost(st->h[k][i]);
                else free(st->h[k][i]);
            }
        }
    for (int i = 0; i < MAX_STREAMS; i++) {
        if (st->s[i]) cudaStreamDestroy(st->s[i]);
        if (st->ev_done[i]) cudaEventDestroy(st->ev_done[i]);
    }
    for (int i = 0; i < 5; i++)
        if (st->ev[i]) cudaEventDestroy(st->ev[i]);
    for (int i = 0; i < 2; i++) {
        if (st->ev_copied[i]) cudaEventDestroy(st->ev_copied[i]);
        if (st->ev_computed[i]) cudaEventDestroy(st->ev_computed[i]);
    }
    if (st->ev_shared) cudaEventDestroy(st->ev_shared);
    for (int i = 0; i < NSPLIT; i++) free(st->split[i]);
    free(st);
}

/* ---- opening a case ------------------------------------------------------- */

/* Resident sets: enough that repetitions do not re-read inputs from L2. */
static int resident_sets(const case_layout *l, size_t free_bytes)
{
    int dev = 0, l2 = 0;
    size_t set = 0;
    for (int i = 0; i < l->nbufs; i++)
        if (l->buf[i].role == ROLE_IN) set += l->buf[i].bytes;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev) != cudaSuccess)
        l2 = 0;
    if (set == 0) return 1;
    int n = (int)ceil(2.0 * l2 / (double)set);
    if (n < 1) n = 1;
    if (n > 4) n = 4;
    while (n > 1 && (double)n * set > 0.5 * (double)free_bytes) n--;
    return n;
}

/* Which buffers get a copy per slot: pipeline items have their own copies of
 * everything but stateful INOUT; otherwise only IN buffers rotate (resident
 * sets and prefetch-2's two batches on the device, a step suite's input sets
 * on the host). Slots past dslots / hslots alias slot 0. */
static int per_slot(const mode_state *st, int i)
{
    buf_role r = st->l->buf[i].role;
    if (st->pipeline) return !(r == ROLE_INOUT && st->l->stateful);
    return r == ROLE_IN;
}

static int alloc_buffers(mode_state *st)
{
    const case_layout *l = st->l;
    double t0 = timer_now_ms();
    size_t ws;
    for (int k = 0; k < st->nslots; k++)
        for (int i = 0; i < l->nbufs; i++) {
            size_t n = l->buf[i].bytes ? l->buf[i].bytes : 1;
            if (k > 0 && (!per_slot(st, i) || k >= st->dslots)) {
                st->d[k][i] = st->d[0][i];
            } else if (gpu_pool_alloc(&st->pool, &st->d[k][i], n, st->s[0])) {
                goto fail;
            }
            if (!has_host(l->buf[i].role)) continue;
            if (k > 0 && (!per_slot(st, i) || k >= st->hslots)) {
                st->h[k][i] = st->h[0][i];
                continue;
            }
            if (st->pinned) {
                CUDA_TRY(cudaMallocHost(&st->h[k][i], n));
            } else if (!(st->h[k][i] = malloc(n))) {
                err_set("out of host memory (%zu bytes)", n);
                goto fail;
            }
        }
    if (st->pinned) st->alloc_ms = timer_now_ms() - t0;
    for (int i = 0; i < l->nbufs; i++)
        if (l->buf[i].split == SPLIT_REDUCE && st->chunked) {
            if (gpu_pool_alloc(&st->pool, &st->part[i], l->buf[i].bytes * (size_t)st->nstreams,
                               st->s[0]))
                goto fail;
        }
    ws = l->workspace;
    if (st->w.gpu->workspace) { /* the backend's own need, for as many chunks as run at once */
        /* streams-N also runs the work whole, for its serial split */
        unsigned long long need = st->w.gpu->workspace(st->w.b, st->w.p, 1);
        unsigned long long split = st->w.gpu->workspace(st->w.b, st->w.p,
                                                       st->chunked ? st->nstreams : 1);
        if (split > need) need = split;
        if (need > ws) ws = (size_t)need;
    }
    st->ws_bytes = ws;
    if (ws && gpu_pool_alloc(&st->pool, &st->ws, ws, st->s[0])) goto fail;
    return 0;
fail:
    return -1;
}

/* Inputs in, outputs poisoned (0xFF bytes: NaN), on our own stream: a
 * legacy-stream cudaMemset is unordered with non-blocking streams. */
static int load_inputs(mode_state *st)
{
    const case_layout *l = st->l;
    for (int k = 0; k < st->nslots; k++)
        for (int i = 0; i < l->nbufs; i++) {
            const case_buf *b = &l->buf[i];
            /* pipeline items all take set 0 (they must agree); otherwise slot k set k */
            const void *src = st->w.sets && !st->pipeline
                                  ? st->w.sets[k % st->w.nsets][i]
                                  : st->w.host[i];
            int own_d = k == 0 || st->d[k][i] != st->d[0][i];
            int own_h = st->h[k][i] && (k == 0 || st->h[k][i] != st->h[0][i]);
            if (!b->bytes) continue;
            if (b->role == ROLE_IN || b->role == ROLE_INOUT) {
                /* prefetch-2's batches arrive through its pipeline alone: poisoned
                 * until then, so a step that does not wait for its copy fails */
                if (own_d && st->m->kind == GPU_PREFETCH && b->role == ROLE_IN)
                    CUDA_TRY(cudaMemsetAsync(st->d[k][i], 0xFF, b->bytes, st->s[0]));
                else if (own_d)
                    CUDA_TRY(cudaMemcpyAsync(st->d[k][i], src, b->bytes, cudaMemcpyHostToDevice,
                                             st->s[0]));
                if (own_h) memcpy(st->h[k][i], src, b->bytes);
            } else if (b->role == ROLE_OUT) {
                if (own_d) CUDA_TRY(cudaMemsetAsync(st->d[k][i], 0xFF, b->bytes, st->s[0]));
                if (own_h) memset(st->h[k][i], 0xFF, b->bytes);
            }
        }
    for (int i = 0; i < l->nbufs; i++)
        if (st->part[i])
            CUDA_TRY(cudaMemsetAsync(st->part[i], 0xFF, l->buf[i].bytes * (size_t)st->nstreams,
                                     st->s[0]));
    CUDA_TRY(cudaStreamSynchronize(st->s[0]));
    return 0;
fail:
    return -1;
}

int gpu_exec_open(const gpu_mode *m, const gpu_work *w, case_exec *ex, char *skip, size_t skipcap)
{
    mode_state *st = (mode_state *)calloc(1, sizeof(mode_state));
    size_t free0 = 0, total = 0;
    int dev = 0;
    if (!st) {
        err_set("out of host memory");
        return -1;
    }
    st->m = m;
    st->w = *w;
    st->l = w->l;
    st->pipeline = m->kind == GPU_STREAMS && w->l->streams == STREAMS_PIPELINE;
    st->chunked = m->kind == GPU_STREAMS && w->l->streams == STREAMS_CHUNK;
    st->nstreams = m->nstreams;
    st->pinned = m->pinned;
    if (m->kind == GPU_PREFETCH && st->nstreams != 2) {
        snprintf(skip, skipcap, "prefetch needs 2 streams, not %d", st->nstreams);
        free(st);
        return 1;
    }
    if (st->chunked && st->nstreams > w->l->max_chunks) {
        snprintf(skip, skipcap, "the problem cannot be split into %d chunks (at most %d)",
                 st->nstreams, w->l->max_chunks);
        free(st);
        return 1;
    }
    for (int i = 0; i < w->l->nbufs; i++)
        if (st->chunked && w->l->buf[i].split == SPLIT_REDUCE &&
            !w->gpu->reduce) {
            snprintf(skip, skipcap, "%s is reduced across chunks but the suite has no reduce",
                     w->l->buf[i].name);
            free(st);
            return 1;
        } else if (st->chunked && w->l->buf[i].split == SPLIT_REDUCE && w->l->buf[i].typed &&
                   dtype_is_16bit(w->l->buf[i].dtype)) {
            snprintf(skip, skipcap, "%s would be summed from %s partials, each output rounded "
                     "more than once", w->l->buf[i].name, dtype_name(w->l->buf[i].dtype));
            free(st);
            return 1;
        }
    CUDA_TRY(cudaGetDevice(&dev));
    CUDA_TRY(cudaDeviceGetAttribute(&st->copy_engines, cudaDevAttrAsyncEngineCount, dev));
    CUDA_TRY(cudaMemGetInfo(&free0, &total));
    {
        int sets = w->sets && w->l->sets ? w->nsets : 1;   /* a step suite's input sets */
        if (sets > MAX_SETS) sets = MAX_SETS;
        if (m->kind == GPU_RESIDENT) {
            st->dslots = w->l->sets ? sets : resident_sets(st->l, free0);
            st->hslots = 1;
        } else if (st->pipeline) {
            st->dslots = st->hslots = st->nstreams;
        } else {
            st->dslots = m->kind == GPU_PREFETCH ? 2 : 1;
            st->hslots = sets;
        }
        st->nslots = st->dslots > st->hslots ? st->dslots : st->hslots;
    }
    /* blocking streams: ordered with the legacy default stream, which the
     * blocking cudaMemcpy of the sync modes uses (a pageable H2D may return
     * before its DMA lands); they do not order among themselves */
    for (int i = 0; i < st->nstreams; i++) {
        CUDA_TRY(cudaStreamCreateWithFlags(&st->s[i], cudaStreamDefault));
        CUDA_TRY(cudaEventCreateWithFlags(&st->ev_done[i], cudaEventDisableTiming));
    }
    for (int i = 0; i < 5; i++) CUDA_TRY(cudaEventCreate(&st->ev[i]));
    for (int i = 0; i < 2; i++) {
        CUDA_TRY(cudaEventCreateWithFlags(&st->ev_copied[i], cudaEventDisableTiming));
        CUDA_TRY(cudaEventCreateWithFlags(&st->ev_computed[i], cudaEventDisableTiming));
    }
    CUDA_TRY(cudaEventCreateWithFlags(&st->ev_shared, cudaEventDisableTiming));
    st->transient = suite_step_count(w->def) > 0;
    {
        int o = gpu_pool_open(&st->pool, w->alloc, skip, skipcap);
        if (o == 1) {
            ex_close(st);
            return 1;
        }
        if (o) goto fail;
    }
    if (alloc_buffers(st) || load_inputs(st)) goto fail;
    if (w->gpu->setup) {
        if (w->gpu->setup(w->b, w->p, st->d[0], (void *)st->s[0])) goto fail;
        CUDA_TRY(cudaStreamSynchronize(st->s[0]));
    }
    st->setup_done = 1;
    memset(ex, 0, sizeof *ex);
    ex->st = st;
    ex->run = ex_run;
    ex->outputs = ex_outputs;
    ex->finish = ex_finish;
    ex->close = ex_close;
    return 0;
fail:
    ex_close(st);
    return -1;
}

int gpu_stream_sync(void *stream)
{
    CUDA_TRY(cudaStreamSynchronize((cudaStream_t)stream));
    return 0;
fail:
    return -1;
}

