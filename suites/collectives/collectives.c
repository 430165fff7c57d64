/* suites/collectives/collectives.c - the collectives suite: what nccl-tests
 * measures, on the engines a data-parallel step uses (ops/comm_ops.h).
 *
 *   allreduce       every rank's recv = the sum of every rank's send
 *   reduce          root's (rank 0's) recv = the sum
 *   broadcast       every rank's buffer = root's (in place, as MPI_Bcast)
 *   allgather       recv = rank 0's send, then rank 1's, ... (size / N each)
 *   reduce-scatter  rank r's recv = the sum of block r of every send
 * fp32, sum. A problem is one collective at a size in bytes: `allreduce:16M`
 * (K, M, G = 2^10, 2^20, 2^30; a multiple of 4), case `allreduce-16M`. The
 * size is nccl-tests' (the buffer every rank sends or receives whole:
 * allgather's recv, reduce-scatter's send); algorithm bandwidth = size /
 * time (the gbps column), bus bandwidth = algbw x nccl-tests' factor
 * (allreduce 2(N-1)/N, allgather and reduce-scatter (N-1)/N, broadcast and
 * reduce 1), the busbw_gbps column. Default sweep: each collective at 4 KiB,
 * 64 KiB, 1 MiB, 16 MiB and 128 MiB; with a real GPU also 1 GiB; --quick:
 * 4 KiB and 1 MiB.
 *
 * Every rank runs every case (suite_collective.all_ranks) and checks its own result
 * exactly: rank r sends v(r, i) = (i * 2654435761 mod 2^32 >> 8) mod 1024 + r,
 * integers, so every sum is exact in fp32 whatever the order (below 2^24 up
 * to 16000 ranks); the one checker with tolerance 0. A case's time is its
 * slowest rank's.
 */
#include "collectives.h"
#include "check.h"
#include "comm.h"
#include "errmsg.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const NAMES[C_COUNT] = {"allreduce", "reduce", "broadcast", "allgather",
                                           "reduce-scatter"};
#define MAX_BYTES (16ULL << 30)   /* 16 GiB per buffer: a typo, not a problem */
#define CHUNK COLL_CHECK_CHUNK

static const unsigned long long SIZES[] = {4ULL << 10, 64ULL << 10, 1ULL << 20, 16ULL << 20,
                                           128ULL << 20};
static const unsigned long long QUICK_SIZES[] = {4ULL << 10, 1ULL << 20};
#define NSIZES(a) ((int)(sizeof a / sizeof a[0]))

/* The GPU backends' one mode: the collective between device buffers. */
static const char *const COLL_GPU_MODES[] = {"device", NULL};

/* The ranks the check takes the result for: rank me of n (coll_ranks; -1:
 * this process among the MPI ranks). */
static int g_me = -1, g_n = -1;

void coll_ranks(int me, int n)
{
    g_me = me;
    g_n = n;
}

static int my_rank(void) { return g_me >= 0 ? g_me : comm_rank(); }
static int n_ranks(void) { return g_n > 0 ? g_n : comm_size(); }

/* Rank r's send element i. */
float coll_value(int r, long long i)
{
    uint32_t h = (uint32_t)((uint64_t)i * 2654435761ULL);
    return (float)((h >> 8) % 1024 + (uint32_t)r);
}

/* Elements per rank block: the whole buffer, or (allgather, reduce-scatter)
 * its N-th. */
long long coll_block(const problem *p, int n)
{
    long long e = p->dim[0] / 4;
    return p->variant == C_ALLGATHER || p->variant == C_REDUCE_SCATTER ? e / n : e;
}

static void set_problem(problem *p, int k, unsigned long long bytes)
{
    static const char SUFFIX[] = "KMG";
    memset(p, 0, sizeof *p);
    p->variant = k;
    p->dim[0] = (long long)bytes;
    p->bytes = (double)bytes;
    int e = 0;
    while (e < 3 && bytes % (1ULL << (10 * (e + 1))) == 0) e++;
    if (e)
        snprintf(p->name, sizeof p->name, "%s-%llu%c", NAMES[k], bytes >> (10 * e), SUFFIX[e - 1]);
    else snprintf(p->name, sizeof p->name, "%s-%llu", NAMES[k], bytes);
    snprintf(p->desc, sizeof p->desc, "%s:%llu", NAMES[k], bytes);
    snprintf(p->sweep, sizeof p->sweep, "%s", NAMES[k]);   /* per collective, x = bytes */
    p->sweep_x = (double)bytes;
}

