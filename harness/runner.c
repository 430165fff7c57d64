/* harness/runner.c - the one case runner (see runner.h): every case the
 * iterator yields (runner_iter.h), in its order, on its device: a CPU backend
 * in one process, a GPU backend in the GPU execution modes (or the suite's
 * own), either over replicas in the data-parallel modes; and the rows that
 * stand for a group of cases that cannot run (no usable GPU, a dtype the
 * backend lacks, a problem too large to emulate). */
#include "runner_int.h"
#include "errmsg.h"
#include "interrupt.h"
#include "roofs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The run's state between the cases the iterator yields. */
typedef struct run_state {
    runner *r;
    const suite_entry *e;
    case_iter it;
    problem p;              /* the current problem at the current dtype */
    case_data d;            /* its data (zeroed: none) */
    int ok;                 /* d was built */
    double base_median;     /* the baseline's host median of this problem at fp32 (NAN:
                             * none): every dtype's speedup is against it */
    double cpu_ms[DTYPE_COUNT];        /* the fastest passing host CPU row of this
                                        * problem per dtype (NAN: none yet) */
    const char *cpu_name[DTYPE_COUNT]; /* its backend */
    double host_sps;        /* this CPU backend's host samples/s (NAN: none) */
    double resident_sps;    /* this GPU backend's resident samples/s (NAN: none) */
    int skip_backend;       /* the rest of this backend's cases write no row */
    int skip_group;         /* the rest of its group (case_ref.first) writes no row */
    int barrier_due;        /* the ranks meet after this GPU backend's one-process modes */
    /* --rounds: the host rows of this problem and dtype measured together
     * (host_group): which backends' are written, and their samples/s */
    unsigned char grouped[CASE_MAX_BACKENDS];
    double group_sps[CASE_MAX_BACKENDS];
} run_state;

static const char *const NO_MEMORY = "out of host memory for the problem's buffers";

/* ---- GPU cases ------------------------------------------------------------ */

static void gpu_recover(runner *r)
{
    if (r->gpu_recover(r->gpu) == 0) return;
    r->gpu_lost = 1;
    fprintf(stderr, "bench: GPU lost, remaining GPU cases skipped: %s\n", r->gpu->why);
}

/* GPU case c on p (a GPU execution mode or the suite's own): open it, run it,
 * recover the device after a failure. */
static void gpu_case(runner *r, const suite_entry *e, const case_ref *c, const problem *p,
                     const case_data *d, result_row *row)
{
    const suite_def *s = e->def;
    case_exec ex;
    char skip[200] = "";
    int o;
    memset(&ex, 0, sizeof ex);
    err_clear();
    if (c->kind == CASE_OWN) {
        o = e->gpu->open_mode(c->b, s->modes[c->own], p, &ex, skip, sizeof skip);
    } else {
        data_reset(d, 0); /* the GPU modes poison their own outputs */
        void *const *sets[MAX_SETS];
        for (int k = 0; k < d->nsets; k++) sets[k] = d->buf[k];
        gpu_work w = {.def = s, .gpu = e->gpu, .b = c->b, .p = p, .l = &d->l,
                      .host = d->buf[0], .sets = sets, .nsets = d->nsets, .alloc = c->alloc};
        o = r->gpu_open(c->gpu, &w, &ex, skip, sizeof skip);
    }
    if (o == 1) {
        row_skip(row, "%s", skip);
    } else if (o != 0) {
        row_fail(row, "error: %s", err_get());
    } else {
        exec_case(r, s, c->b, p, d, &ex, 1, row);
        ex.close(ex.st);
        if (s->coll && s->coll->bus_factor && row->gbps > 0)
            row->busbw_gbps = row->gbps * s->coll->bus_factor(p, row->replicas);
    }
    if (strcmp(row->check, "fail") == 0) gpu_recover(r);
}

/* ---- replicated cases ----------------------------------------------------- */

/* A replicated case was opened with status o (0, 1 skip saying why in skip,
 * -1 error): the ranks agree on whether it runs, the worst status winning
 * with the first failing rank's reason. 0: it runs; 1: the row says why (ex
 * closed if this rank had opened it). */
