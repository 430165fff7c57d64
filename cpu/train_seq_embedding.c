/* cpu/train_seq_embedding.c - embedding lookup and its backward (cpu/train_seq.h; the GPU's is kernels/train_seq_embedding.cu;
 * shared set-up and the measurements: cpu/train_seq_impl.h). */
#include "train_seq_impl.h"
#include "omp_team.h"

int train_seq_embedding(int rows, int dim, const int *ids, int vocab, const float *table,
                        float *y, int accumulate, void *stream)
{
    (void)stream;
    if (train_embedding_args(WHO, "embedding", rows, dim, ids, vocab)) return 1;
    atomic_int arrived = 0;
#pragma omp parallel if (parallel : (long)rows * dim >= PAR_MIN)
    {
#pragma omp for schedule(static) nowait
        for (int r = 0; r < rows; r++) {
            const float *tr = table + (long)(ids ? ids[r] : r % vocab) * dim;
            float *yr = y + (long)r * dim;
            if (accumulate) {
#pragma omp simd
                for (int c = 0; c < dim; c++) yr[c] += tr[c];
            } else {
                memcpy(yr, tr, sizeof(float) * (size_t)dim);
            }
        }
        omp_team_end(&arrived);
    }
    return 0;
}

/* dtable[:, c0..c1) = 0, then every row of dy added into its id's row. */
static void embed_cols(int rows, int dim, const int *ids, int vocab, const float *dy,
                       float *dtable, int c0, int c1)
{
    for (int v = 0; v < vocab; v++) memset(dtable + (long)v * dim + c0, 0, sizeof(float) * (c1 - c0));
    for (int r = 0; r < rows; r++) {
        float *dt = dtable + (long)(ids ? ids[r] : r % vocab) * dim;
        const float *g = dy + (long)r * dim;
#pragma omp simd
        for (int c = c0; c < c1; c++) dt[c] += g[c];
    }
}

int train_seq_embedding_bwd(int rows, int dim, const int *ids, int vocab, const float *dy,
                            float *dtable, void *stream)
{
    (void)stream;
    if (train_embedding_args(WHO, "embedding_bwd", rows, dim, ids, vocab)) return 1;
    const int nt = omp_get_max_threads();
    if (nt < 2 || dim < 32 * nt || (long)rows * dim < 4 * PAR_MIN) {
        embed_cols(rows, dim, ids, vocab, dy, dtable, 0, dim);
        return 0;
    }
    atomic_int arrived = 0;
#pragma omp parallel num_threads(nt)
    {
        const int t = omp_get_thread_num(), n = omp_get_num_threads();
        /* column blocks of whole 16-float lines, so no two threads share one */
        const int lines = (dim + 15) / 16;
        int c0 = (int)((long)lines * t / n) * 16, c1 = (int)((long)lines * (t + 1) / n) * 16;
        if (c1 > dim) c1 = dim;
        if (c0 < c1) embed_cols(rows, dim, ids, vocab, dy, dtable, c0, c1);
        omp_team_end(&arrived);
    }
    return 0;
}
