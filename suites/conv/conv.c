/* suites/conv/conv.c - the conv suite, host half: 2-D convolution (fp32,
 * NCHW / KCRS, ops/conv_dims.h) forward, backward-data and backward-filter,
 * each direction of each layer its own problem (conv.h).
 *
 * Problems are benchdnn-style descriptors, `mb32ic64ih56oc64kh3ph1`:
 *   mb N (default 2, as benchdnn), ic C, ih H, iw W (= ih), oc K, kh R,
 *   kw S (= kh), sh (1), sw (= sh), ph (0), pw (= ph); ic ih oc kh required;
 *   an optional name suffix `_nNAME`; a direction prefix `fwd:`, `bwd-data:`
 *   or `bwd-filter:`. The shape column is `DIR:DESCRIPTOR` (canonical: fields
 *   equal to their defaults left out), and that string given to --sizes
 *   re-runs exactly that row; a descriptor without a direction stands for
 *   all three. Named layers keep their names when re-run by descriptor.
 * The reference is conv_ref (double; sampled above CONV_REF_FULL_LIMIT). */
#include "conv.h"
#include "errmsg.h"
#include "conv_cpu.h"
#include "conv_ref.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONV_DEFAULT_MB 2

static const char *const DIR_NAMES[CONV_NDIRS] = {"fwd", "bwd-data", "bwd-filter"};

typedef struct named_layer {
    const char *name;
    const char *desc;
} named_layer;

/* Layers of real networks (every direction of each is a problem). */
static const named_layer LAYERS[] = {
    {"cnn-conv1", "mb64ic3ih28oc16kh3ph1"},        /* the training suite's tutorial CNN */
    {"cnn-conv2", "mb64ic16ih14oc32kh3ph1"},
    {"resnet50-conv1", "mb32ic3ih224oc64kh7sh2ph3"}, /* 7x7 stride 2 on 224^2 */
    {"resnet50-s2-3x3", "mb32ic64ih56oc64kh3ph1"},  /* stage 2 3x3 (the performance target) */
    {"resnet50-s2-1x1", "mb32ic64ih56oc256kh1"},    /* stage 2 1x1 expansion */
    {"resnet50-s3-3x3s2", "mb32ic128ih56oc128kh3sh2ph1"}, /* stage 3 down-sampling 3x3 */
    {"resnet50-s5-3x3", "mb32ic512ih7oc512kh3ph1"}, /* stage 5 3x3 */
    {"vgg16-3x3", "mb2ic256ih56oc256kh3ph1"},       /* VGG-16 conv3, small batch */
};
/* --quick: small layers, cpu-naive included, well under a minute on 2 cores. */
static const named_layer QUICK_LAYERS[] = {
    {"cnn-conv1", "mb64ic3ih28oc16kh3ph1"},
    {"cnn-conv2", "mb64ic16ih14oc32kh3ph1"},
    {"resnet50-s5-3x3-mb1", "mb1ic512ih7oc512kh3ph1"},
    {"resnet50-down1x1s2-mb4", "mb4ic64ih28oc128kh1sh2"},
};
#define NLAYERS(a) ((int)(sizeof a / sizeof a[0]))

/* ---- the descriptor ------------------------------------------------------- */

enum { F_MB, F_IC, F_IH, F_IW, F_OC, F_KH, F_KW, F_SH, F_SW, F_PH, F_PW, NFIELDS };
static const char *const FIELD[NFIELDS] = {"mb", "ic", "ih", "iw", "oc", "kh",
                                           "kw", "sh", "sw", "ph", "pw"};
/* where each field goes in problem.dim */
static const int FIELD_DIM[NFIELDS] = {CONV_DIM_N, CONV_DIM_C, CONV_DIM_H, CONV_DIM_W,
                                       CONV_DIM_K, CONV_DIM_R, CONV_DIM_S, CONV_DIM_SH,
                                       CONV_DIM_SW, CONV_DIM_PH, CONV_DIM_PW};

static int field_of(const char *s, size_t len)
{
    for (int f = 0; f < NFIELDS; f++)
        if (len == 2 && strncmp(s, FIELD[f], 2) == 0) return f;
    return -1;
}

