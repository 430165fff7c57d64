/* tests/suites/conv/conv_test.c - the conv suite's host half:
 *  - every CPU conv backend of the registry, every direction, 1 and 2
 *    threads, against the double reference at awkward shapes (1x1 filters,
 *    stride 2 and 3, padding up to the filter size - 1, odd and non-square
 *    sizes, C = 1, K = 1, N = 1, filters narrower than the stride);
 *  - cpu-omp's bf16 / fp16 entries (fwd_dt, bwd_data_dt, bwd_filter_dt) and
 *    cpu-naive's (the reference pattern), every shape and direction, 1 and 2
 *    threads, against the double reference over the 16-bit inputs, element
 *    by element within half an ulp of the dtype plus fp32 accumulation
 *    (a result rounded twice fails);
 *  - the sampled reference passes a right answer and fails an error in one
 *    padding-border element (and a kernel that pads with the edge values
 *    instead of zeros), in every direction, full and sampled;
 *  - descriptors: defaults deduced, canonical round trip, names kept,
 *    expansion into three directions, bad fields named (rc 2), other
 *    suites' strings left alone (rc -1); layouts and chunks per conv.h. */
#include "check.h"
#include "conv/conv.h"
#include "conv/conv_ref.h"
#include "conv_cpu.h"
#include "gemm_cpu.h"
#include "registry.h"
#include "errmsg.h"
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Thread counts each case runs at: 1 and 2; under AddressSanitizer 2 alone
 * (the threaded path; the Release phase of ci/test runs both, and a
 * sanitized run of every case at one thread too was a third of its time). */
#if defined(__SANITIZE_ADDRESS__)
#define THREADS_FROM 2
#else
#define THREADS_FROM 1
#endif
#define NTHREADS (3 - THREADS_FROM)

