/* emu/tests/curand_sobol.cu - cuRAND's Sobol32 host API
 * (CURAND_RNG_QUASI_SOBOL32) on the emulator.
 *
 *   definition: dimensions 1 to 3 of a 3-dimensional run equal this file's
 *       own Sobol points (direction numbers of x + 1 and x^2 + x + 1 by the
 *       Bratley-Fox recurrence, point k the XOR over the bits of its Gray
 *       code, not the library's incremental walk); the output is n / 3
 *       values of dimension 1, then 2, then 3
 *   nets: in every one of the 21 dimensions the first 2^10 points are the
 *       2^10 multiples of 2^22; dimensions 1 and 2 form a (0, 10, 2)-net
 *       (every box of 2^-a by 2^-(10 - a) holds one point)
 *   libcurand: values of libcurand 10.4's host generator, kept from one
 *       comparison (emu/README.md, *cuRAND*)
 *   calls: the offset counts points; a run continues where the last ended;
 *       uniforms are x 2^-32 + 2^-33 (float) and x 2^-32 + 2^-32 (double); a
 *       device generator gives what a host one gives
 *   errors: a count not a multiple of the dimensions, 0 or 22 dimensions,
 *       a seed for a quasi generator, dimensions for a pseudo one, normals
 */
#include <cstdio>
#include <vector>

#include <cuda_runtime.h>
#include <curand.h>

#include "test_util.h"

/* this file's direction numbers: dimension 1, then x + 1 (s = 1), then
 * x^2 + x + 1 (s = 2, m = 1, 3) */
static void directions(unsigned int v[3][32])
{
    for (int i = 0; i < 32; i++) v[0][i] = 1u << (31 - i);
    v[1][0] = 1u << 31;
    for (int i = 1; i < 32; i++) v[1][i] = v[1][i - 1] ^ (v[1][i - 1] >> 1);
    v[2][0] = 1u << 31;
    v[2][1] = 3u << 30;
    for (int i = 2; i < 32; i++) v[2][i] = v[2][i - 1] ^ v[2][i - 2] ^ (v[2][i - 2] >> 2);
}

static unsigned int point(const unsigned int v[32], unsigned long long k)
{
    const unsigned long long gray = k ^ (k >> 1);
    unsigned int x = 0;
    for (int b = 0; b < 32; b++)
        if (gray >> b & 1) x ^= v[b];
    return x;
}

static std::vector<unsigned int> generate(unsigned dims, unsigned long long offset, size_t n)
{
    curandGenerator_t g;
    CR(curandCreateGeneratorHost(&g, CURAND_RNG_QUASI_SOBOL32));
    CR(curandSetQuasiRandomGeneratorDimensions(g, dims));
    CR(curandSetGeneratorOffset(g, offset));
    std::vector<unsigned int> r(n);
    CR(curandGenerate(g, r.data(), n));
    CR(curandDestroyGenerator(g));
    return r;
}

