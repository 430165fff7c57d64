/* harness/select.c - the selection checked against the registries (select.h). */
#define _POSIX_C_SOURCE 200809L
#include "select.h"
#include "comm.h"
#include "dp_mode.h"
#include "gpu_mode.h"
#include "mode.h"

#include <stdio.h>
#include <string.h>

/* The definition of the selected suite i (select_validate found it). */
static const suite_def *sel_suite(const selection *s, int i)
{
    for (int k = 0; s->suite_table[k].def; k++)
        if (strcmp(s->suite_table[k].def->name, s->suites[i]) == 0) return s->suite_table[k].def;
    return NULL;
}

/* Whether name is among the n items. */
static int named_in(const char *const *items, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(items[i], name) == 0) return 1;
    return 0;
}

/* Whether --backend chose name (no --backend: every backend). */
static int chosen(const selection *s, const char *name)
{
    return s->nbackends == 0 || named_in(s->backends, s->nbackends, name);
}

/* Whether backend b belongs to suite d and was chosen. */
static int runs_in(const selection *s, const backend_def *b, const suite_def *d)
{
    return strcmp(b->op, d->op) == 0 && chosen(s, b->name);
}

/* Whether the suite's GPU half runs the data-parallel modes (its rows name
 * them even in a build without a GPU layer: they skip, saying why). */
static int suite_has_gpu_dp(const suite_def *d)
{
    return d->dp_open != NULL; /* a suite with CPU replicas has GPU ones (train) */
}

/* Whether name is a backend of a selected suite; with cpu_only, a CPU one. */
static int known_backend(const selection *s, const char *name, int cpu_only)
{
    for (int i = 0; i < *s->nsuites; i++)
        for (const backend_def *b = s->backend_table; b->name; b++)
            if (strcmp(b->op, sel_suite(s, i)->op) == 0 && strcmp(b->name, name) == 0 &&
                (!cpu_only || b->dev == DEV_CPU))
                return 1;
    return 0;
}

static int known_mode(const selection *s, const char *mode)
{
    mode_kind k = mode_kind_of(mode);
    if (k == MODE_KIND_HOST || k == MODE_KIND_GPU) return 1;
    for (int i = 0; i < *s->nsuites; i++)
        if ((k == MODE_KIND_DP || k == MODE_KIND_WORKERS) && sel_suite(s, i)->dp_open) return 1;
    for (int i = 0; i < *s->nsuites; i++) {
        const char *const *own = sel_suite(s, i)->modes;
        for (int m = 0; own && own[m]; m++)
            if (strcmp(own[m], mode) == 0) return 1;
    }
    return 0;
}

/* The dtypes suite d runs (fp32 alone without a dtype axis). */
static unsigned suite_dtypes(const suite_def *d)
{
    return d->dtypes ? d->dtypes : DTYPE_BIT(DTYPE_FP32);
}

/* Every suite, or (--dtype) those that run one of its dtypes. */
static void expand_all(const selection *s)
{
    /* the suites left out are said at once: a refusal that follows is the last line */
    char left[256] = "";
    size_t u = 0;
    *s->nsuites = 0;
    for (int i = 0; s->suite_table[i].def && *s->nsuites < s->max_suites; i++) {
        const suite_def *d = s->suite_table[i].def;
        if (s->dtypes && !(s->dtypes & suite_dtypes(d))) {
            if (u < sizeof left)
                u += (size_t)snprintf(left + u, sizeof left - u, "%s%s", u ? ", " : "", d->name);
            continue;
        }
        s->suites[(*s->nsuites)++] = d->name;
    }
    if (left[0] && comm_rank() == 0)
        fprintf(stderr, "bench: %s: none of the --dtype dtypes (without a dtype axis: fp32 "
                "or bytes): not run\n", left);
}

