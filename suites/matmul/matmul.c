/* suites/matmul/matmul.c - the matmul suite: C = A*B (row-major; in each dtype
 * of the axis: A, B and C in the dtype, fp32 accumulation) over a
 * square sweep and real-model layer shapes. Problems are `N` (square) or
 * `MxNxK` (C is MxN, the reduction K); the reference is gemm_ref (double,
 * sampled above 512^3 with a product check over every element). The runner
 * does the rest. */
#include "matmul.h"
#include "gemm_cpu.h"
#include "gemm_ref.h"
#include "errmsg.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BUF_A, BUF_B, BUF_C };
#define M_ dim[0]
#define N_ dim[1]
#define K_ dim[2]

typedef struct named_shape {
    const char *name;
    int M, N, K;
} named_shape;

/* MxNxK: C is MxN, the reduction is K. Model layers: M = tokens or batch. */
static const named_shape DEFAULT_SHAPES[] = {
    {"square-128", 128, 128, 128},     {"square-256", 256, 256, 256},
    {"square-512", 512, 512, 512},     {"square-1024", 1024, 1024, 1024},
    {"square-2048", 2048, 2048, 2048},
    {"mlp-fc1", 256, 512, 784},        /* MNIST MLP, batch 256: 784 -> 512 */
    {"mlp-fc2", 256, 10, 512},         /* 512 -> 10 classes */
    {"gpt2-qkv", 1024, 2304, 768},     /* GPT-2 small, 1024 tokens: x W_qkv */
    {"gpt2-attn-out", 1024, 768, 768}, /* attention output projection */
    {"gpt2-mlp-up", 1024, 3072, 768},  /* MLP 768 -> 3072 */
    {"gpt2-mlp-down", 1024, 768, 3072},/* MLP 3072 -> 768 */
    /* The training-step models' forward GEMMs (their backward passes are the
     * same sizes transposed): small or skinny, where per-call overheads and
     * edge tiles weigh most. */
    {"mlp-b256-fc1", 256, 1024, 784},  /* MLP, batch 256: 784 -> 1024 */
    {"mlp-b256-fc2", 256, 1024, 1024}, /* 1024 -> 1024 */
    {"mlp-b256-fc3", 256, 10, 1024},   /* 1024 -> 10 classes */
    {"cnn-b64-fc1", 64, 128, 1568},    /* CNN, batch 64: 32x7x7 features -> 128 */
    {"cnn-b64-fc2", 64, 10, 128},      /* 128 -> 10 classes */
    {"mlp-small-b64-fc1", 64, 32, 64}, /* small MLP, batch 64: 64 -> 32 */
    {"mlp-small-b64-fc2", 64, 10, 32}, /* 32 -> 10 classes */
    {"small-64", 64, 64, 64},          /* a small square: call overhead shows */
    {"odd-127x129x131", 127, 129, 131},/* no dimension a multiple of any tile */
    {"skinny-4096x1x4096", 4096, 1, 4096}, /* matrix-vector: bound by memory */
};
/* With a real GPU the default sweep goes on to sizes only a GPU makes quick. */
static const named_shape GPU_EXTRA_SHAPES[] = {
    {"square-4096", 4096, 4096, 4096},
    {"square-8192", 8192, 8192, 8192},
};
static const named_shape QUICK_SHAPES[] = {
    {"small-64", 64, 64, 64},
    {"square-128", 128, 128, 128},
    {"square-256", 256, 256, 256},
    {"odd-67x45x129", 67, 45, 129},
    {"mlp-fc1", 256, 512, 784},
};
#define NSHAPES(a) ((int)(sizeof a / sizeof a[0]))

/* The name a default sweep gives MxNxK, or NULL: a problem named with --sizes
 * keeps its case name, so a row's repro re-runs the same case. */
static const char *sweep_name(int M, int N, int K)
{
    static const struct { const named_shape *s; int n; } LISTS[] = {
        {DEFAULT_SHAPES, NSHAPES(DEFAULT_SHAPES)},
        {GPU_EXTRA_SHAPES, NSHAPES(GPU_EXTRA_SHAPES)},
        {QUICK_SHAPES, NSHAPES(QUICK_SHAPES)}};
    for (size_t l = 0; l < sizeof LISTS / sizeof LISTS[0]; l++)
        for (int i = 0; i < LISTS[l].n; i++)
            if (LISTS[l].s[i].M == M && LISTS[l].s[i].N == N && LISTS[l].s[i].K == K)
                return LISTS[l].s[i].name;
    return NULL;
}