static int open_agreed(int o, const char *skip, case_exec *ex, result_row *row)
{
    char why[200];
    snprintf(why, sizeof why, "%s", o == 1 ? skip : o ? err_get() : "");
    int worst = comm_max_int(o < 0 ? 2 : o);
    if (!worst) return 0;
    if (o == 0) ex->close(ex->st);
    comm_first_failure(o == 0, why, sizeof why);
    if (worst == 1) row_skip(row, "%s", why);
    else row_fail(row, "error: %s", why);
    return 1;
}

/* scaling_eff: samples/s over replicas x the one-replica samples/s (NAN: none). */
static void set_scaling(result_row *row, double one_sps)
{
    if (row->samples_per_s > 0 && one_sps > 0)
        row->scaling_eff = row->samples_per_s / ((double)row->replicas * one_sps);
}

/* Where the run's data-parallel cases run, CPU and GPU alike. */
static dp_cfg dp_cfg_of(const runner *r)
{
    dp_cfg c = {.comm = r->comm,
                .devices = r->devices > 0 ? r->devices : 1,
                .bucket_mb = r->bucket_mb > 0 ? r->bucket_mb : DP_BUCKET_MB_DEFAULT,
                .workers = r->workers,
                .threads = r->threads};
    return c;
}

/* CPU backend b on p in data-parallel case c over MPI, or in a workers mode
 * (hogwild: forked processes of this one, which set scaling_eff against one
 * worker themselves); host_sps: the same backend's one-process samples/s of
 * this run (NAN: none). */
static void dp_case(runner *r, const suite_def *s, const case_ref *c, const problem *p,
                    const case_data *d, double host_sps, result_row *row)
{
    case_exec ex;
    char skip[200] = "";
    memset(&ex, 0, sizeof ex);
    const int workers = c->dp->workers;
    if (!workers && !r->comm) {
        row_skip(row, "%s needs MPI: %s", c->mode, r->comm_why[0] ? r->comm_why : "not started");
        return;
    }
    row->replicas = c->replicas;
    snprintf(row->comm, sizeof row->comm, "%s", workers ? "shm" : r->comm->name);
    data_reset(d, 1);
    void *const *sets[MAX_SETS];
    for (int k = 0; k < d->nsets; k++) sets[k] = d->buf[k];
    err_clear();
    dp_cfg cfg = dp_cfg_of(r);
    if (workers) cfg.comm = NULL; /* one process and its forks */
    int o = s->dp_open(c->b, c->dp, p, &cfg, sets, d->nsets, &ex, skip, sizeof skip);
    if (open_agreed(o, skip, &ex, row)) return;
    exec_case(r, s, c->b, p, d, &ex, 0, row);
    ex.close(ex.st);
    if (!workers) set_scaling(row, host_sps);
}

/* GPU backend b on p in data-parallel case c over NCCL (every rank in a job
 * of several: nccl-mpi). resident_sps: the same backend's one-GPU samples/s
 * (NAN: none). */
static void gpu_dp_case(runner *r, const suite_entry *e, const case_ref *c, const problem *p,
                        const case_data *d, double resident_sps, result_row *row)
{
    const suite_def *s = e->def;
    const backend_def *b = c->b;
    const int several = r->comm && r->comm->size > 1;
    case_exec ex;
    char skip[200] = "";
    void *const *sets[MAX_SETS];   /* the case reads them until it closes */
    memset(&ex, 0, sizeof ex);
    dp_cfg cfg = dp_cfg_of(r);
    row->replicas = c->replicas;
    snprintf(row->comm, sizeof row->comm, "%s", several ? "nccl-mpi" : "nccl");
    int o;
    if (!r->gpu->usable || r->gpu_lost || !backend_present(b)) {
        o = 1;
        snprintf(skip, sizeof skip, "no usable GPU: %s",
                 !backend_present(b) ? "this build has no GPU layer" : r->gpu->why);
    } else {
        data_reset(d, 1);
        for (int k = 0; k < d->nsets; k++) sets[k] = d->buf[k];
        err_clear();
        o = e->gpu->dp_open(b, c->dp, p, &cfg, sets, d->nsets, &ex, skip, sizeof skip);
    }
    if (open_agreed(o, skip, &ex, row)) return;
    exec_case(r, s, b, p, d, &ex, 1, row);
    ex.close(ex.st);
    set_scaling(row, resident_sps);
    if (strcmp(row->check, "fail") == 0 && !several) gpu_recover(r);
}

