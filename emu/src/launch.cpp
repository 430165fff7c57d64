/* emu/src/launch.cpp - kernel launches and per-kernel attributes.
 *
 * cudaLaunchKernelEx (the template in cuda_runtime.h) lands here with the
 * kernel call captured by value.  The configuration is validated as CUDA does
 * (block of more than 1024 threads, blockDim.z > 64, a zero extent or a grid
 * beyond 2^31-1 x 65535 x 65535: cudaErrorInvalidConfiguration; dynamic shared
 * memory above the kernel's limit, 48 KiB unless raised with
 * cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize):
 * cudaErrorInvalidValue), the error also becoming the thread's last error;
 * then the grid is queued on the stream and runs when the stream is drained.
 * A cooperative launch (cudaLaunchAttributeCooperative, as
 * cudaLaunchCooperativeKernel sets it) must fit on the emulated device at
 * once, max_active_blocks x SMs blocks, else cudaErrorCooperativeLaunchTooLarge.
 */
#include "internal.h"

#include <algorithm>

namespace cudaemu {

int max_active_blocks(int blockSize, size_t dynamicSMemSize)
{
    if (blockSize <= 0 || blockSize > kMaxThreads) return 0;
    int warps = (blockSize + 31) / 32;
    int by_threads = 64 / warps;              /* 2048 threads = 64 warps per SM */
    int by_smem = 32;
    if (dynamicSMemSize)
        by_smem = int(size_t(kSmemPerSM) / (dynamicSMemSize + 1024));
    return std::max(0, std::min({32, by_threads, by_smem}));
}

const FuncInfo &func_info(const void *f)
{
    static const FuncInfo dflt;
    auto it = st().funcs.find(f);
    return it == st().funcs.end() ? dflt : it->second;
}

namespace detail {

cudaError_t launch(const cudaLaunchConfig_t *config, const void *func,
                   std::unique_ptr<KernelCall> call)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    if (!config) return ret(cudaErrorInvalidValue);
    if (!func) return ret(cudaErrorInvalidDeviceFunction);
    const dim3 b = config->blockDim, g = config->gridDim;
    if (b.x == 0 || b.y == 0 || b.z == 0 || g.x == 0 || g.y == 0 || g.z == 0)
        return ret(cudaErrorInvalidConfiguration);
    if (b.x > 1024 || b.y > 1024 || b.z > 64 ||
        uint64_t(b.x) * b.y * b.z > uint64_t(kMaxThreads))
        return ret(cudaErrorInvalidConfiguration);
    if (g.x > 2147483647u || g.y > 65535u || g.z > 65535u)
        return ret(cudaErrorInvalidConfiguration);
    if (config->dynamicSmemBytes > size_t(func_info(func).max_dyn_smem))
        return ret(cudaErrorInvalidValue);
    if (config->numAttrs && !config->attrs) return ret(cudaErrorInvalidValue);
    bool cooperative = false;
    for (unsigned i = 0; i < config->numAttrs; ++i) {
        const cudaLaunchAttribute &a = config->attrs[i];
        if (a.id == cudaLaunchAttributeCooperative) cooperative = a.val.cooperative != 0;
        if (a.id == cudaLaunchAttributeClusterDimension &&
            uint64_t(a.val.clusterDim.x) * a.val.clusterDim.y * a.val.clusterDim.z > 1)
            return ret(cudaErrorNotSupported);
    }
    if (cooperative) {
        const uint64_t threads = uint64_t(b.x) * b.y * b.z;
        const uint64_t blocks = uint64_t(g.x) * g.y * g.z;
        const uint64_t fit = uint64_t(max_active_blocks(int(threads), config->dynamicSmemBytes)) *
                             uint64_t(kSmCount);
        if (blocks > fit) return ret(cudaErrorCooperativeLaunchTooLarge);
    }
    cudaError_t se = cudaSuccess;
    auto s = stream_of(config->stream, &se);
    if (!s) return ret(se);

    Launch l;
    l.call = std::shared_ptr<KernelCall>(std::move(call));
    l.func = func;
    l.grid = g;
    l.block = b;
    l.smem = config->dynamicSmemBytes;
    l.device = s->device;
    l.cooperative = cooperative;
    return ret(enqueue_work(s.get(), [l]() {
        if (process_exiting()) return cudaErrorLaunchFailure; /* as a GPU context's teardown */
        watchdog_begin(l.func);
        cudaError_t e = l.cooperative ? run_cooperative_kernel(l) : run_kernel(l);
        watchdog_end();
        return e;
    }));
}

} // namespace detail
} // namespace cudaemu

using namespace cudaemu;

inline namespace cudaemu_api {

cudaError_t cudaFuncSetAttribute(const void *func, cudaFuncAttribute attr, int value)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    if (!func) return ret(cudaErrorInvalidDeviceFunction);
    FuncInfo fi = func_info(func);
    switch (attr) {
    case cudaFuncAttributeMaxDynamicSharedMemorySize:
        if (value < 0 || value > kSmemOptin) return ret(cudaErrorInvalidValue);
        fi.max_dyn_smem = value;
        break;
    case cudaFuncAttributePreferredSharedMemoryCarveout:
        if (value < -1 || value > 100) return ret(cudaErrorInvalidValue);
        fi.carveout = value;
        break;
    default:
        return ret(cudaErrorInvalidValue);
    }
    st().funcs[func] = fi;
    return cudaSuccess;
}

cudaError_t cudaFuncGetAttributes(cudaFuncAttributes *attr, const void *func)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    if (!attr) return ret(cudaErrorInvalidValue);
    if (!func) return ret(cudaErrorInvalidDeviceFunction);
    const FuncInfo &fi = func_info(func);
    *attr = cudaFuncAttributes();
    attr->maxThreadsPerBlock = kMaxThreads;
    attr->numRegs = 32;
    attr->ptxVersion = 90;
    attr->binaryVersion = 90;
    attr->maxDynamicSharedSizeBytes = fi.max_dyn_smem;
    attr->preferredShmemCarveout = fi.carveout;
    return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func,
                                                          int blockSize, size_t dynamicSMemSize)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    if (!numBlocks || blockSize <= 0) return ret(cudaErrorInvalidValue);
    if (!func) return ret(cudaErrorInvalidDeviceFunction);
    *numBlocks = max_active_blocks(blockSize, dynamicSMemSize);
    return cudaSuccess;
}

} // inline namespace cudaemu_api
