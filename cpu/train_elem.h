/* cpu/train_elem.h - the elementwise training-step operations of the
 * optimised CPU tables (cpu-omp, cpu-blas, cpu-onednn), written once in
 * cpu/train_elem.c: OpenMP-parallel above a size threshold, serial below it,
 * inner loops SIMD. Signatures and contract: the train_ops entries of the
 * same names (ops/train_ops.h); the NaN and tie rules of
 * cpu/train_naive.c. Internal to cpu/: the tables point at these. */
#ifndef CPU_TRAIN_ELEM_H
#define CPU_TRAIN_ELEM_H

int train_elem_bias_add(int rows, int cols, float *y, const float *b, void *stream);
int train_elem_bias_grad(int rows, int cols, const float *dy, float *db, void *stream);
int train_elem_relu(long n, const float *x, float *y, void *stream);
int train_elem_relu_bwd(long n, const float *y, const float *dy, float *dx, void *stream);
int train_elem_maxpool(int planes, int H, int W, const float *x, float *y, int *arg,
                       void *stream);
int train_elem_maxpool_bwd(int planes, int H, int W, const float *dy, const int *arg, float *dx,
                           void *stream);
int train_elem_softmax_xent(int rows, int classes, const float *z, const int *labels,
                            float *loss, float *dz, void *stream);
int train_elem_sgd(long n, float *p, const float *g, float *v, float lr, float momentum,
                   void *stream);

#endif