static const char *const SHAPES[] = {
    "mb1ic1ih1oc1kh1",              /* everything 1 */
    "mb2ic3ih7iw5oc4kh3kw2",        /* non-square input and filter, no padding */
    "mb3ic5ih9oc7kh1sh2",           /* 1x1 stride 2 */
    "mb2ic4ih11iw13oc5kh3sh2ph1",   /* stride 2, padding, odd sizes */
    "mb1ic2ih6oc3kh5ph4",           /* padding = filter - 1 */
    "mb2ic1ih8oc1kh3ph1",           /* C = 1, K = 1 */
    "mb1ic16ih10oc33kh3sh3sw2ph2pw1", /* strides and paddings differ per axis */
    "mb2ic64ih6oc64kh1",            /* pointwise: the image is its own column matrix */
    "mb4ic8ih15oc12kh7sh2ph3",      /* ResNet conv1 in small */
    "mb1ic2ih5oc2kh2sh3",           /* filter narrower than the stride: dx has gaps */
    "mb1ic2ih6oc2kh1sh2",           /* unused last input row */
    "mb3ic20ih17oc40kh3ph1",        /* several column blocks */
    /* cpu-omp's direct path (stride 1, small C*R*S: conv_omp_direct.c) */
    "mb3ic3ih28oc16kh3ph1",         /* the cnn model's conv1 in small */
    "mb5ic16ih14oc32kh3ph1",        /* its conv2: bwd-filter's last item short */
    "mb2ic7ih33iw35oc13kh3ph1",     /* 3 vectors a row, 3-lane tail; K = 13 */
    "mb17ic2ih16oc5kh3ph1",         /* Q = 16 exactly; many items */
    "mb2ic5ih9oc27kh5ph2",          /* 5x5, 3 channel tiles of 9 */
    "mb2ic3ih6iw9oc6kh2kw3ph1pw2",  /* padding = filter - 1 on one axis only */
    "mb2ic64ih9oc20kh3ph1",         /* C*R*S = 576, the fwd limit */
    "mb3ic5ih6oc7kh1sh1",           /* 1x1 stride 1: im2col fwd, direct bwd-filter */
    /* cpu-omp's image groups (P*Q < 256: conv_omp_group.c), two groups each */
    "mb40ic8ih9oc20kh3sh2ph1",      /* fwd and bwd-filter grouped (stride 2) */
    "mb20ic72ih6oc80kh3ph1",        /* fwd, and bwd-data as a forward pass, grouped
                                       (fp32: 3x3 regions split, padded taps skipped;
                                       bf16: tap regions, fwd 16-row tile, bwd-data 12) */
    "mb70ic8ih9oc20kh3sh2ph1",      /* bf16/fp16 bwd-filter's longer groups: two of 35 */
    "mb11ic72ih5iw8oc80kh3ph1",     /* fp32 3x3 pad 1 regions (merged), P != Q */
    "mb5ic72ih3oc80kh3ph1",         /* 3x3 output: one-pixel interior */
    "mb6ic136ih5iw6oc40kh3ph1",     /* bwd-filter past the direct limit: its regions */
    "mb2ic261ih4oc263kh3ph1",       /* fp32 regions merged (few images): channel blocks
                                       131+130 (bwd-data 132+131) */
    "mb20ic261ih3oc24kh3ph1",       /* fp32 regions split, channel blocks 131+130 */
    /* P*Q >= 256: cpu-omp's per-image column blocks (conv_omp.c), and at
       fp32 stride 1 its in-place route (conv_omp_pw32.c) */
    "mb2ic65ih16oc11kh3ph1",        /* fp32 in place fwd: a 12-row panel, 11 filled */
    "mb1ic65ih16iw17oc8kh3ph1",     /* fp32 in place fwd: 8-row panels, W != H */
    "mb1ic4ih16oc65kh3ph1",         /* fp32 in place bwd-data (flipped: 65 channels) */
    "mb1ic3ih35iw47oc8kh7sh2ph3",   /* fp32 in place at stride 2 (phase planes), 7x7 */
    /* bf16 bwd-data at stride 2 by dx's phases (conv_omp_igemm_phase.c) */
    "mb4ic16ih13iw70oc12kh3sh2ph1", /* odd H; rows of 35 phase columns (two chunks) */
    "mb4ic17ih9iw12oc5kh2sh2",      /* one tap a phase; 17 channels, odd K */
    "mb4ic20ih12oc7kh1sh2",         /* three phases without a tap: zeros */
    "mb4ic16ih11iw9oc6kh3sh2sw1ph1pw1", /* stride 2 down, 1 across: two phases */
    "mb2ic8ih34oc12kh3sh2ph1",      /* stride 2: fwd, bwd-filter; col2im bwd-data */
    "mb2ic16ih17oc24kh1",           /* pointwise: the image read in place */
    "mb2ic4ih34oc40kh1sh2",         /* bwd-filter K > C*R*S: dw = dy . col^T */
    "mb2ic128ih17oc160kh1",         /* pointwise, K > C: dw = dy . x^T, x in place */
};
#define NSHAPES ((int)(sizeof SHAPES / sizeof SHAPES[0]))

typedef struct bufs {
    problem p;
    conv_dims d;
    case_layout l;
    void *h[LAYOUT_MAX_BUFS];
} bufs;

static int bufs_open(bufs *b, const char *desc, int dir)
{
    char s[96], err[256];
    static const char *const NAMES[] = {"fwd", "bwd-data", "bwd-filter"};
    snprintf(s, sizeof s, "%s:%s", NAMES[dir], desc);
    memset(b, 0, sizeof *b);
    int rc = SUITE_CONV.parse(s, &b->p, err, sizeof err);
    EXPECT(rc == 0, "parse %s: rc %d %s", s, rc, err);
    if (rc) return -1;
    b->d = conv_problem_dims(&b->p);
    SUITE_CONV.layout(&b->p, &b->l);
    for (int i = 0; i < b->l.nbufs; i++) b->h[i] = malloc(b->l.buf[i].bytes + 4);
    SUITE_CONV.fill(&b->p, 0, b->h);
    return 0;
}

