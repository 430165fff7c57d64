/* emu/src/kernel_info.cpp - what the launch knows of a kernel before it runs.
 *
 * The translator makes every kernel definition register, at program start,
 * its __launch_bounds__ and each static __shared__ variable of its body
 * (device_functions.h's KernelBounds and SharedVar).  launch.cpp checks the
 * block size against the bound (cudaErrorLaunchOutOfResources, as a GPU) and
 * static + dynamic shared memory against the kernel's limit
 * (cudaErrorInvalidValue); the scheduler fills the variables with poison
 * before every block; cudaFuncGetAttributes reports both.  Registration may
 * run before main (static initialisation) and from several translation
 * units, so the table has a lock of its own, not the API lock.
 */
#include "internal.h"

#include <algorithm>

namespace cudaemu {
namespace {

std::mutex &table_mu()
{
    static std::mutex mu;
    return mu;
}

std::map<const void *, KernelStatic> &table()
{
    static std::map<const void *, KernelStatic> t; /* never destroyed before its users */
    return t;
}

} // namespace

const KernelStatic *kernel_static(const void *f)
{
    std::lock_guard<std::mutex> g(table_mu());
    auto it = table().find(f);
    return it == table().end() ? nullptr : &it->second; /* map nodes never move */
}

size_t static_smem_bytes(const void *f)
{
    const KernelStatic *ks = kernel_static(f);
    return ks ? ks->static_smem : 0;
}

namespace detail {

void register_kernel_bounds(const void *kernel, long long max_threads, long long min_blocks,
                            long long max_cluster)
{
    std::lock_guard<std::mutex> g(table_mu());
    KernelStatic &k = table()[kernel];
    k.max_threads = max_threads;
    k.min_blocks = min_blocks;
    k.max_cluster = max_cluster;
}

void register_shared_var(const void *kernel, void *var, size_t bytes)
{
    std::lock_guard<std::mutex> g(table_mu());
    KernelStatic &k = table()[kernel];
    for (const auto &v : k.shared)
        if (v.first == var) return; /* two translation units of one header: one variable */
    k.shared.emplace_back(var, bytes);
    k.static_smem += bytes;
}

} // namespace detail
} // namespace cudaemu
