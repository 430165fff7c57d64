/* harness/exec.h - a case made ready to run: what the runner drives.
 *
 * The runner (runner.c) checks and times every case the same way, CPU or GPU:
 * one run, check the outputs, then measure_run over `run`. Whoever prepares a
 * case (the runner itself for CPU backends, gpu_exec_open for the GPU modes, a
 * suite with modes of its own such as transfer's copies) fills a case_exec.
 */
#ifndef HARNESS_EXEC_H
#define HARNESS_EXEC_H

#include <stddef.h>
#include "check.h"
#include "measure.h"
#include "result.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct case_exec {
    void *st;
    /* One repetition (the first call is the checked one). A callable timing
     * itself stores ms; otherwise it leaves *ms and the host clock times it. */
    int (*run)(void *st, double *ms);
    /* After the checked run: host pointers to every buffer of the case's
     * layout, outputs holding the result (inputs may be NULL). 0 or -1. */
    int (*outputs)(void *st, void **host);
    /* After timing: mode columns (split, overlap, peak memory, alloc time).
     * May run the work again (a serial reference run). 0 or -1. NULL: none. */
    int (*finish)(void *st, const measure_result *m, result_row *row);
    /* Optional, after a step's check passed: whether the replicas agree (a
     * data-parallel case: every replica holds the same parameters). 0, or 1
     * with why. Every replica calls it (it may communicate). */
    int (*agree)(void *st, char *why, size_t whycap);
    void (*close)(void *st);
    /* Optional: a case whose result no reference gives (Hogwild's lock-free
     * updates land in any order) checks itself after its checked run, in
     * place of the suite's check and of every step after the first: cr's
     * rel_err is its accuracy_lost. NULL: the suite's check. */
    void (*check)(void *st, check_result *cr, char *why, size_t whycap);
    /* Repetitions of the problem's work one run does (the row's flops, bytes
     * and samples count per run); 0: 1. */
    int per_run;
    /* 1: the work runs in other processes (hogwild's workers) while this one
     * waits: its CPU time says nothing of them, so the disturbance judge
     * (disturb.h) reads the signals it reads for a GPU row. */
    int elsewhere;
} case_exec;

#ifdef __cplusplus
}
#endif
#endif
