/* emu/tests/streams.cu - (e) missing synchronization is visible, plus the
 * stream and event basics.
 *
 * Under the emulator streams are lazy: queued work runs only when something
 * waits on it.  So (1) reading a pinned buffer right after cudaMemcpyAsync,
 * without synchronizing, sees the old contents; (2) a stream B that consumes
 * stream A's output without cudaStreamWaitEvent computes on the old data, and
 * with the wait on the new.  The legacy default stream waits for blocking
 * streams but not for non-blocking ones.  The assertions that depend on the
 * emulator's laziness are compiled only for it (#ifdef __CUDAEMU__).
 */
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>

#include "test_util.h"

__global__ void fill(float *x, int n, float v)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v + float(i);
}

__global__ void twice(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[i];
}

static void launch_fill(cudaStream_t s, float *x, int n, float v)
{
    fill<<<(n + 127) / 128, 128, 0, s>>>(x, n, v);
    CK(cudaGetLastError());
}

static void launch_twice(cudaStream_t s, const float *in, float *out, int n)
{
    twice<<<(n + 127) / 128, 128, 0, s>>>(in, out, n);
    CK(cudaGetLastError());
}

static int count_right(const float *h, int n, float v, float factor)
{
    int ok = 0;
    for (int i = 0; i < n; ++i) ok += h[i] == factor * (v + float(i));
    return ok;
}

static int g_host_calls = 0;
static void host_fn(void *p) { g_host_calls += *static_cast<int *>(p); }

int main()
{
    const int n = 1000;
    float *d, *d2, *h;
    CK(cudaMalloc(&d, n * sizeof(float)));
    CK(cudaMalloc(&d2, n * sizeof(float)));
    CK(cudaMallocHost(&h, n * sizeof(float)));
    cudaStream_t a, b;
    CK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));

    /* (1) missing stream synchronization */
    for (int i = 0; i < n; ++i) h[i] = -1.0f;
    launch_fill(a, d, n, 10.0f);
    CK(cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, a));
#ifdef __CUDAEMU__
    CHECK_EQ_INT(count_right(h, n, 10.0f, 1.0f), 0); /* not synchronized yet: old values */
    CHECK(h[0] == -1.0f);
    CHECK(cudaStreamQuery(a) == cudaErrorNotReady);
#endif
    CK(cudaStreamSynchronize(a));
    CHECK_EQ_INT(count_right(h, n, 10.0f, 1.0f), n);
    CK(cudaStreamQuery(a));

    /* (2) B consumes A's output without a cudaStreamWaitEvent */
    launch_fill(a, d, n, 100.0f);
    launch_twice(b, d, d2, n);
    CK(cudaStreamSynchronize(b));
    CK(cudaMemcpy(h, d2, n * sizeof(float), cudaMemcpyDeviceToHost));
#ifdef __CUDAEMU__
    CHECK_EQ_INT(count_right(h, n, 100.0f, 2.0f), 0); /* B ran on the old data: wrong */
