/* tests/report/crossover_test.c - report/crossover.c on a synthetic run with
 * a real GPU: matmul squares (x = N) with CPU rows (cpu-blas library,
 * cpu-omp ours, cpu-naive reference) and GPU rows (cuda-tiled in two
 * modes, cuda-naive, cublas), times chosen so that each kind shows:
 * an interpolated crossover (GPU over the best CPU, ours over the library),
 * "every size", "never", "only below"; a single-size sweep (stream) claims
 * nothing; emulated GPU rows (matmul bf16) give none; a row without a sweep
 * (a named GEMM) is on no curve. Also xo_interpolate and the sentences. */
#define _POSIX_C_SOURCE 200809L
#include "crossover.h"
#include "fixture.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NX 5
static const double X[NX] = {64, 256, 512, 1024, 2048};

/* A curve: backend, mode, role, ms per X (0: not measured there). */
typedef struct curve {
    const char *backend, *mode, *role;
    double ms[NX];
} curve;

static const curve CURVES[] = {
    {"cpu-blas", "host", "library", {0.01, 0.5, 4, 32, 256}},
    {"cpu-omp", "host", "ours", {0.02, 0.6, 3, 20, 200}},
    {"cpu-naive", "host", "reference", {0.5, 30, 250, 2000, 0}},
    /* vs the best CPU (blas, blas, omp, omp, omp = .01 .5 3 20 200):
     * .1 .5 - 2 10: crosses between 256 and 1024 at 512 (log midpoint) */
    {"cuda-tiled", "resident", "ours", {0.1, 1.0, 0, 10, 20}},
    {"cuda-tiled", "sync-pinned", "ours", {1, 10, 0, 40, 300}},      /* never */
    {"cublas", "resident", "library", {0.005, 0.1, 0, 1, 5}},       /* every size */
    /* 10 2 - .5 .5: faster only below 512 */
    {"cuda-naive", "resident", "ours", {0.001, 0.25, 0, 40, 400}},
};
#define NCURVES ((int)(sizeof CURVES / sizeof CURVES[0]))

static result_row row_at(const char *suite, const char *sweep, double x, const char *backend,
                         const char *mode, const char *role, double ms, int emulated)
{
    char shape[64], cs[64];
    snprintf(shape, sizeof shape, "%.0fx%.0fx%.0f", x, x, x);
    snprintf(cs, sizeof cs, "square-%.0f", x);
    result_row r = mk(suite, cs, backend, mode, shape, ms, "pass", emulated);
    snprintf(r.sweep, sizeof r.sweep, "%s", sweep);
    r.sweep_x = x;
    snprintf(r.role, sizeof r.role, "%s", role);
    return r;
}

static const crossover *find(const crossover *xo, int n, const char *who, const char *mode,
                             int vs_library, const char *dtype)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(xo[i].who, who) && !strcmp(xo[i].mode, mode) && xo[i].vs_library == vs_library &&
            !strcmp(xo[i].dtype, dtype))
            return &xo[i];
    return NULL;
}

static int near(double a, double b) { return fabs(a - b) <= 1e-9 * fabs(b); }

/* How many pairs the data holds: each GPU curve with two sizes a CPU row
 * also measured, each `ours` curve with two sizes a library of its device
 * and mode measured. */
static int expected_pairs(void)
{
    int n = 0;
    for (int c = 0; c < NCURVES; c++) {
        const int gpu = strncmp(CURVES[c].backend, "cpu-", 4) != 0;
        int vs_cpu = 0, vs_lib = 0;
        for (int k = 0; k < NX; k++) {
            if (!(CURVES[c].ms[k] > 0)) continue;
            int cpu = 0, lib = 0;
            for (int m = 0; m < NCURVES; m++) {
                if (!(CURVES[m].ms[k] > 0)) continue;
                const int mgpu = strncmp(CURVES[m].backend, "cpu-", 4) != 0;
                cpu |= !mgpu;
                lib |= !strcmp(CURVES[m].role, "library") && mgpu == gpu &&
                       !strcmp(CURVES[m].mode, CURVES[c].mode);
            }
            vs_cpu += cpu;
            vs_lib += lib;
        }
        n += gpu && vs_cpu >= 2;
        n += !strcmp(CURVES[c].role, "ours") && vs_lib >= 2;
    }
    return n;
}

