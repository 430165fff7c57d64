// emu/src/libcall.cpp - how the emulated libraries (cuBLAS, cuDNN) queue a
// call: on the handle's stream, computed when the stream drains, or a fault
// naming an operand that is not device memory (see internal.h).
#include "internal.h"

#include <cstdio>
#include <string>

namespace cudaemu {

namespace {
/* Device (or pinned, mapped) memory that holds [p, p + bytes)? */
bool on_device(const void *p, size_t bytes)
{
    if (bytes == 0) return true;
    const Alloc *a = nullptr;
    return p && span_ok(p, bytes, &a) && a;
}
} // namespace

bool queue_library_call(int device, cudaStream_t stream, const char *fname,
                        std::initializer_list<LibOperand> ops, std::function<void()> fn,
                        bool blocking)
{
    cudaError_t se = cudaSuccess;
    auto s = stream ? stream_of(stream, &se) : dev(device).legacy;
    if (!s) return false;
    /* a result for the host needs a synchronization, which stream capture forbids */
    if (blocking && capture_check_stream_sync(s.get())) return false;
    std::string bad;
    for (const LibOperand &o : ops)
        if (!on_device(o.p, o.bytes)) {
            char buf[256];
            std::snprintf(buf, sizeof buf, "%s: operand %s = %p (%zu bytes) is not device memory",
                          fname, o.name, o.p, o.bytes);
            bad = buf;
            break;
        }
    cudaError_t e;
    if (!bad.empty()) {
        e = enqueue_work(s.get(), [bad]() {
            report("%s (on a GPU: an illegal memory access)", bad.c_str());
            return cudaErrorIllegalAddress;
        });
    } else {
        /* initcheck: the library's own stores are not seen one by one;
         * every operand counts as written (inputs too: a missed report,
         * never a false one) */
        std::vector<LibOperand> written(ops);
        e = enqueue_work(s.get(), [fn, written]() {
            fn();
            for (const LibOperand &o : written) sanitize_written(o.p, o.bytes);
            return cudaSuccess;
        });
    }
    if (e) return false; /* an operation stream capture forbids */
    if (blocking) drain_all(s.get());
    return true;
}

} // namespace cudaemu
