/* emu/src/memory.cpp - emulated device, managed and pinned host memory.
 *
 * Device memory is host heap memory (256-byte aligned), filled with 0xFF bytes
 * (NaN as float) when allocated, recorded in an allocation table with its
 * device.  Under ASan blocks have their exact size, so ASan catches a kernel
 * writing one element past one, and device (not managed) blocks stay
 * poisoned except while streams execute work, so host code dereferencing a
 * device pointer is reported.  Without ASan every device and managed block
 * sits between guard zones of canary bytes (512 before; after it, up to the
 * page boundary, at least to the next multiple of 256 and 256 more), in its
 * own mapping between PROT_NONE pages (guard_pages.cpp); the scheduler checks
 * the zones after every block of a kernel (damaged_guard): an out-of-bounds
 * write then fails the launch with a message instead of corrupting the heap.  Managed memory is
 * the same host memory, readable and writable by the host too.
 * Copies and memsets are checked against the table (direction, bounds) and
 * queued on a stream with CUDA's synchronization rules:
 *   cudaMemcpy: waits for the copy unless device-to-device (or, with
 *     CUDAEMU_PAGEABLE_LATE=1, pageable host-to-device: staged at the call,
 *     landed later as work on the stream);
 *   cudaMemcpyAsync: queued; device-to-pageable-host and host-to-host copies
 *     wait (as CUDA documents), pageable host sources are snapshotted;
 *   cudaMemset: queued on the legacy default stream (waits only for pinned
 *     host targets); cudaMemsetAsync: queued.
 * Unfreed blocks are listed at exit (CUDAEMU_LEAKS=0 silences that).
 */
#include "internal.h"

#include <sys/mman.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#ifdef CUDAEMU_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace cudaemu {
namespace {

int g_open_depth = 0;

bool guarded(const Alloc &a)
{
    return kFrontGuard && (a.kind == Alloc::Device || a.kind == Alloc::Managed);
}

void write_guards(const Alloc &a)
{
    if (!guarded(a)) return;
    for (size_t i = 0; i < kFrontGuard; ++i) a.raw[i] = char(canary(i));
    char *b = reinterpret_cast<char *>(a.base + a.size);
    for (size_t i = 0; i < a.back; ++i) b[i] = char(canary(i));
}

/* First damaged byte of a's guards: offset from base (negative: before it). */
bool guard_damage(const Alloc &a, bool full, long long *first, size_t *count)
{
    if (!guarded(a)) return false;
    if (canary_intact(a.raw, kFrontGuard) &&
        canary_intact(reinterpret_cast<const void *>(a.base + a.size), full ? a.back : a.back_near))
        return false; /* the common case, with two memcmp */
    long long f = 0;
    size_t n = 0;
    for (size_t i = 0; i < kFrontGuard; ++i)
        if ((unsigned char)a.raw[i] != canary(i)) {
            if (!n++) f = (long long)i - (long long)kFrontGuard;
        }
    const unsigned char *b = reinterpret_cast<const unsigned char *>(a.base + a.size);
    for (size_t i = 0; i < a.back; ++i)
        if (b[i] != canary(i)) {
            if (!n++) f = (long long)(a.size + i);
        }
    *first = f;
    *count = n;
    return n != 0;
}

} // namespace

const unsigned char *canary_bytes()
{
    static const unsigned char *bytes = [] {
        static unsigned char b[kCanaryBytes];
        for (size_t i = 0; i < kCanaryBytes; ++i) b[i] = canary(i);
        return b;
    }();
    return bytes;
}

namespace {

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
        if (a.kind == Alloc::Symbol) continue; /* a __device__ variable */
        const char *what = alloc_what(a);
        std::string where = code_location(a.caller);
        if (!where.empty()) where = ", allocated at " + where;
        std::fprintf(stderr, "cudaemu: leak: %zu bytes of %s at %p on device %d%s\n", a.size,
                     what, reinterpret_cast<void *>(a.base), a.device, where.c_str());
        ++n;
        bytes += a.size;
    }
    if (n)
        std::fprintf(stderr, "cudaemu: %zu block(s), %zu bytes never freed "
                     "(CUDAEMU_LEAKS=0 silences this report)\n", n, bytes);
}

} // namespace

