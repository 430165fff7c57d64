/* suites/stream/stream.c - the stream suite: McCalpin's STREAM kernels, the
 * memory bandwidth each device sustains, the figure every GEMM and
 * convolution result should be read against.
 *
 *   copy   c = a          2 arrays moved per element, 0 FLOPs
 *   scale  b = s * c      2 arrays,                   1 FLOP
 *   add    c = a + b      3 arrays,                   1 FLOP
 *   triad  a = b + s * c  3 arrays,                   2 FLOPs     (s = 3, McCalpin's)
 *
 * Reported as GB/s (10^9 B/s) from McCalpin's byte counts: arrays x N x 4 per
 * repetition (a write-allocate's extra read of the output is not counted, as
 * in STREAM). The FLOP column stays empty for every kernel: STREAM reports
 * bandwidth only.
 *
 * fp32, where McCalpin's default is double. The bytes are what is measured,
 * and both widths move them as the same full-width vector loads and stores
 * (16-byte float4 on the GPU, 64-byte lines on the CPU), so the rate does not
 * depend on the element; fp32 is what every other suite here computes and
 * what the one checker and the dtype column know, and it keeps the triad
 * memory-bound on GPUs whose fp64 runs at 1/32 or 1/64 rate. Compare with
 * STREAM at equal bytes per array (triad:32M here = STREAM_ARRAY_SIZE 2^24
 * doubles = 128 MiB per array); STREAM built with -DSTREAM_TYPE=float at the
 * same N gives the same rates (README, "stream").
 *
 * A problem is one kernel at N elements: `triad:16777216` or `triad:16M`
 * (K, M, G = 2^10, 2^20, 2^30 elements), case name `triad-16M`. The default
 * sweep runs every kernel at 2^16 elements (256 KiB per array: in L2), 2^20
 * (4 MiB: in L3) and 2^25 (128 MiB: memory; the rates at 2^25 and 2^28 agree
 * within noise on the 2-core CI VM, whose L3 is the host's, shared), so the
 * chart shows the cache cliff; with a real GPU also 2^28 (1 GiB per array,
 * 20x an H100's L2). --quick: 4099 (a scalar tail) and 2^18.
 *
 * Checked exactly: the reference is computed in double from the same inputs
 * and rounded to fp32 after each operation as the kernels round (the double
 * results are exact for these inputs: multiples of 2^-23 in [-1, 1), whose
 * products by 3 and sums fit in 53 bits), so a correct backend's output equals
 * it bit for bit. The one checker with tolerance 0: max_abs_err and rel_err
 * are the real (zero) errors, any difference or NaN fails.
 */
#include "stream.h"
#include "stream_cpu.h"
#include "check.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_N (1ULL << 36)   /* 256 GiB per array: a typo, not a problem */

static const char *const KERNELS[] = {"copy", "scale", "add", "triad"};
/* McCalpin's array names: inputs, then the output */
static const char *const ARRAYS[4][3] = {
    {"a", NULL, "c"}, {"c", NULL, "b"}, {"a", "b", "c"}, {"b", "c", "a"}};

static const unsigned long long SIZES[] = {1ULL << 16, 1ULL << 20, 1ULL << 25};
static const unsigned long long GPU_EXTRA_SIZES[] = {1ULL << 28};
static const unsigned long long QUICK_SIZES[] = {4099, 1ULL << 18};
#define NSIZES(a) ((int)(sizeof a / sizeof a[0]))

int stream_inputs(const problem *p) { return p->variant >= STREAM_ADD ? 2 : 1; }

static void set_problem(problem *p, int k, unsigned long long n)
{
    static const char SUFFIX[] = "KMG";
    memset(p, 0, sizeof *p);
    p->variant = k;
    p->dim[0] = (long long)n;
    p->bytes = stream_bytes((stream_kernel)k, (size_t)n);
    int e = 0;
    while (e < 3 && n % (1ULL << (10 * (e + 1))) == 0) e++;
    if (e) snprintf(p->name, sizeof p->name, "%s-%llu%c", KERNELS[k], n >> (10 * e), SUFFIX[e - 1]);
    else snprintf(p->name, sizeof p->name, "%s-%llu", KERNELS[k], n);
    snprintf(p->desc, sizeof p->desc, "%s:%llu", KERNELS[k], n);
    snprintf(p->sweep, sizeof p->sweep, "%s", KERNELS[k]);   /* per kernel, x = elements */
    p->sweep_x = (double)n;
}

static int stream_parse(const char *s, problem *p, char *err, size_t errcap)
{
    const char *colon = strchr(s, ':');
    int k = -1;
    for (int i = 0; colon && i < 4; i++)
        if ((size_t)(colon - s) == strlen(KERNELS[i]) && strncmp(s, KERNELS[i], (size_t)(colon - s)) == 0)
            k = i;
    if (k < 0) return -1;
    const char *num = colon + 1;
    char *end;
    errno = 0;
    unsigned long long n = (*num >= '0' && *num <= '9') ? strtoull(num, &end, 10) : 0;
    int shift = 0;
    if (n && !errno) {
        if (*end == 'K') shift = 10, end++;
        else if (*end == 'M') shift = 20, end++;
        else if (*end == 'G') shift = 30, end++;
    }
    if (!n || errno || *end) {
        snprintf(err, errcap, "bench: stream problem '%s': N must be a whole number of elements "
                 "from 1 to 2^36 (digits, optionally K, M or G = 2^10, 2^20, 2^30), e.g. triad:16M "
                 "(got '%.24s')", s, num);
        return 2;
    }
    if (n > (MAX_N >> shift)) {
        snprintf(err, errcap, "bench: stream problem '%s': N too large (at most 2^36 elements)", s);
        return 2;
    }
    set_problem(p, k, n << shift);
    return 0;
}

