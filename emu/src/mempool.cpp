/* emu/src/mempool.cpp - stream-ordered allocation (cudaMallocAsync,
 * cudaFreeAsync), memory pools (cudaMemPool*) and the device limits
 * (cudaDeviceSetLimit / GetLimit).
 *
 * A pool is bookkeeping over ordinary device blocks (memory.cpp's
 * new_device_block): `used` bytes are live allocations, `reserved` bytes are
 * what the pool holds from the device (counted in Device::used, so the
 * device's memory limit, CUDAEMU_MEM_MB, bounds every pool together with
 * cudaMalloc).  An allocation takes unused reserved bytes first and reserves
 * only what is missing; freed bytes stay reserved until a host synchronize
 * (stream, event, device) trims the pool to its release threshold, or
 * cudaMemPoolTrimTo; an allocation that does not fit releases the unused
 * bytes of every pool of its device first, as the driver may.
 *
 * Addresses are never reused: cudaFreeAsync queues the free on its stream;
 * when the stream reaches it the block leaves the table and its pages become
 * inaccessible (PROT_NONE, their memory given back; poisoned under ASan), so
 * a kernel still touching it after the free fails the launch with the
 * sticky cudaErrorIllegalAddress and a line naming the freed block (through
 * the fault handler, freed_block_fault).  The last kFreedKept freed blocks
 * are kept so; older ones are unmapped.
 *
 * In stream capture (or a graph memory node being made) an allocation is a
 * graph's allocation node: the block is made at the call and lives as long
 * as something holds the node's work (the graph, its clones and executable
 * graphs, queued launches); frees of it, in the graph or outside, release
 * nothing earlier.
 */
#include "internal.h"

#include <sys/mman.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>

struct CUmemPoolHandle_st {
    int device = 0;
    bool is_default = false;
    bool destroyed = false; /* cudaMemPoolDestroy with allocations outstanding */
    cudaMemPoolProps props{};
    uint64_t threshold = 0; /* cudaMemPoolAttrReleaseThreshold */
    int reuse[3] = {1, 1, 1};
    size_t used = 0, used_high = 0, reserved = 0, reserved_high = 0;
    std::vector<cudaMemAccessFlags> access; /* per device; its own device read-write */
};

