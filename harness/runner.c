/* harness/runner.c - the one case runner (see runner.h): the order of a
 * suite's cases, and each case opened on its device (CPU, the GPU modes,
 * data-parallel over MPI or NCCL); runner_data.c builds their data,
 * runner_exec.c runs an opened case and emits its row. */
#include "mode.h"
#include "runner_int.h"
#include "errmsg.h"
#include "interrupt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MAX_BACKENDS 64

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

/* ---- the order of a problem's cases --------------------------------------- */

/* The selected backends of the suite, the baseline first. */
static int case_order(const runner *r, const suite_def *s, const backend_def **out,
                      const char **baseline)
{
    const backend_def *all[MAX_BACKENDS];
    int n = runner_backends_of(r->registry, s->op, all, MAX_BACKENDS), k = 0;
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

/* Whether mode m of the suite runs: selected, and (the GPU execution modes)
 * one that applies to the suite's kind of work. */
static int mode_runs(const runner *r, const suite_entry *e, int m)
{
    if (e->def->modes) return runner_mode_selected(r, e->def->modes[m]);
    return gpu_mode_applies(&GPU_MODES[m], suite_step_count(e->def)) &&
           runner_mode_selected(r, GPU_MODES[m].name);
}

static const char *mode_name(const suite_entry *e, int m)
{
    if (e->def->modes) return e->def->modes[m];
    return GPU_MODES[m].name;
}

static int n_modes(const runner *r, const suite_entry *e)
{
    int n = 0;
    for (int m = 0; mode_name(e, m); m++) n += mode_runs(r, e, m);
    return n;
}

/* Whether data-parallel mode m runs: named with --mode, or (no --mode) in a
 * job of several ranks. */
static int dp_mode_runs(const runner *r, const suite_def *s, const dp_mode *m)
{
    if (!s->dp_open) return 0;
    if (r->nmodes) return runner_mode_selected(r, m->name);
    return r->comm && r->comm->size > 1;
}

/* Whether data-parallel mode m runs on the suite's GPU backends: named with
 * --mode, or (no --mode) with --devices N > 1 or in a job of several ranks. */
static int gpu_dp_mode_runs(const runner *r, const suite_entry *e, const dp_mode *m)
{
    if (!e->gpu || !e->gpu->dp_open) return 0;
    if (r->nmodes) return runner_mode_selected(r, m->name);
    return r->devices > 1 || (r->comm && r->comm->size > 1);
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

/* The rows backend b gives one problem at one dtype: its selected modes
 * (host or the GPU modes, and the data-parallel ones); 0: it has no rows. */
static int backend_modes(const runner *r, const suite_entry *e, const backend_def *b)
{
    int per = 0;
    if (b->dev != DEV_CPU) {
        per += n_modes(r, e);
        for (int m = 0; DP_MODES[m].name; m++) per += gpu_dp_mode_runs(r, e, &DP_MODES[m]);
    } else {
        per += runner_mode_selected(r, MODE_HOST);
        for (int m = 0; DP_MODES[m].name; m++) per += dp_mode_runs(r, e->def, &DP_MODES[m]);
    }
    return per;
}

int runner_count(const runner *r, const suite_entry *e, int nproblems)
{
    const backend_def *all[MAX_BACKENDS];
    dtype_t dts[DTYPE_COUNT];
    char why[200];
    int n = runner_backends_of(r->registry, e->def->op, all, MAX_BACKENDS), cases = 0;
    int ndt = run_dtypes(r, e->def, dts);
    for (int i = 0; i < n; i++) {
        if (!runner_backend_selected(r, all[i])) continue;
        int per = backend_modes(r, e, all[i]);
        for (int d = 0; d < ndt; d++) /* a dtype the backend lacks: one skip row */
            cases += e->def->dtypes && per && backend_dt_skip(all[i], dts[d], why, sizeof why)
                         ? 1 : per * nproblems;
    }
    return cases;
}

/* ---- GPU cases ------------------------------------------------------------ */

static void gpu_recover(runner *r)
{
    if (r->gpu_recover(r->gpu) == 0) return;
    r->gpu_lost = 1;
    fprintf(stderr, "bench: GPU lost, remaining GPU cases skipped: %s\n", r->gpu->why);
}

/* GPU backend b on p in mode m (an index into the suite's modes): open the
 * case (the GPU execution modes, or the suite's own), run it, recover the
 * device after a failure. */
static void gpu_case(runner *r, const suite_entry *e, const backend_def *b, const problem *p,
                     const case_data *d, int m, result_row *row)
{
    const suite_def *s = e->def;
    case_exec ex;
    char skip[200] = "";
    int o;
    memset(&ex, 0, sizeof ex);
    err_clear();
    if (s->modes) {
        o = e->gpu->open_mode(b, s->modes[m], p, &ex, skip, sizeof skip);
    } else {
        data_reset(d, 0); /* the GPU modes poison their own outputs */
        void *const *sets[MAX_SETS];
        for (int k = 0; k < d->nsets; k++) sets[k] = d->buf[k];
        gpu_work w = {.def = s, .gpu = e->gpu, .b = b, .p = p, .l = &d->l,
                      .host = d->buf[0], .sets = sets, .nsets = d->nsets};
        o = r->gpu_open(&GPU_MODES[m], &w, &ex, skip, sizeof skip);
    }
    if (o == 1) {
        row_skip(row, "%s", skip);
    } else if (o != 0) {
        row_fail(row, "error: %s", err_get());
    } else {
        exec_case(r, s, b, p, d, &ex, 1, row);
        ex.close(ex.st);
        if (s->coll && s->coll->bus_factor && row->gbps > 0)
            row->busbw_gbps = row->gbps * s->coll->bus_factor(p, row->replicas);
    }
    if (strcmp(row->check, "fail") == 0) gpu_recover(r);
}

/* Every selected mode of GPU backend b on problem pi. */
static int run_gpu_backend(runner *r, const suite_entry *e, const backend_def *b,
                           const problem *p, int pi, const case_data *d, double base_median,
                           const char *baseline, double *resident_sps)
{
    const suite_def *s = e->def;
    result_row row;
    int rc = 0;
    double work = p->flops + p->bytes;
    int oversize = r->gpu->usable && r->gpu->emulated && !r->named_problems &&
                   s->emu_max_work > 0 && work > s->emu_max_work;
    if (n_modes(r, e) == 0) return 0; /* --mode named none of this suite's GPU modes */
    if (!r->gpu->usable || !e->gpu || !backend_present(b)) {
        /* one row says why, not one per mode (nor per problem or dtype,
         * unless the GPU was lost mid-run) */
        if (pi > 0 && !r->gpu_lost) return 0;
        row_start(r, &row, s, NULL, b, "-");
        row_skip(&row, "no usable GPU: %s",
                 r->gpu->usable ? "this build has no GPU layer" : r->gpu->why);
        return row_emit(r, &row, NAN, NULL);
    }
    if (!d) {
        row_start(r, &row, s, p, b, "-");
        row_fail(&row, "error: %s", "out of host memory for the problem's buffers");
        return row_emit(r, &row, NAN, NULL);
    }
    if (oversize) { /* one row says why, not one per mode */
        row_start(r, &row, s, p, b, "-");
        row_skip(&row, "emulated: default sweeps stop at %.3g FLOP+bytes; name problems with --sizes",
                 s->emu_max_work);
        return row_emit(r, &row, NAN, NULL);
    }
    for (int m = 0; mode_name(e, m); m++) {
        const char *mode = mode_name(e, m);
        if (!mode_runs(r, e, m)) continue;
        row_start(r, &row, s, p, b, mode);
        char label[192];
        snprintf(label, sizeof label, "%s %s %s %s", s->name, p->desc, b->name, mode);
        progress_start(r->prog, label);
        gpu_case(r, e, b, p, d, m, &row);
        if (strcmp(mode, "resident") == 0) *resident_sps = row.samples_per_s;
        rc = row_emit(r, &row, base_median, baseline);
        progress_finish_one(r->prog);
        if (!rc && r->dump_error[0]) rc = -1;
        if (rc) return rc;
    }
    return 0;
}

/* ---- CPU cases ------------------------------------------------------------ */

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

/* CPU backend b on p in data-parallel mode m; host_sps: the same backend's
 * one-process samples/s of this run (NAN: none). */
static void dp_case(runner *r, const suite_def *s, const backend_def *b, const problem *p,
                    const case_data *d, const dp_mode *m, double host_sps, result_row *row)
{
    case_exec ex;
    char skip[200] = "";
    memset(&ex, 0, sizeof ex);
    if (!r->comm) {
        row_skip(row, "%s needs MPI: %s", m->name, r->comm_why[0] ? r->comm_why : "not started");
        return;
    }
    row->replicas = r->comm->size;
    snprintf(row->comm, sizeof row->comm, "%s", r->comm->name);
    data_reset(d, 1);
    void *const *sets[MAX_SETS];
    for (int k = 0; k < d->nsets; k++) sets[k] = d->buf[k];
    err_clear();
    int o = s->dp_open(b, m, p, r->comm, r->bucket_mb > 0 ? r->bucket_mb : DP_BUCKET_MB_DEFAULT,
                       sets, d->nsets, &ex, skip, sizeof skip);
    if (open_agreed(o, skip, &ex, row)) return;
    exec_case(r, s, b, p, d, &ex, 0, row);
    ex.close(ex.st);
    set_scaling(row, host_sps);
}

/* Every selected mode of CPU backend b on p (d NULL: out of host memory):
 * host (on rank 0 alone in a job of several ranks, unless the suite's cases
 * run on every rank), then the data-parallel modes. is_base: b is the
 * baseline, whose host median goes to *base_median. */
static int run_cpu_backend(runner *r, const suite_def *s, const backend_def *b, const problem *p,
                           const case_data *d, int is_base, double *base_median,
                           const char *baseline)
{
    result_row row;
    int rc = 0;
    double host_sps = NAN;
    const int several = r->comm && r->comm->size > 1 && !suite_all_ranks(s);
    if (runner_mode_selected(r, MODE_HOST)) {
        int mine = !several || comm_rank() == 0;
        row_start(r, &row, s, p, b, MODE_HOST);
        if (suite_all_ranks(s) && r->comm && r->comm->size > 1) {
            row.replicas = r->comm->size;
            snprintf(row.comm, sizeof row.comm, "%s", r->comm->name);
        }
        char label[192];
        snprintf(label, sizeof label, "%s %s %s", s->name, p->desc, b->name);
        progress_start(r->prog, label);
        if (!backend_present(b)) {
            /* a CPU library this build did not find (cpu-onednn) */
            char needs[64];
            backend_needs_str(b->needs & ~(unsigned)NEEDS_BLAS, needs, sizeof needs);
            row_skip(&row, "%s not found at build time", needs);
        } else if (!d) {
            row_fail(&row, "error: %s", "out of host memory for the problem's buffers");
        } else if (r->nbackends == 0 && !r->named_problems && b->default_max_flops > 0 &&
                   p->flops > b->default_max_flops) {
            row_skip(&row, "%s skipped above %.3g FLOP in default sweeps; name it with --backend to run",
                     b->name, b->default_max_flops);
        } else if (suite_all_ranks(s) && (!r->comm || r->comm->size < 2)) {
            row_skip(&row, "%s needs MPI ranks: %s", b->name,
                     r->comm_why[0] ? r->comm_why : "not started");
        } else if (mine) {
            cpu_state c = {.s = s, .b = b, .p = p, .d = (case_data *)d, .next = 0};
            case_exec ex;
            cpu_open(&c, &ex);
            exec_case(r, s, b, p, d, &ex, 0, &row);
            if (s->coll && s->coll->bus_factor && row.gbps > 0)
                row.busbw_gbps = row.gbps * s->coll->bus_factor(p, row.replicas);
        }
        if (several) comm_quiet_barrier(); /* the other ranks sat this one out */
        host_sps = row.samples_per_s;
        if (is_base) *base_median = row.median_ms;
        rc = row_emit(r, &row, *base_median, baseline);
        progress_finish_one(r->prog);
        if (!rc && r->dump_error[0]) rc = -1;
        rc = ranks_rc(r, rc);
    }
    for (int m = 0; DP_MODES[m].name && !rc; m++) {
        if (!dp_mode_runs(r, s, &DP_MODES[m])) continue;
        row_start(r, &row, s, p, b, DP_MODES[m].name);
        char label[192];
        snprintf(label, sizeof label, "%s %s %s %s", s->name, p->desc, b->name, DP_MODES[m].name);
        progress_start(r->prog, label);
        if (!backend_present(b)) row_skip(&row, "%s", "not found at build time");
        else if (!d) row_fail(&row, "error: %s", "out of host memory for the problem's buffers");
        else dp_case(r, s, b, p, d, &DP_MODES[m], host_sps, &row);
        rc = row_emit(r, &row, *base_median, baseline);
        progress_finish_one(r->prog);
        if (!rc && r->dump_error[0]) rc = -1;
        rc = ranks_rc(r, rc);
    }
    return rc;
}

/* ---- GPU data-parallel cases ---------------------------------------------- */

/* GPU backend b on p in mode m over NCCL (every rank in a job of several:
 * nccl-mpi). resident_sps: the same backend's one-GPU samples/s (NAN: none). */
static void gpu_dp_case(runner *r, const suite_entry *e, const backend_def *b, const problem *p,
                        const case_data *d, const dp_mode *m, double resident_sps,
                        result_row *row)
{
    const suite_def *s = e->def;
    const int several = r->comm && r->comm->size > 1;
    case_exec ex;
    char skip[200] = "";
    void *const *sets[MAX_SETS];   /* the case reads them until it closes */
    memset(&ex, 0, sizeof ex);
    gpu_dp_cfg cfg = {.devices = several ? 1 : (r->devices > 0 ? r->devices : 1),
                      .mpi = several ? r->comm : NULL,
                      .bucket_mb = r->bucket_mb > 0 ? r->bucket_mb : DP_BUCKET_MB_DEFAULT};
    row->replicas = several ? r->comm->size : cfg.devices;
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
        o = e->gpu->dp_open(b, m, p, &cfg, sets, d->nsets, &ex, skip, sizeof skip);
    }
    if (open_agreed(o, skip, &ex, row)) return;
    exec_case(r, s, b, p, d, &ex, 1, row);
    ex.close(ex.st);
    set_scaling(row, resident_sps);
    if (strcmp(row->check, "fail") == 0 && !several) gpu_recover(r);
}

/* Every selected data-parallel mode of GPU backend b on p. */
static int run_gpu_dp(runner *r, const suite_entry *e, const backend_def *b, const problem *p,
                      int pi, const case_data *d, double resident_sps, double base_median,
                      const char *baseline)
{
    int rc = 0, any = 0;
    for (int m = 0; DP_MODES[m].name; m++) any |= gpu_dp_mode_runs(r, e, &DP_MODES[m]);
    if (any && (!r->gpu->usable || !backend_present(b))) {
        /* one row says why, not one per mode and problem (the GPU modes' rule) */
        if (pi > 0 || n_modes(r, e) > 0) return 0;   /* run_gpu_backend's row said it */
        result_row row;
        row_start(r, &row, e->def, NULL, b, "-");
        row_skip(&row, "no usable GPU: %s",
                 r->gpu->usable ? "this build has no GPU layer" : r->gpu->why);
        return ranks_rc(r, row_emit(r, &row, NAN, NULL));
    }
    for (int m = 0; DP_MODES[m].name && !rc; m++) {
        if (!gpu_dp_mode_runs(r, e, &DP_MODES[m])) continue;
        result_row row;
        row_start(r, &row, e->def, p, b, DP_MODES[m].name);
        char label[192];
        snprintf(label, sizeof label, "%s %s %s %s", e->def->name, p->desc, b->name,
                 DP_MODES[m].name);
        progress_start(r->prog, label);
        if (!d) row_fail(&row, "error: %s", "out of host memory for the problem's buffers");
        else gpu_dp_case(r, e, b, p, d, &DP_MODES[m], resident_sps, &row);
        rc = row_emit(r, &row, base_median, baseline);
        progress_finish_one(r->prog);
        if (!rc && r->dump_error[0]) rc = -1;
        rc = ranks_rc(r, rc);
    }
    return rc;
}

/* ---- a suite -------------------------------------------------------------- */

/* A skip row for backend b at dtype dt (why), once per suite: the problem
 * column is "-", as the rows that say a GPU is missing. */
static int dtype_skip_row(runner *r, const suite_def *s, const backend_def *b, dtype_t dt,
                          const char *why)
{
    result_row row;
    row_start(r, &row, s, NULL, b, "-");
    snprintf(row.dtype, sizeof row.dtype, "%s", dtype_name(dt));
    row_skip(&row, "%s", why);
    return ranks_rc(r, row_emit(r, &row, NAN, NULL));
}

/* Whether any of the nb backends runs work at dtype dt here (else the case
 * data is not built). */
static int dtype_has_work(const runner *r, const backend_def *const *order, int nb, dtype_t dt,
                          int axis)
{
    char why[200];
    for (int bi = 0; bi < nb; bi++) {
        const backend_def *b = order[bi];
        if (axis && backend_dt_skip(b, dt, why, sizeof why)) continue;
        if (!backend_present(b)) continue;
        if (b->dev == DEV_GPU && (!r->gpu->usable || r->gpu_lost)) continue;
        return 1;
    }
    return 0;
}

int runner_run(runner *r, const suite_entry *e, const problem *probs, int nprobs)
{
    const suite_def *s = e->def;
    const backend_def *order[MAX_BACKENDS];
    const char *baseline;
    dtype_t dts[DTYPE_COUNT];
    int nb = case_order(r, s, order, &baseline), rc = 0, ndt = run_dtypes(r, s, dts);
    if (!baseline && nb > 0 && (r->baseline || s->default_baseline) && comm_rank() == 0)
        fprintf(stderr, "bench: %s: baseline %s not selected: speedups left empty\n", s->name,
                r->baseline ? r->baseline : s->default_baseline);
    else if (baseline && s->dtypes && ndt > 0 && dts[0] != DTYPE_FP32 && comm_rank() == 0)
        fprintf(stderr, "bench: %s: speedups are against %s's fp32 rows and --dtype has no "
                "fp32: speedups left empty\n", s->name, baseline);
    for (int pi = 0; pi < nprobs && !rc; pi++) {
        double base_median = NAN;   /* the baseline at fp32: every dtype's speedup is against it */
        for (int di = 0; di < ndt && !rc; di++) {
            problem pd = probs[pi];
            const problem *p = &pd;
            case_data d;
            char what[200];
            /* not the suite's first case: its once-per-suite rows are written */
            int later = pi > 0 || di > 0;
            pd.dtype = dts[di];
            snprintf(what, sizeof what, "preparing %s %s %s (inputs and the reference)", s->name,
                     p->desc, s->dtypes ? dtype_name(pd.dtype) : "");
            interrupt_set_activity(what);
            memset(&d, 0, sizeof d);
            int ok = dtype_has_work(r, order, nb, pd.dtype, s->dtypes != 0) &&
                     data_build(r, s, p, &d) == 0;
            for (int bi = 0; bi < nb && !rc; bi++) {
                const backend_def *b = order[bi];
                const int several = r->comm && r->comm->size > 1;
                char why[200];
                int stop = interrupt_signal() != 0;
                if (several) stop = comm_max_int(stop);   /* every rank stops at the same case */
                if (stop) {
                    rc = 1;
                    break;
                }
                /* a GPU backend without a usable GPU has its one row saying so */
                const int no_gpu = b->dev == DEV_GPU &&
                                   (!r->gpu->usable || r->gpu_lost || !backend_present(b));
                if (s->dtypes && !no_gpu && backend_modes(r, e, b) > 0 &&
                    backend_dt_skip(b, pd.dtype, why, sizeof why)) {
                    if (pi == 0) rc = dtype_skip_row(r, s, b, pd.dtype, why);
                    continue;
                }
                if (b->dev == DEV_GPU) { /* one process's work: rank 0's, the others wait */
                    double sps = NAN;
                    if (!several || comm_rank() == 0 || suite_all_ranks(s))
                        rc = run_gpu_backend(r, e, b, p, later, ok ? &d : NULL, base_median,
                                             baseline, &sps);
                    if (several && !suite_all_ranks(s)) {
                        comm_quiet_barrier();
                        if (comm_max_int(rc != 0) && rc == 0) rc = 1;   /* rank 0 stopped there */
                    }
                    if (!rc)
                        rc = run_gpu_dp(r, e, b, p, later, ok ? &d : NULL, sps, base_median,
                                        baseline);
                    continue;
                }
                rc = run_cpu_backend(r, s, b, p, ok ? &d : NULL,
                                     bi == 0 && baseline && pd.dtype == DTYPE_FP32, &base_median,
                                     baseline);
            }
            data_free(s, &d);
        }
    }
    return rc;
}
