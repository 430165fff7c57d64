/* bench/main.c - the bench CLI: validate everything, then run the suites,
 * write results.csv (rows flushed as they finish), the summary, the report.
 * Exit: 0 every check passed, 1 a check failed or a case errored, 2 bad usage.
 *
 * main wires: the syntax and the option table are opts.c's, the selection
 * against the registries harness/select.c's, files outdir.c's, the problems
 * the planner's (harness/plan.c), a run's set-up and end run.c's, and what
 * the CLI says (--list, --info, usage errors, held warnings) cli.c's. */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "max_batch.h"
#include "opts.h"
#include "outdir.h"
#include "merge.h"
#include "plot.h"
#include "run.h"
#include "roof_probe.h"
#include "registry.h"
#include "gemm_cpu.h"
#include "errmsg.h"
#include "gpu.h"
#include "interrupt.h"
#include "job.h"
#include "schema.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef BENCH_VERSION
#define BENCH_VERSION "0.0.0"
#endif

#define MAX_PROBLEMS PLAN_MAX_PROBLEMS

int main(int argc, char **argv)
{
    bench_opts o;
    char err[1024] = "";
    job_std_fds();
    /* what this rank was asked to run: the ranks of a job must agree on it */
    const unsigned long long sel_hash = job_selection_hash(argc, argv);
    int say, agreed;
    int code = 2; /* what `usage` exits with: 2 bad usage, 1 no GPU where one was asked for */
    if (opts_parse(argc, argv, &o, err, sizeof err)) goto usage;
    if (o.help) {
        opts_usage(stdout);
        return 0;
    }
    if (o.version) {
        printf("bench %s\n", BENCH_VERSION);
        return 0;
    }
    const selection sel = cli_selection(&o);
    if (o.list) { /* --suite narrows it; an unknown name is a usage error as anywhere */
        if (select_validate(&sel, err, sizeof err)) goto usage;
        cli_list(stdout, &o);
        return 0;
    }
    if (o.columns) {
        schema_print_markdown(stdout);
        return 0;
    }
    if (o.emulate && strcmp(GPU_FLAVOUR, "emulator") != 0) return cli_exec_emulator(argv);
    /* bench's emulated cases keep the emulator's purely lazy streams (its
     * progress thread would run queued work while the host computes a
     * reference, and hide a missing synchronization); a user's own setting wins */
    int emu_progress_set = getenv("CUDAEMU_PROGRESS_MS") != NULL;
    if (strcmp(GPU_FLAVOUR, "emulator") == 0 && !emu_progress_set) setenv("CUDAEMU_PROGRESS_MS", "0", 0);
    if (cli_check_env(err, sizeof err)) goto usage;
    interrupt_install();
    cpu_threads_set(o.threads ? o.threads : cpu_threads_get());
    if (o.cuda_sync || (getenv("BENCH_CUDA_SYNC") && strcmp(getenv("BENCH_CUDA_SYNC"), "1") == 0))
        bench_cuda_sync_launches = 1;

    static bench_run r;
    static problem probs[OPT_MAX_LIST][MAX_PROBLEMS];
    int nprobs[OPT_MAX_LIST];
    memset(&r, 0, sizeof r);
    r.opt = &o;
    env_collect(&r.env);
    if (o.info) {
        cli_info(&r.env, stdout);
        gpu_info_print(stdout);
        return 0;
    }
    if (o.max_batch) {
        const backend_def *mb = NULL;
        if ((code = max_batch_check(&o, &mb, err, sizeof err)) != 0 ||
            (code = select_validate(&sel, err, sizeof err) ? 2 : 0) != 0)
            goto usage;
        run_setup(&r, &sel);
        return max_batch_main(&r, mb, stdout);
    }
    if (o.plot_dir[0]) return plot_main(&o);
    if (o.nmerge) return merge_main(&o);

    /* --- every check on the person's input, before any work ------------ */
    if (comm_init(&argc, &argv)) { /* MPI, when launched as one rank of several */
        snprintf(err, sizeof err, "bench: %s", err_get());
        goto usage;
    }
    if (select_validate(&sel, err, sizeof err) || select_check(&sel, err, sizeof err) ||
        opts_check_needs(&o, &sel, select_has(&sel), SEL_BEFORE_PLAN, err, sizeof err))
        goto usage;
    runner *run = &r.run;
    run_setup(&r, &sel);
    if ((code = run_probe(&r, &sel, err, sizeof err)) != 0) goto usage;
    code = 2;
    if (run_plan(&r, &sel, probs, nprobs, err, sizeof err)) goto usage;
    int total = 0, ncases[OPT_MAX_LIST];
    for (int i = 0; i < o.nsuites; i++) total += ncases[i] = runner_count(run, suite_find(o.suites[i]), nprobs[i]);
    for (int i = 0; i < o.nsuites && total > 0; i++)
        if (ncases[i] == 0 && nprobs[i] > 0 && (o.nbackends || o.nmodes))
            cli_notice("bench: %s: none of the selected backends and modes is one of its "
                       "(see bench --list): nothing to run\n", o.suites[i]);
    if (total == 0) {
        snprintf(err, sizeof err, "bench: the selection runs nothing: no selected suite has a "
                                  "problem with a selected backend and mode (see bench --list)");
        goto usage;
    }
    const int lead = comm_rank() == 0;
    char outdir[PATH_MAX] = "";
    if (lead && outdir_choose(o.out, o.force, outdir, sizeof outdir, err, sizeof err)) goto usage;
    if (lead && o.json[0] && outdir_check_json(o.json, outdir, err, sizeof err)) goto usage;
    if (opts_check_needs(&o, &sel, select_has_steps(&sel, ncases), SEL_STEPS, err, sizeof err))
        goto usage;
    if (lead && o.dump[0] && outdir_check_dump(o.dump, outdir, err, sizeof err)) goto usage;
    agreed = job_agree(0, NULL, sel_hash, &say); /* every rank's checks passed */
    if (agreed) {
        outdir_undo();
        return job_end(agreed);
    }

    /* --- the run --------------------------------------------------------- */
    run_prepare(&r, emu_progress_set);
    if (lead && interrupt_signal()) { /* during the checks: nothing was made yet */
        fprintf(stderr, "bench: interrupted by %s before the run began: nothing written\n",
                interrupt_name(interrupt_signal()));
        return job_end(job_verdict(128 + interrupt_signal()));
    }
    cli_notices_flush();
    if (!lead) { /* rank 0 makes the run folder; the others wait for its word */
        int v = job_verdict(0);
        return job_end(v ? v : run_follow(&r, probs, nprobs));
    }
    int claim = outdir_claim(outdir, sizeof outdir, !o.out[0], o.force, err, sizeof err);
    if (claim) {
        cli_err(err);
        return job_end(job_verdict(claim));
    }
    char csvpath[PATH_MAX + 16];
    snprintf(csvpath, sizeof csvpath, "%s/results.csv", outdir);
    if (o.dump[0]) {
        int d = outdir_make_dump(o.dump, err, sizeof err); /* undoes the claim on failure */
        if (d) {
            cli_err(err);
            return job_end(job_verdict(d));
        }
        run->dump_dir = o.dump;
    }
    roof_probe(&r, probs, nprobs, &r.roofs);
    run->roofs = &r.roofs;
    if (run_open(&r, outdir, csvpath)) {
        outdir_undo();
        return job_end(job_verdict(1));
    }
    progress_init(&r.prog, total);
    int stop = 0;
    for (int i = 0; i < o.nsuites && !stop; i++)
        stop = runner_run(run, suite_find(o.suites[i]), probs[i], nprobs[i]);
    progress_end(&r.prog);
    return job_end(run_finish(&r, outdir, csvpath, stop));

usage: /* one agreement, every rank: the rank that found the error says it */
    if (comm_init(&argc, &argv)) { /* MPI would not start: this rank says why, alone */
        cli_err_rank(err);
        return 2;
    }
    agreed = job_agree(code, err, sel_hash, &say);
    if (say) cli_err_rank(err);
    outdir_undo(); /* exit 2 leaves nothing behind */
    return job_end(agreed);
}
