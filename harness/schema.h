/* harness/schema.h - the results.csv columns, defined once.
 *
 * One X-macro row per column: its id, its name in the CSV header, its type, the
 * result_row field it comes from, and one line of documentation. The CSV writer
 * and reader, the JSON and report writers, the gate, the tests and
 * results/README.md (checked by the `schema_readme` test against
 * `bench --columns`) all derive from this table; nobody else lists columns.
 *
 * Types: STR  a string field (char array)      -> written as is, quoted per RFC 4180
 *        INT  an int field                     -> decimal
 *        NUM  a double field (NAN = n/a)       -> %.10g, empty when NAN
 *        SAMP the samples array                -> every sample, ';'-separated
 */
#ifndef HARNESS_SCHEMA_H
#define HARNESS_SCHEMA_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SCHEMA_COLUMNS(X)                                                                        \
    X(SUITE, "suite", STR, suite, "`matmul`, `transfer`, `stream`, `conv`, `train`, `collectives`")                          \
    X(CASE, "case", STR, case_name, "the problem's name: `square-1024`, `mlp-fc1`, `triad-16M`; a conv layer; a train model (`cnn`, `mlp-mom`: one case, a shape per batch)") \
    X(BACKEND, "backend", STR, backend, "a registry name (`bench --list`): `cpu-omp`, `cuda-tiled`, `cublas`, ...") \
    X(MODE, "mode", STR, mode, "`host` for CPU rows; data-parallel rows (train): `dp-gather`, `ddp`, `ddp-overlap`; GPU rows: `resident`, `sync-pageable`, `sync-pinned`, `async-pageable`, `async-pinned`, `streams-N`, `prefetch-2` (training), each under the default allocator, and on training rows `<mode>+per-step` and `<mode>+async-pool` under another (`--alloc`); transfer rows: direction, memory and sync, e.g. `h2d-pinned-async`") \
    X(DTYPE, "dtype", STR, dtype, "`fp32`, `tf32`, `bf16`, `fp16` (a case key column: `--dtype`), `u8`")                                         \
    X(SHAPE, "shape", STR, shape, "the suite's problem descriptor, the argument that re-runs it: `MxNxK` (matmul), bytes (transfer), elements (stream), `mb…ic…` (conv), `cnn-b64` (train)") \
    X(THREADS, "threads", INT, threads, "CPU threads the backend was given (0 for GPU rows)")       \
    X(REPS, "reps", INT, reps, "timed samples behind the statistics")                              \
    X(MEDIAN_MS, "median_ms", NUM, median_ms, "per-repetition time: median (emulated rows: the emulator's host time, no GPU's)")                       \
    X(MIN_MS, "min_ms", NUM, min_ms, "per-repetition time: minimum")                               \
    X(MAX_MS, "max_ms", NUM, max_ms, "per-repetition time: maximum")                               \
    X(MAD_MS, "mad_ms", NUM, mad_ms, "per-repetition time: median absolute deviation")             \
    X(GFLOPS, "gflops", NUM, gflops, "`flops` / median, in GFLOP/s")                               \
    X(GBPS, "gbps", NUM, gbps, "`bytes` / median, in GB/s (10^9 bytes/s)")                         \
    X(BASELINE, "baseline", STR, baseline, "the backend this row's speedup is measured against")   \
    X(SPEEDUP, "speedup", NUM, speedup, "baseline median / this median, same problem, same run; empty for emulated rows") \
    X(MAX_ABS_ERR, "max_abs_err", NUM, max_abs_err, "largest abs(result - reference) over the checked elements") \
    X(REL_ERR, "rel_err", NUM, rel_err, "relative L2 error, ‖result − reference‖₂ / ‖reference‖₂") \
    X(TOLERANCE, "tolerance", NUM, tolerance, "the bound `rel_err` had to meet (formula in `harness/check.h`)") \
    X(CHECK, "check", STR, check, "`pass`, `fail` or `skip`")                                     \
    X(DEVICE, "device", STR, device, "CPU model or GPU name")                                      \
    X(EMULATED, "emulated", INT, emulated, "1 when the row ran on the CUDA host emulator (never a GPU timing), else 0; an emulated row's times are the emulator's host time:") \
    X(H2D_MS, "h2d_ms", NUM, h2d_ms, "end-to-end GPU rows: host-to-device part of one repetition") \
    X(COMPUTE_MS, "compute_ms", NUM, compute_ms, "GPU rows: compute part of one repetition")       \
    X(D2H_MS, "d2h_ms", NUM, d2h_ms, "end-to-end GPU rows: device-to-host part of one repetition") \
    X(OVERLAP_EFF, "overlap_eff", NUM, overlap_eff, "`streams-N` rows: ideal pipelined time / measured time; `ddp-overlap` rows: the share of a blocking all-reduce hidden behind the backward pass; empty on emulated rows") \
    X(PEAK_DEV_MB, "peak_dev_mb", NUM, peak_dev_mb, "GPU rows: device memory the case's buffers held at once at the peak (bytes asked for, as `torch.cuda.max_memory_allocated`), MiB")      \
    X(ALLOC_MS, "alloc_ms", NUM, alloc_ms, "pinned host allocation time, measured apart from the transfers") \
    X(BYTES, "bytes", NUM, bytes, "bytes moved per repetition (the suite's count: copies, STREAM's bytes; a `d2d` copy counts each byte read and written, 2 × its size, as bandwidthTest and nvbandwidth do, and its note says so)") \
    X(FLOPS, "flops", NUM, flops, "floating-point operations per repetition (2·M·N·K for GEMM)")   \
    X(DEVICE_KIND, "device_kind", STR, device_kind, "`cpu` or `gpu`: where the backend runs (from the registry)") \
    X(DIRECTION, "direction", STR, direction, "conv rows: `fwd`, `bwd-data` or `bwd-filter` (the pass the row times); empty for other suites") \
    X(REPRO, "repro", STR, repro, "the one command that re-runs exactly this case")                \
    X(NOTE, "note", STR, note, "why a row was skipped or failed; spread warnings; the library's algorithm") \
    X(SAMPLES_PER_S, "samples_per_s", NUM, samples_per_s, "training rows: samples (the batch) per second, batch / median; the step rate is 1000 / `median_ms`") \
    X(PHASE_MS, "phase_ms", STR, phase_ms, "training rows: one representative step's time by phase, `forward=…;backward=…;update=…` (ms, host clock after synchronizing)") \
    X(BUSBW_GBPS, "busbw_gbps", NUM, busbw_gbps, "collectives rows: bus bandwidth, `gbps` (the algorithm bandwidth, size / time) × nccl-tests' factor: all-reduce 2(N−1)/N, all-gather and reduce-scatter (N−1)/N, broadcast and reduce 1") \
    X(REPLICAS, "replicas", INT, replicas, "data-parallel rows (`dp-gather`, `ddp`, `ddp-overlap`) and collectives: the replicas (MPI ranks or GPUs) the global batch or buffer is spread over; `hogwild` rows: the worker processes (`--workers`), each stepping its shard; 1 for every other row") \
    X(COMM, "comm", STR, comm, "how the replicas talk: `mpi` (ranks, host buffers), `nccl` (the GPUs of one process), `nccl-mpi` (one GPU per rank), `shm` (`hogwild`'s workers: parameters in shared memory, no messages); `none` for one replica") \
    X(COMM_MS, "comm_ms", NUM, comm_ms, "data-parallel rows: a step's communication, ms (the collectives' phases; `ddp-overlap`: the part left exposed after the backward pass); empty on emulated rows") \
    X(SCALING_EFF, "scaling_eff", NUM, scaling_eff, "data-parallel rows: samples/s ÷ (replicas × the same backend's one-process `host` samples/s of this run); empty when that row is not in the run, and on emulated rows; `hogwild` rows: samples/s ÷ (workers × one worker's samples/s, that worker alone with the same shard and threads)") \
    X(ACCURACY_LOST, "accuracy_lost", NUM, accuracy_lost, "the accuracy the dtype gives up: relative L2 distance of the result from the reference computed on the unrounded fp32 inputs (fp32 rows: `rel_err`); `hogwild` rows: \\|loss − synchronous SGD's loss\\| ÷ that loss after the same samples (`rel_err` too); `amp-bf16`, `amp-fp16` train rows: \\|loss − the fp32 reference's loss\\| ÷ that loss after the last checked step") \
    X(INTENSITY, "intensity", NUM, intensity, "rows with work counts: arithmetic intensity, FLOP per byte of the row's compulsory traffic (`flops` / `io_bytes`)") \
    X(IO_BYTES, "io_bytes", NUM, io_bytes, "rows with work counts: the bytes the case must move at least once (inputs read, outputs written, at the row's dtype); `bytes` for the bandwidth suites") \
    X(PCT_ROOF, "pct_roof", NUM, pct_roof, "achieved ÷ attainable: the row's throughput against the lower of its device's compute roof for the dtype and `intensity` × its bandwidth roof (end-to-end GPU rows: the transfer roof too), in % (roofs: the `roof-…` context lines); empty for emulated rows and rows without a work count") \
    X(VERDICT, "verdict", STR, verdict, "`at-roof`, `ok`, `low` (far below what the machine does), `above-roof` (faster than the machine can be: the work count, the timing or a cache-resident working set is wrong); thresholds in `harness/roofs.h`; empty where `pct_roof` is") \
    X(BOUND, "bound", STR, bound, "the roof that limits the row: `compute`, `bandwidth`, `transfer`; empty where `pct_roof` is") \
    X(SPEEDUP_VS_BEST_CPU, "speedup_vs_best_cpu", NUM, speedup_vs_best_cpu, "GPU rows: the fastest CPU row's median ÷ this median, same problem and dtype (fp32 when no CPU backend ran the dtype), same run; empty for CPU and emulated rows") \
    X(BEST_CPU, "best_cpu", STR, best_cpu, "the CPU backend `speedup_vs_best_cpu` is measured against") \
    X(SWEEP, "sweep", STR, sweep, "rows on an ordered size axis (matmul squares, STREAM and transfer sizes, a model's batches): the axis's name; rows with the same suite, sweep, backend, mode, dtype and direction form one curve") \
    X(SWEEP_X, "sweep_x", NUM, sweep_x, "the row's position on its `sweep` axis (N of a square, elements, bytes, batch)") \
    X(DISTURBED, "disturbed", INT, disturbed, "1 when the measurement stayed disturbed after it was measured again (something else ran: the `note` says what), else 0") \
    X(TRIES, "tries", INT, tries, "measurements the case took: 1, more when a disturbed measurement was measured again (with `--rounds`, every row of the group is measured again together when one was disturbed); 0 for rows not timed") \
    X(DISTURBED_X, "disturbed_x", NUM, disturbed_x, "rows measured again (`tries` > 1): the first disturbed try's median ÷ the kept median, how much slower the case ran while something else did (1.0: it kept its speed beside a neighbour); empty when no try was disturbed") \
    X(NEIGHBOUR_X, "neighbour_x", NUM, neighbour_x, "runs with `--neighbour busy`: the median measured again beside a `nice -n 19` busy-loop process bench starts for that measurement alone ÷ the quiet median (1.0: the case kept its speed beside another process); empty without `--neighbour`, and for rows not timed, emulated rows and data-parallel rows over several ranks") \
    X(ROLE, "role", STR, role, "`ours` (our kernels), `library` (a peer a user would otherwise pick: OpenBLAS, oneDNN, cuBLAS, cuDNN, MPI, NCCL) or `reference` (the readable reference): the report's ours-vs-library crossovers pair them") \
    X(ENERGY_J, "energy_j", NUM, energy_j, "energy per repetition, J, of the row's device over its timed repetitions ÷ their count: CPU rows the CPU packages' (powercap RAPL counters; the whole packages: whatever else they ran meanwhile counts too), GPU rows the GPU's (NVML's energy counter, else its power sampled and integrated; the whole board); empty, never 0, where there is no source (the `energy-cpu` and `energy-gpu` context lines say why), a read failed or a counter did not move, and for emulated rows and GPU rows on several GPUs") \
    X(GFLOPS_PER_W, "gflops_per_w", NUM, gflops_per_w, "`flops` ÷ `energy_j`, in GFLOP per joule = GFLOP/s per watt; empty where either is") \
    X(SAMPLES_PER_J, "samples_per_j", NUM, samples_per_j, "training rows: samples (the batch) per joule, `samples_per_s` × the median ÷ `energy_j`; empty where `energy_j` is") \
    X(WORKLOAD, "workload", STR, workload, "the workload key: `<suite>@<version>/<shape>/<dtype>/<mode>/t<threads>/x<replicas>`; two rows (of two runs, two machines) measured the same work only when their keys are equal; a suite's version changes when its work does (`harness/machine.h`)") \
    X(MACHINE, "machine", STR, machine, "the machine the row ran on: `--name`, else `<host>/<class>`, the class being the CPU model and GPU names as a file name (`bench-gate --class`)") \
    X(RESERVED_DEV_MB, "reserved_dev_mb", NUM, reserved_dev_mb, "GPU rows: device memory the case's allocator held at the peak (as `torch.cuda.max_memory_reserved`: `cached` keeps freed blocks, rounded to 512 B; `per-step` holds what is allocated; `async-pool` its pool's reserve), MiB; the allocator is the mode's `+<alloc>` suffix, `cached` without one") \
    X(TRACE, "trace", STR, trace, "training rows: the loss after each step from the initial parameters (`--steps N` steps, else the checked steps), `;`-separated") \
    X(LOSS_SCALE, "loss_scale", NUM, loss_scale, "`amp-fp16` train rows: the dynamic loss scale after the row's last step (GradScaler's defaults: 2^16 at first, ×0.5 on a step with an inf/NaN gradient, ×2 after 2000 steps without; `ops/loss_scale.h`); empty for other rows") \
    X(SKIPPED_STEPS, "skipped_steps", NUM, skipped_steps, "`amp-fp16` train rows: the steps the loss scaler skipped (an inf/NaN gradient: no update) from the initial parameters to the row's last step; empty for other rows") \
    X(SAMPLES_MS, "samples_ms", SAMP, samples, "every timed sample, `;`-separated, so statistics can be recomputed (emulated rows: the emulator's host time)")