/* A conv descriptor starts with a field name and a digit (or a sign: "ih-8"
 * is a conv descriptor with a bad value, not another suite's problem). */
static int looks_conv(const char *s)
{
    return field_of(s, strlen(s) >= 2 ? 2 : 0) >= 0 &&
           (isdigit((unsigned char)s[2]) || s[2] == '-' || s[2] == '+');
}

/* Every field is a whole number from its least (ph, pw 0; the others 1) to
 * CONV_FIELD_MAX: 64Ki images, channels, pixels, taps or strides is far past
 * any real layer, and keeps an absurd batch (mb2147483647) out at once. */
#define CONV_FIELD_MAX 65536
/* The shape column (DIR:descriptor_nNAME, canonical) fits problem.desc: the
 * one limit on a descriptor's length, its direction prefix and name counted
 * (without a direction, the longest: "bwd-filter:"). */
#define CONV_SHAPE_MAX ((int)sizeof(((problem *)0)->desc) - 1)

/* c for a message: "a space", "a tab", "'c'" or "byte 0xNN". */
static const char *char_name(char c, char *buf, size_t cap)
{
    if (c == ' ') return "a space";
    if (c == '\t') return "a tab";
    if (isprint((unsigned char)c)) snprintf(buf, cap, "'%c'", c);
    else snprintf(buf, cap, "byte 0x%02x", (unsigned char)c);
    return buf;
}

#define BAD(...)                                                                   \
    do {                                                                           \
        int u_ = snprintf(err, errcap, "bench: conv descriptor '%s': ", s);        \
        if (u_ >= 0 && (size_t)u_ < errcap) snprintf(err + u_, errcap - u_, __VA_ARGS__); \
        return 2;                                                                  \
    } while (0)

/* The canonical descriptor of dims (fields at their defaults left out). */
static void canonical(const long *v, char *out, size_t cap)
{
    int n = snprintf(out, cap, "mb%ldic%ldih%ld", v[F_MB], v[F_IC], v[F_IH]);
#define ADD(cond, f) if ((cond) && n >= 0 && (size_t)n < cap) n += snprintf(out + n, cap - n, "%s%ld", FIELD[f], v[f])
    ADD(v[F_IW] != v[F_IH], F_IW);
    ADD(1, F_OC);
    ADD(1, F_KH);
    ADD(v[F_KW] != v[F_KH], F_KW);
    ADD(v[F_SH] != 1, F_SH);
    ADD(v[F_SW] != v[F_SH], F_SW);
    ADD(v[F_PH] != 0, F_PH);
    ADD(v[F_PW] != v[F_PH], F_PW);
#undef ADD
}

/* The name of a named layer with this canonical descriptor, or NULL. */
static const char *layer_name(const char *canon)
{
    char c[64];
    for (int t = 0; t < 2; t++) {
        const named_layer *L = t ? QUICK_LAYERS : LAYERS;
        int n = t ? NLAYERS(QUICK_LAYERS) : NLAYERS(LAYERS);
        for (int i = 0; i < n; i++) {
            snprintf(c, sizeof c, "%s", L[i].desc);
            if (strcmp(c, canon) == 0) return L[i].name;
        }
    }
    return NULL;
}

/* The tensors direction dir reads and writes once, in elements (the buffers
 * of conv_layout): fwd x, w, b -> y; bwd-data dy, w -> dx; bwd-filter x,
 * dy -> dw, db. */
static double conv_io_elems(const conv_dims *d, conv_dir dir)
{
    double x = (double)conv_x_elems(d), w = (double)conv_w_elems(d), y = (double)conv_y_elems(d);
    if (dir == CONV_FWD) return x + w + (double)d->K + y;
    if (dir == CONV_BWD_DATA) return y + w + x;
    return x + y + w + (double)d->K;
}

