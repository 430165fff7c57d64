/* harness/gpu_modes_rep.c - one repetition of an opened GPU case, per
 * execution mode (see gpu_modes.c for what each mode times, and
 * gpu_modes_impl.h for the state they share). Compiled as C against the CUDA
 * toolkit and as C++ against emu/: every variable declared before the first
 * CUDA_TRY. */
#include "test_hooks.h"
#include "gpu_modes_impl.h"
#include "errmsg.h"
#include "timer.h"

#include <stdlib.h>
#include <string.h>

/* Keeps the split of every call (warm-ups first); grows as needed. On out of
 * memory the split stops growing and the columns use the calls it has. */
static void record_split(mode_state *st, double h2d_shared, double h2d_in, double comp, double d2h)
{
    if (st->nsplit >= st->split_cap) {
        int cap = st->split_cap ? 2 * st->split_cap : 256;
        for (int i = 0; i < NSPLIT; i++) {
            double *p = (double *)realloc(st->split[i], (size_t)cap * sizeof(double));
            if (!p) return;
            st->split[i] = p;
        }
        st->split_cap = cap;
    }
    st->split[SPLIT_H2D_SHARED][st->nsplit] = h2d_shared;
    st->split[SPLIT_H2D_IN][st->nsplit] = h2d_in;
    st->split[SPLIT_COMPUTE][st->nsplit] = comp;
    st->split[SPLIT_D2H][st->nsplit] = d2h;
    st->nsplit++;
}

/* A step suite's step products and workspace given back to the pool and
 * taken anew (step_buf), in stream order on s, before the step that writes
 * them: what the allocator kind costs is inside the step's time, and the
 * last step's stay readable for the check. Slots that alias slot 0 follow. */
static int renew_step_bufs(mode_state *st, cudaStream_t s)
{
    for (int i = 0; i < st->l->nbufs; i++) {
        void *old = st->d[0][i], *p = NULL;
        size_t n = st->l->buf[i].bytes ? st->l->buf[i].bytes : 1;
        if (!step_buf(&st->l->buf[i])) continue;
        if (gpu_pool_free(&st->pool, old, s)) return -1;
        st->d[0][i] = NULL;
        if (gpu_pool_alloc(&st->pool, &p, n, s)) return -1;
        for (int k = 0; k < MAX_SETS; k++)
            if (k == 0 || st->d[k][i] == old) st->d[k][i] = p;
    }
    if (st->ws) {
        if (gpu_pool_free(&st->pool, st->ws, s)) return -1;
        st->ws = NULL;
        if (gpu_pool_alloc(&st->pool, &st->ws, st->ws_bytes, s)) return -1;
    }
    return 0;
}

/* The suite's compute of chunk c of n on dev (REDUCE buffers: their partial). */
static int compute(mode_state *st, int c, int n, void *const *dev, cudaStream_t s)
{
    st->steps++;
    if (st->transient && renew_step_bufs(st, s)) return -1;
    return st->w.gpu->compute(st->w.b, st->w.p, c, n, dev, st->ws, (void *)s);
}

/* H2D of the copied-in buffers, WHOLE ones or the others, from host slot hs
 * to device slot ds: async copies on s, or blocking copies. */
static int copy_in(mode_state *st, int hs, int ds, int whole, cudaStream_t s, int blocking)
{
    for (int i = 0; i < st->l->nbufs; i++) {
        const case_buf *b = &st->l->buf[i];
        if (!copied_in(st, i) || (b->split == SPLIT_WHOLE) != whole || !b->bytes) continue;
        if (blocking)
            CUDA_TRY(cudaMemcpy(st->d[ds][i], st->h[hs][i], b->bytes, cudaMemcpyHostToDevice));
        else
            CUDA_TRY(cudaMemcpyAsync(st->d[ds][i], st->h[hs][i], b->bytes,
                                     cudaMemcpyHostToDevice, s));
    }
    return 0;
fail:
    return -1;
}

static int copy_out(mode_state *st, int slot, cudaStream_t s, int blocking)
{
    for (int i = 0; i < st->l->nbufs; i++) {
        const case_buf *b = &st->l->buf[i];
        if (!copied_out(st, i) || !b->bytes) continue;
        if (blocking)
            CUDA_TRY(cudaMemcpy(st->h[slot][i], st->d[slot][i], b->bytes, cudaMemcpyDeviceToHost));
        else
            CUDA_TRY(cudaMemcpyAsync(st->h[slot][i], st->d[slot][i], b->bytes,
                                     cudaMemcpyDeviceToHost, s));
    }
    return 0;
fail:
    return -1;
}

