/* emu/src/curand_sobol.h - the Sobol sequence of cuRAND's host API
 * (CURAND_RNG_QUASI_SOBOL32), for emu/src/curand.cpp: how many dimensions
 * the emulator has direction numbers for, and the points. */
#pragma once

#include <cstddef>

namespace cudaemu {
namespace curand_detail {
/* Joe and Kuo's direction numbers (their new-joe-kuo-6 list, cuRAND's
 * CURAND_DIRECTION_VECTORS_32_JOEKUO6) of the first sobol_dims dimensions */
constexpr unsigned sobol_dims = 21;
/* out[i] = the 32-bit coordinate in dimension dim (0-based, < sobol_dims) of
 * point first + i, in Gray-code order (point 0 is 0), i < count */
void sobol32(unsigned dim, unsigned long long first, std::size_t count, unsigned int *out);
} // namespace curand_detail
} // namespace cudaemu