static void set_problem(problem *p, const long *v, int dir, const char *name, int named)
{
    char canon[64];
    memset(p, 0, sizeof *p);
    for (int f = 0; f < NFIELDS; f++) p->dim[FIELD_DIM[f]] = v[f];
    conv_dims d = conv_problem_dims(p);
    p->dim[CONV_DIM_P] = d.P;
    p->dim[CONV_DIM_Q] = d.Q;
    p->variant = dir;
    canonical(v, canon, sizeof canon);
    snprintf(p->name, sizeof p->name, "%s", name);
    if (dir < CONV_NDIRS) {
        snprintf(p->direction, sizeof p->direction, "%s", DIR_NAMES[dir]);
        snprintf(p->desc, sizeof p->desc, "%s:%s%s%s", DIR_NAMES[dir], canon, named ? "_n" : "",
                 named ? name : "");
        p->flops = conv_flops(&d, (conv_dir)dir);
        p->io_elems = conv_io_elems(&d, (conv_dir)dir);
    } else { /* every direction: expanded by conv_expand */
        snprintf(p->desc, sizeof p->desc, "%s%s%s", canon, named ? "_n" : "", named ? name : "");
    }
}

static int conv_parse(const char *s, problem *p, char *err, size_t errcap)
{
    const char *body = s, *colon = strchr(s, ':');
    int dir = CONV_NDIRS;
    if (colon) {
        for (int k = 0; k < CONV_NDIRS; k++)
            if ((size_t)(colon - s) == strlen(DIR_NAMES[k]) &&
                strncmp(s, DIR_NAMES[k], strlen(DIR_NAMES[k])) == 0)
                dir = k;
        body = colon + 1;
        if (!looks_conv(body)) return -1;
        if (dir == CONV_NDIRS)
            BAD("unknown direction '%.*s' (fwd, bwd-data, bwd-filter)", (int)(colon - s), s);
    }
    if (!looks_conv(body)) return -1;
    long v[NFIELDS];
    int given[NFIELDS] = {0};
    const char *q = body, *name = NULL;
    char cn[16];
    while (*q && *q != '_') {
        const char *f0 = q;
        if (!isalpha((unsigned char)*q))
            BAD("%s at position %d: a descriptor is field names, each with a whole number "
                "(e.g. mb32ic64ih56oc64kh3)", char_name(*q, cn, sizeof cn), (int)(q - s) + 1);
        while (isalpha((unsigned char)*q)) q++;
        int f = field_of(f0, (size_t)(q - f0));
        if (f < 0 && q - f0 > 2 && field_of(f0, 2) >= 0) BAD("%.2s has no value", f0);
        if (f < 0)
            BAD("unknown field '%.*s' (mb ic ih iw oc kh kw sh sw ph pw)", (int)(q - f0), f0);
        const char *v0 = q; /* the value: digits, and a sign or point to name it */
        while (isdigit((unsigned char)*q) || *q == '-' || *q == '+' || *q == '.') q++;
        if (q == v0 && (*q == '\0' || *q == '_' || isalpha((unsigned char)*q)))
            BAD("%s has no value", FIELD[f]);
        if (q == v0)
            BAD("%s at position %d: %s takes a whole number", char_name(*q, cn, sizeof cn),
                (int)(q - s) + 1, FIELD[f]);
        long lo = (f == F_PH || f == F_PW) ? 0 : 1, x = 0;
        for (const char *d = v0; d < q && x <= CONV_FIELD_MAX; d++)
            x = isdigit((unsigned char)*d) ? x * 10 + (*d - '0') : -1;
        if (x < lo || x > CONV_FIELD_MAX)
            BAD("%s must be a whole number from %ld to %d (got '%.*s')", FIELD[f], lo, CONV_FIELD_MAX,
                (int)(q - v0 < 24 ? q - v0 : 24), v0);
        if (given[f]) BAD("%s is given twice", FIELD[f]);
        given[f] = 1;
        v[f] = x;
    }
    if (*q == '_') {
        if (q[1] != 'n' || !q[2]) BAD("expected a name suffix _nNAME after the fields");
        name = q + 2;
        for (const char *c = name; *c; c++)
            if (!isalnum((unsigned char)*c) && *c != '-' && *c != '.')
                BAD("name '%s' may hold letters, digits, '-' and '.' only (%s at position %d)", name,
                    char_name(*c, cn, sizeof cn), (int)(c - s) + 1);
    }
    static const int REQUIRED[] = {F_IC, F_IH, F_OC, F_KH};
    for (int i = 0; i < 4; i++)
        if (!given[REQUIRED[i]]) BAD("%s is missing (ic, ih, oc and kh are required)", FIELD[REQUIRED[i]]);
    if (!given[F_MB]) v[F_MB] = CONV_DEFAULT_MB;
    if (!given[F_IW]) v[F_IW] = v[F_IH];
    if (!given[F_KW]) v[F_KW] = v[F_KH];
    if (!given[F_SH]) v[F_SH] = 1;
    if (!given[F_SW]) v[F_SW] = v[F_SH];
    if (!given[F_PH]) v[F_PH] = 0;
    if (!given[F_PW]) v[F_PW] = v[F_PH];
    if (v[F_PH] >= v[F_KH]) BAD("ph %ld must be < kh %ld", v[F_PH], v[F_KH]);
    if (v[F_PW] >= v[F_KW]) BAD("pw %ld must be < kw %ld", v[F_PW], v[F_KW]);
    if (v[F_KH] > v[F_IH] + 2 * v[F_PH])
        BAD("kh %ld is larger than ih %ld + 2*ph %ld: empty output", v[F_KH], v[F_IH], v[F_PH]);
    if (v[F_KW] > v[F_IW] + 2 * v[F_PW])
        BAD("kw %ld is larger than iw %ld + 2*pw %ld: empty output", v[F_KW], v[F_IW], v[F_PW]);
    long P = (v[F_IH] + 2 * v[F_PH] - v[F_KH]) / v[F_SH] + 1;
    long Q = (v[F_IW] + 2 * v[F_PW] - v[F_KW]) / v[F_SW] + 1;
    double x = (double)v[F_MB] * v[F_IC] * v[F_IH] * v[F_IW];
    double w = (double)v[F_OC] * v[F_IC] * v[F_KH] * v[F_KW];
    double y = (double)v[F_MB] * v[F_OC] * P * Q;
    if (x > INT_MAX || w > INT_MAX || y > INT_MAX)
        BAD("too large: a tensor over 2^31 - 1 elements (x %.3g, w %.3g, y %.3g)", x, w, y);
    char canon[64];
    canonical(v, canon, sizeof canon);
    const char *table = layer_name(canon);
    char shape[256];
    int len = snprintf(shape, sizeof shape, "%s:%s%s%s", DIR_NAMES[dir < CONV_NDIRS ? dir : CONV_BWD_FILTER],
                       canon, name ? "_n" : "", name ? name : "");
    if (len > CONV_SHAPE_MAX)
        BAD("its shape '%s' is %d characters, more than %d (the limit, direction and name included)",
            shape, len, CONV_SHAPE_MAX);
    set_problem(p, v, dir, name ? name : table ? table : canon, name != NULL);
    return 0;
}

