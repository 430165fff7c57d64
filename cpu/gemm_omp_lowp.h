/* cpu/gemm_omp_lowp.h - internals of cpu-omp's bf16/fp16 GEMM
 * (gemm_cpu_omp_dt, contract in gemm_cpu.h):
 *   gemm_omp_lowp.c  the dispatcher (path choice) and the driver, on the
 *                    fp32 GEMM's plan and parallel phases (gemm_omp_impl.h),
 *   gemm_omp_bf16.c  AVX512-BF16: vdpbf16ps micro-kernel, pair packing,
 *   gemm_omp_amx.c   AMX-BF16: tdpbf16ps tiles (untested on hardware here),
 *   gemm_omp_cvt.c   portable / F16C: 16-bit -> fp32 while packing, then
 *                    the fp32 micro-kernel.
 * Nothing here is part of the backend contract. */
#ifndef GEMM_OMP_LOWP_H
#define GEMM_OMP_LOWP_H

#include "../ops/dtype.h"
#include "gemm_omp_impl.h"

#include <stddef.h>
#include <stdint.h>

typedef enum {
    LOWP_PORTABLE,   /* convert in packing + fp32 fma (plain C conversions) */
    LOWP_F16C,       /* fp16 only: F16C conversions in packing + fp32 fma */
    LOWP_AVX512BF16, /* bf16 only: vdpbf16ps on K-pair-interleaved panels */
    LOWP_AMX,        /* bf16 only: tdpbf16ps tiles */
} gemm_lowp_path;

/* The path for dt (DTYPE_BF16 or DTYPE_FP16; -1 for any other) given the
 * CPU's cpu_features() bits: AMX when the CPU has AMX-BF16 and AVX512-BF16
 * and amx_permit() (called only then) grants the tiles, else AVX512-BF16,
 * else portable for bf16; F16C, else portable for fp16.  force (a
 * LOWP_FORCE_*, from BENCH_CPU_LOWP_PATH; 0: none) picks portable whatever
 * the CPU has, or keeps bf16 off AMX. */
enum { LOWP_FORCE_PORTABLE = 1, LOWP_FORCE_NO_AMX = 2 };
int gemm_lowp_choose(dtype_t dt, unsigned features, int (*amx_permit)(void), int force);

/* Where a tile's fp32 sums go.  Every mode may start the sums of row i at
 * bias[i] (fp32; NULL: none): conv's fwd adds its bias before the one
 * rounding. */
typedef enum {
    LOWP_C_DT,      /* C holds dt: (bias +) the sum, rounded once to dt */
    LOWP_C_F32,     /* C holds floats: (bias +) the sum, not rounded */
    LOWP_C_F32_ADD, /* C holds floats: C's old value (+ bias) + the sum, not
                     * rounded (fp32 partials summed over several calls) */
} gemm_lowp_cmode;

/* A path's micro-kernel and packing.  Panels hold Kp = K rounded up to kq
 * (zero-filled past K), esize bytes per element, in the kernel's layout:
 *   pack_a: rows [0, n) of A (row-major, n <= the A block) into mr-row
 *           panels, panel p at dst + p*mr*Kp*esize bytes (rows >= n zero);
 *   pack_b: nr-wide slivers [s0, s1) of the K x n block of B (row-major),
 *           sliver s at dst + s*nr*Kp*esize bytes (columns >= n zero);
 *   tile:   C[h x w] (h <= mr, w <= nr; row stride ldc, elements of dt or
 *           floats as cm says) = the product of one A panel and one B
 *           sliver, accumulated in fp32 over all of Kp, finished as cm says
 *           (LOWP_C_DT: rounded once to dt, nearest even); bias: the h
 *           values of the tile's rows, or NULL. */
typedef struct gemm_lowp_kern {
    const char *name;
    int mr, nr, mc; /* tile; most rows in one thread's A block */
    int kq;
    size_t esize;
    void (*pack_a)(dtype_t dt, int K, int Kp, int n, const uint16_t *A, long lda, void *dst);
    void (*pack_b)(dtype_t dt, int K, int Kp, int n, const uint16_t *B, long ldb, void *dst,
                   int s0, int s1);
    void (*tile)(dtype_t dt, int Kp, const void *Ap, const void *Bp, const float *bias,
                 gemm_lowp_cmode cm, void *C, long ldc, int h, int w);
} gemm_lowp_kern;

/* K rounded up to k's packed length (a multiple of kq). */
static inline int gemm_lowp_kp(const gemm_lowp_kern *k, int K) { return (K + k->kq - 1) / k->kq * k->kq; }

/* The kernels; each is usable only on the path gemm_lowp_choose gives for it. */
const gemm_lowp_kern *gemm_lowp_kern_avx512bf16(void);
/* The vdpbf16ps kernel for a product of M rows: the 12 x 32 tile, or a
 * 16-row one (same B slivers) where 16-row panels waste fewer rows (M = 16,
 * 32, 64: gemm_omp_bf16.c has the measurements).  Same path and layout of
 * B; A packed by the kernel's own pack_a. */