/* ---- CPU cases ------------------------------------------------------------ */

/* Whether CPU backend c->b's case on p runs here (on rank 0 alone in a job
 * of several ranks, unless the suite's cases run on every rank; d NULL: out
 * of host memory): 1, opened into cs and ex; 0, its row is decided (skipped,
 * failed) or this rank sits it out. */
static int host_open(run_state *st, const case_ref *c, const case_data *d, result_row *row,
                     cpu_state *cs, case_exec *ex)
{
    runner *r = st->r;
    const suite_def *s = st->e->def;
    const backend_def *b = c->b;
    const problem *p = &st->p;
    const int several = r->comm && r->comm->size > 1 && !suite_all_ranks(s);
    if (c->replicas > 1) {
        row->replicas = c->replicas;
        snprintf(row->comm, sizeof row->comm, "%s", r->comm->name);
    }
    if (!backend_present(b)) {
        /* a CPU library this build did not find (OpenBLAS, oneDNN, MPI) */
        char needs[64];
        backend_needs_str(b->needs, needs, sizeof needs);
        row_skip(row, "%s not found at build time", needs);
    } else if (!d) {
        row_fail(row, "error: %s", NO_MEMORY);
    } else if (r->nbackends == 0 && !r->named_problems && b->default_max_flops > 0 &&
               p->flops > b->default_max_flops) {
        row_skip(row, "%s skipped above %.3g FLOP in default sweeps; name it with --backend to run",
                 b->name, b->default_max_flops);
    } else if (suite_all_ranks(s) && (!r->comm || r->comm->size < 2)) {
        row_skip(row, "%s needs MPI ranks: %s", b->name,
                 r->comm_why[0] ? r->comm_why : "not started");
    } else if (!several || comm_rank() == 0) {
        *cs = (cpu_state){.s = s, .b = b, .p = p, .d = (case_data *)d, .next = 0};
        cpu_open(cs, ex);
        return 1;
    }
    return 0;
}

/* After c's host row is filled: its bus bandwidth, the ranks that sat it out
 * meet, and what the cases after it need of it (samples/s, the baseline's median). */
static void host_close(run_state *st, const case_ref *c, result_row *row)
{
    const suite_def *s = st->e->def;
    if (s->coll && s->coll->bus_factor && row->gbps > 0)
        row->busbw_gbps = row->gbps * s->coll->bus_factor(&st->p, row->replicas);
    if (st->r->comm && st->r->comm->size > 1 && !suite_all_ranks(s))
        comm_quiet_barrier(); /* the other ranks sat this one out */
    st->host_sps = row->samples_per_s;
    if (c->bi == 0 && st->it.baseline && c->dtype == DTYPE_FP32) /* the baseline's */
        st->base_median = row->median_ms;
}

/* CPU backend c->b on p in one process. */
static void host_case(run_state *st, const case_ref *c, const case_data *d, result_row *row)
{
    cpu_state cs;
    case_exec ex;
    if (host_open(st, c, d, row, &cs, &ex))
        exec_case(st->r, st->e->def, c->b, &st->p, d, &ex, 0, row);
    host_close(st, c, row);
}

/* ---- speedup against the best CPU ---------------------------------------- */

/* The CPU backends of a problem run before its GPU backends (runner_iter.c:
 * the registry lists a suite's CPU rows first), and fp32 before the other
 * dtypes: a passing host CPU row bids for the problem's best CPU at its
 * dtype; a GPU row on real hardware gets speedup_vs_best_cpu against the
 * best of its dtype, else of fp32 (a dtype no CPU backend ran). */
static void best_cpu_row(run_state *st, const case_ref *c, result_row *row)
{
    const int dt = (int)c->dtype;
    if (!(row->median_ms > 0) || strcmp(row->check, "pass") != 0) return;
    if (c->b->dev == DEV_CPU) {
        if (c->kind == CASE_HOST && !(st->cpu_ms[dt] <= row->median_ms)) {
            st->cpu_ms[dt] = row->median_ms;
            st->cpu_name[dt] = c->b->name;
        }
        return;
    }
    if (row->emulated) return;
    const int use = st->cpu_ms[dt] > 0 ? dt : DTYPE_FP32;
    if (!(st->cpu_ms[use] > 0)) return;
    row->speedup_vs_best_cpu = st->cpu_ms[use] / row->median_ms;
    snprintf(row->best_cpu, sizeof row->best_cpu, "%s", st->cpu_name[use]);
}

