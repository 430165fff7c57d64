/* tests/cpu/conv_omp_routes_test.c - the test of cpu/conv_omp_routes.c: every
 * row of cpu-omp's convolution route tables, forced through
 * BENCH_CPU_CONV_ROUTE on each problem of the case list (argv[1],
 * tests/cases/conv_routes.txt) it applies to, at each dtype it runs, with
 * bf16 on the CPU's own GEMM path and on vdpbf16ps (BENCH_CPU_LOWP_PATH=
 * avx512-bf16, so a CPU with AMX tests the routes built on vdpbf16ps too):
 *  - the pick is the forced row, the row's note names it, the result agrees
 *    with the double reference (conv_ref_check, the dtype's tolerance);
 *  - the scratch the run asked for (gemm_scratch_asked, every slot but the
 *    GEMM's own) is within the row's estimate, and the memory estimate the
 *    suite uses (conv_cpu_omp_scratch_bytes) is that row's: one table;
 *  - a row no problem of the list reaches fails (add a problem for it);
 *  - unforced, each problem runs the first row that applies, and says so;
 *  - a forced row that does not apply fails the call naming it; an unknown
 *    name is refused by conv_cpu_omp_check_env.
 * With `--lacking` it instead lists the rows this CPU lacks the features for
 * and exits 77 (CTest: skipped, with the reasons) when there are any. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"
#include "conv/conv.h"
#include "conv/conv_ref.h"
#include "conv_cpu.h"
#include "conv_omp_routes.h"
#include "errmsg.h"
#include "gemm_cpu.h"
#include "gemm_omp_impl.h"
#include "registry.h"
#include "testutil.h"

#include <stdlib.h>
#include <string.h>

#define MAX_CASES 64

static char cases[MAX_CASES][96];
static int ncases;

static void read_cases(const char *path)
{
    FILE *f = fopen(path, "r");
    EXPECT(f != NULL, "cannot open the case list %s", path);
    if (!f) return;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        char *h = strchr(line, '#');
        if (h) *h = '\0';
        char word[96];
        if (sscanf(line, "%95s", word) != 1) continue;
        EXPECT(ncases < MAX_CASES, "more than %d cases", MAX_CASES);
        if (ncases < MAX_CASES) strcpy(cases[ncases++], word);
    }
    fclose(f);
    EXPECT(ncases > 0, "no case in %s", path);
}

/* One problem at one dtype: the inputs rounded to dt (as floats for the
 * reference, and typed for the run), the typed outputs, the reference. */
typedef struct {
    problem p;
    conv_dims d;
    case_layout l;
    void *f[LAYOUT_MAX_BUFS];  /* floats, inputs rounded to dt */
    void *t[LAYOUT_MAX_BUFS];  /* typed copies (fp32: the floats themselves) */
    int nin, nout;
    conv_ref ref;
} prob;

static int prob_open(prob *b, const char *desc, conv_dir dir, dtype_t dt)
{
    char s[128], err[256];
    snprintf(s, sizeof s, "%s:%s", conv_dir_name(dir), desc);
    memset(b, 0, sizeof *b);
    int rc = SUITE_CONV.parse(s, &b->p, err, sizeof err);
    EXPECT(rc == 0, "parse %s: %s", s, err);
    if (rc) return -1;
    b->p.dtype = DTYPE_FP32;
    b->d = conv_problem_dims(&b->p);
    SUITE_CONV.layout(&b->p, &b->l);
    b->nin = dir == CONV_FWD ? 3 : 2;
    b->nout = dir == CONV_BWD_FILTER ? 2 : 1;
    for (int i = 0; i < b->l.nbufs; i++) b->f[i] = malloc(b->l.buf[i].bytes + 64);
    SUITE_CONV.fill(&b->p, 0, b->f);
    for (int i = 0; i < b->l.nbufs; i++) {
        const size_t n = b->l.buf[i].bytes / 4;
        b->t[i] = dt == DTYPE_FP32 ? b->f[i] : malloc(2 * n + 64);
        if (dt == DTYPE_FP32 || i >= b->nin) continue;
        for (size_t e = 0; e < n; e++) {
            dtype_set(dt, b->t[i], e, ((float *)b->f[i])[e]);
            ((float *)b->f[i])[e] = dtype_get(dt, b->t[i], e);
        }
    }
    const float *in[3] = {b->f[0], b->f[1], dir == CONV_FWD ? b->f[2] : NULL};
    EXPECT(conv_ref_build(&b->ref, &b->d, dir, in, 0) == 0, "reference of %s", s);
    return 0;
}

