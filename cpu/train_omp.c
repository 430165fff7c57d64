/* cpu/train_omp.c - TRAIN_OPS_CPU_OMP (cpu/train_cpu.h; contract:
 * ops/train_ops.h): our own code throughout, on one OpenMP team.
 *   gemm        gemm_cpu_omp_t (packed, blocked SIMD micro-kernel; the
 *               transposes handled by the packing)
 *   gemm_batched the matrices split between the threads, one single-thread
 *               gemm_cpu_omp_t each, when each is too small for the GEMM to
 *               thread itself (attention's 64x64x32 products); else one
 *               after another, each on the whole team
 *   conv        CONV_OPS_CPU_OMP
 *   the rest    cpu/train_elem.c, cpu/train_seq_<op>.c */
#include "train_cpu.h"
#include "omp_team.h"
#include "conv_cpu.h"
#include "gemm_cpu.h"
#include "train_args.h"
#include "train_elem.h"
#include "train_seq.h"
#include "train_naive_seq.h" /* amp_scale, amp_unscale */

#include <omp.h>
#include <stdio.h>

static int omp_gemm(int ta, int tb, int M, int N, int K, const float *A, int lda, const float *B,
                    int ldb, float beta, float *C, int ldc, void *stream)
{
    (void)stream;
    if (train_gemm_args("cpu-omp", ta, tb, M, N, K, lda, ldb, ldc)) return 1;
    return gemm_cpu_omp_t(ta, tb, M, N, K, 1.0f, A, lda, B, ldb, beta, C, ldc);
}

/* Per-matrix FLOPs below which gemm_cpu_omp_t runs on one thread anyway
 * (its GEMM_SERIAL_FLOPS), so splitting the batch is the only way to use the
 * team; and the total below which one thread beats a fork/join. */
#define BATCH_SPLIT_FLOPS (2.0 * 160 * 160 * 160)
#define BATCH_PAR_FLOPS (2.0 * 64 * 64 * 64)

static int omp_gemm_batched(int ta, int tb, int M, int N, int K, const float *A, int lda,
                            long long sA, const float *B, int ldb, long long sB, float beta,
                            float *C, int ldc, long long sC, int batch, void *stream)
{
    (void)stream;
    if (train_batched_args("cpu-omp", ta, tb, M, N, K, lda, sA, ldb, sB, ldc, sC, batch))
        return 1;
    const double flops = 2.0 * M * N * K;
    const int nt = omp_get_max_threads();
    if (nt < 2 || batch < nt || flops >= BATCH_SPLIT_FLOPS || flops * batch < BATCH_PAR_FLOPS) {
        for (int i = 0; i < batch; i++)
            if (gemm_cpu_omp_t(ta, tb, M, N, K, 1.0f, A + i * sA, lda, B + i * sB, ldb, beta,
                               C + i * sC, ldc))
                return 1;
        return 0;
    }
    int failed = -1;
    char why[256] = "";
    /* dynamic: on this shared machine a preempted thread must not hold back
     * the other's share (each item is a few microseconds) */
    atomic_int arrived = 0;
#pragma omp parallel num_threads(nt)
    {
#pragma omp for schedule(dynamic, 1) nowait
        for (int i = 0; i < batch; i++)
            if (gemm_cpu_omp_t(ta, tb, M, N, K, 1.0f, A + i * sA, lda, B + i * sB, ldb, beta,
                               C + i * sC, ldc)) {
#pragma omp critical(omp_gemm_batched_err)
                if (failed < 0) { /* err_set is per thread: carry the text to this one */
                    failed = i;
                    snprintf(why, sizeof why, "%s", err_get());
                }
            }
        omp_team_end(&arrived);
    }
    if (failed >= 0) {
        err_set("cpu-omp gemm_batched: matrix %d: %s", failed, why);
        return 1;
    }
    return 0;
}

const train_ops TRAIN_OPS_CPU_OMP = {
    .gemm = omp_gemm,
    .conv = &CONV_OPS_CPU_OMP,
    .bias_add = train_elem_bias_add,
    .bias_grad = train_elem_bias_grad,
    .relu = train_elem_relu,
    .relu_bwd = train_elem_relu_bwd,
    .maxpool = train_elem_maxpool,
    .maxpool_bwd = train_elem_maxpool_bwd,
    .softmax_xent = train_elem_softmax_xent,
    .sgd = train_elem_sgd,
    .gemm_batched = omp_gemm_batched,
    .add = train_seq_add,
    .scale = train_seq_scale,
    .round = train_seq_round,
    .amp_scale = train_cpu_amp_scale,
    .amp_unscale = train_cpu_amp_unscale,
    .permute = train_seq_permute,
    .attn_softmax = train_seq_attn_softmax,
    .attn_softmax_bwd = train_seq_attn_softmax_bwd,
    .embedding = train_seq_embedding,
    .embedding_bwd = train_seq_embedding_bwd,
    .layernorm = train_seq_layernorm,
    .layernorm_bwd = train_seq_layernorm_bwd,
    .gelu = train_seq_gelu,
    .gelu_bwd = train_seq_gelu_bwd,
    .lstm_cell = train_seq_lstm_cell,
    .lstm_cell_bwd = train_seq_lstm_cell_bwd,
    .adamw = train_seq_adamw,
};
