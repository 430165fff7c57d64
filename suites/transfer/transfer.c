/* suites/transfer/transfer.c - the transfer suite (the bandwidthTest /
 * nvbandwidth role): H2D, D2H and D2D copies, pinned vs pageable, sync vs
 * async, over 4 KiB ... 256 MiB (x4 steps; --quick: 4 KiB, 1 MiB, 16 MiB), in
 * GB/s, with the per-copy time (latency at small sizes) in median_ms. A
 * problem is a byte count (`--sizes 1048576`, or with a KiB/MiB/GiB suffix).
 * Every copy is checked byte-exact on its first run; its modes are its own
 * (transfer_gpu.c). */
#include "transfer.h"
#include "check.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BYTES (16ULL << 30)

static const unsigned long long SIZES[] = {4u << 10,  16u << 10, 64u << 10, 256u << 10, 1u << 20,
                                           4u << 20,  16u << 20, 64u << 20, 256u << 20};
/* Which way a row of mode m copies (its roof: the copy roof of its direction,
 * device bandwidth for d2d). */
static roof_copy transfer_mode_copy(const char *m)
{
    if (strncmp(m, "h2d", 3) == 0) return ROOF_COPY_H2D;
    if (strncmp(m, "d2h", 3) == 0) return ROOF_COPY_D2H;
    return strcmp(m, "d2d") == 0 ? ROOF_COPY_D2D : ROOF_COPY_NONE;
}

static const unsigned long long QUICK_SIZES[] = {4u << 10, 1u << 20, 16u << 20};

/* Direction, host memory and sync: the suite's own GPU modes. */
static const char *const MODES[] = {
    "h2d-pageable-sync", "h2d-pinned-sync", "h2d-pageable-async", "h2d-pinned-async",
    "d2h-pageable-sync", "d2h-pinned-sync", "d2h-pageable-async", "d2h-pinned-async",
    "d2d",               NULL};

void transfer_pattern(unsigned char *out, size_t bytes)
{
    size_t whole = bytes / sizeof(float) * sizeof(float);
    rng_fill_uniform((float *)(void *)out, bytes / sizeof(float), 0xC0FFEEULL + bytes);
    for (size_t i = whole; i < bytes; i++) out[i] = (unsigned char)(i * 131u + 7u);
}

static void set_problem(problem *p, unsigned long long bytes)
{
    memset(p, 0, sizeof *p);
    p->dim[0] = (long long)bytes;
    p->bytes = (double)bytes;
    if (bytes >= (1u << 20) && bytes % (1u << 20) == 0)
        snprintf(p->name, sizeof p->name, "copy-%lluMiB", bytes >> 20);
    else if (bytes >= (1u << 10) && bytes % (1u << 10) == 0)
        snprintf(p->name, sizeof p->name, "copy-%lluKiB", bytes >> 10);
    else
        snprintf(p->name, sizeof p->name, "copy-%lluB", bytes);
    snprintf(p->desc, sizeof p->desc, "%llu", bytes);
    /* one axis, x = bytes; the mode (direction, memory, sync) makes the curves */
    snprintf(p->sweep, sizeof p->sweep, "copy");
    p->sweep_x = (double)bytes;
}

/* Bytes: digits and an optional KiB, MiB or GiB suffix, 1 byte to 16 GiB.
 * Anything that starts with a digit or a sign and has no 'x' (matmul's MxNxK)
 * or ':' (stream's) is transfer's to judge: one line naming value and limit. */
static int transfer_parse(const char *s, problem *p, char *err, size_t errcap)
{
    static const struct { const char *suffix; unsigned long long unit; } UNITS[] = {
        {"", 1}, {"KiB", 1ULL << 10}, {"MiB", 1ULL << 20}, {"GiB", 1ULL << 30}};
    char *end;
    if (!((*s >= '0' && *s <= '9') || *s == '-' || *s == '+') || strpbrk(s, "x:")) return -1;
    errno = 0;
    unsigned long long v = (*s >= '0' && *s <= '9') ? strtoull(s, &end, 10) : 0;
    for (size_t u = 0; v && u < sizeof UNITS / sizeof UNITS[0]; u++) {
        if (strcmp(end, UNITS[u].suffix) != 0) continue;
        if (errno || v > MAX_BYTES / UNITS[u].unit) break;
        set_problem(p, v * UNITS[u].unit);
        return 0;
    }
    snprintf(err, errcap, "bench: transfer size '%s': want a whole number of bytes from 1 to "
             "%llu (16 GiB), optionally with a KiB, MiB or GiB suffix", s, MAX_BYTES);
    return 2;
}

