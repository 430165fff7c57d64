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
 *              them, else per-thread partial sums over row blocks, added up;
 *              sums kept in a local block, stored once (no false sharing).
 *   maxpool:   all planes' output rows in one collapsed parallel loop (no
 *              64-bit division per row); 4 windows per SIMD step, the last
 *              group of a row overlapping the previous one instead of a
 *              scalar tail (whose compares random data mispredicts); the
 *              argmax offset is selected (0, 1, W, W+1), not multiplied.
 *              maxpool_bwd writes each 2x2 window whole (dy where arg points,
 *              0 elsewhere) instead of zeroing dx and scattering, and reports
 *              an arg outside its window.
 * Measured (1 thread, this 2-core Xeon, us; then 2 threads): 1024 planes of
 * 28x28: maxpool 245 -> 127, maxpool_bwd 219 -> 111 (from 480 and 340 before
 * the collapse and the overlap); relu of 802816: 212 -> 94; bias_grad
 * 256x512: 10 -> 5.4 (17 with the false sharing).
 */
#include "train_elem.h"
#include "omp_team.h"
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
    atomic_int arrived = 0;
#pragma omp parallel if (parallel : (long)rows * cols >= PAR_MIN)
    {
#pragma omp for schedule(static) nowait
        for (int r = 0; r < rows; r++) {
            float *yr = y + (long)r * cols;
#pragma omp simd
            for (int c = 0; c < cols; c++) yr[c] += b[c];
        }
        omp_team_end(&arrived);
    }
    return 0;
}

/* db[c0..c1) = sum over rows r0..r1 of dy[r][c], COL_BLOCK columns at a
 * time in a local accumulator: db is stored once per block, so threads that
 * own neighbouring columns never write one cache line row after row (that
 * false sharing made the column split slower than one thread). */