static int conv_expand(const problem *p, problem *out, int cap)
{
    if (p->variant < CONV_NDIRS) {
        if (cap < 1) return 0;
        out[0] = *p;
        return 1;
    }
    long v[NFIELDS];
    for (int f = 0; f < NFIELDS; f++) v[f] = p->dim[FIELD_DIM[f]];
    const char *suffix = strstr(p->desc, "_n");
    int k = 0;
    if (cap < CONV_NDIRS) return 0;
    for (int dir = 0; dir < CONV_NDIRS && k < cap; dir++) set_problem(&out[k++], v, dir, p->name, suffix != NULL);
    return k;
}

static int conv_defaults(int quick, int big, problem *out, int cap)
{
    const named_layer *L = quick ? QUICK_LAYERS : LAYERS;
    int n = quick ? NLAYERS(QUICK_LAYERS) : NLAYERS(LAYERS), k = 0;
    char err[256];
    (void)big;
    for (int i = 0; i < n; i++) {
        problem all;
        if (conv_parse(L[i].desc, &all, err, sizeof err) != 0) continue;   /* tested: never */
        k += conv_expand(&all, out + k, cap - k);
    }
    return k;
}

/* ---- dims, buffers, data -------------------------------------------------- */

conv_dims conv_problem_dims(const problem *p)
{
    conv_dims d = {(int)p->dim[CONV_DIM_N], (int)p->dim[CONV_DIM_C], (int)p->dim[CONV_DIM_H],
                   (int)p->dim[CONV_DIM_W], (int)p->dim[CONV_DIM_K], (int)p->dim[CONV_DIM_R],
                   (int)p->dim[CONV_DIM_S], (int)p->dim[CONV_DIM_SH], (int)p->dim[CONV_DIM_SW],
                   (int)p->dim[CONV_DIM_PH], (int)p->dim[CONV_DIM_PW], 0, 0};
    conv_dims_finish(&d);
    return d;
}

