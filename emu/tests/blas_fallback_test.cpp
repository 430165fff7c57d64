/* emu/tests/blas_fallback_test.cpp - the emulator's plain BLAS
 * (emu/src/blas_fallback.cpp, its cuBLAS where OpenBLAS is absent) against
 * OpenBLAS itself, on the functions emu/src/cublas.cpp calls: sgemm in both
 * orders and every transpose pair with padded leading dimensions, alpha 0,
 * beta 0 over NaN (never read); sgemv and dgemv with positive and negative
 * increments; saxpy, sscal, sdot, snrm2. Built only where OpenBLAS is (the
 * fallback's names are renamed so both link); a bare build runs the fallback
 * through the cuBLAS tests instead. Tolerance: fp32's unit roundoff times the
 * reduction length times the sum of the products' magnitudes (dgemv: fp64's). */
#include <cblas.h>
#define CUDAEMU_BLAS_FALLBACK 1
#define CUDAEMU_BLAS_FALLBACK_NAME(name) fb_##name
#include "../src/blas_fallback.cpp"

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

static int fails = 0, checks = 0;
static std::mt19937 rng(29);

static float rnd() { return std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng); }

/* |got - want| within (n + 2) * u * mag */
static void near(double got, double want, double mag, int n, double u, const char *what)
{
    checks++;
    if (std::isnan(got) || std::fabs(got - want) > (n + 2) * u * (mag + 1e-30)) {
        if (fails++ < 10) std::printf("FAILED: %s: got %.9g, want %.9g\n", what, got, want);
    }
}

static void test_sgemm()
{
    const CBLAS_ORDER orders[] = {CblasColMajor, CblasRowMajor};
    const CBLAS_TRANSPOSE ts[] = {CblasNoTrans, CblasTrans};
    const float alphas[] = {1.0f, -0.75f, 0.0f}, betas[] = {0.0f, 1.0f, 0.5f};
    for (CBLAS_ORDER o : orders)
        for (CBLAS_TRANSPOSE ta : ts)
            for (CBLAS_TRANSPOSE tb : ts)
                for (int rep = 0; rep < 3; rep++) {
                    const int m = 1 + int(rng() % 9), n = 1 + int(rng() % 9), k = 1 + int(rng() % 17);
                    const bool col = o == CblasColMajor;
                    /* op(A) is m x k: stored A is (ta ? k x m : m x k) */
                    const int ar = ta == CblasNoTrans ? m : k, ac = ta == CblasNoTrans ? k : m;
                    const int br = tb == CblasNoTrans ? k : n, bc = tb == CblasNoTrans ? n : k;
                    const int lda = (col ? ar : ac) + 3, ldb = (col ? br : bc) + 2, ldc = (col ? m : n) + 1;
                    std::vector<float> A(size_t(lda) * (col ? ac : ar)), B(size_t(ldb) * (col ? bc : br));
                    for (float &v : A) v = rnd();
                    for (float &v : B) v = rnd();
                    const size_t csize = size_t(ldc) * (col ? n : m);
                    for (float al : alphas)
                        for (float be : betas) {
                            std::vector<float> C0(csize);
                            for (float &v : C0) v = rnd();
                            std::vector<float> want = C0, got = C0;
                            if (be == 0.0f) /* beta 0: C is never read */
                                for (size_t i = 0; i < csize; i++) want[i] = got[i] = NAN;
                            cblas_sgemm(o, ta, tb, m, n, k, al, A.data(), lda, B.data(), ldb, be,
                                        want.data(), ldc);
                            fb_sgemm(o, ta, tb, m, n, k, al, A.data(), lda, B.data(), ldb, be,
                                     got.data(), ldc);
                            for (int i = 0; i < m; i++)
                                for (int j = 0; j < n; j++) {
                                    const size_t c = col ? size_t(i) + size_t(j) * ldc : size_t(i) * ldc + j;
                                    double mag = 0; /* sum |a b| + |beta c| */
                                    for (int kk = 0; kk < k; kk++) {
                                        auto at = [&](const std::vector<float> &X, int ld, bool t, int r, int cc) {
                                            if (t) std::swap(r, cc);
                                            return X[col ? size_t(r) + size_t(cc) * ld : size_t(r) * ld + cc];
                                        };
                                        mag += std::fabs(double(at(A, lda, ta != CblasNoTrans, i, kk)) *
                                                         at(B, ldb, tb != CblasNoTrans, kk, j));
                                    }
                                    mag = std::fabs(al) * mag + (be != 0.0f ? std::fabs(be * C0[c]) : 0.0);
                                    char what[96];
                                    std::snprintf(what, sizeof what, "sgemm %s %c%c %dx%dx%d alpha %g beta %g (%d,%d)",
                                                  col ? "col" : "row", ta == CblasNoTrans ? 'N' : 'T',
                                                  tb == CblasNoTrans ? 'N' : 'T', m, n, k, al, be, i, j);
                                    near(got[c], want[c], mag, k, 0x1p-24, what);
                                }
                        }
                }
}