/* ---- one case ------------------------------------------------------------- */

/* Case c's row against the run's roofs (roofs.h): an end-to-end GPU mode
 * copies its inputs in and its outputs back (the layout's buffers; a kept
 * output stays on the device), a suite's own mode may be one copy
 * (suite_def.mode_copy), a step suite's row is a whole step, the op's first
 * registry row is its reference, the backend may say why it runs below what
 * it could here (backend_def.caveat), and a host CPU row has the fastest
 * earlier CPU row of its problem and dtype as its peer. */
static void case_roof(const run_state *st, const case_ref *c, result_row *row)
{
    const runner *r = st->r;
    const suite_def *s = st->e->def;
    const case_data *d = st->ok ? &st->d : NULL;
    const backend_def *first = NULL;
    roof_case rc = {.whole_step = suite_step_count(s) > 0, .llc_bytes = r->llc_bytes,
                    .caveat = c->b->caveat ? c->b->caveat() : NULL};
    if (c->kind == CASE_HOST && c->b->dev == DEV_CPU && st->cpu_ms[c->dtype] > 0 &&
        st->cpu_name[c->dtype] != c->b->name) {
        rc.peer_ms = st->cpu_ms[c->dtype];
        rc.peer = st->cpu_name[c->dtype];
    }
    rc.reference = runner_backends_of(r->registry, s->op, &first, 1) == 1 && first == c->b;
    if (c->kind == CASE_GPU && c->gpu && c->gpu->kind != GPU_RESIDENT && d) {
        rc.copies = 1;
        rc.overlap = c->gpu->nstreams > 1;
        for (int i = 0; i < d->l.nbufs; i++) {
            const case_buf *b = &d->l.buf[i];
            if (b->role == ROLE_IN || b->role == ROLE_INOUT) rc.h2d_bytes += (double)b->bytes;
            if ((b->role == ROLE_OUT && !b->keep) || b->role == ROLE_INOUT)
                rc.d2h_bytes += (double)b->bytes;
        }
    }
    if (c->kind == CASE_OWN && s->mode_copy) rc.copy = s->mode_copy(c->mode);
    roof_verdict(r->roofs, &rc, row);
}

/* Case c's row started, and the progress line saying which case runs. */
static void row_begin(run_state *st, const case_ref *c, result_row *row)
{
    const suite_def *s = st->e->def;
    char label[192];
    row_start(st->r, row, s, &st->p, c->b, c->mode);
    if (c->kind == CASE_HOST)
        snprintf(label, sizeof label, "%s %s %s", s->name, st->p.desc, c->b->name);
    else
        snprintf(label, sizeof label, "%s %s %s %s", s->name, st->p.desc, c->b->name, c->mode);
    progress_start(st->r->prog, label);
}

/* Case c's filled row: its roof and best CPU, then written. 0, or the run
 * stops (row_emit's status; -1 also when a dump failed). */
static int row_end(run_state *st, const case_ref *c, result_row *row)
{
    case_roof(st, c, row);
    best_cpu_row(st, c, row);
    int rc = row_emit(st->r, row, st->base_median, st->it.baseline);
    progress_finish_one(st->r->prog);
    return !rc && st->r->dump_error[0] ? -1 : rc;
}

/* Case c's row: the case opened on its device, run, its row emitted. 0, or
 * the run stops (row_emit's status; -1 also when a dump failed). */