int select_validate(const selection *s, char *err, size_t errcap)
{
    int all = 0;
    for (int i = 0; i < *s->nsuites; i++) all |= strcmp(s->suites[i], "all") == 0;
    if (all) expand_all(s);
    for (int i = 0; i < *s->nsuites; i++) {
        const suite_def *d = sel_suite(s, i);
        if (!d) {
            snprintf(err, errcap, "bench: unknown suite '%s' (see bench --list)", s->suites[i]);
            return 2;
        }
        if (s->dtypes && !(s->dtypes & suite_dtypes(d))) {
            char runs[96];
            snprintf(err, errcap, "bench: --dtype selects nothing in suite '%s': it runs %s",
                     s->suites[i], dtype_list(suite_dtypes(d), ", ", runs, sizeof runs));
            return 2;
        }
    }
    for (int i = 0; i < s->nbackends; i++)
        if (!known_backend(s, s->backends[i], 0)) {
            snprintf(err, errcap, "bench: unknown backend '%s' for the selected suites (see bench --list)",
                     s->backends[i]);
            return 2;
        }
    for (int i = 0; i < s->nmodes; i++)
        if (!known_mode(s, s->modes[i])) {
            snprintf(err, errcap, "bench: unknown --mode '%s' (host, a GPU mode such as resident "
                     "or streams-4, a transfer mode, or a data-parallel mode of the train suite "
                     "such as ddp; see bench --list)", s->modes[i]);
            return 2;
        }
    if (s->baseline && !known_backend(s, s->baseline, 1)) {
        snprintf(err, errcap, "bench: --baseline '%s' is not a CPU backend of the selected suites "
                 "(see bench --list)", s->baseline);
        return 2;
    }
    return 0;
}

/* Whether a chosen backend of a selected suite runs in mode (host: a CPU
 * backend; a data-parallel mode: a suite with replicas; a GPU mode: a GPU
 * backend of a suite that has that mode). */
static int mode_used(const selection *s, const char *mode)
{
    mode_kind kind = mode_kind_of(mode);
    for (int i = 0; i < *s->nsuites; i++) {
        const suite_def *d = sel_suite(s, i);
        for (const backend_def *b = s->backend_table; b->name; b++) {
            if (!runs_in(s, b, d)) continue;
            if (kind == MODE_KIND_HOST) {
                if (b->dev == DEV_CPU) return 1;
                continue;
            }
            if (kind == MODE_KIND_WORKERS) { /* forked processes: CPU backends */
                if (b->dev == DEV_CPU && d->dp_open) return 1;
                continue;
            }
            if (kind == MODE_KIND_DP) { /* MPI ranks, or GPUs over NCCL */
                if (b->dev == DEV_CPU ? d->dp_open != NULL : suite_has_gpu_dp(d)) return 1;
                continue;
            }
            if (b->dev != DEV_GPU) continue;
            for (int m = 0; d->modes && d->modes[m]; m++)
                if (strcmp(d->modes[m], mode) == 0) return 1;
            const gpu_mode *g = d->modes ? NULL : gpu_mode_find(mode);
            if (g && gpu_mode_applies(g, suite_step_count(d))) return 1;
        }
    }
    return 0;
}

/* Whether a chosen GPU backend of a selected suite runs the data-parallel modes. */
static int chosen_gpu_dp(const selection *s)
{
    for (int i = 0; i < *s->nsuites; i++) {
        const suite_def *d = sel_suite(s, i);
        for (const backend_def *b = s->backend_table; b->name && suite_has_gpu_dp(d); b++)
            if (b->dev == DEV_GPU && runs_in(s, b, d)) return 1;
    }
    return 0;
}

