/* emu/include/cudaemu/ptx.h - what the translator turns inline PTX into.
 *
 * emu/tools/cudaemu_translate.cpp rewrites the single-instruction asm
 * statements public device code uses: `mov.u32 %0, %%laneid;` (and %warpid,
 * %nwarpid, %smid, %nsmid, %clock, %clock64, %globaltimer, %lanemask_lt/le/
 * eq/ge/gt) becomes `(out) = ::cudaemu::ptx::laneid()`, `nanosleep.u32`
 * a call of nanosleep, `bar.sync 0` __syncthreads(), membar/fence the
 * __threadfence of their scope.  Any other asm in device code stops the
 * compile at a static_assert naming it.  Included by cuda_runtime.h.
 *
 * The values: lane and warp from the thread's linear index in its block (a
 * GPU's %warpid may differ: PTX allows it), %smid the block's linear index
 * modulo the 132 emulated SMs, %nwarpid 64 (warps per SM), clocks as
 * clock()/clock64() (1 MHz), %globaltimer host nanoseconds.
 */
#ifndef CUDAEMU_PTX_H
#define CUDAEMU_PTX_H

namespace cudaemu {
namespace ptx {
unsigned smid();
unsigned nsmid();
unsigned nwarpid();
unsigned long long globaltimer();

inline unsigned tid_linear()
{
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
inline unsigned laneid() { return tid_linear() % 32u; }
inline unsigned warpid() { return tid_linear() / 32u; }
inline unsigned lanemask_eq() { return 1u << laneid(); }
inline unsigned lanemask_lt() { return lanemask_eq() - 1u; }
inline unsigned lanemask_le() { return lanemask_lt() | lanemask_eq(); }
inline unsigned lanemask_ge() { return ~lanemask_lt(); }
inline unsigned lanemask_gt() { return ~lanemask_le(); }
inline unsigned long long clock64() { return (unsigned long long)::clock64(); }
inline unsigned clock() { return (unsigned)clock64(); }
inline void nanosleep(unsigned ns) { __nanosleep(ns); }
} // namespace ptx
} // namespace cudaemu

#endif
