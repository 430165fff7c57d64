/* harness/backend.h - one row of the backend registry.
 *
 * Every backend of every suite is one row of BACKENDS[] (suites/registry.c):
 * its name, the operation it implements, where it runs, the dtypes it runs, its
 * entry points, what it needs and one line for --list. --list, validation, the runner,
 * the tests and the report derive everything from these rows; a name carries
 * no meaning (no "cpu-" prefix test anywhere): the device kind is a field.
 *
 * Names: `device-variant` on the command line and in the CSV (cpu-omp,
 * cuda-tiled), `op_device_variant` in code (gemm_cpu_omp, gemm_cuda_tiled).
 * Library peers are named for the library: cpu-blas (OpenBLAS), cublas,
 * cudnn, cpu-onednn.
 *
 * Dtypes (ops/dtype.h): a row lists every dtype it runs; fn is its fp32 (or
 * u8) entry point, fn_dt (or the ops table's *_dt entries) its reduced-
 * precision one, taking the dtype. A dtype of the suite that a row lacks, or
 * that dt_skip says this machine cannot run, is a skip row saying why.
 */
#ifndef HARNESS_BACKEND_H
#define HARNESS_BACKEND_H

#include "check.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { DEV_CPU, DEV_GPU } dev_kind;

/* What a backend needs (bit set): shown by --list, and a GPU backend's rows
 * are skip rows saying why when the GPU layer is missing. */
enum {
    NEEDS_NONE = 0,
    NEEDS_BLAS = 1u << 0,    /* OpenBLAS found at build time */
    NEEDS_GPU = 1u << 1,     /* a CUDA device (or --emulate) */
    NEEDS_CUBLAS = 1u << 2,  /* cuBLAS from the toolkit found at build time */
    NEEDS_ONEDNN = 1u << 3,  /* oneDNN (libdnnl) found at build time */
    NEEDS_CUDNN = 1u << 4,   /* cuDNN beside the toolkit found at build time */
    NEEDS_MPI = 1u << 5,     /* MPI (libopenmpi-dev) found at build time */
    NEEDS_NCCL = 1u << 6,    /* NCCL beside the CUDA toolkit (the emulator has its own) */
};

/* Flags. */
enum {
    BK_SERIAL = 1u << 0,     /* ignores the thread count (threads column 1) */
    BK_REFERENCE = 1u << 1,  /* the readable reference of its op (the role column) */
};

/* NEEDS_* bits that make a backend a library peer (the role column). */
#define NEEDS_LIBRARY (NEEDS_BLAS | NEEDS_CUBLAS | NEEDS_ONEDNN | NEEDS_CUDNN | NEEDS_MPI | NEEDS_NCCL)

/* An entry point, cast by the suite to its operation's signature
 * (gemm_fn, gemm_cuda_fn, ...). NULL in a build that lacks it (GPU entry
 * points in a build without the CUDA toolkit). */
typedef void (*backend_entry)(void);

/* Rows of the registries are filled by member name only: GCC refuses a
 * positional initialiser of a type marked BENCH_DESIGNATED in C (the
 * C++ translation units, the GPU halves, are held to it by unit.designated). */
#if defined(__GNUC__) && !defined(__clang__) && !defined(__cplusplus)
#define BENCH_DESIGNATED __attribute__((designated_init))
#else
#define BENCH_DESIGNATED
#endif

typedef struct BENCH_DESIGNATED backend_def {
    const char *name;         /* device-variant */
    const char *op;           /* the operation: "gemm", "stream", "copy" */
    dev_kind dev;
    unsigned dtypes;          /* DTYPE_BIT set of the dtypes it runs */
    backend_entry fn;         /* fp32 (u8) entry point */
    backend_entry fn_dt;      /* reduced precision (gemm_dt_fn, ...); NULL: none */
    unsigned needs;
    unsigned flags;
    double default_max_flops; /* default sweeps skip larger problems (0: none) */
    const char *about;        /* one line for --list */
    /* Operations whose backends fill a table of entry points (conv: one per
     * direction; a training step: its op table) point here instead of fn;
     * NULL in a build that lacks them. */
    const void *ops;
    /* Optional: why this machine or build cannot run dtype dt, which the row
     * lists (a library without the routine, a CPU without the instructions);
     * NULL: it can. */
    const char *(*dt_skip)(dtype_t dt);
    /* Optional: the code path dt takes here, for the row's note ("avx512-bf16
     * vdpbf16ps"); NULL: nothing to say. */
    const char *(*dt_path)(dtype_t dt);
    /* Optional: why it runs below what it could on this machine (a library
     * that chose slower kernels than the CPU has), a low row's reason; NULL,
     * or a NULL return: nothing to say. */
    const char *(*caveat)(void);
} backend_def;

/* The dtype a row of an operation without a dtype axis runs (its only one). */
dtype_t backend_dtype(const backend_def *b);
/* Why b does not run dt here (a skip row's note, written to out), or NULL
 * when it does. */
const char *backend_dt_skip(const backend_def *b, dtype_t dt, char *out, size_t cap);

/* Whether this build has the backend's code (GPU rows lack it without a GPU layer). */
int backend_present(const backend_def *b);

const char *dev_kind_name(dev_kind d);   /* "cpu", "gpu" */
/* The role column: "library" (a peer: needs a library), "reference"
 * (BK_REFERENCE) or "ours" (our own kernels). */
const char *backend_role(const backend_def *b);
/* "OpenBLAS, GPU, cuBLAS" or "-" */
void backend_needs_str(unsigned needs, char *out, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
