/* suites/transfer/transfer_gpu.c - the GPU half of transfer: its own modes
 * (direction, host memory, sync or async) and the copy, the entry point of
 * backend cuda-memcpy. Sync copies are timed with the host clock around the
 * blocking cudaMemcpy (what a caller waits); async and D2D copies with CUDA
 * events around the copy on a stream (device time). Pinned allocation is timed
 * apart (alloc_ms). Compiled against CUDA and emu/ (C that is also C++). */
#include "transfer.h"
#include "cuda_check.h"
#include "roofs.h"
#include "errmsg.h"
#include "timer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct copy_state {
    int h2d, d2h, d2d, pinned, async;
    size_t bytes;
    copy_fn copy;
    void *host, *dev, *dev2;
    unsigned char *readback;
    double alloc_ms;
    cudaStream_t s;
    cudaEvent_t e0, e1;
} copy_state;

int copy_cuda_memcpy(void *dst, const void *src, size_t bytes, int kind, int async, void *stream)
{
    if (async)
        CUDA_TRY(cudaMemcpyAsync(dst, src, bytes, (enum cudaMemcpyKind)kind, (cudaStream_t)stream));
    else
        CUDA_TRY(cudaMemcpy(dst, src, bytes, (enum cudaMemcpyKind)kind));
    return 0;
fail:
    return -1;
}

/* One repetition: blocking copies are timed by the host clock in measure_run;
 * queued ones by events around them. A blocking copy from pageable memory to
 * the device may return once its source is staged, before the bytes land
 * (CUDA's API synchronization rules): the legacy stream it was issued to is
 * synchronized, so the time is until they have landed. */
static int copy_once(void *p, double *ms)
{
    copy_state *c = (copy_state *)p;
    float t = 0;
    if (!c->async && !c->d2d) {
        if (!c->h2d) return c->copy(c->host, c->dev, c->bytes, cudaMemcpyDeviceToHost, 0, NULL);
        if (c->copy(c->dev, c->host, c->bytes, cudaMemcpyHostToDevice, 0, NULL)) return -1;
        CUDA_TRY(cudaStreamSynchronize(0));
        return 0;
    }
    CUDA_TRY(cudaEventRecord(c->e0, c->s));
    if (c->d2d) {
        if (c->copy(c->dev2, c->dev, c->bytes, cudaMemcpyDeviceToDevice, 1, c->s)) goto fail;
    } else if (c->h2d) {
        if (c->copy(c->dev, c->host, c->bytes, cudaMemcpyHostToDevice, 1, c->s)) goto fail;
    } else if (c->copy(c->host, c->dev, c->bytes, cudaMemcpyDeviceToHost, 1, c->s)) {
        goto fail;
    }
    CUDA_TRY(cudaEventRecord(c->e1, c->s));
    CUDA_TRY(cudaEventSynchronize(c->e1));
    CUDA_TRY(cudaEventElapsedTime(&t, c->e0, c->e1));
    *ms = t;
    return 0;
fail:
    return -1;
}

/* The copy's destination, in host memory. Read back on the copy's own
 * non-blocking stream, which nothing orders after legacy-stream work: so the
 * check passes only if copy_once itself waited for its bytes to land. */
static int copy_outputs(void *p, void **host)
{
    copy_state *c = (copy_state *)p;
    if (c->d2h) {
        host[0] = c->host;
        return 0;
    }
    CUDA_TRY(cudaMemcpyAsync(c->readback, c->d2d ? c->dev2 : c->dev, c->bytes,
                             cudaMemcpyDeviceToHost, c->s));
    CUDA_TRY(cudaStreamSynchronize(c->s));
    host[0] = c->readback;
    return 0;
fail:
    return -1;
}

/* A d2d row counts each byte read and written (roof_copy_traffic), as
 * bandwidthTest and nvbandwidth do, and says so in its note; its GB/s
 * follow. */
