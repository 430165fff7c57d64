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
 * set_hint and get_hint serve graph kernel nodes too (graph.cpp).
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
bool valid_access_window(const cudaAccessPolicyWindow &w, int device)
{
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, device) != cudaSuccess) return false;
    const auto prop_ok = [](int v) { return v >= cudaAccessPropertyNormal && v <= cudaAccessPropertyPersisting; };
    return w.hitRatio >= 0.f && w.hitRatio <= 1.f && prop_ok(w.hitProp) && prop_ok(w.missProp) &&
           w.missProp != cudaAccessPropertyPersisting &&
           w.num_bytes <= size_t(p.accessPolicyMaxWindowSize);
}

} // namespace

cudaError_t set_hint(std::map<int, cudaLaunchAttributeValue> &attrs, int attr,
                     const cudaLaunchAttributeValue &value, int device)
{
    if (attr == cudaLaunchAttributeAccessPolicyWindow &&
        !valid_access_window(value.accessPolicyWindow, device))
        return cudaErrorInvalidValue;
    attrs[attr] = value;
    return cudaSuccess;
}

bool get_hint(const std::map<int, cudaLaunchAttributeValue> &attrs, int attr,
              cudaLaunchAttributeValue *out)
{
    auto it = attrs.find(attr);
    if (it != attrs.end()) {
        *out = it->second;
        return true;
    }
    std::memset(out, 0, sizeof *out);
    return false;
}

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
    return ret(set_hint(s->attrs, attr, *value, s->device));
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
    if (!get_hint(s->attrs, attr, value_out) && attr == cudaLaunchAttributePriority)
        value_out->priority = (unsigned)s->priority;
    return cudaSuccess;
}

/* nothing persists in a cache the emulator does not have */
cudaError_t cudaCtxResetPersistingL2Cache()
{
    CUDAEMU_LOCK;
    return ret(usable());
}

} // inline namespace cudaemu_api