int select_check(const selection *s, char *err, size_t errcap)
{
    for (int i = 0; i < s->nmodes; i++)
        if (!mode_used(s, s->modes[i])) {
            snprintf(err, errcap, "bench: --mode '%s' runs none of the selected backends (host "
                     "needs a CPU backend, a GPU mode a GPU backend of a suite that has it): it "
                     "would change nothing", s->modes[i]);
            return 2;
        }
    if (s->workers > 0) {
        for (int i = 0; i < s->nbackends; i++)
            for (const backend_def *b = s->backend_table; b->name; b++)
                if (b->dev == DEV_GPU && strcmp(b->name, s->backends[i]) == 0) {
                    snprintf(err, errcap, "bench: --workers %d forks CPU workers (hogwild), and "
                             "--backend names the GPU backend '%s': give CPU backends with "
                             "--workers", s->workers, b->name);
                    return 2;
                }
        if (comm_size() > 1) {
            snprintf(err, errcap, "bench: --workers %d under a launcher of %d ranks: hogwild's "
                     "workers are processes of one machine, MPI's replicas run the other "
                     "data-parallel modes; give one or the other", s->workers, comm_size());
            return 2;
        }
    }
    for (int i = 0; i < s->nmodes && !s->workers; i++)
        if (mode_kind_of(s->modes[i]) == MODE_KIND_WORKERS) {
            snprintf(err, errcap, "bench: --mode %s needs --workers N (the processes it forks)",
                     s->modes[i]);
            return 2;
        }
    if (s->devices > 1 && comm_size() > 1) {
        snprintf(err, errcap, "bench: --devices %d under a launcher of %d ranks: a rank drives one "
                 "GPU (nccl-mpi); give one or the other", s->devices, comm_size());
        return 2;
    }
    return 0;
}

/* DDP's overlapping mode, by its scheme. */
static const char *overlap_mode(void)
{
    for (int m = 0; DP_MODES[m].name; m++)
        if (DP_MODES[m].scheme == DP_DDP_OVERLAP) return DP_MODES[m].name;
    return "";
}

unsigned select_has(const selection *s)
{
    unsigned has = 0;
    int gpu = 0, dp = s->nmodes == 0, overlap = s->nmodes == 0 && comm_size() > 1;
    if (s->nmodes == 0) {
        for (int m = 0; GPU_MODES[m].name && !gpu; m++) gpu = mode_used(s, GPU_MODES[m].name);
        for (int i = 0; i < *s->nsuites && !gpu; i++) {
            const char *const *own = sel_suite(s, i)->modes;
            for (int m = 0; own && own[m] && !gpu; m++) gpu = mode_used(s, own[m]);
        }
    }
    for (int i = 0; i < s->nmodes; i++) {
        mode_kind k = mode_kind_of(s->modes[i]);
        gpu |= k != MODE_KIND_HOST && k != MODE_KIND_WORKERS &&
               (k != MODE_KIND_DP || chosen_gpu_dp(s));
        dp |= k == MODE_KIND_DP;
        overlap |= strcmp(s->modes[i], overlap_mode()) == 0;
    }
    if (gpu) has |= SEL_GPU;
    if (dp && chosen_gpu_dp(s)) has |= SEL_GPU_DP;
    if (overlap && mode_used(s, overlap_mode())) has |= SEL_OVERLAP;
    if (!s->baseline || chosen(s, s->baseline)) has |= SEL_BASELINE;
    for (int m = 0; DP_MODES[m].name; m++)
        if (DP_MODES[m].workers && mode_used(s, DP_MODES[m].name) &&
            (s->nmodes == 0 || named_in(s->modes, s->nmodes, DP_MODES[m].name)))
            has |= SEL_WORKERS;
    for (int i = 0; i < *s->nsuites && mode_used(s, MODE_HOST) &&
                    (s->nmodes == 0 || named_in(s->modes, s->nmodes, MODE_HOST)); i++) {
        int cpus = 0;
        for (const backend_def *b = s->backend_table; b->name; b++)
            cpus += b->dev == DEV_CPU && runs_in(s, b, sel_suite(s, i));
        if (cpus > 1 && !suite_all_ranks(sel_suite(s, i))) has |= SEL_CPU_PAIR;
    }
    return has;
}

unsigned select_has_steps(const selection *s, const int *ncases)
{
    for (int i = 0; i < *s->nsuites; i++)
        if (suite_step_count(sel_suite(s, i)) > 0 && ncases[i] > 0) return SEL_STEPS;
    return 0;
}

/* The first suite of the registry with a data-parallel step / a training step. */
static const char *first_suite(const selection *s, int steps)
{
    for (int i = 0; s->suite_table[i].def; i++) {
        const suite_def *d = s->suite_table[i].def;
        if (steps ? suite_step_count(d) > 0 : d->dp_open != NULL) return d->name;
    }
    return "";
}