const char *alloc_what(const Alloc &a)
{
    return a.array ? "a CUDA array (cudaMallocArray)"
           : a.kind == Alloc::Device && a.pool ? "device memory (cudaMallocAsync)"
           : a.kind == Alloc::Device ? "device memory (cudaMalloc)"
           : a.kind == Alloc::Managed ? "managed memory (cudaMallocManaged)"
           : a.kind == Alloc::HostAlloc ? "pinned host memory (cudaMallocHost)"
                                        : "registered host memory (cudaHostRegister)";
}

namespace {

void note_allocation()
{
    static bool registered = false;
    if (!registered) {
        registered = true;
        std::atexit(leak_report);
    }
}

/* Large blocks are 2 MiB aligned and asked for transparent huge pages: a
 * kernel's threads run one after another here, so a grid-stride loop walks
 * the whole buffer once per thread, and with 4 KiB pages every access of it
 * missed the TLB (alignedTypes ran 20 times slower than with huge pages). */
void *aligned(size_t size, size_t align)
{
    constexpr size_t kHuge = size_t(2) << 20;
    if (size >= 2 * kHuge && align < kHuge) align = kHuge;
    void *p = nullptr;
    if (posix_memalign(&p, align, size ? size : 1) != 0) return nullptr;
    if (align == kHuge) madvise(p, size & ~(kHuge - 1), MADV_HUGEPAGE); /* a hint only */
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

enum Where { Pageable, Pinned, OnDevice, Managed };

Where where(const Alloc *a)
{
    return !a ? Pageable : a->kind == Alloc::Device || a->kind == Alloc::Symbol ? OnDevice
                         : a->kind == Alloc::Managed ? Managed : Pinned;
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
    /* managed memory passes for host and for device memory */
    const bool dd = *wd == OnDevice || *wd == Managed, sd = *ws == OnDevice || *ws == Managed;
    const bool dh = *wd != OnDevice, sh = *ws != OnDevice;
    bool ok = true;
    switch (kind) {
    case cudaMemcpyHostToHost: ok = dh && sh; break;
    case cudaMemcpyHostToDevice: ok = dd && sh; break;
    case cudaMemcpyDeviceToHost: ok = dh && sd; break;
    case cudaMemcpyDeviceToDevice: ok = dd && sd; break;
    default: break;
    }
    /* from here on, managed memory is ordered like device memory */
    if (*wd == Managed) *wd = OnDevice;
    if (*ws == Managed) *ws = OnDevice;
    return ok ? cudaSuccess : cudaErrorInvalidValue;
}

/* The bytes of a copy (`call`) move, as initcheck sees them (sanitize.cpp). */
void move_bytes(char *to, const char *from, size_t n, const char *call)
{
    sanitize_copy_read(from, n, call);
    std::memmove(to, from, n);
    sanitize_written(to, n);
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
    /* CUDAEMU_PAGEABLE_LATE: a blocking copy from pageable memory to the
     * device returns once its source is staged, as CUDA allows; the bytes
     * land as work on the stream it was issued to (the legacy stream), so a
     * non-blocking stream is not ordered after it */
    const bool late = !async && config().pageable_late && ws == Pageable && wd == OnDevice &&
                      !capturing(s.get());
    if ((async || late) && ws == Pageable && wd != Pageable && !capturing(s.get())) {
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
            move_bytes(to + r * dpitch, from + r * from_pitch, width, "cudaMemcpy");
        return cudaSuccess;
    };
    bool wait;
    if (late) {
        drain_all(s.get()); /* CUDA synchronizes the stream before it stages the copy */
        wait = false;
    } else if (!async) {
        wait = !(wd == OnDevice && ws == OnDevice);
    } else {
        wait = (wd != OnDevice && ws != OnDevice) || (ws == OnDevice && wd == Pageable);
    }
    return ret(submit(s.get(), fn, wait));
}

/* Shared body of the 1D and 2D memsets: `height` rows of `width` bytes, `pitch` apart. */
cudaError_t set(void *ptr, size_t pitch, int value, size_t width, size_t height,
                cudaStream_t stream, bool async)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    if (width == 0 || height == 0) return cudaSuccess;
    if (height > 1 && width > pitch) return ret(cudaErrorInvalidValue);
    const size_t count = (height - 1) * pitch + width;
    const Alloc *a = nullptr;
    if (!ptr || !span_ok(ptr, count, &a) || !a) return ret(cudaErrorInvalidValue);
    cudaError_t se = cudaSuccess;
    auto s = stream_of(stream, &se);
    if (!s) return ret(se);
    char *p = static_cast<char *>(ptr);
    auto fn = [p, pitch, value, width, height]() {
        for (size_t r = 0; r < height; ++r) {
            std::memset(p + r * pitch, value, width);
            sanitize_written(p + r * pitch, width);
        }
        return cudaSuccess;
    };
    const bool dev_like = a->kind != Alloc::HostAlloc && a->kind != Alloc::HostRegistered;
    return ret(submit(s.get(), fn, !async && !dev_like));
}

/* cudaMalloc and cudaMallocManaged. */
cudaError_t device_alloc(void **devPtr, size_t size, Alloc::Kind kind, const void *caller)
{
    CUDAEMU_LOCK;
    if (!devPtr) return ret(cudaErrorInvalidValue);
    if (cudaError_t e = usable()) return ret(e);
    if (cudaError_t e = capture_check_unsafe_call()) return ret(e);
    *devPtr = nullptr;
    if (size == 0) return cudaSuccess;
    Device &d = dev(cur_dev());
    if (size > config().mem_bytes - d.used) return ret(cudaErrorMemoryAllocation);
    if (cudaError_t e = new_device_block(size, kind, d.id, caller, nullptr, devPtr)) return ret(e);
    d.used += size;
    return cudaSuccess;
}

cudaError_t host_alloc(void **p, size_t size, unsigned flags, const void *caller)
{
    CUDAEMU_LOCK;
    if (!p) return ret(cudaErrorInvalidValue);
    if (cudaError_t e = usable()) return ret(e);
    if (cudaError_t e = capture_check_unsafe_call()) return ret(e);
    if (flags & ~unsigned(cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined))
        return ret(cudaErrorInvalidValue);
    *p = nullptr;
    if (size == 0) return cudaSuccess;
    void *m = aligned(size, 4096);
    if (!m) return ret(cudaErrorMemoryAllocation);
    std::memset(m, fresh_byte(), size);
    Alloc a;
    a.kind = Alloc::HostAlloc;
    a.host_flags = flags;
    a.raw = static_cast<char *>(m);
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

cudaError_t new_device_block(size_t size, Alloc::Kind kind, int d, const void *caller,
                             CUmemPoolHandle_st *pool, void **out)
{
    Alloc a;
    a.kind = kind;
    if (!kFrontGuard || !map_guarded(a, size)) { /* ASan's exact size, or the heap */
        const size_t back = kFrontGuard ? ((size + 255) & ~size_t(255)) - size + 256 : 0;
        if (size > SIZE_MAX - kFrontGuard - back - 256) return cudaErrorMemoryAllocation;
        char *raw = static_cast<char *>(aligned(kFrontGuard + size + back, 256));
        if (!raw) return cudaErrorMemoryAllocation;
        a.base = reinterpret_cast<uintptr_t>(raw + kFrontGuard);
        a.size = size;
        a.raw = raw;
        a.back = a.back_near = back;
    }
    char *m = reinterpret_cast<char *>(a.base);
    std::memset(m, fresh_byte(), size); /* 0xFF bytes (NaN) or zero: sanitize.cpp */
    a.device = d;
    a.caller = caller;
    a.pool = pool;
    a.written = new_written_map(a);
    write_guards(a);
    st().allocs[a.base] = a;
    if (g_open_depth == 0) poison(a, true);
    note_allocation();
    *out = m;
    return cudaSuccess;
}

void poison_range(const void *p, size_t n, bool on)
{
#ifdef CUDAEMU_ASAN
    if (on) ASAN_POISON_MEMORY_REGION(p, n);
    else ASAN_UNPOISON_MEMORY_REGION(p, n);
#else
    (void)p, (void)n, (void)on;
#endif
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

std::string damaged_guard(int d, bool full)
{
    for (const auto &kv : st().allocs) {
        const Alloc &a = kv.second;
        long long first = 0;
        size_t n = 0;
        if (a.device != d || !guard_damage(a, full, &first, &n)) continue;
        char buf[512];
        const char *what = a.kind == Alloc::Managed ? "cudaMallocManaged" : "cudaMalloc";
        std::string at = code_location(a.caller);
        if (first < 0)
            std::snprintf(buf, sizeof buf, "%zu byte(s) changed in the guard zone before the "
                          "%zu-byte %s block at %p, the first %lld byte(s) before its start",
                          n, a.size, what, reinterpret_cast<void *>(a.base), -first);
        else
            std::snprintf(buf, sizeof buf, "%zu byte(s) changed in the guard zone after the "
                          "%zu-byte %s block at %p, the first at byte %lld (%lld past its end)",
                          n, a.size, what, reinterpret_cast<void *>(a.base), first,
                          first - (long long)a.size);
        std::string r = buf;
        if (!at.empty()) r += " (allocated at " + at + ")";
        return r;
    }
    return std::string();
}

void repair_guards(int d)
{
    for (const auto &kv : st().allocs)
        if (kv.second.device == d) write_guards(kv.second);
}

size_t guarded_blocks(int d)
{
    size_t n = 0;
    for (const auto &kv : st().allocs) n += kv.second.device == d && guarded(kv.second);
    return n;
}

void free_device_memory(int d)
{
    auto &m = st().allocs;
    for (auto it = m.begin(); it != m.end();) {
        Alloc &a = it->second;
        if (a.device == d && a.kind != Alloc::HostRegistered && a.kind != Alloc::Symbol) {
            poison(a, false);
            if (a.kind == Alloc::Device || a.kind == Alloc::Managed) account_release(a);
            release_block(a);
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
    return device_alloc(devPtr, size, Alloc::Device, __builtin_return_address(0));
}

cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height)
{
    if (!pitch) return ret(cudaErrorInvalidValue);
    size_t p = (width + 511) & ~size_t(511);
    if (height && p > SIZE_MAX / height) return ret(cudaErrorMemoryAllocation);
    cudaError_t e = device_alloc(devPtr, p * height, Alloc::Device, __builtin_return_address(0));
    if (e == cudaSuccess) *pitch = p;
    return e;
}

/* Host memory like the rest: kernels and host code both read and write it
 * (the host after synchronizing, as CUDA requires without concurrent
 * managed access); guarded like device memory, never poisoned. */
cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
    if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost) {
        if (devPtr) *devPtr = nullptr;
        return ret(cudaErrorInvalidValue);
    }
    return device_alloc(devPtr, size, Alloc::Managed, __builtin_return_address(0));
}

cudaError_t cudaFree(void *devPtr)
{
    CUDAEMU_LOCK;
    if (config().ndev == 0) return ret(cudaErrorNoDevice);
    if (!devPtr) return cudaSuccess;
    auto it = st().allocs.find(reinterpret_cast<uintptr_t>(devPtr));
    if (it == st().allocs.end() ||
        (it->second.kind != Alloc::Device && it->second.kind != Alloc::Managed))
        return ret(cudaErrorInvalidValue);
    if (cudaError_t e = capture_check_unsafe_call()) return ret(e);
    int d = it->second.device;
    sync_device(d); /* cudaFree synchronizes: queued work may still use the block */
    it = st().allocs.find(reinterpret_cast<uintptr_t>(devPtr));
    if (it == st().allocs.end()) return ret(cudaErrorInvalidValue);
    if (it->second.graph_owned) return ret(dev(d).sticky); /* it lives with its graph */
    long long first = 0;
    size_t n = 0;
    if (dev(d).sticky == cudaSuccess && guard_damage(it->second, true, &first, &n))
        report("cudaFree(%p): %zu byte(s) of its guard zones were overwritten outside any "
               "kernel (host code writing past a managed or device block?)", devPtr, n);
    objects_lose_memory(it->second.base, it->second.size, "its memory was freed (cudaFree)");
    poison(it->second, false);
    account_release(it->second);
    release_block(it->second);
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
    if (cudaError_t e = capture_check_unsafe_call()) return ret(e);
    const size_t size = it->second.size;
    for (int d = 0; d < config().ndev; ++d) sync_device(d); /* queued copies may use it */
    objects_lose_memory(reinterpret_cast<uintptr_t>(ptr), size, "its memory was freed (cudaFreeHost)");
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
    if (a->kind == Alloc::Device || a->kind == Alloc::Symbol) {
        attr->type = cudaMemoryTypeDevice;
    } else if (a->kind == Alloc::Managed) {
        attr->type = cudaMemoryTypeManaged;
        attr->hostPointer = const_cast<void *>(ptr);
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
    return set(devPtr, count, value, count, 1, 0, false);
}

cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream)
{
    return set(devPtr, count, value, count, 1, stream, true);
}

cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height)
{
    return set(devPtr, pitch, value, width, height, 0, false);
}

cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width,
                              size_t height, cudaStream_t stream)
{
    return set(devPtr, pitch, value, width, height, stream, true);
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
    bool other_dev = a && (a->kind == Alloc::Device || a->kind == Alloc::Symbol);
    bool other_managed = a && a->kind == Alloc::Managed; /* passes for either */
    bool ok = kind == cudaMemcpyDefault || kind == cudaMemcpyDeviceToDevice
                  ? (kind == cudaMemcpyDefault || other_dev || other_managed)
                  : (to_symbol ? kind == cudaMemcpyHostToDevice : kind == cudaMemcpyDeviceToHost) &&
                        !other_dev;
    if (!ok) return ret(cudaErrorInvalidMemcpyDirection);
    cudaError_t se = cudaSuccess;
    auto s = stream_of(stream, &se);
    if (!s) return ret(se);
    char *sp = static_cast<char *>(sym) + offset;
    char *op = static_cast<char *>(const_cast<void *>(other));
    std::shared_ptr<std::vector<char>> snap;
    bool wait = !async;
    if (async && !a && !capturing(s.get())) {
        if (to_symbol) { /* CUDA stages a pageable source: the caller may reuse it */
            snap = std::make_shared<std::vector<char>>(op, op + count);
            op = snap->data();
        } else {
            wait = true; /* to pageable host memory: synchronous, as CUDA documents */
        }
    }
    auto fn = [sp, op, count, to_symbol, snap]() {
        if (to_symbol) std::memmove(sp, op, count);
        else std::memmove(op, sp, count);
        return cudaSuccess;
    };
    return ret(submit(s.get(), fn, wait));
}