namespace cudaemu {
namespace {

constexpr size_t kFreedKept = 4096;
/* cudaLimit's values, indexed by the enum: an sm_90 part's defaults (the
 * device-side malloc heap 8 MiB, as CUDA's) */
constexpr int kLimits = 7;
constexpr size_t kLimitDefaults[kLimits] = {1024, size_t(1) << 20, size_t(8) << 20, 2, 2048, 64, 0};

struct PerDevice {
    CUmemPoolHandle_st *def = nullptr, *cur = nullptr;
    size_t limit[kLimits] = {kLimitDefaults[0], kLimitDefaults[1], kLimitDefaults[2],
                             kLimitDefaults[3], kLimitDefaults[4], kLimitDefaults[5],
                             kLimitDefaults[6]};
};

struct Freed {
    char *map = nullptr; /* its mapping (null: a heap block, raw) */
    size_t map_size = 0;
    char *raw = nullptr;
    uintptr_t base = 0;
    size_t size = 0;
};

/* never destroyed (as st()): blocks they hold stay reachable at exit, for
 * LeakSanitizer too */
std::map<CUmemPoolHandle_st *, std::unique_ptr<CUmemPoolHandle_st>> &g_pools =
    *new std::map<CUmemPoolHandle_st *, std::unique_ptr<CUmemPoolHandle_st>>;
std::vector<PerDevice> &g_dev = *new std::vector<PerDevice>;
std::deque<Freed> &g_freed = *new std::deque<Freed>;

/* Unmaps (or frees) the oldest kept freed blocks until `keep` are left. */
void release_kept(size_t keep)
{
    while (g_freed.size() > keep) {
        const Freed &o = g_freed.front();
        if (o.map) {
            munmap(o.map, o.map_size);
        } else {
            poison_range(reinterpret_cast<void *>(o.base), o.size, false);
            std::free(o.raw);
        }
        g_freed.pop_front();
    }
}

/* At exit the kept blocks go back: LeakSanitizer looks after the static
 * destructors, g_freed's among them (this one runs first). */
struct FreedAtExit {
    ~FreedAtExit() { release_kept(0); }
} g_freed_at_exit;

PerDevice &per_device(int d)
{
    if (g_dev.size() <= size_t(d)) g_dev.resize(size_t(d) + 1);
    return g_dev[size_t(d)];
}

CUmemPoolHandle_st *make_pool(int d, const cudaMemPoolProps &props, bool is_default)
{
    auto p = std::make_unique<CUmemPoolHandle_st>();
    p->device = d;
    p->is_default = is_default;
    p->props = props;
    p->access.assign(size_t(config().ndev), cudaMemAccessFlagsProtNone);
    p->access[size_t(d)] = cudaMemAccessFlagsProtReadWrite;
    CUmemPoolHandle_st *h = p.get();
    g_pools[h] = std::move(p);
    return h;
}

CUmemPoolHandle_st *default_pool(int d)
{
    PerDevice &pd = per_device(d);
    if (!pd.def) {
        cudaMemPoolProps props{};
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = d;
        pd.def = pd.cur = make_pool(d, props, true);
    }
    return pd.def;
}

CUmemPoolHandle_st *current_pool(int d)
{
    default_pool(d);
    return per_device(d).cur;
}

/* A live pool handle, or null. */
CUmemPoolHandle_st *pool_of(cudaMemPool_t h)
{
    auto it = g_pools.find(h);
    return it == g_pools.end() || it->second->destroyed ? nullptr : it->second.get();
}

/* Gives back unused reserved bytes until the pool holds at most keep. */
void trim(CUmemPoolHandle_st *p, size_t keep)
{
    if (p->reserved <= keep) return;
    size_t give = p->reserved - keep, unused = p->reserved - p->used;
    if (give > unused) give = unused;
    p->reserved -= give;
    dev(p->device).used -= give;
}

/* A destroyed pool goes once its last allocation is freed. */
void maybe_forget(CUmemPoolHandle_st *p)
{
    if (!p->destroyed || p->used) return;
    trim(p, 0);
    g_pools.erase(p);
}

/* Accounts an allocation of n bytes from p: false when the device (or the
 * pool's maxSize) cannot give the reserved bytes it lacks. */
bool take(CUmemPoolHandle_st *p, size_t n)
{
    const size_t unused = p->reserved - p->used;
    if (unused < n) {
        const size_t need = n - unused;
        if (p->props.maxSize && need > p->props.maxSize - p->reserved) return false;
        Device &d = dev(p->device);
        if (need > config().mem_bytes - d.used)
            for (auto &kv : g_pools)
                if (kv.second->device == p->device) trim(kv.second.get(), kv.second->used);
        if (need > config().mem_bytes - d.used) return false;
        p->reserved += need;
        d.used += need;
        if (p->reserved > p->reserved_high) p->reserved_high = p->reserved;
    }
    p->used += n;
    if (p->used > p->used_high) p->used_high = p->used;
    return true;
}

void finish_free(uintptr_t base);

cudaError_t pool_alloc(void **ptr, size_t size, CUmemPoolHandle_st *pool, cudaStream_t stream,
                       const void *caller)
{
    if (!ptr) return cudaErrorInvalidValue;
    *ptr = nullptr;
    if (size == 0) return cudaErrorInvalidValue;
    cudaError_t e = cudaSuccess;
    auto s = stream_of(stream, &e);
    if (!s) return e;
    if (!take(pool, size)) return cudaErrorMemoryAllocation;
    if ((e = new_device_block(size, Alloc::Device, pool->device, caller, pool, ptr))) {
        pool->used -= size;
        return e;
    }
    if (!capturing(s.get())) return cudaSuccess;
    /* a graph's allocation node: the block lives as long as a graph, an
     * executable graph or a queued launch holds the node's work */
    const uintptr_t base = reinterpret_cast<uintptr_t>(*ptr);
    st().allocs.at(base).graph_owned = true;
    auto block = std::shared_ptr<void>(nullptr, [base](void *) {
        std::lock_guard<std::recursive_mutex> lock(st().mu);
        auto it = st().allocs.find(base); /* not after cudaDeviceReset took it */
        if (it != st().allocs.end() && it->second.graph_owned) finish_free(base);
    });
    Op op;
    op.work = [block]() { return cudaSuccess; };
    if ((e = enqueue(s.get(), std::move(op)))) *ptr = nullptr; /* the block is gone */
    return e;
}

/* The stream reached cudaFreeAsync(base): the block leaves the table; its
 * pages stay inaccessible so a later access faults, naming it. */
void finish_free(uintptr_t base)
{
    auto it = st().allocs.find(base);
    if (it == st().allocs.end()) return;
    const Alloc a = it->second;
    objects_lose_memory(a.base, a.size, "its memory was freed (cudaFreeAsync)");
    account_release(a);
    st().allocs.erase(it);
    Freed f;
    f.map = a.map;
    f.map_size = a.map_size;
    f.raw = a.raw;
    f.base = a.base;
    f.size = a.size;
    if (a.map) {
        mprotect(a.map, a.map_size, PROT_NONE);
        madvise(a.map, a.map_size, MADV_DONTNEED);
    } else {
        poison_range(reinterpret_cast<void *>(a.base), a.size, true);
    }
    g_freed.push_back(f);
    release_kept(kFreedKept);
}

} // namespace

void account_release(const Alloc &a)
{
    CUmemPoolHandle_st *p = a.pool;
    if (!p || !g_pools.count(p)) {
        dev(a.device).used -= a.size;
        return;
    }
    p->used -= a.size;
    maybe_forget(p);
}

void pools_after_sync(int d)
{
    for (auto &kv : g_pools)
        if (kv.second->device == d) trim(kv.second.get(), kv.second->threshold);
}

void reset_pools(int d)
{
    for (auto it = g_pools.begin(); it != g_pools.end();) {
        if (it->second->device == d) {
            dev(d).used -= it->second->reserved;
            it = g_pools.erase(it);
        } else {
            ++it;
        }
    }
    per_device(d) = PerDevice();
    forget_device_heap(d);
}

bool freed_block_fault(uintptr_t addr, char *buf, size_t cap)
{
    for (auto it = g_freed.rbegin(); it != g_freed.rend(); ++it) {
        const uintptr_t lo = it->map ? reinterpret_cast<uintptr_t>(it->map) : it->base;
        const uintptr_t hi = it->map ? lo + it->map_size : it->base + it->size;
        if (addr < lo || addr >= hi) continue;
        std::snprintf(buf, cap, "use after free: access at %p, byte %lld of the %zu-byte block at "
                      "%p freed by cudaFreeAsync before this kernel ran",
                      reinterpret_cast<void *>(addr), (long long)(addr - it->base), it->size,
                      reinterpret_cast<void *>(it->base));
        return true;
    }
    return false;
}

size_t device_limit(int d, cudaLimit limit)
{
    return per_device(d).limit[int(limit)];
}

} // namespace cudaemu