static int transfer_defaults(int quick, int big, problem *out, int cap)
{
    const unsigned long long *src = quick ? QUICK_SIZES : SIZES;
    int n = quick ? (int)(sizeof QUICK_SIZES / sizeof *QUICK_SIZES)
                  : (int)(sizeof SIZES / sizeof *SIZES);
    (void)big;
    for (int i = 0; i < n && i < cap; i++) set_problem(&out[i], src[i]);
    return n < cap ? n : cap;
}

static void transfer_layout(const problem *p, case_layout *l)
{
    layout_add(l, "dst", ROLE_OUT, SPLIT_WHOLE, (size_t)p->dim[0]);
    l->ref_bytes = (double)p->dim[0];
}

static void transfer_fill(const problem *p, int set, void *const *host)
{
    (void)p, (void)set, (void)host; /* the copy's source is transfer_pattern */
}

static void *transfer_ref_build(const problem *p, void *const *host)
{
    size_t n = (size_t)p->dim[0];
    unsigned char *ref = malloc(n ? n : 1);
    (void)host;
    if (ref) transfer_pattern(ref, n);
    return ref;
}

static void transfer_ref_free(void *ref) { free(ref); }

/* Byte-exact: max_abs_err is the largest byte difference, rel_err the
 * fraction of bytes that differ; the tolerance is 0. */
static check_result transfer_check(const problem *p, const void *ref, int step, dtype_t dt, void *const *host,
                                   char *why, size_t whycap)
{
    (void)step; /* one-step suite */
    const unsigned char *a = host[0], *b = ref;
    size_t n = (size_t)p->dim[0], wrong = 0;
    check_result r = {0, 0, 0, 0, -1, 1};
    (void)dt;
    for (size_t i = 0; i < n; i++) {
        int d = a[i] > b[i] ? a[i] - b[i] : b[i] - a[i];
        if (!d) continue;
        if (!wrong) r.worst_index = (long)i;
        wrong++;
        if (d > r.max_abs_err) r.max_abs_err = d;
    }
    r.rel_err = n ? (double)wrong / (double)n : 0;
    r.pass = wrong == 0;
    if (!r.pass)
        snprintf(why, whycap, "copy not byte-exact: %zu of %zu bytes differ, first at byte %ld",
                 wrong, n, r.worst_index);
    return r;
}

static int transfer_cpu_run(const backend_def *b, const problem *p, void *const *host)
{
    (void)b, (void)p, (void)host;
    return -1; /* the suite has no CPU backends */
}

static void transfer_chunk(const problem *p, int buf, int c, int n, size_t *off, size_t *len)
{
    (void)p, (void)buf, (void)c, (void)n;
    *off = *len = 0;
}

const suite_def SUITE_TRANSFER = {
    .name = "transfer",
    .about = "H2D / D2H / D2D copy bandwidth and latency: pinned vs pageable, sync vs async",
    .op = "copy",
    .problem_help = "bytes: 1048576, or 4KiB, 16MiB, 1GiB",
    .parse = transfer_parse,
    .defaults = transfer_defaults,
    .layout = transfer_layout,
    .fill = transfer_fill,
    .ref_build = transfer_ref_build,
    .ref_free = transfer_ref_free,
    .check = transfer_check,
    .cpu_run = transfer_cpu_run,
    .chunk = transfer_chunk,
    .emu_max_work = (double)(16u << 20), /* emulated copies are plain memcpy; default sweeps stop here */
    .modes = MODES,
    .mode_copy = transfer_mode_copy,
};
