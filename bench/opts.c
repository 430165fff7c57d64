/* bench/opts.c - parsing the bench command line (syntax; suites and
 * backends are checked against the registries in harness/select.c), and the
 * option table: which action each option applies to, what a run must have
 * for it to change anything. */
#define _POSIX_C_SOURCE 200809L
#include "opts.h"
#include "select.h"
#include "machine.h"
#include "workers.h"
#include "neighbour.h"
#include "gpu_alloc.h"
#include "../ops/dtype.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void opts_usage(FILE *f)
{
    fputs(
        "usage: bench [options]\n"
        "Runs the same work on CPU and GPU backends, checks every result against a\n"
        "double-precision reference, and writes results.csv, report.md and charts.\n"
        "\n"
        "  --suite LIST       comma-separated suites, or all (default all; see --list)\n"
        "  --backend LIST     comma-separated backends (default: every backend of each suite)\n"
        "  --sizes LIST       problems, comma-separated, in each suite's syntax (see --list):\n"
        "                     matmul N or MxNxK; stream elements; transfer bytes;\n"
        "                     conv mb32ic64ih56oc64kh3ph1; train cnn-b64\n"
        "  --mode LIST        modes to run: host (CPU rows), resident, sync-pinned, ...\n"
        "  --dtype LIST       precisions of matmul and conv: fp32, tf32, bf16, fp16, or all\n"
        "                     (default: all in full default sweeps, fp32 with --quick or\n"
        "                     --sizes); the other suites have one dtype each\n"
        "  --alloc LIST       train, GPU rows: device allocators, each a row per mode:\n"
        "                     cached (a caching pool, the default), per-step (cudaMalloc\n"
        "                     and cudaFree every step), async-pool (cudaMallocAsync)\n"
        "  --quick            a few small sizes (a smoke run, well under a minute)\n"
        "  --reps N           exactly N timed repetitions per case\n"
        "  --min-time S       keep repeating until S seconds are measured (default 0.25)\n"
        "  --rounds N         measure a problem's CPU backends (host rows) together in N\n"
        "                     alternating rounds, each a share of --min-time / --reps, so\n"
        "                     load that comes and goes hits both sides of a speedup (2..1000)\n"
        "  --threads N        CPU threads for OpenMP and OpenBLAS (default: all cores)\n"
        "  --baseline NAME    backend speedups are measured against (default: each suite's)\n"
        "  --out DIR          run folder (default results/<UTC time>, and results/latest)\n"
        "  --force            --out may hold an earlier run: replace its files\n"
        "  --json FILE        also write the run as Google Benchmark JSON\n"
        "  --name NAME        this machine's name in the machine column (default: its host\n"
        "                     and class, the CPU model and GPU names)\n"
        "  --no-plots         do not render charts\n"
        "  --no-roofs         skip the roof probe: no pct_roof or verdict columns\n"
        "  --neighbour busy   measure every timed row again beside a nice -n 19 busy-loop\n"
        "                     process bench starts for it: the neighbour_x column (beside\n"
        "                     / quiet median) and a findings line per backend\n"
        "  --verbose          stdout: every row too, not only the summary\n"
        "  --plot DIR         re-render the charts and report of an earlier run, then exit\n"
        "  --merge DIR...     merge run folders of several machines (read-only) into --out\n"
        "                     DIR: one results.csv, a report.md comparing the machines per\n"
        "                     workload, charts (and --json); at most 12 folders\n"
        "  --reference NAME   --merge: the machine the others are divided by (default: the\n"
        "                     first folder's)\n"
        "  --price NAME=USD,.. --merge: each machine's price per hour (NAME as the merge\n"
        "                     names it; repeatable): cost per million repetitions, and\n"
        "                     the 'Which machine' section (default: a run's own\n"
        "                     --price-per-hour)\n"
        "  --weights KEY=W,.. --merge: the mix 'Which machine' weighs, over workload keys\n"
        "                     or suites (default: every suite equally)\n"
        "  --price-per-hour USD  this machine's price, recorded for --merge\n"
        "  --steps N          train: record the loss of N steps from the initial parameters\n"
        "                     per case (the trace column and loss chart; default: the 3\n"
        "                     checked steps; at most 300)\n"
        "  --devices N        train: GPU data-parallel replicas in this process, GPUs\n"
        "                     0..N-1 over NCCL (1 to 64; under mpirun: one GPU per rank)\n"
        "  --workers N        train: hogwild mode on the CPU backends: N worker processes\n"
        "                     (1 to 64) update shared parameters without locks, each\n"
        "                     with threads/N threads (with --mode: name hogwild)\n"
        "  --bucket-mb X      train, ddp-overlap: gradient bucket size in MiB (default 25,\n"
        "                     as DDP's bucket_cap_mb; 0.001 to 4096)\n"
        "  --dump DIR         train: write step 1 of every case as .npy files into\n"
        "                     DIR/<case>-<backend>[-<mode>]/ (DIR new or empty)\n"
        "  --emulate          run GPU cases on the CUDA host emulator (correctness only)\n"
        "  --device N         GPU to use (default 0)\n"
        "  --require-gpu      the run needs a usable GPU: exit 1 before any work when there\n"
        "                     is none (naming a GPU backend or --device asks for one too)\n"
        "  --cuda-sync        synchronize after every GPU launch (debugging)\n"
        "  --list             list suites, their problem syntax and backends\n"
        "  --columns          print the results.csv columns (markdown)\n"
        "  --info             print the machine: CPU, memory, BLAS, GPUs (free and total\n"
        "                     device memory)\n"
        "  --max-batch MODEL  the largest batch of a train model's step that fits on each\n"
        "                     device (a search over the memory estimate, confirmed by one\n"
        "                     step); with --backend (one GPU backend) and --emulate\n"
        "  --help, --version\n"
        "\n"
        "Each option at most once, and only with the action it applies to.\n"
        "Exit status: 0 every check passed, 1 a check failed, a case errored, a file\n"
        "could not be written or a GPU was asked for and none is usable, 2 bad usage,\n"
        "128+n ended by signal n (130 SIGINT).\n",
        f);
}

