/* harness/test_hooks.h - every test hook: an environment variable that plants
 * a fault or forces a code path so a test can watch a check fail or reach a
 * path this machine would not take. Each is read through its name here and
 * nowhere else; README "Test hooks" has a row for each (tests/hooks_test.sh
 * fails when the two lists differ, or a source reads a BENCH_ variable that
 * is neither a hook here nor a documented setting). None changes a correct
 * run when unset. */
#ifndef HARNESS_TEST_HOOKS_H
#define HARNESS_TEST_HOOKS_H

/* =BACKEND: one element of the first output of BACKEND's checked run is
 * corrupted (harness/runner_exec.c). */
#define HOOK_PLANT_FAULT "BENCH_PLANT_FAULT"
/* =BACKEND: a 16-bit output of BACKEND one ulp off (harness/runner_exec.c). */
#define HOOK_PLANT_ULP "BENCH_PLANT_ULP"
/* =BACKEND: BACKEND's 16-bit result replaced by its fp32 run, rounded once
 * (harness/runner_exec.c). */
#define HOOK_PLANT_FP32 "BENCH_PLANT_FP32"
/* =prefetch: prefetch-2 stops waiting for a step's batch copy
 * (harness/gpu_modes_rep.c). */
#define HOOK_PLANT_RACE "BENCH_PLANT_RACE"
/* =BACKEND: BACKEND's update of the last parameter tensor is dropped
 * (suites/train/train.c). */
#define HOOK_PLANT_SKIP_BIAS "BENCH_PLANT_SKIP_BIAS"
/* =BACKEND:OP: under autocast (amp-bf16, amp-fp16) BACKEND runs OP (an
 * AMP_RULES op: gemm, softmax_xent, ...) in the other precision
 * (suites/train/model_amp.c). */
#define HOOK_PLANT_AMP "BENCH_PLANT_AMP"
/* =STEP: under amp-fp16's loss scaler every backend and the reference take
 * the first gradient element of the scaler's step STEP (1-based) as inf
 * (ops/loss_scale.h; suites/train/train.c). */
#define HOOK_PLANT_OVERFLOW "BENCH_PLANT_OVERFLOW"
/* =BACKEND: BACKEND applies the optimizer update of a step whose gradients
 * hold an inf/NaN, which the loss scaler skips (suites/train/model.c). */
#define HOOK_PLANT_NO_SKIP "BENCH_PLANT_NO_SKIP"
/* =BACKEND: every replica weighs its gradient 1/N, not by its shard
 * (suites/train/train_dp_step.c). */
#define HOOK_PLANT_SHARD_WEIGHT "BENCH_PLANT_SHARD_WEIGHT"
/* =BACKEND: the data-parallel step skips its gradient all-reduce
 * (suites/train/train_dp_step.c). */
#define HOOK_PLANT_SKIP_ALLREDUCE "BENCH_PLANT_SKIP_ALLREDUCE"
/* =BACKEND: hogwild's workers train private copies of the parameters, not
 * the shared ones (suites/train/train_hog.c). */
#define HOOK_PLANT_HOG_PRIVATE "BENCH_PLANT_HOG_PRIVATE"
/* =BACKEND: ddp-overlap's communication stream stops waiting for the
 * backward pass's event (suites/train/train_dp_gpu.c sets it on the NCCL
 * table, harness/gpu_nccl.c). */
#define HOOK_PLANT_NO_EVENT "BENCH_PLANT_NO_EVENT"
/* =portable | avx512-bf16: cpu-omp's bf16/fp16 GEMM path forced
 * (cpu/gemm_omp_lowp.c). */
#define HOOK_CPU_LOWP_PATH "BENCH_CPU_LOWP_PATH"
/* =ROUTE: a cpu-omp convolution route forced (cpu/conv_omp_routes.c). */
#define HOOK_CPU_CONV_ROUTE "BENCH_CPU_CONV_ROUTE"
/* =ROUTE: a cpu-omp GEMM route forced (cpu/gemm_omp.c). */
#define HOOK_CPU_GEMM_ROUTE "BENCH_CPU_GEMM_ROUTE"
/* =Q (ms, 0 < Q <= 1000): every host-timed repetition sleeps until the next
 * multiple of Q ms of the monotonic clock: a planted tick plateau
 * (harness/measure.c; the detector knows ticks of 1, 4 and 10 ms). */
#define HOOK_PLANT_PLATEAU_MS "BENCH_PLANT_PLATEAU_MS"
/* set: the charts' data files are kept (report/plots.c). */
#define HOOK_KEEP_PLOT_DATA "BENCH_KEEP_PLOT_DATA"
/* set: the roof probe is skipped as with --no-roofs (bench/roof_probe.c): the
 * test suite runs bench hundreds of times and the probe takes seconds; set
 * for every CTest test by the top CMakeLists.txt, unset by those that test
 * the roofs. */
#define HOOK_NO_ROOFS "BENCH_NO_ROOFS"
/* set: a disturbed measurement is judged and flagged but not measured again
 * (harness/measure.c): CTest runs tests side by side on two cores, where
 * every timing is disturbed and each re-measure would triple a test's time;
 * set for every CTest test (cmake/test_env.cmake), unset by cli.disturb. */
#define HOOK_NO_REMEASURE "BENCH_NO_REMEASURE"
/* =BYTES: the machine's memory as the memory guard sees it (harness/env.c):
 * a test of the guard's arithmetic (ranks share a node) without a machine
 * of that size. */
#define HOOK_MEMORY_BYTES "BENCH_MEMORY_BYTES"
/* =BACKEND: every timed repetition of CPU backend BACKEND takes twice as
 * long (it spins for as long as its work took; harness/runner_data.c): a
 * planted 2x slowdown that the gate must fail (ci/gate_real_test.sh). */
#define HOOK_PLANT_SLOW "BENCH_PLANT_SLOW"
/* =DIR: the powercap tree the CPU's energy is read from (harness/energy.c),
 * instead of /sys/class/powercap: a fake tree's arithmetic in tests. */
#define HOOK_POWERCAP_ROOT "BENCH_POWERCAP_ROOT"
/* =PATH: the library loaded as NVML instead of libnvidia-ml.so.1
 * (harness/energy_gpu.c): a fake NVML's counter and power arithmetic in
 * tests (tests/harness/fake_nvml.c). */
#define HOOK_NVML_LIB "BENCH_NVML_LIB"

#endif