static void bufs_close(bufs *b)
{
    for (int i = 0; i < b->l.nbufs; i++) free(b->h[i]);
}

static void poison(bufs *b)
{
    for (int i = 0; i < b->l.nbufs; i++)
        if (b->l.buf[i].role == ROLE_OUT) check_poison(b->h[i], b->l.buf[i].bytes / 4);
}

/* Every CPU backend x direction x shape, 1 and 2 threads, checked in full. */
static void backends_agree(void)
{
    int ran = 0;
    for (int s = 0; s < NSHAPES; s++)
        for (int dir = 0; dir < CONV_NDIRS; dir++) {
            bufs b;
            if (bufs_open(&b, SHAPES[s], dir)) continue;
            void *ref = NULL;
            {
                conv_ref *r = malloc(sizeof *r);
                const float *in[3] = {b.h[0], b.h[1], dir == CONV_FWD ? b.h[2] : NULL};
                EXPECT(r && conv_ref_build(r, &b.d, (conv_dir)dir, in, 0) == 0, "ref %s", b.p.desc);
                ref = r;
            }
            for (int k = 0; BACKENDS[k].name; k++) {
                const backend_def *be = &BACKENDS[k];
                if (strcmp(be->op, "conv") != 0 || be->dev != DEV_CPU || !backend_present(be))
                    continue;
                for (int threads = THREADS_FROM; threads <= 2; threads++) {
                    char why[256] = "";
                    cpu_threads_set(threads);
                    poison(&b);
                    err_clear();
                    int rc = SUITE_CONV.cpu_run(be, &b.p, b.h);
                    EXPECT(rc == 0, "%s %s returned %d: %s", be->name, b.p.desc, rc, err_get());
                    check_result c = SUITE_CONV.check(&b.p, ref, 0, backend_dtype(be), b.h, why, sizeof why);
                    EXPECT(c.pass, "%s %s threads %d: %s (rel %g, max %g)", be->name, b.p.desc,
                           threads, why, c.rel_err, c.max_abs_err);
                    ran++;
                }
            }
            conv_ref_free(ref);
            free(ref);
            bufs_close(&b);
        }
    int nconv = 0;
    for (int k = 0; BACKENDS[k].name; k++)
        nconv += strcmp(BACKENDS[k].op, "conv") == 0 && BACKENDS[k].dev == DEV_CPU &&
                 backend_present(&BACKENDS[k]);
    EXPECT(ran == nconv * NSHAPES * CONV_NDIRS * NTHREADS, "ran %d cases, want %d", ran,
           nconv * NSHAPES * CONV_NDIRS * NTHREADS);
}

/* Runs table o's entry of direction dir at dtype dt on 16-bit copies of b's
 * inputs (already rounded to dt), outputs into out16 (poisoned first). */
static int run_dt(const conv_ops *o, dtype_t dt, const bufs *b, int dir, void *const *in16,
                  void *const *out16, const size_t *nout)
{
    for (int i = 0; i < 2; i++)
        if (out16[i]) for (size_t e = 0; e < nout[i]; e++) ((uint16_t *)out16[i])[e] = 0x7FFF;
    if (dir == CONV_FWD)
        return o->fwd_dt(dt, &b->d, in16[0], in16[1], in16[2], out16[0], NULL, NULL);
    if (dir == CONV_BWD_DATA)
        return o->bwd_data_dt(dt, &b->d, in16[0], in16[1], out16[0], NULL, NULL);
    return o->bwd_filter_dt(dt, &b->d, in16[0], in16[1], out16[0], out16[1], NULL, NULL);
}

/* cpu-omp and cpu-naive at bf16 and fp16, every shape and direction, 1 and
 * 2 threads, checked in full against the double reference of the 16-bit
 * inputs (check_tolerance(dt, conv_reduction): half an ulp plus fp32 sums). */