static int fail(char *err, size_t cap, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
    return 2;
}

/* A positive int: digits only, no sign, no overflow. */
static int parse_pos_int(const char *s, long max, long *out)
{
    if (!s || !*s) return -1;
    for (const char *p = s; *p; p++)
        if (*p < '0' || *p > '9') return -1;
    errno = 0;
    long v = strtol(s, NULL, 10);
    if (errno || v < 1 || v > max) return -1;
    *out = v;
    return 0;
}

/* Splits a comma list in place into items (pointers into s); an empty item
 * ("a,,b", ",a", "a,") is an error. */
static int split_list(char *s, const char **items, int max, int *n)
{
    *n = 0;
    size_t len = strlen(s);
    if (len == 0 || s[0] == ',' || s[len - 1] == ',' || strstr(s, ",,")) return -1;
    char *save = NULL;
    for (char *tok = strtok_r(s, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (*n == max) return -1;
        items[(*n)++] = tok;
    }
    return *n ? 0 : -1;
}

/* An item named twice in a list would change nothing: its name, or NULL. */
static const char *repeated_item(const char *const *items, int n)
{
    for (int i = 0; i < n; i++)
        for (int j = 0; j < i; j++)
            if (strcmp(items[i], items[j]) == 0) return items[i];
    return NULL;
}

/* Every option, once: what it is called, which actions it applies to and,
 * for a run, what the selection must have for it to change anything
 * (rule: an option either changes what happens or is refused). */
enum { ACT_RUN = 1, ACT_PLOT = 2, ACT_LIST = 4, ACT_INFO = 8, ACT_COLUMNS = 16, ACT_HELP = 32,
       ACT_VERSION = 64, ACT_MERGE = 128, ACT_MAXB = 256 };
typedef struct opt_def {
    const char *name;
    int takes_value;
    unsigned actions; /* the actions it applies to */
    int is_action;    /* it chooses the action itself (--plot, --list, ...) */
    int repeat;       /* may be given again: its lists add up (--price) */
    unsigned needs;   /* SEL_* (harness/select.h): a run without it is refused */
} opt_def;

static const opt_def OPTS[] = {
    {.name = "--help", .actions = ACT_HELP, .is_action = 1},
    {.name = "--version", .actions = ACT_VERSION, .is_action = 1},
    {.name = "--list", .actions = ACT_LIST, .is_action = 1},
    {.name = "--columns", .actions = ACT_COLUMNS, .is_action = 1},
    {.name = "--info", .actions = ACT_INFO, .is_action = 1},
    {.name = "--plot", .takes_value = 1, .actions = ACT_PLOT, .is_action = 1},
    {.name = "--merge", .takes_value = 1, .actions = ACT_MERGE, .is_action = 1},
    {.name = "--max-batch", .takes_value = 1, .actions = ACT_MAXB, .is_action = 1},
    {.name = "--reference", .takes_value = 1, .actions = ACT_MERGE},
    {.name = "--price", .takes_value = 1, .actions = ACT_MERGE, .repeat = 1},
    {.name = "--weights", .takes_value = 1, .actions = ACT_MERGE},
    {.name = "--price-per-hour", .takes_value = 1, .actions = ACT_RUN},
    {.name = "--suite", .takes_value = 1, .actions = ACT_RUN | ACT_LIST},
    {.name = "--backend", .takes_value = 1, .actions = ACT_RUN | ACT_MAXB},
    {.name = "--sizes", .takes_value = 1, .actions = ACT_RUN},
    {.name = "--mode", .takes_value = 1, .actions = ACT_RUN},
    {.name = "--quick", .actions = ACT_RUN},
    {.name = "--reps", .takes_value = 1, .actions = ACT_RUN},
    {.name = "--min-time", .takes_value = 1, .actions = ACT_RUN},
    {.name = "--rounds", .takes_value = 1, .actions = ACT_RUN, .needs = SEL_CPU_PAIR},
    {.name = "--threads", .takes_value = 1, .actions = ACT_RUN},
    {.name = "--baseline", .takes_value = 1, .actions = ACT_RUN, .needs = SEL_BASELINE},
    {.name = "--out", .takes_value = 1, .actions = ACT_RUN | ACT_MERGE},
    {.name = "--name", .takes_value = 1, .actions = ACT_RUN},
    {.name = "--force", .actions = ACT_RUN},
    {.name = "--json", .takes_value = 1, .actions = ACT_RUN | ACT_PLOT | ACT_MERGE},
    {.name = "--no-plots", .actions = ACT_RUN | ACT_PLOT | ACT_MERGE},
    {.name = "--no-roofs", .actions = ACT_RUN},
    {.name = "--neighbour", .takes_value = 1, .actions = ACT_RUN},
    {.name = "--verbose", .actions = ACT_RUN},
    {.name = "--steps", .takes_value = 1, .actions = ACT_RUN, .needs = SEL_STEPS},
    {.name = "--dump", .takes_value = 1, .actions = ACT_RUN, .needs = SEL_STEPS},
    {.name = "--emulate", .actions = ACT_RUN | ACT_INFO | ACT_MAXB, .needs = SEL_GPU},
    {.name = "--device", .takes_value = 1, .actions = ACT_RUN, .needs = SEL_GPU},
    {.name = "--cuda-sync", .actions = ACT_RUN, .needs = SEL_GPU},
    {.name = "--require-gpu", .actions = ACT_RUN, .needs = SEL_GPU},
    {.name = "--bucket-mb", .takes_value = 1, .actions = ACT_RUN, .needs = SEL_OVERLAP},
    {.name = "--devices", .takes_value = 1, .actions = ACT_RUN, .needs = SEL_GPU_DP},
    {.name = "--workers", .takes_value = 1, .actions = ACT_RUN, .needs = SEL_WORKERS},
    {.name = "--dtype", .takes_value = 1, .actions = ACT_RUN},
    /* a training step on a GPU backend: both */
    {.name = "--alloc", .takes_value = 1, .actions = ACT_RUN, .needs = SEL_STEPS | SEL_GPU},
};
enum { NOPTS = (int)(sizeof OPTS / sizeof OPTS[0]) };
_Static_assert(NOPTS <= 64, "bench_opts.given has a bit per option");

/* The options that take a comma list. */
#define FLAG_LIST(n) (!strcmp(n, "--suite") || !strcmp(n, "--backend") || !strcmp(n, "--sizes") || \
                      !strcmp(n, "--mode"))

