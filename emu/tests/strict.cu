/* emu/tests/strict.cu - the emulator fails where a GPU fails (issue #29):
 * small kernels a GPU refuses or gets wrong, each asserting the exact error
 * or the garbage a GPU would give.
 *
 *   strict              launch bounds, shared-memory limits, poisoned shared
 *                       memory, __activemask() in a branch, misaligned
 *                       accesses (codes; the device reset after each fault)
 *   strict misaligned   a misaligned float4 load: the launch fails with one
 *                       line (the test matches it) and the program exits 1
 */
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#include "test_util.h"

/* ---- 1. __launch_bounds__ ---- */
__global__ void __launch_bounds__(128) bounded128(int *out)
{
    out[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}

template <int N>
__global__ void __launch_bounds__(N, 2) bounded_t(int *out)
{
    out[threadIdx.x] = N;
}

/* ---- 2. shared memory limits: 40 KiB static ---- */
__global__ void static40k(float *out, int dyn_floats)
{
    __shared__ float big[10 * 1024];
    extern __shared__ float dyn[];
    big[threadIdx.x] = 1.0f;
    if (dyn_floats) dyn[threadIdx.x] = 2.0f;
    __syncthreads();
    out[threadIdx.x] = big[threadIdx.x] + (dyn_floats ? dyn[threadIdx.x] : 0.0f);
}

/* ---- 3. uninitialised shared memory ---- */
/* reads shared memory it never wrote */
__global__ void read_unwritten(float *f, int *i, unsigned *u)
{
    __shared__ float sf[64];
    __shared__ int si[64], sw[64];
    __shared__ unsigned su[64];
    sw[threadIdx.x] = 7;
    __syncthreads();
    f[threadIdx.x] = sf[threadIdx.x];
    i[threadIdx.x] = si[threadIdx.x] + sw[threadIdx.x];
    u[threadIdx.x] = su[threadIdx.x];
}

/* only block 0 fills the table; the others rely on it (a bug) */
__global__ void rely_on_block0(float *out)
{
    __shared__ float table[32];
    extern __shared__ float scratch[];
    if (blockIdx.x == 0) {
        table[threadIdx.x] = float(threadIdx.x);
        scratch[threadIdx.x] = 1.0f;
    }
    __syncthreads();
    out[blockIdx.x * 32 + threadIdx.x] = table[threadIdx.x] + scratch[threadIdx.x];
}

/* ---- 5. __activemask() in a branch ---- */
__global__ void active_in_branch(unsigned *out)
{
    const unsigned lane = threadIdx.x & 31u;
    unsigned m = 0;
    if (lane < 16) m = __activemask();
    else m = __activemask() | 0x80000000u; /* another call site: the other half */
    out[threadIdx.x] = m;
}

/* ---- 4. misaligned vector accesses ---- */
__global__ void load_float4(const float *p, float *out, int offset)
{
    const float4 v = *reinterpret_cast<const float4 *>(p + offset + 4 * threadIdx.x);
    out[threadIdx.x] = v.x + v.y + v.z + v.w;
}

__global__ void store_shared_float2(float *out, int offset)
{
    __shared__ __align__(16) float s[72];
    *reinterpret_cast<float2 *>(&s[offset + 2 * threadIdx.x]) = make_float2(1.0f, 2.0f);
    __syncthreads();
    out[threadIdx.x] = s[threadIdx.x + offset];
}

static void check_bounds()
{
    int *d = nullptr;
    CK(cudaMalloc(&d, 1024 * sizeof(int)));
    bounded128<<<2, 256>>>(d);
    CHECK_EQ_INT(cudaGetLastError(), cudaErrorLaunchOutOfResources);
    bounded128<<<2, dim3(16, 16)>>>(d); /* 256 threads in two dimensions */
    CHECK_EQ_INT(cudaGetLastError(), cudaErrorLaunchOutOfResources);
    bounded128<<<2, 128>>>(d); /* not sticky: the next launch works */
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    bounded_t<64><<<1, 65>>>(d);
    CHECK_EQ_INT(cudaGetLastError(), cudaErrorLaunchOutOfResources);
    bounded_t<64><<<1, 64>>>(d);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int h = 0;
    CK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    CHECK_EQ_INT(h, 64);
    cudaFuncAttributes a;
    CK(cudaFuncGetAttributes(&a, bounded128));
    CHECK_EQ_INT(a.maxThreadsPerBlock, 128);
    CK(cudaFuncGetAttributes(&a, bounded_t<64>));
    CHECK_EQ_INT(a.maxThreadsPerBlock, 64);
    CK(cudaFuncGetAttributes(&a, read_unwritten)); /* no bounds: the device's */
    CHECK_EQ_INT(a.maxThreadsPerBlock, 1024);
    int grid = 0, block = 0;
    CK(cudaOccupancyMaxPotentialBlockSize(&grid, &block, bounded128));
    CHECK_EQ_INT(block, 128);
    int blocks = -1;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, bounded128, 256, 0));
    CHECK_EQ_INT(blocks, 0);
    CK(cudaFree(d));
}