static void prob_close(prob *b, dtype_t dt)
{
    conv_ref_free(&b->ref);
    for (int i = 0; i < b->l.nbufs; i++) {
        if (dt != DTYPE_FP32) free(b->t[i]);
        free(b->f[i]);
    }
}

/* Runs cpu-omp's entry of dir on b (outputs poisoned first); checks the
 * result. Returns the entry's status; *pass whether the result agreed. */
static int run_checked(prob *b, conv_dir dir, dtype_t dt, int *pass, char *why, size_t cap)
{
    const conv_ops *o = &CONV_OPS_CPU_OMP;
    for (int i = b->nin; i < b->nin + b->nout; i++) {
        const size_t n = b->l.buf[i].bytes / 4;
        if (dt == DTYPE_FP32) check_poison(b->t[i], n);
        else memset(b->t[i], 0xFF, 2 * n); /* 16-bit NaNs */
    }
    void *const *t = b->t;
    int rc;
    err_clear();
    case_note_clear();
    if (dt == DTYPE_FP32)
        rc = dir == CONV_FWD        ? o->fwd(&b->d, t[0], t[1], t[2], t[3], NULL, NULL)
             : dir == CONV_BWD_DATA ? o->bwd_data(&b->d, t[0], t[1], t[2], NULL, NULL)
                                    : o->bwd_filter(&b->d, t[0], t[1], t[2], t[3], NULL, NULL);
    else
        rc = dir == CONV_FWD        ? o->fwd_dt(dt, &b->d, t[0], t[1], t[2], t[3], NULL, NULL)
             : dir == CONV_BWD_DATA ? o->bwd_data_dt(dt, &b->d, t[0], t[1], t[2], NULL, NULL)
                                    : o->bwd_filter_dt(dt, &b->d, t[0], t[1], t[2], t[3], NULL, NULL);
    *pass = 0;
    if (rc) return rc;
    const void *out[2] = {t[b->nin], b->nout > 1 ? t[b->nin + 1] : NULL};
    *pass = conv_ref_check(&b->ref, out, dt, dt, why, cap).pass;
    return 0;
}

/* The scratch the last run asked for, every slot but the GEMM's own. */
static double asked_bytes(void)
{
    double s = 0;
    for (int k = 0; k < SCRATCH_SLOTS; k++)
        if (k != SCRATCH_PANELS && k != SCRATCH_GEMV) s += gemm_scratch_asked((scratch_slot)k);
    return s;
}

static const dtype_t DTS[] = {DTYPE_FP32, DTYPE_BF16, DTYPE_FP16};
static const char *const LOWP_PATHS[] = {NULL, "avx512-bf16"};

/* The row whose CPU needs r stands for (its own, or its `via` row's). */
static const conv_route *body_of(const conv_route *r) { return r->via ? r->via : r; }

