/* cpu/conv_im2col.c - im2col, col2im, row sums and a blocked transpose (conv_im2col.h). */
#include "conv_im2col.h"

#include <string.h>

/* Output columns q in [*qa, *qb) read input column q*sw - pw + s inside [0, W). */
static void valid_q(const conv_dims *d, int s, int *qa, int *qb)
{
    int lo = d->pw - s, hi = d->W + d->pw - s - 1;   /* q*sw in [lo, hi] */
    int a = lo <= 0 ? 0 : (lo + d->sw - 1) / d->sw;
    int b = hi < 0 ? 0 : hi / d->sw + 1;
    *qa = a < d->Q ? a : d->Q;
    *qb = b < d->Q ? b : d->Q;
    if (*qb < *qa) *qb = *qa;
}

void conv_im2col(const conv_dims *d, const float *xn, int c0, int c1, long j0, long j1,
                 float *col, long ldcol)
{
    const int R = d->R, S = d->S, Q = d->Q, sw = d->sw;
    for (int c = c0; c < c1; c++)
        for (int r = 0; r < R; r++)
            for (int s = 0; s < S; s++) {
                float *out = col + ((long)((c - c0) * R + r) * S + s) * ldcol;
                int qa, qb;
                valid_q(d, s, &qa, &qb);
                for (long j = j0; j < j1;) {
                    int p = (int)(j / Q), q = (int)(j % Q);
                    int qe = (long)Q - q < j1 - j ? Q : q + (int)(j1 - j);
                    float *o = out + (j - j0) - q;   /* o[q'] for q' in [q, qe) */
                    int h = p * d->sh - d->ph + r;
                    if (h < 0 || h >= d->H) {
                        memset(o + q, 0, sizeof(float) * (size_t)(qe - q));
                    } else {
                        const float *src = xn + ((long)c * d->H + h) * d->W - d->pw + s;
                        int a = qa > q ? qa : q, b = qb < qe ? qb : qe;
                        if (a > qe) a = qe;
                        if (b < a) b = a;
                        for (int t = q; t < a; t++) o[t] = 0.0f;
                        if (sw == 1)
                            memcpy(o + a, src + a, sizeof(float) * (size_t)(b - a));
                        else
                            for (int t = a; t < b; t++) o[t] = src[(long)t * sw];
                        for (int t = b; t < qe; t++) o[t] = 0.0f;
                    }
                    j += qe - q;
                }
            }
}

void conv_col2im(const conv_dims *d, const float *col, long ldcol, int c0, int c1, float *dxn)
{
    const int R = d->R, S = d->S, P = d->P, Q = d->Q, sw = d->sw;
    memset(dxn + (long)c0 * d->H * d->W, 0, sizeof(float) * (size_t)(c1 - c0) * d->H * d->W);
    for (int c = c0; c < c1; c++)
        for (int r = 0; r < R; r++)
            for (int s = 0; s < S; s++) {
                const float *in = col + ((long)((c - c0) * R + r) * S + s) * ldcol;
                int qa, qb;
                valid_q(d, s, &qa, &qb);
                for (int p = 0; p < P; p++) {
                    int h = p * d->sh - d->ph + r;
                    if (h < 0 || h >= d->H) continue;
                    float *dst = dxn + ((long)c * d->H + h) * d->W - d->pw + s;
                    const float *src = in + (long)p * Q;
                    if (sw == 1)
                        for (int q = qa; q < qb; q++) dst[q] += src[q];
                    else
                        for (int q = qa; q < qb; q++) dst[(long)q * sw] += src[q];
                }
            }
}

void conv_transpose(const float *src, long lds, int rows, int cols, float *dst, long ldd)
{
    enum { B = 32 };
    for (int i0 = 0; i0 < rows; i0 += B)
        for (int j0 = 0; j0 < cols; j0 += B) {
            int i1 = i0 + B < rows ? i0 + B : rows, j1 = j0 + B < cols ? j0 + B : cols;
            for (int i = i0; i < i1; i++)
                for (int j = j0; j < j1; j++) dst[(long)j * ldd + i] = src[(long)i * lds + j];
        }
}

void conv_row_sums(const float *src, long ld, int rows, long cols, float *acc)
{
    for (int k = 0; k < rows; k++) {
        const float *r = src + k * ld;
        float lane[16] = {0};
        long j = 0;
        for (; j + 16 <= cols; j += 16)
            for (int l = 0; l < 16; l++) lane[l] += r[j + l];
        for (int l = 0; j + l < cols; l++) lane[l] += r[j + l];
        float s = 0.0f;
        for (int l = 0; l < 16; l++) s += lane[l];
        acc[k] += s;
    }
}
