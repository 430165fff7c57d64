/* emu/tests/nvcc_emu_cmake/main.cu - scales 1..n on the device, then sums it
 * with cublasSdot (x.x); prints "scaled dot S" (S = SCALE_BY^2 * n(n+1)(2n+1)/6,
 * exact in float). */
#include <cstdio>
#include <cublas_v2.h>
#include "scale.h"
#ifdef WITH_REPORT
const char *status_name(cudaError_t e); /* report.cpp */
#else
static const char *status_name(cudaError_t e) { return cudaGetErrorName(e); }
#endif
#define CHECK(x) do { if ((x) != 0) { std::printf("failed: %s\n", #x); return 1; } } while (0)
int main()
{
    const int n = 100;
    float h[n], *d = nullptr, sum = 0;
    for (int i = 0; i < n; ++i) h[i] = float(i + 1);
    CHECK(cudaMalloc(&d, sizeof h));
    CHECK(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
    scale<<<(n + 31) / 32, 32>>>(d, n);
    CHECK(cudaGetLastError());
    cublasHandle_t b;
    CHECK(cublasCreate(&b));
    CHECK(cublasSdot(b, n, d, 1, d, 1, &sum));
    CHECK(cublasDestroy(b));
    CHECK(cudaFree(d));
    std::printf("scaled dot %.0f %s\n", sum, status_name(cudaGetLastError()));
    return 0;
}