using namespace cudaemu;

inline namespace cudaemu_api {

cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    cudaError_t e = cudaSuccess;
    auto s = stream_of(hStream, &e);
    if (!s) return ret(e);
    return ret(pool_alloc(devPtr, size, current_pool(s->device), hStream,
                          __builtin_return_address(0)));
}

cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t memPool,
                                    cudaStream_t stream)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    CUmemPoolHandle_st *p = pool_of(memPool);
    if (!p) return ret(cudaErrorInvalidValue);
    return ret(pool_alloc(ptr, size, p, stream, __builtin_return_address(0)));
}

cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t hStream)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    cudaError_t e = cudaSuccess;
    auto s = stream_of(hStream, &e);
    if (!s) return ret(e);
    auto it = st().allocs.find(reinterpret_cast<uintptr_t>(devPtr));
    if (!devPtr || it == st().allocs.end() || it->second.free_queued ||
        (it->second.kind != Alloc::Device && it->second.kind != Alloc::Managed) ||
        it->second.array)
        return ret(cudaErrorInvalidValue);
    const bool graph_owned = it->second.graph_owned;
    if (capturing(s.get()) && !graph_owned) {
        report("cudaFreeAsync in stream capture of memory the graph did not allocate (a graph "
               "memory free node of it) is not emulated");
        return ret(cudaErrorStreamCaptureUnsupported);
    }
    it->second.free_queued = !graph_owned;
    const uintptr_t base = it->second.base;
    Op op;
    op.work = [base, graph_owned]() {
        if (!graph_owned) finish_free(base); /* graph memory lives with its graph */
        return cudaSuccess;
    };
    op.after_failure = true; /* the block is given back after a fault too */
    return ret(enqueue(s.get(), std::move(op)));
}

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device)
{
    CUDAEMU_LOCK;
    if (config().ndev == 0) return ret(cudaErrorNoDevice);
    if (!memPool) return ret(cudaErrorInvalidValue);
    if (device < 0 || device >= config().ndev) return ret(cudaErrorInvalidDevice);
    *memPool = default_pool(device);
    return cudaSuccess;
}

cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device)
{
    CUDAEMU_LOCK;
    if (config().ndev == 0) return ret(cudaErrorNoDevice);
    if (!memPool) return ret(cudaErrorInvalidValue);
    if (device < 0 || device >= config().ndev) return ret(cudaErrorInvalidDevice);
    *memPool = current_pool(device);
    return cudaSuccess;
}

cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool)
{
    CUDAEMU_LOCK;
    if (config().ndev == 0) return ret(cudaErrorNoDevice);
    if (device < 0 || device >= config().ndev) return ret(cudaErrorInvalidDevice);
    CUmemPoolHandle_st *p = pool_of(memPool);
    if (!p || p->device != device) return ret(cudaErrorInvalidValue);
    default_pool(device);
    per_device(device).cur = p;
    return cudaSuccess;
}

cudaError_t cudaMemPoolCreate(cudaMemPool_t *memPool, const cudaMemPoolProps *props)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    if (!memPool || !props) return ret(cudaErrorInvalidValue);
    if (props->allocType != cudaMemAllocationTypePinned ||
        props->location.type != cudaMemLocationTypeDevice)
        return ret(props->allocType == cudaMemAllocationTypeManaged ||
                           props->location.type == cudaMemLocationTypeHost ||
                           props->location.type == cudaMemLocationTypeHostNuma
                       ? (report("cudaMemPoolCreate: only pools of device memory "
                                 "(cudaMemAllocationTypePinned on cudaMemLocationTypeDevice) "
                                 "are emulated"),
                          cudaErrorNotSupported)
                       : cudaErrorInvalidValue);
    if (props->location.id < 0 || props->location.id >= config().ndev)
        return ret(cudaErrorInvalidDevice);
    if (props->handleTypes != cudaMemHandleTypeNone) {
        report("cudaMemPoolCreate: exportable pools (handleTypes %d) are not emulated (IPC)",
               (int)props->handleTypes);
        return ret(cudaErrorNotSupported);
    }
    *memPool = make_pool(props->location.id, *props, false);
    return cudaSuccess;
}

cudaError_t cudaMemPoolDestroy(cudaMemPool_t memPool)
{
    CUDAEMU_LOCK;
    CUmemPoolHandle_st *p = pool_of(memPool);
    if (!p || p->is_default) return ret(cudaErrorInvalidValue);
    PerDevice &pd = per_device(p->device);
    if (pd.cur == p) pd.cur = pd.def; /* the device's default pool again, as CUDA */
    p->destroyed = true;              /* gone once its allocations are freed */
    maybe_forget(p);
    return cudaSuccess;
}

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, cudaMemPoolAttr attr, void *value)
{
    CUDAEMU_LOCK;
    CUmemPoolHandle_st *p = pool_of(memPool);
    if (!p || !value) return ret(cudaErrorInvalidValue);
    switch (attr) {
    case cudaMemPoolReuseFollowEventDependencies:
    case cudaMemPoolReuseAllowOpportunistic:
    case cudaMemPoolReuseAllowInternalDependencies:
        p->reuse[int(attr) - 1] = *static_cast<int *>(value);
        return cudaSuccess;
    case cudaMemPoolAttrReleaseThreshold:
        p->threshold = *static_cast<uint64_t *>(value);
        return cudaSuccess;
    case cudaMemPoolAttrReservedMemHigh:
    case cudaMemPoolAttrUsedMemHigh:
        /* only a reset to the current value: setting a non-zero value is illegal */
        if (*static_cast<uint64_t *>(value) != 0) return ret(cudaErrorInvalidValue);
        if (attr == cudaMemPoolAttrUsedMemHigh) p->used_high = p->used;
        else p->reserved_high = p->reserved;
        return cudaSuccess;
    default:
        return ret(cudaErrorInvalidValue);
    }
}

cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, cudaMemPoolAttr attr, void *value)
{
    CUDAEMU_LOCK;
    CUmemPoolHandle_st *p = pool_of(memPool);
    if (!p || !value) return ret(cudaErrorInvalidValue);
    uint64_t *v = static_cast<uint64_t *>(value);
    switch (attr) {
    case cudaMemPoolReuseFollowEventDependencies:
    case cudaMemPoolReuseAllowOpportunistic:
    case cudaMemPoolReuseAllowInternalDependencies:
        *static_cast<int *>(value) = p->reuse[int(attr) - 1];
        return cudaSuccess;
    case cudaMemPoolAttrReleaseThreshold: *v = p->threshold; return cudaSuccess;
    case cudaMemPoolAttrReservedMemCurrent: *v = p->reserved; return cudaSuccess;
    case cudaMemPoolAttrReservedMemHigh: *v = p->reserved_high; return cudaSuccess;
    case cudaMemPoolAttrUsedMemCurrent: *v = p->used; return cudaSuccess;
    case cudaMemPoolAttrUsedMemHigh: *v = p->used_high; return cudaSuccess;
    default: return ret(cudaErrorInvalidValue);
    }
}

cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep)
{
    CUDAEMU_LOCK;
    CUmemPoolHandle_st *p = pool_of(memPool);
    if (!p) return ret(cudaErrorInvalidValue);
    trim(p, minBytesToKeep);
    return cudaSuccess;
}

cudaError_t cudaMemPoolSetAccess(cudaMemPool_t memPool, const cudaMemAccessDesc *descList,
                                 size_t count)
{
    CUDAEMU_LOCK;
    CUmemPoolHandle_st *p = pool_of(memPool);
    if (!p || (count && !descList)) return ret(cudaErrorInvalidValue);
    for (size_t i = 0; i < count; ++i) {
        const cudaMemAccessDesc &d = descList[i];
        if (d.location.type != cudaMemLocationTypeDevice || d.location.id < 0 ||
            d.location.id >= config().ndev ||
            (d.flags != cudaMemAccessFlagsProtNone && d.flags != cudaMemAccessFlagsProtRead &&
             d.flags != cudaMemAccessFlagsProtReadWrite))
            return ret(cudaErrorInvalidValue);
        /* the pool's own device always has read-write access */
        if (d.location.id == p->device && d.flags != cudaMemAccessFlagsProtReadWrite)
            return ret(cudaErrorInvalidDevice);
    }
    for (size_t i = 0; i < count; ++i) p->access[size_t(descList[i].location.id)] = descList[i].flags;
    return cudaSuccess;
}

cudaError_t cudaMemPoolGetAccess(cudaMemAccessFlags *flags, cudaMemPool_t memPool,
                                 cudaMemLocation *location)
{
    CUDAEMU_LOCK;
    CUmemPoolHandle_st *p = pool_of(memPool);
    if (!p || !flags || !location || location->type != cudaMemLocationTypeDevice ||
        location->id < 0 || location->id >= config().ndev)
        return ret(cudaErrorInvalidValue);
    *flags = p->access[size_t(location->id)];
    return cudaSuccess;
}

/* Every limit is kept per device and read back; only cudaLimitMallocHeapSize
 * changes what kernels see (device-side malloc). */
cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    if (int(limit) < 0 || int(limit) >= kLimits) return ret(cudaErrorUnsupportedLimit);
    /* "must be performed before launching any kernel that uses malloc()" */
    if (limit == cudaLimitMallocHeapSize && device_heap_started(cur_dev()))
        return ret(cudaErrorInvalidValue);
    per_device(cur_dev()).limit[int(limit)] = value;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetLimit(size_t *pValue, cudaLimit limit)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    if (!pValue) return ret(cudaErrorInvalidValue);
    if (int(limit) < 0 || int(limit) >= kLimits) return ret(cudaErrorUnsupportedLimit);
    *pValue = per_device(cur_dev()).limit[int(limit)];
    return cudaSuccess;
}

} // inline namespace cudaemu_api
