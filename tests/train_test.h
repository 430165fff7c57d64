/* tests/train_test.h - what the CPU train_ops tests share (test_train_ops.c,
 * test_train_seq.c): the tables of this build, seeded and poisoned buffers,
 * the comparison through the suite's checker, and the refusal check. */
#ifndef TESTS_TRAIN_TEST_H
#define TESTS_TRAIN_TEST_H

#include "check.h"
#include "errmsg.h"
#include "testutil.h"
#include "train_cpu.h"

#include <stdlib.h>
#include <string.h>

typedef struct table {
    const char *name;
    const train_ops *ops;
} table;

/* Every CPU table of this build; the first is the reference. */
static const table TABLES[] = {
    {"cpu-naive", &TRAIN_OPS_CPU_NAIVE},
    {"cpu-omp", &TRAIN_OPS_CPU_OMP},
    {"cpu-blas", &TRAIN_OPS_CPU_BLAS},
#if BENCH_HAVE_ONEDNN
    {"cpu-onednn", &TRAIN_OPS_CPU_ONEDNN},
#endif
};
#define NTABLES ((int)(sizeof TABLES / sizeof TABLES[0]))
#define REF (&TRAIN_OPS_CPU_NAIVE)

static int g_threads = 1; /* of the current pass, for messages */

static inline void *xalloc(size_t bytes)
{
    void *p = calloc(1, bytes ? bytes : 1); /* zeroed: gcc 12 -O2 + ASan flags a malloc'd buffer passed as const (agree) */
    if (!p) {
        fprintf(stderr, "train test: out of memory (%zu bytes)\n", bytes);
        exit(1);
    }
    return p;
}
static inline float *fbuf(size_t n) { return (float *)xalloc(n * sizeof(float)); }
static inline float *frand(size_t n, unsigned long long seed)
{
    float *x = fbuf(n);
    rng_fill_uniform(x, n, seed);
    return x;
}
static inline float *fpoison(size_t n)
{
    float *x = fbuf(n);
    check_poison(x, n);
    return x;
}
static inline float *fcopy(const float *x, size_t n)
{
    float *y = fbuf(n);
    memcpy(y, x, n * sizeof *y);
    return y;
}

/* got vs want (the reference's fp32 result) through the suite's checker with
 * the tolerance of a k-term reduction; `quiet` for the planted-error tests. */
static inline int agree(const char *tname, const char *what, const float *got, const float *want,
                        size_t n, long k, int quiet)
{
    double *ref = (double *)xalloc(n * sizeof *ref);
    for (size_t i = 0; i < n; i++) ref[i] = want[i];
    check_result c = check_compare(got, ref, n, check_tolerance(DTYPE_FP32, k));
    free(ref);
    if (!quiet)
        EXPECT(c.pass, "%s %s threads %d: rel %g max %g (tol %g) nonfinite %ld worst at %ld", tname,
               what, g_threads, c.rel_err, c.max_abs_err, c.tolerance, c.nonfinite,
               c.worst_index);
    return c.pass;
}

/* Index of the first difference, -1 when equal. */
static inline long int_diff(const int *a, const int *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i]) return (long)i;
    return -1;
}

static inline int call_ok(const table *t, const char *what, int rc)
{
    EXPECT(rc == 0, "%s %s threads %d returned %d: %s", t->name, what, g_threads, rc, err_get());
    return rc == 0;
}

/* rc must be a refusal whose message holds `needle` (the bad value). */
static inline void refuses(const table *t, int rc, const char *what, const char *needle)
{
    EXPECT(rc != 0, "%s accepted %s", t->name, what);
    EXPECT(rc == 0 || strstr(err_get(), needle), "%s %s: message '%s' lacks '%s'", t->name, what,
           err_get(), needle);
}

#endif