/* ---- one repetition per mode ---------------------------------------------- */

static int rep_resident(void *p, double *ms)
{
    mode_state *st = (mode_state *)p;
    int k = st->next;
    float t = 0;
    st->next = (st->next + 1) % st->dslots;
    CUDA_TRY(cudaEventRecord(st->ev[0], st->s[0]));
    if (compute(st, 0, 1, st->d[k], st->s[0])) goto fail;
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
    double t0 = timer_now_ms(), ts, t1, t2;
    int hs = st->hnext;
    (void)ms; /* host clock around the whole call */
    st->hnext = (hs + 1) % st->hslots;
    if (copy_in(st, hs, 0, 1, 0, 1)) goto fail;
    /* a pageable H2D returns once staged: wait for its DMA, so the split is honest */
    CUDA_TRY(cudaStreamSynchronize(0));
    ts = timer_now_ms();
    if (copy_in(st, hs, 0, 0, 0, 1)) goto fail;
    CUDA_TRY(cudaStreamSynchronize(0));
    t1 = timer_now_ms();
    if (compute(st, 0, 1, st->d[0], st->s[0])) goto fail;
    CUDA_TRY(cudaStreamSynchronize(st->s[0]));
    t2 = timer_now_ms();
    if (copy_out(st, 0, 0, 1)) goto fail;
    record_split(st, ts - t0, t1 - ts, t2 - t1, timer_now_ms() - t2);
    return 0;
fail:
    return -1;
}

