/* emu/include/cudaemu/half_round.h - the 16-bit formats' rounding core, which
 * lives in ops/half_round.h (the CPU code owns it; __half, __nv_bfloat16 and
 * the emulated cuBLAS and cuDNN round through it too). In the source tree
 * this header forwards there; `cmake --install` puts ops/half_round.h itself
 * in this header's place (emu/CMakeLists.txt), so an installed emulator
 * stays self-contained. */
#include "../../../ops/half_round.h"
