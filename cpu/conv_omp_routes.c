/* cpu/conv_omp_routes.c - cpu-omp convolution: the ordered route table of
 * each direction, the walker that picks, notes, estimates and runs a route,
 * and the registry's entry points (CONV_OPS_CPU_OMP). conv_omp_routes.h says
 * how the tables are read; each route's own file says why it wins where it
 * does.
 *
 * Order: the direct kernels first (small stride-1 layers); at bf16 the
 * implicit GEMMs win over the widened direct kernels where their product is
 * wide enough for the kernel's panels (igemm_wins: fwd K >= 8, bwd-data C >=
 * 8 through the flipped problem, bwd-filter K >= 32; measured at 2 threads
 * against oneDNN, implicit vs widened: cnn-conv1 (C 3, K 16) fwd 0.62 vs
 * 0.47, bwd-data 0.62 vs 1.46, bwd-filter 0.60 vs 0.62; cnn-conv2 (C 16, K
 * 32) fwd 0.56 vs 0.38, bwd-data 0.42 vs 0.39, bwd-filter 0.81 vs 0.62);
 * then the in-place and region routes, the image groups (< 256 output
 * pixels), and im2col / col2im, which take every problem. */
#include "test_hooks.h"
#include "conv_cpu.h"
#include "conv_im2col.h"
#include "conv_omp_direct.h"
#include "conv_omp_dt.h"
#include "conv_omp_group.h"
#include "conv_omp_igemm.h"
#include "conv_omp_im2col.h"
#include "conv_omp_pw.h"
#include "conv_omp_regions.h"
#include "conv_omp_routes.h"
#include "errmsg.h"
#include "gemm_cpu.h"
#include "gemm_omp_impl.h"
#include "gemm_omp_lowp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROUTE_ENV HOOK_CPU_CONV_ROUTE
#define LOWP (DTYPE_BIT(DTYPE_BF16) | DTYPE_BIT(DTYPE_FP16))
#define ALL (DTYPE_BIT(DTYPE_FP32) | LOWP)
#define FP32 DTYPE_BIT(DTYPE_FP32)
#define BF16 DTYPE_BIT(DTYPE_BF16)

/* ---- what the CPU lacks ---------------------------------------------------- */

static const char *lacks_avx512(void)
{
    return gemm_omp_small_ok() ? NULL : "needs the AVX-512F kernels, which this CPU lacks";
}

/* The in-place fp32 route takes only the AVX-512 12x32 kernel's panels. */
static const char *lacks_avx512_only(void)
{
    return gemm_kernel_select()->simd == 2 ? NULL
                                           : "needs the AVX-512F kernels, which this CPU lacks";
}

static char lacks_buf[160];

static const char *lacks_path(int amx_too)
{
    const int path = gemm_lowp_path_of(DTYPE_BF16);
    if (path == LOWP_AVX512BF16 || (amx_too && path == LOWP_AMX)) return NULL;
    snprintf(lacks_buf, sizeof lacks_buf,
             "needs AVX512-BF16 (vdpbf16ps%s); the bf16 GEMM path here is %s",
             amx_too ? " or AMX" : "", gemm_cpu_omp_dt_path(DTYPE_BF16));
    return lacks_buf;
}
static const char *lacks_vdpbf16(void) { return lacks_path(0); }
static const char *lacks_bf16_packed(void) { return lacks_path(1); }

/* ---- adapters: a route's entry point from a call's buffers ------------------ */

/* The implicit GEMMs win over the widened direct kernels where the product
 * is wide enough (the header's measurements). */
static int fwd_wins(const conv_dims *d) { return d->K >= 8 || !conv_direct_fwd_ok(d); }

static int ok_direct_fwd(dtype_t dt, const conv_dims *d) { return (void)dt, conv_direct_fwd_ok(d); }
static double sc_direct_fwd(dtype_t dt, const conv_dims *d)
{
    return (void)dt, conv_direct_scratch_bytes(d, CONV_FWD);
}
static int run_direct_fwd(dtype_t dt, const conv_dims *d, const conv_args *a)
{
    return (void)dt, conv_direct_fwd(d, a->x, a->w, a->bf, a->y);
}

