/* harness/dp_mode.h - the data-parallel modes by name (every build knows
 * them; a suite with a data-parallel step runs them, suite.h's dp_open).
 *
 *   dp-gather    torch.nn.DataParallel's scheme: every replica computes its
 *                shard's gradients, they are summed on replica 0 (reduce),
 *                replica 0 updates, the parameters are broadcast again.
 *   ddp          DistributedDataParallel without overlap: the gradients are
 *                all-reduced after the backward pass, then every replica
 *                applies the same update.
 *   ddp-overlap  DDP's buckets: gradients are all-reduced in buckets of about
 *                --bucket-mb (default 25, as DDP's bucket_cap_mb) as the
 *                backward pass finishes them, on a communication stream or
 *                with nonblocking MPI, while the backward pass goes on.
 * The global batch is split as evenly as possible; each replica's gradient is
 * weighted by its shard's share of the batch, so the sum is the full-batch
 * step whatever N.
 *
 *   hogwild      torch.multiprocessing's Hogwild: --workers N processes that
 *                bench forks (harness/workers.h), the parameters and the
 *                optimizer state in memory they share, each stepping its own
 *                shard of every batch and updating the shared parameters
 *                without locks. A workers mode: CPU backends of one machine,
 *                never over MPI ranks or on GPUs (its `workers` field).
 */
#ifndef HARNESS_DP_MODE_H
#define HARNESS_DP_MODE_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { DP_GATHER, DP_DDP, DP_DDP_OVERLAP, DP_HOGWILD } dp_scheme;

typedef struct dp_mode {
    const char *name;    /* as in the CSV mode column */
    dp_scheme scheme;
    /* 1: runs on --workers forked processes sharing memory (CPU backends,
     * one machine); 0: on replicas over MPI ranks or NCCL GPUs */
    int workers;
    const char *about;   /* one line for --list */
} dp_mode;

extern const dp_mode DP_MODES[];   /* terminated by name NULL */
const dp_mode *dp_mode_find(const char *name);

#define DP_BUCKET_MB_DEFAULT 25.0

/* Replica r's shard of a global batch B over n replicas: the first B % n
 * replicas take one sample more. *off = its first sample, returns its size
 * (0 when B < n and r >= B). */
int dp_shard(int B, int n, int r, int *off);

#ifdef __cplusplus
}
#endif
#endif
