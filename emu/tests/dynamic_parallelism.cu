/* emu/tests/dynamic_parallelism.cu - kernels launching kernels (#34): a
 * cdpSimplePrint-like recursion where every block of every depth records
 * itself, a child launched by every thread with a tail launch summing their
 * results (the host sees the total after the parent's synchronization), the
 * order of launches into one device stream and the tail launch after all of
 * them, device-side cudaGetLastError/cudaPeekAtLastError, the nesting depth
 * and pending launch limits, and CUDA 11's device-side cudaDeviceSynchronize
 * refused (the launch fails).  Real nvcc needs -rdc=true for this program.
 */
#include <cuda_runtime.h>

#include <cstdio>

#include "test_util.h"

/* ---- cdpSimplePrint's shape: every block of a depth launches the next ---- */
__global__ void cdp(int depth, int max_depth, int *per_depth, int *launch_errors)
{
    if (threadIdx.x != 0) return;
    printf("depth %d, block %d\n", depth, blockIdx.x);
    atomicAdd(&per_depth[depth], 1);
    if (depth + 1 < max_depth) {
        cdp<<<gridDim.x, blockDim.x>>>(depth + 1, max_depth, per_depth, launch_errors);
        if (cudaGetLastError() != cudaSuccess) atomicAdd(launch_errors, 1);
    }
}

/* ---- a child per thread, a tail launch reading what they wrote ---- */
__global__ void write_one(int *partial, int i, int *children)
{
    partial[i] = i + 1;
    atomicAdd(children, 1);
}

__global__ void sum(const int *partial, int n, long long *total)
{
    long long s = 0;
    for (int i = 0; i < n; ++i) s += partial[i];
    *total = s;
}

__global__ void per_thread(int *partial, int *children, long long *total)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int n = gridDim.x * blockDim.x;
    write_one<<<1, 1>>>(partial, i, children);
    if (i == 0) sum<<<1, 1, 0, cudaStreamTailLaunch>>>(partial, n, total);
}

/* ---- launch order within one device stream, the tail launch after all ---- */
constexpr int kPerStream = 6;

__global__ void append(int *log, int *len, int value)
{
    log[atomicAdd(len, 1)] = value;
}

__global__ void count_logs(const int *lens, int n, int *seen_by_tail)
{
    int s = 0;
    for (int i = 0; i < n; ++i) s += lens[i];
    *seen_by_tail = s;
}

__global__ void ordered(int *logs, int *lens, int *seen_by_tail, int *errors)
{
    if (threadIdx.x != 0) return;
    int *log = logs + blockIdx.x * 2 * kPerStream;
    int *len = lens + blockIdx.x;
    if (blockIdx.x == 0) count_logs<<<1, 1, 0, cudaStreamTailLaunch>>>(lens, 3 * gridDim.x, seen_by_tail);
    cudaStream_t s;
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess) atomicAdd(errors, 1);
    for (int k = 0; k < kPerStream; ++k) {
        append<<<1, 1, 0, s>>>(log, len, k);          /* this block's stream */
        append<<<1, 1>>>(log + kPerStream, len + gridDim.x, k); /* its NULL stream */
    }
    if (cudaStreamDestroy(s) != cudaSuccess) atomicAdd(errors, 1);
    append<<<1, 1, 0, cudaStreamFireAndForget>>>(log + 2 * kPerStream - 1, len + 2 * gridDim.x, 99);
    if (cudaGetLastError() != cudaSuccess) atomicAdd(errors, 1);
}

/* ---- errors in device code are the CUDA thread's own ---- */
__global__ void nothing() {}

__global__ void device_errors(int *out)
{
    nothing<<<1, 2048>>>(); /* more than 1024 threads per block */
    out[0] = cudaPeekAtLastError();
    out[1] = cudaGetLastError();
    out[2] = cudaGetLastError(); /* cleared by the first */
    cudaStream_t s;
    out[3] = cudaStreamCreateWithFlags(&s, cudaStreamDefault); /* must be non-blocking */
    cudaGetLastError();
    nothing<<<1, 1, 0, cudaStreamPerThread>>>(); /* not a device stream */
    out[4] = cudaGetLastError();
}

/* ---- the nesting depth limit ---- */
__global__ void deep(int depth, int *errors, int *ran)
{
    atomicAdd(ran, 1);
    deep<<<1, 1>>>(depth + 1, errors, ran);
    errors[depth] = cudaGetLastError();
}

/* ---- the pending launch limit ---- */
__global__ void counted(int *ran) { atomicAdd(ran, 1); }

