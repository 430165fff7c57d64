/* tests/harness/runner_iter_test.c - the test of harness/runner_iter.c: the
 * one walk of a run's cases. On a made-up suite and registry: the order
 * (problems, dtypes, backends with the baseline first, then host or the GPU
 * modes, then the data-parallel ones), what each case begins, the replicas,
 * the selection by --backend, --mode and --dtype, and runner_count over the
 * same walk (a dtype a backend lacks: one row for the suite). */
#include "runner_iter.h"
#include "testutil.h"

#include <string.h>

#define F32 DTYPE_BIT(DTYPE_FP32)
#define B16 DTYPE_BIT(DTYPE_BF16)

static const backend_def REG[] = {
    {.name = "cpu-a", .op = "t", .dev = DEV_CPU, .dtypes = F32 | B16},
    {.name = "gpu-a", .op = "t", .dev = DEV_GPU, .dtypes = F32 | B16},
    {.name = "other", .op = "u", .dev = DEV_CPU, .dtypes = F32},
    {.name = "cpu-base", .op = "t", .dev = DEV_CPU, .dtypes = F32},
    {.name = NULL},
};

/* One opener for both halves, as the suites have (dp_open_fn, suite.h). */
static int fake_dp_open(const backend_def *b, const dp_mode *m, const problem *p,
                        const dp_cfg *cfg, void *const *const *sets, int nsets, case_exec *ex,
                        char *skip, size_t skipcap)
{
    (void)b, (void)m, (void)p, (void)cfg, (void)sets, (void)nsets, (void)ex;
    (void)skip, (void)skipcap;
    return -1;
}

static const suite_def SUITE = {.name = "t", .op = "t", .default_baseline = "cpu-base",
                                .dtypes = F32 | B16, .dp_open = fake_dp_open};
static const suite_gpu GPU = {.dp_open = fake_dp_open};
static const suite_entry ENTRY = {.def = &SUITE, .gpu = &GPU};

static const char *const OWN[] = {"x", "y", NULL};
static const suite_def OWN_SUITE = {.name = "o", .op = "t", .modes = OWN};
static const suite_entry OWN_ENTRY = {.def = &OWN_SUITE, .gpu = &GPU};

/* The walk as one string: "pi.di.backend.mode/replicas" a case, first-flags
 * as P D B G before it. */
static void walk(const runner *r, const suite_entry *e, int nprobs, char *out, size_t cap)
{
    case_iter it;
    case_ref c;
    size_t u = 0;
    out[0] = '\0';
    case_iter_start(&it, r, e, nprobs);
    while (case_iter_next(&it, &c) && u < cap)
        u += (size_t)snprintf(out + u, cap - u, "%s%s%s%s%s%d.%d.%s.%s/%d", u ? " " : "",
                              c.first & CASE_FIRST_PROBLEM ? "P" : "",
                              c.first & CASE_FIRST_DATA ? "D" : "",
                              c.first & CASE_FIRST_BACKEND ? "B" : "",
                              c.first & CASE_FIRST_GROUP ? "G" : "", c.pi, c.di, c.b->name,
                              c.mode, c.replicas);
}

