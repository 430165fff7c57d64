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
 * each needs its own. The runner's workspace (case_layout.workspace) is
 * declared by the host half without knowing the backend, so until the runner
 * asks the GPU half for it (a suite_gpu.workspace(b, p, n) callback: see the
 * report of this change), setup() allocates it here: for every split n up to
 * CONV_GPU_MAX_CHUNKS, chunk c's region starts after the regions of chunks
 * 0..c-1 (each rounded up to 256 bytes), and the largest total is allocated
 * once per case; teardown() frees it. One case at a time (bench runs cases one
 * after another on one host thread). Not counted in peak_dev_mb meanwhile.
 */
#include "conv.h"
#include "../../kernels/conv_cuda.h"
#include "../../kernels/reduce_sum.h"
#include "cuda_check.h"

#define CONV_GPU_MAX_CHUNKS 8   /* gpu_modes.c's MAX_STREAMS */
#define CONV_GPU_WS_ALIGN 256ull

static void *g_ws;                  /* this case's workspace (setup/teardown) */
static unsigned long long g_ws_bytes;

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
    if (d.N < 1 || !ops_of(b)->workspace) return 0;
    w = ops_of(b)->workspace(&d, (conv_dir)p->variant);
    return (w + CONV_GPU_WS_ALIGN - 1) / CONV_GPU_WS_ALIGN * CONV_GPU_WS_ALIGN;
}

/* Where chunk c of n's workspace starts in the case's workspace. */
static unsigned long long chunk_ws_offset(const backend_def *b, const problem *p, int c, int n)
{
    unsigned long long off = 0;
    for (int i = 0; i < c; i++) off += chunk_ws(b, p, i, n);
    return off;
}

/* The workspace every split of p needs at most (the callback the runner lacks). */
static unsigned long long conv_gpu_workspace(const backend_def *b, const problem *p)
{
    unsigned long long most = 0;
    for (int n = 1; n <= CONV_GPU_MAX_CHUNKS; n++) {
        unsigned long long total = chunk_ws_offset(b, p, n, n);
        if (total > most) most = total;
    }
    return most;
}

static int conv_gpu_setup(const backend_def *b, const problem *p, void *const *dev, void *stream)
{
    unsigned long long need = 0;
    (void)dev;
    (void)stream;
    err_clear();
    if (!ops_of(b)) {
        err_set("%s: no conv entry points in this build", b->name);
        return -1;
    }
    need = conv_gpu_workspace(b, p);
    if (*err_get()) return -1; /* a workspace query failed (cuDNN): say why */
    if (need) {
        CUDA_TRY(cudaMalloc(&g_ws, need));
        g_ws_bytes = need;
    }
    return 0;
fail:
    g_ws = NULL;
    g_ws_bytes = 0;
    return -1;
}

static void conv_gpu_teardown(const backend_def *b, const problem *p)
{
    (void)b;
    (void)p;
    cudaFree(g_ws);
    g_ws = NULL;
    g_ws_bytes = 0;
}

static int conv_gpu_compute(const backend_def *b, const problem *p, int c, int n,
                            void *const *dev, void *ws, void *stream)
{
    const conv_ops *o = ops_of(b);
    int n0 = 0;
    conv_dims d = chunk_dims(p, c, n, &n0);
    const conv_dims whole = conv_problem_dims(p);
    const size_t x_img = (size_t)whole.C * whole.H * whole.W, y_img = (size_t)whole.K * whole.P * whole.Q;
    unsigned long long need = 0, off = 0;
    void *cws = NULL;
    cudaStream_t s = (cudaStream_t)stream;
    (void)ws; /* the runner's is the backend-blind one: see the file comment */
    if (!o) {
        err_set("%s: no conv entry points in this build", b->name);
        return -1;
    }
    if (d.N < 1) { /* no images: a zero partial for the reduced outputs */
        if (p->variant == CONV_BWD_FILTER) {
            CUDA_TRY(cudaMemsetAsync(dev[CONV_BWDF_DW], 0, conv_w_elems(&whole) * sizeof(float), s));
            CUDA_TRY(cudaMemsetAsync(dev[CONV_BWDF_DB], 0, (size_t)whole.K * sizeof(float), s));
        }
        return 0;
    }
    need = chunk_ws(b, p, c, n);
    off = chunk_ws_offset(b, p, c, n);
    if (off + need > g_ws_bytes) {
        err_set("%s: chunk %d of %d needs %llu bytes of workspace at %llu, the case has %llu "
                "(setup not run?)", b->name, c, n, need, off, g_ws_bytes);
        return -1;
    }
    if (need) cws = (char *)g_ws + off;
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
    return reduce_sum_cuda((float *)dst, (const float *)partials, n, count, stream);
}

const suite_gpu SUITE_CONV_GPU = {conv_gpu_compute, conv_gpu_reduce, conv_gpu_setup,
                                  conv_gpu_teardown, NULL};