/* --dtype LIST: fp32, tf32, bf16, fp16, amp-bf16, amp-fp16 or all, comma-separated, each once,
 * into a DTYPE_BIT set. 0, or 2 with one line naming the bad value. */
static int parse_dtypes(const char *val, unsigned *out, char *err, size_t errcap)
{
    const char *q = val;
    int all_seen = 0;
    *out = 0;
    for (;;) {
        const char *c = strchr(q, ',');
        size_t len = c ? (size_t)(c - q) : strlen(q);
        char item[16];
        int d = -1;
        if (len > 0 && len < sizeof item) {
            memcpy(item, q, len);
            item[len] = '\0';
            d = strcmp(item, "all") == 0 ? DTYPE_COUNT : dtype_parse(item);
        }
        if (d < 0 || d == DTYPE_U8)
            return fail(err, errcap, "bench: bad --dtype '%.60s%s': '%.*s%s' is not one of fp32, "
                        "tf32, bf16, fp16, amp-bf16, amp-fp16, all", val, strlen(val) > 60 ? "..." : "",
                        (int)(len < 24 ? len : 24), q, len > 24 ? "..." : "");
        unsigned bits = d == DTYPE_COUNT ? DTYPES_FLOAT : DTYPE_BIT(d);
        if (*out & bits) {
            if (d == DTYPE_COUNT || all_seen) /* "fp32,all", "all,bf16": all includes it */
                return fail(err, errcap, "bench: --dtype '%.60s%s': 'all' already names every "
                            "dtype (fp32, tf32, bf16, fp16): give 'all' alone", val,
                            strlen(val) > 60 ? "..." : "");
            return fail(err, errcap, "bench: --dtype names '%.*s' twice", (int)(len < 24 ? len : 24), q);
        }
        all_seen |= d == DTYPE_COUNT;
        *out |= bits;
        if (!c) break;
        q = c + 1;
    }
    return 0;
}