/* Every row forced on every case it applies to. */
static void forced_rows(void)
{
    for (int dir = 0; dir < CONV_NDIRS; dir++) {
        int n;
        const conv_route *const *tab = conv_routes((conv_dir)dir, &n);
        for (int i = 0; i < n; i++) {
            const conv_route *r = tab[i];
            for (int j = 0; j < i; j++)
                EXPECT(strcmp(tab[j]->name, r->name) != 0, "%s: two rows named %s",
                       conv_dir_name((conv_dir)dir), r->name);
            const conv_route *b = body_of(r);
            for (int di = 0; di < 3; di++) {
                const dtype_t dt = DTS[di];
                if (!(b->dtypes & DTYPE_BIT(dt))) continue;
                int reached = 0, lacking = 0;
                for (int lp = 0; lp < (dt == DTYPE_BF16 ? 2 : 1); lp++) {
                    if (LOWP_PATHS[lp]) setenv("BENCH_CPU_LOWP_PATH", LOWP_PATHS[lp], 1);
                    else unsetenv("BENCH_CPU_LOWP_PATH");
                    if (b->lacks && b->lacks()) {
                        lacking++;
                        continue;
                    }
                    setenv("BENCH_CPU_CONV_ROUTE", r->name, 1);
                    for (int c = 0; c < ncases; c++) {
                        prob pb;
                        if (prob_open(&pb, cases[c], (conv_dir)dir, dt)) continue;
                        if (conv_route_applies(r, dt, &pb.d, (conv_dir)dir)) {
                            char want[256], why[256] = "";
                            reached++;
                            conv_route_note(r, dt, want, sizeof want);
                            EXPECT(conv_route_pick(dt, &pb.d, (conv_dir)dir) == r,
                                   "%s forced: not picked for %s", r->name, pb.p.desc);
                            const double est = conv_cpu_omp_scratch_bytes(dt, &pb.d, (conv_dir)dir);
                            EXPECT(est == conv_route_scratch(r, dt, &pb.d, (conv_dir)dir),
                                   "%s %s: the memory estimate is not the row's", r->name,
                                   pb.p.desc);
                            gemm_scratch_asked_reset();
                            int pass;
                            const int rc = run_checked(&pb, (conv_dir)dir, dt, &pass, why, sizeof why);
                            const double asked = asked_bytes();
                            EXPECT(rc == 0, "%s %s %s: returned %d: %s", r->name, dtype_name(dt),
                                   pb.p.desc, rc, err_get());
                            EXPECT(rc || pass, "%s %s %s%s%s: wrong result: %s", r->name,
                                   dtype_name(dt), pb.p.desc, lp ? " lowp path " : "",
                                   lp ? LOWP_PATHS[lp] : "", why);
                            EXPECT(strcmp(case_note_get(), want) == 0, "%s %s: note '%s', want '%s'",
                                   r->name, pb.p.desc, case_note_get(), want);
                            EXPECT(asked <= est, "%s %s %s: asked %.0f bytes of scratch, estimated %.0f",
                                   r->name, dtype_name(dt), pb.p.desc, asked, est);
                        }
                        prob_close(&pb, dt);
                    }
                    unsetenv("BENCH_CPU_CONV_ROUTE");
                }
                unsetenv("BENCH_CPU_LOWP_PATH");
                EXPECT(reached || lacking, "%s %s at %s: no problem of the case list reaches it",
                       conv_dir_name((conv_dir)dir), r->name, dtype_name(dt));
                printf("%-10s %-22s %-4s forced on %d problem(s)%s\n", conv_dir_name((conv_dir)dir),
                       r->name, dtype_name(dt), reached, lacking ? " (a GEMM path lacks it)" : "");
            }
        }
    }
}

/* Unforced: the first row that applies runs, and the note and the estimate
 * are that row's. */
