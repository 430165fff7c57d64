/* emu/src/memory.cpp - emulated device and pinned host memory.
 *
 * Device memory is host heap memory (256-byte aligned, exact size, so
 * AddressSanitizer catches a kernel writing one element past a block), filled
 * with 0xFF bytes (NaN as float) when allocated, recorded in an allocation
 * table with its device.  Under ASan it stays poisoned except while streams
 * execute work, so host code dereferencing a device pointer is reported.
 * Copies and memsets are checked against the table (direction, bounds) and
 * queued on a stream with CUDA's synchronization rules:
 *   cudaMemcpy: waits for the copy unless device-to-device;
 *   cudaMemcpyAsync: queued; device-to-pageable-host and host-to-host copies
 *     wait (as CUDA documents), pageable host sources are snapshotted;
 *   cudaMemset: queued on the legacy default stream (waits only for pinned
 *     host targets); cudaMemsetAsync: queued.
 * Unfreed blocks are listed at exit (CUDAEMU_LEAKS=0 silences that).
 */
#include "internal.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>

#ifdef CUDAEMU_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace cudaemu {
namespace {

int g_open_depth = 0;

void poison(const Alloc &a, bool on)
{
#ifdef CUDAEMU_ASAN
    if (a.kind != Alloc::Device) return;
    if (on) ASAN_POISON_MEMORY_REGION(reinterpret_cast<void *>(a.base), a.size);
    else ASAN_UNPOISON_MEMORY_REGION(reinterpret_cast<void *>(a.base), a.size);
#else
    (void)a, (void)on;
#endif
}

void leak_report()
{
    if (!config().leaks) return;
    State &s = st();
    std::lock_guard<std::recursive_mutex> lk(s.mu);
    size_t n = 0, bytes = 0;
    for (const auto &kv : s.allocs) {
        const Alloc &a = kv.second;
        const char *what = a.kind == Alloc::Device ? "device memory (cudaMalloc)"
                           : a.kind == Alloc::HostAlloc ? "pinned host memory (cudaMallocHost)"
                                                        : "registered host memory (cudaHostRegister)";
        Dl_info info;
        std::memset(&info, 0, sizeof info);
        char where[512] = "";
        if (a.caller && dladdr(a.caller, &info) && info.dli_fname)
            std::snprintf(where, sizeof where, ", allocated at %s+0x%lx", info.dli_fname,
                          (unsigned long)(reinterpret_cast<uintptr_t>(a.caller) -
                                          reinterpret_cast<uintptr_t>(info.dli_fbase)));
        std::fprintf(stderr, "cudaemu: leak: %zu bytes of %s at %p on device %d%s\n", a.size,
                     what, reinterpret_cast<void *>(a.base), a.device, where);
        ++n;
        bytes += a.size;
    }
    if (n)
        std::fprintf(stderr, "cudaemu: %zu block(s), %zu bytes never freed "
                     "(CUDAEMU_LEAKS=0 silences this report)\n", n, bytes);
}

void note_allocation()
{
    static bool registered = false;
    if (!registered) {
        registered = true;
        std::atexit(leak_report);
    }
}

void *aligned(size_t size, size_t align)
{
    void *p = nullptr;
    if (posix_memalign(&p, align, size ? size : 1) != 0) return nullptr;
    return p;
}

bool overlaps(uintptr_t base, size_t size)
{
    auto &m = st().allocs;
    auto it = m.upper_bound(base + size - 1);
    if (it == m.begin()) return false;
    --it;
    return it->second.base + it->second.size > base;
}

enum Where { Pageable, Pinned, OnDevice };

Where where(const Alloc *a)
{
    return !a ? Pageable : a->kind == Alloc::Device ? OnDevice : Pinned;
}

/* Validates a copy; *wd / *ws say where dst and src live. */
cudaError_t check_copy(void *dst, const void *src, size_t dn, size_t sn, cudaMemcpyKind kind,
                       Where *wd, Where *ws)
{
    if (unsigned(kind) > unsigned(cudaMemcpyDefault)) return cudaErrorInvalidMemcpyDirection;
    if (!dst || !src) return cudaErrorInvalidValue;
    const Alloc *ad = nullptr, *as = nullptr;
    if (!span_ok(dst, dn, &ad) || !span_ok(src, sn, &as)) return cudaErrorInvalidValue;
    *wd = where(ad);
    *ws = where(as);
    bool dd = *wd == OnDevice, sd = *ws == OnDevice;
    bool ok = true;
    switch (kind) {
    case cudaMemcpyHostToHost: ok = !dd && !sd; break;
    case cudaMemcpyHostToDevice: ok = dd && !sd; break;
    case cudaMemcpyDeviceToHost: ok = !dd && sd; break;
    case cudaMemcpyDeviceToDevice: ok = dd && sd; break;
    default: break;
    }
    return ok ? cudaSuccess : cudaErrorInvalidValue;
}

/* Shared body of the 1D and 2D copies. */
cudaError_t copy(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                 size_t height, cudaMemcpyKind kind, cudaStream_t stream, bool async)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    if (width == 0 || height == 0) return cudaSuccess;
    if (height > 1 && (width > dpitch || width > spitch)) return ret(cudaErrorInvalidPitchValue);
    const size_t dn = (height - 1) * dpitch + width, sn = (height - 1) * spitch + width;
    Where wd, ws;
    if (cudaError_t e = check_copy(dst, src, dn, sn, kind, &wd, &ws)) return ret(e);
    cudaError_t se = cudaSuccess;
    auto s = stream_of(stream, &se);
    if (!s) return ret(se);