static void lowp_agree(void)
{
    static const dtype_t DTS[] = {DTYPE_BF16, DTYPE_FP16};
    const conv_ops *ops[2] = {&CONV_OPS_CPU_OMP, &CONV_OPS_CPU_NAIVE};
    static const char *const NAME[2] = {"cpu-omp", "cpu-naive"};
    int ran = 0;
    for (int s = 0; s < NSHAPES; s++)
        for (int dir = 0; dir < CONV_NDIRS; dir++)
            for (int di = 0; di < 2; di++) {
                const dtype_t dt = DTS[di];
                bufs b;
                if (bufs_open(&b, SHAPES[s], dir)) continue;
                const int nin = dir == CONV_FWD ? 3 : 2, nout = dir == CONV_BWD_FILTER ? 2 : 1;
                void *in16[3] = {NULL, NULL, NULL}, *out16[2] = {NULL, NULL};
                size_t n_out[2] = {0, 0};
                for (int i = 0; i < nin; i++) { /* the inputs rounded to dt, and as words */
                    const size_t n = b.l.buf[i].bytes / 4;
                    float *f = b.h[i];
                    in16[i] = malloc(2 * n + 2);
                    for (size_t e = 0; e < n; e++) {
                        dtype_set(dt, in16[i], e, f[e]);
                        f[e] = dtype_get(dt, in16[i], e);
                    }
                }
                for (int i = 0; i < nout; i++) {
                    n_out[i] = b.l.buf[nin + i].bytes / 4;
                    out16[i] = malloc(2 * n_out[i] + 2);
                }
                conv_ref r;
                const float *in[3] = {b.h[0], b.h[1], dir == CONV_FWD ? b.h[2] : NULL};
                EXPECT(conv_ref_build(&r, &b.d, (conv_dir)dir, in, 0) == 0, "ref %s", b.p.desc);
                for (int oi = 0; oi < 2; oi++)
                    for (int threads = THREADS_FROM; threads <= 2; threads++) {
                        char why[256] = "";
                        cpu_threads_set(threads);
                        err_clear();
                        int rc = run_dt(ops[oi], dt, &b, dir, in16, out16, n_out);
                        EXPECT(rc == 0, "%s %s %s returned %d: %s", NAME[oi], dtype_name(dt),
                               b.p.desc, rc, err_get());
                        check_result c = conv_ref_check(&r, (const void *const *)out16, dt, dt,
                                                        why, sizeof why);
                        EXPECT(c.pass, "%s %s %s threads %d: %s (rel %g, max %g)", NAME[oi],
                               dtype_name(dt), b.p.desc, threads, why, c.rel_err, c.max_abs_err);
                        ran++;
                    }
                conv_ref_free(&r);
                for (int i = 0; i < 3; i++) free(in16[i]);
                for (int i = 0; i < 2; i++) free(out16[i]);
                bufs_close(&b);
            }
    EXPECT(ran == NSHAPES * CONV_NDIRS * 2 * 2 * NTHREADS, "ran %d bf16/fp16 cases", ran);
}

static double rms(const float *x, long n)
{
    double s = 0;
    for (long i = 0; i < n; i++) s += (double)x[i] * x[i];
    return sqrt(s / (n ? n : 1));
}

/* The reference passes the right answer and fails one wrong padding-border
 * element of a plane that is not among the sampled ones (sampled) or any
 * (full), in every direction; a fwd kernel that pads with the edge values
 * fails too. */
