/* cpu/train_seq_layernorm.c - layernorm and its backward (cpu/train_seq.h; the GPU's is kernels/train_seq_layernorm.cu;
 * shared set-up and the measurements: cpu/train_seq_impl.h). */
#include "train_seq_impl.h"
#include "omp_team.h"

#define LN_EPS 1e-5f

/* Rows r0..r1 (two passes over each row: the mean, then the variance). */
SEQ_CLONES static void ln_rows(int r0, int r1, int dim, const float *x, const float *w,
                               const float *b, float *y, float *mean, float *rstd)
{
    const float inv_dim = 1.0f / (float)dim;
    for (int r = r0; r < r1; r++) {
        const float *xr = x + (long)r * dim;
        float *yr = y + (long)r * dim;
        float s = 0.0f, q = 0.0f;
#pragma omp simd reduction(+ : s)
        for (int c = 0; c < dim; c++) s += xr[c];
        const float mu = s * inv_dim;
#pragma omp simd reduction(+ : q)
        for (int c = 0; c < dim; c++) q += (xr[c] - mu) * (xr[c] - mu);
        const float rs = 1.0f / sqrtf(q * inv_dim + LN_EPS);
#pragma omp simd
        for (int c = 0; c < dim; c++) yr[c] = (xr[c] - mu) * rs * w[c] + b[c];
        mean[r] = mu;
        rstd[r] = rs;
    }
}

int train_seq_layernorm(int rows, int dim, const float *x, const float *w, const float *b,
                        float *y, float *mean, float *rstd, void *stream)
{
    (void)stream;
    if (train_layernorm_args(WHO, "layernorm", rows, dim)) return 1;
    const int rb = SPAN / dim > 0 ? SPAN / dim : 1;
    atomic_int arrived = 0;
#pragma omp parallel if (parallel : (long)rows * dim >= PAR_MIN)
    {
#pragma omp for schedule(static) nowait
        for (int r0 = 0; r0 < rows; r0 += rb)
            ln_rows(r0, (int)min_l(r0 + rb, rows), dim, x, w, b, y, mean, rstd);
        omp_team_end(&arrived);
    }
    return 0;
}

/* Rows r0..r1: dx, and dw, db += their rows' contributions (dw, db hold
 * this thread's partial sums). */
SEQ_CLONES static void ln_bwd_rows(int r0, int r1, int dim, const float *dy, const float *x, const float *w,
                        const float *mean, const float *rstd, float *dx, float *dw, float *db)
{
    const float inv_dim = 1.0f / (float)dim;
    for (int r = r0; r < r1; r++) {
        const float *xr = x + (long)r * dim, *gr = dy + (long)r * dim;
        float *dr = dx + (long)r * dim;
        const float mu = mean[r], rs = rstd[r];
        float mg = 0.0f, mgx = 0.0f;
#pragma omp simd reduction(+ : mg, mgx)
        for (int c = 0; c < dim; c++) {
            const float xh = (xr[c] - mu) * rs, g = gr[c] * w[c];
            mg += g;
            mgx += g * xh;
            dw[c] += gr[c] * xh;
            db[c] += gr[c];
        }
        mg *= inv_dim;
        mgx *= inv_dim;
#pragma omp simd
        for (int c = 0; c < dim; c++) {
            const float xh = (xr[c] - mu) * rs;
            dr[c] = rs * (gr[c] * w[c] - mg - xh * mgx);
        }
    }
}

int train_seq_layernorm_bwd(int rows, int dim, const float *dy, const float *x, const float *w,
                            const float *mean, const float *rstd, float *dx, float *dw,
                            float *db, void *stream)
{
    (void)stream;
    if (train_layernorm_args(WHO, "layernorm_bwd", rows, dim)) return 1;
    const int nt = omp_get_max_threads();
    memset(dw, 0, sizeof(float) * (size_t)dim);
    memset(db, 0, sizeof(float) * (size_t)dim);
    if (nt < 2 || rows < 2 * nt || (long)rows * dim < PAR_MIN) {
        ln_bwd_rows(0, rows, dim, dy, x, w, mean, rstd, dx, dw, db);
        return 0;
    }
    float *part = calloc((size_t)nt * 2 * dim, sizeof(float));
    if (!part) {
        err_set(WHO " layernorm_bwd: out of memory for %d partial sums of %d columns", nt, dim);
        return 1;
    }
    int used = 1;
    atomic_int arrived = 0;
#pragma omp parallel num_threads(nt)
    {
        const int t = omp_get_thread_num(), n = omp_get_num_threads();
        if (t == 0) used = n;
        float *pw = part + (long)t * 2 * dim;
        ln_bwd_rows((int)((long)rows * t / n), (int)((long)rows * (t + 1) / n), dim, dy, x, w,
                    mean, rstd, dx, pw, pw + dim);
        omp_team_end(&arrived);
    }
    for (int t = 0; t < used; t++) {
        const float *pw = part + (long)t * 2 * dim;
#pragma omp simd
        for (int c = 0; c < dim; c++) {
            dw[c] += pw[c];
            db[c] += pw[dim + c];
        }
    }
    free(part);
    return 0;
}
