/* emu/src/managed_hints.cpp - managed memory's prefetches, advice and range
 * attributes: cudaMemPrefetchAsync, cudaMemAdvise, cudaMemRangeGetAttribute(s).
 *
 * All managed memory is host memory here, so a prefetch moves nothing and
 * advice changes no result; both check what CUDA checks (a range inside one
 * cudaMallocManaged allocation, a valid location, flags 0, the stream) and
 * are recorded page by page (kPage bytes, the pages that hold the range), so
 * cudaMemRangeGetAttribute(s) answer as CUDA documents: a value only when
 * every page of the queried range has it (read-mostly, the preferred
 * location, the last prefetch location: the last one asked for, at the
 * call), the devices advised cudaMemAdviseSetAccessedBy for the whole range.
 */
#include "internal.h"

#include <algorithm>

namespace cudaemu {

/* What advice and prefetches left on one page of a managed allocation. */
struct ManagedPage {
    bool read_mostly = false;
    cudaMemLocation preferred = {cudaMemLocationTypeInvalid, 0};
    cudaMemLocation prefetched = {cudaMemLocationTypeInvalid, 0};
    uint64_t accessed_by = 0; /* bit d: device d; bit kHostBit: the host */
};
struct ManagedHints {
    std::vector<ManagedPage> pages;
};

namespace {

constexpr size_t kPage = 4096;
constexpr int kHostBit = 63;

/* The range of a prefetch, an advice or a query: inside one managed
 * allocation; its pages in *first, *end. */
cudaError_t managed_range(const void *p, size_t count, std::vector<ManagedPage> **pages,
                          size_t *first, size_t *end)
{
    const Alloc *a = nullptr;
    if (!p || count == 0 || !span_ok(p, count, &a) || !a || a->kind != Alloc::Managed)
        return cudaErrorInvalidValue;
    Alloc &al = st().allocs.find(a->base)->second;
    if (!al.hints) {
        al.hints = std::make_shared<ManagedHints>();
        al.hints->pages.resize((al.size + kPage - 1) / kPage);
    }
    const size_t off = uintptr_t(p) - al.base;
    *pages = &al.hints->pages;
    *first = off / kPage;
    *end = (off + count + kPage - 1) / kPage;
    return cudaSuccess;
}

/* A location a managed range may go to: a visible device or the host. */
cudaError_t location_ok(const cudaMemLocation &l)
{
    switch (l.type) {
    case cudaMemLocationTypeDevice:
        return l.id >= 0 && l.id < config().ndev ? cudaSuccess : cudaErrorInvalidDevice;
    case cudaMemLocationTypeHost:
    case cudaMemLocationTypeHostNumaCurrent: return cudaSuccess;
    case cudaMemLocationTypeHostNuma: return l.id >= 0 ? cudaSuccess : cudaErrorInvalidValue;
    default: return cudaErrorInvalidValue;
    }
}

cudaMemLocation location_of(int device)
{
    cudaMemLocation l;
    l.type = device == cudaCpuDeviceId ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
    l.id = device == cudaCpuDeviceId ? 0 : device;
    return l;
}

/* A location as the int attributes name it: a device, cudaCpuDeviceId for
 * the host, cudaInvalidDeviceId for none. */
int device_of(const cudaMemLocation &l)
{
    switch (l.type) {
    case cudaMemLocationTypeDevice: return l.id;
    case cudaMemLocationTypeInvalid: return cudaInvalidDeviceId;
    default: return cudaCpuDeviceId;
    }
}

bool same(const cudaMemLocation &a, const cudaMemLocation &b)
{
    const bool has_id = a.type == cudaMemLocationTypeDevice || a.type == cudaMemLocationTypeHostNuma;
    return a.type == b.type && (!has_id || a.id == b.id);
}

/* The location every page of [first, end) has in field f, else none. */
cudaMemLocation common(const std::vector<ManagedPage> &v, size_t first, size_t end,
                       cudaMemLocation ManagedPage::*f)
{
    cudaMemLocation l = v[first].*f;
    for (size_t i = first + 1; i < end; ++i)
        if (!same(v[i].*f, l)) return cudaMemLocation{cudaMemLocationTypeInvalid, 0};
    return l;
}

cudaError_t range_attribute(void *data, size_t size, cudaMemRangeAttribute attr,
                            const std::vector<ManagedPage> &v, size_t first, size_t end)
{
    if (!data) return cudaErrorInvalidValue;
    int *out = static_cast<int *>(data);
    const bool one_int = size == sizeof(int);
    switch (attr) {
    case cudaMemRangeAttributeReadMostly: {
        if (!one_int) return cudaErrorInvalidValue;
        bool all = true;
        for (size_t i = first; i < end; ++i) all = all && v[i].read_mostly;
        *out = all;
        return cudaSuccess;
    }
    case cudaMemRangeAttributePreferredLocation:
    case cudaMemRangeAttributeLastPrefetchLocation:
    case cudaMemRangeAttributePreferredLocationType:
    case cudaMemRangeAttributePreferredLocationId:
    case cudaMemRangeAttributeLastPrefetchLocationType:
    case cudaMemRangeAttributeLastPrefetchLocationId: {
        if (!one_int) return cudaErrorInvalidValue; /* sizeof(cudaMemLocationType) too */
        const bool pref = attr == cudaMemRangeAttributePreferredLocation ||
                          attr == cudaMemRangeAttributePreferredLocationType ||
                          attr == cudaMemRangeAttributePreferredLocationId;
        const cudaMemLocation l =
            common(v, first, end, pref ? &ManagedPage::preferred : &ManagedPage::prefetched);
        if (attr == cudaMemRangeAttributePreferredLocation ||
            attr == cudaMemRangeAttributeLastPrefetchLocation)
            *out = device_of(l);
        else if (attr == cudaMemRangeAttributePreferredLocationType ||
                 attr == cudaMemRangeAttributeLastPrefetchLocationType)
            *out = int(l.type);
        else
            *out = l.id;
        return cudaSuccess;
    }
    case cudaMemRangeAttributeAccessedBy: {
        if (size == 0 || size % sizeof(int)) return cudaErrorInvalidValue;
        uint64_t all = ~uint64_t(0);
        for (size_t i = first; i < end; ++i) all &= v[i].accessed_by;
        const size_t n = size / sizeof(int);
        size_t k = 0;
        for (int d = 0; d < config().ndev && k < n; ++d)
            if (all >> d & 1) out[k++] = d;
        if (all >> kHostBit & 1 && k < n) out[k++] = cudaCpuDeviceId;
        while (k < n) out[k++] = cudaInvalidDeviceId;
        return cudaSuccess;
    }
    default: return cudaErrorInvalidValue;
    }
}

} // namespace
} // namespace cudaemu