typedef enum { COLT_STR, COLT_INT, COLT_NUM, COLT_SAMP } col_type;

#define SCHEMA_ENUM_(id, name, type, field, doc) COL_##id,
typedef enum { SCHEMA_COLUMNS(SCHEMA_ENUM_) COL_COUNT } col_id;
#undef SCHEMA_ENUM_

typedef struct schema_col {
    const char *name;
    col_type type;
    size_t offset;   /* of the field in result_row */
    size_t size;     /* of the field (the capacity of a STR) */
    const char *doc;
} schema_col;

extern const schema_col SCHEMA[COL_COUNT];

/* The id of a column name, or -1. */
int schema_find(const char *name);

/* The fixed vocabulary of column c as space-separated words ("pass fail
 * skip" for check), or NULL when the column takes any value of its type. */
const char *schema_allowed(int col);

/* 1 when column c, which has a vocabulary, may also be empty (a verdict
 * where no roof applies). */
int schema_allows_empty(int col);

/* The timing columns besides median_ms and samples_ms, in one table:
 * schema_col_timed(c) is 1 for a time (a spread or a part of it: min, max,
 * MAD, h2d, compute, d2h, alloc, phases) and 2 for a value computed from a
 * time (a throughput: gflops, gbps, busbw_gbps, samples_per_s; a ratio:
 * speedup, overlap_eff, scaling_eff, pct_roof, speedup_vs_best_cpu; comm_ms),
 * else 0. An emulated row's are the emulator's, never a GPU's: its times stay
 * in the CSV as the emulator's host time, its 2s are left empty
 * (result_row_drop_timed, in row_emit), and the JSON leaves out both. */
int schema_col_timed(int col);

/* Prints the column table of results/README.md (markdown, one row a column). */
void schema_print_markdown(FILE *f);

#ifdef __cplusplus
}
#endif
#endif
