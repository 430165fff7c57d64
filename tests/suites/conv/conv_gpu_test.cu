/* tests/suites/conv/conv_gpu_test.cu - suites/conv/conv_gpu.c (the conv suite's
 * GPU half) without the runner: the four GPU conv backends, in every
 * direction, run whole (chunk 0 of 1) and split into chunks on their own
 * streams as streams-N does (CHUNK buffers offset by image, dw/db partials
 * summed by reduce), including more chunks than images. Split results must
 * equal the whole run bit for bit (fwd, bwd-data: each element is the same
 * sum) or within the fp32 tolerance (bwd-filter: the partials change the
 * order of the sum). Correctness of the whole run itself is
 * test_conv_kernels's job.
 *
 * conv_problem_dims and conv_chunk_images belong to the host half
 * (suites/conv/conv.c); this program defines its own, an even split of the
 * batch, so that the GPU half is tested before and apart from it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#include "check.h"
#include "errmsg.h"
#include "conv/conv.h"
#include "conv_cuda.h"
#include "testutil.h"
#include "cuda_ok.h"

/* The GPU conv rows as suites/registry.c has them (name, op, ops table); the
 * registry itself is not linked, so that this program never meets the host
 * half's definitions of the two helpers below. */
static const backend_def ROWS[] = {
    {.name = "cuda-direct", .op = "conv", .dev = DEV_GPU, .dtypes = DTYPE_BIT(DTYPE_FP32), .fn = NULL, .fn_dt = NULL, .needs = NEEDS_GPU, .flags = 0, .default_max_flops = 0, .about = "", .ops = &CONV_CUDA_DIRECT, .dt_skip = NULL, .dt_path = NULL, .caveat = NULL},
    {.name = "cuda-im2col", .op = "conv", .dev = DEV_GPU, .dtypes = DTYPE_BIT(DTYPE_FP32), .fn = NULL, .fn_dt = NULL, .needs = NEEDS_GPU, .flags = 0, .default_max_flops = 0, .about = "", .ops = &CONV_CUDA_IM2COL, .dt_skip = NULL, .dt_path = NULL, .caveat = NULL},
    {.name = "cuda-implicit", .op = "conv", .dev = DEV_GPU, .dtypes = DTYPE_BIT(DTYPE_FP32), .fn = NULL, .fn_dt = NULL, .needs = NEEDS_GPU, .flags = 0, .default_max_flops = 0, .about = "", .ops = &CONV_CUDA_IMPLICIT, .dt_skip = NULL, .dt_path = NULL, .caveat = NULL},
    {.name = "cudnn", .op = "conv", .dev = DEV_GPU, .dtypes = DTYPE_BIT(DTYPE_FP32), .fn = NULL, .fn_dt = NULL, .needs = NEEDS_GPU, .flags = 0, .default_max_flops = 0, .about = "", .ops = &CONV_CUDNN, .dt_skip = NULL, .dt_path = NULL, .caveat = NULL},
    {.name = NULL, .op = NULL, .dev = DEV_CPU, .dtypes = DTYPE_BIT(DTYPE_FP32), .fn = NULL, .fn_dt = NULL, .needs = 0, .flags = 0, .default_max_flops = 0, .about = NULL, .ops = NULL, .dt_skip = NULL, .dt_path = NULL, .caveat = NULL}};

/* ---- the host half's two helpers, as this test assumes them ---- */
extern "C" conv_dims conv_problem_dims(const problem *p)
{
    conv_dims d;
    d.N = (int)p->dim[CONV_DIM_N]; d.C = (int)p->dim[CONV_DIM_C];
    d.H = (int)p->dim[CONV_DIM_H]; d.W = (int)p->dim[CONV_DIM_W];
    d.K = (int)p->dim[CONV_DIM_K]; d.R = (int)p->dim[CONV_DIM_R];
    d.S = (int)p->dim[CONV_DIM_S]; d.sh = (int)p->dim[CONV_DIM_SH];
    d.sw = (int)p->dim[CONV_DIM_SW]; d.ph = (int)p->dim[CONV_DIM_PH];
    d.pw = (int)p->dim[CONV_DIM_PW]; d.P = (int)p->dim[CONV_DIM_P];
    d.Q = (int)p->dim[CONV_DIM_Q];
    return d;
}

extern "C" void conv_chunk_images(const problem *p, int c, int n, int *n0, int *n1)
{
    long long N = p->dim[CONV_DIM_N];
    *n0 = (int)(N * c / n);
    *n1 = (int)(N * (c + 1) / n);
}

static problem make_problem(conv_dir dir)
{
    problem p;
    memset(&p, 0, sizeof p);
    conv_dims d = {5, 6, 9, 11, 7, 3, 3, 2, 1, 1, 1, 0, 0};
    conv_dims_finish(&d);
    const long long v[] = {d.N, d.C, d.H, d.W, d.K, d.R, d.S, d.sh, d.sw, d.ph, d.pw, d.P, d.Q};
    memcpy(p.dim, v, sizeof v);
    p.variant = dir;
    return p;
}