const gemm_lowp_kern *gemm_lowp_kern_bf16_rows(int M);
/* The 16-row tile of gemm_lowp_kern_bf16_rows on a B read in place: K pair
 * kk's 32 columns are the dwords at b + offs[kk] (any alignment; each the
 * words of rows 2kk and 2kk + 1 of one column), A one 16-row panel (Kp/2
 * pairs); the h x w tile, bias (NULL: 0) + the sum, rounded once to bf16
 * into y run by run (row stride ldy).  x86-64 on the vdpbf16ps path only
 * (no other definition). */
void gemm_bf16_tile16_at(int Kp, const void *Ap, const uint32_t *b, const int *offs,
                         const float *bias, const gemm_runs *runs, uint16_t *y, long ldy,
                         int h, int w);
const gemm_lowp_kern *gemm_lowp_kern_amx(void);
/* The fp32 micro-kernel of gemm_kernel_select(), with conversions by F16C
 * (f16c != 0, fp16 only) or plain C. */
const gemm_lowp_kern *gemm_lowp_kern_cvt(int f16c);

/* Pair packing of B shared by the vdpbf16ps and AMX kernels (nr = 32): K
 * pair kk of sliver s is 32 columns x (B[2kk][j], B[2kk+1][j]), 128 bytes. */
void gemm_bf16_pack_b32(dtype_t dt, int K, int Kp, int n, const uint16_t *B, long ldb,
                        void *dst, int s0, int s1);

/* n elements of dt (bf16 or fp16) as floats (exact), and n floats rounded
 * once to dt (nearest even, as dtype_set): the conversions the portable
 * path packs with, F16C's where the CPU has it. */
void gemm_lowp_widen(dtype_t dt, const uint16_t *s, float *d, long n);
void gemm_lowp_narrow(dtype_t dt, const float *s, uint16_t *d, long n);

/* For the kernels that hold their sums in an fp32 buffer t (h x w, row
 * stride ldt): adds bias (when not NULL) into t, and for the fp32 modes
 * stores (or adds) t into C and returns 1; LOWP_C_DT: returns 0, the caller
 * rounds t into C. */
int gemm_lowp_tile_f32(float *t, int ldt, const float *bias, gemm_lowp_cmode cm, void *C,
                       long ldc, int h, int w);

/* gemm_cpu_omp_dt with its output opened up (cpu-omp's convolution): A and
 * B in dt (bf16 or fp16), C[M x N] finished per cm, rows starting at
 * bias[i] (fp32, M values; NULL: none).  Same paths, threads and errors
 * (gemm_cpu_omp_dt is gemm_lowp_ex(..., NULL, LOWP_C_DT, C, ldc)). */
int gemm_lowp_ex(dtype_t dt, int M, int N, int K, const void *A, int lda, const void *B,
                 int ldb, const float *bias, gemm_lowp_cmode cm, void *C, int ldc);
/* The same on the given path, which this CPU must run (tests reach every
 * path it has); a path that does not take dt: err_set, -1. */
int gemm_lowp_run(gemm_lowp_path path, dtype_t dt, int M, int N, int K, const void *A,
                  int lda, const void *B, int ldb, const float *bias, gemm_lowp_cmode cm,
                  void *C, int ldc);

/* The path gemm_lowp_ex takes for dt on this CPU now (err_set, -1: none),
 * and a path's kernel. */
int gemm_lowp_path_of(dtype_t dt);
const gemm_lowp_kern *gemm_lowp_kern_of(gemm_lowp_path path);

/* A (M x K, dt, row stride lda) packed whole, once, for many products on
 * kernel k (the convolution's filters): mr-row panels of Kp, panel p at
 * dst + p*mr*Kp*esize bytes, gemm_lowp_packed_a_bytes in all.  Parallel
 * over panels when called outside a parallel region. */
size_t gemm_lowp_packed_a_bytes(const gemm_lowp_kern *k, int M, int K);
void gemm_lowp_pack_a(const gemm_lowp_kern *k, dtype_t dt, int M, int K, const void *A, int lda,
                      void *dst);

/* One tile of k: rows [i, i + h) x columns [j, j + w) of C (ldc; columns
 * in segments of seg, seg <= 0: one: column j is element
 * (j / seg) * seg_stride + j % seg of row 0, e.g. the images of a
 * convolution's output) = A panel ap . B
 * sliver bp over Kp, finished per cm (bias: the h rows' values or NULL);
 * a tile across segments goes through a buffer. */
void gemm_lowp_tile_seg(const gemm_lowp_kern *k, dtype_t dt, int Kp, const void *ap,
                        const void *bp, const float *bias, gemm_lowp_cmode cm, void *C, long ldc,
                        long seg, long seg_stride, int i, long j, int h, int w);

#endif
