/* suites/conv/conv_ref.c - full or sampled double reference for conv checks
 * (conv_ref.h). */
#include "conv_ref.h"
#include "conv_cpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SAMPLED_PLANES 8
#define SPREAD_LINES 4

int conv_ref_sampled(const conv_dims *d)
{
    return (double)conv_y_elems(d) * d->C * d->R * d->S > CONV_REF_FULL_LIMIT;
}

/* ---- which elements ------------------------------------------------------ */

/* The sampled planes (a, b) of an A x B grid: its 4 corners and 4 seeded ones. */
static int sampled_planes(int A, int B, unsigned long long seed, int *pa, int *pb)
{
    float u[2 * (SAMPLED_PLANES - 4)];
    int n = 0;
    rng_fill_uniform(u, sizeof u / sizeof u[0], seed);
    for (int t = 0; t < SAMPLED_PLANES; t++) {
        int a, b;
        if (t < 4) {
            a = t & 1 ? A - 1 : 0;
            b = t & 2 ? B - 1 : 0;
        } else {
            a = (int)((u[2 * (t - 4)] + 1.0f) * 0.5f * A);
            b = (int)((u[2 * (t - 4) + 1] + 1.0f) * 0.5f * B);
            a = a < A ? a : A - 1;
            b = b < B ? b : B - 1;
        }
        int dup = 0;
        for (int i = 0; i < n; i++) dup |= pa[i] == a && pb[i] == b;
        if (!dup) pa[n] = a, pb[n++] = b;
    }
    return n;
}

/* Marks the lines of a sampled plane: a band of `band` lines at each edge and
 * SPREAD_LINES spread inner ones. */
static void mark_lines(char *m, int len, int band)
{
    memset(m, 0, (size_t)len);
    for (int i = 0; i < band && i < len; i++) m[i] = m[len - 1 - i] = 1;
    for (int t = 1; t <= SPREAD_LINES; t++) m[(long)(len - 1) * t / (SPREAD_LINES + 1)] = 1;
}

/* The distinct corners of an Hs x Ws plane (fewer when it is one line
 * thick), as offsets into c; their count. */
static int plane_corners(int Hs, int Ws, long *c)
{
    long all[4] = {0, Ws - 1, (long)(Hs - 1) * Ws, (long)Hs * Ws - 1};
    int n = 0;
    for (int k = 0; k < 4; k++) {
        int dup = 0;
        for (int m = 0; m < k; m++) dup |= all[m] == all[k];
        if (!dup) c[n++] = all[k];
    }
    return n;
}

/* How many elements select_elems marks, without visiting the A x B planes:
 * O(Hs + Ws), so the runner's memory estimate of a problem with a huge batch
 * is instant (it visited every plane: 10 s at mb 2^31 - 1). */
static long count_sampled(const conv_ref_tensor *t, int np, const char *rows, const char *cols)
{
    long nr = 0, nc = 0, c[4];
    for (int i = 0; i < t->Hs; i++) nr += rows[i] != 0;
    for (int j = 0; j < t->Ws; j++) nc += cols[j] != 0;
    long lined = (long)t->Hs * t->Ws - (t->Hs - nr) * (t->Ws - nc);
    return np * lined + ((long)t->A * t->B - np) * plane_corners(t->Hs, t->Ws, c);
}

/* The checked elements of t (offsets into idx when not NULL); the count, or
 * -1 out of memory. Counting alone (idx NULL) is O(Hs + Ws). */