static int coll_parse(const char *s, problem *p, char *err, size_t errcap)
{
    const char *colon = strchr(s, ':');
    int k = -1;
    for (int i = 0; colon && i < C_COUNT; i++)
        if ((size_t)(colon - s) == strlen(NAMES[i]) && strncmp(s, NAMES[i], (size_t)(colon - s)) == 0)
            k = i;
    if (k < 0) return -1;
    const char *num = colon + 1;
    char *end = (char *)num;
    errno = 0;
    unsigned long long n = (*num >= '0' && *num <= '9') ? strtoull(num, &end, 10) : 0;
    int shift = 0;
    if (n && !errno) {
        if (*end == 'K') shift = 10, end++;
        else if (*end == 'M') shift = 20, end++;
        else if (*end == 'G') shift = 30, end++;
    }
    if (!n || errno || *end || n > (MAX_BYTES >> shift) || ((n << shift) % 4)) {
        snprintf(err, errcap, "bench: collectives problem '%s': the size must be bytes from 4 to "
                 "16G, a multiple of 4 (digits, optionally K, M or G = 2^10, 2^20, 2^30), e.g. "
                 "allreduce:16M (got '%.24s')", s, num);
        return 2;
    }
    set_problem(p, k, n << shift);
    return 0;
}

/* Sizes outermost (the chart's x axis), every collective at each. */
static int coll_defaults(int quick, int big, problem *out, int cap)
{
    int k = 0, ns = quick ? NSIZES(QUICK_SIZES) : NSIZES(SIZES);
    for (int i = 0; i < ns + (big && !quick); i++) {
        unsigned long long b = quick ? QUICK_SIZES[i] : i < NSIZES(SIZES) ? SIZES[i] : 1ULL << 30;
        for (int c = 0; c < C_COUNT && k < cap; c++) set_problem(&out[k++], c, b);
    }
    return k;
}

/* send (IN) and recv (OUT), broadcast's one buffer (INOUT), for this job's
 * ranks. */
static void coll_layout(const problem *p, case_layout *l)
{
    const int n = n_ranks();
    const size_t b = (size_t)coll_block(p, n) * sizeof(float);
    switch (p->variant) {
    case C_BROADCAST: layout_add(l, "buf", ROLE_INOUT, SPLIT_WHOLE, b); break;
    case C_ALLGATHER:
        layout_add(l, "send", ROLE_IN, SPLIT_WHOLE, b);
        layout_add(l, "recv", ROLE_OUT, SPLIT_WHOLE, b * (size_t)n);
        break;
    case C_REDUCE_SCATTER:
        layout_add(l, "send", ROLE_IN, SPLIT_WHOLE, b * (size_t)n);
        layout_add(l, "recv", ROLE_OUT, SPLIT_WHOLE, b);
        break;
    default:
        layout_add(l, "send", ROLE_IN, SPLIT_WHOLE, b);
        layout_add(l, "recv", ROLE_OUT, SPLIT_WHOLE, b);
    }
    l->max_chunks = 1;
    l->sets = 1;   /* collectives move their buffers whatever the cache holds */
    l->ref_bytes = CHUNK * sizeof(double);
}

static void coll_fill(const problem *p, int set, void *const *host)
{
    const int me = my_rank(), n = n_ranks();
    long long e = coll_block(p, n) * (p->variant == C_REDUCE_SCATTER ? n : 1);
    float *x = (float *)host[0];
    (void)set;
    for (long long i = 0; i < e; i++) x[i] = coll_value(me, i);
}

/* Nothing to keep: the expected values follow from the ranks' formula. */
static void *coll_ref_build(const problem *p, void *const *host)
{
    (void)p;
    (void)host;
    return malloc(CHUNK * sizeof(double));
}

static void coll_ref_free(void *ref) { free(ref); }

/* What this rank's element i of the result must be. */
static double expected(const problem *p, int me, int n, long long c, long long i)
{
    double s = 0;
    switch (p->variant) {
    case C_BROADCAST: return coll_value(0, i);
    case C_ALLGATHER: return coll_value((int)(i / c), i % c);
    case C_REDUCE_SCATTER:
        for (int r = 0; r < n; r++) s += coll_value(r, (long long)me * c + i);
        return s;
    default:
        for (int r = 0; r < n; r++) s += coll_value(r, i);
        return s;
    }
}

