/* kernels/launch_probe.cu - the launch latency: an empty kernel, n launches
 * between two events on a stream of its own (contract: launch_probe.h). */
#include "launch_probe.h"
#include "cuda_check.h"

static __global__ void empty_kernel(void) {}

extern "C" int launch_probe_cuda(int n, double *us)
{
    cudaStream_t s = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    float ms = 0;
    int rc = -1;
    if (n < 1 || !us) {
        err_set("launch_probe_cuda: bad arguments n=%d", n);
        return -1;
    }
    CUDA_TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CUDA_TRY(cudaEventCreate(&e0));
    CUDA_TRY(cudaEventCreate(&e1));
    empty_kernel<<<1, 1, 0, s>>>(); /* warm-up: module load stays out */
    LAUNCH_CHECK();
    CUDA_TRY(cudaStreamSynchronize(s));
    CUDA_TRY(cudaEventRecord(e0, s));
    for (int i = 0; i < n; i++) {
        empty_kernel<<<1, 1, 0, s>>>();
        LAUNCH_CHECK();
    }
    CUDA_TRY(cudaEventRecord(e1, s));
    CUDA_TRY(cudaEventSynchronize(e1));
    CUDA_TRY(cudaEventElapsedTime(&ms, e0, e1));
    *us = ms * 1e3 / n;
    rc = 0;
fail:
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    if (s) cudaStreamDestroy(s);
    return rc;
}