static long select_elems(const conv_ref_tensor *t, int sampled, int bandh, int bandw,
                         unsigned long long seed, long *idx)
{
    long n = 0, plane = (long)t->Hs * t->Ws;
    if (!sampled) {
        long total = (long)t->A * t->B * plane;
        for (long e = 0; idx && e < total; e++) idx[e] = e;
        return total;
    }
    int pa[SAMPLED_PLANES], pb[SAMPLED_PLANES];
    int np = sampled_planes(t->A, t->B, seed, pa, pb);
    char *rows = malloc((size_t)t->Hs), *cols = malloc((size_t)t->Ws);
    if (!rows || !cols) {
        free(rows);
        free(cols);
        return -1;
    }
    mark_lines(rows, t->Hs, bandh);
    mark_lines(cols, t->Ws, bandw);
    if (!idx) {
        n = count_sampled(t, np, rows, cols);
        free(rows);
        free(cols);
        return n;
    }
    long corner[4];
    int ncorners = plane_corners(t->Hs, t->Ws, corner);
    for (int a = 0; a < t->A; a++)
        for (int b = 0; b < t->B; b++) {
            long base = ((long)a * t->B + b) * plane;
            int s = 0;
            for (int i = 0; i < np; i++) s |= pa[i] == a && pb[i] == b;
            if (s) {
                for (int i = 0; i < t->Hs; i++)
                    for (int j = 0; j < t->Ws; j++)
                        if (rows[i] || cols[j]) idx[n++] = base + (long)i * t->Ws + j;
                continue;
            }
            /* the corners (fewer when the plane is one line thick) */
            for (int k = 0; k < ncorners; k++) idx[n++] = base + corner[k];
        }
    free(rows);
    free(cols);
    return n;
}

/* ---- reference values ---------------------------------------------------- */

static double elem_value(const conv_ref *r, int ti, const float *const *in, long e)
{
    const conv_ref_tensor *t = &r->t[ti];
    int j = (int)(e % t->Ws), i = (int)(e / t->Ws % t->Hs);
    int b = (int)(e / ((long)t->Ws * t->Hs) % t->B), a = (int)(e / ((long)t->Ws * t->Hs * t->B));
    const conv_dims *d = &r->d;
    if (r->dir == CONV_FWD) return conv_ref_fwd_elem(d, in[0], in[1], in[2], a, b, i, j);
    if (r->dir == CONV_BWD_DATA) return conv_ref_bwd_data_elem(d, in[0], in[1], a, b, i, j);
    if (ti == 1) return conv_ref_bias_elem(d, in[1], j);
    return conv_ref_bwd_filter_elem(d, in[0], in[1], a, b, i, j);
}

/* ---- checksums ----------------------------------------------------------- */

