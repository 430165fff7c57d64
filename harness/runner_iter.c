/* harness/runner_iter.c - which cases a run has and their order (runner_iter.h):
 * the selection, the backends (baseline first), the dtypes and the modes;
 * runner_count over them. */
#include "runner_iter.h"
#include "mode.h"

#include <string.h>

int runner_backend_selected(const runner *r, const backend_def *b)
{
    if (r->nbackends == 0) return 1;
    for (int i = 0; i < r->nbackends; i++)
        if (strcmp(r->backends[i], b->name) == 0) return 1;
    return 0;
}

int runner_mode_selected(const runner *r, const char *mode)
{
    if (r->nmodes == 0) return 1;
    for (int i = 0; i < r->nmodes; i++)
        if (strcmp(r->modes[i], mode) == 0) return 1;
    return 0;
}

int runner_backends_of(const backend_def *registry, const char *op, const backend_def **out,
                       int cap)
{
    int n = 0;
    for (int i = 0; registry[i].name; i++)
        if (strcmp(registry[i].op, op) == 0 && n < cap) out[n++] = &registry[i];
    return n;
}

/* The selected backends of the suite, the baseline first (*baseline: its
 * name when it runs, else NULL). */
static int case_order(const runner *r, const suite_def *s, const backend_def **out,
                      const char **baseline)
{
    const backend_def *all[CASE_MAX_BACKENDS];
    int n = runner_backends_of(r->registry, s->op, all, CASE_MAX_BACKENDS), k = 0;
    const char *base = r->baseline ? r->baseline : s->default_baseline;
    *baseline = NULL;
    for (int i = 0; i < n; i++)
        if (base && strcmp(all[i]->name, base) == 0 && runner_backend_selected(r, all[i]) &&
            runner_mode_selected(r, MODE_HOST)) {
            out[k++] = all[i];
            *baseline = base;
        }
    for (int i = 0; i < n; i++)
        if (!(*baseline && out[0] == all[i]) && runner_backend_selected(r, all[i]))
            out[k++] = all[i];
    return k;
}

/* The dtypes the run takes of suite s, in order (fp32 first: the baseline's);
 * a suite without a dtype axis has one pass (returns 1, *out fp32). */
static int run_dtypes(const runner *r, const suite_def *s, dtype_t *out)
{
    int n = 0;
    if (!s->dtypes) {
        out[0] = DTYPE_FP32;
        return 1;
    }
    for (int d = 0; d < DTYPE_COUNT; d++)
        if ((s->dtypes & DTYPE_BIT(d)) && (!r->dtypes || (r->dtypes & DTYPE_BIT(d))))
            out[n++] = (dtype_t)d;
    return n;
}

/* Whether data-parallel mode m runs on the suite's CPU backends: named with
 * --mode, or (no --mode) in a job of several ranks; a workers mode (hogwild)
 * with --workers, unless --mode leaves it out. */
static int dp_mode_runs(const runner *r, const suite_def *s, const dp_mode *m)
{
    if (!s->dp_open) return 0;
    if (m->workers) return r->workers > 0 && runner_mode_selected(r, m->name);
    if (r->nmodes) return runner_mode_selected(r, m->name);
    return r->comm && r->comm->size > 1;
}

/* Whether data-parallel mode m runs on the suite's GPU backends: named with
 * --mode, or (no --mode) with --devices N > 1 or in a job of several ranks. */
static int gpu_dp_mode_runs(const runner *r, const suite_entry *e, const dp_mode *m)
{
    if (!e->gpu || !e->gpu->dp_open || m->workers) return 0;
    if (r->nmodes) return runner_mode_selected(r, m->name);
    return r->devices > 1 || (r->comm && r->comm->size > 1);
}

static void add_mode(case_iter *it, int gpu, case_ref c)
{
    if (it->nmodes[gpu] < CASE_MAX_MODES) it->modes[gpu][it->nmodes[gpu]++] = c;
}

/* The modes a CPU backend ([0]) and a GPU backend ([1]) of the suite run
 * every problem in, in order, with the replicas each runs on. */
