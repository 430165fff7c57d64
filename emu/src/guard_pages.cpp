/* emu/src/guard_pages.cpp - where device and managed blocks live (builds
 * without ASan): each in its own mapping, between inaccessible pages, so that
 * no out-of-bounds write of a kernel reaches the emulator's own state.
 *
 *   [PROT_NONE page][front canary, kFrontGuard][block][back canary][PROT_NONE page]
 *
 * The front canary is kFrontGuard bytes, the back one runs from the block's
 * end to the page boundary (at least up to the next multiple of 256 and 256
 * more).  memory.cpp checks the canaries (the scheduler after every block of
 * a kernel, the whole back zone after every kernel); a write beyond them hits
 * a PROT_NONE page, which the fault handler (fiber.cpp) turns into a failed
 * launch naming the block it missed (guard_page_fault).  Blocks of 4 MiB and
 * more start their pages on a 2 MiB boundary and ask for transparent huge
 * pages (a kernel's threads walk a buffer once each: TLB misses dominate with
 * 4 KiB pages).  When mmap fails the block comes from the heap, as before.
 */
#include "internal.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace cudaemu {
namespace {

size_t page_size()
{
    static const size_t p = size_t(sysconf(_SC_PAGESIZE) > 0 ? sysconf(_SC_PAGESIZE) : 4096);
    return p;
}

size_t round_up(size_t x, size_t a) { return (x + a - 1) / a * a; }

} // namespace

bool map_guarded(Alloc &a, size_t size)
{
    const size_t P = page_size(), huge = size_t(2) << 20;
    const size_t back_min = round_up(size, 256) - size + 256;
    if (size > SIZE_MAX / 2 - kFrontGuard - back_min - 2 * huge) return false;
    const size_t rw = round_up(kFrontGuard + size + back_min, P);
    const size_t align = size >= 2 * huge ? huge : P;
    const size_t len = P + rw + P + (align - P);
    void *m = mmap(nullptr, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED) return false;
    char *lo = static_cast<char *>(m);
    char *raw = reinterpret_cast<char *>(round_up(reinterpret_cast<uintptr_t>(lo + P), align));
    if (mprotect(raw, rw, PROT_READ | PROT_WRITE) != 0) {
        munmap(m, len);
        return false;
    }
    /* keep one inaccessible page on each side, give the rest of the slack back */
    if (raw - P > lo) munmap(lo, size_t(raw - P - lo));
    char *end = raw + rw + P;
    if (end < lo + len) munmap(end, size_t(lo + len - end));
    if (align == huge) madvise(raw, rw, MADV_HUGEPAGE); /* a hint only */
    a.raw = raw;
    a.base = reinterpret_cast<uintptr_t>(raw + kFrontGuard);
    a.size = size;
    a.back = rw - kFrontGuard - size;
    a.back_near = back_min;
    a.map = raw - P;
    a.map_size = rw + 2 * P;
    return true;
}

void release_block(const Alloc &a)
{
    if (a.map) munmap(a.map, a.map_size);
    else std::free(a.raw);
}

bool guard_page_fault(uintptr_t addr, char *buf, size_t cap)
{
    const size_t P = page_size();
    for (const auto &kv : st().allocs) {
        const Alloc &a = kv.second;
        if (!a.map) continue;
        const uintptr_t map = reinterpret_cast<uintptr_t>(a.map);
        const bool before = addr >= map && addr < map + P;
        const bool after = addr >= map + a.map_size - P && addr < map + a.map_size;
        if (!before && !after) continue;
        const char *what = a.kind == Alloc::Managed ? "cudaMallocManaged" : "cudaMalloc";
        if (before)
            std::snprintf(buf, cap, "out-of-bounds access at %p, %zu byte(s) before the %zu-byte "
                          "%s block at %p, beyond its guard zone", reinterpret_cast<void *>(addr),
                          size_t(a.base - addr), a.size, what, reinterpret_cast<void *>(a.base));
        else
            std::snprintf(buf, cap, "out-of-bounds access at %p, at byte %zu of the %zu-byte %s "
                          "block at %p (%zu past its end), beyond its guard zone",
                          reinterpret_cast<void *>(addr), size_t(addr - a.base), a.size, what,
                          reinterpret_cast<void *>(a.base), size_t(addr - a.base - a.size));
        return true;
    }
    return freed_block_fault(addr, buf, cap); /* a block freed by cudaFreeAsync */
}

} // namespace cudaemu