static int checksum_build(conv_ref *r, conv_ref_tensor *t, const float *const *in,
                          unsigned long long seed)
{
    const conv_dims *d = &r->d;
    const int N = d->N, C = d->C, H = d->H, W = d->W, K = d->K, R = d->R, S = d->S, P = d->P,
              Q = d->Q;
    const long G = t->group, rs = (long)R * S;
    t->sign = malloc((size_t)G * sizeof *t->sign);
    t->sum_ref = calloc((size_t)t->ngroups, sizeof *t->sum_ref);
    t->sum_got = malloc((size_t)t->ngroups * sizeof *t->sum_got);
    long tmp_n = r->dir == CONV_FWD ? (long)N * C * rs
                 : r->dir == CONV_BWD_DATA ? (long)N * K * rs : (long)N * P * Q;
    double *tmp = calloc((size_t)tmp_n, sizeof *tmp);
    if (!t->sign || !t->sum_ref || !t->sum_got || !tmp) {
        free(tmp);
        return -1;
    }
    rng_fill_uniform(t->sign, (size_t)G, seed);
    for (long i = 0; i < G; i++) t->sign[i] = t->sign[i] < 0 ? -1.0f : 1.0f;
    const float *v = t->sign;
    if (r->dir == CONV_FWD) {
        const float *x = in[0], *w = in[1], *b = in[2];
        double sv = 0;
        for (long i = 0; i < G; i++) sv += v[i];
        /* tmp[n][c][r][s] = sum_pq v[p,q] x[n,c,p*sh-ph+r,q*sw-pw+s] */
#pragma omp parallel for collapse(2) schedule(dynamic)
        for (int n = 0; n < N; n++)
            for (int c = 0; c < C; c++)
                for (int rr = 0; rr < R; rr++)
                    for (int s = 0; s < S; s++) {
                        double acc = 0;
                        for (int p = 0; p < P; p++) {
                            int h = p * d->sh - d->ph + rr;
                            if (h < 0 || h >= H) continue;
                            const float *xr = x + (((long)n * C + c) * H + h) * W;
                            for (int q = 0; q < Q; q++) {
                                int wi = q * d->sw - d->pw + s;
                                if (wi >= 0 && wi < W) acc += (double)v[(long)p * Q + q] * xr[wi];
                            }
                        }
                        tmp[((long)n * C + c) * rs + rr * S + s] = acc;
                    }
#pragma omp parallel for collapse(2)
        for (int n = 0; n < N; n++)
            for (int k = 0; k < K; k++) {
                double acc = (double)b[k] * sv;
                const float *wk = w + (long)k * C * rs;
                const double *tn = tmp + (long)n * C * rs;
                for (long i = 0; i < C * rs; i++) acc += (double)wk[i] * tn[i];
                t->sum_ref[(long)n * K + k] = acc;
            }
    } else if (r->dir == CONV_BWD_DATA) {
        const float *dy = in[0], *w = in[1];
        /* tmp[n][k][r][s] = sum_pq dy[n,k,p,q] v[p*sh-ph+r, q*sw-pw+s] */
#pragma omp parallel for collapse(2) schedule(dynamic)
        for (int n = 0; n < N; n++)
            for (int k = 0; k < K; k++)
                for (int rr = 0; rr < R; rr++)
                    for (int s = 0; s < S; s++) {
                        double acc = 0;
                        const float *o = dy + ((long)n * K + k) * P * Q;
                        for (int p = 0; p < P; p++) {
                            int h = p * d->sh - d->ph + rr;
                            if (h < 0 || h >= H) continue;
                            for (int q = 0; q < Q; q++) {
                                int wi = q * d->sw - d->pw + s;
                                if (wi >= 0 && wi < W)
                                    acc += (double)o[(long)p * Q + q] * v[(long)h * W + wi];
                            }
                        }
                        tmp[((long)n * K + k) * rs + rr * S + s] = acc;
                    }
#pragma omp parallel for collapse(2)
        for (int n = 0; n < N; n++)
            for (int c = 0; c < C; c++) {
                double acc = 0;
                for (int k = 0; k < K; k++)
                    for (long i = 0; i < rs; i++)
                        acc += (double)w[((long)k * C + c) * rs + i] * tmp[((long)n * K + k) * rs + i];
                t->sum_ref[(long)n * C + c] = acc;
            }
    } else {
        const float *x = in[0], *dy = in[1];
        /* tmp[n][p][q] = sum_crs v[c,r,s] x[n,c,p*sh-ph+r,q*sw-pw+s] */
#pragma omp parallel for collapse(2) schedule(dynamic)
        for (int n = 0; n < N; n++)
            for (int p = 0; p < P; p++)
                for (int q = 0; q < Q; q++) {
                    double acc = 0;
                    for (int c = 0; c < C; c++)
                        for (int rr = 0; rr < R; rr++) {
                            int h = p * d->sh - d->ph + rr;
                            if (h < 0 || h >= H) continue;
                            for (int s = 0; s < S; s++) {
                                int wi = q * d->sw - d->pw + s;
                                if (wi >= 0 && wi < W)
                                    acc += (double)v[c * rs + rr * S + s] *
                                           x[(((long)n * C + c) * H + h) * W + wi];
                            }
                        }
                    tmp[((long)n * P + p) * Q + q] = acc;
                }
#pragma omp parallel for
        for (int k = 0; k < K; k++) {
            double acc = 0;
            for (int n = 0; n < N; n++) {
                const float *o = dy + ((long)n * K + k) * P * Q;
                const double *z = tmp + (long)n * P * Q;
                for (long i = 0; i < (long)P * Q; i++) acc += (double)o[i] * z[i];
            }
            t->sum_ref[k] = acc;
        }
    }
    free(tmp);
    return 0;
}