static int case_row(run_state *st, const case_ref *c)
{
    runner *r = st->r;
    const suite_def *s = st->e->def;
    const problem *p = &st->p;
    const case_data *d = st->ok ? &st->d : NULL;
    const int gpu_mode = c->kind == CASE_GPU || c->kind == CASE_OWN;
    result_row row;
    row_begin(st, c, &row);
    if (c->kind == CASE_HOST) {
        host_case(st, c, d, &row);
    } else if (gpu_mode) {
        gpu_case(r, st->e, c, p, d, &row);
        if (c->gpu && c->gpu->kind == GPU_RESIDENT && c->alloc == &GPU_ALLOCS[0])
            st->resident_sps = row.samples_per_s;
    } else if (c->b->dev == DEV_CPU && !backend_present(c->b)) {
        row_skip(&row, "%s", "not found at build time");
    } else if (!d) {
        row_fail(&row, "error: %s", NO_MEMORY);
    } else if (c->b->dev == DEV_CPU) {
        dp_case(r, s, c, p, d, st->host_sps, &row);
    } else {
        gpu_dp_case(r, st->e, c, p, d, st->resident_sps, &row);
    }
    int rc = row_end(st, c, &row);
    return gpu_mode ? rc : ranks_rc(r, rc); /* a GPU mode's ranks agree at its barrier */
}

/* --rounds: whether c's host row is measured with the others of its problem
 * and dtype (host_group): not where every rank runs it (the ranks agree). */
static int host_grouped(const run_state *st, const case_ref *c)
{
    return st->r->rounds > 1 && c->kind == CASE_HOST && !suite_all_ranks(st->e->def);
}

/* The host rows of first's problem and dtype (first and those the walk
 * yields after it), each opened and checked in turn, timed together in
 * alternating rounds (exec_group), then written in the walk's order as
 * case_row writes one. 0, or the run stops (row_emit's status). */
static int host_group(run_state *st, const case_ref *first)
{
    runner *r = st->r;
    const suite_def *s = st->e->def;
    const case_data *d = st->ok ? &st->d : NULL;
    result_row *row = calloc(CASE_MAX_BACKENDS, sizeof *row);
    case_ref g[CASE_MAX_BACKENDS];
    cpu_state cs[CASE_MAX_BACKENDS];
    case_exec ex[CASE_MAX_BACKENDS];
    int timed[CASE_MAX_BACKENDS] = {0}, n = 0, rc = 0;
    char why[200];
    if (!row) {
        err_set("out of memory for a group of rows");
        return -1;
    }
    case_iter it = st->it;   /* a copy: the walk after first */
    case_ref c = *first;
    do {   /* the backends the run reaches at this problem and dtype (backend_first) */
        if (c.kind == CASE_HOST && !(s->dtypes && backend_dt_skip(c.b, c.dtype, why, sizeof why)))
            g[n++] = c;
    } while (n < CASE_MAX_BACKENDS && case_iter_next(&it, &c) && c.pi == first->pi &&
             c.di == first->di);
    for (int i = 0; i < n; i++) {
        row_begin(st, &g[i], &row[i]);
        timed[i] = host_open(st, &g[i], d, &row[i], &cs[i], &ex[i]) &&
                   exec_check(r, s, g[i].b, &st->p, d, &ex[i], &row[i]);
    }
    exec_group(r, s, &st->p, n, timed, ex, row);
    for (int i = 0; i < n; i++) {
        if (rc) { /* the run stops: the rows after are dropped */
            free(row[i].samples);
            continue;
        }
        host_close(st, &g[i], &row[i]);
        st->grouped[g[i].bi] = 1;
        st->group_sps[g[i].bi] = st->host_sps;
        rc = ranks_rc(r, row_end(st, &g[i], &row[i]));
    }
    st->host_sps = st->group_sps[first->bi];
    free(row);
    return rc;
}

/* ---- the rows that stand for a group -------------------------------------- */

/* A row for backend b of the whole suite (the problem column "-"; dt: its
 * dtype, or -1 the backend's), skipped saying why. */
static int suite_skip_row(run_state *st, const backend_def *b, int dt, const char *why)
{
    result_row row;
    row_start(st->r, &row, st->e->def, NULL, b, "-");
    if (dt >= 0) snprintf(row.dtype, sizeof row.dtype, "%s", dtype_name((dtype_t)dt));
    row_skip(&row, "%s", why);
    return row_emit(st->r, &row, NAN, NULL);
}

/* Why the GPU cases of backend b cannot run, into why: 1, or 0 they can. */
static int no_gpu_why(const runner *r, const backend_def *b, int layer, char *why, size_t cap)
{
    if (r->gpu->usable && layer && backend_present(b)) return 0;
    snprintf(why, cap, "no usable GPU: %s",
             r->gpu->usable ? "this build has no GPU layer" : r->gpu->why);
    return 1;
}