static int ok_igemm_pw(dtype_t dt, const conv_dims *d) { return fwd_wins(d) && conv_igemm_pw_pays(dt, d); }
static int run_igemm_pw(dtype_t dt, const conv_dims *d, const conv_args *a)
{
    return conv_igemm_pw_fwd(dt, d, a->x, a->w, a->bf, a->y);
}

static int ok_igemm_regions(dtype_t dt, const conv_dims *d)
{
    return fwd_wins(d) && conv_igemm_regions_pays(dt, d);
}
static int run_igemm_regions(dtype_t dt, const conv_dims *d, const conv_args *a)
{
    return conv_igemm_regions_fwd(dt, d, a->x, a->w, a->bf, a->y);
}

static int ok_igemm(dtype_t dt, const conv_dims *d) { return fwd_wins(d) && conv_igemm_ok(dt, d); }
static int run_igemm(dtype_t dt, const conv_dims *d, const conv_args *a)
{
    return conv_igemm_fwd(dt, d, a->x, a->w, a->bf, a->y);
}

/* The widened routes: their fp32 copies and the direct kernel's own scratch. */
static double sc_widen(const conv_dims *d, conv_dir dir)
{
    return conv_widen_bytes(d, dir) + conv_direct_scratch_bytes(d, dir);
}
static double sc_widen_fwd(dtype_t dt, const conv_dims *d) { return (void)dt, sc_widen(d, CONV_FWD); }
static int run_widen_fwd(dtype_t dt, const conv_dims *d, const conv_args *a)
{
    return conv_widen_fwd(dt, d, a->x, a->w, a->b, a->y);
}

static double sc_pw32(dtype_t dt, const conv_dims *d) { return (void)dt, conv_pw32_scratch_bytes(d); }
static int run_pw32(dtype_t dt, const conv_dims *d, const conv_args *a)
{
    return (void)dt, conv_pw32_fwd(d, a->x, a->w, a->bf, a->y);
}

static int ok_regions(dtype_t dt, const conv_dims *d) { return conv_group_ok(d) && conv_regions_ok(dt, d); }
static double sc_regions(dtype_t dt, const conv_dims *d) { return (void)dt, conv_regions_scratch_bytes(d); }
static int run_regions(dtype_t dt, const conv_dims *d, const conv_args *a)
{
    return (void)dt, conv_regions_fwd(d, a->x, a->w, 0, a->bf, a->y);
}

static int ok_group(dtype_t dt, const conv_dims *d) { return (void)dt, conv_group_ok(d); }
static double sc_group_fwd(dtype_t dt, const conv_dims *d) { return conv_group_scratch_bytes(dt, d, CONV_FWD); }
static int run_group_fwd(dtype_t dt, const conv_dims *d, const conv_args *a)
{
    return conv_group_fwd(dt, d, a->x, a->w, a->bf, a->y);
}

static int run_cols_fwd(dtype_t dt, const conv_dims *d, const conv_args *a)
{
    return conv_cols_fwd(dt, d, a->x, a->w, a->bf, a->y);
}

/* bwd-data */
static int ok_direct_bd(dtype_t dt, const conv_dims *d) { return (void)dt, conv_direct_bwd_data_ok(d); }
static double sc_direct_bd(dtype_t dt, const conv_dims *d)
{
    return (void)dt, conv_direct_scratch_bytes(d, CONV_BWD_DATA);
}
static int run_direct_bd(dtype_t dt, const conv_dims *d, const conv_args *a)
{
    return (void)dt, conv_direct_bwd_data(d, a->dy, a->w, a->dx);
}
static double sc_widen_bd(dtype_t dt, const conv_dims *d) { return (void)dt, sc_widen(d, CONV_BWD_DATA); }
static int run_widen_bd(dtype_t dt, const conv_dims *d, const conv_args *a)
{
    return conv_widen_bwd_data(dt, d, a->dy, a->w, a->dx);
}

/* The fp32 regions read the bwd-data filters flipped while packing them: no
 * flipped copy, so a route of its own rather than a `via` row. */
