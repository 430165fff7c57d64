/* tests/report/findings_test.c - report/findings.c on a synthetic run with a
 * GPU: the machine and quiet lines from the context, the fastest backends
 * and the GPU ÷ best-CPU range per mode, a crossover sentence, the rows far
 * from their roof with their notes, the accuracy per dtype, skips one line
 * per reason (counted from the rows), within one screen; report.md opens
 * with it; plain text for stdout; an emulated run claims no speedup. */
#define _POSIX_C_SOURCE 200809L
#include "crossover.h"
#include "findings.h"
#include "fixture.h"
#include "report.h"
#include "csv.h"
#include "testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define QUIET "no: 1 of 9 timed rows stayed disturbed, 2 measured again"
#define ROOF "roof-bandwidth-cpu: 20 GB/s (triad)"
#define SKIP_NOTE "no usable GPU: no CUDA-capable device"
#define ECPU "powercap RAPL, the package (package-0): test"
#define EGPU "NVML energy counter of GPU NVIDIA H100 80GB HBM3 (test)"
static const char *const CTX[] = {"utc: 2026-01-02T03:04:05Z", "cpu: Test CPU", "cores: 2",
                                  "gpu: 0 NVIDIA H100 80GB HBM3", "quiet: " QUIET, ROOF,
                                  "energy-cpu: " ECPU, "energy-gpu: " EGPU};

static result_row rows[64];
static int n;

static void sq(const char *backend, const char *mode, const char *role, int N, double ms, double vs_cpu,
               const char *dtype, int emulated)
{
    char cs[32], shape[48];
    snprintf(cs, sizeof cs, "square-%d", N);
    snprintf(shape, sizeof shape, "%dx%dx%d", N, N, N);
    result_row r = mk("matmul", cs, backend, mode, shape, ms, "pass", emulated);
    snprintf(r.sweep, sizeof r.sweep, "square");
    r.sweep_x = N;
    snprintf(r.role, sizeof r.role, "%s", role);
    snprintf(r.dtype, sizeof r.dtype, "%s", dtype);
    r.speedup_vs_best_cpu = emulated ? NAN : vs_cpu;
    r.accuracy_lost = strcmp(dtype, "bf16") ? 1e-7 : (N == 256 ? 2.7e-3 : 1.1e-3);
    rows[n++] = r;
}

static void skip_row(const char *suite, const char *backend, const char *dtype)
{
    result_row r = mk(suite, "-", backend, "-", "-", 0, "skip", 0);
    snprintf(r.dtype, sizeof r.dtype, "%s", dtype);
    snprintf(r.note, sizeof r.note, "%s", SKIP_NOTE);
    rows[n++] = r;
}

