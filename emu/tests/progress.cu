/* emu/tests/progress.cu - streams make progress while the host waits outside
 * the CUDA API (cuda-samples' simpleCallback once hung forever).
 *
 * The host thread queues a kernel and a stream callback, then waits on a
 * condition variable that only the callback signals, never calling the
 * runtime.  On a GPU the stream runs by itself; under the emulator the
 * progress thread (CUDAEMU_PROGRESS_MS) must run it.  Each wait has a
 * timeout, so a hang fails the test instead of blocking ctest.  Run with
 * CUDAEMU_PROGRESS_MS=20 (the default; the other tests use 0, purely lazy).
 */
#include <cuda_runtime.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "test_util.h"

__global__ void fill(int *x, int n, int v)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v + i;
}

struct Signal {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    cudaError_t status = cudaErrorUnknown;
    const int *pinned = nullptr;
    int seen = -1; /* pinned[last] when the callback ran */
    int last = 0;
};

static void CUDART_CB host_fn(void *p)
{
    Signal *s = static_cast<Signal *>(p);
    std::lock_guard<std::mutex> lk(s->mu);
    s->seen = s->pinned[s->last];
    s->done = true;
    s->cv.notify_all();
}

static void CUDART_CB stream_cb(cudaStream_t, cudaError_t status, void *p)
{
    Signal *s = static_cast<Signal *>(p);
    std::lock_guard<std::mutex> lk(s->mu);
    s->status = status;
    s->seen = s->pinned[s->last];
    s->done = true;
    s->cv.notify_all();
}

/* Waits (outside the CUDA API) for the callback; false after 20 s. */
static bool wait_for(Signal &s)
{
    std::unique_lock<std::mutex> lk(s.mu);
    return s.cv.wait_for(lk, std::chrono::seconds(20), [&] { return s.done; });
}

int main()
{
    const int n = 1000;
    int *d = nullptr, *h = nullptr;
    cudaStream_t st;
    CK(cudaMalloc(&d, n * sizeof(int)));
    CK(cudaMallocHost(&h, n * sizeof(int)));
    CK(cudaStreamCreate(&st));

    /* 1: cudaLaunchHostFunc after a kernel and a copy into pinned memory */
    Signal a;
    a.pinned = h;
    a.last = n - 1;
    fill<<<(n + 127) / 128, 128, 0, st>>>(d, n, 7);
    CK(cudaGetLastError());
    CK(cudaMemcpyAsync(h, d, n * sizeof(int), cudaMemcpyDeviceToHost, st));
    CK(cudaLaunchHostFunc(st, host_fn, &a));
    if (!wait_for(a)) {
        std::fprintf(stderr, "progress: the cudaLaunchHostFunc callback never ran (hang)\n");
        std::exit(1);
    }
    CHECK_EQ_INT(a.seen, 7 + n - 1); /* stream order: the copy ran before the callback */

    /* 2: cudaStreamAddCallback, waited for by another host thread */
    Signal b;
    b.pinned = h;
    b.last = 0;
    fill<<<(n + 127) / 128, 128, 0, st>>>(d, n, 100);
    CK(cudaGetLastError());
    CK(cudaMemcpyAsync(h, d, n * sizeof(int), cudaMemcpyDeviceToHost, st));
    CK(cudaStreamAddCallback(st, stream_cb, &b, 0));
    bool ok = false;
    std::thread waiter([&] { ok = wait_for(b); });
    waiter.join();
    if (!ok) {
        std::fprintf(stderr, "progress: the cudaStreamAddCallback callback never ran (hang)\n");
        std::exit(1);
    }
    CHECK(b.status == cudaSuccess);
    CHECK_EQ_INT(b.seen, 100);

    CK(cudaStreamSynchronize(st));
    CK(cudaStreamDestroy(st));
    CK(cudaFreeHost(h));
    CK(cudaFree(d));
    return test_exit("progress");
}