/* --alloc LIST: allocator kinds (gpu_alloc.h), comma-separated, each once,
 * into a bit set over GPU_ALLOCS. 0, or 2 with one line naming the bad value. */
static int parse_allocs(const char *val, unsigned *out, char *err, size_t errcap)
{
    const char *q = val;
    *out = 0;
    for (;;) {
        const char *c = strchr(q, ',');
        size_t len = c ? (size_t)(c - q) : strlen(q);
        char item[24], names[96] = "";
        const gpu_alloc *a = NULL;
        if (len > 0 && len < sizeof item) {
            memcpy(item, q, len);
            item[len] = '\0';
            a = gpu_alloc_find(item);
        }
        for (int i = 0; !a && GPU_ALLOCS[i].name; i++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "",
                     GPU_ALLOCS[i].name);
        if (!a)
            return fail(err, errcap, "bench: bad --alloc '%.60s%s': '%.*s%s' is not one of %s", val,
                        strlen(val) > 60 ? "..." : "", (int)(len < 24 ? len : 24), q,
                        len > 24 ? "..." : "", names);
        unsigned bit = 1u << (a - GPU_ALLOCS);
        if (*out & bit) return fail(err, errcap, "bench: --alloc names '%s' twice", a->name);
        *out |= bit;
        if (!c) break;
        q = c + 1;
    }
    return 0;
}

