/* cpu/conv_onednn.c - cpu-onednn: oneDNN's convolution primitives through its
 * C API (dnnl.h, oneDNN 2.x as Debian's libdnnl-dev 2.6 ships it), the library
 * PyTorch's CPU path uses (conv_cpu.h).
 *
 * Our tensors are plain NCHW / KCRS, as a PyTorch user's are. The primitive is
 * created with format `any`, so oneDNN picks its best kernel and layout
 * (blocked nChw16c / OIhw16i16o on AVX-512); inputs are reordered into that
 * layout and outputs back, inside each call: that is what a user with NCHW
 * tensors pays, so the reorders are timed with the convolution (a reorder to
 * the same layout is skipped).
 *
 * Primitive creation (descriptor, kernel JIT, reorders) is costly, so one plan
 * per direction is kept and reused while the dims and thread count stay the
 * same. The runner's first (checked) run and its warm-up create it; timed
 * repetitions only execute. Plans are freed at exit.
 *
 * Threads: Debian's oneDNN uses OpenMP (libgomp, the runtime we link), and
 * reads omp_get_max_threads() when it executes, so cpu_threads_set (--threads)
 * applies to it. The padding on the high side is derived so that oneDNN's
 * output size equals conv_out_dim's.
 */
#include "conv_cpu.h"
#include "onednn_common.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARGS 4

typedef struct plan_arg {
    int id;                  /* DNNL_ARG_* of the convolution */
    int out;                 /* written by the primitive */
    dnnl_memory_t user;      /* plain layout, our pointer */
    dnnl_memory_t prim;      /* the primitive's layout (== user when the same) */
    dnnl_primitive_t reorder;/* user -> prim (inputs) or prim -> user (outputs); NULL: none */
} plan_arg;

typedef struct plan {
    int valid, threads;
    dtype_t dt;
    conv_dims d;
    dnnl_primitive_t conv;
    int nargs;
    plan_arg a[MAX_ARGS];
} plan;

static plan g_plans[CONV_NDIRS];

static void plan_free(plan *p)
{
    for (int i = 0; i < p->nargs; i++) {
        if (p->a[i].reorder) dnnl_primitive_destroy(p->a[i].reorder);
        if (p->a[i].prim && p->a[i].prim != p->a[i].user) dnnl_memory_destroy(p->a[i].prim);
        if (p->a[i].user) dnnl_memory_destroy(p->a[i].user);
    }
    if (p->conv) dnnl_primitive_destroy(p->conv);
    memset(p, 0, sizeof *p);
}

static void plans_release(void)
{
    for (int i = 0; i < CONV_NDIRS; i++) plan_free(&g_plans[i]);
}

static int engine_ready(void)
{
    static int once;
    if (onednn_ready()) return -1;
    if (!once) atexit(plans_release); /* runs before the engine's release */
    once = 1;
    return 0;
}

/* Adds argument `id` with plain layout `user_md`; the primitive wants
 * `prim_md` (queried from pd). */
static int plan_add(plan *p, int id, int out, const dnnl_memory_desc_t *user_md,
                    const dnnl_memory_desc_t *prim_md)
{
    plan_arg *a = &p->a[p->nargs++];
    dnnl_primitive_desc_t rpd = NULL;
    a->id = id;
    a->out = out;
    DNNL_TRY(dnnl_memory_create(&a->user, user_md, onednn_engine, NULL));
    if (dnnl_memory_desc_equal(user_md, prim_md)) {
        a->prim = a->user;
        return 0;
    }
    DNNL_TRY(dnnl_memory_create(&a->prim, prim_md, onednn_engine, DNNL_MEMORY_ALLOCATE));
    if (out)
        DNNL_TRY(dnnl_reorder_primitive_desc_create(&rpd, prim_md, onednn_engine, user_md, onednn_engine, NULL));
    else
        DNNL_TRY(dnnl_reorder_primitive_desc_create(&rpd, user_md, onednn_engine, prim_md, onednn_engine, NULL));
    DNNL_TRY(dnnl_primitive_create(&a->reorder, rpd));
    dnnl_primitive_desc_destroy(rpd);
    return 0;
fail:
    if (rpd) dnnl_primitive_desc_destroy(rpd);
    return -1;
}

static void set_dims(dnnl_dims_t v, long a, long b, long c, long d)
{
    v[0] = a, v[1] = b, v[2] = c, v[3] = d;
}

