/* emu/include/cudaemu/thrust_random.h - the CUDA host emulator's Thrust
 * subset, <thrust/random.h>: the engines and distributions are the standard
 * library's (minstd_rand is Thrust's default_random_engine there too, so an
 * engine's raw numbers match Thrust's; a distribution's values do not: the
 * algorithms differ) (emu/README.md, "Thrust and CUB"). */
#pragma once

#include <random>

namespace thrust {
namespace random {
using default_random_engine = std::minstd_rand;
using std::minstd_rand;
using std::minstd_rand0;
using std::ranlux24;
using std::ranlux48;
template <class T = double> using uniform_real_distribution = std::uniform_real_distribution<T>;
template <class T = int> using uniform_int_distribution = std::uniform_int_distribution<T>;
template <class T = double> using normal_distribution = std::normal_distribution<T>;
} // namespace random
using random::default_random_engine;
using random::minstd_rand;
using random::normal_distribution;
using random::uniform_int_distribution;
using random::uniform_real_distribution;
} // namespace thrust
