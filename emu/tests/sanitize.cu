/* emu/tests/sanitize.cu - racecheck and initcheck (emu/src/sanitize.cpp) and
 * what fresh device memory holds.  Built with SANITIZE racecheck,initcheck
 * (emu/tests/CMakeLists.txt: -fsanitize=thread instruments this unit); each
 * mode runs one kernel and checks its values on the host:
 *
 *   block-race    thread 0 writes a static __shared__ slot the whole block
 *                 reads, with no __syncthreads(): a RAW hazard, the launch
 *                 fails and the program exits 2 (CK)
 *   block-synced  the same kernel with the barrier: clean, every value right
 *   warp-race     a warp exchanges values through dynamic shared memory with
 *                 no __syncwarp(): a hazard, exit 2
 *   warp-synced   the same exchange with __syncwarp(): clean
 *   uninit        a kernel reads a cudaMalloc block whose second half nothing
 *                 wrote: initcheck names the block, exit 2
 *   uninit-memset the same after a cudaMemset of the block: clean
 *   fresh nan|zero  a fresh block copied back holds 0xFF or 0x00 bytes
 *                 (CUDAEMU_FRESH, or the default of bench's builds: nan);
 *                 initcheck reports the copy of unwritten bytes
 */
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#include "test_util.h"

static const int kBlock = 64;

/* thread 0 publishes a value; every thread adds its index to it */
template <bool Synced>
__global__ void broadcast(int *out, int v)
{
    __shared__ int slot;
    if (threadIdx.x == 0) slot = v;
    if (Synced) __syncthreads();
    out[threadIdx.x] = slot + (int)threadIdx.x;
}

/* each lane takes the value of the next lane of its warp */
template <bool Synced>
__global__ void rotate(int *out)
{
    extern __shared__ int lanes[];
    const unsigned t = threadIdx.x;
    lanes[t] = (int)(t * 10u);
    if (Synced) __syncwarp();
    out[t] = lanes[(t & ~31u) | ((t + 1u) & 31u)];
}

__global__ void add_one(const int *in, int *out)
{
    out[threadIdx.x] = in[threadIdx.x] + 1;
}

static int run_block(bool synced)
{
    int *out = nullptr, host[kBlock];
    CK(cudaMalloc(&out, sizeof host));
    if (synced) broadcast<true><<<1, kBlock>>>(out, 1000);
    else broadcast<false><<<1, kBlock>>>(out, 1000);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
    for (int i = 0; i < kBlock; ++i) CHECK_EQ_INT(host[i], 1000 + i);
    CK(cudaFree(out));
    return 0;
}

static int run_warp(bool synced)
{
    int *out = nullptr, host[kBlock];
    CK(cudaMalloc(&out, sizeof host));
    if (synced) rotate<true><<<1, kBlock, sizeof host>>>(out);
    else rotate<false><<<1, kBlock, sizeof host>>>(out);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
    for (int i = 0; i < kBlock; ++i) CHECK_EQ_INT(host[i], 10 * ((i & ~31) | ((i + 1) & 31)));
    CK(cudaFree(out));
    return 0;
}

static int run_uninit(bool memset_first)
{
    int *in = nullptr, *out = nullptr, host[kBlock];
    CK(cudaMalloc(&in, sizeof host));
    CK(cudaMalloc(&out, sizeof host));
    if (memset_first) CK(cudaMemset(in, 0, sizeof host));
    for (int i = 0; i < kBlock / 2; ++i) host[i] = i;
    CK(cudaMemcpy(in, host, sizeof host / 2, cudaMemcpyHostToDevice)); /* the first half */
    add_one<<<1, kBlock>>>(in, out);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaMemcpy(host, out, sizeof host, cudaMemcpyDeviceToHost));
    for (int i = 0; i < kBlock; ++i) CHECK_EQ_INT(host[i], i < kBlock / 2 ? i + 1 : 1);
    CK(cudaFree(in));
    CK(cudaFree(out));
    return 0;
}

static int run_fresh(const char *want)
{
    const bool zero = !std::strcmp(want, "zero");
    if (!zero && std::strcmp(want, "nan")) {
        std::fprintf(stderr, "sanitize fresh: '%s' is not zero or nan\n", want);
        return 2;
    }
    unsigned char *d = nullptr, host[256];
    CK(cudaMalloc(&d, sizeof host));
    CK(cudaMemcpy(host, d, sizeof host, cudaMemcpyDeviceToHost));
    size_t n = 0;
    for (unsigned char b : host) n += b == (zero ? 0x00 : 0xff);
    CHECK_EQ_INT(n, sizeof host);
    CK(cudaFree(d));
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int rc = 2;
    if (!std::strcmp(mode, "block-race")) rc = run_block(false);
    else if (!std::strcmp(mode, "block-synced")) rc = run_block(true);
    else if (!std::strcmp(mode, "warp-race")) rc = run_warp(false);
    else if (!std::strcmp(mode, "warp-synced")) rc = run_warp(true);
    else if (!std::strcmp(mode, "uninit")) rc = run_uninit(false);
    else if (!std::strcmp(mode, "uninit-memset")) rc = run_uninit(true);
    else if (!std::strcmp(mode, "fresh") && argc > 2) rc = run_fresh(argv[2]);
    else std::fprintf(stderr, "sanitize: unknown mode '%s'\n", mode);
    if (rc) return rc;
    if (g_test_failures) return 1;
    std::printf("sanitize %s: all checks passed\n", mode);
    return 0;
}