static int ok_regions_bd(dtype_t dt, const conv_dims *d)
{
    if (!conv_bwd_data_is_fwd(d)) return 0;
    const conv_dims t = conv_bwd_data_flipped(d);
    return conv_regions_ok(dt, &t);
}
static double sc_regions_bd(dtype_t dt, const conv_dims *d)
{
    const conv_dims t = conv_bwd_data_flipped(d);
    return (void)dt, conv_regions_scratch_bytes(&t);
}
static int run_regions_bd(dtype_t dt, const conv_dims *d, const conv_args *a)
{
    const conv_dims t = conv_bwd_data_flipped(d);
    return (void)dt, conv_regions_fwd(&t, a->dy, a->w, 1, NULL, a->dx);
}

static int ok_phase(dtype_t dt, const conv_dims *d)
{
    return !conv_bwd_data_is_fwd(d) && conv_igemm_phase_pays(dt, d);
}
static int run_phase(dtype_t dt, const conv_dims *d, const conv_args *a)
{
    return conv_igemm_phase_bwd_data(dt, d, a->dy, a->w, a->dx);
}
static int run_col2im(dtype_t dt, const conv_dims *d, const conv_args *a)
{
    return conv_col2im_bwd_data(dt, d, a->dy, a->w, a->dx);
}

/* bwd-filter */
static int ok_direct_bwf(dtype_t dt, const conv_dims *d) { return (void)dt, conv_direct_bwd_filter_ok(d); }
static double sc_direct_bwf(dtype_t dt, const conv_dims *d)
{
    return (void)dt, conv_direct_scratch_bytes(d, CONV_BWD_FILTER);
}
static int run_direct_bwf(dtype_t dt, const conv_dims *d, const conv_args *a)
{
    return (void)dt, conv_direct_bwd_filter(d, a->x, a->dy, a->dw, a->db);
}
static int run_igemm_pwbf(dtype_t dt, const conv_dims *d, const conv_args *a)
{
    return conv_igemm_pwbf(dt, d, a->x, a->dy, a->dw, a->db);
}
static int ok_igemm_bwf(dtype_t dt, const conv_dims *d)
{
    return (d->K >= 32 || !conv_direct_bwd_filter_ok(d)) && conv_igemm_bwf_ok(dt, d);
}
static int run_igemm_bwf(dtype_t dt, const conv_dims *d, const conv_args *a)
{
    return conv_igemm_bwd_filter(dt, d, a->x, a->dy, a->dw, a->db);
}
static double sc_widen_bwf(dtype_t dt, const conv_dims *d)
{
    return (void)dt, sc_widen(d, CONV_BWD_FILTER);
}
static int run_widen_bwf(dtype_t dt, const conv_dims *d, const conv_args *a)
{
    return conv_widen_bwd_filter(dt, d, a->x, a->dy, a->dw, a->db);
}
static double sc_split(dtype_t dt, const conv_dims *d) { return (void)dt, conv_group_split_scratch_bytes(d); }
static int run_split(dtype_t dt, const conv_dims *d, const conv_args *a)
{
    return (void)dt, conv_group_split_bwd_filter(d, a->x, a->dy, a->dw, a->db);
}
static double sc_group_bwf(dtype_t dt, const conv_dims *d)
{
    return conv_group_scratch_bytes(dt, d, CONV_BWD_FILTER);
}
static int run_group_bwf(dtype_t dt, const conv_dims *d, const conv_args *a)
{
    return conv_group_bwd_filter(dt, d, a->x, a->dy, a->dw, a->db);
}
static int run_cols_bwf(dtype_t dt, const conv_dims *d, const conv_args *a)
{
    return conv_cols_bwd_filter(dt, d, a->x, a->dy, a->dw, a->db);
}

/* ---- the tables --------------------------------------------------------------- */

#define GP ROUTE_GEMM_PATH

static const conv_route F_DIRECT = {
    .name = "direct", .dtypes = FP32, .about = "direct AVX-512 kernel on padded images",
    .applies = ok_direct_fwd, .scratch = sc_direct_fwd, .run = run_direct_fwd,
    .lacks = lacks_avx512};