static void check_shared_limits()
{
    float *d = nullptr;
    CK(cudaMalloc(&d, 64 * sizeof(float)));
    cudaFuncAttributes a;
    CK(cudaFuncGetAttributes(&a, static40k));
    CHECK_EQ_INT(a.sharedSizeBytes, 40 * 1024);
    CHECK_EQ_INT(a.maxDynamicSharedSizeBytes, 8 * 1024); /* 48 KiB less the static 40 */
    static40k<<<1, 64, 16 * 1024>>>(d, 64); /* 40 + 16 > 48 without the opt-in */
    CHECK_EQ_INT(cudaGetLastError(), cudaErrorInvalidValue);
    static40k<<<1, 64, 8 * 1024>>>(d, 64); /* 40 + 8 = 48: fits */
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    /* the opt-in: at most 227 KiB less the static 40 */
    CHECK_EQ_INT(cudaFuncSetAttribute(static40k, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      187 * 1024 + 1),
                 cudaErrorInvalidValue);
    CHECK_EQ_INT(cudaGetLastError(), cudaErrorInvalidValue); /* a failed call's, as CUDA */
    CK(cudaFuncSetAttribute(static40k, cudaFuncAttributeMaxDynamicSharedMemorySize, 187 * 1024));
    CK(cudaFuncGetAttributes(&a, static40k));
    CHECK_EQ_INT(a.maxDynamicSharedSizeBytes, 187 * 1024);
    static40k<<<1, 64, 16 * 1024>>>(d, 64);
    CK(cudaGetLastError());
    static40k<<<1, 64, 187 * 1024 + 4>>>(d, 64); /* past what was asked for */
    CHECK_EQ_INT(cudaGetLastError(), cudaErrorInvalidValue);
    CK(cudaDeviceSynchronize());
    float h[64];
    CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 64; ++i) CHECK(h[i] == 3.0f);
    CK(cudaFree(d));
}