int main(void)
{
    char got[8192];
    runner r = {.registry = REG};
    case_iter it;
    case_ref c;

    /* the order: baseline first, GPU modes that apply to repetitions, fp32 first */
    const char *backends[] = {"cpu-base", "gpu-a"};
    const char *modes[] = {"host", "resident", "streams-2", "prefetch-2"};
    r.backends = backends;
    r.nbackends = 2;
    r.modes = modes;
    r.nmodes = 4;
    walk(&r, &ENTRY, 2, got, sizeof got);
    EXPECT(strcmp(got, "PDBG0.0.cpu-base.host/1 BG0.0.gpu-a.resident/1 0.0.gpu-a.streams-2/1 "
                       "DBG0.1.cpu-base.host/1 BG0.1.gpu-a.resident/1 0.1.gpu-a.streams-2/1 "
                       "PDBG1.0.cpu-base.host/1 BG1.0.gpu-a.resident/1 1.0.gpu-a.streams-2/1 "
                       "DBG1.1.cpu-base.host/1 BG1.1.gpu-a.resident/1 1.1.gpu-a.streams-2/1") == 0,
           "walk: %s", got);
    case_iter_start(&it, &r, &ENTRY, 2);
    EXPECT(it.baseline && strcmp(it.baseline, "cpu-base") == 0 && it.ndt == 2 &&
           it.dts[0] == DTYPE_FP32, "baseline and dtypes");
    /* cpu-base has no bf16: one row for the suite, not one per problem */
    EXPECT(runner_count(&r, &ENTRY, 2) == 11, "count %d, want 11", runner_count(&r, &ENTRY, 2));
    EXPECT(runner_count(&r, &ENTRY, 0) == 0, "no problem, no case: %d",
           runner_count(&r, &ENTRY, 0));

    /* no --mode: every GPU mode that applies, then the data-parallel modes on
     * --devices replicas; without the baseline's host mode, registry order */
    r.nbackends = r.nmodes = 0;
    r.devices = 2;
    r.dtypes = F32;
    int n = 0, gpu = 0, dp = 0;
    case_iter_start(&it, &r, &ENTRY, 1);
    EXPECT(it.nb == 3 && it.order[0] == &REG[3] && it.order[1] == &REG[0] &&
           it.order[2] == &REG[1], "the baseline first, then registry order of op t");
    while (case_iter_next(&it, &c)) {
        n++;
        if (c.b != &REG[1]) continue;
        EXPECT(c.nsingle == it.nsingle[1], "%s: nsingle", c.mode);
        if (c.kind == CASE_GPU) {
            EXPECT(dp == 0, "%s after a data-parallel mode", c.mode);
            EXPECT(c.gpu && strcmp(c.gpu->name, c.mode) == 0 && c.gpu->kind != GPU_PREFETCH,
                   "%s: a GPU mode of repetitions", c.mode);
            EXPECT(!!(c.first & CASE_FIRST_GROUP) == (gpu == 0), "%s: first of its group",
                   c.mode);
            gpu++;
        } else {
            EXPECT(c.kind == CASE_DP && c.dp && c.replicas == 2, "%s: data-parallel on 2",
                   c.mode);
            EXPECT(!!(c.first & CASE_FIRST_GROUP) == (dp == 0), "%s: first of its group",
                   c.mode);
            dp++;
        }
    }
    int ngpu = 0, ndp = 0;
    for (int m = 0; GPU_MODES[m].name; m++) ngpu += gpu_mode_applies(&GPU_MODES[m], 0);
    for (int m = 0; DP_MODES[m].name; m++) ndp += !DP_MODES[m].workers; /* never on GPUs */
    EXPECT(gpu == ngpu && dp == ndp && n == 2 + ngpu + ndp, "%d GPU, %d DP of %d cases", gpu, dp,
           n);
    EXPECT(runner_count(&r, &ENTRY, 3) == 3 * n, "count over 3 problems");

    /* --mode ddp: CPU backends need ranks for it, GPU ones run it alone */
    const char *ddp[] = {"ddp"};
    r.modes = ddp;
    r.nmodes = 1;
    walk(&r, &ENTRY, 1, got, sizeof got);
    EXPECT(strcmp(got, "PDBG0.0.cpu-a.ddp/1 BG0.0.gpu-a.ddp/2 BG0.0.cpu-base.ddp/1") == 0,
           "--mode ddp: %s", got);
    case_iter_start(&it, &r, &ENTRY, 1);
    EXPECT(!it.baseline, "no host mode, no baseline");

    /* --workers 3 --mode host,hogwild: a CPU backend's host case, then hogwild
     * on 3 workers; a GPU backend has neither; without --workers no hogwild */
    const char *hog[] = {"host", "hogwild"};
    r.modes = hog;
    r.nmodes = 2;
    r.devices = 0;
    r.workers = 3;
    walk(&r, &ENTRY, 1, got, sizeof got);
    EXPECT(strcmp(got, "PDBG0.0.cpu-base.host/1 G0.0.cpu-base.hogwild/3 BG0.0.cpu-a.host/1 "
                       "G0.0.cpu-a.hogwild/3") == 0,
           "--workers 3: %s", got);
    r.workers = 0;
    walk(&r, &ENTRY, 1, got, sizeof got);
    EXPECT(strcmp(got, "PDBG0.0.cpu-base.host/1 BG0.0.cpu-a.host/1") == 0, "no --workers: %s", got);

    /* a suite's own GPU modes, and no data-parallel step */
    r.nmodes = 0;
    r.devices = 0;
    const char *gpua[] = {"gpu-a"};
    r.backends = gpua;
    r.nbackends = 1;
    walk(&r, &OWN_ENTRY, 1, got, sizeof got);
    EXPECT(strcmp(got, "PDBG0.0.gpu-a.x/1 0.0.gpu-a.y/1") == 0, "own modes: %s", got);
    case_iter_start(&it, &r, &OWN_ENTRY, 1);
    EXPECT(case_iter_next(&it, &c) && c.kind == CASE_OWN && c.own == 0 && !c.gpu,
           "own mode x: its index");
    EXPECT(case_iter_next(&it, &c) && c.own == 1 && !case_iter_next(&it, &c), "own mode y last");

    /* a selection of nothing of the suite's */
    const char *other[] = {"other"};
    r.backends = other;
    EXPECT(runner_count(&r, &ENTRY, 4) == 0, "a backend of another op runs nothing");
    TEST_END();
}