static void first_row_wins(void)
{
    unsetenv("BENCH_CPU_CONV_ROUTE");
    for (int dir = 0; dir < CONV_NDIRS; dir++)
        for (int di = 0; di < 3; di++)
            for (int c = 0; c < ncases; c++) {
                const dtype_t dt = DTS[di];
                prob pb;
                if (prob_open(&pb, cases[c], (conv_dir)dir, dt)) continue;
                int n;
                const conv_route *const *tab = conv_routes((conv_dir)dir, &n), *first = NULL;
                for (int i = 0; i < n && !first; i++)
                    if (conv_route_applies(tab[i], dt, &pb.d, (conv_dir)dir)) first = tab[i];
                EXPECT(first != NULL, "no row runs %s at %s", pb.p.desc, dtype_name(dt));
                if (first) {
                    char want[256], why[256] = "";
                    conv_route_note(first, dt, want, sizeof want);
                    EXPECT(conv_cpu_omp_scratch_bytes(dt, &pb.d, (conv_dir)dir) ==
                               conv_route_scratch(first, dt, &pb.d, (conv_dir)dir),
                           "%s: the estimate is not the first row's", pb.p.desc);
                    int pass;
                    EXPECT(run_checked(&pb, (conv_dir)dir, dt, &pass, why, sizeof why) == 0 && pass,
                           "%s %s: %s %s", pb.p.desc, dtype_name(dt), err_get(), why);
                    EXPECT(strcmp(case_note_get(), want) == 0, "%s: note '%s', want '%s'",
                           pb.p.desc, case_note_get(), want);
                }
                prob_close(&pb, dt);
            }
}

/* A forced row that does not apply fails the call naming it; an unknown
 * name is refused before any work. */
static void refusals(void)
{
    prob pb;
    char err[1024];
    if (prob_open(&pb, "mb2ic8ih34oc12kh3sh2ph1", CONV_FWD, DTYPE_FP32) == 0) {
        setenv("BENCH_CPU_CONV_ROUTE", "direct", 1); /* stride 2: never direct */
        int pass;
        char why[256];
        EXPECT(run_checked(&pb, CONV_FWD, DTYPE_FP32, &pass, why, sizeof why) != 0,
               "a forced route that does not apply ran");
        EXPECT(strstr(err_get(), "BENCH_CPU_CONV_ROUTE=direct does not apply") != NULL,
               "refusal names the route: %s", err_get());
        EXPECT(conv_cpu_omp_check_env(err, sizeof err) == 0, "a known name refused: %s", err);
        setenv("BENCH_CPU_CONV_ROUTE", "fastest", 1);
        EXPECT(conv_cpu_omp_check_env(err, sizeof err) == 2 && strstr(err, "=fastest") &&
                   strstr(err, "im2col"),
               "an unknown name: %s", err);
        unsetenv("BENCH_CPU_CONV_ROUTE");
        prob_close(&pb, DTYPE_FP32);
    }
}

/* --lacking: the rows this CPU cannot run, and why; 77 when any. */
static int lacking(void)
{
    int nl = 0;
    for (int dir = 0; dir < CONV_NDIRS; dir++) {
        int n;
        const conv_route *const *tab = conv_routes((conv_dir)dir, &n);
        for (int i = 0; i < n; i++) {
            const conv_route *b = body_of(tab[i]);
            int can = 0;
            const char *why = NULL;
            for (int lp = 0; lp < 2; lp++) {
                if (LOWP_PATHS[lp]) setenv("BENCH_CPU_LOWP_PATH", LOWP_PATHS[lp], 1);
                else unsetenv("BENCH_CPU_LOWP_PATH");
                const char *w = b->lacks ? b->lacks() : NULL;
                if (!w) can = 1;
                else why = w;
            }
            unsetenv("BENCH_CPU_LOWP_PATH");
            if (!can) {
                printf("skipped: %s %s: %s\n", conv_dir_name((conv_dir)dir), tab[i]->name, why);
                nl++;
            }
        }
    }
    if (!nl) printf("this CPU runs every route\n");
    return nl ? 77 : 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--lacking") == 0) return lacking();
    EXPECT(argc > 1, "usage: %s CASE-LIST | --lacking", argv[0]);
    if (argc < 2) TEST_END();
    cpu_threads_set(2);
    read_cases(argv[1]);
    forced_rows();
    first_row_wins();
    refusals();
    TEST_END();
}