/* Every kernel at each size, sizes outermost (the chart's x axis). */
static int stream_defaults(int quick, int big, problem *out, int cap)
{
    unsigned long long n[NSIZES(SIZES) + NSIZES(GPU_EXTRA_SIZES)];
    int ns = 0, k = 0;
    if (quick) {
        for (int i = 0; i < NSIZES(QUICK_SIZES); i++) n[ns++] = QUICK_SIZES[i];
    } else {
        for (int i = 0; i < NSIZES(SIZES); i++) n[ns++] = SIZES[i];
        for (int i = 0; big && i < NSIZES(GPU_EXTRA_SIZES); i++) n[ns++] = GPU_EXTRA_SIZES[i];
    }
    for (int i = 0; i < ns; i++)
        for (int kern = 0; kern < 4 && k < cap; kern++) set_problem(&out[k++], kern, n[i]);
    return k;
}

static void stream_layout(const problem *p, case_layout *l)
{
    size_t n = (size_t)p->dim[0], bytes = n * sizeof(float);
    int nin = stream_inputs(p);
    for (int i = 0; i < nin; i++) layout_add(l, ARRAYS[p->variant][i], ROLE_IN, SPLIT_CHUNK, bytes);
    layout_add(l, ARRAYS[p->variant][2], ROLE_OUT, SPLIT_CHUNK, bytes);
    l->streams = STREAMS_CHUNK;
    l->max_chunks = n < INT_MAX ? (int)n : INT_MAX;
    l->ref_bytes = (double)n * sizeof(double);
}

static void stream_fill(const problem *p, int set, void *const *host)
{
    unsigned long long seed = 0x5EA3ULL * (unsigned long long)(p->dim[0] + 1) + 97ULL * p->variant;
    for (int i = 0; i < stream_inputs(p); i++)
        rng_fill_uniform((float *)host[i], (size_t)p->dim[0], seed + 2ULL * set + (unsigned)i);
}

/* In double, rounded to fp32 after each operation (exact: see the header). */
static void *stream_ref_build(const problem *p, void *const *host)
{
    long long n = p->dim[0];
    const float *x = host[0], *y = stream_inputs(p) == 2 ? host[1] : NULL;
    const double s = STREAM_SCALAR;
    double *ref = malloc((size_t)(n ? n : 1) * sizeof *ref);
    if (!ref) return NULL;
#pragma omp parallel for schedule(static)
    for (long long i = 0; i < n; i++) {
        switch (p->variant) {
        case STREAM_COPY: ref[i] = x[i]; break;
        case STREAM_SCALE: ref[i] = (float)(s * x[i]); break;
        case STREAM_ADD: ref[i] = (float)((double)x[i] + y[i]); break;
        default: ref[i] = (float)((double)x[i] + (float)(s * y[i])); break;
        }
    }
    return ref;
}

static void stream_ref_free(void *ref) { free(ref); }

static check_result stream_check(const problem *p, const void *ref, int step, dtype_t dt, void *const *host,
                                 char *why, size_t whycap)
{
    (void)step; /* one-step suite */
    const float *out = host[stream_inputs(p)];
    const double *r = ref;
    (void)dt;
    check_result res = check_compare(out, r, (size_t)p->dim[0], 0.0);
    if (res.pass) return res;
    if (res.nonfinite)
        snprintf(why, whycap, "%ld non-finite elements (NaN: unwritten?)", res.nonfinite);
    else
        snprintf(why, whycap, "%s[%ld] = %.9g, reference %.9g (must match bit for bit)",
                 ARRAYS[p->variant][2], res.worst_index, (double)out[res.worst_index],
                 r[res.worst_index]);
    return res;
}

static int stream_cpu_run(const backend_def *b, const problem *p, void *const *host)
{
    int nin = stream_inputs(p);
    return ((stream_fn)b->fn)((stream_kernel)p->variant, (size_t)p->dim[0], STREAM_SCALAR,
                              host[0], nin == 2 ? host[1] : NULL, host[nin]);
}

void stream_chunk_range(const problem *p, int c, int n, size_t *lo, size_t *hi)
{
    size_t lines = (size_t)p->dim[0] / 16;
    *lo = c == 0 ? 0 : lines * (size_t)c / (size_t)n * 16;
    *hi = c + 1 == n ? (size_t)p->dim[0] : lines * (size_t)(c + 1) / (size_t)n * 16;
}

/* Chunk c of n: the same element range of every array. */
static void stream_chunk(const problem *p, int buf, int c, int n, size_t *off, size_t *len)
{
    size_t lo, hi;
    (void)buf;
    stream_chunk_range(p, c, n, &lo, &hi);
    *off = lo * sizeof(float);
    *len = (hi - lo) * sizeof(float);
}

const suite_def SUITE_STREAM = {
    .name = "stream",
    .about = "McCalpin's STREAM copy, scale, add, triad (fp32): sustained memory bandwidth in GB/s",
    .op = "stream",
    .default_baseline = "cpu-omp",
    .problem_help = "KERNEL:N, KERNEL copy, scale, add or triad, N elements (K, M, G = 2^10, 2^20, 2^30): triad:16M",
    .parse = stream_parse,
    .defaults = stream_defaults,
    .layout = stream_layout,
    .fill = stream_fill,
    .ref_build = stream_ref_build,
    .ref_free = stream_ref_free,
    .check = stream_check,
    .cpu_run = stream_cpu_run,
    .chunk = stream_chunk,
    .emu_max_work = (double)(16u << 20), /* emulated default sweeps stop at 16 MiB moved: 2^20 elements */
};
