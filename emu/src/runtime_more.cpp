/* emu/src/runtime_more.cpp - runtime calls that change nothing on the host
 * but that programs make (include/cudaemu/runtime_more.h): each checks what
 * CUDA checks and answers as CUDA does for one device of the emulated kind. */
#include "internal.h"

#include <cstdio>
#include <cstring>

using namespace cudaemu;

namespace {

/* "dddd:bb:dd.0", as CUDA formats a device's PCI id */
void pci_id(char *out, size_t n, int device)
{
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, device) != cudaSuccess) { out[0] = 0; return; }
    std::snprintf(out, n, "%04x:%02x:%02x.0", p.pciDomainID, p.pciBusID, p.pciDeviceID);
}

cudaError_t func_ok(const void *func)
{
    if (cudaError_t e = usable()) return e;
    return func ? cudaSuccess : cudaErrorInvalidDeviceFunction;
}

/* A per-device preference: set (a value of its enum, 0..max), or read. */
cudaError_t set_pref(int Device::*field, int v, int max)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    if (v < 0 || v > max) return ret(cudaErrorInvalidValue);
    dev(cur_dev()).*field = v;
    return cudaSuccess;
}
template <class E> cudaError_t get_pref(int Device::*field, E *out)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    if (!out) return ret(cudaErrorInvalidValue);
    *out = E(dev(cur_dev()).*field);
    return cudaSuccess;
}

/* A property of a stream handle (0, the special handles, a created one). */
template <class T, class F> cudaError_t stream_prop(cudaStream_t h, T *out, F of)
{
    CUDAEMU_LOCK;
    cudaError_t e = usable();
    if (e) return ret(e);
    if (!out) return ret(cudaErrorInvalidValue);
    auto s = stream_of(h, &e);
    if (!s) return ret(e);
    *out = of(*s);
    return cudaSuccess;
}

} // namespace

inline namespace cudaemu_api {

cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache c)
{
    return set_pref(&Device::cache_config, int(c), int(cudaFuncCachePreferEqual));
}

cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache *c)
{
    return get_pref(&Device::cache_config, c);
}

cudaError_t cudaFuncSetCacheConfig(const void *func, cudaFuncCache c)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = func_ok(func)) return ret(e);
    if (int(c) < 0 || int(c) > int(cudaFuncCachePreferEqual)) return ret(cudaErrorInvalidValue);
    return cudaSuccess; /* a preference; L1 and shared memory are one host cache here */
}

/* Since Volta the bank size is fixed: CUDA keeps the setting and ignores it. */
cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig c)
{
    return set_pref(&Device::bank_config, int(c), int(cudaSharedMemBankSizeEightByte));
}

cudaError_t cudaDeviceGetSharedMemConfig(cudaSharedMemConfig *c)
{
    return get_pref(&Device::bank_config, c);
}

cudaError_t cudaFuncSetSharedMemConfig(const void *func, cudaSharedMemConfig c)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = func_ok(func)) return ret(e);
    if (int(c) < 0 || int(c) > int(cudaSharedMemBankSizeEightByte)) return ret(cudaErrorInvalidValue);
    return cudaSuccess;
}

/* Every emulated device is alike: the current one matches best. */
cudaError_t cudaChooseDevice(int *device, const cudaDeviceProp *prop)
{
    if (!device || !prop) return ret(cudaErrorInvalidValue);
    return cudaGetDevice(device);
}

cudaError_t cudaDeviceGetPCIBusId(char *id, int len, int device)
{
    if (!id || len <= 0) return ret(cudaErrorInvalidValue);
    if (config().ndev == 0) return ret(cudaErrorNoDevice);
    if (device < 0 || device >= config().ndev) return ret(cudaErrorInvalidDevice);
    char buf[32];
    pci_id(buf, sizeof buf, device);
    std::snprintf(id, size_t(len), "%s", buf);
    return cudaSuccess;
}

/* Accepts the forms CUDA documents: [domain]:[bus]:[device].[function],
 * [domain]:[bus]:[device], [bus]:[device].[function] (hexadecimal). */