/* Element counts of the direction's buffers, in conv.h's order. */
static int buffers(const problem *p, size_t *count, int *is_out)
{
    conv_dims d = conv_problem_dims(p);
    size_t x = conv_x_elems(&d), w = conv_w_elems(&d), y = conv_y_elems(&d);
    if (p->variant == CONV_FWD) {
        size_t c[] = {x, w, (size_t)d.K, y};
        int o[] = {0, 0, 0, 1};
        memcpy(count, c, sizeof c); memcpy(is_out, o, sizeof o);
        return 4;
    }
    if (p->variant == CONV_BWD_DATA) {
        size_t c[] = {y, w, x};
        int o[] = {0, 0, 1};
        memcpy(count, c, sizeof c); memcpy(is_out, o, sizeof o);
        return 3;
    }
    size_t c[] = {x, y, w, (size_t)d.K};
    int o[] = {0, 0, 1, 1};
    memcpy(count, c, sizeof c); memcpy(is_out, o, sizeof o);
    return 4;
}

/* Runs backend b on p in n chunks (each on its own stream); host copies of the outputs. */
static void run_split(const backend_def *b, const problem *p, int n, float **out)
{
    size_t count[4];
    int is_out[4], nb = buffers(p, count, is_out);
    void *dev[4] = {0}, *part[4] = {0}, *args[4];
    cudaStream_t s[8];
    for (int i = 0; i < nb; i++) {
        CUDA_OK(cudaMalloc(&dev[i], count[i] * 4));
        if (is_out[i]) {
            CUDA_OK(cudaMemset(dev[i], 0xFF, count[i] * 4));
        } else {
            float *h = (float *)malloc(count[i] * 4);
            rng_fill_uniform(h, count[i], 100 + i);
            CUDA_OK(cudaMemcpy(dev[i], h, count[i] * 4, cudaMemcpyHostToDevice));
            free(h);
        }
        if (p->variant == CONV_BWD_FILTER && is_out[i]) {
            CUDA_OK(cudaMalloc(&part[i], count[i] * 4 * n));
            CUDA_OK(cudaMemset(part[i], 0xFF, count[i] * 4 * n));
        }
    }
    CUDA_OK(cudaDeviceSynchronize());
    EXPECT(SUITE_CONV_GPU.setup(b, p, dev, NULL) == 0, "%s setup: %s", b->name, err_get());
    /* the workspace the runner would allocate: what the GPU half asks for this split */
    void *ws = NULL;
    unsigned long long ws_bytes = SUITE_CONV_GPU.workspace(b, p, n);
    if (ws_bytes) CUDA_OK(cudaMalloc(&ws, ws_bytes));
    for (int c = 0; c < n; c++) {
        CUDA_OK(cudaStreamCreateWithFlags(&s[c], cudaStreamNonBlocking));
        for (int i = 0; i < nb; i++) args[i] = part[i] ? (char *)part[i] + c * count[i] * 4 : dev[i];
        EXPECT(SUITE_CONV_GPU.compute(b, p, c, n, args, ws, (void *)s[c]) == 0,
               "%s chunk %d of %d: %s", b->name, c, n, err_get());
    }
    for (int c = 0; c < n; c++) {
        CUDA_OK(cudaStreamSynchronize(s[c]));
        CUDA_OK(cudaStreamDestroy(s[c]));
    }
    for (int i = 0; i < nb; i++)
        if (part[i]) {
            EXPECT(SUITE_CONV_GPU.reduce(p, i, dev[i], part[i], n, NULL) == 0, "%s reduce: %s",
                   b->name, err_get());
            CUDA_OK(cudaDeviceSynchronize());
        }
    CUDA_OK(cudaFree(ws));
    for (int i = 0; i < nb; i++) {
        out[i] = NULL;
        if (is_out[i]) {
            out[i] = (float *)malloc(count[i] * 4);
            CUDA_OK(cudaMemcpy(out[i], dev[i], count[i] * 4, cudaMemcpyDeviceToHost));
        }
        cudaFree(dev[i]);
        cudaFree(part[i]);
    }
}

int main(void)
{
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1) return 77;
    for (int bi = 0; ROWS[bi].name; bi++) {
        const backend_def *b = &ROWS[bi];
        for (int dir = 0; dir < CONV_NDIRS; dir++) {
            problem p = make_problem((conv_dir)dir);
            conv_dims d = conv_problem_dims(&p);
            size_t count[4];
            int is_out[4], nb = buffers(&p, count, is_out);
            float *whole[4], *split[4];
            run_split(b, &p, 1, whole);
            const int splits[] = {3, 7}; /* 7 > N = 5: empty chunks */
            for (int k = 0; k < 2; k++) {
                run_split(b, &p, splits[k], split);
                for (int i = 0; i < nb; i++) {
                    if (!is_out[i]) continue;
                    if (dir != CONV_BWD_FILTER) {
                        EXPECT(memcmp(whole[i], split[i], count[i] * 4) == 0,
                               "%s dir %d in %d chunks differs from the whole run", b->name, dir,
                               splits[k]);
                    } else {
                        double *ref = (double *)malloc(count[i] * sizeof(double));
                        for (size_t j = 0; j < count[i]; j++) ref[j] = whole[i][j];
                        check_result r = check_compare(split[i], ref, count[i],
                                                       check_tolerance(DTYPE_FP32, conv_reduction(&d, CONV_BWD_FILTER)));
                        EXPECT(r.pass, "%s bwd-filter buffer %d in %d chunks: rel %g, %ld NaN",
                               b->name, i, splits[k], r.rel_err, r.nonfinite);
                        free(ref);
                    }
                    free(split[i]);
                }
            }
            for (int i = 0; i < nb; i++) free(whole[i]);
        }
    }
    conv_cudnn_release();
    TEST_END();
}