/* ---- build, check, free -------------------------------------------------- */

static void tensor_shape(conv_ref_tensor *t, const char *name, int A, int B, int Hs, int Ws)
{
    t->name = name;
    t->A = A, t->B = B, t->Hs = Hs, t->Ws = Ws;
}

static void shapes(conv_ref *r)
{
    const conv_dims *d = &r->d;
    if (r->dir == CONV_FWD) {
        r->ntensors = 1;
        tensor_shape(&r->t[0], "y", d->N, d->K, d->P, d->Q);
        r->t[0].group = (long)d->P * d->Q;
        r->t[0].ngroups = d->N * d->K;
    } else if (r->dir == CONV_BWD_DATA) {
        r->ntensors = 1;
        tensor_shape(&r->t[0], "dx", d->N, d->C, d->H, d->W);
        r->t[0].group = (long)d->H * d->W;
        r->t[0].ngroups = d->N * d->C;
    } else {
        r->ntensors = 2;
        tensor_shape(&r->t[0], "dw", d->K, d->C, d->R, d->S);
        r->t[0].group = (long)d->C * d->R * d->S;
        r->t[0].ngroups = d->K;
        tensor_shape(&r->t[1], "db", 1, 1, 1, d->K);   /* always in full */
    }
}

static unsigned long long seed_of(const conv_dims *d, conv_dir dir)
{
    return 0xC0DEULL + 1000003ULL * (unsigned long long)(d->N + 7 * d->C + 13 * d->H + 17 * d->W +
                                                         19 * d->K + 23 * d->R + 29 * d->S) + dir;
}

int conv_ref_build(conv_ref *r, const conv_dims *d, conv_dir dir, const float *const *in,
                   int sampled)
{
    memset(r, 0, sizeof *r);
    r->d = *d;
    r->dir = dir;
    shapes(r);
    unsigned long long seed = seed_of(d, dir);
    for (int ti = 0; ti < r->ntensors; ti++) {
        conv_ref_tensor *t = &r->t[ti];
        int samp = sampled && ti == 0;   /* db: always in full */
        if (!samp) t->ngroups = 0;
        /* y and dx: bands as wide as the filter; dw planes: whole */
        int bh = dir == CONV_BWD_FILTER ? t->Hs : d->R, bw = dir == CONV_BWD_FILTER ? t->Ws : d->S;
        long n = select_elems(t, samp, bh, bw, seed, NULL);
        if (n < 0) goto oom;
        t->idx = malloc((size_t)(n ? n : 1) * sizeof *t->idx);
        t->val = malloc((size_t)(n ? n : 1) * sizeof *t->val);
        t->gather = malloc((size_t)(n ? n : 1) * sizeof *t->gather);
        if (!t->idx || !t->val || !t->gather || select_elems(t, samp, bh, bw, seed, t->idx) != n)
            goto oom;
        t->n = (size_t)n;
#pragma omp parallel for schedule(dynamic, 16)
        for (long e = 0; e < n; e++) t->val[e] = elem_value(r, ti, in, t->idx[e]);
        if (t->ngroups && checksum_build(r, t, in, seed + 99)) goto oom;
    }
    return 0;
oom:
    conv_ref_free(r);
    return -1;
}

static void where(const conv_ref_tensor *t, long e, char *out, size_t cap)
{
    int j = (int)(e % t->Ws), i = (int)(e / t->Ws % t->Hs);
    int b = (int)(e / ((long)t->Ws * t->Hs) % t->B), a = (int)(e / ((long)t->Ws * t->Hs * t->B));
    if (t->A == 1 && t->B == 1 && t->Hs == 1) snprintf(out, cap, "%s[%d]", t->name, j);
    else snprintf(out, cap, "%s[%d,%d,%d,%d]", t->name, a, b, i, j);
}

