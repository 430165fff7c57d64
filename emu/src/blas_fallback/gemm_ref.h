/* emu/src/blas_fallback/gemm_ref.h - the reference dot product lives in
 * ops/gemm_ref.h (the CPU reference's); in the source tree this header
 * forwards there, and `cmake --install` puts ops/gemm_ref.h itself in its
 * place (emu/CMakeLists.txt), so installed sources stand alone. */
#include "../../../ops/gemm_ref.h"
