/* tests/test_gpu_modes.c - the GPU layer under the emulator: every GPU GEMM
 * backend in every execution mode agrees with the CPU reference at awkward
 * shapes; streams-N results equal resident results bit for bit; a wrong
 * reference is caught; every transfer mode round-trips exactly; the probe
 * reports the emulator. Built only in the emulated flavour (C compiled as C++). */
#include "gpu.h"
#include "gpu_cases.h"
#include "gpu_modes.h"
#include "gemm_cpu.h"
#include "../kernels/gemm_cuda.h"
#include "testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct shape3 { int M, N, K; } shape3;
static const shape3 SHAPES[] = {{7, 13, 5}, {33, 65, 17}, {16, 8, 64}};

static measure_cfg one_run(void)
{
    measure_cfg c = measure_cfg_default();
    c.warmup = 0;
    c.min_reps = c.max_reps = 1;
    c.min_time_s = 0;
    return c;
}

/* ---- streams-N == resident: capture the output through the check hook ---- */
typedef struct capture {
    const gemm_problem *p;
    float *out;
} capture;

static int cap_chunk(void *ctx, int c, int n, size_t *io, size_t *il, size_t *oo, size_t *ol)
{
    const gemm_problem *p = ((capture *)ctx)->p;
    int r0 = p->M * c / n, r1 = p->M * (c + 1) / n;
    *io = (size_t)r0 * p->K * 4;
    *il = (size_t)(r1 - r0) * p->K * 4;
    *oo = (size_t)r0 * p->N * 4;
    *ol = (size_t)(r1 - r0) * p->N * 4;
    return 0;
}

static int cap_compute(void *ctx, int c, int n, const void *ds, const void *di, void *dout,
                       cudaStream_t s)
{
    const gemm_problem *p = ((capture *)ctx)->p;
    int r0 = p->M * c / n, r1 = p->M * (c + 1) / n;
    return gemm_cuda_tiled(r1 - r0, p->N, p->K, 1.0f, (const float *)di + (size_t)r0 * p->K, p->K,
                           (const float *)ds, p->N, 0.0f, (float *)dout + (size_t)r0 * p->N, p->N, s);
}

static check_result cap_check(void *ctx, void *host_out, char *why, size_t whycap)
{
    capture *c = (capture *)ctx;
    memcpy(c->out, host_out, sizeof(float) * c->p->M * c->p->N);
    return gemm_ref_check(c->p->ref, (const float *)host_out, DTYPE_FP32, why, whycap);
}