static const conv_route F_IGEMM_PW = {
    .name = "igemm-pw", .dtypes = BF16,
    .about = "implicit GEMM, columns read in place (padded pair copy)",
    .applies = ok_igemm_pw, .scratch = conv_igemm_pw_scratch_bytes, .run = run_igemm_pw,
    .lacks = lacks_vdpbf16, .flags = GP};
static const conv_route F_IGEMM_REGIONS = {
    .name = "igemm-regions", .dtypes = BF16,
    .about = "implicit GEMM over tap regions (padded taps skipped)",
    .applies = ok_igemm_regions, .scratch = conv_igemm_regions_scratch_bytes,
    .run = run_igemm_regions, .lacks = lacks_vdpbf16, .flags = GP};
static const conv_route F_IGEMM = {
    .name = "igemm", .dtypes = BF16, .about = "implicit GEMM (columns packed from x)",
    .applies = ok_igemm, .scratch = conv_igemm_scratch_bytes, .run = run_igemm,
    .lacks = lacks_bf16_packed, .flags = GP};
static const conv_route F_WIDEN = {
    .name = "direct-widened", .dtypes = LOWP, .about = "widened to fp32 + direct fp32 kernel",
    .applies = ok_direct_fwd, .scratch = sc_widen_fwd, .run = run_widen_fwd,
    .lacks = lacks_avx512, .flags = ROUTE_TYPED_BIAS};
static const conv_route F_PW32 = {
    .name = "pw32", .dtypes = FP32, .about = "implicit GEMM, columns read in place (padded copy)",
    .applies = conv_pw32_ok, .scratch = sc_pw32, .run = run_pw32, .lacks = lacks_avx512_only};
static const conv_route F_REGIONS = {
    .name = "regions", .dtypes = FP32,
    .about = "one GEMM over tap regions on packed filters (padded taps skipped)",
    .applies = ok_regions, .scratch = sc_regions, .run = run_regions};
static const conv_route F_GROUP = {
    .name = "group", .dtypes = ALL, .about = "image-group columns",
    .applies = ok_group, .scratch = sc_group_fwd, .run = run_group_fwd, .flags = GP};
static const conv_route F_COLS = {
    .name = "im2col", .dtypes = ALL, .about = "im2col blocks",
    .scratch = conv_cols_fwd_scratch, .run = run_cols_fwd, .flags = GP};

static const conv_route *const FWD[] = {&F_DIRECT, &F_IGEMM_PW, &F_IGEMM_REGIONS, &F_IGEMM,
                                        &F_WIDEN,  &F_PW32,     &F_REGIONS,       &F_GROUP,
                                        &F_COLS};

static const conv_route D_DIRECT = {
    .name = "direct", .dtypes = FP32, .about = "direct AVX-512 kernel, flipped filters",
    .applies = ok_direct_bd, .scratch = sc_direct_bd, .run = run_direct_bd,
    .lacks = lacks_avx512};
static const conv_route D_IGEMM_PW = {.name = "flipped-igemm-pw", .via = &F_IGEMM_PW};
static const conv_route D_IGEMM_REGIONS = {.name = "flipped-igemm-regions", .via = &F_IGEMM_REGIONS};
static const conv_route D_IGEMM = {.name = "flipped-igemm", .via = &F_IGEMM};
static const conv_route D_WIDEN = {
    .name = "direct-widened", .dtypes = LOWP, .about = "widened to fp32 + direct fp32 kernel",
    .applies = ok_direct_bd, .scratch = sc_widen_bd, .run = run_widen_bd,
    .lacks = lacks_avx512};
static const conv_route D_PW32 = {.name = "flipped-pw32", .via = &F_PW32};
static const conv_route D_REGIONS = {
    .name = "regions", .dtypes = FP32,
    .about = "one GEMM over tap regions, filters flipped while packed (padded taps skipped)",
    .applies = ok_regions_bd, .scratch = sc_regions_bd, .run = run_regions_bd};
