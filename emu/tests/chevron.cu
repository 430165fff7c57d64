/* emu/tests/chevron.cu - ordinary CUDA syntax through the translator
 * (emu/tools/cudaemu_translate.cpp): kernel<<<grid, block, smem, stream>>>
 * launches (template kernels, function pointers, nested parentheses and
 * commas, a launch inside a multi-line macro) and extern __shared__ arrays (in
 * a kernel body, __align__(16) unsigned char in a template kernel used with
 * two types, and at namespace scope).  A launch queues on its stream and its
 * error lands in cudaGetLastError(); comments and strings holding <<< are left
 * alone; __LINE__ and __FILE__ are the original file's; a class's own free.
 */
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <utility>

#include "test_util.h"

extern __shared__ float ns_shared[]; /* namespace scope, used by scale_via_ns */

__global__ void iota(int *out, int n, int base)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = base + i;
}

template <typename T, int UNROLL>
__global__ void axpy(T a, const T *x, T *y, int n)
{
    int i0 = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL;
    for (int u = 0; u < UNROLL; ++u)
        if (i0 + u < n) y[i0 + u] = a * x[i0 + u] + y[i0 + u];
}

/* Reverses a block's slice through dynamic shared memory, as T. */
template <typename T>
__global__ void reverse_block(const T *in, T *out)
{
    extern __shared__ __align__(16) unsigned char raw[];
    T *s = reinterpret_cast<T *>(raw);
    const unsigned t = threadIdx.x, n = blockDim.x;
    s[t] = in[blockIdx.x * n + t];
    __syncthreads();
    out[blockIdx.x * n + t] = s[n - 1 - t];
}

__global__ void sum_shared(const int *in, int *out)
{
    extern __shared__ int buf[];
    buf[threadIdx.x] = in[threadIdx.x];
    __syncthreads();
    if (threadIdx.x == 0) {
        int s = 0;
        for (unsigned i = 0; i < blockDim.x; ++i) s += buf[i];
        *out = s;
    }
}

__global__ void scale_via_ns(float *x, float k)
{
    ns_shared[threadIdx.x] = x[threadIdx.x] * k;
    __syncthreads();
    x[threadIdx.x] = ns_shared[(threadIdx.x + 1) % blockDim.x];
}

/* extern __shared__ inside a macro (no `;`, the macro's end ends it) */
#define SHARED_ARRAY(T, name) extern __shared__ T name[]
__global__ void rotate_via_macro(int *x)
{
    SHARED_ARRAY(int, rot);
    rot[threadIdx.x] = x[threadIdx.x];
    __syncthreads();
    x[threadIdx.x] = rot[(threadIdx.x + 1) % blockDim.x];
}

__global__ void store_one(int *p, int v) { *p = v; }

static int add(int a, int b) { return a + b; }

#define LAUNCH_IOTA(out, n, base)                                              \
    iota<<<((n) + 31) / 32,                                                    \
           32>>>(out, n, base)

