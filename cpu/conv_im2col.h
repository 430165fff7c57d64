/* cpu/conv_im2col.h - the column transforms cpu-omp and cpu-blas share
 * (internal to cpu/).
 *
 * The columns of one image: col[(c*R + r)*S + s][p*Q + q] = x[c][p*sh-ph+r][q*sw-pw+s]
 * (0 in the padding), a (C*R*S) x (P*Q) row-major matrix, so that
 *   fwd         y_n  = w (K x CRS) . col_n
 *   bwd-data    dx_n = col2im(w^T (CRS x K) . dy_n)
 *   bwd-filter  dw  += dy_n (K x PQ) . col_n^T,  db[k] += sum of dy_n row k.
 */
#ifndef CONV_IM2COL_H
#define CONV_IM2COL_H

#include "../ops/conv_dims.h"

#include <stddef.h>

/* Rows of channels [c0, c1), columns (output pixels) [j0, j1) of image xn's
 * columns, into col (row stride ldcol; column j0 lands at col[.][0]);
 * elements of es bytes (4: fp32; 2: bf16 or fp16, copied as words). */
void conv_im2col_es(const conv_dims *d, const void *xn, size_t es, int c0, int c1, long j0,
                    long j1, void *col, long ldcol);
static inline void conv_im2col(const conv_dims *d, const float *xn, int c0, int c1, long j0,
                               long j1, float *col, long ldcol)
{
    conv_im2col_es(d, xn, 4, c0, c1, j0, j1, col, ldcol);
}

/* Channels [c0, c1) of image dxn = the sum of the column rows of those
 * channels (row (c - c0)*R*S + ..., all P*Q columns, row stride ldcol) placed
 * back: the adjoint of conv_im2col. Overwrites those channels of dxn. */
void conv_col2im(const conv_dims *d, const float *col, long ldcol, int c0, int c1, float *dxn);

/* Whether the columns of an image are the image itself (1x1 filter, stride
 * 1, no padding): then x_n is used as col_n directly. */
static inline int conv_is_pointwise(const conv_dims *d)
{
    return d->R == 1 && d->S == 1 && d->sh == 1 && d->sw == 1 && d->ph == 0 && d->pw == 0;
}

/* Whether bwd-data of d is a forward convolution of dy (stride 1, padding
 * <= filter - 1), and that convolution: dy (K channels, P x Q) through the
 * flipped, transposed filters w'[c][k][R-1-r][S-1-s], padding R-1-ph and
 * S-1-pw, whose output (P x Q of the result) is H x W. */
static inline int conv_bwd_data_is_fwd(const conv_dims *d)
{
    return d->sh == 1 && d->sw == 1 && d->ph <= d->R - 1 && d->pw <= d->S - 1;
}
static inline conv_dims conv_bwd_data_flipped(const conv_dims *d)
{
    conv_dims t = {d->N, d->K, d->P, d->Q, d->C, d->R, d->S, 1, 1, d->R - 1 - d->ph,
                   d->S - 1 - d->pw, 0, 0};
    conv_dims_finish(&t);
    return t;
}

/* acc[k] += the sum of src[k*ld + j] over 0 <= j < cols, for k < rows
 * (16 partial sums per row, so that it vectorises). */
void conv_row_sums(const float *src, long ld, int rows, long cols, float *acc);

/* dst[j][i] = src[i][j] for an rows x cols block (row strides lds, ldd),
 * elements of es bytes (4 or 2). */
void conv_transpose_es(const void *src, long lds, int rows, int cols, void *dst, long ldd,
                       size_t es);
static inline void conv_transpose(const float *src, long lds, int rows, int cols, float *dst,
                                  long ldd)
{
    conv_transpose_es(src, lds, rows, cols, dst, ldd, 4);
}

#endif