cudaError_t register_symbol(void *sym, size_t size)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    if (!sym || !size) return ret(cudaErrorInvalidSymbol);
    const Alloc *a = find_alloc(sym);
    if (a && a->kind == Alloc::Symbol && a->base == reinterpret_cast<uintptr_t>(sym))
        return cudaSuccess;
    if (a || overlaps(reinterpret_cast<uintptr_t>(sym), size))
        return ret(cudaErrorInvalidSymbol);
    Alloc s;
    s.kind = Alloc::Symbol;
    s.base = reinterpret_cast<uintptr_t>(sym);
    s.size = size;
    s.device = cur_dev();
    st().allocs[s.base] = s;
    return cudaSuccess;
}

} // namespace detail
} // namespace cudaemu

/* ---- peer copies and stream attachment (issue 16) ------------------------ */

namespace {

/* [p, p+n) lies in device (or managed) memory of device d? */
bool on_device_of(const void *p, size_t n, int d)
{
    const Alloc *a = nullptr;
    if (!p || !span_ok(p, n, &a) || !a) return false;
    return a->device == d &&
           (a->kind == Alloc::Device || a->kind == Alloc::Managed || a->kind == Alloc::Symbol);
}

cudaError_t check_peer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count)
{
    if (config().ndev == 0) return cudaErrorNoDevice;
    if (dstDevice < 0 || dstDevice >= config().ndev || srcDevice < 0 ||
        srcDevice >= config().ndev)
        return cudaErrorInvalidDevice;
    if (!on_device_of(dst, count, dstDevice) || !on_device_of(src, count, srcDevice))
        return cudaErrorInvalidValue;
    return cudaSuccess;
}

} // namespace

