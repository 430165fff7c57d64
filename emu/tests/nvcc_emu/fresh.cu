/* emu/tests/nvcc_emu/fresh.cu - a user's program that reads device memory
 * nothing wrote, as llm.c's attention_backward reads the masked half of each
 * row: built by nvcc-emu, fresh cudaMalloc memory is zero (as GPUs give in
 * practice), so it prints "sum 36" and not a NaN; with --sanitize=initcheck
 * the read is named as a warning and the program goes on.
 * (nvcc_emu_test.sh builds and runs it.) */
#include <cstdio>

__global__ void lower_half(float *m, int n) /* writes row r's first r + 1 entries */
{
    int r = threadIdx.x;
    for (int c = 0; c <= r; ++c) m[r * n + c] = 1.0f;
}

__global__ void row_sums(const float *m, float *out, int n) /* reads whole rows */
{
    int r = threadIdx.x;
    float s = 0.0f;
    for (int c = 0; c < n; ++c) s += m[r * n + c];
    out[r] = s;
}

int main()
{
    const int n = 8;
    float *m = nullptr, *out = nullptr, host[n];
    if (cudaMalloc(&m, n * n * sizeof(float)) != cudaSuccess ||
        cudaMalloc(&out, n * sizeof(float)) != cudaSuccess)
        return 1;
    lower_half<<<1, n>>>(m, n);
    row_sums<<<1, n>>>(m, out, n);
    if (cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
    float sum = 0.0f;
    for (float v : host) sum += v;
    std::printf("sum %g\n", sum);
    cudaFree(m);
    cudaFree(out);
    return 0;
}