static void border_errors_fail(void)
{
    static const char *const CASES[] = {"mb4ic8ih20oc8kh3ph1", "mb3ic6ih18iw16oc10kh5sh2ph2"};
    for (int ci = 0; ci < 2; ci++)
        for (int dir = 0; dir < CONV_NDIRS; dir++)
            for (int sampled = 0; sampled <= 1; sampled++) {
                bufs b;
                if (bufs_open(&b, CASES[ci], dir)) continue;
                conv_ref r;
                char why[256] = "";
                const float *in[3] = {b.h[0], b.h[1], dir == CONV_FWD ? b.h[2] : NULL};
                int no = dir == CONV_FWD ? 3 : 2;
                const float *out[2] = {b.h[no], dir == CONV_BWD_FILTER ? b.h[no + 1] : NULL};
                EXPECT(conv_ref_build(&r, &b.d, (conv_dir)dir, in, sampled) == 0, "ref");
                check_result c;
                /* the right answer, from cpu-omp */
                for (int k = 0; BACKENDS[k].name; k++)
                    if (strcmp(BACKENDS[k].op, "conv") == 0 && strcmp(BACKENDS[k].name, "cpu-omp") == 0)
                        EXPECT(SUITE_CONV.cpu_run(&BACKENDS[k], &b.p, b.h) == 0, "cpu-omp run");
                c = conv_ref_check(&r, (const void *const *)out, DTYPE_FP32, DTYPE_FP32, why, sizeof why);
                EXPECT(c.pass, "%s sampled %d: the right answer fails: %s", b.p.desc, sampled, why);
                /* one border element of plane (1, 1) (not a sampled one: the
                 * corner planes and seeded ones), mid top row: y/dx row 0;
                 * dw: filter row r = 0, the taps that reach into the padding */
                const conv_ref_tensor *t = &r.t[0];
                float *o = b.h[no];
                long n = (long)t->A * t->B * t->Hs * t->Ws;
                long at = ((long)1 * t->B + 1) * t->Hs * t->Ws + t->Ws / 2;
                float keep = o[at];
                o[at] += (float)(0.01 * rms(o, n));
                c = conv_ref_check(&r, (const void *const *)out, DTYPE_FP32, DTYPE_FP32, why, sizeof why);
                EXPECT(!c.pass, "%s sampled %d: an error of 1%% rms in border element %ld passes",
                       b.p.desc, sampled, at);
                o[at] = keep;
                if (dir == CONV_FWD) { /* edge padding instead of zeros, top row only */
                    const conv_dims *d = &b.d;
                    const float *x = b.h[0], *w = b.h[1];
                    float *y = b.h[3];
                    for (int nn = 0; nn < d->N; nn++)
                        for (int k = 0; k < d->K; k++)
                            for (int q = 0; q < d->Q; q++)
                                for (int c2 = 0; c2 < d->C; c2++)
                                    for (int rr = 0; rr < d->ph; rr++)
                                        for (int s = 0; s < d->S; s++) {
                                            int wi = q * d->sw - d->pw + s;
                                            if (wi < 0 || wi >= d->W) continue;
                                            y[(((long)nn * d->K + k) * d->P) * d->Q + q] +=
                                                x[(((long)nn * d->C + c2) * d->H) * d->W + wi] *
                                                w[(((long)k * d->C + c2) * d->R + rr) * d->S + s];
                                        }
                    c = conv_ref_check(&r, (const void *const *)out, DTYPE_FP32, DTYPE_FP32, why, sizeof why);
                    EXPECT(!c.pass, "%s sampled %d: edge padding instead of zeros passes", b.p.desc,
                           sampled);
                }
                conv_ref_free(&r);
                bufs_close(&b);
            }
}