/* Before the first one-process GPU mode of c's backend: a case that cannot
 * run gets one row saying why, not one per mode (nor per problem or dtype,
 * unless the GPU was lost mid-run). 1: the group writes no more rows (*rc the
 * row's); 0: its cases run. */
static int gpu_group_first(run_state *st, const case_ref *c, int *rc)
{
    runner *r = st->r;
    const suite_def *s = st->e->def;
    const problem *p = &st->p;
    const int later = c->pi > 0 || c->di > 0;   /* the suite's first rows are written */
    char why[200];
    result_row row;
    if (r->comm && r->comm->size > 1 && !suite_all_ranks(s) && comm_rank() != 0)
        return 1;   /* one process's work: rank 0's, the others wait at the barrier */
    if (no_gpu_why(r, c->b, st->e->gpu != NULL, why, sizeof why)) {
        if (!later || r->gpu_lost) *rc = suite_skip_row(st, c->b, -1, why);
        return 1;
    }
    if (!st->ok) {
        row_start(r, &row, s, p, c->b, "-");
        row_fail(&row, "error: %s", NO_MEMORY);
    } else if (r->gpu->emulated && !r->named_problems && s->emu_max_work > 0 &&
               p->flops + p->bytes > s->emu_max_work) {
        row_start(r, &row, s, p, c->b, "-");
        row_skip(&row, "emulated: default sweeps stop at %.3g FLOP+bytes; name problems with --sizes",
                 s->emu_max_work);
    } else {
        return 0;
    }
    *rc = row_emit(r, &row, NAN, NULL);
    return 1;
}

/* Before the first data-parallel mode of GPU backend c->b: without a usable
 * GPU one row says why, not one per mode and problem, and none when its GPU
 * modes' row said it. 1: the group writes no more rows (*rc); 0: it runs. */
static int gpu_dp_first(run_state *st, const case_ref *c, int *rc)
{
    char why[200];
    if (!no_gpu_why(st->r, c->b, 1, why, sizeof why)) return 0;
    if (c->pi == 0 && c->di == 0 && c->nsingle == 0)
        *rc = ranks_rc(st->r, suite_skip_row(st, c->b, -1, why));
    return 1;
}

/* In a job of several ranks a GPU backend's one-process modes are rank 0's
 * work (the others wait), unless the suite's cases run on every rank: the
 * ranks meet after them, and stop together when rank 0 stopped there. */
static int gpu_group_end(run_state *st, int rc)
{
    if (!st->barrier_due) return rc;
    st->barrier_due = 0;
    comm_quiet_barrier();
    if (comm_max_int(rc != 0) && rc == 0) rc = 1;   /* rank 0 stopped there */
    return rc;
}

/* ---- a suite -------------------------------------------------------------- */

/* Whether any selected backend runs work at dtype dt here (else the case data
 * is not built). */
static int dtype_has_work(const run_state *st, dtype_t dt)
{
    char why[200];
    for (int bi = 0; bi < st->it.nb; bi++) {
        const backend_def *b = st->it.order[bi];
        if (st->e->def->dtypes && backend_dt_skip(b, dt, why, sizeof why)) continue;
        if (!backend_present(b)) continue;
        if (b->dev == DEV_GPU && (!st->r->gpu->usable || st->r->gpu_lost)) continue;
        return 1;
    }
    return 0;
}

/* Whether a case of the run checks against the suite's reference: any but a
 * workers mode's (hogwild checks itself against its own synchronous run). */
static int run_needs_ref(const case_iter *it)
{
    for (int g = 0; g < 2; g++)
        for (int m = 0; m < it->nmodes[g]; m++)
            if (!it->modes[g][m].dp || !it->modes[g][m].dp->workers) return 1;
    return 0;
}

/* The first case of a (problem, dtype): the data of the one before freed,
 * its own built. */
