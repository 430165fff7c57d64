/* cpu/train_seq_map.c - elementwise maps: add, scale, round, gelu and its backward (cpu/train_seq.h; the GPU's is kernels/train_seq_map.cu;
 * shared set-up and the measurements: cpu/train_seq_impl.h). */
#include "train_seq_impl.h"
#include "omp_team.h"

int train_seq_add(long n, const float *a, const float *b, float *y, void *stream)
{
    (void)stream;
    if (train_count_args(WHO, "add", n)) return 1;
    atomic_int arrived = 0;
#pragma omp parallel if (parallel : n >= PAR_MIN)
    {
#pragma omp for simd schedule(static) nowait
        for (long i = 0; i < n; i++) y[i] = a[i] + b[i];
        omp_team_end(&arrived);
    }
    return 0;
}

int train_seq_scale(long n, float a, float *x, void *stream)
{
    (void)stream;
    if (train_count_args(WHO, "scale", n)) return 1;
    atomic_int arrived = 0;
#pragma omp parallel if (parallel : n >= PAR_MIN)
    {
#pragma omp for simd schedule(static) nowait
        for (long i = 0; i < n; i++) x[i] *= a;
        omp_team_end(&arrived);
    }
    return 0;
}

int train_seq_round(long n, dtype_t dt, const float *x, float *y, void *stream)
{
    (void)stream;
    if (train_round_args(WHO, n, dt)) return 1;
    atomic_int arrived = 0;
#pragma omp parallel if (parallel : n >= PAR_MIN)
    {
#pragma omp for schedule(static) nowait
        for (long i = 0; i < n; i++) y[i] = dtype_round(dt, x[i]);
        omp_team_end(&arrived);
    }
    return 0;
}

#define GELU_K 0.7978845608028654f /* sqrt(2 / pi) */
#define GELU_A 0.044715f

/* gelu(x) = 0.5 x (1 + tanh u) = x sigmoid(2u), u = k (x + a x^3): no
 * cancellation where tanh u is near -1. */
SEQ_CLONES static void gelu_span(long n, const float *x, float *y)
{
#pragma omp simd
    for (long i = 0; i < n; i++) {
        const float xi = x[i];
        y[i] = xi * vm_sigmoid(2.0f * GELU_K * (xi + GELU_A * xi * xi * xi));
    }
}

int train_seq_gelu(long n, const float *x, float *y, void *stream)
{
    (void)stream;
    if (train_count_args(WHO, "gelu", n)) return 1;
    atomic_int arrived = 0;
#pragma omp parallel if (parallel : n >= PAR_MIN_MATH)
    {
#pragma omp for schedule(static) nowait
        for (long i = 0; i < n; i += SPAN) gelu_span(min_l(SPAN, n - i), x + i, y + i);
        omp_team_end(&arrived);
    }
    return 0;
}

/* d/dx x s(2u) = s + x s (1 - s) 2k (1 + 3a x^2), s = sigmoid(2u) (that is
 * 0.5 (1 + tanh u) + 0.5 x (1 - tanh^2 u) k (1 + 3a x^2)). */
SEQ_CLONES static void gelu_bwd_span(long n, const float *x, const float *dy, float *dx)
{
#pragma omp simd
    for (long i = 0; i < n; i++) {
        const float xi = x[i];
        float om;
        const float s = vm_sigmoid2(2.0f * GELU_K * (xi + GELU_A * xi * xi * xi), &om);
        dx[i] = dy[i] * (s + xi * s * om * (2.0f * GELU_K) * (1.0f + 3.0f * GELU_A * xi * xi));
    }
}

int train_seq_gelu_bwd(long n, const float *x, const float *dy, float *dx, void *stream)
{
    (void)stream;
    if (train_count_args(WHO, "gelu_bwd", n)) return 1;
    atomic_int arrived = 0;
#pragma omp parallel if (parallel : n >= PAR_MIN_MATH)
    {
#pragma omp for schedule(static) nowait
        for (long i = 0; i < n; i += SPAN) gelu_bwd_span(min_l(SPAN, n - i), x + i, dy + i, dx + i);
        omp_team_end(&arrived);
    }
    return 0;
}
