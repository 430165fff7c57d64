/* cpu/train_elem.c - the elementwise training-step operations shared by the
 * cpu-omp, cpu-blas and cpu-onednn train_ops tables (cpu/train_elem.h;
 * contract: ops/train_ops.h; NaN and tie rules: cpu/train_naive.c).
 *
 * Each loop runs on the OpenMP team (cpu_threads_set()'s count) when its
 * tensor holds at least PAR_MIN elements and serially below that: a
 * fork/join costs ~5-20 us, more than relu on a 32K-element tensor takes.
 * Inner loops are written branch-free (compares and selects) so that they
 * vectorise (`omp simd`); sums are fp32 except softmax_xent's loss (double).
 *   bias_grad: columns split between threads when each gets >= COLS_MIN of
 *              them, else per-thread partial sums over row blocks, added up.
 *   maxpool:   one output row (2 input rows) per iteration, all planes in one
 *              parallel loop; maxpool_bwd writes each 2x2 window whole
 *              (dy where arg points, 0 elsewhere) instead of zeroing dx and
 *              scattering, and reports an arg outside its window.
 */
#include "train_elem.h"
#include "train_args.h"

#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#define WHO "cpu train_elem"
#define PAR_MIN (1L << 15) /* elements: parallel at or above this */
#define COLS_MIN 32        /* bias_grad: columns per thread for a column split */

int train_elem_bias_add(int rows, int cols, float *y, const float *b, void *stream)
{
    (void)stream;
    if (train_matrix_args(WHO, "bias_add", rows, cols)) return 1;
#pragma omp parallel for schedule(static) if (parallel : (long)rows * cols >= PAR_MIN)
    for (int r = 0; r < rows; r++) {
        float *yr = y + (long)r * cols;
#pragma omp simd
        for (int c = 0; c < cols; c++) yr[c] += b[c];
    }
    return 0;
}

/* db[c0..c1) = sum over rows r0..r1 of dy[r][c]. */
static void col_sums(int r0, int r1, int c0, int c1, int cols, const float *dy, float *db)
{
    for (int c = c0; c < c1; c++) db[c] = 0.0f;
    for (int r = r0; r < r1; r++) {
        const float *dr = dy + (long)r * cols;
#pragma omp simd
        for (int c = c0; c < c1; c++) db[c] += dr[c];
    }
}

int train_elem_bias_grad(int rows, int cols, const float *dy, float *db, void *stream)
{
    (void)stream;
    if (train_matrix_args(WHO, "bias_grad", rows, cols)) return 1;
    int nt = omp_get_max_threads();
    if ((long)rows * cols < PAR_MIN || nt < 2) {
        col_sums(0, rows, 0, cols, cols, dy, db);
        return 0;
    }
    if (cols >= COLS_MIN * nt) {
#pragma omp parallel num_threads(nt)
        {
            int t = omp_get_thread_num(), n = omp_get_num_threads();
            col_sums(0, rows, (int)((long)cols * t / n), (int)((long)cols * (t + 1) / n), cols,
                     dy, db);
        }
        return 0;
    }
    float *part = malloc(sizeof(float) * (size_t)nt * cols);
    if (!part) {
        err_set(WHO " bias_grad: out of memory for %d partial sums of %d columns", nt, cols);
        return 1;
    }
    int used = 1;
#pragma omp parallel num_threads(nt)
    {
        int t = omp_get_thread_num(), n = omp_get_num_threads();
        if (t == 0) used = n;
        col_sums((int)((long)rows * t / n), (int)((long)rows * (t + 1) / n), 0, cols, cols, dy,
                 part + (long)t * cols);
    }
    for (int c = 0; c < cols; c++) db[c] = part[c];
    for (int t = 1; t < used; t++) {
        const float *pt = part + (long)t * cols;
#pragma omp simd
        for (int c = 0; c < cols; c++) db[c] += pt[c];
    }
    free(part);
    return 0;
}

/* x <= 0 is false for NaN, so NaN passes through (train_naive.c's rule). */
int train_elem_relu(long n, const float *x, float *y, void *stream)
{
    (void)stream;
    if (train_count_args(WHO, "relu", n)) return 1;
#pragma omp parallel for simd schedule(static) if (parallel : n >= PAR_MIN)
    for (long i = 0; i < n; i++) y[i] = x[i] <= 0.0f ? 0.0f : x[i];
    return 0;
}

int train_elem_relu_bwd(long n, const float *y, const float *dy, float *dx, void *stream)
{
    (void)stream;
    if (train_count_args(WHO, "relu_bwd", n)) return 1;
#pragma omp parallel for simd schedule(static) if (parallel : n >= PAR_MIN)
    for (long i = 0; i < n; i++) dx[i] = y[i] > 0.0f ? dy[i] : 0.0f;
    return 0;
}

/* Whether v replaces the running maximum m: v > m, or v is NaN and m is
 * not; m is never replaced once NaN (the first NaN wins, ties keep the first). */
static inline int pool_takes(float v, float m) { return m == m && !(v <= m); }

