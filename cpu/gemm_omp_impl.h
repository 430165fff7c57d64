/* cpu/gemm_omp_impl.h - internals of cpu-omp's GEMM, shared by its files:
 *   gemm_omp.c       the driver (paths, blocking, threads, buffers),
 *   gemm_omp_kern.c  micro-kernels and packing routines,
 *   gemm_omp_gemv.c  the matrix-vector path (M == 1 or N == 1),
 *   gemm_omp_small.c the small/thin-problem path (A never packed),
 *   gemm_omp_lowp.c  the bf16/fp16 products (gemm_cpu_omp_dt), on the same
 *                    plan and parallel phases (gemm_plan, gemm_job) as fp32.
 * Nothing here is part of the backend contract (gemm_cpu.h). */
#ifndef GEMM_OMP_IMPL_H
#define GEMM_OMP_IMPL_H

#include "omp_team.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* C[MR x NR] (row stride ldc) = alpha * Ap * Bp + beta * C, where Ap is a
 * packed kc x MR micro-panel (MR floats per k) and Bp a packed kc x NR one
 * (NR floats per k, 64-byte aligned).  beta == 0: C is write-only. */
typedef void (*gemm_ukernel_fn)(long kc, const float *A, const float *B, float *C,
                                long ldc, float alpha, float beta);

typedef struct {
    int mr, nr, mc, kc, nc;
    gemm_ukernel_fn fn;
    int simd; /* 2 AVX-512F, 1 AVX2+FMA, 0 plain C */
} gemm_kern_cfg;

/* Where a tile's columns go when they are not one block of C: run u is
 * the sliver's lanes mask[u] (consecutive), lane L of row i at element
 * e[u] + L + i*ldc (e[u] may be negative: only the run's lanes are
 * addressed). */
typedef struct {
    int n;
    uint32_t mask[32];
    long e[32];
} gemm_runs;

#define GEMM_MAX_TILE (16 * 32) /* largest MR*NR of any kernel */

/* Below this many FLOPs a call runs on one thread (measured crossover, see
 * gemm_omp.c). */
#ifndef GEMM_SERIAL_FLOPS /* (-D for tuning builds) */
#define GEMM_SERIAL_FLOPS (2.0 * 160 * 160 * 160)
#endif
/* A core's L2 (target CPU: 2 MiB): a packed B panel bigger than this is
 * split by columns between threads (see gemm_plan_make). */
#ifndef GEMM_L2_BYTES
#define GEMM_L2_BYTES (2.0 * 1024 * 1024)
#endif

/* The best micro-kernel this CPU runs, chosen once (thread-safe). */
const gemm_kern_cfg *gemm_kernel_select(void);

/* Packing.  Both write r-wide panels p0 <= p < p1 of a kc x n block of a
 * matrix X: panel p holds columns [p*r, p*r + r) as kc rows of r
 * consecutive floats (r per k), at dst + p*kc*r; columns >= n are zero.
 * gemm_pack_rows: element (k, j) of the block is at X[k*ld + j] (the block's
 *                 rows are contiguous: B, or A stored transposed);
 * gemm_pack_cols: element (k, j) is at X[j*ld + k] (its columns are
 *                 contiguous: A, or B stored transposed). */
void gemm_pack_rows(int kc, int n, int r, const float *X, long ld, float *dst, int p0,
                    int p1);
void gemm_pack_cols(int kc, int n, int r, const float *X, long ld, float *dst, int p0,
                    int p1);

/* The blocking of one blocked product C[M x N] = A[M x K] B[K x N] (the
 * GotoBLAS structure described in gemm_omp.c), for an mr x nr micro-kernel:
 * K in nkk blocks of KC (equal, a multiple of 8, at most kc; pass kc >= K
 * for a single block), B packed as K x NC panels of nr-wide slivers, M in
 * nim row chunks of at most MC rows (whole mr panels) on a tm x tn grid of
 * nt threads.  Packed K is rounded up to a multiple of kq (zero-filled; kq
 * > 1 only with a single K block), esize bytes per packed element. */
typedef struct {
    int mr, nr, M, N, K, kq;
    int KC, nkk, NC, mp, MC, nim, tm, tn, nt;
    size_t esize;
    size_t bsz, asz; /* bytes: the packed K x NC panel of B; one thread's A block */
} gemm_plan;

void gemm_plan_make(gemm_plan *p, int mr, int nr, int mc, int kc, int nc, int kq, size_t esize,
                    int M, int N, int K, int nt);

/* One blocked product: its plan, and what the parallel phases call.  A
 * caller embeds it as the first member of its own struct (operands). */
typedef struct gemm_job gemm_job;
struct gemm_job {
    gemm_plan p;
    /* Packs slivers [s0, s1) of B's rows [pc, pc + kc) x columns [jc, jc + nc)
     * into dst (that K block's part of the packed panel). */
    void (*pack_b)(const gemm_job *j, int pc, int kc, int jc, int nc, void *dst, int s0,
                   int s1);
    /* Work item it (of nim * tn) of the column panel [jc, jc + nc) whose ns
     * slivers are packed at Bp: a chunk of rows x a group of slivers (see
     * gemm_omp.c's blocked_item); myA is this thread's A block (asz bytes). */
    void (*item)(const gemm_job *j, int jc, int nc, int ns, int it, const void *Bp,
                 void *myA);
};