int main(void)
{
    char dir[] = "/tmp/xo_test_XXXXXX";
    if (!mkdtemp(dir)) return 1;
    result_row rows[128];
    int n = 0;
    for (int c = 0; c < NCURVES; c++)
        for (int k = 0; k < NX; k++)
            if (CURVES[c].ms[k] > 0)
                rows[n++] = row_at("matmul", "square", X[k], CURVES[c].backend, CURVES[c].mode,
                                   CURVES[c].role, CURVES[c].ms[k], 0);
    /* bf16: CPU rows and emulated GPU rows at two sizes: no crossover */
    for (int k = 0; k < 2; k++) {
        result_row r = row_at("matmul", "square", X[k], "cpu-omp", "host", "ours", 1, 0);
        snprintf(r.dtype, sizeof r.dtype, "bf16");
        rows[n++] = r;
        r = row_at("matmul", "square", X[k], "cublas", "resident", "library", 0.001, 1);
        snprintf(r.dtype, sizeof r.dtype, "bf16");
        rows[n++] = r;
    }
    /* a sweep measured at one size: nothing claimed */
    rows[n++] = row_at("stream", "triad", 1 << 20, "cpu-omp", "host", "ours", 1, 0);
    rows[n++] = row_at("stream", "triad", 1 << 20, "cuda-stream", "resident", "ours", 0.1, 0);
    /* a named GEMM: no sweep, on no curve */
    rows[n++] = mk("matmul", "mlp-fc1", "cuda-tiled", "resident", "256x512x784", 0.01, "pass", 0);
    EXPECT(write_run(dir, rows, n) == 0, "write_run");

    rundata rd;
    char err[512];
    EXPECT(rd_load(&rd, dir, err, sizeof err) == 0, "rd_load: %s", err);
    crossover xo[64];
    int nx = crossovers_find(&rd, xo, 64);
    EXPECT(nx == expected_pairs(), "%d pairs, expected %d", nx, expected_pairs());

    /* interpolation on log axes: ratio 1/2 at 256 and 2 at 1024 cross at 512 */
    EXPECT(near(xo_interpolate(256, 0.5, 1024, 2), 512), "%g", xo_interpolate(256, 0.5, 1024, 2));
    EXPECT(near(xo_interpolate(100, 1, 1000, 3), 100), "a ratio of 1 crosses there");

    const crossover *c = find(xo, nx, "cuda-tiled", "resident", 0, "fp32");
    EXPECT(c && c->kind == XO_FROM && near(c->x, 512) && c->x_lo == 256 && c->x_hi == 1024,
           "cuda-tiled resident: kind %d x %g", c ? (int)c->kind : -1, c ? c->x : NAN);
    EXPECT(c && !strcmp(c->against, "cpu-omp"), "the best CPU where it overtakes: %s",
           c ? c->against : "-");
    c = find(xo, nx, "cuda-tiled", "sync-pinned", 0, "fp32");
    EXPECT(c && c->kind == XO_NEVER && c->npoints == 4 && c->x_lo == 64 && c->x_hi == 2048,
           "sync-pinned never");
    c = find(xo, nx, "cublas", "resident", 0, "fp32");
    EXPECT(c && c->kind == XO_EVERY, "cublas every size");
    c = find(xo, nx, "cuda-naive", "resident", 0, "fp32");
    EXPECT(c && c->kind == XO_BELOW && near(c->x, 512), "cuda-naive only below 512: %g",
           c ? c->x : NAN);
    /* ours vs the library of the same device */
    c = find(xo, nx, "cpu-omp", "host", 1, "fp32");
    const double omp_x = 256 * pow(2, log(0.5 / 0.6) / (log(0.5 / 0.6) - log(4.0 / 3)));
    EXPECT(c && c->kind == XO_FROM && near(c->x, omp_x) && !strcmp(c->against, "cpu-blas"),
           "cpu-omp over cpu-blas at %g, got %g", omp_x, c ? c->x : NAN);
    c = find(xo, nx, "cuda-tiled", "resident", 1, "fp32");
    EXPECT(c && c->kind == XO_NEVER && !strcmp(c->against, "cublas"), "cuda-tiled never beats cublas");
    EXPECT(!find(xo, nx, "cuda-tiled", "sync-pinned", 1, "fp32"), "no library row in sync-pinned");
    EXPECT(!find(xo, nx, "cpu-naive", "host", 1, "fp32"), "the reference is no challenger");
    EXPECT(!find(xo, nx, "cublas", "resident", 0, "bf16"), "emulated rows: no crossover");
    EXPECT(!find(xo, nx, "cuda-stream", "resident", 0, "fp32"), "one size: no crossover");

    char s[512];
    c = find(xo, nx, "cuda-tiled", "resident", 0, "fp32");
    if (c) {
        crossover_sentence(c, s, sizeof s);
        EXPECT(strstr(s, "overtakes the best CPU (cpu-omp) at square ≈ 512 (between 256 and 1024)"), "%s", s);
    }
    c = find(xo, nx, "cublas", "resident", 0, "fp32");
    if (c) {
        crossover_sentence(c, s, sizeof s);
        EXPECT(strstr(s, "at every size measured (64 to 2048, 4 sizes)"), "%s", s);
    }
    c = find(xo, nx, "cuda-tiled", "sync-pinned", 0, "fp32");
    if (c) {
        crossover_sentence(c, s, sizeof s);
        EXPECT(strstr(s, "never beats the best CPU"), "%s", s);
    }
    rd_free(&rd);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) fprintf(stderr, "could not remove %s\n", dir);
    TEST_END();
}
