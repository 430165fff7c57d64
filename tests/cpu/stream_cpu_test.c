/* tests/cpu/stream_cpu_test.c - every CPU stream backend of the registry against
 * the stream suite's reference, bit for bit, for every kernel at awkward
 * sizes (1, 3, 17, 1000003, and 2^24 + 5, where cpu-omp stores
 * non-temporally), with the arrays 64-byte aligned and misaligned by 1, 2 and
 * 3 elements, in 1 and 2 threads; then n = 0 and bad arguments. */
#include "check.h"
#include "errmsg.h"
#include "gemm_cpu.h"
#include "registry.h"
#include "stream/stream.h"
#include "stream_cpu.h"
#include "testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const long long SIZES[] = {1, 3, 17, 1000003, (1LL << 24) + 5};
static const char *const KERNELS[] = {"copy", "scale", "add", "triad"};
#define NSIZES (int)(sizeof SIZES / sizeof SIZES[0])

/* Backend b on problem p with every array shifted by `shift` (+0, +1, +2
 * elements for x, y, out when shift is 1); 1 when its output matches. */
static int run_case(const backend_def *b, const problem *p, void *const *host, const void *ref,
                    int shift, int threads)
{
    size_t n = (size_t)p->dim[0];
    int nin = stream_inputs(p);
    float *arr[3] = {NULL, NULL, NULL};
    void *view[3] = {NULL, NULL, NULL};
    for (int i = 0; i <= nin; i++) {
        arr[i] = aligned_alloc(64, (n + 16) * sizeof(float) / 64 * 64 + 64);
        view[i] = arr[i] + (shift ? i + 1 : 0);
        if (i < nin) memcpy(view[i], host[i], n * sizeof(float));
        else check_poison(view[i], n);
    }
    cpu_threads_set(threads);
    err_clear();
    int rc = ((stream_fn)b->fn)((stream_kernel)p->variant, n, STREAM_SCALAR, view[0],
                                nin == 2 ? view[1] : NULL, view[nin]);
    char why[200] = "";
    check_result r = SUITE_STREAM.check(p, ref, 0, backend_dtype(b), view, why, sizeof why);
    EXPECT(rc == 0, "%s %s returned %d: %s", b->name, p->desc, rc, err_get());
    EXPECT(r.pass && r.max_abs_err == 0 && r.rel_err == 0 && r.tolerance == 0,
           "%s %s shift %d threads %d: %s", b->name, p->desc, shift, threads, why);
    for (int i = 0; i <= nin; i++) free(arr[i]);
    return rc == 0 && r.pass;
}

/* The suite's buffers, inputs and reference for problem `desc`, then every
 * CPU backend on it. Returns the number of cases run. */
static int run_problem(const backend_def *const *cpu, int ncpu, const char *desc)
{
    problem p;
    case_layout l;
    char err[200];
    void *host[LAYOUT_MAX_BUFS] = {0};
    int ran = 0;
    EXPECT(SUITE_STREAM.parse(desc, &p, err, sizeof err) == 0, "parse %s: %s", desc, err);
    memset(&l, 0, sizeof l);
    SUITE_STREAM.layout(&p, &l);
    for (int i = 0; i < l.nbufs; i++) host[i] = malloc(l.buf[i].bytes);
    SUITE_STREAM.fill(&p, 0, host);
    void *ref = SUITE_STREAM.ref_build(&p, host);
    EXPECT(ref != NULL, "reference of %s", desc);
    for (int b = 0; ref && b < ncpu; b++)
        for (int shift = 0; shift <= 1; shift++)
            for (int t = 1; t <= 2; t++) {
                run_case(cpu[b], &p, host, ref, shift, t);
                ran++;
            }
    SUITE_STREAM.ref_free(ref);
    for (int i = 0; i < l.nbufs; i++) free(host[i]);
    return ran;
}

int main(void)
{
    const backend_def *cpu[8];
    int ncpu = 0, ran = 0;
    for (int b = 0; BACKENDS[b].name; b++)
        if (strcmp(BACKENDS[b].op, SUITE_STREAM.op) == 0 && BACKENDS[b].dev == DEV_CPU && ncpu < 8)
            cpu[ncpu++] = &BACKENDS[b];
    EXPECT(ncpu >= 2, "only %d CPU stream backends in the registry", ncpu);
    for (int s = 0; s < NSIZES; s++)
        for (int k = 0; k < 4; k++) {
            char desc[64];
            snprintf(desc, sizeof desc, "%s:%lld", KERNELS[k], SIZES[s]);
            ran += run_problem(cpu, ncpu, desc);
        }
    /* every CPU backend of the registry ran every kernel, size, shift and thread count */
    EXPECT(ran == ncpu * NSIZES * 4 * 2 * 2, "ran %d cases", ran);
    /* the largest size takes cpu-omp's non-temporal path */
    EXPECT(stream_bytes(STREAM_COPY, (size_t)SIZES[NSIZES - 1]) >= (double)STREAM_NT_MIN_BYTES,
           "no size reaches the non-temporal path");

    float x = 1.0f, out = 7.0f;
    for (int b = 0; b < ncpu; b++) {
        stream_fn f = (stream_fn)cpu[b]->fn;
        EXPECT(f(STREAM_TRIAD, 0, STREAM_SCALAR, NULL, NULL, NULL) == 0, "%s: n = 0", cpu[b]->name);
        err_clear();
        EXPECT(f((stream_kernel)7, 1, STREAM_SCALAR, &x, &x, &out) == -1 && *err_get(),
               "%s: an unknown kernel is an error with a message", cpu[b]->name);
        err_clear();
        EXPECT(f(STREAM_ADD, 1, STREAM_SCALAR, &x, NULL, &out) == -1 && *err_get(),
               "%s: add without y is an error with a message", cpu[b]->name);
        EXPECT(out == 7.0f, "%s wrote out on a bad call", cpu[b]->name);
    }
    TEST_END();
}