/* "train: cuda, cuda-lib": the GPU backends of every suite with replicas. */
static void gpu_dp_backends(const selection *s, char *out, size_t cap)
{
    size_t u = 0;
    out[0] = '\0';
    for (int i = 0; s->suite_table[i].def; i++) {
        const suite_def *d = s->suite_table[i].def;
        int n = 0;
        for (const backend_def *b = s->backend_table; b->name && suite_has_gpu_dp(d); b++)
            if (b->dev == DEV_GPU && strcmp(b->op, d->op) == 0 && u < cap)
                u += (size_t)(n++ ? snprintf(out + u, cap - u, ", %s", b->name)
                                  : snprintf(out + u, cap - u, "%s%s: %s", u ? "; " : "",
                                             d->name, b->name));
    }
}

int select_refuse(const selection *s, unsigned need, const char *opt, char *err, size_t errcap)
{
    char what[256] = "GPU cases";
    if (need & SEL_BASELINE) {
        snprintf(err, errcap, "bench: %s '%s' is not among --backend: add it, or the speedups "
                 "stay empty", opt, s->baseline);
        return 2;
    }
    if (need & SEL_STEPS) {
        snprintf(err, errcap, "bench: %s is for training steps: the selection runs no training "
                 "step (add --suite %s and a %s problem)", opt, first_suite(s, 1), first_suite(s, 1));
        return 2;
    }
    if (need & SEL_GPU_DP) {
        char names[200];
        gpu_dp_backends(s, names, sizeof names);
        snprintf(what, sizeof what, "the data-parallel modes of GPU backends (%s)", names);
    }
    if (need & SEL_CPU_PAIR)
        snprintf(what, sizeof what, "host rows of two or more CPU backends of one suite "
                 "(--backend, --mode host)");
    if (need & SEL_WORKERS)
        snprintf(what, sizeof what, "the hogwild mode of the CPU backends of the %s suite "
                 "(and --mode, when given, names it)", first_suite(s, 0));
    if (need & SEL_OVERLAP)
        snprintf(what, sizeof what, "%s runs of the %s suite (--mode %s, or under mpirun)",
                 overlap_mode(), first_suite(s, 0), overlap_mode());
    snprintf(err, errcap, "bench: %s is for %s, and the selection has none: it would change "
             "nothing", opt, what);
    return 2;
}

int select_wants_gpu(const selection *s)
{
    int gpu_mode = s->nmodes == 0;
    for (int m = 0; m < s->nmodes; m++) {
        mode_kind k = mode_kind_of(s->modes[m]);
        gpu_mode |= k != MODE_KIND_HOST && k != MODE_KIND_WORKERS;
    }
    if (!gpu_mode) return 0;
    for (int i = 0; i < *s->nsuites; i++)
        for (const backend_def *b = s->backend_table; b->name; b++)
            if (b->dev == DEV_GPU && runs_in(s, b, sel_suite(s, i))) return 1;
    return 0;
}

int select_wants_comm(const selection *s)
{
    if (comm_size() > 1) return 1;
    for (int m = 0; m < s->nmodes; m++)
        if (mode_kind_of(s->modes[m]) == MODE_KIND_DP) return 1;
    for (int i = 0; i < *s->nsuites; i++) {
        const suite_def *d = sel_suite(s, i);
        for (const backend_def *b = s->backend_table; suite_all_ranks(d) && b->name; b++)
            if (b->dev == DEV_CPU && runs_in(s, b, d)) return 1;
    }
    return 0;
}

plan_suite select_plan_suite(const selection *s, int i)
{
    const suite_def *d = sel_suite(s, i);
    int gpu_in = 0;
    for (const backend_def *b = s->backend_table; b->name; b++)
        gpu_in |= b->dev == DEV_GPU && runs_in(s, b, d) && select_wants_gpu(s);
    return (plan_suite){.def = d, .gpu_in = gpu_in};
}