static void data_next(run_state *st, const problem *probs, const case_ref *c)
{
    const suite_def *s = st->e->def;
    char what[200];
    data_free(s, &st->d);
    memset(st->grouped, 0, sizeof st->grouped);
    if (c->first & CASE_FIRST_PROBLEM) {
        st->base_median = NAN;
        for (int k = 0; k < DTYPE_COUNT; k++) {
            st->cpu_ms[k] = NAN;
            st->cpu_name[k] = NULL;
        }
    }
    st->p = probs[c->pi];
    st->p.dtype = c->dtype;
    snprintf(what, sizeof what, "preparing %s %s %s (inputs and the reference)", s->name,
             st->p.desc, s->dtypes ? dtype_name(c->dtype) : "");
    interrupt_set_activity(what);
    st->ok = dtype_has_work(st, c->dtype) &&
             data_build(st->r, s, &st->p, &st->d, run_needs_ref(&st->it)) == 0;
}

/* The first case of a backend at this problem and dtype: the ranks stop
 * together here when interrupted (1), a dtype the backend lacks has one row
 * for the suite. 0: go on (st->skip_backend: its cases write no row). */
static int backend_first(run_state *st, const case_ref *c, int *rc)
{
    runner *r = st->r;
    const suite_def *s = st->e->def;
    const backend_def *b = c->b;
    const int several = r->comm && r->comm->size > 1;
    char why[200];
    /* every rank stops at the same case, on the signal any rank got */
    int stop = (several ? ranks_signal() : interrupt_signal()) != 0;
    if (stop) {
        *rc = 1;
        return 1;
    }
    st->skip_backend = 0;
    st->host_sps = st->resident_sps = NAN;
    /* a GPU backend without a usable GPU has its one row saying so */
    const int no_gpu = b->dev == DEV_GPU && (!r->gpu->usable || r->gpu_lost || !backend_present(b));
    if (s->dtypes && !no_gpu && backend_dt_skip(b, c->dtype, why, sizeof why)) {
        st->skip_backend = 1;
        if (c->pi == 0) *rc = ranks_rc(r, suite_skip_row(st, b, c->dtype, why));
        return 0;
    }
    st->barrier_due = b->dev == DEV_GPU && several && !suite_all_ranks(s);
    return 0;
}

int runner_run(runner *r, const suite_entry *e, const problem *probs, int nprobs)
{
    const suite_def *s = e->def;
    run_state st = {.r = r, .e = e, .base_median = NAN};
    case_iter *it = &st.it;
    case_ref c;
    int rc = 0;
    case_iter_start(it, r, e, nprobs);
    if (!it->baseline && it->nb > 0 && (r->baseline || s->default_baseline) && comm_rank() == 0)
        fprintf(stderr, "bench: %s: baseline %s not selected: speedups left empty\n", s->name,
                r->baseline ? r->baseline : s->default_baseline);
    else if (it->baseline && s->dtypes && it->ndt > 0 && it->dts[0] != DTYPE_FP32 &&
             comm_rank() == 0)
        fprintf(stderr, "bench: %s: speedups are against %s's fp32 rows and --dtype has no "
                "fp32: speedups left empty\n", s->name, it->baseline);
    while (!rc && case_iter_next(it, &c)) {
        /* the GPU modes of the backend before, or of this one, are over */
        if ((c.first & CASE_FIRST_BACKEND) || ((c.first & CASE_FIRST_GROUP) && c.kind == CASE_DP))
            if ((rc = gpu_group_end(&st, rc))) break;
        if (c.first & CASE_FIRST_DATA) data_next(&st, probs, &c);
        if ((c.first & CASE_FIRST_BACKEND) && backend_first(&st, &c, &rc)) break;
        if (rc || st.skip_backend) continue;
        if (c.first & CASE_FIRST_GROUP)
            st.skip_group = c.b->dev != DEV_GPU ? 0
                            : c.kind == CASE_DP ? gpu_dp_first(&st, &c, &rc)
                                                : gpu_group_first(&st, &c, &rc);
        if (rc || st.skip_group) continue;
        if (host_grouped(&st, &c)) {   /* written with the first of its problem and dtype */
            if (st.grouped[c.bi]) st.host_sps = st.group_sps[c.bi];
            else rc = host_group(&st, &c);
            continue;
        }
        rc = case_row(&st, &c);
    }
    rc = gpu_group_end(&st, rc);
    data_free(s, &st.d);
    return rc;
}
