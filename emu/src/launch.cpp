/* emu/src/launch.cpp - kernel launches and per-kernel attributes.
 *
 * cudaLaunchKernelEx (the template in cuda_runtime.h) lands here with the
 * kernel call captured by value.  The configuration is validated as CUDA does
 * (block of more than 1024 threads, blockDim.z > 64, a zero extent or a grid
 * beyond 2^31-1 x 65535 x 65535: cudaErrorInvalidConfiguration; dynamic shared
 * memory above the kernel's limit, 48 KiB unless raised with
 * cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize):
 * cudaErrorInvalidValue; the limit is 48 KiB less the kernel's static
 * __shared__ memory by default), a block larger than the kernel's
 * __launch_bounds__ (cudaErrorLaunchOutOfResources, as a GPU; both known
 * from kernel_info.cpp), the error also becoming the thread's last error;
 * then the grid is queued on the stream and runs when the stream is drained
 * (run_launches: alone, or under CUDAEMU_INTERLEAVE=1 interleaved with kernels
 * of other streams that streams.cpp's drain hands over together).
 * A cooperative launch (cudaLaunchAttributeCooperative, as
 * cudaLaunchCooperativeKernel sets it) must fit on the emulated device at
 * once, max_active_blocks x SMs blocks, else cudaErrorCooperativeLaunchTooLarge.
 * A launch from device code (dynamic parallelism) is checked the same way and
 * then recorded on the running grid (device_runtime.cpp).
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

size_t max_dyn_smem(const void *f)
{
    const int set = func_info(f).max_dyn_smem;
    if (set >= 0) return size_t(set);
    const size_t fixed = static_smem_bytes(f);
    return fixed >= size_t(kSmemPerBlock) ? 0 : size_t(kSmemPerBlock) - fixed;
}

namespace {

/* What a GPU refuses of this kernel with this block and shared memory size:
 * a block larger than its __launch_bounds__ (cudaErrorLaunchOutOfResources,
 * "too many resources requested for launch"), static shared memory past
 * 48 KiB (ptxas refuses such a kernel), static + dynamic shared memory past
 * its limit (cudaErrorInvalidValue).  One line names the kernel and the
 * numbers; cudaSuccess when it fits. */
cudaError_t kernel_limits(const void *func, uint64_t threads, size_t dyn)
{
    const KernelStatic *ks = kernel_static(func);
    if (ks && ks->max_threads > 0 && threads > uint64_t(ks->max_threads)) {
        report("kernel %s is declared __launch_bounds__(%lld) and launched with %llu threads per "
               "block: refused as a GPU refuses it (cudaErrorLaunchOutOfResources)",
               function_name(func).c_str(), ks->max_threads, (unsigned long long)threads);
        return cudaErrorLaunchOutOfResources;
    }
    const size_t fixed = ks ? ks->static_smem : 0;
    if (fixed > size_t(kSmemPerBlock)) {
        report("kernel %s declares %zu bytes of static __shared__ memory, more than the %d a "
               "kernel may (ptxas refuses it: \"uses too much shared data\"); use dynamic "
               "shared memory and cudaFuncSetAttribute to go beyond", function_name(func).c_str(),
               fixed, kSmemPerBlock);
        return cudaErrorInvalidValue;
    }
    const size_t limit = max_dyn_smem(func);
    if (dyn > limit) {
        const bool raised = func_info(func).max_dyn_smem >= 0;
        report("kernel %s launched with %zu bytes of dynamic shared memory; its limit is %zu "
               "(%s, less its %zu bytes of static __shared__ memory)%s: refused "
               "(cudaErrorInvalidValue)", function_name(func).c_str(), dyn, limit,
               raised ? "raised by cudaFuncSetAttribute(cudaFuncAttributeMaxDynamicSharedMemorySize)"
                      : "48 KiB", fixed,
               raised ? "" : "; more needs cudaFuncSetAttribute(k, "
                             "cudaFuncAttributeMaxDynamicSharedMemorySize, bytes), up to 227 KiB "
                             "less the static size");
        return cudaErrorInvalidValue;
    }
    return cudaSuccess;
}

} // namespace

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
    if (cudaError_t e = kernel_limits(func, uint64_t(b.x) * b.y * b.z, config->dynamicSmemBytes))
        return ret(e);
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
        const uint64_t fit = uint64_t(max_active_blocks(int(threads), config->dynamicSmemBytes +
                                                        static_smem_bytes(func))) *
                             uint64_t(kSmCount);
        if (blocks > fit) return ret(cudaErrorCooperativeLaunchTooLarge);
    }
    const bool in_device = in_kernel_code(); /* dynamic parallelism */
    cudaError_t se = cudaSuccess;
    auto s = in_device ? nullptr : stream_of(config->stream, &se);
    if (!s && !in_device) return ret(se);

    auto l = std::make_shared<Launch>();
    l->call = std::shared_ptr<KernelCall>(std::move(call));
    l->func = func;
    l->grid = g;
    l->block = b;
    l->smem = config->dynamicSmemBytes;
    l->device = in_device ? t_kernel_device : s->device;
    l->cooperative = cooperative;
    if (in_device) return device_launch(*l, config->stream);
    Op op;
    op.kind = Op::Work;
    op.kernel = func;
    op.launch = l; /* streams.cpp may run it together with other streams' kernels */
    op.work = [l]() {
        const Launch *one = l.get();
        cudaError_t e = cudaSuccess;
        run_launches(&one, 1, &e);
        return e;
    };
    return ret(enqueue(s.get(), std::move(op)));
}

} // namespace detail

void run_launches(const Launch *const *ls, size_t n, cudaError_t *out)
{
    if (n == 1) { /* with its child grids (device_runtime.cpp) */
        out[0] = run_grid(*ls[0], 0);
        return;
    }
    /* a batch of several streams' kernels (CUDAEMU_INTERLEAVE=1): their
     * device-side launches, and racecheck/initcheck, are not followed here */
    if (process_exiting()) { /* as a GPU context's teardown */
        for (size_t i = 0; i < n; ++i) out[i] = cudaErrorLaunchFailure;
        return;
    }
    const Launch &l = *ls[0];
    watchdog_begin(l.func);
    t_kernel_device = l.device; /* device-side malloc's heap (one device per batch) */
    run_interleaved_kernels(ls, n, out);
    watchdog_end();
}
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
        /* "The sum of this value and the function attribute sharedSizeBytes
         * cannot exceed cudaDevAttrMaxSharedMemoryPerBlockOptin" */
        if (value < 0 || size_t(value) + static_smem_bytes(func) > size_t(kSmemOptin))
            return ret(cudaErrorInvalidValue);
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
    const KernelStatic *ks = kernel_static(func);
    attr->maxThreadsPerBlock =
        ks && ks->max_threads > 0 && ks->max_threads < kMaxThreads ? int(ks->max_threads)
                                                                    : kMaxThreads;
    attr->sharedSizeBytes = ks ? ks->static_smem : 0;
    attr->numRegs = 32;
    attr->ptxVersion = 90;
    attr->binaryVersion = 90;
    attr->maxDynamicSharedSizeBytes = int(max_dyn_smem(func));
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
    const KernelStatic *ks = kernel_static(func);
    *numBlocks = ks && ks->max_threads > 0 && blockSize > ks->max_threads
                     ? 0 /* the kernel cannot run blocks that large at all */
                     : max_active_blocks(blockSize, dynamicSMemSize + static_smem_bytes(func));
    return cudaSuccess;
}

} // inline namespace cudaemu_api