static int opt_index(const char *name)
{
    if (strcmp(name, "-h") == 0) name = "--help";
    for (int i = 0; i < NOPTS; i++)
        if (strcmp(OPTS[i].name, name) == 0) return i;
    return -1;
}

/* Exactly one action; every option given applies to it; the run's options
 * that would silently cancel each other are refused. 0 or 2 with err. */
static int check_combination(const int *given, char *err, size_t cap)
{
    int act = -1;
    for (int i = 0; i < NOPTS; i++) {
        if (!given[i] || !OPTS[i].is_action) continue;
        if (act >= 0)
            return fail(err, cap, "bench: %s and %s are two different actions: give one",
                        OPTS[act].name, OPTS[i].name);
        act = i;
    }
    unsigned mine = act < 0 ? ACT_RUN : OPTS[act].actions;
    for (int i = 0; i < NOPTS; i++)
        if (given[i] && i != act && !(OPTS[i].actions & mine))
            return fail(err, cap, "bench: %s does not apply to %s: it would change nothing",
                        OPTS[i].name, act < 0 ? "a run" : OPTS[act].name);
#define GIVEN(n) given[opt_index(n)]
    if (GIVEN("--quick") && GIVEN("--sizes"))
        return fail(err, cap, "bench: --quick chooses the sizes, and --sizes names them: give one");
    if (GIVEN("--reps") && GIVEN("--min-time"))
        return fail(err, cap, "bench: --reps N runs exactly N repetitions, so --min-time would "
                              "change nothing: give one");
    if (GIVEN("--merge") && !GIVEN("--out"))
        return fail(err, cap, "bench: --merge writes a new folder: it needs --out DIR");
    if (GIVEN("--force") && !GIVEN("--out"))
        return fail(err, cap, "bench: --force replaces an earlier run in --out DIR: it needs --out");
#undef GIVEN
    return 0;
}

