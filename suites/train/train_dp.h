/* suites/train/train_dp.h - what the CPU (train_dp.c) and GPU
 * (train_dp_gpu.c) data-parallel steps share: the shard weight, DDP's
 * buckets, the per-step communication times, the replicas' agreement
 * message. Internal to suites/train/. */
#ifndef SUITES_TRAIN_TRAIN_DP_H
#define SUITES_TRAIN_TRAIN_DP_H

#include "train.h"
#include "stats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Whether the test hook var names backend b (a planted fault). */
int dp_planted(const char *var, const backend_def *b);

/* Replica weight of a shard of nb samples of B over n replicas: nb / B
 * (BENCH_PLANT_SHARD_WEIGHT=<backend>: 1 / n, wrong on unequal shards). */
float dp_shard_weight(const backend_def *b, int B, int n, int nb);

/* DDP's buckets over pl's gradients: parameters in reverse order, a bucket
 * closed once it holds bucket_mb, the first once it holds 1 MiB (a parameter
 * is never split). Bucket k starts at float (*bucket)[k] and ends where
 * bucket k-1 starts (k = 0: at nparam_floats). 0, or -1 out of memory. */
int dp_plan_buckets(const model_plan *pl, double bucket_mb, long long **bucket, int *n);

/* Per-step communication times (ms). */
typedef struct dp_times {
    double *ms;
    int n, cap;
} dp_times;
int dp_times_add(dp_times *t, double ms);   /* 0, or -1 out of memory (err_set) */
/* The median of the last k (NAN: none). */
double dp_times_median(const dp_times *t, int k);

/* overlap_eff: the share of one blocking all-reduce (ms) the exposed wait
 * (ms) hid, 0..1 (NAN when either is missing). */
double dp_overlap_eff(double exposed, double blocking);

/* Whether replica `who`'s parameters (mine) differ from replica 0's (zero),
 * bit for bit; 1 with why naming the first tensor and element, else 0. */
int dp_params_differ(const model_plan *pl, int who, const float *mine, const float *zero,
                     char *why, size_t whycap);

#ifdef __cplusplus
}
#endif
#endif
