/* cpu/train_naive_seq.h - the sequence models' operations of the reference
 * table TRAIN_OPS_CPU_NAIVE, written in cpu/train_naive_seq.c (rules:
 * cpu/train_naive.c). Signatures and contract: the train_ops entries of the
 * same names (ops/train_ops.h). Internal to cpu/: train_naive.c's table
 * points at these (and every CPU table at train_cpu_amp_*). */
#ifndef CPU_TRAIN_NAIVE_SEQ_H
#define CPU_TRAIN_NAIVE_SEQ_H

#include "../ops/dtype.h"

int train_naive_add(long n, const float *a, const float *b, float *y, void *stream);
int train_naive_scale(long n, float a, float *x, void *stream);
int train_naive_round(long n, dtype_t dt, const float *x, float *y, void *stream);
/* amp_scale and amp_unscale of every CPU table (serial). */
int train_cpu_amp_scale(long n, const float *ls, float *x, void *stream);
int train_cpu_amp_unscale(long n, float *g, float *ls, int plant, int *found, void *stream);
int train_naive_permute(int A, int B, int C, int D, const float *x, float *y, void *stream);
int train_naive_attn_softmax(long rows, int T, float scale, const float *z, float *p,
                             void *stream);
int train_naive_attn_softmax_bwd(long rows, int T, float scale, const float *p, const float *dp,
                                 float *dz, void *stream);
int train_naive_embedding(int rows, int dim, const int *ids, int vocab, const float *table,
                          float *y, int accumulate, void *stream);
int train_naive_embedding_bwd(int rows, int dim, const int *ids, int vocab, const float *dy,
                              float *dtable, void *stream);
int train_naive_layernorm(int rows, int dim, const float *x, const float *w, const float *b,
                          float *y, float *mean, float *rstd, void *stream);
int train_naive_layernorm_bwd(int rows, int dim, const float *dy, const float *x,
                              const float *w, const float *mean, const float *rstd, float *dx,
                              float *dw, float *db, void *stream);
int train_naive_gelu(long n, const float *x, float *y, void *stream);
int train_naive_gelu_bwd(long n, const float *x, const float *dy, float *dx, void *stream);
int train_naive_lstm_cell(int rows, int H, const float *pre, const float *c_prev, float *gates,
                          float *c, float *h, void *stream);
int train_naive_lstm_cell_bwd(int rows, int H, const float *dh, const float *dc,
                              const float *gates, const float *c_prev, const float *c,
                              float *dpre, float *dc_prev, void *stream);
int train_naive_adamw(long n, float *p, const float *g, float *m, float *v, float *t, float lr,
                      float b1, float b2, float eps, float wd, void *stream);

#endif
