/* emu/src/stream_attrs.cpp - stream attributes and the L2 persistence calls
 * (cudaStreamSetAttribute, cudaStreamGetAttribute,
 * cudaCtxResetPersistingL2Cache), as simpleAttributes and tuned kernels use
 * them.
 *
 * The attributes a stream takes (an access policy window, the
 * synchronization policy, the priority, the memory sync domain and its map)
 * are checked as CUDA documents and kept on the stream; Get returns what Set
 * stored, a zero value before any Set (the stream's own priority for
 * cudaLaunchAttributePriority).  They are hints to a GPU's caches and
 * scheduler: the emulator has neither, so no result changes.  The launch
 * attributes that are not stream attributes give cudaErrorInvalidValue.
 */
#include "internal.h"

namespace cudaemu {
namespace {

bool stream_attribute(int id)
{
    return id == cudaLaunchAttributeAccessPolicyWindow ||
           id == cudaLaunchAttributeSynchronizationPolicy || id == cudaLaunchAttributePriority ||
           id == cudaLaunchAttributeMemSyncDomainMap || id == cudaLaunchAttributeMemSyncDomain;
}

/* CUDA's rules for a window: a hit ratio in [0, 1], properties in the enum,
 * a miss never persisting, at most accessPolicyMaxWindowSize bytes. */
bool valid_window(const cudaAccessPolicyWindow &w, int device)
{
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, device) != cudaSuccess) return false;
    const auto prop_ok = [](int v) { return v >= cudaAccessPropertyNormal && v <= cudaAccessPropertyPersisting; };
    return w.hitRatio >= 0.f && w.hitRatio <= 1.f && prop_ok(w.hitProp) && prop_ok(w.missProp) &&
           w.missProp != cudaAccessPropertyPersisting &&
           w.num_bytes <= size_t(p.accessPolicyMaxWindowSize);
}

} // namespace
} // namespace cudaemu

using namespace cudaemu;

inline namespace cudaemu_api {

cudaError_t cudaStreamSetAttribute(cudaStream_t h, cudaStreamAttrID attr,
                                   const cudaStreamAttrValue *value)
{
    CUDAEMU_LOCK;
    cudaError_t e = usable();
    if (e) return ret(e);
    if (!value || !stream_attribute(attr)) return ret(cudaErrorInvalidValue);
    auto s = stream_of(h, &e);
    if (!s) return ret(e);
    if (attr == cudaLaunchAttributeAccessPolicyWindow &&
        !valid_window(value->accessPolicyWindow, s->device))
        return ret(cudaErrorInvalidValue);
    s->attrs[attr] = *value;
    return cudaSuccess;
}

cudaError_t cudaStreamGetAttribute(cudaStream_t h, cudaStreamAttrID attr,
                                   cudaStreamAttrValue *value_out)
{
    CUDAEMU_LOCK;
    cudaError_t e = usable();
    if (e) return ret(e);
    if (!value_out || !stream_attribute(attr)) return ret(cudaErrorInvalidValue);
    auto s = stream_of(h, &e);
    if (!s) return ret(e);
    auto it = s->attrs.find(attr);
    if (it != s->attrs.end()) {
        *value_out = it->second;
        return cudaSuccess;
    }
    std::memset(value_out, 0, sizeof *value_out);
    if (attr == cudaLaunchAttributePriority) value_out->priority = (unsigned)s->priority;
    return cudaSuccess;
}

/* nothing persists in a cache the emulator does not have */
cudaError_t cudaCtxResetPersistingL2Cache()
{
    CUDAEMU_LOCK;
    return ret(usable());
}

} // inline namespace cudaemu_api