int main()
{
    /* the definition, three dimensions */
    unsigned int v[3][32];
    directions(v);
    const size_t per = 1000;
    const std::vector<unsigned int> s = generate(3, 0, 3 * per);
    int bad = 0;
    for (int d = 0; d < 3; d++)
        for (size_t k = 0; k < per; k++) bad += s[d * per + k] != point(v[d], k);
    CHECK_EQ_INT(bad, 0);
    /* libcurand's: dimension 2's point 999, dimension 3's points 500 and 999 */
    CHECK_EQ_INT(s[1999], 3904897024u);
    CHECK_EQ_INT(s[2500], 1484783616u);
    CHECK_EQ_INT(s[2999], 348127232u);

    /* nets, all 21 dimensions */
    const unsigned dims = 21, m = 10, pts = 1u << m;
    const std::vector<unsigned int> all = generate(dims, 0, dims * pts);
    for (unsigned d = 0; d < dims; d++) {
        std::vector<int> seen(pts, 0);
        int off_grid = 0;
        for (unsigned k = 0; k < pts; k++) {
            const unsigned int x = all[d * pts + k];
            off_grid += (x & ((1u << (32 - m)) - 1)) != 0;
            seen[x >> (32 - m)]++;
        }
        int missing = 0;
        for (int c : seen) missing += c != 1;
        if (off_grid || missing) std::fprintf(stderr, "dimension %u: %d off the grid, %d cells not 1\n", d + 1, off_grid, missing);
        CHECK(off_grid == 0 && missing == 0);
    }
    for (unsigned a = 0; a <= m; a++) { /* boxes 2^-a wide, 2^-(m - a) high */
        std::vector<int> box(pts, 0);
        for (unsigned k = 0; k < pts; k++) {
            const unsigned int x = all[k], y = all[pts + k];
            const unsigned int bx = a ? x >> (32 - a) : 0, by = a < m ? y >> (32 - (m - a)) : 0;
            box[(bx << (m - a)) | by]++;
        }
        int wrong = 0;
        for (int c : box) wrong += c != 1;
        CHECK_EQ_INT(wrong, 0);
    }
    /* libcurand's: dimension 14's point 63, dimension 21's points 37 and 63 */
    CHECK_EQ_INT(all[13 * pts + 63], 3288334336u);
    CHECK_EQ_INT(all[20 * pts + 37], 4093640704u);
    CHECK_EQ_INT(all[20 * pts + 63], 1006632960u);

    /* the offset counts points; runs continue */
    curandGenerator_t g;
    CR(curandCreateGeneratorHost(&g, CURAND_RNG_QUASI_SOBOL32));
    CR(curandSetQuasiRandomGeneratorDimensions(g, 3));
    CR(curandSetGeneratorOffset(g, 5));
    std::vector<unsigned int> o(30), o2(30);
    CR(curandGenerate(g, o.data(), 30));
    CR(curandGenerate(g, o2.data(), 30));
    bad = 0;
    for (int d = 0; d < 3; d++)
        for (int k = 0; k < 10; k++)
            bad += o[d * 10 + k] != s[d * per + 5 + k] || o2[d * 10 + k] != s[d * per + 15 + k];
    CHECK_EQ_INT(bad, 0);
    /* uniforms */
    std::vector<float> f(30);
    std::vector<double> dd(30);
    CR(curandSetGeneratorOffset(g, 0));
    CR(curandGenerateUniform(g, f.data(), 30));
    CR(curandSetGeneratorOffset(g, 0));
    CR(curandGenerateUniformDouble(g, dd.data(), 30));
    bad = 0;
    for (int d = 0; d < 3; d++)
        for (int k = 0; k < 10; k++) {
            const unsigned int x = s[d * per + k];
            bad += f[d * 10 + k] != (float)x * 0x1p-32f + 0x1p-33f;
            bad += dd[d * 10 + k] != (double)x * 0x1p-32 + 0x1p-32;
        }
    CHECK_EQ_INT(bad, 0);
    CHECK(f[0] == 0x1p-33f && dd[0] == 0x1p-32);

    /* a device generator, on a stream */
    curandGenerator_t dg;
    cudaStream_t st;
    unsigned int *du;
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    CK(cudaMalloc(&du, 3 * per * sizeof(unsigned int)));
    CR(curandCreateGenerator(&dg, CURAND_RNG_QUASI_DEFAULT));
    CR(curandSetStream(dg, st));
    CR(curandSetQuasiRandomGeneratorDimensions(dg, 3));
    CR(curandGenerate(dg, du, 3 * per));
    std::vector<unsigned int> got(3 * per);
    CK(cudaMemcpyAsync(got.data(), du, 3 * per * sizeof(unsigned int), cudaMemcpyDeviceToHost, st));
    CK(cudaStreamSynchronize(st));
    CHECK(got == s);

    /* errors (22 dimensions: a cudaemu line too) */
    CHECK_EQ_INT(curandGenerate(g, o.data(), 31), CURAND_STATUS_LENGTH_NOT_MULTIPLE);
    CHECK_EQ_INT(curandSetQuasiRandomGeneratorDimensions(g, 0), CURAND_STATUS_OUT_OF_RANGE);
    CHECK_EQ_INT(curandSetQuasiRandomGeneratorDimensions(g, 22), CURAND_STATUS_OUT_OF_RANGE);
    CHECK_EQ_INT(curandSetPseudoRandomGeneratorSeed(g, 5), CURAND_STATUS_TYPE_ERROR);
    CHECK_EQ_INT(curandGenerateNormal(g, f.data(), 30, 0.0f, 1.0f), CURAND_STATUS_TYPE_ERROR);
    curandGenerator_t p;
    CR(curandCreateGeneratorHost(&p, CURAND_RNG_PSEUDO_XORWOW));
    CHECK_EQ_INT(curandSetQuasiRandomGeneratorDimensions(p, 2), CURAND_STATUS_TYPE_ERROR);

    CR(curandDestroyGenerator(p));
    CR(curandDestroyGenerator(g));
    CR(curandDestroyGenerator(dg));
    CK(cudaFree(du));
    CK(cudaStreamDestroy(st));
    return test_exit("curand_sobol");
}