#endif
    CK(cudaStreamSynchronize(a));

    /* ... and with the wait it is right */
    cudaEvent_t produced;
    CK(cudaEventCreateWithFlags(&produced, cudaEventDisableTiming));
    launch_fill(a, d, n, 200.0f);
    CK(cudaEventRecord(produced, a));
    CK(cudaStreamWaitEvent(b, produced, 0));
    launch_twice(b, d, d2, n);
    CK(cudaStreamSynchronize(b));
    CK(cudaMemcpy(h, d2, n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK_EQ_INT(count_right(h, n, 200.0f, 2.0f), n);

    /* the legacy default stream does not wait for non-blocking streams ... */
    launch_fill(a, d, n, 300.0f);
    CK(cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost));
#ifdef __CUDAEMU__
    CHECK_EQ_INT(count_right(h, n, 300.0f, 1.0f), 0);
#endif
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK_EQ_INT(count_right(h, n, 300.0f, 1.0f), n);
    /* ... but it does wait for blocking ones */
    cudaStream_t blocking;
    CK(cudaStreamCreate(&blocking));
    launch_fill(blocking, d, n, 400.0f);
    CK(cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK_EQ_INT(count_right(h, n, 400.0f, 1.0f), n);
    /* and work on a blocking stream waits for earlier default-stream work */
    launch_fill(0, d, n, 500.0f);
    launch_twice(blocking, d, d2, n);
    CK(cudaStreamSynchronize(blocking));
    CK(cudaMemcpyAsync(h, d2, n * sizeof(float), cudaMemcpyDeviceToHost, blocking));
    CK(cudaStreamSynchronize(blocking));
    CHECK_EQ_INT(count_right(h, n, 500.0f, 2.0f), n);

    /* events: query, synchronize, elapsed (host) time, error codes */
    cudaEvent_t start, stop;
    CK(cudaEventCreate(&start));
    CK(cudaEventCreate(&stop));
    float ms = -1;
    CHECK(cudaEventElapsedTime(&ms, start, stop) == cudaErrorInvalidResourceHandle); /* not recorded */
    CHECK(cudaGetLastError() == cudaErrorInvalidResourceHandle);
    CK(cudaEventQuery(start)); /* never recorded: complete */
    CK(cudaEventRecord(start, a));
    launch_fill(a, d, n, 1.0f);
    CK(cudaEventRecord(stop, a));
#ifdef __CUDAEMU__
    CHECK(cudaEventQuery(stop) == cudaErrorNotReady);
    CHECK(cudaEventElapsedTime(&ms, start, stop) == cudaErrorNotReady);
#endif
    CK(cudaEventSynchronize(stop));
    CK(cudaEventQuery(stop));
    CK(cudaEventElapsedTime(&ms, start, stop));
    CHECK(ms >= 0.0f);
    CHECK(cudaEventElapsedTime(&ms, start, produced) == cudaErrorInvalidResourceHandle); /* no timing */
    CHECK(cudaGetLastError() == cudaErrorInvalidResourceHandle);
    CHECK(cudaEventCreateWithFlags(&produced, 0x40) == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);

    /* polling a stream terminates */
    launch_fill(b, d, n, 2.0f);
    int polls = 0;
    while (cudaStreamQuery(b) == cudaErrorNotReady) ++polls;
    CHECK(polls >= 0 && polls < 100);
    CK(cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK_EQ_INT(count_right(h, n, 2.0f, 1.0f), n);

    /* host functions run in stream order */
    int inc = 5;
    CK(cudaLaunchHostFunc(a, host_fn, &inc));
#ifdef __CUDAEMU__
    CHECK_EQ_INT(g_host_calls, 0);
#endif
    CK(cudaStreamSynchronize(a));
    CHECK_EQ_INT(g_host_calls, 5);

    /* priorities and flags */
    int least = 1, greatest = 1;
    CK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    CHECK(greatest <= least);
    cudaStream_t prio;
    CK(cudaStreamCreateWithPriority(&prio, cudaStreamNonBlocking, greatest));
    int p = 99;
    unsigned fl = 99;
    CK(cudaStreamGetPriority(prio, &p));
    CK(cudaStreamGetFlags(prio, &fl));
    CHECK_EQ_INT(p, greatest);
    CHECK_EQ_INT(fl, cudaStreamNonBlocking);

    /* a destroyed stream finishes its work; its handle is then invalid */
    launch_fill(prio, d, n, 7.0f);
    CK(cudaStreamDestroy(prio));
    CK(cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK_EQ_INT(count_right(h, n, 7.0f, 1.0f), n);
#ifdef __CUDAEMU__
    CHECK(cudaStreamSynchronize(prio) == cudaErrorInvalidResourceHandle);
    CHECK(cudaGetLastError() == cudaErrorInvalidResourceHandle);
#endif

    CK(cudaEventDestroy(start));
    CK(cudaEventDestroy(stop));
    CK(cudaEventDestroy(produced));
    CK(cudaStreamDestroy(a));
    CK(cudaStreamDestroy(b));
    CK(cudaStreamDestroy(blocking));
    CK(cudaFreeHost(h));
    CK(cudaFree(d));
    CK(cudaFree(d2));
    return test_exit("streams");
}
