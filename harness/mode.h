/* harness/mode.h - every mode by name: the one view of the mode column that
 * the runner, the option checks, the report and the charts share.
 *
 * A mode is one row of one table: `host` (CPU rows) here, the GPU execution
 * modes in gpu_mode.c (GPU_MODES), the data-parallel ones in dp_mode.c
 * (DP_MODES); a suite's own modes (transfer's copy directions, collectives'
 * device) in its suite_def. The chart order is host, then GPU_MODES' order;
 * each row carries its colour and whether it is its device's headline mode,
 * so no list elsewhere is kept in step with these by comment. */
#ifndef HARNESS_MODE_H
#define HARNESS_MODE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The mode of CPU rows. */
#define MODE_HOST "host"

/* MODE_KIND_DP: replicas over MPI or NCCL; MODE_KIND_WORKERS: a dp_mode row
 * with `workers` (forked processes sharing memory, CPU backends only). */
typedef enum { MODE_KIND_HOST, MODE_KIND_GPU, MODE_KIND_DP, MODE_KIND_WORKERS, MODE_KIND_OTHER } mode_kind;

/* What kind of mode `name` is (MODE_KIND_OTHER: a suite's own, or none). */
mode_kind mode_kind_of(const char *name);

/* Whether rows in mode `name` are their device's headline rows (host, and
 * the GPU's kernel-alone mode): throughput charts and tables use them. */
int mode_is_primary(const char *name);

/* The chart rank of mode `name` (0 host, then the GPU modes in order), or
 * 99 for a mode charts do not colour; and the name at rank i (NULL past the
 * last). */
int mode_rank(const char *name);
const char *mode_at_rank(int i);

/* The charts' mode colours in rank order, space-separated, into out. */
void mode_palette(char *out, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
