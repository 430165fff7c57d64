/* kernels/launch_probe.h - an empty kernel launched back to back: the launch
 * latency roof (bench/roof_probe.c, through harness/gpu.h's gpu_launch_us).
 * Includable from C and C++. */
#ifndef KERNELS_LAUNCH_PROBE_H
#define KERNELS_LAUNCH_PROBE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Launches an empty one-thread kernel once (warm-up), then n times back to
 * back on a stream of its own between two events; *us: the events' time / n.
 * n >= 1. 0, or -1 with err_set. */
int launch_probe_cuda(int n, double *us);

#ifdef __cplusplus
}
#endif
#endif