template <typename T, typename F, typename G>
static void test_gemv(const char *name, F ref, G fb, double u)
{
    const CBLAS_TRANSPOSE ts[] = {CblasNoTrans, CblasTrans};
    const int incs[] = {1, 2, -1, -3};
    for (CBLAS_TRANSPOSE t : ts)
        for (int incx : incs)
            for (int incy : incs)
                for (int beta0 = 0; beta0 < 2; beta0++) {
                    const int m = 1 + int(rng() % 7), n = 1 + int(rng() % 7), lda = m + 2;
                    const int xn = t == CblasNoTrans ? n : m, yn = t == CblasNoTrans ? m : n;
                    std::vector<T> A(size_t(lda) * n), x(size_t(xn) * std::abs(incx)), y0(size_t(yn) * std::abs(incy));
                    for (T &v : A) v = rnd();
                    for (T &v : x) v = rnd();
                    for (T &v : y0) v = beta0 ? T(NAN) : T(rnd());
                    const T alpha = T(0.625), beta = beta0 ? T(0) : T(-1.5);
                    std::vector<T> want = y0, got = y0;
                    ref(CblasColMajor, t, m, n, alpha, A.data(), lda, x.data(), incx, beta, want.data(), incy);
                    fb(CblasColMajor, t, m, n, alpha, A.data(), lda, x.data(), incx, beta, got.data(), incy);
                    for (size_t i = 0; i < want.size(); i++) {
                        char what[96];
                        std::snprintf(what, sizeof what, "%s %c incx %d incy %d beta %g element %zu", name,
                                      t == CblasNoTrans ? 'N' : 'T', incx, incy, double(beta), i);
                        if (std::isnan(double(want[i])) && std::isnan(double(got[i]))) continue; /* untouched gap */
                        near(got[i], want[i], 4.0 * (xn + 1), xn, u, what);
                    }
                }
}

static void test_level1()
{
    const int incs[] = {1, 3, -2};
    for (int incx : incs)
        for (int incy : incs) {
            const int n = 1 + int(rng() % 23);
            std::vector<float> x(size_t(n) * std::abs(incx)), y(size_t(n) * std::abs(incy));
            for (float &v : x) v = rnd();
            for (float &v : y) v = rnd();
            char what[64];
            std::snprintf(what, sizeof what, "sdot n %d incx %d incy %d", n, incx, incy);
            near(fb_sdot(n, x.data(), incx, y.data(), incy), cblas_sdot(n, x.data(), incx, y.data(), incy),
                 n, n, 0x1p-24, what);
            std::vector<float> want = y, got = y;
            cblas_saxpy(n, -0.3f, x.data(), incx, want.data(), incy);
            fb_saxpy(n, -0.3f, x.data(), incx, got.data(), incy);
            for (size_t i = 0; i < y.size(); i++) {
                std::snprintf(what, sizeof what, "saxpy incx %d incy %d element %zu", incx, incy, i);
                near(got[i], want[i], 2.0, 1, 0x1p-24, what);
            }
            if (incx > 0) {
                std::snprintf(what, sizeof what, "snrm2 n %d incx %d", n, incx);
                near(fb_snrm2(n, x.data(), incx), cblas_snrm2(n, x.data(), incx), n, n, 0x1p-24, what);
                want = got = x;
                cblas_sscal(n, 1.25f, want.data(), incx);
                fb_sscal(n, 1.25f, got.data(), incx);
                for (size_t i = 0; i < x.size(); i++) {
                    std::snprintf(what, sizeof what, "sscal incx %d element %zu", incx, i);
                    near(got[i], want[i], 2.0, 1, 0x1p-24, what);
                }
            }
        }
    checks++;
    if (fb_snrm2(4, nullptr, 0) != 0.0f || fb_sdot(0, nullptr, 1, nullptr, 1) != 0.0f) {
        fails++;
        std::printf("FAILED: snrm2 with incx 0 or sdot of n 0 is not 0\n");
    }
}

int main()
{
    test_sgemm();
    test_gemv<float>("sgemv", cblas_sgemv, fb_sgemv, 0x1p-24);
    test_gemv<double>("dgemv", cblas_dgemv, fb_dgemv, 0x1p-53);
    test_level1();
    if (fails) {
        std::printf("blas_fallback: %d of %d checks failed\n", fails, checks);
        return 1;
    }
    std::printf("blas_fallback: all %d checks passed\n", checks);
    return 0;
}