static int copy_finish(void *p, const measure_result *m, result_row *row)
{
    copy_state *c = (copy_state *)p;
    (void)m;
    if (c->d2d) {
        const double moved = roof_copy_traffic(ROOF_COPY_D2D, (double)c->bytes);
        if (row->gbps > 0) row->gbps *= moved / row->bytes;
        row->bytes = moved;
        const size_t used = strlen(row->note);
        snprintf(row->note + used, sizeof row->note - used, "%sbytes: read + written (2x the copy)",
                 used ? "; " : "");
    }
    if (c->pinned) row->alloc_ms = c->alloc_ms;
    row->peak_dev_mb = (double)c->bytes * (c->d2d ? 2 : 1) / (1024.0 * 1024.0);
    row->reserved_dev_mb = row->peak_dev_mb;   /* cudaMalloc'd as asked, no pool */
    return 0;
}

static void copy_close(void *p)
{
    copy_state *c = (copy_state *)p;
    if (!c) return;
    if (c->pinned) cudaFreeHost(c->host);
    else free(c->host);
    cudaFree(c->dev);
    cudaFree(c->dev2);
    if (c->s) cudaStreamDestroy(c->s);
    if (c->e0) cudaEventDestroy(c->e0);
    if (c->e1) cudaEventDestroy(c->e1);
    free(c->readback);
    free(c);
}

static int transfer_open(const backend_def *b, const char *mode, const problem *p, case_exec *ex,
                         char *skip, size_t skipcap)
{
    copy_state *c = (copy_state *)calloc(1, sizeof(copy_state));
    unsigned char *pattern = NULL;
    size_t bytes = (size_t)p->dim[0];
    double t0;
    (void)skip, (void)skipcap;
    if (!c) {
        err_set("out of host memory");
        return -1;
    }
    c->h2d = strncmp(mode, "h2d", 3) == 0;
    c->d2h = strncmp(mode, "d2h", 3) == 0;
    c->d2d = strcmp(mode, "d2d") == 0;
    c->pinned = strstr(mode, "-pinned") != NULL;
    c->async = strstr(mode, "-async") != NULL;
    c->bytes = bytes;
    c->copy = (copy_fn)b->fn;
    pattern = (unsigned char *)malloc(bytes ? bytes : 1);
    c->readback = (unsigned char *)malloc(bytes ? bytes : 1);
    if (!pattern || !c->readback) {
        err_set("out of host memory (%zu bytes)", bytes);
        goto fail;
    }
    transfer_pattern(pattern, bytes);
    if (!c->d2d) {
        t0 = timer_now_ms();
        if (c->pinned) CUDA_TRY(cudaMallocHost(&c->host, bytes));
        else c->host = malloc(bytes);
        if (c->pinned) c->alloc_ms = timer_now_ms() - t0;
        if (!c->host) {
            err_set("out of host memory (%zu bytes)", bytes);
            goto fail;
        }
    }
    CUDA_TRY(cudaMalloc(&c->dev, bytes));
    if (c->d2d) CUDA_TRY(cudaMalloc(&c->dev2, bytes));
    CUDA_TRY(cudaStreamCreateWithFlags(&c->s, cudaStreamNonBlocking));
    CUDA_TRY(cudaEventCreate(&c->e0));
    CUDA_TRY(cudaEventCreate(&c->e1));
    /* source = pattern, destination poisoned; on the copy's own stream, since a
     * legacy-stream memset is unordered with a non-blocking stream */
    if (c->h2d) {
        memcpy(c->host, pattern, bytes);
        CUDA_TRY(cudaMemsetAsync(c->dev, 0xFF, bytes, c->s));
    } else {
        CUDA_TRY(cudaMemcpyAsync(c->dev, pattern, bytes, cudaMemcpyHostToDevice, c->s));
        if (c->d2d) CUDA_TRY(cudaMemsetAsync(c->dev2, 0xFF, bytes, c->s));
        else memset(c->host, 0xFF, bytes);
    }
    CUDA_TRY(cudaStreamSynchronize(c->s));
    free(pattern);
    memset(ex, 0, sizeof *ex);
    ex->st = c;
    ex->run = copy_once;
    ex->outputs = copy_outputs;
    ex->finish = copy_finish;
    ex->close = copy_close;
    return 0;
fail:
    free(pattern);
    copy_close(c);
    return -1;
}

const suite_gpu SUITE_TRANSFER_GPU = {
    .compute = NULL,
    .reduce = NULL,
    .setup = NULL,
    .teardown = NULL,
    .open_mode = transfer_open,
    .workspace = NULL,
    .dp_open = NULL,
};
