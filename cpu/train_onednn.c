/* cpu/train_onednn.c - TRAIN_OPS_CPU_ONEDNN (cpu/train_cpu.h; contract:
 * ops/train_ops.h), built only when oneDNN is found (BENCH_HAVE_ONEDNN):
 * oneDNN where it has the operation, our code elsewhere.
 *   gemm        dnnl_sgemm (row-major, 'T' for ta / tb; oneDNN's JIT GEMM,
 *               threaded on libgomp, so cpu_threads_set applies)
 *   gemm_batched dnnl_sgemm on each matrix in turn
 *   conv        CONV_OPS_CPU_ONEDNN (primitives, plans cached; conv_onednn.c)
 *   the rest    cpu/train_elem.c, cpu/train_seq_<op>.c. oneDNN's pooling primitive keeps its argmax
 *               in a workspace of its own layout, not the h*W + w indices the
 *               contract wants, and its eltwise/softmax primitives would each
 *               need a cached plan and memory objects for memory-bound loops
 *               our code already runs at bandwidth: not worth the cost. */
#include "train_cpu.h"
#include "conv_cpu.h"
#include "errmsg.h"
#include "train_args.h"
#include "train_elem.h"
#include "train_seq.h"
#include "train_naive_seq.h" /* amp_scale, amp_unscale */

#include <dnnl.h>
#include <dnnl_debug.h>

static int onednn_gemm(int ta, int tb, int M, int N, int K, const float *A, int lda,
                       const float *B, int ldb, float beta, float *C, int ldc, void *stream)
{
    (void)stream;
    if (train_gemm_args("cpu-onednn", ta, tb, M, N, K, lda, ldb, ldc)) return 1;
    dnnl_status_t st = dnnl_sgemm(ta ? 'T' : 'N', tb ? 'T' : 'N', M, N, K, 1.0f, A, lda, B, ldb,
                                  beta, C, ldc);
    if (st != dnnl_success) {
        err_set("cpu-onednn gemm: dnnl_sgemm(%c, %c, %d, %d, %d) failed: %s", ta ? 'T' : 'N',
                tb ? 'T' : 'N', M, N, K, dnnl_status2str(st));
        return 1;
    }
    return 0;
}

static int onednn_gemm_batched(int ta, int tb, int M, int N, int K, const float *A, int lda,
                               long long sA, const float *B, int ldb, long long sB, float beta,
                               float *C, int ldc, long long sC, int batch, void *stream)
{
    if (train_batched_args("cpu-onednn", ta, tb, M, N, K, lda, sA, ldb, sB, ldc, sC, batch))
        return 1;
    for (int i = 0; i < batch; i++)
        if (onednn_gemm(ta, tb, M, N, K, A + i * sA, lda, B + i * sB, ldb, beta, C + i * sC, ldc,
                        stream))
            return 1;
    return 0;
}

const train_ops TRAIN_OPS_CPU_ONEDNN = {
    .gemm = onednn_gemm,
    .conv = &CONV_OPS_CPU_ONEDNN,
    .bias_add = train_elem_bias_add,
    .bias_grad = train_elem_bias_grad,
    .relu = train_elem_relu,
    .relu_bwd = train_elem_relu_bwd,
    .maxpool = train_elem_maxpool,
    .maxpool_bwd = train_elem_maxpool_bwd,
    .softmax_xent = train_elem_softmax_xent,
    .sgd = train_elem_sgd,
    .gemm_batched = onednn_gemm_batched,
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