check_result conv_ref_check(const conv_ref *r, const void *const *out, dtype_t storage, dtype_t dt,
                            char *why, size_t whycap)
{
    double tol = check_tolerance(dt, conv_reduction(&r->d, r->dir));
    check_result all = {0, 0, tol, 0, -1, 1};
    for (int ti = 0; ti < r->ntensors; ti++) {
        const conv_ref_tensor *t = &r->t[ti];
        check_result c = check_compare_at(out[ti], storage, t->idx, t->gather, t->val, t->n, tol);
        all.max_abs_err = fmax(all.max_abs_err, c.max_abs_err);
        all.rel_err = fmax(all.rel_err, c.rel_err);
        all.nonfinite += c.nonfinite;
        if (!c.pass && all.pass) {
            char at[64] = "";
            if (c.worst_index >= 0) {
                long w = t->idx[c.worst_index];
                where(t, w, at, sizeof at);
                snprintf(why, whycap, "worst %s = %.7g, reference %.7g", at,
                         (double)dtype_get(storage, out[ti], (size_t)w), t->val[c.worst_index]);
            } else {
                snprintf(why, whycap, "%ld non-finite elements in %s", c.nonfinite, t->name);
            }
            all.pass = 0;
        }
        if (!t->ngroups || !all.pass) continue;
#pragma omp parallel for
        for (int g = 0; g < t->ngroups; g++) {
            double acc = 0;
            const size_t o = (size_t)g * (size_t)t->group;
            for (long i = 0; i < t->group; i++)
                acc += (double)t->sign[i] * dtype_get(storage, out[ti], o + (size_t)i);
            t->sum_got[g] = acc;
        }
        check_result s = check_compare_d(t->sum_got, t->sum_ref, (size_t)t->ngroups, tol);
        if (!s.pass) {
            all.pass = 0;
            all.nonfinite += s.nonfinite;
            if (s.nonfinite)
                snprintf(why, whycap, "checksum of %s: non-finite (NaN/Inf in %s)", t->name, t->name);
            else
                snprintf(why, whycap, "checksum of %s %s %ld fails (rel err %.3g): an element outside "
                         "the sampled ones is wrong", t->name,
                         r->dir == CONV_BWD_FILTER ? "filter" : "plane", s.worst_index, s.rel_err);
        }
    }
    return all;
}

void conv_ref_free(conv_ref *r)
{
    for (int ti = 0; ti < 2; ti++) {
        conv_ref_tensor *t = &r->t[ti];
        free(t->idx);
        free(t->val);
        free(t->gather);
        free(t->sign);
        free(t->sum_ref);
        free(t->sum_got);
    }
    memset(r, 0, sizeof *r);
}

double conv_ref_bytes(const conv_dims *d, conv_dir dir)
{
    conv_ref r;
    memset(&r, 0, sizeof r);
    r.d = *d;
    r.dir = dir;
    shapes(&r);
    int sampled = conv_ref_sampled(d);
    double bytes = 0;
    for (int ti = 0; ti < r.ntensors; ti++) {
        conv_ref_tensor *t = &r.t[ti];
        int samp = sampled && ti == 0;
        int bh = dir == CONV_BWD_FILTER ? t->Hs : d->R, bw = dir == CONV_BWD_FILTER ? t->Ws : d->S;
        long n = select_elems(t, samp, bh, bw, seed_of(d, dir), NULL);
        bytes += 20.0 * (n > 0 ? n : 0) + t->Hs + t->Ws;   /* idx, val, gather; line marks */
        if (samp) {
            double tmp = dir == CONV_FWD ? (double)d->N * d->C * d->R * d->S
                         : dir == CONV_BWD_DATA ? (double)d->N * d->K * d->R * d->S
                                                : (double)d->N * d->P * d->Q;
            bytes += 4.0 * t->group + 16.0 * t->ngroups + 8 * tmp;
        }
    }
    return bytes;
}
