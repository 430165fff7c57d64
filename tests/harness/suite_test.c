/* tests/harness/suite_test.c - problem_io_bytes (harness/suite.h), the
 * io_bytes column, on the suites' own problems: a matmul's A, B read and C
 * written, each conv direction's tensors, at fp32 and a 16-bit dtype, against
 * a count by hand and against the buffers the suite's layout allocates. */
#include "registry.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The bytes of p's IN and OUT buffers at p's dtype (what it reads and writes once). */
static double layout_io(const suite_def *s, const problem *p)
{
    case_layout l;
    memset(&l, 0, sizeof l);
    s->layout(p, &l);
    double b = 0;
    for (int i = 0; i < l.nbufs; i++)
        if (l.buf[i].role == ROLE_IN || l.buf[i].role == ROLE_OUT) b += (double)l.buf[i].bytes;
    return b;
}

int main(void)
{
    const dtype_t DTS[] = {DTYPE_FP32, DTYPE_BF16};
    char err[200];
    problem p, dirs[8];

    /* matmul MxNxK = 48x40x24: M*K + K*N + M*N elements */
    const suite_def *mm = suite_find("matmul")->def;
    const long M = 48, N = 40, K = 24;
    char desc[64];
    snprintf(desc, sizeof desc, "%ldx%ldx%ld", M, N, K);
    EXPECT(mm->parse(desc, &p, err, sizeof err) == 0, "parse %s: %s", desc, err);
    for (size_t t = 0; t < sizeof DTS / sizeof DTS[0]; t++) {
        p.dtype = DTS[t];
        double want = (double)(M * K + K * N + M * N) * (double)dtype_size(DTS[t]);
        EXPECT(problem_io_bytes(&p, DTS[t]) == want, "matmul %s: %g, want %g",
               dtype_name(DTS[t]), problem_io_bytes(&p, DTS[t]), want);
        EXPECT(problem_io_bytes(&p, DTS[t]) == layout_io(mm, &p), "matmul %s: layout %g",
               dtype_name(DTS[t]), layout_io(mm, &p));
    }

    /* conv mb2ic3ih7iw5oc4kh3kw2 (no padding, stride 1: P = 5, Q = 4) */
    const suite_def *cv = suite_find("conv")->def;
    const double n = 2, c = 3, h = 7, w = 5, k = 4, r = 3, s = 2, P = h - r + 1, Q = w - s + 1;
    const double x = n * c * h * w, wt = k * c * r * s, y = n * k * P * Q;
    EXPECT(cv->parse("mb2ic3ih7iw5oc4kh3kw2", &p, err, sizeof err) == 0, "parse: %s", err);
    int nd = cv->expand(&p, dirs, 8);
    EXPECT(nd == 3, "directions %d", nd);
    int seen = 0;
    for (int i = 0; i < nd; i++) {
        const char *d = dirs[i].direction;
        double want = strcmp(d, "fwd") == 0        ? x + wt + k + y   /* x, w, b -> y */
                      : strcmp(d, "bwd-data") == 0 ? y + wt + x       /* dy, w -> dx */
                                                   : x + y + wt + k;  /* x, dy -> dw, db */
        seen += strcmp(d, "fwd") == 0 || strcmp(d, "bwd-data") == 0 || strcmp(d, "bwd-filter") == 0;
        for (size_t t = 0; t < sizeof DTS / sizeof DTS[0]; t++) {
            dirs[i].dtype = DTS[t];
            double got = problem_io_bytes(&dirs[i], DTS[t]);
            EXPECT(got == want * (double)dtype_size(DTS[t]), "conv %s %s: %g, want %g", d,
                   dtype_name(DTS[t]), got, want * (double)dtype_size(DTS[t]));
            EXPECT(got == layout_io(cv, &dirs[i]), "conv %s %s: layout %g", d,
                   dtype_name(DTS[t]), layout_io(cv, &dirs[i]));
        }
    }
    EXPECT(seen == nd, "directions named %d of %d", seen, nd);

    /* a bandwidth suite: its own bytes; nothing counted: NAN */
    const suite_def *st = suite_find("stream")->def;
    EXPECT(st->parse("triad:1M", &p, err, sizeof err) == 0, "parse triad: %s", err);
    EXPECT(p.bytes > 0 && problem_io_bytes(&p, DTYPE_FP32) == p.bytes, "stream %g vs %g",
           problem_io_bytes(&p, DTYPE_FP32), p.bytes);
    memset(&p, 0, sizeof p);
    EXPECT(isnan(problem_io_bytes(&p, DTYPE_FP32)), "no work: %g", problem_io_bytes(&p, DTYPE_FP32));
    TEST_END();
}
