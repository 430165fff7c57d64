/* emu/tests/test_util.h - tiny assertion helpers shared by the emulator tests.
 * CHECK prints the failing expression with its location and counts it;
 * test_exit() ends main with a non-zero status when any check failed. */
#ifndef EMU_TESTS_TEST_UTIL_H
#define EMU_TESTS_TEST_UTIL_H

#include <cmath>
#include <cstdio>
#include <cstdlib>

static int g_test_failures = 0;

#define CHECK(cond)                                                            \
    do {                                                                       \
        if (!(cond)) {                                                         \
            std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__,        \
                         __LINE__, #cond);                                     \
            ++g_test_failures;                                                 \
        }                                                                      \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                     \
    do {                                                                       \
        long long va_ = (long long)(a), vb_ = (long long)(b);                  \
        if (va_ != vb_) {                                                      \
            std::fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%lld vs %lld)\n", \
                         __FILE__, __LINE__, #a, #b, va_, vb_);                \
            ++g_test_failures;                                                 \
        }                                                                      \
    } while (0)

/* cuBLAS call that must succeed (for the tests that include cublas_v2.h). */
#define CB(call)                                                               \
    do {                                                                       \
        cublasStatus_t s_ = (call);                                            \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                     \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
                         cublasGetStatusName(s_));                             \
            std::exit(2);                                                      \
        }                                                                      \
    } while (0)

/* NCCL call that must succeed (for the tests that include nccl.h). */
#define NC(call)                                                               \
    do {                                                                       \
        ncclResult_t r_ = (call);                                              \
        if (r_ != ncclSuccess) {                                               \
            std::fprintf(stderr, "%s:%d: %s: %s (%s)\n", __FILE__, __LINE__,   \
                         #call, ncclGetErrorString(r_),                        \
                         ncclGetLastError(nullptr));                           \
            std::exit(2);                                                      \
        }                                                                      \
    } while (0)

/* cuRAND call that must succeed (for the tests that include curand.h). */
#define CR(call)                                                               \
    do {                                                                       \
        int s_ = (int)(call);                                                  \
        if (s_ != 0) {                                                         \
            std::fprintf(stderr, "%s:%d: %s: curandStatus_t %d\n", __FILE__,   \
                         __LINE__, #call, s_);                                 \
            std::exit(2);                                                      \
        }                                                                      \
    } while (0)

/* CUDA call that must succeed. */
#define CK(call)                                                               \
    do {                                                                       \
        cudaError_t e_ = (call);                                               \
        if (e_ != cudaSuccess) {                                               \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
                         cudaGetErrorName(e_));                                \
            std::exit(2);                                                      \
        }                                                                      \
    } while (0)

/* Sample mean within 5 standard errors of mu and sample variance within 5 of
 * var, for n values of a distribution of kurtosis kurt (3 for a normal; the
 * variance's standard error is var sqrt((kurt - 1) / n)); prints the numbers
 * when they do not fit.  5 standard errors: a right generator fails about one
 * time in 1.7 million, and fixed seeds make each test deterministic. */
template <class T>
static bool moments_fit(const char *what, const T *v, size_t n, double mu, double var, double kurt)
{
    double s = 0, s2 = 0;
    for (size_t i = 0; i < n; i++) s += (double)v[i];
    const double m = s / (double)n;
    for (size_t i = 0; i < n; i++) s2 += ((double)v[i] - m) * ((double)v[i] - m);
    s2 /= (double)(n - 1);
    const double se_mean = std::sqrt(var / (double)n), se_var = var * std::sqrt((kurt - 1.0) / (double)n);
    const bool ok = std::fabs(m - mu) <= 5 * se_mean && std::fabs(s2 - var) <= 5 * se_var;
    if (!ok)
        std::fprintf(stderr, "%s: mean %.5f (want %.5f +- %.5f), variance %.5f (want %.5f +- %.5f)\n",
                     what, m, mu, 5 * se_mean, s2, var, 5 * se_var);
    return ok;
}

/* Runs this program (argv0) twice more as `argv0 arg`, each time reading
 * the one integer it prints, and checks it is `expected`: the same seed
 * gives the same result (the interleaving tests' determinism check). */
static inline void check_same_again(const char *argv0, const char *arg, long long expected)
{
    char cmd[4200];
    std::snprintf(cmd, sizeof cmd, "'%s' %s", argv0, arg);
    for (int k = 0; k < 2; ++k) {
        FILE *p = popen(cmd, "r");
        CHECK(p != nullptr);
        if (!p) return;
        long long again = -1;
        CHECK(std::fscanf(p, "%lld", &again) == 1);
        CHECK(pclose(p) == 0);
        CHECK_EQ_INT(again, expected);
    }
}

static inline int test_exit(const char *name)
{
    if (g_test_failures) {
        std::fprintf(stderr, "%s: %d check(s) FAILED\n", name, g_test_failures);
        return 1;
    }
    std::printf("%s: all checks passed\n", name);
    return 0;
}

#endif