    std::shared_ptr<std::vector<char>> snap;
    const char *from = static_cast<const char *>(src);
    size_t from_pitch = spitch;
    if (async && ws == Pageable && wd != Pageable) {
        /* CUDA stages pageable sources before returning: the caller may reuse them. */
        snap = std::make_shared<std::vector<char>>(width * height);
        for (size_t r = 0; r < height; ++r)
            std::memcpy(snap->data() + r * width, from + r * spitch, width);
        from = snap->data();
        from_pitch = width;
    }
    char *to = static_cast<char *>(dst);
    auto fn = [to, dpitch, from, from_pitch, width, height, snap]() {
        for (size_t r = 0; r < height; ++r)
            std::memmove(to + r * dpitch, from + r * from_pitch, width);
        return cudaSuccess;
    };
    bool wait;
    if (!async) wait = !(wd == OnDevice && ws == OnDevice);
    else wait = (wd != OnDevice && ws != OnDevice) || (ws == OnDevice && wd == Pageable);
    return ret(submit(s.get(), fn, wait));
}

cudaError_t set(void *ptr, int value, size_t count, cudaStream_t stream, bool async)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    if (count == 0) return cudaSuccess;
    const Alloc *a = nullptr;
    if (!ptr || !span_ok(ptr, count, &a) || !a) return ret(cudaErrorInvalidValue);
    cudaError_t se = cudaSuccess;
    auto s = stream_of(stream, &se);
    if (!s) return ret(se);
    auto fn = [ptr, value, count]() {
        std::memset(ptr, value, count);
        return cudaSuccess;
    };
    return ret(submit(s.get(), fn, !async && a->kind != Alloc::Device));
}

cudaError_t host_alloc(void **p, size_t size, unsigned flags, const void *caller)
{
    CUDAEMU_LOCK;
    if (!p) return ret(cudaErrorInvalidValue);
    if (cudaError_t e = usable()) return ret(e);
    if (flags & ~unsigned(cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined))
        return ret(cudaErrorInvalidValue);
    *p = nullptr;
    if (size == 0) return cudaSuccess;
    void *m = aligned(size, 4096);
    if (!m) return ret(cudaErrorMemoryAllocation);
    std::memset(m, 0xff, size);
    Alloc a;
    a.kind = Alloc::HostAlloc;
    a.base = reinterpret_cast<uintptr_t>(m);
    a.size = size;
    a.device = cur_dev();
    a.caller = caller;
    st().allocs[a.base] = a;
    note_allocation();
    *p = m;
    return cudaSuccess;
}

} // namespace

const Alloc *find_alloc(const void *p)
{
    auto &m = st().allocs;
    uintptr_t x = reinterpret_cast<uintptr_t>(p);
    auto it = m.upper_bound(x);
    if (it == m.begin()) return nullptr;
    --it;
    return x < it->second.base + it->second.size ? &it->second : nullptr;
}

bool span_ok(const void *p, size_t n, const Alloc **a)
{
    *a = find_alloc(p);
    if (!*a) return true;
    uintptr_t x = reinterpret_cast<uintptr_t>(p);
    return n <= (*a)->base + (*a)->size - x;
}

void device_memory_access(bool open)
{
    if (open) {
        if (g_open_depth++ == 0)
            for (auto &kv : st().allocs) poison(kv.second, false);
    } else {
        if (--g_open_depth == 0)
            for (auto &kv : st().allocs) poison(kv.second, true);
    }
}