/* Creates the plan of direction dir for d at dtype dt (in g_plans[dir]). */
static int plan_build(plan *p, const conv_dims *d, conv_dir dir, dtype_t dt)
{
    const dnnl_data_type_t t = onednn_dt(dt);
    dnnl_memory_desc_t x_md, w_md, b_md, y_md, x_any, w_any, y_any;
    dnnl_convolution_desc_t fd, bd;
    dnnl_primitive_desc_t fpd = NULL, pd = NULL;
    dnnl_dims_t xd, wd, yd, bdim = {d->K}, strides = {d->sh, d->sw}, pad_l = {d->ph, d->pw};
    dnnl_dims_t pad_r = {(long)(d->P - 1) * d->sh + d->R - d->H - d->ph,
                         (long)(d->Q - 1) * d->sw + d->S - d->W - d->pw};
    set_dims(xd, d->N, d->C, d->H, d->W);
    set_dims(wd, d->K, d->C, d->R, d->S);
    set_dims(yd, d->N, d->K, d->P, d->Q);
    plan_free(p);
    DNNL_TRY(dnnl_memory_desc_init_by_tag(&x_md, 4, xd, t, dnnl_nchw));
    DNNL_TRY(dnnl_memory_desc_init_by_tag(&w_md, 4, wd, t, dnnl_oihw));
    DNNL_TRY(dnnl_memory_desc_init_by_tag(&b_md, 1, bdim, t, dnnl_x));
    DNNL_TRY(dnnl_memory_desc_init_by_tag(&y_md, 4, yd, t, dnnl_nchw));
    DNNL_TRY(dnnl_memory_desc_init_by_tag(&x_any, 4, xd, t, dnnl_format_tag_any));
    DNNL_TRY(dnnl_memory_desc_init_by_tag(&w_any, 4, wd, t, dnnl_format_tag_any));
    DNNL_TRY(dnnl_memory_desc_init_by_tag(&y_any, 4, yd, t, dnnl_format_tag_any));
    /* the forward descriptor: the primitive itself, or the backward ones' hint */
    DNNL_TRY(dnnl_convolution_forward_desc_init(&fd, dnnl_forward_training, dnnl_convolution_direct,
                                                &x_any, &w_any, &b_md, &y_any, strides, pad_l,
                                                pad_r));
    DNNL_TRY(dnnl_primitive_desc_create(&fpd, &fd, NULL, onednn_engine, NULL));
    if (dir == CONV_FWD) {
        pd = fpd;
        fpd = NULL;
    } else if (dir == CONV_BWD_DATA) {
        DNNL_TRY(dnnl_convolution_backward_data_desc_init(&bd, dnnl_convolution_direct, &x_any,
                                                          &w_any, &y_any, strides, pad_l, pad_r));
        DNNL_TRY(dnnl_primitive_desc_create(&pd, &bd, NULL, onednn_engine, fpd));
    } else {
        DNNL_TRY(dnnl_convolution_backward_weights_desc_init(&bd, dnnl_convolution_direct, &x_any,
                                                             &w_any, &b_md, &y_any, strides,
                                                             pad_l, pad_r));
        DNNL_TRY(dnnl_primitive_desc_create(&pd, &bd, NULL, onednn_engine, fpd));
    }
#define Q(what) dnnl_primitive_desc_query_md(pd, what, 0)
    if (dir == CONV_FWD) {
        if (plan_add(p, DNNL_ARG_SRC, 0, &x_md, Q(dnnl_query_src_md)) ||
            plan_add(p, DNNL_ARG_WEIGHTS, 0, &w_md, Q(dnnl_query_weights_md)) ||
            plan_add(p, DNNL_ARG_BIAS, 0, &b_md, &b_md) ||
            plan_add(p, DNNL_ARG_DST, 1, &y_md, Q(dnnl_query_dst_md)))
            goto fail;
    } else if (dir == CONV_BWD_DATA) {
        if (plan_add(p, DNNL_ARG_DIFF_DST, 0, &y_md, Q(dnnl_query_diff_dst_md)) ||
            plan_add(p, DNNL_ARG_WEIGHTS, 0, &w_md, Q(dnnl_query_weights_md)) ||
            plan_add(p, DNNL_ARG_DIFF_SRC, 1, &x_md, Q(dnnl_query_diff_src_md)))
            goto fail;
    } else {
        if (plan_add(p, DNNL_ARG_SRC, 0, &x_md, Q(dnnl_query_src_md)) ||
            plan_add(p, DNNL_ARG_DIFF_DST, 0, &y_md, Q(dnnl_query_diff_dst_md)) ||
            plan_add(p, DNNL_ARG_DIFF_WEIGHTS, 1, &w_md, Q(dnnl_query_diff_weights_md)) ||
            plan_add(p, DNNL_ARG_DIFF_BIAS, 1, &b_md, &b_md)) /* plain, as created */
            goto fail;
    }
#undef Q
    DNNL_TRY(dnnl_primitive_create(&p->conv, pd));
    dnnl_primitive_desc_destroy(pd);
    if (fpd) dnnl_primitive_desc_destroy(fpd);
    p->d = *d;
    p->dt = dt;
    p->threads = omp_get_max_threads();
    p->valid = 1;
    return 0;
fail:
    if (pd) dnnl_primitive_desc_destroy(pd);
    if (fpd) dnnl_primitive_desc_destroy(fpd);
    plan_free(p);
    return -1;
}

static plan *plan_get(const conv_dims *d, conv_dir dir, dtype_t dt)
{
    plan *p = &g_plans[dir];
    if (engine_ready()) return NULL;
    if (p->valid && p->threads == omp_get_max_threads() && p->dt == dt &&
        memcmp(&p->d, d, sizeof *d) == 0)
        return p;
    return plan_build(p, d, dir, dt) ? NULL : p;
}