check_result coll_verify(const problem *p, int me, int n, void *const *host, double *want,
                         char *why, size_t whycap)
{
    const long long c = coll_block(p, n), total = c * (p->variant == C_ALLGATHER ? n : 1);
    const float *got = (const float *)host[p->variant == C_BROADCAST ? 0 : 1];
    check_result res = {0, 0, 0, 0, -1, 1};
    if (p->variant == C_REDUCE && me != 0) return res;   /* only the root receives */
    for (long long at = 0; at < total; at += CHUNK) {
        long long m = total - at < CHUNK ? total - at : CHUNK;
        for (long long i = 0; i < m; i++) want[i] = expected(p, me, n, c, at + i);
        check_result r = check_compare(got + at, want, (size_t)m, 0.0);
        if (!r.pass) {
            long long w = at + r.worst_index;
            if (r.nonfinite)
                snprintf(why, whycap, "%ld non-finite elements from element %lld (NaN: unwritten?)",
                         r.nonfinite, at);
            else
                snprintf(why, whycap, "rank %d: element %lld = %.9g, want %.9g (exact)", me, w,
                         (double)got[w], want[r.worst_index]);
            r.worst_index = (long)w;
            return r;
        }
    }
    return res;
}

static check_result coll_check(const problem *p, const void *ref, int step, dtype_t dt,
                               void *const *host, char *why, size_t whycap)
{
    (void)step;
    (void)dt;
    return coll_verify(p, my_rank(), n_ranks(), host, (double *)ref, why, whycap);
}

int coll_call(const problem *p, const comm_ops *t, float *x, float *y, long long c, void *stream)
{
    switch (p->variant) {
    case C_ALLREDUCE: return t->allreduce(t->ctx, x, y, c, stream);
    case C_REDUCE: return t->reduce(t->ctx, x, y, c, 0, stream);
    case C_BROADCAST: return t->bcast(t->ctx, x, c, 0, stream);
    case C_ALLGATHER: return t->allgather(t->ctx, x, y, c, stream);
    default: return t->reduce_scatter(t->ctx, x, y, c, stream);
    }
}

static int coll_cpu_run(const backend_def *b, const problem *p, void *const *host)
{
    static comm_ops t;
    static const backend_def *have;
    char why[200];
    if (have != b) {
        if (((int (*)(comm_ops *, char *, size_t))b->fn)(&t, why, sizeof why)) {
            err_set("%s", why);
            return -1;
        }
        have = b;
    }
    float *y = p->variant == C_BROADCAST ? NULL : (float *)host[1];
    return coll_call(p, &t, (float *)host[0], y, coll_block(p, t.size), NULL);
}

/* nccl-tests' bus bandwidth factor (its doc/PERFORMANCE.md). */
static double coll_bus_factor(const problem *p, int n)
{
    switch (p->variant) {
    case C_ALLREDUCE: return 2.0 * (n - 1) / n;
    case C_ALLGATHER:
    case C_REDUCE_SCATTER: return (double)(n - 1) / n;
    default: return 1.0;
    }
}

/* Every rank runs every case; busbw from nccl-tests' factors. */
static const suite_collective COLL_COLLECTIVE = {
    .all_ranks = 1,
    .bus_factor = coll_bus_factor,
};

const suite_def SUITE_COLLECTIVES = {
    .name = "collectives",
    .about = "all-reduce, reduce, broadcast, all-gather and reduce-scatter between the ranks "
             "(nccl-tests' bandwidths), checked exactly",
    .op = "collective",
    .default_baseline = "mpi",
    .problem_help = "<collective>:<bytes>: allreduce, reduce, broadcast, allgather or "
                    "reduce-scatter, bytes with K, M or G (allreduce:16M)",
    .parse = coll_parse,
    .defaults = coll_defaults,
    .layout = coll_layout,
    .fill = coll_fill,
    .ref_build = coll_ref_build,
    .ref_free = coll_ref_free,
    .check = coll_check,
    .cpu_run = coll_cpu_run,
    .chunk = NULL,
    .emu_max_work = 4e6,   /* emulated default sweeps: up to 1 MiB */
    .expand = NULL,
    .steps = NULL,
    .dp_open = NULL,
    .coll = &COLL_COLLECTIVE,
    .modes = COLL_GPU_MODES,
};