void free_device_memory(int d)
{
    auto &m = st().allocs;
    for (auto it = m.begin(); it != m.end();) {
        Alloc &a = it->second;
        if (a.device == d && a.kind != Alloc::HostRegistered) {
            poison(a, false);
            if (a.kind == Alloc::Device) dev(d).used -= a.size;
            std::free(reinterpret_cast<void *>(a.base));
            it = m.erase(it);
        } else if (a.device == d) {
            it = m.erase(it);
        } else {
            ++it;
        }
    }
}

} // namespace cudaemu

using namespace cudaemu;

inline namespace cudaemu_api {

cudaError_t cudaMalloc(void **devPtr, size_t size)
{
    CUDAEMU_LOCK;
    if (!devPtr) return ret(cudaErrorInvalidValue);
    if (cudaError_t e = usable()) return ret(e);
    *devPtr = nullptr;
    if (size == 0) return cudaSuccess;
    Device &d = dev(cur_dev());
    if (size > config().mem_bytes - d.used) return ret(cudaErrorMemoryAllocation);
    void *m = aligned(size, 256);
    if (!m) return ret(cudaErrorMemoryAllocation);
    std::memset(m, 0xff, size); /* fresh device memory is never zero: 0xFF bytes are NaN */
    Alloc a;
    a.kind = Alloc::Device;
    a.base = reinterpret_cast<uintptr_t>(m);
    a.size = size;
    a.device = d.id;
    a.caller = __builtin_return_address(0);
    st().allocs[a.base] = a;
    d.used += size;
    if (g_open_depth == 0) poison(a, true);
    note_allocation();
    *devPtr = m;
    return cudaSuccess;
}

cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height)
{
    if (!pitch) return ret(cudaErrorInvalidValue);
    size_t p = (width + 511) & ~size_t(511);
    cudaError_t e = cudaMalloc(devPtr, p * height);
    if (e == cudaSuccess) *pitch = p;
    return e;
}

cudaError_t cudaMallocManaged(void **devPtr, size_t, unsigned int)
{
    if (devPtr) *devPtr = nullptr;
    return ret(cudaErrorNotSupported); /* the emulated device has managedMemory = 0 */
}

cudaError_t cudaFree(void *devPtr)
{
    CUDAEMU_LOCK;
    if (config().ndev == 0) return ret(cudaErrorNoDevice);
    if (!devPtr) return cudaSuccess;
    auto it = st().allocs.find(reinterpret_cast<uintptr_t>(devPtr));
    if (it == st().allocs.end() || it->second.kind != Alloc::Device)
        return ret(cudaErrorInvalidValue);
    int d = it->second.device;
    sync_device(d); /* cudaFree synchronizes: queued work may still use the block */
    it = st().allocs.find(reinterpret_cast<uintptr_t>(devPtr));
    if (it == st().allocs.end()) return ret(cudaErrorInvalidValue);
    poison(it->second, false);
    dev(d).used -= it->second.size;
    std::free(devPtr);
    st().allocs.erase(it);
    return ret(dev(d).sticky);
}

cudaError_t cudaMallocHost(void **ptr, size_t size)
{
    return host_alloc(ptr, size, 0, __builtin_return_address(0));
}

cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
    return host_alloc(pHost, size, flags, __builtin_return_address(0));
}

cudaError_t cudaFreeHost(void *ptr)
{
    CUDAEMU_LOCK;
    if (!ptr) return cudaSuccess;
    auto it = st().allocs.find(reinterpret_cast<uintptr_t>(ptr));
    if (it == st().allocs.end() || it->second.kind != Alloc::HostAlloc)
        return ret(cudaErrorInvalidValue);
    for (int d = 0; d < config().ndev; ++d) sync_device(d); /* queued copies may use it */
    st().allocs.erase(reinterpret_cast<uintptr_t>(ptr));
    std::free(ptr);
    return cudaSuccess;
}

cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    if (!ptr || size == 0 || (flags & ~0xfu)) return ret(cudaErrorInvalidValue);
    uintptr_t b = reinterpret_cast<uintptr_t>(ptr);
    if (overlaps(b, size)) return ret(cudaErrorHostMemoryAlreadyRegistered);
    Alloc a;
    a.kind = Alloc::HostRegistered;
    a.base = b;
    a.size = size;
    a.device = cur_dev();
    a.caller = __builtin_return_address(0);
    st().allocs[b] = a;
    note_allocation();
    return cudaSuccess;
}