inline namespace cudaemu_api {

/* Serialized with all work of the current, source and destination devices
 * (as CUDA documents): the emulator runs it at once, after draining them. */
cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice,
                           size_t count)
{
    CUDAEMU_LOCK;
    if (count == 0) return cudaSuccess;
    if (cudaError_t e = check_peer(dst, dstDevice, src, srcDevice, count)) return ret(e);
    for (int d : {cur_dev(), srcDevice, dstDevice}) {
        if (dev(d).sticky) return ret(dev(d).sticky);
        sync_device(d);
    }
    if (cudaError_t e = usable()) return ret(e);
    char *to = static_cast<char *>(dst);
    const char *from = static_cast<const char *>(src);
    return ret(submit(dev(cur_dev()).legacy.get(), [to, from, count]() {
        move_bytes(to, from, count, "cudaMemcpyPeer");
        return cudaSuccess;
    }, true));
}

cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice,
                                size_t count, cudaStream_t stream)
{
    CUDAEMU_LOCK;
    if (count == 0) return cudaSuccess;
    if (cudaError_t e = check_peer(dst, dstDevice, src, srcDevice, count)) return ret(e);
    if (cudaError_t e = usable()) return ret(e);
    cudaError_t se = cudaSuccess;
    auto s = stream_of(stream, &se);
    if (!s) return ret(se);
    char *to = static_cast<char *>(dst);
    const char *from = static_cast<const char *>(src);
    return ret(submit(s.get(), [to, from, count]() {
        move_bytes(to, from, count, "cudaMemcpyPeerAsync");
        return cudaSuccess;
    }, false));
}

/* Managed memory is host memory that every stream and the host may touch:
 * the attachment is validated and ordered on the stream (a no-op there). */
cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr, size_t length,
                                     unsigned int flags)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost &&
        flags != cudaMemAttachSingle)
        return ret(cudaErrorInvalidValue);
    const Alloc *a = find_alloc(devPtr);
    if (!a || a->kind != Alloc::Managed) return ret(cudaErrorInvalidValue);
    /* a managed block is attached whole: length 0 or its size, from its start */
    if (reinterpret_cast<uintptr_t>(devPtr) != a->base || (length != 0 && length != a->size))
        return ret(cudaErrorInvalidValue);
    cudaError_t se = cudaSuccess;
    auto s = stream_of(stream, &se);
    if (!s) return ret(se);
    return ret(submit(s.get(), []() { return cudaSuccess; }, false));
}

} // inline namespace cudaemu_api
