/* emu/tests/inline_ptx.cu - the inline PTX idioms of public device code,
 * which the translator turns into emulator calls (#34): special registers
 * (%laneid, %warpid, %smid, %nsmid, %nwarpid, %lanemask_*, %clock,
 * %clock64, %globaltimer), nanosleep, bar.sync 0 as a barrier, membar and
 * fence; an empty asm (a compiler barrier); an unknown instruction under
 * #ifdef __CUDA_ARCH__ (never compiled in the host pass); asm in host code
 * and the host path of a __host__ __device__ function, untouched.  Values are checked against the thread's coordinates. */
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "test_util.h"

static __device__ __forceinline__ unsigned lane_id()
{
    unsigned laneid;
    asm("mov.u32 %0, %%laneid;" : "=r"(laneid));
    return laneid;
}

__device__ unsigned warp_id()
{
    unsigned w;
    asm volatile("mov.u32 %0, %%warpid;" : "=r"(w));
    return w;
}

/* rec[8 * t + k]: the registers thread t read */
__global__ void registers(unsigned *rec)
{
    const unsigned t = threadIdx.x + blockDim.x * threadIdx.y;
    unsigned *r = rec + 8 * (t + blockIdx.x * blockDim.x * blockDim.y);
    unsigned lt, le, eq, ge, gt, sm, nsm;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
    asm("mov.u32 %0, %%lanemask_le;" : "=r"(le));
    asm("mov.u32 %0, %%lanemask_eq;" : "=r"(eq));
    asm("mov.u32 %0, %%lanemask_ge;" : "=r"(ge));
    asm __volatile__("mov.u32 %0, %%lanemask_gt;"
                     : "=r"(gt));
    asm("mov.u32 %0, %%smid;" : "=r"(sm));
    asm("mov.u32 %0, %%nsmid;" : "=r"(nsm));
    r[0] = lane_id();
    r[1] = warp_id();
    r[2] = lt;
    r[3] = le ^ eq; /* == lt */
    r[4] = ge & gt; /* == gt */
    r[5] = eq;
    r[6] = sm < nsm ? sm : 0xffffffffu;
    unsigned nw;
    asm("mov.u32 %0, %%nwarpid;" : "=r"(nw));
    r[7] = nw;
}

/* bar.sync 0 is __syncthreads: thread t reads what thread t+1 wrote before it */
__global__ void barrier_and_clocks(int *out, unsigned long long *ticks)
{
    __shared__ int s[64];
    s[threadIdx.x] = (int)threadIdx.x * 3;
    asm volatile("bar.sync 0;" ::: "memory");
    out[threadIdx.x] = s[(threadIdx.x + 1) % 64];
    asm volatile("membar.gl;");
    asm volatile("fence.acq_rel.gpu;" ::: "memory");
    asm volatile("membar.cta;");
    asm volatile("" ::: "memory");
    if (threadIdx.x == 0) {
        unsigned long long c0, c1, g0, g1;
        unsigned c32;
        asm volatile("mov.u64 %0, %%clock64;" : "=l"(c0));
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
        unsigned ns = 1000;
        asm volatile("nanosleep.u32 %0;" ::"r"(ns));
        asm volatile("nanosleep.u32 20;");
        asm volatile("mov.u32 %0, %%clock;" : "=r"(c32));
        asm volatile("mov.u64 %0, %%clock64;" : "=l"(c1));
        asm volatile("mov.u64 %0, %globaltimer;" : "=l"(g1)); /* one %, as nvcc takes it */
        ticks[0] = c1 >= c0;
        ticks[1] = g1 >= g0 && g0 > 1500000000ull * 1000000000ull; /* ns since 1970 */
        ticks[2] = c32 == (unsigned)c32;
    }
#ifdef __CUDA_ARCH__
    asm volatile("red.global.add.u32 [%0], 1;" ::"l"(out)); /* device pass only */
#endif
}

/* a __host__ __device__ function's host path keeps its asm (x86 here) */
__host__ __device__ unsigned plus_one(unsigned x)
{
#if !defined(__CUDA_ARCH__) && defined(__x86_64__)
    asm volatile("pause");
    asm("addl $1, %0" : "+r"(x));
#else
    x += 1;
#endif
    return x;
}

__global__ void host_device_path(unsigned *p) { p[threadIdx.x] = plus_one(threadIdx.x); }

/* host code keeps its asm */
static unsigned host_side(unsigned x)
{
    asm volatile("" : "+r"(x));
    return x + 1;
}

int main()
{
    const dim3 block(16, 4); /* 64 threads: 2 warps, lanes from the linear index */
    const int blocks = 3, threads = 64 * blocks;
    unsigned *rec = nullptr;
    CK(cudaMallocManaged((void **)&rec, 8 * threads * sizeof(unsigned)));
    registers<<<blocks, block>>>(rec);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int bad = 0;
    for (int g = 0; g < threads; ++g) {
        const unsigned t = g % 64, lane = t % 32, *r = rec + 8 * g;
        const unsigned lt = (1u << lane) - 1u;
        bad += r[0] != lane;
        bad += r[1] != t / 32;
        bad += r[2] != lt || r[3] != lt;
        bad += r[4] != ~(lt | (1u << lane));
        bad += r[5] != 1u << lane;
        bad += r[6] != (unsigned)(g / 64) % 132;
        bad += r[7] != 64;
    }
    CHECK_EQ_INT(bad, 0);

    int *out = nullptr;
    unsigned long long *ticks = nullptr;
    CK(cudaMallocManaged((void **)&out, 64 * sizeof(int)));
    CK(cudaMallocManaged((void **)&ticks, 3 * sizeof(unsigned long long)));
    barrier_and_clocks<<<1, 64>>>(out, ticks);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    bad = 0;
    for (int t = 0; t < 64; ++t) bad += out[t] != ((t + 1) % 64) * 3;
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(ticks[0], 1);
    CHECK_EQ_INT(ticks[1], 1);
    CHECK_EQ_INT(ticks[2], 1);
    CHECK_EQ_INT(host_side(41), 42);
    host_device_path<<<1, 32>>>(rec);
    CK(cudaDeviceSynchronize());
    bad = 0;
    for (unsigned t = 0; t < 32; ++t) bad += rec[t] != t + 1;
    CHECK_EQ_INT(bad, 0);
    CK(cudaFree(rec));
    CK(cudaFree(out));
    CK(cudaFree(ticks));
    if (g_test_failures) return 1;
    std::printf("inline_ptx: all checks passed\n");
    return 0;
}