static void build(int emulated)
{
    n = 0;
    sq("cpu-blas", "host", "library", 256, 1.0, NAN, "fp32", 0);
    sq("cpu-omp", "host", "ours", 256, 2.0, NAN, "fp32", 0);
    sq("cublas", "resident", "library", 256, 0.5, 2.0, "fp32", emulated);
    sq("cublas", "sync-pinned", "library", 256, 4.0, 0.25, "fp32", emulated);
    sq("cpu-blas", "host", "library", 1024, 64, NAN, "fp32", 0);
    sq("cpu-omp", "host", "ours", 1024, 80, NAN, "fp32", 0);
    sq("cublas", "resident", "library", 1024, 8, 8.0, "fp32", emulated);
    sq("cublas", "sync-pinned", "library", 1024, 32, 2.0, "fp32", emulated);
    sq("cublas", "resident", "library", 256, 0.2, 5.0, "bf16", emulated);
    sq("cublas", "resident", "library", 1024, 2, 32.0, "bf16", emulated);
    rows[0].gflops_per_w = 2;        /* cpu-blas 256: the CPU's most efficient row */
    rows[2].gflops_per_w = 1.5;
    if (!emulated) rows[6].gflops_per_w = 40; /* cublas resident 1024: the GPU's */
    rows[1].disturbed = 1;
    /* measured again beside a neighbour: cpu-blas twice (2x, 8x), cpu-omp once */
    rows[0].disturbed_x = 2.0;
    rows[4].disturbed_x = 8.0;
    rows[1].disturbed_x = 1.21;
    /* measured beside --neighbour busy: the worst of each backend and its case */
    rows[0].neighbour_x = 5.0;
    rows[4].neighbour_x = 1.25;
    rows[1].neighbour_x = 1.1;
    rows[5].neighbour_x = 1.3;
    snprintf(rows[1].verdict, sizeof rows[1].verdict, "low");
    snprintf(rows[1].bound, sizeof rows[1].bound, "bandwidth");
    rows[1].pct_roof = 4.5;
    /* two low rows of one kind of reason (their numbers differ), the first
     * after another part of its note; an above-roof row of another kind */
    snprintf(rows[1].note, sizeof rows[1].note, "high spread: MAD 5%% of median; low: 72.6 us a "
             "repetition, overhead-bound");
    snprintf(rows[5].verdict, sizeof rows[5].verdict, "low");
    snprintf(rows[5].bound, sizeof rows[5].bound, "compute");
    rows[5].pct_roof = 3.1;
    snprintf(rows[5].note, sizeof rows[5].note, "low: 1.37e+03 us a repetition, overhead-bound");
    snprintf(rows[4].verdict, sizeof rows[4].verdict, "above-roof");
    snprintf(rows[4].bound, sizeof rows[4].bound, "compute");
    rows[4].pct_roof = 180;
    snprintf(rows[4].note, sizeof rows[4].note, "above-roof: faster than the run's compute roof (100 "
             "GFLOP/s) yet within the paper peak (200 GFLOP/s)");
    skip_row("conv", "cuda-direct", "fp32");
    skip_row("conv", "cuda-im2col", "fp32");
    skip_row("conv", "cudnn", "fp32");
    skip_row("conv", "cudnn", "bf16");   /* one backend, two rows */
    skip_row("train", "cuda", "fp32");
    skip_row("train", "cuda-lib", "fp32");
    result_row f = mk("conv", "l1", "cpu-omp", "host", "mb1ic3ih8oc4kh3", 1, "fail", 0);
    rows[n++] = f;
}

static int write_ctx_run(const char *dir)
{
    char path[512];
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/results.csv", dir);
    unlink(path);
    csv_writer *w = csv_writer_open(path, CTX, (int)(sizeof CTX / sizeof CTX[0]));
    if (!w) return -1;
    for (int i = 0; i < n; i++) csv_write_row(w, &rows[i]);
    csv_write_context(w, "finished: rows");
    return csv_writer_close(w);
}

/* The findings of dir's run in style st, into a malloc'd string. */
static char *findings_of(const char *dir, findings_style st, rundata *rd)
{
    char err[512];
    if (rd_load(rd, dir, err, sizeof err)) {
        fprintf(stderr, "rd_load: %s\n", err);
        return NULL;
    }
    FILE *f = tmpfile();
    findings_write(rd, f, st);
    long len = ftell(f);
    rewind(f);
    char *s = calloc(1, (size_t)len + 1);
    if (s && fread(s, 1, (size_t)len, f) != (size_t)len) s[0] = '\0';
    fclose(f);
    return s;
}

static int count_lines(const char *s)
{
    int k = 0;
    for (; *s; s++) k += *s == '\n';
    return k;
}