__global__ void many(int *errors, int *ran)
{
    counted<<<1, 1>>>(ran);
    errors[threadIdx.x] = cudaGetLastError();
}

/* ---- CUDA 11's device-side synchronization: refused ---- */
__global__ void cdp1_sync(int *out)
{
    nothing<<<1, 1>>>();
#ifdef __CUDAEMU__
    cudaDeviceSynchronize();
#endif
    *out = 1;
}

int main()
{
    /* cdpSimplePrint: 2 blocks, each launching 2 blocks, 4 levels */
    const int max_depth = 4, grid = 2;
    CK(cudaDeviceSetLimit(cudaLimitDevRuntimeSyncDepth, max_depth));
    int *per_depth, *errs;
    CK(cudaMalloc(&per_depth, max_depth * sizeof(int)));
    CK(cudaMalloc(&errs, sizeof(int)));
    CK(cudaMemset(per_depth, 0, max_depth * sizeof(int)));
    CK(cudaMemset(errs, 0, sizeof(int)));
    cdp<<<grid, 1>>>(0, max_depth, per_depth, errs);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int h_depth[max_depth], h_err = -1;
    CK(cudaMemcpy(h_depth, per_depth, sizeof h_depth, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&h_err, errs, sizeof h_err, cudaMemcpyDeviceToHost));
    int blocks = grid, total_blocks = 0, seen = 0;
    for (int d = 0; d < max_depth; ++d, blocks *= grid) {
        CHECK_EQ_INT(h_depth[d], blocks);
        total_blocks += blocks;
        seen += h_depth[d];
    }
    CHECK_EQ_INT(seen, total_blocks);
    CHECK_EQ_INT(h_err, 0);

    /* a child per thread; the tail launch sums what the children wrote */
    const int pb = 3, pt = 512, n = pb * pt;
    int *partial, *children;
    long long *total;
    CK(cudaMalloc(&partial, n * sizeof(int)));
    CK(cudaMalloc(&children, sizeof(int)));
    CK(cudaMalloc(&total, sizeof(long long)));
    CK(cudaMemset(partial, 0, n * sizeof(int)));
    CK(cudaMemset(children, 0, sizeof(int)));
    CK(cudaMemset(total, 0, sizeof(long long)));
    per_thread<<<pb, pt>>>(partial, children, total);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int h_children = 0;
    long long h_total = 0;
    CK(cudaMemcpy(&h_children, children, sizeof h_children, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&h_total, total, sizeof h_total, cudaMemcpyDeviceToHost));
    CHECK_EQ_INT(h_children, n);
    CHECK_EQ_INT(h_total, (long long)n * (n + 1) / 2);
    if (h_total != (long long)n * (n + 1) / 2)
        std::printf("Obtained %lld. It should be %lld\n", h_total, (long long)n * (n + 1) / 2);

    /* launch order per device stream; the tail launch after all of them */
    const int ob = 4, per_block = 2 * kPerStream;
    int *logs, *lens, *tail_seen, *oerr;
    CK(cudaMalloc(&logs, ob * per_block * sizeof(int)));
    CK(cudaMalloc(&lens, 3 * ob * sizeof(int)));
    CK(cudaMalloc(&tail_seen, sizeof(int)));
    CK(cudaMalloc(&oerr, sizeof(int)));
    CK(cudaMemset(logs, 0xff, ob * per_block * sizeof(int)));
    CK(cudaMemset(lens, 0, 3 * ob * sizeof(int)));
    CK(cudaMemset(tail_seen, 0, sizeof(int)));
    CK(cudaMemset(oerr, 0, sizeof(int)));
    ordered<<<ob, 32>>>(logs, lens, tail_seen, oerr);
    CK(cudaDeviceSynchronize());
    int h_logs[ob * per_block], h_lens[3 * ob], h_seen = -1;
    CK(cudaMemcpy(h_logs, logs, sizeof h_logs, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(h_lens, lens, sizeof h_lens, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&h_seen, tail_seen, sizeof h_seen, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&h_err, oerr, sizeof h_err, cudaMemcpyDeviceToHost));
    CHECK_EQ_INT(h_err, 0);
    for (int b = 0; b < ob; ++b) {
        CHECK_EQ_INT(h_lens[b], kPerStream);
        CHECK_EQ_INT(h_lens[ob + b], kPerStream);
        CHECK_EQ_INT(h_lens[2 * ob + b], 1);
        for (int k = 0; k < kPerStream; ++k) CHECK_EQ_INT(h_logs[b * per_block + k], k);
        for (int k = 0; k < kPerStream - 1; ++k)
            CHECK_EQ_INT(h_logs[b * per_block + kPerStream + k], k);
        /* the fire-and-forget child wrote the last slot, after or before the stream's */
        const int last = h_logs[b * per_block + per_block - 1];
        CHECK(last == 99 || last == kPerStream - 1);
    }
    int appended = 0;
    for (int i = 0; i < 3 * ob; ++i) appended += h_lens[i];
    CHECK_EQ_INT(h_seen, appended); /* the tail ran after every child of the grid */

    /* errors in device code */
    int *derr;
    CK(cudaMalloc(&derr, 5 * sizeof(int)));
    CK(cudaMemset(derr, 0xff, 5 * sizeof(int)));
    device_errors<<<1, 1>>>(derr);
    CK(cudaDeviceSynchronize());
    CK(cudaGetLastError()); /* the device's errors are not the host's */
    int h_derr[5];
    CK(cudaMemcpy(h_derr, derr, sizeof h_derr, cudaMemcpyDeviceToHost));
    CHECK_EQ_INT(h_derr[0], cudaErrorInvalidConfiguration);
    CHECK_EQ_INT(h_derr[1], cudaErrorInvalidConfiguration);
    CHECK_EQ_INT(h_derr[2], cudaSuccess);
    CHECK_EQ_INT(h_derr[3], cudaErrorInvalidValue);
    CHECK_EQ_INT(h_derr[4], cudaErrorInvalidResourceHandle);

    /* nesting depth: the grid at depth 24 cannot launch */
    const int depths = 32;
    int *derrs, *ran;
    CK(cudaMalloc(&derrs, depths * sizeof(int)));
    CK(cudaMalloc(&ran, sizeof(int)));
    CK(cudaMemset(derrs, 0xff, depths * sizeof(int)));
    CK(cudaMemset(ran, 0, sizeof(int)));
    deep<<<1, 1>>>(0, derrs, ran);
    CK(cudaDeviceSynchronize());
    int h_derrs[depths], h_ran = 0;
    CK(cudaMemcpy(h_derrs, derrs, sizeof h_derrs, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&h_ran, ran, sizeof h_ran, cudaMemcpyDeviceToHost));
    int deepest = 0;
    for (int d = 0; d < depths && h_derrs[d] == cudaSuccess; ++d) deepest = d + 1;
    CHECK_EQ_INT(deepest, 24);
    CHECK_EQ_INT(h_derrs[deepest], cudaErrorLaunchMaxDepthExceeded);
    CHECK_EQ_INT(h_ran, deepest + 1);

    /* pending launches: past the limit the launch fails */
    size_t dflt = 0, limit = 8;
    CK(cudaDeviceGetLimit(&dflt, cudaLimitDevRuntimePendingLaunchCount));
    CHECK_EQ_INT(dflt, 2048);
    CK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, limit));
    const int mt = 16;
    int *merr;
    CK(cudaMalloc(&merr, mt * sizeof(int)));
    CK(cudaMemset(ran, 0, sizeof(int)));
    many<<<1, mt>>>(merr, ran);
    CK(cudaDeviceSynchronize());
    int h_merr[mt];
    CK(cudaMemcpy(h_merr, merr, sizeof h_merr, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&h_ran, ran, sizeof h_ran, cudaMemcpyDeviceToHost));
    int ok = 0, refused = 0;
    for (int i = 0; i < mt; ++i) {
        ok += h_merr[i] == cudaSuccess;
        refused += h_merr[i] == cudaErrorLaunchPendingCountExceeded;
    }
    CHECK_EQ_INT(ok, (int)limit);
    CHECK_EQ_INT(refused, mt - (int)limit);
    CHECK_EQ_INT(h_ran, ok);
    CK(cudaDeviceSetLimit(cudaLimitDevRuntimePendingLaunchCount, dflt));

    for (void *p : {(void *)per_depth, (void *)errs, (void *)partial, (void *)children,
                    (void *)total, (void *)logs, (void *)lens, (void *)tail_seen, (void *)oerr,
                    (void *)derr, (void *)derrs, (void *)merr, (void *)ran})
        CK(cudaFree(p));

    /* CUDA 11's cudaDeviceSynchronize in device code fails the launch, by name */
    int *flag;
    CK(cudaMalloc(&flag, sizeof(int)));
    cdp1_sync<<<1, 1>>>(flag);
    CHECK_EQ_INT(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
    CK(cudaDeviceReset()); /* the context is lost: the reset frees flag */

    if (g_test_failures) return 1;
    std::printf("dynamic_parallelism: all checks passed\n");
    return 0;
}