static const conv_route D_GROUP = {.name = "flipped-group", .via = &F_GROUP};
static const conv_route D_COLS = {.name = "flipped-im2col", .via = &F_COLS};
static const conv_route D_PHASE = {
    .name = "phase", .dtypes = BF16,
    .about = "implicit GEMM per output phase, dy read in place (padded pair copy)",
    .applies = ok_phase, .scratch = conv_igemm_phase_scratch_bytes, .run = run_phase,
    .lacks = lacks_vdpbf16, .flags = GP};
static const conv_route D_COL2IM = {
    .name = "col2im", .dtypes = ALL, .about = "fp32 columns of w^T . dy, col2im",
    .scratch = conv_col2im_scratch, .run = run_col2im, .flags = GP};

static const conv_route *const BWD_DATA[] = {&D_DIRECT, &D_IGEMM_PW, &D_IGEMM_REGIONS, &D_IGEMM,
                                             &D_WIDEN,  &D_PW32,     &D_REGIONS,       &D_GROUP,
                                             &D_COLS,   &D_PHASE,    &D_COL2IM};

static const conv_route W_DIRECT = {
    .name = "direct", .dtypes = FP32, .about = "direct AVX-512 kernel, per-thread partials",
    .applies = ok_direct_bwf, .scratch = sc_direct_bwf, .run = run_direct_bwf,
    .lacks = lacks_avx512};
static const conv_route W_IGEMM_PW = {
    .name = "igemm-pw", .dtypes = BF16,
    .about = "implicit GEMM, x and dy read in place (padded copy), fp32 partials",
    .applies = conv_igemm_pwbf_pays, .scratch = conv_igemm_pwbf_scratch_bytes,
    .run = run_igemm_pwbf, .lacks = lacks_vdpbf16, .flags = GP};
static const conv_route W_IGEMM = {
    .name = "igemm", .dtypes = BF16,
    .about = "implicit GEMM (pixel pairs packed from x and dy), fp32 partials",
    .applies = ok_igemm_bwf, .scratch = conv_igemm_bwf_scratch_bytes, .run = run_igemm_bwf,
    .lacks = lacks_vdpbf16, .flags = GP};
static const conv_route W_WIDEN = {
    .name = "direct-widened", .dtypes = LOWP, .about = "widened to fp32 + direct fp32 kernel",
    .applies = ok_direct_bwf, .scratch = sc_widen_bwf, .run = run_widen_bwf,
    .lacks = lacks_avx512};
static const conv_route W_SPLIT = {
    .name = "regions", .dtypes = FP32,
    .about = "image-group GEMM inside, edge GEMMs over their taps (padded taps skipped)",
    .applies = ok_regions, .scratch = sc_split, .run = run_split};
static const conv_route W_GROUP = {
    .name = "group", .dtypes = ALL, .about = "image-group columns, fp32 dw",
    .applies = ok_group, .scratch = sc_group_bwf, .run = run_group_bwf, .flags = GP};
static const conv_route W_COLS = {
    .name = "im2col", .dtypes = ALL, .about = "im2col blocks, per-thread fp32 partials",
    .scratch = conv_cols_bwd_filter_scratch, .run = run_cols_bwf, .flags = GP};

static const conv_route *const BWD_FILTER[] = {&W_DIRECT, &W_IGEMM_PW, &W_IGEMM, &W_WIDEN,
                                               &W_SPLIT,  &W_GROUP,    &W_COLS};

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

const conv_route *const *conv_routes(conv_dir dir, int *n)
{
    if (dir == CONV_FWD) return *n = COUNT(FWD), FWD;
    if (dir == CONV_BWD_DATA) return *n = COUNT(BWD_DATA), BWD_DATA;
    return *n = COUNT(BWD_FILTER), BWD_FILTER;
}

/* ---- the walker ---------------------------------------------------------------- */

/* The row whose applies/scratch/run serve r at d (r itself, or its via row
 * and *t the flipped problem). */
static const conv_route *body(const conv_route *r, const conv_dims *d, conv_dims *t)
{
    if (!r->via) return *t = *d, r;
    *t = conv_bwd_data_flipped(d);
    return r->via;
}

