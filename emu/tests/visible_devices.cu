/* emu/tests/visible_devices.cu - CUDA_VISIBLE_DEVICES applied by the emulated
 * runtime (#33 E2), run with CUDAEMU_DEVICES=4 and CUDA_VISIBLE_DEVICES set by
 * the test.  argv[1] is the expected outcome: "none" (no device:
 * cudaErrorNoDevice), else the comma-separated emulated ordinals the visible
 * devices 0, 1, ... must be (each device's PCI bus id is 1 + its emulated
 * ordinal), e.g. "2,0"; every visible device runs a kernel. */
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "test_util.h"

__global__ void fill(int *x, int v) { x[threadIdx.x] = v + int(threadIdx.x); }

int main(int argc, char **argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s none|ORDINAL[,ORDINAL...]\n", argv[0]);
        return 2;
    }
    const char *vis = std::getenv("CUDA_VISIBLE_DEVICES");
    std::printf("CUDA_VISIBLE_DEVICES='%s', expecting %s\n", vis ? vis : "(unset)", argv[1]);
    int count = -1;
    if (!std::strcmp(argv[1], "none")) {
        CHECK(cudaGetDeviceCount(&count) == cudaErrorNoDevice);
        CHECK_EQ_INT(count, 0);
        void *p;
        CHECK(cudaMalloc(&p, 16) == cudaErrorNoDevice);
        return test_exit("visible_devices none");
    }
    std::vector<int> want;
    for (char *s = argv[1]; *s;) {
        char *end;
        want.push_back(int(std::strtol(s, &end, 10)));
        s = *end ? end + 1 : end;
    }
    CK(cudaGetDeviceCount(&count));
    CHECK_EQ_INT(count, want.size());
    CHECK(cudaSetDevice(int(want.size())) == cudaErrorInvalidDevice);
    (void)cudaGetLastError();
    for (int d = 0; d < count && d < int(want.size()); ++d) {
        cudaDeviceProp prop;
        CK(cudaGetDeviceProperties(&prop, d));
        CHECK_EQ_INT(prop.pciBusID, 1 + want[size_t(d)]);
        int bus = -1;
        CK(cudaDeviceGetAttribute(&bus, cudaDevAttrPciBusId, d));
        CHECK_EQ_INT(bus, 1 + want[size_t(d)]);
        CK(cudaSetDevice(d));
        int *x, h[32];
        CK(cudaMalloc(&x, sizeof h));
        fill<<<1, 32>>>(x, 100 * d);
        CK(cudaGetLastError());
        CK(cudaMemcpy(h, x, sizeof h, cudaMemcpyDeviceToHost));
        for (int i = 0; i < 32; ++i) CHECK_EQ_INT(h[i], 100 * d + i);
        cudaPointerAttributes a;
        CK(cudaPointerGetAttributes(&a, x));
        CHECK_EQ_INT(a.device, d);
        CK(cudaFree(x));
    }
    return test_exit("visible_devices");
}
