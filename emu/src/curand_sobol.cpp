/* emu/src/curand_sobol.cpp - the Sobol sequence of cuRAND's host API for the
 * CUDA host emulator: the direction numbers of the first 21 dimensions,
 * built from Joe and Kuo's primitive polynomials and initial numbers (their
 * list new-joe-kuo-6, "search criterion D6", which cuRAND's JOEKUO6 set is)
 * by the Bratley-Fox recurrence, and the points in Gray-code order (point
 * k is the XOR of the direction numbers of the set bits of k ^ (k >> 1)).
 * cuRAND's set has 20 000 dimensions; emu/README.md, *cuRAND*, says why the
 * emulator stops at 21. */
#include "curand_sobol.h"

namespace cudaemu {
namespace curand_detail {
namespace {

/* dimension d + 2 (dimension 1 is the identity): the degree s of its
 * primitive polynomial, the polynomial's inner coefficients a (bit s - 2
 * is x^(s-1)'s), and the initial odd numbers m_1 .. m_s */
struct Poly {
    unsigned s, a, m[7];
};
constexpr Poly polys[sobol_dims - 1] = {
    {1, 0, {1}},
    {2, 1, {1, 3}},
    {3, 1, {1, 3, 1}},
    {3, 2, {1, 1, 1}},
    {4, 1, {1, 1, 3, 3}},
    {4, 4, {1, 3, 5, 13}},
    {5, 2, {1, 1, 5, 5, 17}},
    {5, 4, {1, 1, 5, 5, 5}},
    {5, 7, {1, 1, 7, 11, 19}},
    {5, 11, {1, 1, 5, 1, 1}},
    {5, 13, {1, 1, 1, 3, 11}},
    {5, 14, {1, 3, 5, 5, 31}},
    {6, 1, {1, 3, 3, 9, 7, 49}},
    {6, 13, {1, 1, 1, 15, 21, 21}},
    {6, 16, {1, 3, 1, 13, 27, 49}},
    {6, 19, {1, 1, 1, 15, 7, 5}},
    {6, 22, {1, 3, 1, 15, 13, 25}},
    {6, 25, {1, 1, 5, 5, 19, 61}},
    {7, 1, {1, 3, 7, 11, 23, 15, 103}},
    {7, 4, {1, 3, 7, 13, 13, 15, 69}},
};

struct Directions {
    unsigned int v[sobol_dims][32];
};

const Directions &directions()
{
    static const Directions *t = [] {
        auto *dir = new Directions;
        for (int i = 0; i < 32; i++) dir->v[0][i] = 1u << (31 - i);
        for (unsigned d = 1; d < sobol_dims; d++) {
            const Poly &p = polys[d - 1];
            unsigned int *v = dir->v[d];
            for (unsigned i = 0; i < 32; i++) {
                if (i < p.s) {
                    v[i] = p.m[i] << (31 - i);
                    continue;
                }
                unsigned int x = v[i - p.s] ^ (v[i - p.s] >> p.s);
                for (unsigned k = 1; k < p.s; k++)
                    if ((p.a >> (p.s - 1 - k)) & 1) x ^= v[i - k];
                v[i] = x;
            }
        }
        return dir;
    }();
    return *t;
}

/* built when the program starts, as the other generators' tables */
[[maybe_unused]] const Directions &startup_directions = directions();

} // namespace

void sobol32(unsigned dim, unsigned long long first, std::size_t count, unsigned int *out)
{
    const unsigned int *v = directions().v[dim];
    unsigned int x = 0;
    const unsigned long long gray = first ^ (first >> 1);
    for (int b = 0; b < 32; b++)
        if ((gray >> b) & 1) x ^= v[b];
    for (std::size_t i = 0; i < count; i++) {
        out[i] = x;
        /* point k + 1 flips the direction number of k's lowest zero bit */
        x ^= v[__builtin_ctzll(~(first + i)) & 31];
    }
}

} // namespace curand_detail
} // namespace cudaemu
