/* harness/result.h - one measurement row: what a case measured and how it checked.
 * The CSV columns these fields map to are defined once, in harness/schema.h.
 * Doubles that do not apply are NAN and written as empty cells.
 */
#ifndef HARNESS_RESULT_H
#define HARNESS_RESULT_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct result_row {
    char suite[32];
    char case_name[64];
    char backend[32];
    char mode[32];      /* "host" for CPU rows; resident, sync-pinned, ... for GPU rows */
    char dtype[16];     /* fp32, tf32, ... */
    char shape[64];     /* the suite's problem descriptor (MxNxK for GEMM) */
    char direction[16]; /* conv: fwd, bwd-data, bwd-filter; "" otherwise */
    int threads;        /* CPU threads used (0 when not applicable) */
    int reps;           /* number of timed samples */
    double median_ms, min_ms, max_ms, mad_ms;
    double gflops, gbps;
    char baseline[32];  /* backend the speedup is against ("" when none) */
    double speedup;     /* baseline median / this median */
    double max_abs_err, rel_err, tolerance;
    double accuracy_lost;   /* rel_err against the unrounded inputs' reference */
    char check[8];      /* pass | fail | skip */
    char device[128];   /* CPU model or GPU name */
    int emulated;       /* 1 when run on the CUDA host emulator */
    double h2d_ms, compute_ms, d2h_ms;   /* end-to-end split, GPU modes */
    double overlap_eff;                  /* streams-N: ideal / measured; ddp-overlap: comm hidden, 0..1 */
    double peak_dev_mb;                  /* peak device memory the case used */
    double reserved_dev_mb;              /* peak device memory its allocator held */
    double alloc_ms;                     /* pinned allocation, timed apart */
    double bytes;                        /* bytes moved per repetition */
    double flops;                        /* floating-point operations per repetition */
    char device_kind[8];                 /* "cpu" or "gpu", from the backend registry */
    double samples_per_s;                /* step suites: batch / median */
    char phase_ms[128];                  /* step suites: "forward=1.2;backward=2.3;update=0.1" */
    double busbw_gbps;                   /* collectives: gbps x the bus factor */
    int replicas;                        /* data-parallel and collectives: replicas (else 1) */
    char comm[16];                       /* mpi, nccl, nccl-mpi; none */
    double comm_ms;                      /* data-parallel: communication per step */
    double scaling_eff;                  /* data-parallel: sps / (replicas x one-process sps) */
    double intensity;                    /* flops / io_bytes */
    double io_bytes;                     /* compulsory traffic per repetition */
    double pct_roof;                     /* achieved / attainable, % */
    char verdict[16];                    /* at-roof | ok | low | above-roof | "" */
    char bound[16];                      /* compute | bandwidth | transfer | "" */
    double speedup_vs_best_cpu;          /* GPU rows: best CPU median / this median */
    char best_cpu[32];                   /* the CPU backend of speedup_vs_best_cpu */
    char sweep[32];                      /* the ordered size axis this row is on, or "" */
    double sweep_x;                      /* the row's position on it */
    int disturbed;                       /* 1: stayed disturbed after re-measuring */
    double disturbed_x;                  /* first disturbed try's median / kept median */
    double neighbour_x;                  /* median beside --neighbour / quiet median */
    int tries;                           /* measurements taken (0: not timed) */
    char role[16];                       /* ours | library | reference (backend_role) */
    double energy_j;                     /* CPU rows: package energy per repetition (energy.h) */
    double gflops_per_w;                 /* flops / energy_j / 1e9 */
    double samples_per_j;                /* step suites: batch / energy_j */
    char workload[320];                  /* the workload key (machine.h) */
    char machine[200];                   /* --name, or host/class */
    int version;                         /* the suite's work version (not a column) */
    double loss_scale;                   /* amp-fp16 steps: the loss scale after the last step */
    double skipped_steps;                /* amp-fp16 steps: steps the loss scaler skipped */
    char trace[4096];                    /* step suites: the loss after each step, ';'-separated */
    char repro[512];                     /* the command that re-runs this case */
    char note[512];                      /* skip reason, error text, warning */
    int nsamples;
    double *samples;                     /* every timed sample in ms; not owned */
} result_row;

/* Sets every double to NAN, strings to "", ints to 0. */
void result_row_init(result_row *r);
/* Empties every column of r computed from its time (schema_col_timed 2: the
 * throughputs and ratios): an emulated row's, whose time is the emulator's
 * host time, never a GPU's. */
void result_row_drop_timed(result_row *r);

struct measure_result;
/* Fills the timing columns from a measurement (median, min, max, MAD, reps,
 * samples -- pointing into m, not copied), throughput from flops and bytes per
 * repetition (either may be 0), tries and disturbed (disturb.h), and appends
 * spread, budget and disturbance notes. */
void result_fill_timing(result_row *row, const struct measure_result *m, double flops,
                        double bytes);

#ifdef __cplusplus
}
#endif
#endif