int opts_parse(int argc, char **argv, bench_opts *o, char *err, size_t errcap)
{
    int given[NOPTS] = {0};
    memset(o, 0, sizeof *o);
    o->min_time_s = -1;
    static char suites_buf[1024], backends_buf[1024], sizes_buf[1024], modes_buf[1024];
    size_t used = 0;
    for (int i = 0; i < argc && used + 2 < sizeof o->command; i++)
        used += (size_t)snprintf(o->command + used, sizeof o->command - used, "%s%s",
                                 i ? " " : "", argv[i]);
    int have_suite = 0;
    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        char *val = NULL;
        char name[64];
        char *eq = strchr(a, '=');
        if (strncmp(a, "--", 2) == 0 && eq && (size_t)(eq - a) < sizeof name) {
            memcpy(name, a, (size_t)(eq - a));
            name[eq - a] = '\0';
            val = eq + 1;
        } else {
            snprintf(name, sizeof name, "%s", a);
        }
        int idx = opt_index(name);
        if (idx < 0) return fail(err, errcap, "bench: unknown option '%s' (see bench --help)", a);
        if (val && !OPTS[idx].takes_value)
            return fail(err, errcap, "bench: option '%s' takes no value", name);
        if (given[idx]++ && !OPTS[idx].repeat) /* a second value would silently replace the first */
            return fail(err, errcap, "bench: %s is given twice: give it once%s", OPTS[idx].name,
                        FLAG_LIST(OPTS[idx].name) ? ", with a comma list" : "");
#define FLAG(n) (strcmp(name, n) == 0)
#define LIST_VAL(buf)                                                            \
    do {                                                                         \
        NEED_VAL();                                                              \
        if (strlen(val) >= sizeof buf)                                           \
            return fail(err, errcap, "bench: %s is longer than %zu characters (the limit)", \
                        name, sizeof buf - 1);                                   \
        snprintf(buf, sizeof buf, "%s", val);                                    \
    } while (0)
#define NEED_VAL()                                                              \
    do {                                                                        \
        if (!val) {                                                             \
            if (i + 1 >= argc) return fail(err, errcap, "bench: %s needs a value", name); \
            val = argv[++i];                                                    \
        }                                                                       \
    } while (0)
        if (FLAG("--help") || FLAG("-h")) {
            o->help = 1;
        } else if (FLAG("--version")) {
            o->version = 1;
        } else if (FLAG("--list")) {
            o->list = 1;
        } else if (FLAG("--columns")) {
            o->columns = 1;
        } else if (FLAG("--info")) {
            o->info = 1;
        } else if (FLAG("--quick")) {
            o->quick = 1;
        } else if (FLAG("--force")) {
            o->force = 1;
        } else if (FLAG("--no-plots")) {
            o->no_plots = 1;
        } else if (FLAG("--no-roofs")) {
            o->no_roofs = 1;
        } else if (FLAG("--verbose")) {
            o->verbose = 1;
        } else if (FLAG("--emulate")) {
            o->emulate = 1;
        } else if (FLAG("--cuda-sync")) {
            o->cuda_sync = 1;
        } else if (FLAG("--require-gpu")) {
            o->require_gpu = 1;
        } else if (FLAG("--suite")) {
            LIST_VAL(suites_buf);
            if (split_list(suites_buf, o->suites, OPT_MAX_LIST, &o->nsuites))
                return fail(err, errcap, "bench: bad --suite '%s'", val);
            have_suite = 1;
        } else if (FLAG("--backend")) {
            LIST_VAL(backends_buf);
            if (split_list(backends_buf, o->backends, OPT_MAX_LIST, &o->nbackends))
                return fail(err, errcap, "bench: bad --backend '%s'", val);
        } else if (FLAG("--sizes")) {
            LIST_VAL(sizes_buf);
            if (split_list(sizes_buf, o->sizes, OPT_MAX_LIST, &o->nsizes))
                return fail(err, errcap,
                            "bench: bad --sizes '%s' (a comma list of at most %d problems)", val,
                            OPT_MAX_LIST);
        } else if (FLAG("--dtype")) {
            NEED_VAL();
            if (parse_dtypes(val, &o->dtypes, err, errcap)) return 2;
        } else if (FLAG("--max-batch")) {
            NEED_VAL();
            if (!*val || strlen(val) > 40)
                return fail(err, errcap, "bench: bad --max-batch '%.40s%s' (a model name of 1 to 40 "
                            "characters: see bench --list --suite train)", val,
                            strlen(val) > 40 ? "..." : "");
            o->max_batch = val;
        } else if (FLAG("--alloc")) {
            NEED_VAL();
            if (parse_allocs(val, &o->allocs, err, errcap)) return 2;
        } else if (FLAG("--mode")) {
            LIST_VAL(modes_buf);
            if (split_list(modes_buf, o->modes, OPT_MAX_LIST, &o->nmodes))
                return fail(err, errcap, "bench: bad --mode '%s'", val);
        } else if (FLAG("--reps")) {
            NEED_VAL();
            long v;
            if (parse_pos_int(val, 1000000, &v))
                return fail(err, errcap, "bench: bad --reps '%s' (want an integer from 1 to 1000000)", val);
            o->reps = (int)v;
        } else if (FLAG("--rounds")) {
            NEED_VAL();
            long v;
            if (parse_pos_int(val, 1000, &v) || v < 2)
                return fail(err, errcap, "bench: bad --rounds '%s' (want an integer from 2 to 1000)", val);
            o->rounds = (int)v;
        } else if (FLAG("--steps")) {
            NEED_VAL();
            long v;
            if (parse_pos_int(val, OPT_MAX_STEPS, &v))
                return fail(err, errcap, "bench: bad --steps '%s' (want an integer from 1 to %d)",
                            val, OPT_MAX_STEPS);
            o->steps = (int)v;
        } else if (FLAG("--dump")) {
            NEED_VAL();
            if (!*val || strlen(val) >= sizeof o->dump - 300)
                return fail(err, errcap, "bench: bad --dump '%.60s%s' (a path of 1 to %zu characters)",
                            val, strlen(val) > 60 ? "..." : "", sizeof o->dump - 301);
            snprintf(o->dump, sizeof o->dump, "%s", val);
        } else if (FLAG("--threads")) {
            NEED_VAL();
            long v;
            if (parse_pos_int(val, OPT_MAX_THREADS, &v))
                return fail(err, errcap, "bench: bad --threads '%s' (want an integer from 1 to %d)",
                            val, OPT_MAX_THREADS);
            o->threads = (int)v;
        } else if (FLAG("--device")) {
            NEED_VAL();
            long v;
            if (strcmp(val, "0") == 0) v = 0;
            else if (parse_pos_int(val, 1024, &v))
                return fail(err, errcap, "bench: bad --device '%s' (want an integer from 0 to 1024)", val);
            o->device = (int)v;
            o->device_given = 1;
        } else if (FLAG("--min-time")) {
            NEED_VAL();
            char *end = NULL;
            errno = 0;
            double v = strtod(val, &end);
            if (errno || end == val || *end || !isfinite(v) || v < 0 || v > 3600)
                return fail(err, errcap, "bench: bad --min-time '%s' (want seconds, 0..3600)", val);
            o->min_time_s = v;
        } else if (FLAG("--devices")) {
            NEED_VAL();
            long v;
            if (parse_pos_int(val, 64, &v))
                return fail(err, errcap, "bench: bad --devices '%s' (want an integer from 1 to 64)", val);
            o->devices = (int)v;
        } else if (FLAG("--workers")) {
            NEED_VAL();
            long v;
            if (parse_pos_int(val, WORKERS_MAX, &v))
                return fail(err, errcap, "bench: bad --workers '%s' (want an integer from 1 to %d)",
                            val, WORKERS_MAX);
            o->workers = (int)v;
        } else if (FLAG("--bucket-mb")) {
            NEED_VAL();
            char *end = NULL;
            errno = 0;
            double v = strtod(val, &end);
            if (errno || end == val || *end || !isfinite(v) || v < 0.001 || v > 4096)
                return fail(err, errcap, "bench: bad --bucket-mb '%s' (want MiB, 0.001..4096)", val);
            o->bucket_mb = v;
        } else if (FLAG("--neighbour")) {
            NEED_VAL();
            int k = neighbour_parse(val);
            if (k < 0)
                return fail(err, errcap, "bench: bad --neighbour '%.40s%s' (want %s)", val,
                            strlen(val) > 40 ? "..." : "", neighbour_names());
            o->neighbour = k;
        } else if (FLAG("--baseline")) {
            NEED_VAL();
            o->baseline = val;
        } else if (FLAG("--out")) {
            NEED_VAL();
            if (!*val || strlen(val) >= sizeof o->out)
                return fail(err, errcap, "bench: bad --out '%.60s%s' (a path of 1 to %zu characters)",
                            val, strlen(val) > 60 ? "..." : "", sizeof o->out - 1);
            snprintf(o->out, sizeof o->out, "%s", val);
        } else if (FLAG("--name")) {
            NEED_VAL();
            if (!machine_name_ok(val))
                return fail(err, errcap, "bench: bad --name '%.60s%s' (want 1 to 64 of A-Z a-z 0-9 . _ -, "
                            "not starting with - or .)", val, strlen(val) > 60 ? "..." : "");
            snprintf(o->name, sizeof o->name, "%s", val);
        } else if (FLAG("--json")) {
            NEED_VAL();
            if (!*val || strlen(val) >= sizeof o->json)
                return fail(err, errcap, "bench: bad --json '%.60s%s' (a path of 1 to %zu characters)",
                            val, strlen(val) > 60 ? "..." : "", sizeof o->json - 1);
            snprintf(o->json, sizeof o->json, "%s", val);
        } else if (FLAG("--merge")) { /* every argument up to the next option */
            if (val) o->merge[o->nmerge++] = val;
            while (i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0) {
                if (o->nmerge == OPT_MAX_LIST)
                    return fail(err, errcap, "bench: --merge names more than %d folders (the limit)",
                                OPT_MAX_LIST);
                o->merge[o->nmerge++] = argv[++i];
            }
            for (int k = 0; k < o->nmerge; k++)
                if (!*o->merge[k] || strlen(o->merge[k]) >= OPT_PATH)
                    return fail(err, errcap, "bench: bad --merge folder '%.60s%s' (a path of 1 to %d "
                                "characters)", o->merge[k], strlen(o->merge[k]) > 60 ? "..." : "",
                                OPT_PATH - 1);
            if (o->nmerge < 2)
                return fail(err, errcap, "bench: --merge needs at least two run folders (it has %d)",
                            o->nmerge);
        } else if (FLAG("--reference")) {
            NEED_VAL();
            o->reference = val;
        } else if (FLAG("--price")) {
            NEED_VAL();
            if (machine_kv_parse(val, "--price", 0, 1, OPT_MAX_PRICE, o->prices, &o->nprices,
                                 OPT_MAX_LIST, err, errcap))
                return 2;
        } else if (FLAG("--weights")) {
            NEED_VAL();
            if (machine_kv_parse(val, "--weights", 0, 0, 1e9, o->weights, &o->nweights, OPT_MAX_LIST,
                                 err, errcap))
                return 2;
            double sum = 0;
            for (int k = 0; k < o->nweights; k++) sum += o->weights[k].v;
            if (!(sum > 0))
                return fail(err, errcap, "bench: --weights '%.80s' weighs nothing: give at least one "
                            "weight above 0", val);
        } else if (FLAG("--price-per-hour")) {
            NEED_VAL();
            char *end = NULL;
            errno = 0;
            double v = strtod(val, &end);
            if (errno || end == val || *end || !isfinite(v) || !(v > 0) || v > OPT_MAX_PRICE)
                return fail(err, errcap, "bench: bad --price-per-hour '%s' (want USD per hour, above 0 "
                            "and at most %g)", val, OPT_MAX_PRICE);
            o->price_per_hour = v;
        } else if (FLAG("--plot")) {
            NEED_VAL();
            if (!*val || strlen(val) >= sizeof o->plot_dir)
                return fail(err, errcap, "bench: bad --plot '%.60s%s' (a path of 1 to %zu characters)",
                            val, strlen(val) > 60 ? "..." : "", sizeof o->plot_dir - 1);
            snprintf(o->plot_dir, sizeof o->plot_dir, "%s", val);
        }
#undef FLAG
#undef LIST_VAL
#undef NEED_VAL
    }
    if (check_combination(given, err, errcap)) return 2;
    {   /* --sizes repeats are found per suite (one entry may mean several problems) */
        const struct { const char *name; const char *const *items; int n; } L[] = {
            {"--suite", o->suites, o->nsuites}, {"--backend", o->backends, o->nbackends},
            {"--mode", o->modes, o->nmodes}};
        for (int i = 0; i < 3; i++) {
            const char *r = repeated_item(L[i].items, L[i].n);
            if (r) return fail(err, errcap, "bench: %s names '%s' twice", L[i].name, r);
        }
        for (int i = 0; i < o->nsuites && o->nsuites > 1; i++)
            if (strcmp(o->suites[i], "all") == 0)
                return fail(err, errcap, "bench: --suite all already names every suite: give "
                                         "all alone, or the suites");
    }
    if (!have_suite) {
        o->suites[0] = "all";
        o->nsuites = 1;
    }
    for (int i = 0; i < NOPTS; i++)
        if (given[i]) o->given |= 1ull << i;
    return 0;
}

int opts_check_needs(const bench_opts *o, const selection *s, unsigned has, unsigned decided,
                     char *err, size_t errcap)
{
    for (int i = 0; i < NOPTS; i++)
        if ((o->given >> i & 1) && (OPTS[i].needs & decided) && !(OPTS[i].needs & has))
            return select_refuse(s, OPTS[i].needs & decided, OPTS[i].name, err, errcap);
    return 0;
}