int conv_route_applies(const conv_route *r, dtype_t dt, const conv_dims *d, conv_dir dir)
{
    (void)dir;
    if (r->via && !conv_bwd_data_is_fwd(d)) return 0;
    conv_dims t;
    const conv_route *b = body(r, d, &t);
    if (!(b->dtypes & DTYPE_BIT(dt)) || (b->lacks && b->lacks())) return 0;
    return !b->applies || b->applies(dt, &t);
}

/* The fp32 bias a forward route at dt takes apart from its own scratch. */
static int widens_bias(const conv_route *r, dtype_t dt, conv_dir dir)
{
    return dir == CONV_FWD && dt != DTYPE_FP32 && !(r->flags & ROUTE_TYPED_BIAS);
}

double conv_route_scratch(const conv_route *r, dtype_t dt, const conv_dims *d, conv_dir dir)
{
    conv_dims t;
    const conv_route *b = body(r, d, &t);
    return (r->via ? conv_flip_bytes(dt, d) : 0.0) + b->scratch(dt, &t) +
           (widens_bias(r, dt, dir) ? 4.0 * d->K : 0.0);
}

void conv_route_note(const conv_route *r, dtype_t dt, char *out, size_t cap)
{
    conv_dims unused = {0};
    const conv_route *b = body(r, &unused, &unused);
    const int path = dt != DTYPE_FP32 && (b->flags & ROUTE_GEMM_PATH);
    snprintf(out, cap, "%s %s: %s%s%s%s", dtype_name(dt), r->name,
             r->via ? "flipped filters, " : "", b->about, path ? " + " : "",
             path ? gemm_cpu_omp_dt_path(dt) : "");
}

/* The name BENCH_CPU_CONV_ROUTE forces, or NULL. */
static const char *forced_name(void)
{
    const char *e = getenv(ROUTE_ENV);
    return e && *e ? e : NULL;
}

const conv_route *conv_route_pick(dtype_t dt, const conv_dims *d, conv_dir dir)
{
    int n;
    const conv_route *const *tab = conv_routes(dir, &n);
    const char *force = forced_name();
    for (int i = 0; force && i < n; i++) {
        if (strcmp(tab[i]->name, force)) continue;
        if (conv_route_applies(tab[i], dt, d, dir)) return tab[i];
        conv_dims t;
        const conv_route *b = body(tab[i], d, &t);
        const char *why = !(b->dtypes & DTYPE_BIT(dt)) ? "not at this dtype"
                          : (tab[i]->via && !conv_bwd_data_is_fwd(d))
                              ? "stride 1 and padding < filter size only"
                          : b->lacks && b->lacks() ? b->lacks()
                                                   : "the problem is outside its conditions";
        err_set("cpu-omp conv: " ROUTE_ENV "=%s does not apply to this %s problem at %s (%s)",
                force, conv_dir_name(dir), dtype_name(dt), why);
        return NULL;
    }
    for (int i = 0; i < n; i++)
        if (conv_route_applies(tab[i], dt, d, dir)) return tab[i];
    err_set("cpu-omp conv: no route runs %s at %s", conv_dir_name(dir), dtype_name(dt));
    return NULL;
}

int conv_route_run(const conv_route *r, dtype_t dt, const conv_dims *d, conv_dir dir,
                   const conv_args *a)
{
    char note[256];
    conv_route_note(r, dt, note, sizeof note);
    case_note_set("%s", note);
    conv_dims t;
    const conv_route *b = body(r, d, &t);
    conv_args c = *a;
    if (r->via) { /* the forward problem t: dy convolved with the flipped filters */
        c = (conv_args){.x = a->dy, .w = conv_flip_filters(dt, d, a->w), .y = a->dx};
        if (!c.w) return 1;
    } else if (widens_bias(r, dt, dir) && a->b) {
        float *fb = conv_dt_scratch(sizeof(float) * (size_t)d->K, "the fp32 bias");
        if (!fb) return 1;
        conv_widen(dt, a->b, fb, d->K);
        c.bf = fb;
    } else if (dir == CONV_FWD && dt == DTYPE_FP32) {
        c.bf = a->b;
    }
    return b->run(dt, &t, &c);
}