static void check_poison()
{
    float *f = nullptr, *r = nullptr;
    int *i = nullptr;
    unsigned *u = nullptr;
    CK(cudaMalloc(&f, 64 * sizeof(float)));
    CK(cudaMalloc(&i, 64 * sizeof(int)));
    CK(cudaMalloc(&u, 64 * sizeof(unsigned)));
    CK(cudaMalloc(&r, 4 * 32 * sizeof(float)));
    /* twice: the second launch finds no values of the first either */
    for (int rep = 0; rep < 2; ++rep) {
        read_unwritten<<<2, 64>>>(f, i, u);
        CK(cudaGetLastError());
        float hf[64];
        int hi[64];
        unsigned hu[64];
        CK(cudaMemcpy(hf, f, sizeof hf, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hi, i, sizeof hi, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(hu, u, sizeof hu, cudaMemcpyDeviceToHost));
        for (int t = 0; t < 64; ++t) {
            CHECK(hf[t] != hf[t]);          /* NaN */
            CHECK_EQ_INT(hi[t], -1 + 7);    /* 0xFFFFFFFF + 7 */
            CHECK(hu[t] == 0xFFFFFFFFu);    /* the largest unsigned */
        }
    }
    rely_on_block0<<<4, 32, 32 * sizeof(float)>>>(r);
    CK(cudaGetLastError());
    float hr[4 * 32];
    CK(cudaMemcpy(hr, r, sizeof hr, cudaMemcpyDeviceToHost));
    for (int b = 0; b < 4; ++b)
        for (int t = 0; t < 32; ++t) {
            const float v = hr[b * 32 + t];
            if (b == 0) CHECK(v == float(t) + 1.0f);
            else CHECK(v != v); /* block 0's table is not theirs */
        }
    CK(cudaFree(f));
    CK(cudaFree(i));
    CK(cudaFree(u));
    CK(cudaFree(r));
}

static void check_activemask()
{
    unsigned *d = nullptr;
    CK(cudaMalloc(&d, 96 * sizeof(unsigned)));
    active_in_branch<<<2, 96>>>(d);
    CK(cudaGetLastError());
    unsigned h[96];
    CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (int t = 0; t < 96; ++t) {
        const unsigned want = (t & 31) < 16 ? 0x0000FFFFu : 0xFFFF0000u;
        if (h[t] != want)
            std::fprintf(stderr, "thread %d: __activemask() 0x%08x, expected 0x%08x\n", t, h[t],
                         want);
        CHECK(h[t] == want);
    }
    CK(cudaFree(d));
}

/* A misaligned access faults the launch (sticky until cudaDeviceReset). */
static void check_misaligned()
{
    float *p = nullptr, *out = nullptr;
    CK(cudaMalloc(&p, 1024 * sizeof(float)));
    CK(cudaMalloc(&out, 64 * sizeof(float)));
    CK(cudaMemset(p, 0, 1024 * sizeof(float)));
    load_float4<<<1, 32>>>(p, out, 4); /* 16-byte aligned: fine */
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    load_float4<<<1, 32>>>(p, out, 2); /* 8-byte aligned float4: a GPU faults */
    CK(cudaGetLastError());
    CHECK_EQ_INT(cudaDeviceSynchronize(), cudaErrorMisalignedAddress);
    CHECK_EQ_INT(cudaMalloc(&p, 16), cudaErrorMisalignedAddress); /* sticky */
    CK(cudaDeviceReset());
    CK(cudaMalloc(&out, 64 * sizeof(float)));
    store_shared_float2<<<1, 32>>>(out, 2); /* shared, 8-byte aligned float2: fine */
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    store_shared_float2<<<1, 32>>>(out, 1); /* 4-byte aligned float2 */
    CHECK_EQ_INT(cudaDeviceSynchronize(), cudaErrorMisalignedAddress);
    CK(cudaDeviceReset());
}

static int misaligned_mode()
{
    float *p = nullptr, *out = nullptr;
    CK(cudaMalloc(&p, 1024 * sizeof(float)));
    CK(cudaMalloc(&out, 64 * sizeof(float)));
    CK(cudaMemset(p, 0, 1024 * sizeof(float)));
    load_float4<<<1, 32>>>(p, out, 1);
    CK(cudaGetLastError());
    const cudaError_t e = cudaDeviceSynchronize();
    std::printf("strict misaligned: %s\n", cudaGetErrorName(e));
    return e == cudaErrorMisalignedAddress ? 1 : 3;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (std::strcmp(mode, "misaligned") == 0) return misaligned_mode();
    if (*mode) {
        std::fprintf(stderr, "strict: unknown mode '%s' (misaligned or none)\n", mode);
        return 2;
    }
    check_bounds();
    check_shared_limits();
    check_poison();
    check_activemask();
    check_misaligned();
    if (g_test_failures) return 1;
    std::printf("strict: all checks passed\n");
    return 0;
}