int main(void)
{
    char dir[] = "/tmp/findings_test_XXXXXX";
    if (!mkdtemp(dir)) return 1;
    char want[512];
    rundata rd;

    build(0);
    EXPECT(write_ctx_run(dir) == 0, "write");
    char *md = findings_of(dir, FINDINGS_MD, &rd);
    EXPECT(md && strncmp(md, "## Findings\n\n- Machine: Test CPU (2 cores); GPU: 0 NVIDIA H100", 60) == 0,
           "opens with the machine: %.120s", md ? md : "");
    if (!md) TEST_END();
    EXPECT(count_lines(md) <= 40, "one screen: %d lines", count_lines(md));
    EXPECT(strstr(md, "- Quiet: " QUIET "\n"), "quiet line");
    EXPECT(strstr(md, "- Roofs: " ROOF "\n"), "roof context");
    /* energy per device kind: each its own source and its own best row */
    EXPECT(strstr(md, "- Energy (CPU): " ECPU "; most GFLOP per joule: 2 (matmul 256x256x256 cpu-blas)\n"),
           "CPU energy:\n%s", md);
    EXPECT(strstr(md, "- Energy (GPU): " EGPU "; most GFLOP per joule: 40 (matmul 1024x1024x1024 cublas)\n"),
           "GPU energy:\n%s", md);
    int disturbed = 0, fails = 0, skips = 0, mm = 0;
    for (int i = 0; i < n; i++) {
        disturbed += rows[i].disturbed;
        fails += !strcmp(rows[i].check, "fail");
        skips += !strcmp(rows[i].check, "skip");
        mm += !strcmp(rows[i].suite, "matmul");
    }
    snprintf(want, sizeof want, "- %d row stayed disturbed", disturbed);
    EXPECT(strstr(md, want), "%s", want);
    {   /* which backends lost speed: geometric means from the rows, slowest first */
        double lb = 0, lo = 0;
        int nb = 0, no = 0;
        for (int i = 0; i < n; i++) {
            if (!(rows[i].disturbed_x > 0)) continue;
            if (!strcmp(rows[i].backend, "cpu-blas")) lb += log(rows[i].disturbed_x), nb++;
            if (!strcmp(rows[i].backend, "cpu-omp")) lo += log(rows[i].disturbed_x), no++;
        }
        snprintf(want, sizeof want, "geometric mean per backend): cpu-blas %.2fx (%d rows), cpu-omp "
                 "%.2fx (%d row)\n", exp(lb / nb), nb, exp(lo / no), no);
        EXPECT(strstr(md, "- Beside another process (") && strstr(md, want), "want '%s' in:\n%s", want, md);
    }
    {   /* beside the busy loop: per backend the worst row (its case) and the
         * geometric mean, the worst backend first */
        int wb = -1, wo = -1, nb = 0, no = 0;
        double lb = 0, lo = 0;
        for (int i = 0; i < n; i++) {
            const double x = rows[i].neighbour_x;
            if (!(x > 0)) continue;
            if (!strcmp(rows[i].backend, "cpu-blas")) {
                lb += log(x), nb++;
                if (wb < 0 || x > rows[wb].neighbour_x) wb = i;
            } else if (!strcmp(rows[i].backend, "cpu-omp")) {
                lo += log(x), no++;
                if (wo < 0 || x > rows[wo].neighbour_x) wo = i;
            }
        }
        snprintf(want, sizeof want, "the geometric mean per backend): cpu-blas worst %.2fx (matmul %s), "
                 "%.2fx over %d rows; cpu-omp worst %.2fx (matmul %s), %.2fx over %d rows\n",
                 rows[wb].neighbour_x, rows[wb].shape, exp(lb / nb), nb, rows[wo].neighbour_x,
                 rows[wo].shape, exp(lo / no), no);
        EXPECT(strstr(md, "- Beside a nice -n 19 busy loop (--neighbour busy") && strstr(md, want),
               "want '%s' in:\n%s", want, md);
    }
    snprintf(want, sizeof want, "- Checks: %d passed, %d failed", n - fails - skips, fails);
    EXPECT(strstr(md, want), "%s", want);
    /* cpu-blas is faster than cpu-omp at both sizes; cublas the only GPU backend:
     * 4 problems (2 sizes x 2 dtypes), the CPU ran 2 */
    snprintf(want, sizeof want, "- matmul (%d rows); fastest CPU cpu-blas (2 of 2 problems); fastest GPU cublas (4 of 4)", mm);
    EXPECT(strstr(md, want), "want '%s' in:\n%s", want, md);
    /* the range per mode, from the rows' speedup_vs_best_cpu */
    EXPECT(strstr(md, "GPU ÷ best CPU by mode: resident 2–32× (best: cublas square-1024); sync-pinned 0.25–2× "
                      "(best: cublas square-1024)"), "speedups by mode:\n%s", md);
    crossover xo[16];
    int nx = crossovers_find(&rd, xo, 16);
    EXPECT(nx > 0, "the run has crossovers");
    for (int i = 0; i < nx && i < FINDINGS_MAX_XO; i++) {
        char s[512];
        crossover_sentence(&xo[i], s, sizeof s);
        snprintf(want, sizeof want, "- %s\n", s);
        EXPECT(strstr(md, want), "crossover line '%s'", s);
    }
    EXPECT(strstr(md, "- Far from the roof: 2 rows low, 1 above the roof; by reason (the verdict column "
                      "has every row):\n  - 2 rows (cpu-omp): low: 72.6 us a repetition, overhead-bound; "
                      "first: matmul 256x256x256 cpu-omp host fp32 at 4.5% of the bandwidth roof\n"
                      "  - 1 row (cpu-blas): above-roof: faster than the run's compute roof (100 GFLOP/s) "
                      "yet within the paper peak (200 GFLOP/s); first: matmul 1024x1024x1024 cpu-blas "
                      "host fp32 at 180% of the compute roof\n"), "rows far from the roof, by reason:\n%s", md);
    EXPECT(strstr(md, "- Accuracy given up in matmul (largest accuracy_lost): bf16 up to 0.0027 (cublas)"),
           "accuracy:\n%s", md);
    int backends = 0; /* distinct (suite, backend) among the skip rows */
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int j = 0; j < i; j++)
            seen |= !strcmp(rows[j].check, "skip") && !strcmp(rows[j].suite, rows[i].suite) &&
                    !strcmp(rows[j].backend, rows[i].backend);
        backends += !strcmp(rows[i].check, "skip") && !seen;
    }
    snprintf(want, sizeof want, "- %d GPU backends skipped (%d rows; conv, train): " SKIP_NOTE "\n", backends,
             skips);
    EXPECT(strstr(md, want), "want '%s'", want);
    rd_free(&rd);

    /* stdout's plain text: the same lines, no markup */
    char *txt = findings_of(dir, FINDINGS_TEXT, &rd);
    EXPECT(txt && !strstr(txt, "##") && !strstr(txt, "\n- ") && strstr(txt, "  Quiet: " QUIET "\n"),
           "plain text:\n%s", txt ? txt : "");
    EXPECT(txt && count_lines(txt) == count_lines(md) - 3, "text %d lines, md %d (header, blank, blank)",
           txt ? count_lines(txt) : -1, count_lines(md));
    free(txt);
    rd_free(&rd);

    /* report.md opens with the findings */
    report_outcome out;
    EXPECT(report_rerender(dir, NULL, 0, &out) == 0, "rerender");
    char path[600];
    snprintf(path, sizeof path, "%s/report.md", dir);
    char *rep = slurp(path);
    const char *h2 = rep ? strstr(rep, "\n## ") : NULL;
    EXPECT(h2 && strncmp(h2, "\n## Findings\n", 13) == 0, "report.md's first section: %.40s", h2 ? h2 : "");
    free(rep);
    free(md);

    /* more kinds of reason than the findings name: the rest counted */
    build(0);
    for (int k = 0; k <= FINDINGS_MAX_ROOF; k++) {   /* rows 0-3 and 5-9: 9 lows */
        result_row *r = &rows[k < 4 ? k : k + 1];   /* rows[4] is above-roof already */
        snprintf(r->verdict, sizeof r->verdict, "low");
        snprintf(r->note, sizeof r->note, "low: reason %c", 'A' + k);
    }
    EXPECT(write_ctx_run(dir) == 0, "write");
    md = findings_of(dir, FINDINGS_MD, &rd);
    snprintf(want, sizeof want, "  - 2 more reasons: the notes");   /* FINDINGS_MAX_ROOF + 1 lows and the above */
    EXPECT(md && strstr(md, want) && strstr(md, "(cpu-blas): low: reason A;"), "capped:\n%s", md ? md : "");
    free(md);
    rd_free(&rd);

    /* emulated GPU rows: no speedup, no crossover of the GPU */
    build(1);
    EXPECT(write_ctx_run(dir) == 0, "write");
    md = findings_of(dir, FINDINGS_MD, &rd);
    EXPECT(md && !strstr(md, "GPU ÷ best CPU") && strstr(md, "GPU rows emulated") &&
               !strstr(md, "cublas resident overtakes") && !strstr(md, "the best CPU ("),
           "emulated:\n%s", md ? md : "");
    free(md);
    rd_free(&rd);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    if (system(cmd)) fprintf(stderr, "could not remove %s\n", dir);
    TEST_END();
}