int conv_cpu_omp_check_env(char *err, size_t cap)
{
    const char *force = forced_name();
    if (!force) return 0;
    for (int dir = 0; dir < 3; dir++) {
        int n;
        const conv_route *const *tab = conv_routes((conv_dir)dir, &n);
        for (int i = 0; i < n; i++)
            if (!strcmp(tab[i]->name, force)) return 0;
    }
    char list[768] = "";
    for (int dir = 0; dir < 3; dir++) {
        int n;
        const conv_route *const *tab = conv_routes((conv_dir)dir, &n);
        size_t u = strlen(list);
        snprintf(list + u, sizeof list - u, "%s%s:", dir ? "; " : "", conv_dir_name((conv_dir)dir));
        for (int i = 0; i < n; i++) {
            u = strlen(list);
            snprintf(list + u, sizeof list - u, " %s", tab[i]->name);
        }
    }
    snprintf(err, cap, "bench: " ROUTE_ENV "=%.64s names no cpu-omp convolution route (%s)", force,
             list);
    return 2;
}

/* ---- the registry's entry points -------------------------------------------- */

static int run_dir(dtype_t dt, const conv_dims *d, conv_dir dir, const conv_args *a)
{
    if (dt != DTYPE_FP32 && !dtype_is_16bit(dt)) {
        err_set("cpu-omp conv: no %s entry (fp32, bf16 and fp16)", dtype_name(dt));
        return 1;
    }
    const conv_route *r = conv_route_pick(dt, d, dir);
    return r ? conv_route_run(r, dt, d, dir, a) : 1;
}

static int omp_fwd(const conv_dims *d, const float *x, const float *w, const float *b, float *y,
                   void *ws, void *stream)
{
    (void)ws, (void)stream;
    return run_dir(DTYPE_FP32, d, CONV_FWD, &(conv_args){.x = x, .w = w, .b = b, .y = y});
}
static int omp_bwd_data(const conv_dims *d, const float *dy, const float *w, float *dx, void *ws,
                        void *stream)
{
    (void)ws, (void)stream;
    return run_dir(DTYPE_FP32, d, CONV_BWD_DATA, &(conv_args){.dy = dy, .w = w, .dx = dx});
}
static int omp_bwd_filter(const conv_dims *d, const float *x, const float *dy, float *dw,
                          float *db, void *ws, void *stream)
{
    (void)ws, (void)stream;
    return run_dir(DTYPE_FP32, d, CONV_BWD_FILTER,
                   &(conv_args){.x = x, .dy = dy, .dw = dw, .db = db});
}
static int omp_fwd_dt(dtype_t dt, const conv_dims *d, const void *x, const void *w,
                      const void *b, void *y, void *ws, void *stream)
{
    (void)ws, (void)stream;
    return run_dir(dt, d, CONV_FWD, &(conv_args){.x = x, .w = w, .b = b, .y = y});
}
static int omp_bwd_data_dt(dtype_t dt, const conv_dims *d, const void *dy, const void *w,
                           void *dx, void *ws, void *stream)
{
    (void)ws, (void)stream;
    return run_dir(dt, d, CONV_BWD_DATA, &(conv_args){.dy = dy, .w = w, .dx = dx});
}
static int omp_bwd_filter_dt(dtype_t dt, const conv_dims *d, const void *x, const void *dy,
                             void *dw, void *db, void *ws, void *stream)
{
    (void)ws, (void)stream;
    return run_dir(dt, d, CONV_BWD_FILTER, &(conv_args){.x = x, .dy = dy, .dw = dw, .db = db});
}

double conv_cpu_omp_scratch_bytes(dtype_t dt, const conv_dims *d, conv_dir dir)
{
    const conv_route *r = conv_route_pick(dt, d, dir);
    if (r) return conv_route_scratch(r, dt, d, dir);
    err_clear();
    return 0;
}

const conv_ops CONV_OPS_CPU_OMP = {
    .fwd = omp_fwd, .bwd_data = omp_bwd_data, .bwd_filter = omp_bwd_filter,
    .fwd_dt = omp_fwd_dt, .bwd_data_dt = omp_bwd_data_dt, .bwd_filter_dt = omp_bwd_filter_dt};