#define COL_BLOCK 256
static void col_sums(int r0, int r1, int c0, int c1, int cols, const float *dy, float *db)
{
    for (int cb = c0; cb < c1; cb += COL_BLOCK) {
        const int nb = c1 - cb < COL_BLOCK ? c1 - cb : COL_BLOCK;
        float acc[COL_BLOCK];
        for (int j = 0; j < nb; j++) acc[j] = 0.0f;
        for (int r = r0; r < r1; r++) {
            const float *dr = dy + (long)r * cols + cb;
#pragma omp simd
            for (int j = 0; j < nb; j++) acc[j] += dr[j];
        }
        for (int j = 0; j < nb; j++) db[cb + j] = acc[j];
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
        atomic_int arrived = 0;
#pragma omp parallel num_threads(nt)
        {
            int t = omp_get_thread_num(), n = omp_get_num_threads();
            col_sums(0, rows, (int)((long)cols * t / n), (int)((long)cols * (t + 1) / n), cols,
                     dy, db);
            omp_team_end(&arrived);
        }
        return 0;
    }
    float *part = malloc(sizeof(float) * (size_t)nt * cols);
    if (!part) {
        err_set(WHO " bias_grad: out of memory for %d partial sums of %d columns", nt, cols);
        return 1;
    }
    int used = 1;
    atomic_int arrived2 = 0;
#pragma omp parallel num_threads(nt)
    {
        int t = omp_get_thread_num(), n = omp_get_num_threads();
        if (t == 0) used = n;
        col_sums((int)((long)rows * t / n), (int)((long)rows * (t + 1) / n), 0, cols, cols, dy,
                 part + (long)t * cols);
        omp_team_end(&arrived2);
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
    atomic_int arrived = 0;
#pragma omp parallel if (parallel : n >= PAR_MIN)
    {
#pragma omp for simd schedule(static) nowait
        for (long i = 0; i < n; i++) y[i] = x[i] <= 0.0f ? 0.0f : x[i];
        omp_team_end(&arrived);
    }
    return 0;
}

int train_elem_relu_bwd(long n, const float *y, const float *dy, float *dx, void *stream)
{
    (void)stream;
    if (train_count_args(WHO, "relu_bwd", n)) return 1;
    atomic_int arrived = 0;
#pragma omp parallel if (parallel : n >= PAR_MIN)
    {
#pragma omp for simd schedule(static) nowait
        for (long i = 0; i < n; i++) {
            const float g = dy[i]; /* loaded unconditionally: a select, not a branch */
            dx[i] = y[i] > 0.0f ? g : 0.0f;
        }
        omp_team_end(&arrived);
    }
    return 0;
}

/* Whether v replaces the running maximum m: v > m, or v is NaN and m is
 * not; m is never replaced once NaN (the first NaN wins, ties keep the first). */
static inline int pool_takes(float v, float m) { return !(v <= m) && m == m; }

/* Output window ow of input rows x0 (row h0 of the plane) and x1. */
static inline void pool_win(const float *restrict x0, const float *restrict x1, int h0, int W,
                            int ow, float *restrict y, int *restrict arg)
{
    float a = x0[2 * ow], b = x0[2 * ow + 1], c = x1[2 * ow], d = x1[2 * ow + 1];
    float m = a;
    int off = 0; /* if-conversion turns these into selects (gcc 12 vectorises this form) */
    if (pool_takes(b, m)) m = b, off = 1;
    if (pool_takes(c, m)) m = c, off = W;
    if (pool_takes(d, m)) m = d, off = W + 1;
    y[ow] = m;
    arg[ow] = h0 * W + 2 * ow + off;
}

/* One output row, POOL_V windows at a time; the last group overlaps the one
 * before it (recomputing the same values) so that no scalar tail is left:
 * a scalar tail branches on every compare, which random data mispredicts. */
#define POOL_V 4
static void pool_row(const float *restrict x0, const float *restrict x1, int h0, int W, int Wo,
                     float *restrict y, int *restrict arg)
{
    if (Wo < POOL_V) {
        for (int ow = 0; ow < Wo; ow++) pool_win(x0, x1, h0, W, ow, y, arg);
        return;
    }
    for (int ow0 = 0;; ow0 += POOL_V) {
        if (ow0 > Wo - POOL_V) ow0 = Wo - POOL_V;
#pragma omp simd
        for (int j = 0; j < POOL_V; j++) pool_win(x0, x1, h0, W, ow0 + j, y, arg);
        if (ow0 == Wo - POOL_V) break;
    }
}

int train_elem_maxpool(int planes, int H, int W, const float *x, float *y, int *arg,
                       void *stream)
{
    (void)stream;
    if (train_pool_args(WHO, "maxpool", planes, H, W)) return 1;
    const int Ho = H / 2, Wo = W / 2;
    /* collapse: the (plane, row) pair is divided out once per chunk, not per
     * row (a 64-bit division per 7-wide output row cost ~40% of the time) */
    atomic_int arrived = 0;
#pragma omp parallel if (parallel : (long)planes * H * W >= PAR_MIN)
    {
#pragma omp for collapse(2) schedule(static) nowait
        for (int pl = 0; pl < planes; pl++)
            for (int oh = 0; oh < Ho; oh++) {
                const long row = (long)pl * Ho + oh;
                const float *x0 = x + ((long)pl * H + 2 * oh) * W;
                pool_row(x0, x0 + W, 2 * oh, W, Wo, y + row * Wo, arg + row * Wo);
            }
        omp_team_end(&arrived);
    }
    return 0;
}

/* Output window ow's four dx, written whole: dy where arg points, 0 at the
 * other three; d0, d1 are input rows h0 and h0 + 1. Returns non-zero when
 * arg is not in the window. */
static inline int pool_bwd_win(const float *restrict g, const int *restrict arg, int h0, int W,
                               int ow, float *restrict d0, float *restrict d1)
{
    const int a = arg[ow] - (h0 * W + 2 * ow); /* 0, 1, W or W + 1 */
    const float v = g[ow];
    d0[2 * ow] = a == 0 ? v : 0.0f;
    d0[2 * ow + 1] = a == 1 ? v : 0.0f;
    d1[2 * ow] = a == W ? v : 0.0f;
    d1[2 * ow + 1] = a == W + 1 ? v : 0.0f;
    return a != 0 && a != 1 && a != W && a != W + 1;
}

/* One output row, as pool_row (groups of POOL_V, the last one overlapping),
 * plus the column floor mode leaves out. Returns non-zero for a bad arg. */
static int pool_bwd_row(const float *restrict g, const int *restrict arg, int h0, int W, int Wo,
                        float *restrict d0, float *restrict d1)
{
    int bad = 0;
    if (Wo < POOL_V) {
        for (int ow = 0; ow < Wo; ow++) bad |= pool_bwd_win(g, arg, h0, W, ow, d0, d1);
    } else {
        for (int ow0 = 0;; ow0 += POOL_V) {
            if (ow0 > Wo - POOL_V) ow0 = Wo - POOL_V;
#pragma omp simd reduction(| : bad)
            for (int j = 0; j < POOL_V; j++) bad |= pool_bwd_win(g, arg, h0, W, ow0 + j, d0, d1);
            if (ow0 == Wo - POOL_V) break;
        }
    }
    if (W & 1) d0[W - 1] = d1[W - 1] = 0.0f;
    return bad;
}

int train_elem_maxpool_bwd(int planes, int H, int W, const float *dy, const int *arg, float *dx,
                           void *stream)
{
    (void)stream;
    if (train_pool_args(WHO, "maxpool_bwd", planes, H, W)) return 1;
    const int Ho = H / 2, Wo = W / 2;
    const long plane = (long)H * W, nout = (long)planes * Ho * Wo;
    if (Ho == 0 || Wo == 0) { /* no windows: dx is all zero */
        memset(dx, 0, sizeof(float) * (size_t)planes * plane);
        return 0;
    }
    int bad = 0;
    atomic_int arrived = 0;
#pragma omp parallel reduction(| : bad) if (parallel : (long)planes * plane >= PAR_MIN)
    {
#pragma omp for collapse(2) schedule(static) nowait
        for (int pl = 0; pl < planes; pl++)
            for (int oh = 0; oh < Ho; oh++) {
                const long row = (long)pl * Ho + oh;
                float *d0 = dx + pl * plane + 2L * oh * W;
                bad |= pool_bwd_row(dy + row * Wo, arg + row * Wo, 2 * oh, W, Wo, d0, d0 + W);
                if ((H & 1) && oh == Ho - 1) /* the row floor mode leaves out */
                    memset(d0 + 2L * W, 0, sizeof(float) * (size_t)W);
            }
        omp_team_end(&arrived);
    }
    if (bad)
        for (long o = 0; o < nout; o++)
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
    atomic_int arrived = 0;
#pragma omp parallel reduction(+ : total) if (parallel : (long)rows * classes >= PAR_MIN)
    {
#pragma omp for schedule(static) nowait
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
        omp_team_end(&arrived);
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
        atomic_int arrived = 0;
#pragma omp parallel if (parallel : n >= PAR_MIN)
        {
#pragma omp for simd schedule(static) nowait
            for (long i = 0; i < n; i++) p[i] -= lr * g[i];
            omp_team_end(&arrived);
        }
        return 0;
    }
    atomic_int arrived2 = 0;
#pragma omp parallel if (parallel : n >= PAR_MIN)
    {
#pragma omp for simd schedule(static) nowait
        for (long i = 0; i < n; i++) {
            float vi = momentum * v[i] + g[i];
            v[i] = vi;
            p[i] -= lr * vi;
        }
        omp_team_end(&arrived2);
    }
    return 0;
}
