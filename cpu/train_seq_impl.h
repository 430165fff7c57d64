/* cpu/train_seq_impl.h - shared by the sequence models' operations, one file
 * an op (cpu/train_seq_<op>.c, matching kernels/train_seq_<op>.cu) (rnn, lstm, gpt) shared
 * by the cpu-omp, cpu-blas and cpu-onednn train_ops tables (cpu/train_seq.h;
 * contract: ops/train_ops.h; reference: cpu/train_naive_seq.c). gemm_batched
 * is each table's own (its GEMM).
 *
 * As cpu/train_elem.c: each loop runs on the OpenMP team when its tensor is
 * large enough and serially below that; inner loops are branch-free and
 * `omp simd`; sums are fp32. exp, sigmoid and tanh come from
 * cpu/train_vmath.h (vectorisable, no libm call).
 *   Kernels that compute (more than they move) are compiled three times,
 *   for x86-64-v4 (AVX-512), v3 (AVX2) and the baseline (SSE2), and the
 *   loader picks one for the CPU (gcc's target_clones; SEQ_CLONES). The
 *   build targets the baseline, whose 4 lanes left gelu 3.4x, lstm_cell
 *   3.7x and layernorm 2x slower than 16 (1 thread, this Zen 4). No FMA
 *   contraction in any of them (-std=c11), so the clones round alike.
 *   Thresholds, elements: PAR_MIN (as train_elem.c) for memory-bound loops;
 *   PAR_MIN_MATH for the ones that spend ~20-40 flops an element (gelu,
 *   lstm_cell, attention's softmax), where a fork/join pays off sooner.
 *   attn_softmax: row r only needs s <= t = r % T (the causal part); rows
 *   are split in equal blocks (heads of T rows each have the same work);
 *   with T a multiple of 16 each row runs in whole blocks of 16 lanes.
 *   embedding_bwd: columns split between threads, each thread adding every
 *   row in order into its own columns (no atomics, the same result for any
 *   thread count); serial below 4 PAR_MIN elements of dy (gpt-b8's 512x128
 *   takes 8 us on one thread, the price of a fork/join here).
 *   layernorm_bwd: dw and db are column sums over rows: per-thread partial
 *   sums over row blocks, added up in thread order.
 *   adamw: the scalars folded in double (PyTorch's), so the element loop is
 *   p -= a m / (sqrt(v) + e) with a = lr/bc1 * sqrt(bc2), e = eps sqrt(bc2):
 *   one division, not two.
 * Measured at gpt-b8's sizes (1 thread, this 2-core Zen 4, us; cpu-naive in
 * brackets): layernorm 512x128 22 (143), its backward 25 (240); gelu
 * 512x512 172 (~9000), backward 212 (~13000); attn_softmax 2048 rows of 64
 * 104 (890), backward 29 (75); adamw of 524288 185 (~2900); lstm_cell 32x256
 * 24 (320), backward 9 (130). Two threads take about half where the other
 * core is free.
 */
#ifndef CPU_TRAIN_SEQ_IMPL_H
#define CPU_TRAIN_SEQ_IMPL_H

#include "train_seq.h"
#include "train_args.h"
#include "train_vmath.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#define WHO "cpu train_seq"
#define PAR_MIN (1L << 15)     /* elements: memory-bound loops parallel at or above this */
#define PAR_MIN_MATH (1L << 13) /* elements: exp/tanh-heavy loops */
#define SPAN 4096              /* elements: the parallel loops' blocks of elementwise work */

#ifndef SEQ_CLONES /* -DSEQ_CLONES= -march=...: one ISA only (to test each clone's code) */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SEQ_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define SEQ_CLONES
#endif
#endif

static inline long min_l(long a, long b) { return a < b ? a : b; }

#endif