void conv_chunk_images(const problem *p, int c, int n, int *n0, int *n1)
{
    *n0 = (int)(p->dim[CONV_DIM_N] * c / n);
    *n1 = (int)(p->dim[CONV_DIM_N] * (c + 1) / n);
}

static void conv_layout(const problem *p, case_layout *l)
{
    conv_dims d = conv_problem_dims(p);
    size_t x = (size_t)conv_x_elems(&d), w = (size_t)conv_w_elems(&d);
    size_t y = (size_t)conv_y_elems(&d), b = (size_t)d.K;
    const dtype_t dt = p->dtype;
    if (p->variant == CONV_FWD) {
        layout_add_dt(l, "x", ROLE_IN, SPLIT_CHUNK, dt, x);
        layout_add_dt(l, "w", ROLE_IN, SPLIT_WHOLE, dt, w);
        layout_add_dt(l, "b", ROLE_IN, SPLIT_WHOLE, dt, b);
        layout_add_dt(l, "y", ROLE_OUT, SPLIT_CHUNK, dt, y);
    } else if (p->variant == CONV_BWD_DATA) {
        layout_add_dt(l, "dy", ROLE_IN, SPLIT_CHUNK, dt, y);
        layout_add_dt(l, "w", ROLE_IN, SPLIT_WHOLE, dt, w);
        layout_add_dt(l, "dx", ROLE_OUT, SPLIT_CHUNK, dt, x);
    } else {
        layout_add_dt(l, "x", ROLE_IN, SPLIT_CHUNK, dt, x);
        layout_add_dt(l, "dy", ROLE_IN, SPLIT_CHUNK, dt, y);
        layout_add_dt(l, "dw", ROLE_OUT, SPLIT_REDUCE, dt, w);
        layout_add_dt(l, "db", ROLE_OUT, SPLIT_REDUCE, dt, b);
    }
    l->streams = STREAMS_CHUNK;
    l->max_chunks = d.N;
    /* the reference's memory, and the scratch cpu-omp keeps for this case
     * (host memory beyond the buffers; runner_case_bytes counts ref_bytes) */
    l->ref_bytes = conv_ref_bytes(&d, (conv_dir)p->variant) +
                   conv_cpu_omp_scratch_bytes(dt, &d, (conv_dir)p->variant);
}

/* Inputs per direction, in buffer order: fwd 3, bwd-data 2, bwd-filter 2. */
static int n_inputs(const problem *p) { return p->variant == CONV_FWD ? 3 : 2; }

static void conv_fill(const problem *p, int set, void *const *host)
{
    case_layout l;
    memset(&l, 0, sizeof l);
    conv_layout(p, &l);
    unsigned long long seed = 1000003ULL * (unsigned long long)(p->dim[CONV_DIM_N] +
        7 * p->dim[CONV_DIM_C] + 13 * p->dim[CONV_DIM_H] + 17 * p->dim[CONV_DIM_K] +
        19 * p->dim[CONV_DIM_R]) + 101ULL * (unsigned long long)p->variant;
    for (int i = 0; i < n_inputs(p); i++)
        rng_fill_uniform((float *)host[i], l.buf[i].count,
                         seed + (unsigned long long)(8 * set + i + 1));
}

static void *conv_ref_build_cb(const problem *p, void *const *host)
{
    conv_ref *r = malloc(sizeof *r);
    conv_dims d = conv_problem_dims(p);
    const float *in[3] = {host[0], host[1], p->variant == CONV_FWD ? host[2] : NULL};
    if (!r) return NULL;
    if (conv_ref_build(r, &d, (conv_dir)p->variant, in, conv_ref_sampled(&d))) {
        free(r);
        return NULL;
    }
    return r;
}

static void conv_ref_free_cb(void *ref)
{
    conv_ref_free(ref);
    free(ref);
}