int train_elem_maxpool(int planes, int H, int W, const float *x, float *y, int *arg,
                       void *stream)
{
    (void)stream;
    if (train_pool_args(WHO, "maxpool", planes, H, W)) return 1;
    const int Ho = H / 2, Wo = W / 2;
    const long nrows = (long)planes * Ho;
#pragma omp parallel for schedule(static) if (parallel : (long)planes * H * W >= PAR_MIN)
    for (long row = 0; row < nrows; row++) {
        const long pl = row / Ho;
        const int h0 = 2 * (int)(row % Ho);
        const float *x0 = x + (pl * H + h0) * W, *x1 = x0 + W;
        float *yr = y + row * Wo;
        int *ar = arg + row * Wo;
#pragma omp simd
        for (int ow = 0; ow < Wo; ow++) {
            float a = x0[2 * ow], b = x0[2 * ow + 1], c = x1[2 * ow], d = x1[2 * ow + 1];
            float m = a;
            int k = 0, t;
            t = pool_takes(b, m), m = t ? b : m, k = t ? 1 : k;
            t = pool_takes(c, m), m = t ? c : m, k = t ? 2 : k;
            t = pool_takes(d, m), m = t ? d : m, k = t ? 3 : k;
            yr[ow] = m;
            ar[ow] = (h0 + (k >> 1)) * W + 2 * ow + (k & 1);
        }
    }
    return 0;
}

int train_elem_maxpool_bwd(int planes, int H, int W, const float *dy, const int *arg, float *dx,
                           void *stream)
{
    (void)stream;
    if (train_pool_args(WHO, "maxpool_bwd", planes, H, W)) return 1;
    const int Ho = H / 2, Wo = W / 2;
    const long plane = (long)H * W, nrows = (long)planes * Ho;
    if (Ho == 0 || Wo == 0) { /* no windows: dx is all zero */
        memset(dx, 0, sizeof(float) * (size_t)planes * plane);
        return 0;
    }
    int bad = 0;
#pragma omp parallel for schedule(static) reduction(| : bad) \
    if (parallel : (long)planes * plane >= PAR_MIN)
    for (long row = 0; row < nrows; row++) {
        const long pl = row / Ho;
        const int h0 = 2 * (int)(row % Ho);
        float *d0 = dx + pl * plane + (long)h0 * W, *d1 = d0 + W;
        const float *gr = dy + row * Wo;
        const int *ar = arg + row * Wo;
        int rowbad = 0;
#pragma omp simd reduction(| : rowbad)
        for (int ow = 0; ow < Wo; ow++) {
            const int a = ar[ow], at = h0 * W + 2 * ow;
            const float g = gr[ow];
            d0[2 * ow] = a == at ? g : 0.0f;
            d0[2 * ow + 1] = a == at + 1 ? g : 0.0f;
            d1[2 * ow] = a == at + W ? g : 0.0f;
            d1[2 * ow + 1] = a == at + W + 1 ? g : 0.0f;
            rowbad |= a != at && a != at + 1 && a != at + W && a != at + W + 1;
        }
        bad |= rowbad;
        if (W & 1) d0[W - 1] = d1[W - 1] = 0.0f;   /* the column floor mode leaves out */
        if ((H & 1) && h0 + 2 == H - 1)             /* and the row */
            memset(d1 + W, 0, sizeof(float) * (size_t)W);
    }
    if (bad)
        for (long o = 0; o < nrows * Wo; o++)
            if (!train_arg_in_window(arg[o], o % ((long)Ho * Wo), H, W)) {
                err_set(WHO " maxpool_bwd: arg[%ld] = %d is not in its window of the %dx%d plane",
                        o, arg[o], H, W);
                return 1;
            }
    return 0;
}

int train_elem_softmax_xent(int rows, int classes, const float *z, const int *labels,
                            float *loss, float *dz, void *stream)
{
    (void)stream;
    if (train_xent_args(WHO, rows, classes, labels)) return 1;
    double total = 0.0;
    const float inv_rows = 1.0f / (float)rows;
#pragma omp parallel for schedule(static) reduction(+ : total) \
    if (parallel : (long)rows * classes >= PAR_MIN)
    for (int r = 0; r < rows; r++) {
        const float *zr = z + (long)r * classes;
        float *dr = dz + (long)r * classes;
        float m = zr[0], s = 0.0f;
#pragma omp simd reduction(max : m)
        for (int c = 1; c < classes; c++) m = zr[c] > m ? zr[c] : m;
        for (int c = 0; c < classes; c++) {
            float e = expf(zr[c] - m);
            dr[c] = e;
            s += e;
        }
        const float scale = inv_rows / s;
#pragma omp simd
        for (int c = 0; c < classes; c++) dr[c] *= scale;
        dr[labels[r]] -= inv_rows;
        total += (double)m + log((double)s) - (double)zr[labels[r]];
    }
    loss[0] = (float)(total / rows);
    return 0;
}

int train_elem_sgd(long n, float *p, const float *g, float *v, float lr, float momentum,
                   void *stream)
{
    (void)stream;
    if (train_count_args(WHO, "sgd", n)) return 1;
    if (!v) {
#pragma omp parallel for simd schedule(static) if (parallel : n >= PAR_MIN)
        for (long i = 0; i < n; i++) p[i] -= lr * g[i];
        return 0;
    }
#pragma omp parallel for simd schedule(static) if (parallel : n >= PAR_MIN)
    for (long i = 0; i < n; i++) {
        float vi = momentum * v[i] + g[i];
        v[i] = vi;
        p[i] -= lr * vi;
    }
    return 0;
}
