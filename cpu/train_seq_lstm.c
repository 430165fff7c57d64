/* cpu/train_seq_lstm.c - the LSTM cell's pointwise part and its backward (cpu/train_seq.h; the GPU's is kernels/train_seq_lstm.cu;
 * shared set-up and the measurements: cpu/train_seq_impl.h). */
#include "train_seq_impl.h"
#include "omp_team.h"

/* One sequence's H units (gates may be pre: each unit's four inputs are read
 * before its four gates are written). has_cp is a constant at each call, so
 * the loop has no branch (a load under `cp ?` keeps gcc from vectorising). */
__attribute__((always_inline)) static inline void cell_row(int H, const float *pr,
                                                           const float *cp, float *gr, float *c,
                                                           float *h, const int has_cp)
{
#pragma omp simd
    for (int j = 0; j < H; j++) {
        const float i = vm_sigmoid(pr[j]), f = vm_sigmoid(pr[H + j]);
        const float g = vm_tanh(pr[2 * H + j]), o = vm_sigmoid(pr[3 * H + j]);
        const float cc = has_cp ? f * cp[j] + i * g : i * g;
        gr[j] = i;
        gr[H + j] = f;
        gr[2 * H + j] = g;
        gr[3 * H + j] = o;
        c[j] = cc;
        h[j] = o * vm_tanh(cc);
    }
}

SEQ_CLONES static void cell_rows(int r0, int r1, int H, const float *pre, const float *c_prev,
                                 float *gates, float *c, float *h)
{
    for (int r = r0; r < r1; r++) {
        const long o = (long)r * H;
        if (c_prev) cell_row(H, pre + 4 * o, c_prev + o, gates + 4 * o, c + o, h + o, 1);
        else cell_row(H, pre + 4 * o, NULL, gates + 4 * o, c + o, h + o, 0);
    }
}

int train_seq_lstm_cell(int rows, int H, const float *pre, const float *c_prev, float *gates,
                        float *c, float *h, void *stream)
{
    (void)stream;
    if (train_lstm_args(WHO, "lstm_cell", rows, H)) return 1;
    if (H == 0) return 0;
    const int rb = SPAN / 4 / H > 0 ? SPAN / 4 / H : 1;
    atomic_int arrived = 0;
#pragma omp parallel if (parallel : (long)rows * H >= PAR_MIN_MATH)
    {
#pragma omp for schedule(static) nowait
        for (int r0 = 0; r0 < rows; r0 += rb)
            cell_rows(r0, (int)min_l(r0 + rb, rows), H, pre, c_prev, gates, c, h);
        omp_team_end(&arrived);
    }
    return 0;
}

/* One sequence's H units of the backward (dc_prev may be dc: dc[j] is read
 * before dc_prev[j] is written); has_dc, has_cp constant at each call. */
__attribute__((always_inline)) static inline void cell_bwd_row(
    int H, const float *dh, const float *dc, const float *gr, const float *cp, const float *c,
    float *dr, float *dcp, const int has_dc, const int has_cp)
{
#pragma omp simd
    for (int j = 0; j < H; j++) {
        const float i = gr[j], f = gr[H + j], g = gr[2 * H + j], o = gr[3 * H + j];
        const float tc = vm_tanh(c[j]);
        const float dht = dh[j] * o * (1.0f - tc * tc);
        const float dct = has_dc ? dc[j] + dht : dht;
        dr[j] = dct * g * i * (1.0f - i);
        dr[H + j] = has_cp ? dct * cp[j] * f * (1.0f - f) : 0.0f;
        dr[2 * H + j] = dct * i * (1.0f - g * g);
        dr[3 * H + j] = dh[j] * tc * o * (1.0f - o);
        if (has_cp) dcp[j] = dct * f;
    }
}

SEQ_CLONES static void cell_bwd_rows(int r0, int r1, int H, const float *dh, const float *dc,
                                     const float *gates, const float *c_prev, const float *c,
                                     float *dpre, float *dc_prev)
{
    for (int r = r0; r < r1; r++) {
        const long o = (long)r * H;
        const float *g = gates + 4 * o;
        float *d = dpre + 4 * o;
        if (dc && c_prev) cell_bwd_row(H, dh + o, dc + o, g, c_prev + o, c + o, d, dc_prev + o, 1, 1);
        else if (c_prev) cell_bwd_row(H, dh + o, NULL, g, c_prev + o, c + o, d, dc_prev + o, 0, 1);
        else if (dc) cell_bwd_row(H, dh + o, dc + o, g, NULL, c + o, d, NULL, 1, 0);
        else cell_bwd_row(H, dh + o, NULL, g, NULL, c + o, d, NULL, 0, 0);
    }
}

int train_seq_lstm_cell_bwd(int rows, int H, const float *dh, const float *dc,
                            const float *gates, const float *c_prev, const float *c, float *dpre,
                            float *dc_prev, void *stream)
{
    (void)stream;
    if (train_lstm_args(WHO, "lstm_cell_bwd", rows, H)) return 1;
    if (H == 0) return 0;
    const int rb = SPAN / 4 / H > 0 ? SPAN / 4 / H : 1;
    atomic_int arrived = 0;
#pragma omp parallel if (parallel : (long)rows * H >= PAR_MIN_MATH)
    {
#pragma omp for schedule(static) nowait
        for (int r0 = 0; r0 < rows; r0 += rb)
            cell_bwd_rows(r0, (int)min_l(r0 + rb, rows), H, dh, dc, gates, c_prev, c, dpre,
                          dc_prev);
        omp_team_end(&arrived);
    }
    return 0;
}
