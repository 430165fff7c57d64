/* suites/train/train_dp.h - the one data-parallel step (train_dp_step.c) and
 * what its two backends share: the CPU replicas over MPI ranks (train_dp.c)
 * and the GPU replicas over NCCL, one host thread each (train_dp_gpu.c).
 * Internal to suites/train/.
 *
 * A replica steps its shard of the global batch (dp_shard: split as evenly
 * as possible). Its loss and gradients are those of its shard's mean, so
 * each is weighted by its share nb / B (step_cfg.shard_weight: the loss
 * gradient is scaled before the backward pass): the sum is the full-batch
 * step whatever N. Then, per mode (harness/dp_mode.h), over the replica's
 * comm_ops table (ops/comm_ops.h: MPI, or NCCL on its GPU) and on its stream:
 *   dp-gather    reduce to replica 0 (phase "reduce"), replica 0 updates,
 *                broadcast of the parameters ("broadcast"); the optimizer
 *                state lives on replica 0, as with DataParallel on device 0.
 *   ddp          all-reduce after the backward pass ("allreduce"), every
 *                replica updates.
 *   ddp-overlap  buckets of about bucket_mb (the first 1 MiB), in reverse
 *                parameter order as DDP forms them, each started
 *                (allreduce_start) as soon as the backward pass has finished
 *                its gradients (model.h's grads_ready); "allreduce-wait" is
 *                what is left after the backward pass: the last bucket
 *                (all-reduced at once: nothing is left to hide it behind),
 *                then wait().
 * A replica with no sample (more replicas than samples) adds zeros.
 * Test hooks (planted faults): BENCH_PLANT_SKIP_ALLREDUCE=<backend> - in ddp
 * and ddp-overlap the last replica keeps its own gradients (it joins each
 * all-reduce, the sum going to a buffer it ignores, so nothing hangs);
 * BENCH_PLANT_SHARD_WEIGHT=<backend> - every replica weighs 1/N instead of
 * its share (wrong when N does not divide the batch).
 */
#ifndef SUITES_TRAIN_TRAIN_DP_H
#define SUITES_TRAIN_TRAIN_DP_H

#include "train.h"
#include "stats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The hogwild mode (train_hog.c): train_dp_open's for a workers mode, b
 * having training ops. */
dp_open_fn train_hog_open;

/* Whether the test hook var names backend b (a planted fault). */
int dp_planted(const char *var, const backend_def *b);

/* DDP's buckets over a plan's gradients: parameters in reverse order, a
 * bucket closed once it holds bucket_mb, the first once it holds 1 MiB (a
 * parameter is never split). Bucket k starts at float start[k] and ends
 * where bucket k-1 starts (k = 0: at the plan's nparam_floats). */
typedef struct dp_buckets {
    long long *start;
    int n;
    long long nparam_floats;
} dp_buckets;
/* 0, or -1 out of memory (err_set). dp_buckets_free frees it. */
int dp_plan_buckets(const model_plan *pl, double bucket_mb, dp_buckets *bk);
void dp_buckets_free(dp_buckets *bk);

/* The points of a step its backend times (dp_replica.mark): the mode's
 * collectives, and dp-gather's broadcast. */
enum { DP_MARK_COMM, DP_MARK_COMM_END, DP_MARK_BCAST, DP_MARK_BCAST_END, DP_MARKS };

/* One replica of the step. The backend sets the inputs, dp_replica_open the
 * rest; buffers live in the memory of the replica's ops and comm (host, or
 * its GPU). */
typedef struct dp_replica {
    /* inputs */
    const train_ops *ops;
    const comm_ops *comm;        /* this replica's engine: its rank of size */
    dp_scheme scheme;
    const model_plan *full;      /* the global batch's plan */
    const dp_buckets *buckets;   /* ddp-overlap: the plan every replica shares */
    /* Called at each DP_MARK_* point with the step's stream (the host clock
     * on the CPU, CUDA events on the GPU). 0, or -1 with err_set. */
    int (*mark)(void *ctx, int which, void *stream);
    void *mark_ctx;
    /* dp_replica_open */
    model_plan shard;            /* its shard's plan (nb == 0: *full's, borrowed) */
    int off, nb;                 /* its shard: first sample, size */
    step_cfg cfg;                /* with its shard weight */
    int plant_skip;              /* BENCH_PLANT_SKIP_ALLREDUCE on the last replica */
    int holding;                 /* this replica holds model_interrupted (model_hold) */
    /* the backend's, after dp_replica_open (in the ops' memory) */
    const float *zeros;          /* nb == 0: nparam_floats + 1 zeros (what it adds) */
    float *discard;              /* plant_skip: nparam_floats the sums go to */
    /* the step's */
    float *grads;
    int started;                 /* ddp-overlap: buckets started */
} dp_replica;

/* Its shard of problem p (rank comm->rank of comm->size), plan and settings
 * for backend b. 0, or -1 with err_set. */
int dp_replica_open(dp_replica *r, const backend_def *b, const problem *p);
void dp_replica_close(dp_replica *r);

/* One step of replica r on its shard's x and labels and its buffers (sb's
 * grads_ready unset), queued on stream: gradients, the mode's collectives,
 * the update. The backend synchronizes. 0, or -1 with err_set. */
int dp_step(dp_replica *r, const step_bufs *sb, void *stream);

/* Per-step communication times (ms). */
typedef struct dp_times {
    double *ms;
    int n, cap;
} dp_times;
int dp_times_add(dp_times *t, double ms);   /* 0, or -1 out of memory (err_set) */

/* The comm columns of a case: comm_ms, the median of the last nsteps times
 * (the slowest rank's); ddp-overlap's overlap_eff, 1 - that wait / one
 * blocking all-reduce of every gradient (blocking_ms times one, five times;
 * 0, or -1 with err_set). 0, or -1. */
int dp_comm_columns(const dp_times *t, int nsteps, dp_scheme scheme,
                    int (*blocking_ms)(void *ctx, double *ms), void *ctx, result_row *row);

/* Whether replica `who`'s parameters (mine) differ from replica 0's (zero),
 * bit for bit; 1 with why naming the first tensor and element, else 0. */
int dp_params_differ(const model_plan *pl, int who, const float *mine, const float *zero,
                     char *why, size_t whycap);

#ifdef __cplusplus
}
#endif
#endif