static void descriptors(void)
{
    problem p, all[3];
    char err[256];
    /* defaults deduced: iw = ih, kw = kh, sw = sh, pw = ph, mb 2 */
    EXPECT(SUITE_CONV.parse("fwd:ic3ih10oc4kh3sh2ph1", &p, err, sizeof err) == 0, "%s", err);
    conv_dims d = conv_problem_dims(&p);
    EXPECT(d.N == 2 && d.C == 3 && d.H == 10 && d.W == 10 && d.K == 4 && d.R == 3 && d.S == 3 &&
           d.sh == 2 && d.sw == 2 && d.ph == 1 && d.pw == 1 && d.P == 5 && d.Q == 5,
           "deduced dims of ic3ih10oc4kh3sh2ph1");
    EXPECT(strcmp(p.desc, "fwd:mb2ic3ih10oc4kh3sh2ph1") == 0, "canonical: %s", p.desc);
    EXPECT(strcmp(p.direction, "fwd") == 0 && p.variant == CONV_FWD, "direction %s", p.direction);
    EXPECT(p.flops == conv_flops(&d, CONV_FWD), "flops");
    /* named: the name is kept through the descriptor */
    EXPECT(SUITE_CONV.parse("bwd-data:mb1ic2ih9iw7oc3kh3kw1_nmy-layer.2", &p, err, sizeof err) == 0,
           "%s", err);
    EXPECT(strcmp(p.name, "my-layer.2") == 0 &&
           strcmp(p.desc, "bwd-data:mb1ic2ih9iw7oc3kh3kw1_nmy-layer.2") == 0, "named: %s %s",
           p.name, p.desc);
    /* no direction: all three */
    EXPECT(SUITE_CONV.parse("mb32ic64ih56oc64kh3ph1", &p, err, sizeof err) == 0, "%s", err);
    EXPECT(SUITE_CONV.expand(&p, all, 3) == 3, "expand");
    for (int i = 0; i < 3; i++) EXPECT(all[i].variant == i, "expanded direction %d", i);
    EXPECT(strcmp(all[2].desc, "bwd-filter:mb32ic64ih56oc64kh3ph1") == 0 &&
           strcmp(all[2].name, "resnet50-s2-3x3") == 0, "expanded: %s %s", all[2].desc, all[2].name);
    EXPECT(SUITE_CONV.expand(&p, all, 2) == 0, "expand into too little room");
    /* every default (full and quick) round-trips: parse(desc) gives it back */
    problem defs[64];
    for (int quick = 0; quick <= 1; quick++) {
        int n = SUITE_CONV.defaults(quick, 0, defs, 64);
        EXPECT(n > 0 && n % 3 == 0, "defaults(%d): %d problems", quick, n);
        for (int i = 0; i < n; i++) {
            EXPECT(SUITE_CONV.parse(defs[i].desc, &p, err, sizeof err) == 0, "%s", err);
            EXPECT(strcmp(p.desc, defs[i].desc) == 0 && strcmp(p.name, defs[i].name) == 0 &&
                   p.variant == defs[i].variant && memcmp(p.dim, defs[i].dim, sizeof p.dim) == 0,
                   "default %s (%s) re-parses as %s (%s)", defs[i].desc, defs[i].name, p.desc, p.name);
        }
    }
    /* bad descriptors: rc 2, one line naming the field */
    static const char *const BAD[][2] = {
        {"mb32ic64ih56oc64kh0", "kh must be a whole number from 1 to 65536 (got '0')"},
        {"mb0ic3ih5oc2kh1", "mb must be a whole number from 1 to 65536 (got '0')"},
        {"ic3ih-8oc2kh1", "ih must be a whole number from 1 to 65536 (got '-8')"},
        {"mb2147483647ic1ih1oc1kh1", "mb must be a whole number from 1 to 65536 (got '2147483647')"},
        {"ic3 ih5oc2kh1", "a space at position 4"},
        {"ic3ih5oc2kh3ph3", "ph 3 must be < kh 3"},
        {"ic3ih5oc2kh3pw5", "pw 5 must be < kw 3"},
        {"ic3ih2oc2kh5ph1", "kh 5 is larger than ih 2"},
        {"ic3ih5oc2", "kh is missing"},
        {"mb2ih5oc2kh1", "ic is missing"},
        {"ic3ih5oc2kh1ix4", "unknown field 'ix'"},
        {"ic3ih5oc2kh1ic4", "ic is given twice"},
        {"ic3ihoc2kh1", "ih has no value"},
        {"ic3ih99999999999oc2kh1", "ih must be a whole number from 1 to 65536 (got '99999999999')"},
        {"bwd:ic3ih5oc2kh1", "unknown direction 'bwd'"},
        {"ic3ih5oc2kh1_x", "_nNAME"},
        {"ic3ih5oc2kh1_nbad/name", "letters, digits"},
        {"mb60000ic1000ih1000oc1kh1", "too large: a tensor over 2^31 - 1 elements"},
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        err[0] = '\0';
        int rc = SUITE_CONV.parse(BAD[i][0], &p, err, sizeof err);
        char want[128];
        snprintf(want, sizeof want, "bench: conv descriptor '%s': ", BAD[i][0]);
        EXPECT(rc == 2 && strstr(err, BAD[i][1]) && strncmp(err, want, strlen(want)) == 0 &&
               !strchr(err, '\n'), "'%s': rc %d, message '%s', want '%s'", BAD[i][0], rc, err,
               BAD[i][1]);
    }
    /* other suites' problems are not conv's */
    static const char *const OTHER[] = {"1024", "512x256x128", "4KiB", "16MiB", "cnn-b64",
                                        "square-1024", "fwd:1024", "x", ""};
    for (size_t i = 0; i < sizeof OTHER / sizeof OTHER[0]; i++)
        EXPECT(SUITE_CONV.parse(OTHER[i], &p, err, sizeof err) == -1, "'%s' taken as conv", OTHER[i]);
}