static void set_problem(problem *p, const char *name, int M, int N, int K)
{
    memset(p, 0, sizeof *p);
    p->M_ = M;
    p->N_ = N;
    p->K_ = K;
    if (!name) name = sweep_name(M, N, K);
    if (name) snprintf(p->name, sizeof p->name, "%s", name);
    else if (M == N && N == K) snprintf(p->name, sizeof p->name, "square-%d", M);
    else snprintf(p->name, sizeof p->name, "gemm-%dx%dx%d", M, N, K);
    snprintf(p->desc, sizeof p->desc, "%dx%dx%d", M, N, K);
    p->flops = 2.0 * M * N * K;
    p->io_elems = (double)M * K + (double)K * N + (double)M * N;   /* A, B read; C written */
    if (M == N && N == K) {   /* the squares are one size axis, x = N */
        snprintf(p->sweep, sizeof p->sweep, "square");
        p->sweep_x = N;
    }
}

/* A whole number from 1 to INT_MAX, digits only (no sign, space or point):
 * 0, or -1. */
static int pos_int(const char *s, size_t len, long *out)
{
    long v = 0;
    if (len == 0) return -1;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') return -1;
        if (v <= INT_MAX) v = v * 10 + (s[i] - '0');
    }
    if (v < 1 || v > INT_MAX) return -1;
    *out = v;
    return 0;
}

/* Whether s is matmul's to judge: digits only (N), or a digit or sign then
 * anything with an 'x' (MxNxK, however malformed). A sign without an 'x'
 * ("-5") is left to the transfer suite's bytes. */
static int looks_matmul(const char *s)
{
    if (*s >= '0' && *s <= '9' && strspn(s, "0123456789") == strlen(s)) return 1;
    return (*s == '-' || *s == '+' || (*s >= '0' && *s <= '9')) && strchr(s, 'x') != NULL;
}

static int matmul_parse(const char *s, problem *p, char *err, size_t errcap)
{
    static const char *const DIM[3] = {"M", "N", "K"};
    long v[3];
    int n = 0;
    const char *q = s;
    if (!looks_matmul(s)) return -1;
    for (;;) {
        const char *x = strchr(q, 'x');
        size_t len = x ? (size_t)(x - q) : strlen(q);
        if (n == 3) {
            snprintf(err, errcap, "bench: matmul size '%s': want N or MxNxK (more than 3 dimensions)", s);
            return 2;
        }
        if (pos_int(q, len, &v[n])) {
            snprintf(err, errcap, "bench: matmul size '%s': %s must be a whole number from 1 to %d "
                     "(got '%.*s')", s, x || n ? DIM[n] : "N", INT_MAX, (int)(len < 24 ? len : 24), q);
            return 2;
        }
        n++;
        if (!x) break;
        q = x + 1;
    }
    if (n == 2) {
        snprintf(err, errcap, "bench: matmul size '%s': want N or MxNxK (3 dimensions, got 2)", s);
        return 2;
    }
    if (n == 1) v[1] = v[2] = v[0];
    double biggest = (double)v[0] * v[2];
    if ((double)v[2] * v[1] > biggest) biggest = (double)v[2] * v[1];
    if ((double)v[0] * v[1] > biggest) biggest = (double)v[0] * v[1];
    if (biggest > (double)INT_MAX) {
        snprintf(err, errcap,
                 "bench: size %ldx%ldx%ld too large (a matrix over 2^31 - 1 elements)", v[0], v[1],
                 v[2]);
        return 2;
    }
    set_problem(p, NULL, (int)v[0], (int)v[1], (int)v[2]);
    return 0;
}

static int matmul_defaults(int quick, int big, problem *out, int cap)
{
    const named_shape *src = quick ? QUICK_SHAPES : DEFAULT_SHAPES;
    int n = quick ? NSHAPES(QUICK_SHAPES) : NSHAPES(DEFAULT_SHAPES), k = 0;
    for (int i = 0; i < n && k < cap; i++, k++) set_problem(&out[k], src[i].name, src[i].M, src[i].N, src[i].K);
    for (int i = 0; big && !quick && i < NSHAPES(GPU_EXTRA_SHAPES) && k < cap; i++, k++)
        set_problem(&out[k], GPU_EXTRA_SHAPES[i].name, GPU_EXTRA_SHAPES[i].M,
                    GPU_EXTRA_SHAPES[i].N, GPU_EXTRA_SHAPES[i].K);
    return k;
}

