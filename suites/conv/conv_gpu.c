/* suites/conv/conv_gpu.c - the GPU half of conv: a backend's conv_ops table
 * (kernels/conv_cuda.h) on chunk c of n, the images conv_chunk_images gives
 * (streams-N splits the batch; other modes run the one chunk of 1).
 * Compiled against the CUDA toolkit and against emu/ (C that is also C++).
 *
 * Buffers (suites/conv/conv.h): CHUNK buffers arrive as the whole buffer's
 * base and are offset here by the chunk's first image; REDUCE buffers (dw, db)
 * arrive as chunk c's own partial, summed by reduce() with reduce_sum_cuda.
 * A chunk without images (more chunks than images) computes nothing, but
 * zeroes its dw/db partials so the sum stays right.
 *
 * Workspace: a backend's workspace depends on the backend and on the chunk's
 * dims (conv_ops.workspace), and chunks on different streams run at once, so
 * each needs its own: conv_gpu_workspace tells the runner the total for a
 * split into n chunks (chunk c's region starts after those of chunks 0..c-1,
 * each rounded up to 256 bytes); the runner allocates it, hands it to every
 * compute and counts it in peak_dev_mb.
 */
#include "conv.h"
#include "../../kernels/conv_cuda.h"
#include "../../kernels/reduce_sum.h"
#include "cuda_check.h"

#define CONV_GPU_WS_ALIGN 256ull

static const conv_ops *ops_of(const backend_def *b) { return (const conv_ops *)b->ops; }

/* The dims of chunk c of n and its first image. */
static conv_dims chunk_dims(const problem *p, int c, int n, int *n0)
{
    conv_dims d = conv_problem_dims(p);
    int n1 = 0;
    conv_chunk_images(p, c, n, n0, &n1);
    d.N = n1 - *n0;
    return d;
}

/* Workspace bytes of chunk c of n, rounded up (0 for an empty chunk). */
static unsigned long long chunk_ws(const backend_def *b, const problem *p, int c, int n)
{
    int n0 = 0;
    conv_dims d = chunk_dims(p, c, n, &n0);
    unsigned long long w;
    if (d.N < 1) return 0;
    if (p->dtype != DTYPE_FP32 && ops_of(b)->workspace_dt)
        w = ops_of(b)->workspace_dt(p->dtype, &d, (conv_dir)p->variant);
    else if (ops_of(b)->workspace)
        w = ops_of(b)->workspace(&d, (conv_dir)p->variant);
    else
        return 0;
    return (w + CONV_GPU_WS_ALIGN - 1) / CONV_GPU_WS_ALIGN * CONV_GPU_WS_ALIGN;
}

/* Where chunk c of n's workspace starts in the case's workspace. */
static unsigned long long chunk_ws_offset(const backend_def *b, const problem *p, int c, int n)
{
    unsigned long long off = 0;
    for (int i = 0; i < c; i++) off += chunk_ws(b, p, i, n);
    return off;
}

/* The workspace of p split into n chunks that run at once (the runner's
 * suite_gpu.workspace). */
static unsigned long long conv_gpu_workspace(const backend_def *b, const problem *p, int n)
{
    if (!ops_of(b)) return 0;
    return chunk_ws_offset(b, p, n, n);
}

/* A build whose table lacks this backend says so before anything runs. */
static int conv_gpu_setup(const backend_def *b, const problem *p, void *const *dev, void *stream)
{
    (void)p, (void)dev, (void)stream;
    if (ops_of(b)) return 0;
    err_set("%s: no conv entry points in this build", b->name);
    return -1;
}