/* Runs the plan on our pointers (in argument order). */
static int plan_exec(plan *p, void *const *ptr)
{
    dnnl_exec_arg_t args[MAX_ARGS];
    for (int i = 0; i < p->nargs; i++) {
        plan_arg *a = &p->a[i];
        DNNL_TRY(dnnl_memory_set_data_handle(a->user, ptr[i]));
        if (a->reorder && !a->out) {
            dnnl_exec_arg_t r[2] = {{DNNL_ARG_FROM, a->user}, {DNNL_ARG_TO, a->prim}};
            DNNL_TRY(dnnl_primitive_execute(a->reorder, onednn_stream, 2, r));
        }
        args[i].arg = a->id;
        args[i].memory = a->prim;
    }
    DNNL_TRY(dnnl_primitive_execute(p->conv, onednn_stream, p->nargs, args));
    for (int i = 0; i < p->nargs; i++) {
        plan_arg *a = &p->a[i];
        if (a->reorder && a->out) {
            dnnl_exec_arg_t r[2] = {{DNNL_ARG_FROM, a->prim}, {DNNL_ARG_TO, a->user}};
            DNNL_TRY(dnnl_primitive_execute(a->reorder, onednn_stream, 2, r));
        }
    }
    DNNL_TRY(dnnl_stream_wait(onednn_stream));
    return 0;
fail:
    return -1;
}

static int run(const conv_dims *d, conv_dir dir, dtype_t dt, void *const *ptr)
{
    plan *p = plan_get(d, dir, dt);
    return p ? plan_exec(p, ptr) : -1;
}

static int onednn_fwd(const conv_dims *d, const float *x, const float *w, const float *b, float *y,
                      void *ws, void *stream)
{
    void *ptr[] = {(void *)x, (void *)w, (void *)b, y};
    (void)ws, (void)stream;
    return run(d, CONV_FWD, DTYPE_FP32, ptr);
}

static int onednn_bwd_data(const conv_dims *d, const float *dy, const float *w, float *dx,
                           void *ws, void *stream)
{
    void *ptr[] = {(void *)dy, (void *)w, dx};
    (void)ws, (void)stream;
    return run(d, CONV_BWD_DATA, DTYPE_FP32, ptr);
}

static int onednn_bwd_filter(const conv_dims *d, const float *x, const float *dy, float *dw,
                             float *db, void *ws, void *stream)
{
    void *ptr[] = {(void *)x, (void *)dy, dw, db};
    (void)ws, (void)stream;
    return run(d, CONV_BWD_FILTER, DTYPE_FP32, ptr);
}

/* bf16 and fp16: the same primitives on tensors of that type (oneDNN
 * accumulates in fp32 and rounds each output once). */
static int onednn_fwd_dt(dtype_t dt, const conv_dims *d, const void *x, const void *w,
                         const void *b, void *y, void *ws, void *stream)
{
    void *ptr[] = {(void *)x, (void *)w, (void *)b, y};
    (void)ws, (void)stream;
    return run(d, CONV_FWD, dt, ptr);
}

static int onednn_bwd_data_dt(dtype_t dt, const conv_dims *d, const void *dy, const void *w,
                              void *dx, void *ws, void *stream)
{
    void *ptr[] = {(void *)dy, (void *)w, dx};
    (void)ws, (void)stream;
    return run(d, CONV_BWD_DATA, dt, ptr);
}

static int onednn_bwd_filter_dt(dtype_t dt, const conv_dims *d, const void *x, const void *dy,
                                void *dw, void *db, void *ws, void *stream)
{
    void *ptr[] = {(void *)x, (void *)dy, dw, db};
    (void)ws, (void)stream;
    return run(d, CONV_BWD_FILTER, dt, ptr);
}

const char *conv_onednn_dt_skip(dtype_t dt)
{
    /* a small layer in each direction: oneDNN has the dtype on this CPU, or not */
    static int probed[DTYPE_COUNT];
    static char why[DTYPE_COUNT][200];
    if (dt == DTYPE_FP32) return NULL;
    if (!probed[dt]) {
        conv_dims d = {2, 16, 8, 8, 16, 3, 3, 1, 1, 1, 1, 8, 8};
        probed[dt] = 1;
        for (int dir = 0; dir < CONV_NDIRS && !why[dt][0]; dir++) {
            err_clear();
            if (!plan_get(&d, (conv_dir)dir, dt))
                onednn_unsupported(why[dt], sizeof why[dt], "convolution", dt);
        }
        for (int dir = 0; dir < CONV_NDIRS; dir++) plan_free(&g_plans[dir]);
        err_clear();
    }
    return why[dt][0] ? why[dt] : NULL;
}

const conv_ops CONV_OPS_CPU_ONEDNN = {
    .fwd = onednn_fwd, .bwd_data = onednn_bwd_data, .bwd_filter = onednn_bwd_filter,
    .fwd_dt = onednn_fwd_dt, .bwd_data_dt = onednn_bwd_data_dt,
    .bwd_filter_dt = onednn_bwd_filter_dt};
