/* ops/conv_dims.h - the 2-D convolution contract shared by cpu/ and kernels/
 * (and suites/conv), stated once.
 *
 *   x  [N][C][H][W]   input activations (NCHW, PyTorch's default)
 *   w  [K][C][R][S]   weights (KCRS)
 *   b  [K]            bias
 *   y  [N][K][P][Q]   output, P = (H + 2*ph - R) / sh + 1, Q = (W + 2*pw - S) / sw + 1
 *   fp32, contiguous; groups 1, dilation 1; any stride >= 1, padding >= 0.
 *
 *   fwd         y[n,k,p,q]  = b[k] + sum_{c,r,s} x[n,c,p*sh-ph+r,q*sw-pw+s] * w[k,c,r,s]
 *   bwd-data    dx[n,c,h,w] = sum_{k,r,s : h = p*sh-ph+r, w = q*sw-pw+s} dy[n,k,p,q] * w[k,c,r,s]
 *   bwd-filter  dw[k,c,r,s] = sum_{n,p,q} dy[n,k,p,q] * x[n,c,p*sh-ph+r,q*sw-pw+s]
 *               db[k]       = sum_{n,p,q} dy[n,k,p,q]
 * (x outside [0,H) x [0,W) is zero padding.) Every output element is written
 * (dx, dw, db are overwritten, not accumulated into).
 *
 * Sizes and work are computed here, once, in host C: never re-derived in a
 * kernel file. */
#ifndef OPS_CONV_DIMS_H
#define OPS_CONV_DIMS_H

#include "dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct conv_dims {
    int N, C, H, W;   /* input */
    int K, R, S;      /* filters */
    int sh, sw;       /* stride */
    int ph, pw;       /* padding */
    int P, Q;         /* output, from conv_out_dim */
} conv_dims;

typedef enum { CONV_FWD, CONV_BWD_DATA, CONV_BWD_FILTER, CONV_NDIRS } conv_dir;

/* "fwd", "bwd-data", "bwd-filter": the direction column and descriptor prefix. */
static inline const char *conv_dir_name(conv_dir d)
{
    return d == CONV_FWD ? "fwd" : d == CONV_BWD_DATA ? "bwd-data" : "bwd-filter";
}

/* Output extent along one axis; <= 0 when the filter does not fit. */
static inline int conv_out_dim(int in, int filt, int pad, int stride)
{
    long span = (long)in + 2L * pad - filt;
    return span < 0 || stride < 1 ? 0 : (int)(span / stride + 1);
}

/* Fills P and Q. 0, or -1 when the output would be empty. */
static inline int conv_dims_finish(conv_dims *d)
{
    d->P = conv_out_dim(d->H, d->R, d->ph, d->sh);
    d->Q = conv_out_dim(d->W, d->S, d->pw, d->sw);
    return d->P > 0 && d->Q > 0 ? 0 : -1;
}

/* Multiply-adds x 2 of one direction (the same count for all three: each is
 * one N*K*P*Q*C*R*S reduction), plus the bias (fwd) or db (bwd-filter) adds. */
static inline double conv_flops(const conv_dims *d, conv_dir dir)
{
    double macs = (double)d->N * d->K * d->P * d->Q * d->C * d->R * d->S;
    double extra = dir == CONV_FWD || dir == CONV_BWD_FILTER ? (double)d->N * d->K * d->P * d->Q : 0;
    return 2.0 * macs + extra;
}

/* Elements of each tensor. */
static inline long long conv_x_elems(const conv_dims *d) { return (long long)d->N * d->C * d->H * d->W; }
static inline long long conv_w_elems(const conv_dims *d) { return (long long)d->K * d->C * d->R * d->S; }
static inline long long conv_y_elems(const conv_dims *d) { return (long long)d->N * d->K * d->P * d->Q; }

/* The reduction length of one output element, for the checker's tolerance:
 * C*R*S (fwd), about K*R*S/(sh*sw) (bwd-data), N*P*Q (bwd-filter). */
static inline long conv_reduction(const conv_dims *d, conv_dir dir)
{
    if (dir == CONV_FWD) return (long)d->C * d->R * d->S;
    if (dir == CONV_BWD_DATA) {
        long k = (long)d->K * ((d->R + d->sh - 1) / d->sh) * ((d->S + d->sw - 1) / d->sw);
        return k > 0 ? k : 1;
    }
    return (long)d->N * d->P * d->Q;
}

/* Backends fill one table: an entry point per direction (cpu/conv_cpu.h and
 * kernels/conv_cuda.h give the signatures; `stream` is a cudaStream_t for GPU
 * entry points and unused on the CPU). Each returns 0, or non-zero after
 * err_set (harness/errmsg.h) naming what failed. */
typedef int (*conv_fwd_fn)(const conv_dims *d, const float *x, const float *w, const float *b,
                           float *y, void *ws, void *stream);
typedef int (*conv_bwd_data_fn)(const conv_dims *d, const float *dy, const float *w, float *dx,
                                void *ws, void *stream);
typedef int (*conv_bwd_filter_fn)(const conv_dims *d, const float *x, const float *dy,
                                  float *dw, float *db, void *ws, void *stream);

/* The same in a reduced-precision dtype dt (ops/dtype.h; the registry row's
 * dtypes beyond fp32 say which): every buffer, bias and db included, holds dt
 * (tf32: fp32 storage, inputs rounded to tf32 inside the products); products
 * accumulate in fp32 and each output is rounded once to dt. */
typedef int (*conv_fwd_dt_fn)(dtype_t dt, const conv_dims *d, const void *x, const void *w,
                              const void *b, void *y, void *ws, void *stream);
typedef int (*conv_bwd_data_dt_fn)(dtype_t dt, const conv_dims *d, const void *dy, const void *w,
                                   void *dx, void *ws, void *stream);
typedef int (*conv_bwd_filter_dt_fn)(dtype_t dt, const conv_dims *d, const void *x,
                                     const void *dy, void *dw, void *db, void *ws, void *stream);

typedef struct conv_ops {
    conv_fwd_fn fwd;
    conv_bwd_data_fn bwd_data;
    conv_bwd_filter_fn bwd_filter;
    /* Device workspace the entry points need for d (GPU: im2col columns,
     * cuDNN's workspace; 0 when none). NULL: none. */
    unsigned long long (*workspace)(const conv_dims *d, conv_dir dir);
    /* Reduced precision (NULL: fp32 only). */
    conv_fwd_dt_fn fwd_dt;
    conv_bwd_data_dt_fn bwd_data_dt;
    conv_bwd_filter_dt_fn bwd_filter_dt;
    /* workspace for dtype dt (NULL: as workspace). */
    unsigned long long (*workspace_dt)(dtype_t dt, const conv_dims *d, conv_dir dir);
} conv_ops;

#ifdef __cplusplus
}
#endif
#endif