using namespace cudaemu;

inline namespace cudaemu_api {

cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, cudaMemLocation location,
                                 unsigned int flags, cudaStream_t stream)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    std::vector<ManagedPage> *v;
    size_t first, end;
    if (cudaError_t e = managed_range(devPtr, count, &v, &first, &end)) return ret(e);
    if (cudaError_t e = location_ok(location)) return ret(e);
    if (flags != 0) return ret(cudaErrorInvalidValue);
    cudaError_t se = cudaSuccess;
    auto s = stream_of(stream, &se);
    if (!s) return ret(se);
    /* CUDA's attribute is the location asked for, whether or not it has begun */
    for (size_t i = first; i < end; ++i) (*v)[i].prefetched = location;
    return ret(submit(s.get(), [] { return cudaSuccess; }, false)); /* in stream order */
}

cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, int dstDevice,
                                 cudaStream_t stream)
{
    return cudaMemPrefetchAsync(devPtr, count, location_of(dstDevice), 0, stream);
}

cudaError_t cudaMemAdvise(const void *devPtr, size_t count, cudaMemoryAdvise advice,
                          cudaMemLocation location)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    std::vector<ManagedPage> *v;
    size_t first, end;
    if (cudaError_t e = managed_range(devPtr, count, &v, &first, &end)) return ret(e);
    if (advice < cudaMemAdviseSetReadMostly || advice > cudaMemAdviseUnsetAccessedBy)
        return ret(cudaErrorInvalidValue);
    /* read-mostly takes no location; the others name one */
    if (advice != cudaMemAdviseSetReadMostly && advice != cudaMemAdviseUnsetReadMostly)
        if (cudaError_t e = location_ok(location)) return ret(e);
    const int bit = location.type == cudaMemLocationTypeDevice ? location.id : kHostBit;
    for (size_t i = first; i < end; ++i) {
        ManagedPage &pg = (*v)[i];
        switch (advice) {
        case cudaMemAdviseSetReadMostly: pg.read_mostly = true; break;
        case cudaMemAdviseUnsetReadMostly: pg.read_mostly = false; break;
        case cudaMemAdviseSetPreferredLocation: pg.preferred = location; break;
        case cudaMemAdviseUnsetPreferredLocation: pg.preferred = {cudaMemLocationTypeInvalid, 0}; break;
        case cudaMemAdviseSetAccessedBy: pg.accessed_by |= uint64_t(1) << bit; break;
        case cudaMemAdviseUnsetAccessedBy: pg.accessed_by &= ~(uint64_t(1) << bit); break;
        }
    }
    return cudaSuccess;
}

cudaError_t cudaMemAdvise(const void *devPtr, size_t count, cudaMemoryAdvise advice, int device)
{
    return cudaMemAdvise(devPtr, count, advice, location_of(device));
}

cudaError_t cudaMemRangeGetAttribute(void *data, size_t dataSize, cudaMemRangeAttribute attribute,
                                     const void *devPtr, size_t count)
{
    return cudaMemRangeGetAttributes(&data, &dataSize, &attribute, 1, devPtr, count);
}

cudaError_t cudaMemRangeGetAttributes(void **data, size_t *dataSizes,
                                      cudaMemRangeAttribute *attributes, size_t numAttributes,
                                      const void *devPtr, size_t count)
{
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    if (!data || !dataSizes || !attributes || numAttributes == 0) return ret(cudaErrorInvalidValue);
    std::vector<ManagedPage> *v;
    size_t first, end;
    if (cudaError_t e = managed_range(devPtr, count, &v, &first, &end)) return ret(e);
    for (size_t i = 0; i < numAttributes; ++i)
        if (cudaError_t e = range_attribute(data[i], dataSizes[i], attributes[i], *v, first, end))
            return ret(e);
    return cudaSuccess;
}

} // inline namespace cudaemu_api