cudaError_t cudaHostUnregister(void *ptr)
{
    CUDAEMU_LOCK;
    auto it = st().allocs.find(reinterpret_cast<uintptr_t>(ptr));
    if (!ptr || it == st().allocs.end() || it->second.kind != Alloc::HostRegistered)
        return ret(cudaErrorHostMemoryNotRegistered);
    for (int d = 0; d < config().ndev; ++d) sync_device(d);
    st().allocs.erase(it);
    return cudaSuccess;
}

cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags)
{
    CUDAEMU_LOCK;
    if (!pDevice || flags != 0) return ret(cudaErrorInvalidValue);
    const Alloc *a = find_alloc(pHost);
    if (!a || a->kind == Alloc::Device) return ret(cudaErrorInvalidValue);
    *pDevice = pHost; /* unified addressing: the same address */
    return cudaSuccess;
}

cudaError_t cudaPointerGetAttributes(cudaPointerAttributes *attr, const void *ptr)
{
    CUDAEMU_LOCK;
    if (!attr) return ret(cudaErrorInvalidValue);
    if (config().ndev == 0) return ret(cudaErrorNoDevice);
    std::memset(attr, 0, sizeof *attr);
    const Alloc *a = find_alloc(ptr);
    if (!a) {
        attr->type = cudaMemoryTypeUnregistered;
        attr->device = -2;
        attr->hostPointer = const_cast<void *>(ptr);
        return cudaSuccess;
    }
    attr->device = a->device;
    attr->devicePointer = const_cast<void *>(ptr);
    if (a->kind == Alloc::Device) {
        attr->type = cudaMemoryTypeDevice;
    } else {
        attr->type = cudaMemoryTypeHost;
        attr->hostPointer = const_cast<void *>(ptr);
    }
    return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t *free, size_t *total)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    if (!free || !total) return ret(cudaErrorInvalidValue);
    *total = config().mem_bytes;
    *free = config().mem_bytes - dev(cur_dev()).used;
    return cudaSuccess;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, cudaMemcpyKind kind)
{
    return copy(dst, count, src, count, count, 1, kind, 0, false);
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, cudaMemcpyKind kind,
                            cudaStream_t stream)
{
    return copy(dst, count, src, count, count, 1, kind, stream, true);
}

cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                         size_t height, cudaMemcpyKind kind)
{
    return copy(dst, dpitch, src, spitch, width, height, kind, 0, false);
}

cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch,
                              size_t width, size_t height, cudaMemcpyKind kind,
                              cudaStream_t stream)
{
    return copy(dst, dpitch, src, spitch, width, height, kind, stream, true);
}

cudaError_t cudaMemset(void *devPtr, int value, size_t count)
{
    return set(devPtr, value, count, 0, false);
}

cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream)
{
    return set(devPtr, value, count, stream, true);
}

} // inline namespace cudaemu_api

namespace cudaemu {
namespace detail {

cudaError_t memcpy_symbol(void *sym, size_t symSize, const void *other, size_t count,
                          size_t offset, cudaMemcpyKind kind, bool to_symbol, bool async,
                          cudaStream_t stream)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    if (offset > symSize || count > symSize - offset) return ret(cudaErrorInvalidValue);
    if (count == 0) return cudaSuccess;
    if (!other) return ret(cudaErrorInvalidValue);
    const Alloc *a = nullptr;
    if (!span_ok(other, count, &a)) return ret(cudaErrorInvalidValue);
    bool other_dev = a && a->kind == Alloc::Device;
    bool ok = kind == cudaMemcpyDefault || kind == cudaMemcpyDeviceToDevice
                  ? (kind == cudaMemcpyDefault || other_dev)
                  : (to_symbol ? kind == cudaMemcpyHostToDevice : kind == cudaMemcpyDeviceToHost) &&
                        !other_dev;
    if (!ok) return ret(cudaErrorInvalidMemcpyDirection);
    cudaError_t se = cudaSuccess;
    auto s = stream_of(stream, &se);
    if (!s) return ret(se);
    char *sp = static_cast<char *>(sym) + offset;
    char *op = static_cast<char *>(const_cast<void *>(other));
    auto fn = [sp, op, count, to_symbol]() {
        if (to_symbol) std::memmove(sp, op, count);
        else std::memmove(op, sp, count);
        return cudaSuccess;
    };
    return ret(submit(s.get(), fn, !async));
}

} // namespace detail
} // namespace cudaemu
