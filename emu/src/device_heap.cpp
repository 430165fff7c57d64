/* emu/src/device_heap.cpp - malloc and free called in kernels (the
 * translator turns every call of them in a translated unit into
 * device_malloc / device_free).
 *
 * In a kernel, an allocation counts against its device's heap,
 * cudaLimitMallocHeapSize bytes (8 MiB by default, as CUDA's; set with
 * cudaDeviceSetLimit before the first kernel that allocates, as CUDA
 * requires): past it malloc returns NULL, as on a GPU.  Blocks are host
 * heap blocks, 16-byte aligned (as CUDA guarantees), filled with 0xFF bytes
 * (never zero), and live until freed, by any later kernel of any device
 * or by host code.  Sizes are counted exactly, rounded up to 16 bytes: a
 * GPU's heap also loses some of its bytes to its own bookkeeping, so a
 * program that fills it to the last byte may get NULL earlier there.
 * Outside a kernel both are the host's malloc and free.
 */
#include "internal.h"

#include <algorithm>
#include <cstdlib>

namespace cudaemu {
namespace {

struct Heap {
    size_t used = 0;
    bool started = false; /* a kernel allocated: the limit is fixed */
};

/* never destroyed (as st()): a kernel's blocks stay reachable at exit, as
 * on a GPU until the context goes (LeakSanitizer does not list them) */
std::map<int, Heap> &g_heaps = *new std::map<int, Heap>;
std::map<void *, std::pair<int, size_t>> &g_blocks = *new std::map<void *, std::pair<int, size_t>>;

} // namespace

bool device_heap_started(int d)
{
    auto it = g_heaps.find(d);
    return it != g_heaps.end() && it->second.started;
}

void forget_device_heap(int d)
{
    for (auto it = g_blocks.begin(); it != g_blocks.end();) {
        if (it->second.first == d) {
            std::free(it->first);
            it = g_blocks.erase(it);
        } else {
            ++it;
        }
    }
    g_heaps.erase(d);
}

namespace detail {

void *device_malloc(size_t size)
{
    if (!in_kernel_code()) return std::malloc(size);
    /* the kernel runs under the API lock (its stream is being drained) */
    const int d = t_kernel_device;
    Heap &h = g_heaps[d];
    h.started = true;
    const size_t n = (size + 15) & ~size_t(15);
    if (size == 0 || n < size || n > device_limit(d, cudaLimitMallocHeapSize) - std::min(h.used, device_limit(d, cudaLimitMallocHeapSize)))
        return nullptr;
    void *p = std::aligned_alloc(16, n);
    if (!p) return nullptr;
    std::memset(p, 0xff, n); /* fresh memory is never zero */
    h.used += n;
    g_blocks[p] = {d, n};
    return p;
}

void device_free(void *p)
{
    auto it = g_blocks.find(p);
    if (it != g_blocks.end()) {
        g_heaps[it->second.first].used -= it->second.second;
        g_blocks.erase(it);
    }
    std::free(p);
}

} // namespace detail
} // namespace cudaemu