/* Work item it of a column panel of ns slivers: rows [*ic, *ic + *mc) (*mc
 * <= 0: none) x slivers [*s0, *s1). */
void gemm_item_range(const gemm_plan *p, int ns, int it, int *ic, int *mc, int *s0, int *s1);

/* Runs j on j->p.nt threads: for each column panel, all threads pack it,
 * then take work items dynamically, phases ending in gemm_yield_barrier.
 * Buffers from gemm_scratch slot 0.  Returns 0, or 1 (err_set) when out of
 * memory. */
int gemm_job_run(const gemm_job *j);

/* y[i * incy] = alpha * sum_k x(i, k) * v[k * incv] + beta * y[i * incy]
 * for 0 <= i < m, where x(i, k) = X[i*ldx + k] (xt == 0, rows of X are
 * contiguous in k) or X[k*ldx + i] (xt != 0).  beta == 0: y is write-only.
 * Runs on nt threads.  Returns 0, or 1 (err_set) when out of memory. */
int gemm_omp_gemv(int xt, int m, int K, float alpha, const float *X, long ldx,
                  const float *v, long incv, float beta, float *y, long incy, int nt);

/* C = alpha*op(A)*op(B) + beta*C on nt threads, reading A and (unless tb) B
 * in place.  Needs gemm_omp_small_ok() (AVX-512F).  Returns 0, or 1
 * (err_set) when out of memory for packing B^T. */
int gemm_omp_small_ok(void);
int gemm_omp_small(int ta, int tb, int M, int N, int K, float alpha, const float *A, long lda,
                   const float *B, long ldb, float beta, float *C, long ldc, int nt);

/* gemm_yield_barrier, the barrier the parallel regions use between their
 * phases and before they end: cpu/omp_team.h. */

/* One call of gemm_cpu_omp_t, as its routes take it. */
typedef struct gemm_call {
    int ta, tb, M, N, K;
    float alpha;
    const float *A;
    int lda;
    const float *B;
    int ldb;
    float beta;
    float *C;
    int ldc, nt;
    const gemm_kern_cfg *cf;
} gemm_call;

/* A row of cpu-omp GEMM's ordered route table (gemm_omp.c): the first row
 * that applies (can run the call; NULL: any) and pays (wins there; NULL:
 * always) runs. BENCH_CPU_GEMM_ROUTE=name forces a row (it must apply). */
typedef struct gemm_route {
    const char *name;
    int (*applies)(const gemm_call *c);
    int (*pays)(const gemm_call *c);
    int (*run)(const gemm_call *c);
} gemm_route;

/* The table and its length; the row that runs c (NULL after err_set: a
 * forced row that does not apply). */
const gemm_route *gemm_routes(int *n);
const gemm_route *gemm_route_pick(const gemm_call *c);

/* The slots of gemm_scratch, each with its owners. One cpu-omp call runs at
 * a time on a thread, so the routes of a convolution share slots; a route's
 * estimate (conv_omp_routes.h) counts every slot but the GEMM's own two. */
typedef enum {
    SCRATCH_PANELS = 0,    /* the GEMM's packed panels (gemm_omp.c, gemm_omp_small.c);
                            * the bf16 implicit GEMMs' packed column groups, every
                            * thread (conv_omp_igemm.c, conv_omp_igemm_regions.c) */
    SCRATCH_GEMV = 1,      /* the GEMV's contiguous vector (gemm_omp_gemv.c) */
    SCRATCH_CONV_THREAD = 2, /* every thread's own buffer: column blocks and partials
                            * (conv_omp.c), padded images and partials (direct), each
                            * thread's partial and copies (the bf16 bwd-filters), its
                            * image (pw32), its dy copy and phase images (phase) */
    SCRATCH_CONV_FILTERS = 3, /* the calling thread's rearranged or flipped filters
                            * (conv_omp.c, conv_omp_direct.c) */
    SCRATCH_CONV_COPY = 4, /* image-group columns (conv_omp_group.c, calling thread;
                            * conv_omp_regions.c: every thread's B panels and rows of
                            * Y), the padded copies of x of the in-place routes
                            * (conv_omp_igemm_pw.c, conv_omp_pw32.c) */
    SCRATCH_CONV_WIDE = 5, /* bf16/fp16 convolution's fp32 copies and bias (conv_omp_dt.c) */
    SCRATCH_CONV_PACK32 = 6, /* fp32 packed filters (conv_omp_regions.c, conv_omp_pw32.c)
                            * or dw copies (conv_omp_group.c's bwd-filter), calling thread */
    SCRATCH_CONV_PACK16 = 7, /* the bf16 implicit GEMMs' packed filters (conv_omp_igemm*.c) */
    SCRATCH_SLOTS
} scratch_slot;

/* A per-thread scratch buffer of at least bytes (64-byte aligned) in slot,
 * kept and grown across calls, freed when the thread exits.  NULL when out
 * of memory. */
float *gemm_scratch(scratch_slot slot, size_t bytes);

/* Test accounting (tests/cpu/conv_omp_routes_test.c): from a call of
 * gemm_scratch_asked_reset on, the bytes asked of each slot, the largest ask
 * per thread and slot, summed over threads; gemm_scratch_asked(slot) reads it. */
void gemm_scratch_asked_reset(void);
double gemm_scratch_asked(scratch_slot slot);

#endif
