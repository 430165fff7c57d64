/* emu/src/ptx.cpp - the special registers of inline PTX that need the
 * emulated device's shape (include/cudaemu/ptx.h has the others). */
#include "internal.h"

#include <chrono>

namespace cudaemu {
namespace ptx {

unsigned smid()
{
    const uint3 b = blockIdx;
    const dim3 g = gridDim;
    return unsigned((b.x + uint64_t(g.x) * (b.y + uint64_t(g.y) * b.z)) % kSmCount);
}
unsigned nsmid() { return kSmCount; }
unsigned nwarpid() { return 2048 / 32; } /* device.cpp's maxThreadsPerMultiProcessor */
unsigned long long globaltimer()
{
    using namespace std::chrono;
    return (unsigned long long)duration_cast<nanoseconds>(system_clock::now().time_since_epoch())
        .count();
}

} // namespace ptx
} // namespace cudaemu