static int conv_gpu_compute(const backend_def *b, const problem *p, int c, int n,
                            void *const *dev, void *ws, void *stream)
{
    const conv_ops *o = ops_of(b);
    int n0 = 0;
    conv_dims d = chunk_dims(p, c, n, &n0);
    const conv_dims whole = conv_problem_dims(p);
    const size_t x_img = (size_t)whole.C * whole.H * whole.W, y_img = (size_t)whole.K * whole.P * whole.Q;
    unsigned long long need = 0;
    void *cws = NULL;
    cudaStream_t s = (cudaStream_t)stream;
    if (!o) {
        err_set("%s: no conv entry points in this build", b->name);
        return -1;
    }
    if (d.N < 1) { /* no images: a zero partial for the reduced outputs */
        if (p->variant == CONV_BWD_FILTER) {
            const size_t es = dtype_size(p->dtype);
            CUDA_TRY(cudaMemsetAsync(dev[CONV_BWDF_DW], 0, conv_w_elems(&whole) * es, s));
            CUDA_TRY(cudaMemsetAsync(dev[CONV_BWDF_DB], 0, (size_t)whole.K * es, s));
        }
        return 0;
    }
    need = chunk_ws(b, p, c, n);
    if (need && !ws) {
        err_set("%s: chunk %d of %d needs %llu bytes of workspace and has none", b->name, c, n,
                need);
        return -1;
    }
    if (need) cws = (char *)ws + chunk_ws_offset(b, p, c, n);
    if (p->dtype != DTYPE_FP32) {
        const dtype_t dt = p->dtype;
        const size_t es = dtype_size(dt);
        const char *const *cd = (const char *const *)dev;
        if (!o->fwd_dt) {
            err_set("%s: no %s entry points", b->name, dtype_name(dt));
            return -1;
        }
        switch ((conv_dir)p->variant) {
        case CONV_FWD:
            return o->fwd_dt(dt, &d, cd[CONV_FWD_X] + n0 * x_img * es, dev[CONV_FWD_W],
                             dev[CONV_FWD_B], (char *)dev[CONV_FWD_Y] + n0 * y_img * es, cws,
                             stream);
        case CONV_BWD_DATA:
            return o->bwd_data_dt(dt, &d, cd[CONV_BWDD_DY] + n0 * y_img * es, dev[CONV_BWDD_W],
                                  (char *)dev[CONV_BWDD_DX] + n0 * x_img * es, cws, stream);
        case CONV_BWD_FILTER:
            return o->bwd_filter_dt(dt, &d, cd[CONV_BWDF_X] + n0 * x_img * es,
                                    cd[CONV_BWDF_DY] + n0 * y_img * es, dev[CONV_BWDF_DW],
                                    dev[CONV_BWDF_DB], cws, stream);
        default:
            break;
        }
    }
    switch ((conv_dir)p->variant) {
    case CONV_FWD:
        return o->fwd(&d, (const float *)dev[CONV_FWD_X] + n0 * x_img,
                      (const float *)dev[CONV_FWD_W], (const float *)dev[CONV_FWD_B],
                      (float *)dev[CONV_FWD_Y] + n0 * y_img, cws, stream);
    case CONV_BWD_DATA:
        return o->bwd_data(&d, (const float *)dev[CONV_BWDD_DY] + n0 * y_img,
                           (const float *)dev[CONV_BWDD_W], (float *)dev[CONV_BWDD_DX] + n0 * x_img,
                           cws, stream);
    case CONV_BWD_FILTER:
        return o->bwd_filter(&d, (const float *)dev[CONV_BWDF_X] + n0 * x_img,
                             (const float *)dev[CONV_BWDF_DY] + n0 * y_img,
                             (float *)dev[CONV_BWDF_DW], (float *)dev[CONV_BWDF_DB], cws, stream);
    default:
        break;
    }
    err_set("conv: unknown direction %d", p->variant);
    return -1;
fail:
    return -1;
}

/* dw and db partials: n arrays of the buffer's elements, summed in order. */
static int conv_gpu_reduce(const problem *p, int buf, void *dst, const void *partials, int n,
                           void *stream)
{
    const conv_dims d = conv_problem_dims(p);
    long long count = buf == CONV_BWDF_DW ? conv_w_elems(&d) : buf == CONV_BWDF_DB ? d.K : -1;
    if (p->variant != CONV_BWD_FILTER || count < 0) {
        err_set("conv: buffer %d of direction %d is not reduced", buf, p->variant);
        return -1;
    }
    if (p->dtype != DTYPE_FP32 && p->dtype != DTYPE_TF32) {
        /* summing rounded partials would round each output twice */
        err_set("conv: bwd-filter in %s is not split into chunks (its partials would be "
                "rounded twice)", dtype_name(p->dtype));
        return -1;
    }
    return reduce_sum_cuda((float *)dst, (const float *)partials, n, count, stream);
}

const suite_gpu SUITE_CONV_GPU = {
    .compute = conv_gpu_compute,
    .reduce = conv_gpu_reduce,
    .setup = conv_gpu_setup,
    .teardown = NULL,
    .open_mode = NULL,
    .workspace = conv_gpu_workspace,
    .dp_open = NULL,
};