int main(void)
{
    gpu_status st;
    gpu_probe(0, &st);
    EXPECT(st.usable && st.emulated, "emulator probe: usable %d emulated %d (%s)", st.usable,
           st.emulated, st.why);
    EXPECT(strstr(st.name, "emulat") != NULL, "device name says emulated: %s", st.name);
    measure_cfg cfg = one_run();

    for (size_t si = 0; si < sizeof SHAPES / sizeof *SHAPES; si++) {
        const shape3 *s = &SHAPES[si];
        float *A = (float *)malloc(sizeof(float) * s->M * s->K);
        float *B = (float *)malloc(sizeof(float) * s->K * s->N);
        rng_fill_uniform(A, (size_t)s->M * s->K, 100 + si);
        rng_fill_uniform(B, (size_t)s->K * s->N, 200 + si);
        gemm_ref ref;
        EXPECT(gemm_ref_build(&ref, s->M, s->N, s->K, 1.0f, A, B, 0.0f, NULL) == 0, "ref");
        gemm_problem p = {s->M, s->N, s->K, A, B, &ref};
        for (int b = 0; GPU_GEMM_DESCS[b].name; b++)
            for (int m = 0; GPU_MODES[m].name; m++) {
                result_row row;
                result_row_init(&row);
                int rc = gpu_gemm_case(b, GPU_MODES[m].name, &p, &cfg, &row);
                int expect_skip = GPU_MODES[m].kind == GPU_STREAMS && s->M < GPU_MODES[m].nstreams;
                EXPECT(rc == 0 && strcmp(row.check, expect_skip ? "skip" : "pass") == 0,
                       "%s %s %dx%dx%d: rc %d check %s note %s", GPU_GEMM_DESCS[b].name,
                       GPU_MODES[m].name, s->M, s->N, s->K, rc, row.check, row.note);
                if (!expect_skip) {
                    EXPECT(row.reps == 1 && row.median_ms >= 0, "timed once: %d", row.reps);
                    EXPECT(!isnan(row.peak_dev_mb), "peak device memory recorded");
                }
                if (GPU_MODES[m].kind != GPU_RESIDENT && !expect_skip)
                    EXPECT(!isnan(row.h2d_ms) && !isnan(row.d2h_ms), "%s split", GPU_MODES[m].name);
                if ((GPU_MODES[m].kind == GPU_SYNC_PINNED || GPU_MODES[m].kind == GPU_STREAMS) &&
                    !expect_skip)
                    EXPECT(!isnan(row.alloc_ms), "%s pinned allocation timed apart", GPU_MODES[m].name);
                free(row.samples);
            }

        /* a wrong reference must be caught by the same path */
        ref.val[ref.n / 2] += 1.0;
        result_row row;
        result_row_init(&row);
        gpu_gemm_case(2, "async-pinned", &p, &cfg, &row);
        EXPECT(strcmp(row.check, "fail") == 0, "planted wrong reference fails: %s", row.check);
        free(row.samples);
        ref.val[ref.n / 2] -= 1.0;

        /* streams-N equals resident, bit for bit */
        float *res = (float *)malloc(sizeof(float) * s->M * s->N);
        float *got = (float *)malloc(sizeof(float) * s->M * s->N);
        capture cap = {&p, res};
        gpu_work w;
        memset(&w, 0, sizeof w);
        w.ctx = &cap;
        w.shared_in = B;
        w.shared_bytes = sizeof(float) * s->K * s->N;
        w.in = A;
        w.in_bytes = sizeof(float) * s->M * s->K;
        w.out_bytes = sizeof(float) * s->M * s->N;
        w.chunk = cap_chunk;
        w.compute = cap_compute;
        w.check = cap_check;
        result_row_init(&row);
        EXPECT(gpu_mode_run(gpu_mode_find("resident"), &w, &cfg, &row) == 0, "resident");
        free(row.samples);
        cap.out = got;
        const char *streams[] = {"streams-2", "streams-4", "streams-8"};
        for (int k = 0; k < 3; k++) {
            if (s->M < gpu_mode_find(streams[k])->nstreams) continue;
            memset(got, 0, sizeof(float) * s->M * s->N);
            result_row_init(&row);
            EXPECT(gpu_mode_run(gpu_mode_find(streams[k]), &w, &cfg, &row) == 0, "%s", streams[k]);
            EXPECT(memcmp(got, res, sizeof(float) * s->M * s->N) == 0,
                   "%s result equals resident at %dx%dx%d", streams[k], s->M, s->N, s->K);
            EXPECT(row.overlap_eff > 0, "%s overlap efficiency recorded", streams[k]);
            free(row.samples);
        }
        free(res);
        free(got);
        gemm_ref_free(&ref);
        free(A);
        free(B);
    }

    /* transfers: every mode, verified byte-exact on its first copy */
    for (int m = 0; GPU_TRANSFER_MODES[m]; m++) {
        size_t sizes[] = {4096, 1 << 20};
        for (int k = 0; k < 2; k++) {
            result_row row;
            result_row_init(&row);
            int rc = gpu_transfer_case(GPU_TRANSFER_MODES[m], sizes[k], &cfg, &row);
            EXPECT(rc == 0 && strcmp(row.check, "pass") == 0 && row.gbps > 0,
                   "transfer %s %zu: rc %d %s %s", GPU_TRANSFER_MODES[m], sizes[k], rc, row.check,
                   row.note);
            EXPECT(row.bytes == (double)sizes[k], "bytes column");
            free(row.samples);
        }
    }
    gpu_cases_release();
    TEST_END();
}