cudaError_t cudaDeviceGetByPCIBusId(int *device, const char *id)
{
    if (!device || !id) return ret(cudaErrorInvalidValue);
    if (config().ndev == 0) return ret(cudaErrorNoDevice);
    unsigned dom = 0, bus = 0, dv = 0, fn = 0;
    int n = 0;
    if (!(std::sscanf(id, "%x:%x:%x.%x%n", &dom, &bus, &dv, &fn, &n) == 4 && !id[n]) &&
        !(std::sscanf(id, "%x:%x:%x%n", &dom, &bus, &dv, &n) == 3 && !id[n]) &&
        !((dom = 0, std::sscanf(id, "%x:%x.%x%n", &bus, &dv, &fn, &n) == 3) && !id[n]))
        return ret(cudaErrorInvalidValue);
    for (int d = 0; d < config().ndev; ++d) {
        cudaDeviceProp p;
        if (cudaGetDeviceProperties(&p, d) != cudaSuccess) continue;
        if (unsigned(p.pciDomainID) == dom && unsigned(p.pciBusID) == bus &&
            unsigned(p.pciDeviceID) == dv) {
            *device = d;
            return cudaSuccess;
        }
    }
    return ret(cudaErrorInvalidDevice);
}

cudaError_t cudaHostGetFlags(unsigned int *flags, void *host)
{
    CUDAEMU_LOCK;
    if (!flags) return ret(cudaErrorInvalidValue);
    const Alloc *a = find_alloc(host);
    if (!a || a->kind != Alloc::HostAlloc) return ret(cudaErrorInvalidValue);
    *flags = a->host_flags;
    return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize, unsigned int flags)
{
    if (flags & ~unsigned(cudaOccupancyDisableCachingOverride)) return ret(cudaErrorInvalidValue);
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(numBlocks, func, blockSize,
                                                         dynamicSMemSize);
}

/* The most dynamic shared memory a block may use with numBlocks blocks of
 * blockSize threads resident on one SM (1 KiB reserved per block, as the
 * occupancy calculation counts it), within the kernel's own limit. */
cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *size, const void *func,
                                                      int numBlocks, int blockSize)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = func_ok(func)) return ret(e);
    if (!size || numBlocks <= 0 || blockSize <= 0 || blockSize > kMaxThreads)
        return ret(cudaErrorInvalidValue);
    if (max_active_blocks(blockSize, 0) < numBlocks) {
        *size = 0; /* that many blocks do not fit by their threads */
        return cudaSuccess;
    }
    const size_t per_block = size_t(kSmemPerSM) / size_t(numBlocks);
    const size_t used = 1024 + static_smem_bytes(func);
    size_t avail = per_block > used ? per_block - used : 0;
    const size_t lim = max_dyn_smem(func);
    *size = avail < lim ? avail : lim;
    return cudaSuccess;
}

cudaError_t cudaStreamGetId(cudaStream_t h, unsigned long long *id)
{
    return stream_prop(h, id, [](CUstream_st &s) {
        return static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(&s));
    });
}

cudaError_t cudaStreamGetDevice(cudaStream_t h, int *device)
{
    return stream_prop(h, device, [](CUstream_st &s) { return s.device; });
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags)
{
    /* cudaEventRecordExternal matters only inside graph capture */
    if (flags & ~unsigned(cudaEventRecordExternal)) return ret(cudaErrorInvalidValue);
    return cudaEventRecord(event, stream);
}

cudaError_t cudaFuncGetName(const char **name, const void *func)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = func_ok(func)) return ret(e);
    if (!name) return ret(cudaErrorInvalidValue);
    static std::map<const void *, std::string> names; /* the pointer stays valid */
    auto it = names.find(func);
    if (it == names.end()) it = names.emplace(func, function_name(func)).first;
    *name = it->second.c_str();
    return cudaSuccess;
}

/* The order in which to try devices: every one is alike here; checked only. */
cudaError_t cudaSetValidDevices(int *devs, int len)
{
    if (len < 0 || (len > 0 && !devs)) return ret(cudaErrorInvalidValue);
    for (int i = 0; i < len; ++i)
        if (devs[i] < 0 || devs[i] >= config().ndev) return ret(cudaErrorInvalidDevice);
    return cudaSuccess;
}

cudaError_t cudaInitDevice(int device, unsigned int deviceFlags, unsigned int flags)
{
    if (config().ndev == 0) return ret(cudaErrorNoDevice);
    if (device < 0 || device >= config().ndev) return ret(cudaErrorInvalidDevice);
    if (flags & ~unsigned(cudaInitDeviceFlagsAreValid)) return ret(cudaErrorInvalidValue);
    if (!(flags & cudaInitDeviceFlagsAreValid) || deviceFlags == 0) return cudaSuccess;
    /* with the flag, deviceFlags are cudaSetDeviceFlags' (for that device) */
    int cur = cur_dev();
    set_cur_dev(device);
    cudaError_t e = cudaSetDeviceFlags(deviceFlags);
    set_cur_dev(cur);
    return e;
}

} // inline namespace cudaemu_api
