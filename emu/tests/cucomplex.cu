/* emu/tests/cucomplex.cu - cuComplex.h: the complex functions in a kernel
 * against std::complex<double>, exact cases, and the scaled division and
 * absolute value that do not overflow where the result does not.
 *
 *   ops: for 256 seeded pairs (a, b) a kernel computes a + b, a - b, a b,
 *       a / b, |a|, conj(a), a b + c in float and double; each within a few
 *       units in the last place of std::complex<double>'s value
 *   exact: (1+2i)(3+4i) = -5+10i, |3+4i| = 5, conversions, make_cuComplex
 *   range: |1e38 + 1e38 i| and (1e38 + 1e38 i) / (1e38 + 1e38 i) finite in
 *       float (1e300 in double), where the textbook formulas overflow
 */
#include <cmath>
#include <complex>
#include <cstdio>
#include <vector>

#include <cuComplex.h>
#include <cuda_runtime.h>

#include "test_util.h"

#define NP 256
enum { ADD, SUB, MUL, DIV, FMA, CONJ, NOPS };

template <class C> struct Out {
    C op[NOPS];
    double abs;
};

__global__ void ops_f(const cuFloatComplex *a, const cuFloatComplex *b, const cuFloatComplex *c,
                      Out<cuFloatComplex> *o)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    o[i].op[ADD] = cuCaddf(a[i], b[i]);
    o[i].op[SUB] = cuCsubf(a[i], b[i]);
    o[i].op[MUL] = cuCmulf(a[i], b[i]);
    o[i].op[DIV] = cuCdivf(a[i], b[i]);
    o[i].op[FMA] = cuCfmaf(a[i], b[i], c[i]);
    o[i].op[CONJ] = cuConjf(a[i]);
    o[i].abs = cuCabsf(a[i]);
}

__global__ void ops_d(const cuDoubleComplex *a, const cuDoubleComplex *b, const cuDoubleComplex *c,
                      Out<cuDoubleComplex> *o)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    o[i].op[ADD] = cuCadd(a[i], b[i]);
    o[i].op[SUB] = cuCsub(a[i], b[i]);
    o[i].op[MUL] = cuCmul(a[i], b[i]);
    o[i].op[DIV] = cuCdiv(a[i], b[i]);
    o[i].op[FMA] = cuCfma(a[i], b[i], c[i]);
    o[i].op[CONJ] = cuConj(a[i]);
    o[i].abs = cuCabs(a[i]);
}

static unsigned int lcg = 12345;
static double rnd() /* in [-4, 4) */
{
    lcg = lcg * 1664525u + 1013904223u;
    return (lcg >> 8) * (8.0 / 16777216.0) - 4.0;
}

/* |got - want| within tol of |want| (a complex relative error) */
template <class C> static bool near(C got, std::complex<double> want, double tol, double scale)
{
    return std::abs(std::complex<double>(got.x, got.y) - want) <= tol * scale;
}

/* runs the kernel on NP pairs in precision C (eps: its unit roundoff);
 * returns the number of results off the reference */
template <class C, class K> static int run(K kernel, double eps)
{
    std::vector<C> h[3];
    for (auto &v : h) {
        v.resize(NP);
        for (C &z : v) z.x = rnd(), z.y = rnd();
    }
    C *d[3];
    Out<C> *dout;
    for (int k = 0; k < 3; k++) {
        CK(cudaMalloc(&d[k], NP * sizeof(C)));
        CK(cudaMemcpy(d[k], h[k].data(), NP * sizeof(C), cudaMemcpyHostToDevice));
    }
    CK(cudaMalloc(&dout, NP * sizeof *dout));
    kernel<<<NP / 64, 64>>>(d[0], d[1], d[2], dout);
    CK(cudaGetLastError());
    std::vector<Out<C>> out(NP);
    CK(cudaMemcpy(out.data(), dout, NP * sizeof *dout, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < NP; i++) {
        const std::complex<double> a(h[0][i].x, h[0][i].y), b(h[1][i].x, h[1][i].y),
            c(h[2][i].x, h[2][i].y);
        /* a few roundings of operands at most 4 in size: 8 eps of the inputs' size */
        const double s = std::abs(a) + std::abs(b) + std::abs(c) + std::abs(a) * std::abs(b);
        bad += !near(out[i].op[ADD], a + b, 8 * eps, s);
        bad += !near(out[i].op[SUB], a - b, 8 * eps, s);
        bad += !near(out[i].op[MUL], a * b, 8 * eps, s);
        bad += !near(out[i].op[FMA], a * b + c, 8 * eps, s);
        bad += !near(out[i].op[DIV], a / b, 16 * eps, std::abs(a / b));
        bad += out[i].op[CONJ].x != h[0][i].x || out[i].op[CONJ].y != -h[0][i].y;
        bad += !(std::fabs(out[i].abs - std::abs(a)) <= 4 * eps * std::abs(a));
    }
    for (int k = 0; k < 3; k++) CK(cudaFree(d[k]));
    CK(cudaFree(dout));
    return bad;
}

int main()
{
    CHECK_EQ_INT(run<cuFloatComplex>(ops_f, 0x1p-24), 0);
    CHECK_EQ_INT(run<cuDoubleComplex>(ops_d, 0x1p-53), 0);

    /* exact */
    const cuFloatComplex p = cuCmulf(make_cuFloatComplex(1, 2), make_cuComplex(3, 4));
    CHECK(cuCrealf(p) == -5.0f && cuCimagf(p) == 10.0f);
    CHECK(cuCabsf(make_cuFloatComplex(3, 4)) == 5.0f);
    CHECK(cuCabs(make_cuDoubleComplex(-3, 4)) == 5.0);
    const cuDoubleComplex w = cuComplexFloatToDouble(make_cuFloatComplex(0.1f, -0.2f));
    CHECK(cuCreal(w) == (double)0.1f && cuCimag(w) == (double)-0.2f);
    const cuFloatComplex n = cuComplexDoubleToFloat(make_cuDoubleComplex(0.1, -0.2));
    CHECK(cuCrealf(n) == 0.1f && cuCimagf(n) == -0.2f);

    /* range */
    const cuFloatComplex big = make_cuFloatComplex(1e38f, 1e38f);
    const float ab = cuCabsf(big);
    CHECK(std::isfinite(ab) && std::fabs(ab - 1.41421356e38f) <= 1e32f);
    const cuFloatComplex q = cuCdivf(big, big);
    CHECK(cuCrealf(q) == 1.0f && cuCimagf(q) == 0.0f);
    const cuDoubleComplex bigd = make_cuDoubleComplex(1e300, -1e300);
    CHECK(std::isfinite(cuCabs(bigd)));
    const cuDoubleComplex qd = cuCdiv(bigd, bigd);
    CHECK(cuCreal(qd) == 1.0 && cuCimag(qd) == 0.0);
    return test_exit("cucomplex");
}
