/* cpu/train_seq_adamw.c - the AdamW update (cpu/train_seq.h; the GPU's is kernels/train_seq_adamw.cu;
 * shared set-up and the measurements: cpu/train_seq_impl.h). */
#include "train_seq_impl.h"
#include "omp_team.h"

/* p, m, v over n elements, the scalars folded by the caller. */
SEQ_CLONES static void adamw_span(long n, float *p, const float *g, float *m, float *v,
                                  float b1, float b2, float c1, float c2, float decay, float a,
                                  float e)
{
#pragma omp simd
    for (long i = 0; i < n; i++) {
        const float gi = g[i];
        const float mi = b1 * m[i] + c1 * gi, vi = b2 * v[i] + c2 * gi * gi;
        m[i] = mi;
        v[i] = vi;
        p[i] = p[i] * decay - a * mi / (sqrtf(vi) + e);
    }
}

int train_seq_adamw(long n, float *p, const float *g, float *m, float *v, float *t, float lr,
                    float b1, float b2, float eps, float wd, void *stream)
{
    (void)stream;
    if (train_adamw_args(WHO, n, *t, b1, b2)) return 1;
    const double step = (double)*t + 1.0;
    *t = (float)step;
    const double bc2_sqrt = sqrt(1.0 - pow(b2, step));
    const float decay = (float)(1.0 - (double)lr * wd);
    const float c1 = (float)(1.0 - b1), c2 = (float)(1.0 - b2);
    const float a = (float)(lr / (1.0 - pow(b1, step)) * bc2_sqrt);
    const float e = (float)(eps * bc2_sqrt);
    atomic_int arrived = 0;
#pragma omp parallel if (parallel : n >= PAR_MIN)
    {
#pragma omp for schedule(static) nowait
        for (long i = 0; i < n; i += SPAN)
            adamw_span(min_l(SPAN, n - i), p + i, g + i, m + i, v + i, b1, b2, c1, c2, decay, a, e);
        omp_team_end(&arrived);
    }
    return 0;
}
