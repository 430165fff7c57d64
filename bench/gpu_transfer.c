/* bench/gpu_transfer.c - copy bandwidth and latency (the bandwidthTest /
 * nvbandwidth role): H2D, D2H from pageable or pinned host memory, sync or
 * async, and D2D. Sync copies are timed with the host clock around the
 * blocking cudaMemcpy (what a caller waits); async and D2D copies with CUDA
 * events around the copy on a stream (device time). The first copy of every
 * case is verified byte-exact against its seeded source. Pinned allocation
 * is timed apart (alloc_ms). Compiled against CUDA and emu/. */
#include "gpu_cases.h"
#include "../kernels/cuda_check.h"
#include "check.h"
#include "errmsg.h"
#include "timer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct copy_state {
    int h2d, d2h, d2d, pinned, async;
    size_t bytes;
    void *host, *dev, *dev2;
    cudaStream_t s;
    cudaEvent_t e0, e1;
} copy_state;

static int copy_once(copy_state *c, double *ms)
{
    float t = 0;
    if (!c->async && !c->d2d) {
        /* blocking copy: the host clock in measure_run times it */
        if (c->h2d) CUDA_TRY(cudaMemcpy(c->dev, c->host, c->bytes, cudaMemcpyHostToDevice));
        else CUDA_TRY(cudaMemcpy(c->host, c->dev, c->bytes, cudaMemcpyDeviceToHost));
        return 0;
    }
    CUDA_TRY(cudaEventRecord(c->e0, c->s));
    if (c->d2d)
        CUDA_TRY(cudaMemcpyAsync(c->dev2, c->dev, c->bytes, cudaMemcpyDeviceToDevice, c->s));
    else if (c->h2d)
        CUDA_TRY(cudaMemcpyAsync(c->dev, c->host, c->bytes, cudaMemcpyHostToDevice, c->s));
    else
        CUDA_TRY(cudaMemcpyAsync(c->host, c->dev, c->bytes, cudaMemcpyDeviceToHost, c->s));
    CUDA_TRY(cudaEventRecord(c->e1, c->s));
    CUDA_TRY(cudaEventSynchronize(c->e1));
    CUDA_TRY(cudaEventElapsedTime(&t, c->e0, c->e1));
    *ms = t;
    return 0;
fail:
    return -1;
}

static int rep_copy(void *p, double *ms) { return copy_once((copy_state *)p, ms); }

/* The copy's destination, read back to host, equals the seeded source. */
static int verify(copy_state *c, const unsigned char *pattern, unsigned char *scratch, int *same)
{
    const void *dst = c->d2d ? c->dev2 : c->h2d ? c->dev : c->host;
    if (c->d2h) {
        *same = memcmp(c->host, pattern, c->bytes) == 0;
        return 0;
    }
    CUDA_TRY(cudaMemcpy(scratch, dst, c->bytes, cudaMemcpyDeviceToHost));
    *same = memcmp(scratch, pattern, c->bytes) == 0;
    return 0;
fail:
    return -1;
}

int gpu_transfer_case(const char *mode, size_t bytes, const measure_cfg *cfg, result_row *row)
{
    copy_state c;
    measure_result mr;
    unsigned char *pattern = NULL, *scratch = NULL;
    double dummy = -1, t0;
    int same = 0, rc = 0;
    memset(&c, 0, sizeof c);
    memset(&mr, 0, sizeof mr);
    c.h2d = strncmp(mode, "h2d", 3) == 0;
    c.d2h = strncmp(mode, "d2h", 3) == 0;
    c.d2d = strcmp(mode, "d2d") == 0;
    c.pinned = strstr(mode, "-pinned") != NULL;
    c.async = strstr(mode, "-async") != NULL;
    c.bytes = bytes;
    row->bytes = (double)bytes;
    pattern = (unsigned char *)malloc(bytes);
    scratch = (unsigned char *)malloc(bytes);
    if (!pattern || !scratch) {
        err_set("out of host memory (%zu bytes)", bytes);
        goto fail;
    }
    rng_fill_uniform((float *)pattern, bytes / sizeof(float), 0xC0FFEEULL + bytes);
    if (!c.d2d) {
        t0 = timer_now_ms();
        if (c.pinned) CUDA_TRY(cudaMallocHost(&c.host, bytes));
        else c.host = malloc(bytes);
        if (c.pinned) row->alloc_ms = timer_now_ms() - t0;
        if (!c.host) {
            err_set("out of host memory (%zu bytes)", bytes);
            goto fail;
        }
    }
    CUDA_TRY(cudaMalloc(&c.dev, bytes));
    if (c.d2d) CUDA_TRY(cudaMalloc(&c.dev2, bytes));
    CUDA_TRY(cudaStreamCreateWithFlags(&c.s, cudaStreamNonBlocking));
    CUDA_TRY(cudaEventCreate(&c.e0));
    CUDA_TRY(cudaEventCreate(&c.e1));
    /* source = pattern, destination poisoned; on the copy's own stream, since a
     * legacy-stream memset is unordered with a non-blocking stream */
    if (c.h2d) {
        memcpy(c.host, pattern, bytes);
        CUDA_TRY(cudaMemsetAsync(c.dev, 0xFF, bytes, c.s));
    } else {
        CUDA_TRY(cudaMemcpyAsync(c.dev, pattern, bytes, cudaMemcpyHostToDevice, c.s));
        if (c.d2d) CUDA_TRY(cudaMemsetAsync(c.dev2, 0xFF, bytes, c.s));
        else memset(c.host, 0xFF, bytes);
    }
    CUDA_TRY(cudaStreamSynchronize(c.s));
    if (copy_once(&c, &dummy) || verify(&c, pattern, scratch, &same)) goto fail;
    if (!same) {
        snprintf(row->check, sizeof row->check, "fail");
        snprintf(row->note, sizeof row->note, "copy not byte-exact");
        goto done;
    }
    snprintf(row->check, sizeof row->check, "pass");
    if (measure_run(cfg, rep_copy, &c, &mr)) goto fail;
    result_fill_timing(row, &mr, 0, (double)bytes);
    goto done;
fail:
    rc = -1;
    snprintf(row->check, sizeof row->check, "fail");
    snprintf(row->note, sizeof row->note, "error: %s", err_get());
    measure_result_free(&mr);
    row->samples = NULL;
    row->nsamples = 0;
done:
    if (c.pinned) cudaFreeHost(c.host);
    else free(c.host);
    cudaFree(c.dev);
    cudaFree(c.dev2);
    if (c.s) cudaStreamDestroy(c.s);
    if (c.e0) cudaEventDestroy(c.e0);
    if (c.e1) cudaEventDestroy(c.e1);
    free(pattern);
    free(scratch);
    return rc;
}