/* H2D, compute, D2H on one stream with events between; one synchronization. */
int gpu_modes_rep_async(void *p, double *ms)
{
    mode_state *st = (mode_state *)p;
    cudaStream_t s = st->s[0];
    float a = 0, a2 = 0, b = 0, c = 0;
    int hs = st->hnext;
    (void)ms;
    st->hnext = (hs + 1) % st->hslots;
    CUDA_TRY(cudaEventRecord(st->ev[0], s));
    if (copy_in(st, hs, 0, 1, s, 0)) goto fail;
    CUDA_TRY(cudaEventRecord(st->ev[4], s));
    if (copy_in(st, hs, 0, 0, s, 0)) goto fail;
    CUDA_TRY(cudaEventRecord(st->ev[1], s));
    if (compute(st, 0, 1, st->d[0], s)) goto fail;
    CUDA_TRY(cudaEventRecord(st->ev[2], s));
    if (copy_out(st, 0, s, 0)) goto fail;
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

/* streams-N, STREAMS_CHUNK: one problem in n chunks over n streams. */
static int rep_chunks(void *p, double *ms)
{
    mode_state *st = (mode_state *)p;
    const case_layout *l = st->l;
    int n = st->nstreams, tail = 0;
    void *dev[NBUF];
    size_t off, len;
    (void)ms;
    if (copy_in(st, 0, 0, 1, st->s[0], 0)) goto fail;
    CUDA_TRY(cudaEventRecord(st->ev_shared, st->s[0]));
    for (int i = 1; i < n; i++) CUDA_TRY(cudaStreamWaitEvent(st->s[i], st->ev_shared, 0));
    for (int c = 0; c < n; c++) {
        cudaStream_t s = st->s[c];
        for (int i = 0; i < l->nbufs; i++) {
            const case_buf *b = &l->buf[i];
            dev[i] = b->split == SPLIT_REDUCE ? (char *)st->part[i] + (size_t)c * b->bytes
                                              : st->d[0][i];
            if (b->split != SPLIT_CHUNK || !copied_in(st, i)) continue;
            st->w.def->chunk(st->w.p, i, c, n, &off, &len);
            if (len)
                CUDA_TRY(cudaMemcpyAsync((char *)st->d[0][i] + off, (const char *)st->h[0][i] + off,
                                         len, cudaMemcpyHostToDevice, s));
        }
        if (compute(st, c, n, dev, s)) goto fail;
        for (int i = 0; i < l->nbufs; i++) {
            const case_buf *b = &l->buf[i];
            if (!copied_out(st, i)) continue;
            if (b->split != SPLIT_CHUNK) {
                tail = 1;
                continue;
            }
            st->w.def->chunk(st->w.p, i, c, n, &off, &len);
            if (len)
                CUDA_TRY(cudaMemcpyAsync((char *)st->h[0][i] + off, (const char *)st->d[0][i] + off,
                                         len, cudaMemcpyDeviceToHost, s));
        }
        CUDA_TRY(cudaEventRecord(st->ev_done[c], s));
    }
    if (tail) { /* whole and reduced outputs: after every chunk, on stream 0 */
        for (int c = 1; c < n; c++) CUDA_TRY(cudaStreamWaitEvent(st->s[0], st->ev_done[c], 0));
        for (int i = 0; i < l->nbufs; i++) {
            const case_buf *b = &l->buf[i];
            if (!copied_out(st, i) || b->split == SPLIT_CHUNK) continue;
            if (b->split == SPLIT_REDUCE &&
                st->w.gpu->reduce(st->w.p, i, st->d[0][i], st->part[i], n, (void *)st->s[0]))
                goto fail;
            CUDA_TRY(cudaMemcpyAsync(st->h[0][i], st->d[0][i], b->bytes, cudaMemcpyDeviceToHost,
                                     st->s[0]));
        }
    }
    for (int i = 0; i < n; i++) CUDA_TRY(cudaStreamSynchronize(st->s[i]));
    return 0;
fail:
    return -1;
}

/* streams-N, STREAMS_PIPELINE: n independent items, item c on stream c;
 * stateful work computes item after item. Returns the time per item. */
static int rep_pipeline(void *p, double *ms)
{
    mode_state *st = (mode_state *)p;
    int n = st->nstreams;
    double t0 = timer_now_ms();
    for (int c = 0; c < n; c++) {
        cudaStream_t s = st->s[c];
        if (copy_in(st, c, c, 1, s, 0) || copy_in(st, c, c, 0, s, 0)) goto fail;
        if (st->l->stateful && c > 0) CUDA_TRY(cudaStreamWaitEvent(s, st->ev_done[c - 1], 0));
        if (compute(st, 0, 1, st->d[c], s)) goto fail;
        CUDA_TRY(cudaEventRecord(st->ev_done[c], s));
        if (copy_out(st, c, s, 0)) goto fail;
    }
    for (int i = 0; i < n; i++) CUDA_TRY(cudaStreamSynchronize(st->s[i]));
    *ms = (timer_now_ms() - t0) / n;
    return 0;
fail:
    return -1;
}

/* Test hook: BENCH_PLANT_RACE=prefetch drops prefetch-2's wait for the copy
 * of a step's batch, so tests watch the race fail the check. */
static int plant_race(void)
{
    const char *f = getenv(HOOK_PLANT_RACE);
    return f && strcmp(f, "prefetch") == 0;
}

static int copy_batch(mode_state *st, int ds, cudaStream_t s)
{
    int hs = st->hnext;
    st->hnext = (hs + 1) % st->hslots;
    if (copy_in(st, hs, ds, 1, s, 0) || copy_in(st, hs, ds, 0, s, 0)) return -1;
    CUDA_TRY(cudaEventRecord(st->ev_copied[ds], s));
    return 0;
fail:
    return -1;
}

/* prefetch-2: step i on stream 0 from device slot cur while stream 1 copies
 * the batch of step i+1 into the other slot, once the step that last read
 * that slot is done. The first call copies its own batch first. */
static int rep_prefetch(void *p, double *ms)
{
    mode_state *st = (mode_state *)p;
    cudaStream_t cs = st->s[0], xs = st->s[1];
    int cur = st->dcur, nxt = 1 - cur;
    (void)ms; /* host clock: a step's time in the steady state */
    if (!st->primed) {
        if (copy_batch(st, cur, xs)) goto fail;
        st->primed = 1;
    }
    if (st->computed[nxt]) CUDA_TRY(cudaStreamWaitEvent(xs, st->ev_computed[nxt], 0));
    if (copy_batch(st, nxt, xs)) goto fail;
    if (!plant_race()) CUDA_TRY(cudaStreamWaitEvent(cs, st->ev_copied[cur], 0));
    if (compute(st, 0, 1, st->d[cur], cs)) goto fail;
    CUDA_TRY(cudaEventRecord(st->ev_computed[cur], cs));
    st->computed[cur] = 1;
    if (copy_out(st, 0, cs, 0)) goto fail;
    CUDA_TRY(cudaStreamSynchronize(cs));
    st->dcur = nxt;
    return 0;
fail:
    return -1;
}

measure_fn gpu_modes_rep_fn(const mode_state *st)
{
    switch (st->m->kind) {
    case GPU_RESIDENT: return rep_resident;
    case GPU_SYNC_PAGEABLE:
    case GPU_SYNC_PINNED: return rep_sync;
    case GPU_ASYNC_PAGEABLE:
    case GPU_ASYNC_PINNED: return gpu_modes_rep_async;
    case GPU_STREAMS: return st->pipeline ? rep_pipeline : rep_chunks;
    case GPU_PREFETCH: return rep_prefetch;
    }
    return rep_resident;
}