static check_result conv_check(const problem *p, const void *ref, int step, dtype_t dt, void *const *host,
                               char *why, size_t whycap)
{
    (void)step; /* one-step suite */
    int ni = n_inputs(p);
    const void *out[2] = {host[ni], p->variant == CONV_BWD_FILTER ? host[ni + 1] : NULL};
    return conv_ref_check(ref, out, p->dtype, dt, why, whycap);
}

static int conv_cpu_run(const backend_def *b, const problem *p, void *const *host)
{
    const conv_ops *ops = (const conv_ops *)b->ops;
    conv_dims d = conv_problem_dims(p);
    if (p->dtype != DTYPE_FP32) {
        const dtype_t dt = p->dtype;
        if (b->dt_path) case_note_set("%s", b->dt_path(dt));
        if (p->variant == CONV_FWD)
            return ops->fwd_dt(dt, &d, host[0], host[1], host[2], host[3], NULL, NULL);
        if (p->variant == CONV_BWD_DATA)
            return ops->bwd_data_dt(dt, &d, host[0], host[1], host[2], NULL, NULL);
        return ops->bwd_filter_dt(dt, &d, host[0], host[1], host[2], host[3], NULL, NULL);
    }
    if (p->variant == CONV_FWD)
        return ops->fwd(&d, host[0], host[1], host[2], host[3], NULL, NULL);
    if (p->variant == CONV_BWD_DATA) return ops->bwd_data(&d, host[0], host[1], host[2], NULL, NULL);
    return ops->bwd_filter(&d, host[0], host[1], host[2], host[3], NULL, NULL);
}

/* Chunk c of n: images n0..n1 of the CHUNK buffers (x, y, dy, dx); the
 * others (w, b, dw, db) are whole. (Cheap: no layout is built here.) */
static void conv_chunk(const problem *p, int buf, int c, int n, size_t *off, size_t *len)
{
    conv_dims d = conv_problem_dims(p);
    const size_t es = dtype_size(p->dtype);
    size_t xi = (size_t)d.C * d.H * d.W * es, yi = (size_t)d.K * d.P * d.Q * es, img;
    size_t w = (size_t)conv_w_elems(&d) * es, b = (size_t)d.K * es;
    int n0, n1;
    *off = 0;
    if (p->variant == CONV_FWD) {
        if (buf == CONV_FWD_W || buf == CONV_FWD_B) {
            *len = buf == CONV_FWD_W ? w : b;
            return;
        }
        img = buf == CONV_FWD_X ? xi : yi;
    } else if (p->variant == CONV_BWD_DATA) {
        if (buf == CONV_BWDD_W) {
            *len = w;
            return;
        }
        img = buf == CONV_BWDD_DY ? yi : xi;
    } else {
        if (buf == CONV_BWDF_DW || buf == CONV_BWDF_DB) {
            *len = buf == CONV_BWDF_DW ? w : b;
            return;
        }
        img = buf == CONV_BWDF_X ? xi : yi;
    }
    conv_chunk_images(p, c, n, &n0, &n1);
    *off = (size_t)n0 * img;
    *len = (size_t)(n1 - n0) * img;
}

const suite_def SUITE_CONV = {
    .name = "conv",
    .about = "fp32 2-D convolution (NCHW, KCRS), fwd / bwd-data / bwd-filter of real network layers",
    .op = "conv",
    .default_baseline = "cpu-blas",
    .problem_help = "benchdnn-style [fwd:|bwd-data:|bwd-filter:]mbNicCihHiwWocKkhRkwSshXswXphXpwX[_nNAME] "
        "(ic ih oc kh required; mb 2, iw=ih, kw=kh, sh 1, sw=sh, ph 0, pw=ph; no direction: all three)",
    .parse = conv_parse,
    .defaults = conv_defaults,
    .layout = conv_layout,
    .fill = conv_fill,
    .ref_build = conv_ref_build_cb,
    .ref_free = conv_ref_free_cb,
    .check = conv_check,
    .cpu_run = conv_cpu_run,
    .chunk = conv_chunk,
    .emu_max_work = 5e7, /* emulated default sweeps: the cnn layers */
    .expand = conv_expand,
    .dtypes = DTYPES_FLOAT, /* fp32, tf32, bf16, fp16 */
};
