/* cpu/train_seq_permute.c - permute: y[a][c][b][d] = x[a][b][c][d] (cpu/train_seq.h; the GPU's is kernels/train_seq_permute.cu;
 * shared set-up and the measurements: cpu/train_seq_impl.h). */
#include "train_seq_impl.h"
#include "omp_team.h"

/* One (a, c) pair: y[a][c][:][:] gathers x[a][b][c][:] over b. */
int train_seq_permute(int A, int B, int C, int D, const float *x, float *y, void *stream)
{
    (void)stream;
    if (train_permute_args(WHO, A, B, C, D)) return 1;
    atomic_int arrived = 0;
#pragma omp parallel if (parallel : (long)A * B * C * D >= PAR_MIN)
    {
#pragma omp for collapse(2) schedule(static) nowait
        for (int a = 0; a < A; a++)
            for (int c = 0; c < C; c++) {
                float *yo = y + ((long)a * C + c) * B * D;
                const float *xi = x + ((long)a * B * C + c) * D;
                for (int b = 0; b < B; b++)
                    memcpy(yo + (long)b * D, xi + (long)b * C * D, sizeof(float) * (size_t)D);
            }
        omp_team_end(&arrived);
    }
    return 0;
}