int main()
{
    const int n = 100;
    int *d = nullptr;
    CK(cudaMalloc(&d, n * sizeof(int)));
    int h[n];

    /* plain, with expressions full of parentheses and commas */
    iota<<<dim3((n + 31) / 32, 1, 1), dim3(32), 0, 0>>>(d, add(n, 0), std::max(3, add(4, 3)));
    CK(cudaGetLastError());
    CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) CHECK_EQ_INT(h[i], 7 + i);

    /* launch spread over lines: the line numbers stay the original's */
    iota<<<4,
           32>>>(d,
                 n,
                 1'000);
    CHECK_EQ_INT(__LINE__, 101);
    CHECK(std::strstr(__FILE__, "chevron.cu") != nullptr);
    CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    CHECK_EQ_INT(h[n - 1], 1000 + n - 1);

    /* a macro with continuations */
    LAUNCH_IOTA(d, n, -5);
    CK(cudaGetLastError());
    CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    CHECK_EQ_INT(h[0], -5);
    CHECK_EQ_INT(h[n - 1], n - 6);

    /* function pointers */
    void (*fp)(int *, int, int) = iota;
    fp<<<4, 32>>>(d, n, 10);
    (*fp)<<<4, 32>>>(d, n / 2, 20);
    CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    CHECK_EQ_INT(h[0], 20);
    CHECK_EQ_INT(h[n / 2], 10 + n / 2);

    /* a template kernel; arguments converted to its parameter types */
    float *x = nullptr, *y = nullptr;
    float hx[n], hy[n];
    for (int i = 0; i < n; ++i) hx[i] = float(i), hy[i] = 1.0f;
    CK(cudaMalloc(&x, sizeof hx));
    CK(cudaMalloc(&y, sizeof hy));
    CK(cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(y, hy, sizeof hy, cudaMemcpyHostToDevice));
    axpy<float, 4><<<(n + 127) / 128, 32>>>(2, x, y, n); /* int 2 -> float */
    CK(cudaGetLastError());
    CK(cudaMemcpy(hy, y, sizeof hy, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) CHECK(hy[i] == 2.0f * float(i) + 1.0f);

    /* extern __shared__: in a template kernel, used with two element types */
    const int B = 64;
    int hi[2 * B], *di = nullptr, *dio = nullptr;
    for (int i = 0; i < 2 * B; ++i) hi[i] = 3 * i + 1;
    CK(cudaMalloc(&di, sizeof hi));
    CK(cudaMalloc(&dio, sizeof hi));
    CK(cudaMemcpy(di, hi, sizeof hi, cudaMemcpyHostToDevice));
    reverse_block<int><<<2, B, B * sizeof(int)>>>(di, dio);
    reverse_block<float><<<1, 32, 32 * sizeof(float)>>>(x, y);
    CK(cudaGetLastError());
    CK(cudaMemcpy(hi, dio, sizeof hi, cudaMemcpyDeviceToHost));
    for (int i = 0; i < B; ++i) {
        CHECK_EQ_INT(hi[i], 3 * (B - 1 - i) + 1);
        CHECK_EQ_INT(hi[B + i], 3 * (2 * B - 1 - i) + 1);
    }
    CK(cudaMemcpy(hy, y, 32 * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < 32; ++i) CHECK(hy[i] == float(31 - i));

    /* a plain extern __shared__ int[] in the body, and one at namespace scope */
    sum_shared<<<1, B, sizeof(int) * B>>>(di, dio);
    int sum = 0;
    CK(cudaMemcpy(&sum, dio, sizeof sum, cudaMemcpyDeviceToHost));
    CHECK_EQ_INT(sum, B * (3 * (B - 1) + 2) / 2);
    scale_via_ns<<<1, 32, 32 * sizeof(float)>>>(x, 0.5f);
    CK(cudaMemcpy(hx, x, 32 * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < 32; ++i) CHECK(hx[i] == 0.5f * float((i + 1) % 32));

    rotate_via_macro<<<1, B, B * sizeof(int)>>>(di);
    CK(cudaMemcpy(hi, di, B * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < B; ++i) CHECK_EQ_INT(hi[i], 3 * ((i + 1) % B) + 1);

    /* queued on the stream: nothing runs before the stream is synchronized */
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    int *pinned = nullptr;
    CK(cudaMallocHost(&pinned, sizeof(int)));
    *pinned = 1;
    store_one<<<1, 1, 0, s>>>(pinned, 42);
    CK(cudaGetLastError());
    CHECK_EQ_INT(*pinned, 1);
    CK(cudaStreamSynchronize(s));
    CHECK_EQ_INT(*pinned, 42);

    /* a bad launch: nothing queued, the error is the last error */
    store_one<<<1, 2048, 0, s>>>(pinned, 7);
    CHECK(cudaGetLastError() == cudaErrorInvalidConfiguration);
    CHECK(cudaGetLastError() == cudaSuccess);
    store_one<<<1, 1, 1 << 20, s>>>(pinned, 7); /* 1 MiB of dynamic shared memory */
    CHECK(cudaPeekAtLastError() == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);
    CK(cudaStreamSynchronize(s));
    CHECK_EQ_INT(*pinned, 42);

    /* text that only looks like a launch is left alone: kernel<<<1, 1>>>(p) */
    const char *str = "iota<<<1, 1>>>(d, 1, 2)";
    CHECK(std::strlen(str) == 23);
    CHECK(R"x(a<<<b>>>(c) ")x"[0] == 'a');

    CK(cudaStreamDestroy(s));
    CK(cudaFreeHost(pinned));
    CK(cudaFree(d));
    CK(cudaFree(x));
    CK(cudaFree(y));
    CK(cudaFree(di));
    CK(cudaFree(dio));
    /* A class's own free, called unqualified: the translator leaves a unit
     * that declares a malloc or free of its own alone (it would call the
     * device heap's free otherwise, which takes a pointer: no compile). */
    struct Slab {
        int n = 10;
        void free(int k) { n -= k; }
        void drop() { free(3); }
    } slab;
    slab.drop();
    CHECK_EQ_INT(slab.n, 7);
    return test_exit("chevron");
}