static void matmul_layout(const problem *p, case_layout *l)
{
    size_t M = (size_t)p->M_, N = (size_t)p->N_, K = (size_t)p->K_;
    layout_add_dt(l, "A", ROLE_IN, SPLIT_CHUNK, p->dtype, M * K);   /* rows of A ... */
    layout_add_dt(l, "B", ROLE_IN, SPLIT_WHOLE, p->dtype, K * N);
    layout_add_dt(l, "C", ROLE_OUT, SPLIT_CHUNK, p->dtype, M * N);  /* ... give rows of C */
    l->streams = STREAMS_CHUNK;
    l->max_chunks = (int)p->M_;
    l->ref_bytes = gemm_ref_bytes((int)p->M_, (int)p->N_, (int)p->K_);
}

static void matmul_fill(const problem *p, int set, void *const *host)
{
    unsigned long long seed = 1000003ULL * (unsigned long long)(p->M_ + 7 * p->N_ + 13 * p->K_);
    rng_fill_uniform((float *)host[BUF_A], (size_t)p->M_ * p->K_, seed + 2 * set + 1);
    rng_fill_uniform((float *)host[BUF_B], (size_t)p->K_ * p->N_, seed + 2 * set + 2);
}

static void *matmul_ref_build(const problem *p, void *const *host)
{
    gemm_ref *r = malloc(sizeof *r);
    if (!r) return NULL;
    if (gemm_ref_build(r, (int)p->M_, (int)p->N_, (int)p->K_, 1.0f, (const float *)host[BUF_A],
                       (const float *)host[BUF_B], 0.0f, NULL)) {
        free(r);
        return NULL;
    }
    return r;
}

static void matmul_ref_free(void *ref)
{
    gemm_ref_free(ref);
    free(ref);
}

static check_result matmul_check(const problem *p, const void *ref, int step, dtype_t dt, void *const *host,
                                 char *why, size_t whycap)
{
    (void)step; /* one-step suite */
    return gemm_ref_check(ref, host[BUF_C], p->dtype, dt, why, whycap);
}

static int matmul_cpu_run(const backend_def *b, const problem *p, void *const *host)
{
    int M = (int)p->M_, N = (int)p->N_, K = (int)p->K_;
    if (!(p->dtype != DTYPE_FP32 ? (void *)b->fn_dt : (void *)b->fn)) {
        err_set("%s: no %s entry point", b->name, dtype_name(p->dtype));
        return -1;
    }
    if (p->dtype != DTYPE_FP32) {
        if (b->dt_path) case_note_set("%s", b->dt_path(p->dtype));
        return ((gemm_dt_fn)b->fn_dt)(p->dtype, M, N, K, host[BUF_A], K, host[BUF_B], N,
                                      host[BUF_C], N);
    }
    return ((gemm_fn)b->fn)(M, N, K, 1.0f, (const float *)host[BUF_A], K,
                            (const float *)host[BUF_B], N, 0.0f, (float *)host[BUF_C], N);
}

void matmul_chunk_rows(const problem *p, int c, int n, int *r0, int *r1)
{
    *r0 = (int)(p->M_ * c / n);
    *r1 = (int)(p->M_ * (c + 1) / n);
}

/* Chunk c of n: rows of A and C; B is whole. */
static void matmul_chunk(const problem *p, int buf, int c, int n, size_t *off, size_t *len)
{
    int r0, r1;
    size_t row = (size_t)(buf == BUF_A ? p->K_ : p->N_) * dtype_size(p->dtype);
    matmul_chunk_rows(p, c, n, &r0, &r1);
    *off = (size_t)r0 * row;
    *len = (size_t)(r1 - r0) * row;
}

const suite_def SUITE_MATMUL = {
    .name = "matmul",
    .about = "GEMM in fp32, tf32, bf16 and fp16: square sweep and model-layer shapes, every backend checked then timed",
    .op = "gemm",
    .default_baseline = "cpu-blas",
    .problem_help = "N (square) or MxNxK (C is MxN, the reduction K)",
    .parse = matmul_parse,
    .defaults = matmul_defaults,
    .layout = matmul_layout,
    .fill = matmul_fill,
    .ref_build = matmul_ref_build,
    .ref_free = matmul_ref_free,
    .check = matmul_check,
    .cpu_run = matmul_cpu_run,
    .chunk = matmul_chunk,
    .emu_max_work = 2.0 * 256 * 256 * 256, /* emulated default sweeps: fibers are slow */
    .dtypes = DTYPES_FLOAT, /* fp32, tf32, bf16, fp16 */
};