/* Buffers as conv.h says; chunks cover the images of the CHUNK buffers. */
static void layouts(void)
{
    static const int NB[CONV_NDIRS] = {4, 3, 4};
    static const buf_split SPLIT[CONV_NDIRS][4] = {
        {SPLIT_CHUNK, SPLIT_WHOLE, SPLIT_WHOLE, SPLIT_CHUNK},
        {SPLIT_CHUNK, SPLIT_WHOLE, SPLIT_CHUNK},
        {SPLIT_CHUNK, SPLIT_CHUNK, SPLIT_REDUCE, SPLIT_REDUCE}};
    for (int dir = 0; dir < CONV_NDIRS; dir++) {
        bufs b;
        if (bufs_open(&b, "mb5ic3ih9oc4kh3sh2ph1", dir)) continue;
        EXPECT(b.l.nbufs == NB[dir] && b.l.max_chunks == 5 && b.l.streams == STREAMS_CHUNK &&
               b.l.ref_bytes > 0, "layout of %s", b.p.desc);
        for (int i = 0; i < b.l.nbufs; i++) {
            EXPECT(b.l.buf[i].split == SPLIT[dir][i], "%s buffer %d split", b.p.desc, i);
            if (b.l.buf[i].split != SPLIT_CHUNK) {
                size_t off = 1, len = 0;
                SUITE_CONV.chunk(&b.p, i, 1, 3, &off, &len);
                EXPECT(off == 0 && len == b.l.buf[i].bytes, "%s whole buffer %d: %zu+%zu", b.p.desc,
                       i, off, len);
                continue;
            }
            size_t end = 0;
            for (int c = 0; c < 3; c++) {
                size_t off, len;
                SUITE_CONV.chunk(&b.p, i, c, 3, &off, &len);
                EXPECT(off == end, "%s buffer %d chunk %d starts at %zu, want %zu", b.p.desc, i, c,
                       off, end);
                end = off + len;
            }
            EXPECT(end == b.l.buf[i].bytes, "%s buffer %d: chunks cover %zu of %zu bytes", b.p.desc,
                   i, end, b.l.buf[i].bytes);
        }
        bufs_close(&b);
    }
}

int main(void)
{
    descriptors();
    layouts();
    backends_agree();
    lowp_agree();
    border_errors_fail();
    TEST_END();
}