static void list_modes(case_iter *it)
{
    const runner *r = it->r;
    const suite_def *s = it->e->def;
    const int ranks = r->comm ? r->comm->size : 1;
    const int several = ranks > 1;
    if (runner_mode_selected(r, MODE_HOST))
        add_mode(it, 0, (case_ref){.kind = CASE_HOST, .mode = MODE_HOST,
                                   .replicas = suite_all_ranks(s) && several ? ranks : 1});
    for (int k = 0; s->modes && s->modes[k]; k++)
        if (runner_mode_selected(r, s->modes[k]))
            add_mode(it, 1, (case_ref){.kind = CASE_OWN, .mode = s->modes[k], .own = k,
                                       .replicas = 1});
    for (int m = 0; !s->modes && GPU_MODES[m].name; m++)
        if (gpu_mode_applies(&GPU_MODES[m], suite_step_count(s)) &&
            runner_mode_selected(r, GPU_MODES[m].name))
            for (int a = 0; GPU_ALLOCS[a].name; a++) {
                /* a step suite's allocators (--alloc; none: the default); the
                 * others run the default alone */
                unsigned want = suite_step_count(s) && r->allocs ? r->allocs : 1u;
                char *name = it->mode_names[it->nmodes[1] % CASE_MAX_MODES];
                if (!(want >> a & 1)) continue;
                gpu_alloc_mode_name(GPU_MODES[m].name, &GPU_ALLOCS[a], name, sizeof it->mode_names[0]);
                add_mode(it, 1, (case_ref){.kind = CASE_GPU, .mode = name, .gpu = &GPU_MODES[m],
                                           .alloc = &GPU_ALLOCS[a], .replicas = 1});
            }
    it->nsingle[0] = it->nmodes[0];
    it->nsingle[1] = it->nmodes[1];
    for (int m = 0; DP_MODES[m].name; m++) {
        const dp_mode *dp = &DP_MODES[m];
        if (dp_mode_runs(r, s, dp))
            add_mode(it, 0, (case_ref){.kind = CASE_DP, .mode = dp->name, .dp = dp,
                                       .replicas = dp->workers ? r->workers : ranks});
        if (gpu_dp_mode_runs(r, it->e, dp))
            add_mode(it, 1, (case_ref){.kind = CASE_DP, .mode = dp->name, .dp = dp,
                                       .replicas = several ? ranks
                                                   : r->devices > 0 ? r->devices : 1});
    }
}

void case_iter_start(case_iter *it, const runner *r, const suite_entry *e, int nprobs)
{
    memset(it, 0, sizeof *it);
    it->r = r;
    it->e = e;
    it->nprobs = nprobs;
    it->nb = case_order(r, e->def, it->order, &it->baseline);
    it->ndt = run_dtypes(r, e->def, it->dts);
    list_modes(it);
    it->prev.pi = -1;
}

/* What case c begins, against the case before it. */
static unsigned case_first(const case_ref *c, const case_ref *prev)
{
    unsigned f = 0;
    if (c->pi != prev->pi) f |= CASE_FIRST_PROBLEM;
    if (f || c->di != prev->di) f |= CASE_FIRST_DATA;
    if (f || c->bi != prev->bi) f |= CASE_FIRST_BACKEND;
    if (f || (c->kind == CASE_DP) != (prev->kind == CASE_DP)) f |= CASE_FIRST_GROUP;
    return f;
}

int case_iter_next(case_iter *it, case_ref *c)
{
    while (it->pi < it->nprobs && it->bi < it->nb && it->di < it->ndt) {
        const backend_def *b = it->order[it->bi];
        const int gpu = b->dev != DEV_CPU;
        if (it->mi < it->nmodes[gpu]) {
            *c = it->modes[gpu][it->mi++];
            c->pi = it->pi;
            c->di = it->di;
            c->dtype = it->dts[it->di];
            c->bi = it->bi;
            c->b = b;
            c->nsingle = it->nsingle[gpu];
            c->first = case_first(c, &it->prev);
            it->prev = *c;
            return 1;
        }
        it->mi = 0;
        if (++it->bi < it->nb) continue;
        it->bi = 0;
        if (++it->di < it->ndt) continue;
        it->di = 0;
        it->pi++;
    }
    return 0;
}

int runner_count(const runner *r, const suite_entry *e, int nproblems)
{
    case_iter it;
    case_ref c;
    char why[200];
    int cases = 0;
    case_iter_start(&it, r, e, nproblems);
    while (case_iter_next(&it, &c))
        if (e->def->dtypes && backend_dt_skip(c.b, c.dtype, why, sizeof why))
            cases += c.pi == 0 && (c.first & CASE_FIRST_BACKEND); /* one skip row */
        else
            cases++;
    return cases;
}
