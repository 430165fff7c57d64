/* tests/kernels/train_seq_test.cu - the sequence models' ops of the GPU
 * train_ops tables (kernels/train_cuda.h: cuda, cuda-lib; ops/train_ops.h
 * from gemm_batched on) against the CPU reference table TRAIN_OPS_CPU_NAIVE.
 *
 * As train_cuda_test.cu: seeded inputs, device buffers of exactly the tensor,
 * outputs poisoned with NaN first (an unwritten element fails), the call
 * queued on a non-blocking stream, results compared with the reference's by
 * check_compare at check_tolerance(fp32, reduction length); copies and single
 * additions (add, permute, embedding) bit for bit.  Sizes: odd ones, and
 * gpt's (B 8, T 64, E 128, NH 4, head 32, vocab 256) and lstm's (rows 32,
 * H 256).
 *   gemm_batched  7x5x3 x3 and 33x17x65 x5 with gaps between the matrices
 *                 (NaN in A's and B's, C's must come back untouched), one B
 *                 for every matrix (stride 0),
 *                 attention's eight products at gpt sizes (64x64x32 x32 ...),
 *                 and heads read in place from [T][NH][D] (strides smaller
 *                 than a matrix: interleaved); all four (ta, tb), float4 and
 *                 scalar layouts, beta 0 on NaN C and beta -0.5
 *   add           n 1001 / 1024, aligned and not, y = a, y = b; gpt's residual
 *   permute       [1][8][64][128] <-> time-major, [8][64][4][32] heads,
 *                 2x3x5x7 and an unaligned one (scalar); the inverse permute
 *                 gives x back
 *   attn_softmax  gpt's 2048 rows of 64, 111 rows of 37 (rows not a multiple
 *                 of T), 200 rows of 100; z above the diagonal NaN (never
 *                 read); p = z in place; the backward, dz = dp in place
 *   embedding     token ids (vocab 256, repeats) and positions (ids NULL),
 *                 accumulate or not, dim 128 (float4) and 7; the backward
 *                 (atomics / the position sum)
 *   layernorm     dims 128, 256, 384 (the register paths), 600 and 7
 *                 (scalar), one unaligned; x with mean 3 (cancellation);
 *                 mean, rstd, y; the backward on the reference's mean and
 *                 rstd: dx, dw, db, and dx = x in place
 *   gelu          n 1001 / 1024, aligned and not, in place, gpt's MLP; gelu_bwd
 *   lstm_cell     32 x 256 and 3 x 5, first step (c_prev NULL) or not, gates
 *                 = pre in place; the backward with and without dc and
 *                 c_prev (dc_prev then untouched), dc_prev = dc in place
 *   adamw         n 1001 / 1024, aligned and not, gpt's c_fc weight, three
 *                 steps: p, m, v and the device step count
 * Then: a planted error in each op's result fails, bad sizes and forbidden
 * aliases give -1 and a message, empty tensors are no work, and what only
 * the device sees (a bad id, a bad step count) shows as NaN.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "train_gpu_util.h"
#include "gemm_cuda.h"

/* Pointwise ops built from expf / tanhf / sqrtf: the GPU's functions are
 * within 2 ulp of the host's, a few of them chained; counted as a short sum. */
#define PW_K 8

static void *vs(void) { return (void *)g_stream; }

/* z[r][s] = NaN for s > r % T: the part a causal row never reads */
static void poison_upper(float *z, long rows, int T)
{
    for (long r = 0; r < rows; r++)
        for (int s = (int)(r % T) + 1; s < T; s++) z[(size_t)r * T + s] = NAN;
}

/* The planted-error check of an exact comparison: one changed bit must show. */
static void plant_exact(const char *what, const float *got, const float *ref, size_t n)
{
    float *g = fbuf(n);
    memcpy(g, got, n * sizeof(float));
    g[n / 2] = nextafterf(g[n / 2], INFINITY);
    EXPECT(mismatches(g, ref, n) != 0, "%s: a planted error passed", what);
    free(g);
}

/* ---- gemm_batched ---- */

typedef struct bgemm {
    int ta, tb, M, N, K, batch;
    int lda, ldb, ldc;        /* 0: ld_for(cols, vec) */
    long long sA, sB, sC;     /* -1: after the matrix, plus a gap */
} bgemm;

/* The stride of a matrix of rows x cols (ld) with a gap after it: a multiple
 * of 4 on the float4 layout, odd otherwise. */
static long long stride_for(int rows, int cols, int ld, int vec)
{
    const long long s = (long long)span(rows, cols, ld);
    return vec ? (s + 3) / 4 * 4 + 8 : s + (s % 2 ? 2 : 3);
}

/* in[i] = 1 where element i of a buffer of n belongs to a matrix of the batch */
static char *member_mask(size_t n, int batch, int rows, int cols, int ld, long long s)
{
    char *in = (char *)xalloc(n);
    for (int b = 0; b < batch; b++)
        for (int i = 0; i < rows; i++)
            memset(in + (size_t)b * s + (size_t)i * ld, 1, (size_t)cols);
    return in;
}

static void gemm_batched_case(const table *t, bgemm g, int vec, float beta, long plant)
{
    const int ar = g.ta ? g.K : g.M, ac = g.ta ? g.M : g.K;
    const int br = g.tb ? g.N : g.K, bc = g.tb ? g.K : g.N;
    const int lda = g.lda ? g.lda : ld_for(ac, vec), ldb = g.ldb ? g.ldb : ld_for(bc, vec);
    const int ldc = g.ldc ? g.ldc : ld_for(g.N, vec);
    const long long sA = g.sA >= 0 ? g.sA : stride_for(ar, ac, lda, vec);
    const long long sB = g.sB >= 0 ? g.sB : stride_for(br, bc, ldb, vec);
    const long long sC = g.sC >= 0 ? g.sC : stride_for(g.M, g.N, ldc, vec);
    const size_t na = (size_t)(g.batch - 1) * sA + span(ar, ac, lda);
    const size_t nb = (size_t)(g.batch - 1) * sB + span(br, bc, ldb);
    const size_t nc = (size_t)(g.batch - 1) * sC + span(g.M, g.N, ldc);
    char what[160];
    snprintf(what, sizeof what, "%s gemm_batched ta %d tb %d %dx%dx%d x%d ld %d/%d/%d s %lld/%lld/%lld "
             "beta %g", t->name, g.ta, g.tb, g.M, g.N, g.K, g.batch, lda, ldb, ldc, sA, sB, sC, beta);
    float *A = frand(na), *B = frand(nb), *C0 = beta == 0.0f ? fnan(nc) : frand(nc);
    char *ina = member_mask(na, g.batch, ar, ac, lda, sA);
    char *inb = member_mask(nb, g.batch, br, bc, ldb, sB);
    char *inc = member_mask(nc, g.batch, g.M, g.N, ldc, sC);
    for (size_t i = 0; i < na; i++) if (!ina[i]) A[i] = NAN;
    for (size_t i = 0; i < nb; i++) if (!inb[i]) B[i] = NAN;
    float *ref = fbuf(nc);
    memcpy(ref, C0, nc * sizeof(float));
    EXPECT(REF->gemm_batched(g.ta, g.tb, g.M, g.N, g.K, A, lda, sA, B, ldb, sB, beta, ref, ldc,
                             sC, g.batch, NULL) == 0, "%s: ref: %s", what, err_get());
    float *dA = dev_f(A, na), *dB = dev_f(B, nb), *dC = dev_f(C0, nc);
    err_clear();
    EXPECT(t->ops->gemm_batched(g.ta, g.tb, g.M, g.N, g.K, dA, lda, sA, dB, ldb, sB, beta, dC,
                                ldc, sC, g.batch, vs()) == 0, "%s: %s", what, err_get());
    float *got = host_of(dC, nc);
    /* the matrices' elements at the GEMM tolerance, everything else untouched */
    size_t m = 0;
    long touched = 0;
    float *gm = fbuf(nc), *rm = fbuf(nc);
    for (size_t i = 0; i < nc; i++) {
        if (inc[i]) {
            gm[m] = got[i];
            rm[m++] = ref[i];
        } else {
            touched += memcmp(&got[i], &C0[i], sizeof(float)) != 0;
        }
    }
    EXPECT(m == (size_t)g.batch * g.M * g.N, "%s: %zu elements in C's matrices", what, m);
    EXPECT(close_to(what, gm, rm, m, g.K, -1), "%s: C", what);
    EXPECT(touched == 0, "%s: %ld elements between C's matrices written", what, touched);
    if (plant >= 0)
        EXPECT(!close_to(what, gm, rm, m, g.K, plant % (long)m), "%s: a planted error in C passed",
               what);
    cudaFree(dA); cudaFree(dB); cudaFree(dC);
    free(A); free(B); free(C0); free(ref); free(got); free(gm); free(rm);
    free(ina); free(inb); free(inc);
}

static void gemm_batched_all(const table *t)
{
    /* odd shapes, gaps between the matrices, every transpose and layout */
    for (int ta = 0; ta < 2; ta++)
        for (int tb = 0; tb < 2; tb++)
            for (int vec = 0; vec < 2; vec++) {
                bgemm a = {ta, tb, 7, 5, 3, 3, 0, 0, 0, -1, -1, -1};
                bgemm b = {ta, tb, 33, 17, 65, 5, 0, 0, 0, -1, -1, -1};
                bgemm shared = {ta, tb, 9, 6, 11, 4, 0, 0, 0, -1, 0, -1}; /* one B for all */
                gemm_batched_case(t, a, vec, 0.0f, -1);
                gemm_batched_case(t, b, vec, -0.5f, ta == 1 && tb == 0 ? 777 : -1);
                gemm_batched_case(t, shared, vec, 0.0f, -1);
            }
    /* attention at gpt sizes, B*NH = 32 heads of T 64 x D 32, contiguous:
     * S = Q K^T, Y = P V; dP = dY V^T, dV = P^T dY, dQ = dS K, dK = dS^T Q */
    const int T = 64, D = 32, BH = 32;
    const long long TD = (long long)T * D, TT = (long long)T * T;
    const bgemm att[] = {
        {0, 1, T, T, D, BH, D, D, T, TD, TD, TT}, /* S = Q K^T */
        {0, 0, T, D, T, BH, T, D, D, TT, TD, TD}, /* Y = P V */
        {0, 1, T, T, D, BH, D, D, T, TD, TD, TT}, /* dP = dY V^T */
        {1, 0, T, D, T, BH, T, D, D, TT, TD, TD}, /* dV = P^T dY */
        {0, 0, T, D, T, BH, T, D, D, TT, TD, TD}, /* dQ = dS K */
        {1, 0, T, D, T, BH, T, D, D, TT, TD, TD}, /* dK = dS^T Q */
    };
    for (int i = 0; i < (int)(sizeof att / sizeof att[0]); i++)
        gemm_batched_case(t, att[i], 1, 0.0f, i == 0 ? 4321 : -1);
    /* heads read in place from [T][NH][D] rows (lda NH*D, stride D: the
     * matrices interleave), scores of one batch element, and beta != 0 */
    const int NH = 4, Tn = 37, Dn = 32;
    bgemm inter = {0, 1, Tn, Tn, Dn, NH, NH * Dn, NH * Dn, NH * Tn, Dn, Dn, Tn};
    gemm_batched_case(t, inter, 1, 0.0f, -1);
    gemm_batched_case(t, inter, 1, 0.25f, -1);
}

/* ---- add ---- */

/* which: 0 y apart, 1 y = a, 2 y = b */
static void add_case(const table *t, long n, int off, int which)
{
    char what[96];
    snprintf(what, sizeof what, "%s add n %ld offset %d y=%s", t->name, n, off,
             which == 0 ? "new" : which == 1 ? "a" : "b");
    const size_t m = (size_t)n + off;
    float *a = frand(m), *b = frand(m), *ref = fbuf(m);
    EXPECT(REF->add(n, a + off, b + off, ref + off, NULL) == 0, "%s ref: %s", what, err_get());
    float *da = dev_f(a, m), *db = dev_f(b, m), *dy = dev_nan(m);
    float *out = which == 0 ? dy : which == 1 ? da : db;
    EXPECT(t->ops->add(n, da + off, db + off, out + off, vs()) == 0, "%s: %s", what, err_get());
    float *got = host_of(out, m);
    EXPECT(mismatches(got + off, ref + off, n) == 0, "%s: %ld differ", what,
           mismatches(got + off, ref + off, n));
    if (which == 0 && off == 0 && n == 1001) plant_exact(what, got, ref, n);
    cudaFree(da); cudaFree(db); cudaFree(dy);
    free(a); free(b); free(ref); free(got);
}

static void add_all(const table *t)
{
    for (int off = 0; off < 2; off++)
        for (int which = 0; which < 3; which++) {
            add_case(t, 1001, off, which);
            add_case(t, 1024, off, which);
        }
    add_case(t, 8 * 64 * 128, 0, 1); /* gpt's residual */
}

/* ---- permute ---- */

static void permute_case(const table *t, int A, int B, int C, int D, int off)
{
    char what[96];
    snprintf(what, sizeof what, "%s permute %dx%dx%dx%d offset %d", t->name, A, B, C, D, off);
    const size_t n = (size_t)A * B * C * D, m = n + off;
    float *x = frand(m), *ref = fbuf(n);
    EXPECT(REF->permute(A, B, C, D, x + off, ref, NULL) == 0, "%s ref: %s", what, err_get());
    float *dx = dev_f(x, m), *dy = dev_nan(m), *dz = dev_nan(m);
    EXPECT(t->ops->permute(A, B, C, D, dx + off, dy + off, vs()) == 0, "%s: %s", what, err_get());
    EXPECT(t->ops->permute(A, C, B, D, dy + off, dz + off, vs()) == 0, "%s back: %s", what,
           err_get());
    float *got = host_of(dy, m), *back = host_of(dz, m);
    EXPECT(mismatches(got + off, ref, n) == 0, "%s: %ld differ", what,
           mismatches(got + off, ref, n));
    EXPECT(mismatches(back + off, x + off, n) == 0, "%s: the inverse permute: %ld differ", what,
           mismatches(back + off, x + off, n));
    if (off == 0 && A == 2) plant_exact(what, got, ref, n);
    cudaFree(dx); cudaFree(dy); cudaFree(dz);
    free(x); free(ref); free(got); free(back);
}

static void permute_all(const table *t)
{
    permute_case(t, 1, 8, 64, 128, 0); /* batch-first to time-major */
    permute_case(t, 8, 64, 4, 32, 0);  /* gpt's heads */
    permute_case(t, 2, 3, 5, 7, 0);    /* odd: scalar */
    permute_case(t, 3, 5, 7, 4, 1);    /* D % 4 == 0, unaligned: scalar */
}

/* ---- causal attention softmax ---- */

static void attn_case(const table *t, long rows, int T, float scale, int plant)
{
    char what[96];
    snprintf(what, sizeof what, "%s attn_softmax %ld rows of %d", t->name, rows, T);
    const size_t n = (size_t)rows * T;
    float *z = frand(n), *dp = frand(n), *rp = fbuf(n), *rdz = fbuf(n);
    for (size_t i = 0; i < n; i++) z[i] *= 4.0f;
    poison_upper(z, rows, T);
    poison_upper(dp, rows, T);
    EXPECT(REF->attn_softmax(rows, T, scale, z, rp, NULL) == 0, "%s ref: %s", what, err_get());
    float *pp = fbuf(n); /* the backward's p: never read above the diagonal either */
    memcpy(pp, rp, n * sizeof(float));
    poison_upper(pp, rows, T);
    EXPECT(REF->attn_softmax_bwd(rows, T, scale, pp, dp, rdz, NULL) == 0, "%s ref bwd: %s", what,
           err_get());
    /* forward, apart and in place (p = z) */
    float *dz_ = dev_f(z, n), *dpo = dev_nan(n), *dzi = dev_f(z, n);
    EXPECT(t->ops->attn_softmax(rows, T, scale, dz_, dpo, vs()) == 0, "%s: %s", what, err_get());
    EXPECT(t->ops->attn_softmax(rows, T, scale, dzi, dzi, vs()) == 0, "%s in place: %s", what,
           err_get());
    float *gp = host_of(dpo, n), *gpi = host_of(dzi, n);
    EXPECT(close_to(what, gp, rp, n, T, -1), "%s: p", what);
    EXPECT(close_to(what, gpi, rp, n, T, -1), "%s: p in place", what);
    if (plant) EXPECT(!close_to(what, gp, rp, n, T, (long)n - 1), "%s: a planted error in p passed",
                      what);
    /* backward on the reference's p (NaN above the diagonal), apart and in place (dz = dp) */
    float *dpp = dev_f(pp, n), *ddp = dev_f(dp, n), *ddz = dev_nan(n), *ddpi = dev_f(dp, n);
    EXPECT(t->ops->attn_softmax_bwd(rows, T, scale, dpp, ddp, ddz, vs()) == 0, "%s bwd: %s", what,
           err_get());
    EXPECT(t->ops->attn_softmax_bwd(rows, T, scale, dpp, ddpi, ddpi, vs()) == 0,
           "%s bwd in place: %s", what, err_get());
    float *gdz = host_of(ddz, n), *gdzi = host_of(ddpi, n);
    EXPECT(close_to(what, gdz, rdz, n, T, -1), "%s: bwd dz", what);
    EXPECT(close_to(what, gdzi, rdz, n, T, -1), "%s: bwd dz in place", what);
    if (plant) EXPECT(!close_to(what, gdz, rdz, n, T, 3), "%s: a planted error in dz passed", what);
    cudaFree(dz_); cudaFree(dpo); cudaFree(dzi); cudaFree(dpp); cudaFree(ddp); cudaFree(ddz);
    cudaFree(ddpi);
    free(z); free(dp); free(rp); free(pp); free(rdz); free(gp); free(gpi); free(gdz); free(gdzi);
}

static void attn_all(const table *t)
{
    attn_case(t, 8 * 4 * 64, 64, 1.0f / sqrtf(32.0f), 1); /* gpt: B*NH*T rows of T */
    attn_case(t, 3 * 37, 37, 0.3f, 0);
    attn_case(t, 200, 100, 0.125f, 0); /* T > 64, rows not a multiple of T */
}

/* ---- embedding ---- */

static int *ids_for(int rows, int vocab)
{
    int *ids = (int *)xalloc((size_t)rows * sizeof(int));
    for (int r = 0; r < rows; r++) /* repeats, for the backward's sums */
        ids[r] = (int)(((unsigned)r * 2654435761u >> 7) % (unsigned)(vocab > 3 ? vocab - 3 : vocab));
    return ids;
}

static void embedding_case(const table *t, int rows, int dim, int vocab, int with_ids,
                           int accumulate, int plant)
{
    char what[112];
    snprintf(what, sizeof what, "%s embedding rows %d dim %d vocab %d %s%s", t->name, rows, dim,
             vocab, with_ids ? "ids" : "positions", accumulate ? " accumulate" : "");
    const size_t n = (size_t)rows * dim, nt = (size_t)vocab * dim;
    int *ids = with_ids ? ids_for(rows, vocab) : NULL;
    float *table_ = frand(nt), *y0 = accumulate ? frand(n) : fnan(n), *ref = fbuf(n);
    memcpy(ref, y0, n * sizeof(float));
    EXPECT(REF->embedding(rows, dim, ids, vocab, table_, ref, accumulate, NULL) == 0, "%s ref: %s",
           what, err_get());
    int *dids = ids ? (int *)dev_from(ids, (size_t)rows * sizeof(int)) : NULL;
    float *dt = dev_f(table_, nt), *dy = dev_f(y0, n);
    EXPECT(t->ops->embedding(rows, dim, dids, vocab, dt, dy, accumulate, vs()) == 0, "%s: %s",
           what, err_get());
    float *got = host_of(dy, n);
    EXPECT(mismatches(got, ref, n) == 0, "%s: %ld differ", what, mismatches(got, ref, n));
    if (plant) plant_exact(what, got, ref, n);
    if (!accumulate) { /* the backward: dtable over dy */
        float *g = frand(n), *rdt = fbuf(nt);
        EXPECT(REF->embedding_bwd(rows, dim, ids, vocab, g, rdt, NULL) == 0, "%s ref bwd: %s",
               what, err_get());
        float *dg = dev_f(g, n), *ddt = dev_nan(nt);
        EXPECT(t->ops->embedding_bwd(rows, dim, dids, vocab, dg, ddt, vs()) == 0, "%s bwd: %s",
               what, err_get());
        float *gdt = host_of(ddt, nt);
        EXPECT(close_to(what, gdt, rdt, nt, rows, -1), "%s: bwd dtable", what);
        if (plant) EXPECT(!close_to(what, gdt, rdt, nt, rows, 5), "%s: a planted error in "
                          "dtable passed", what);
        cudaFree(dg); cudaFree(ddt);
        free(g); free(rdt); free(gdt);
    }
    cudaFree(dids); cudaFree(dt); cudaFree(dy);
    free(ids); free(table_); free(y0); free(ref); free(got);
}

static void embedding_all(const table *t)
{
    for (int acc = 0; acc < 2; acc++) {
        embedding_case(t, 8 * 64, 128, 256, 1, acc, !acc); /* gpt's wte */
        embedding_case(t, 8 * 64, 128, 64, 0, acc, 0);     /* gpt's wpe */
        embedding_case(t, 13, 7, 5, 1, acc, 0);            /* odd: scalar */
        embedding_case(t, 13, 7, 4, 0, acc, 0);
    }
}

/* ---- layernorm ---- */

static void layernorm_case(const table *t, int rows, int dim, int off, int plant)
{
    char what[96];
    snprintf(what, sizeof what, "%s layernorm %dx%d offset %d", t->name, rows, dim, off);
    const size_t n = (size_t)rows * dim, m = n + off;
    float *x = frand(m), *w = frand(dim + off), *b = frand(dim + off), *dy = frand(m);
    for (size_t i = 0; i < m; i++) x[i] += 3.0f; /* a mean far from 0 */
    float *ry = fbuf(n), *rmean = fbuf(rows), *rrstd = fbuf(rows);
    EXPECT(REF->layernorm(rows, dim, x + off, w + off, b + off, ry, rmean, rrstd, NULL) == 0,
           "%s ref: %s", what, err_get());
    float *dx_ = dev_f(x, m), *dw_ = dev_f(w, dim + off), *db_ = dev_f(b, dim + off);
    float *dy_ = dev_nan(m), *dmean = dev_nan(rows), *drstd = dev_nan(rows);
    EXPECT(t->ops->layernorm(rows, dim, dx_ + off, dw_ + off, db_ + off, dy_ + off, dmean, drstd,
                             vs()) == 0, "%s: %s", what, err_get());
    float *gy = host_of(dy_, m), *gmean = host_of(dmean, rows), *grstd = host_of(drstd, rows);
    EXPECT(close_to(what, gy + off, ry, n, dim, -1), "%s: y", what);
    EXPECT(close_to(what, gmean, rmean, rows, dim, -1), "%s: mean", what);
    EXPECT(close_to(what, grstd, rrstd, rows, dim, -1), "%s: rstd", what);
    if (plant) EXPECT(!close_to(what, gy + off, ry, n, dim, 17), "%s: a planted error in y passed",
                      what);
    /* the backward, from the reference's mean and rstd */
    float *rdx = fbuf(n), *rdw = fbuf(dim), *rdb = fbuf(dim);
    EXPECT(REF->layernorm_bwd(rows, dim, dy + off, x + off, w + off, rmean, rrstd, rdx, rdw, rdb,
                              NULL) == 0, "%s ref bwd: %s", what, err_get());
    float *ddy = dev_f(dy, m), *rm_ = dev_f(rmean, rows), *rr_ = dev_f(rrstd, rows);
    float *ddx = dev_nan(m), *ddw = dev_nan(dim), *ddb = dev_nan(dim);
    EXPECT(t->ops->layernorm_bwd(rows, dim, ddy + off, dx_ + off, dw_ + off, rm_, rr_, ddx + off,
                                 ddw, ddb, vs()) == 0, "%s bwd: %s", what, err_get());
    float *gdx = host_of(ddx, m), *gdw = host_of(ddw, dim), *gdb = host_of(ddb, dim);
    EXPECT(close_to(what, gdx + off, rdx, n, dim, -1), "%s: bwd dx", what);
    EXPECT(close_to(what, gdw, rdw, dim, rows, -1), "%s: bwd dw", what);
    EXPECT(close_to(what, gdb, rdb, dim, rows, -1), "%s: bwd db", what);
    if (plant) {
        EXPECT(!close_to(what, gdx + off, rdx, n, dim, 5), "%s: a planted error in dx passed",
               what);
        EXPECT(!close_to(what, gdw, rdw, dim, rows, dim - 1), "%s: a planted error in dw passed",
               what);
    }
    /* dx in place of x (the contract forbids only dx = dy) */
    EXPECT(t->ops->layernorm_bwd(rows, dim, ddy + off, dx_ + off, dw_ + off, rm_, rr_, dx_ + off,
                                 ddw, ddb, vs()) == 0, "%s bwd dx = x: %s", what, err_get());
    float *gdxi = host_of(dx_, m);
    EXPECT(close_to(what, gdxi + off, rdx, n, dim, -1), "%s: bwd dx = x", what);
    cudaFree(dx_); cudaFree(dw_); cudaFree(db_); cudaFree(dy_); cudaFree(dmean); cudaFree(drstd);
    cudaFree(ddy); cudaFree(rm_); cudaFree(rr_); cudaFree(ddx); cudaFree(ddw); cudaFree(ddb);
    free(x); free(w); free(b); free(dy); free(ry); free(rmean); free(rrstd); free(gy);
    free(gmean); free(grstd); free(rdx); free(rdw); free(rdb); free(gdx); free(gdw); free(gdb);
    free(gdxi);
}

static void layernorm_all(const table *t)
{
    layernorm_case(t, 8 * 64, 128, 0, 1); /* gpt: one float4 per lane */
    layernorm_case(t, 37, 256, 0, 0);
    layernorm_case(t, 37, 384, 0, 0);     /* three float4 per lane of four */
    layernorm_case(t, 19, 600, 0, 0);     /* beyond the registers: scalar */
    layernorm_case(t, 23, 7, 0, 0);       /* odd: scalar */
    layernorm_case(t, 9, 128, 1, 0);      /* unaligned: scalar */
}

/* ---- GELU ---- */

static void gelu_case(const table *t, long n, int off, int in_place, int plant)
{
    char what[96];
    snprintf(what, sizeof what, "%s gelu n %ld offset %d%s", t->name, n, off,
             in_place ? " in place" : "");
    const size_t m = (size_t)n + off;
    float *x = frand(m), *dy = frand(m), *ry = fbuf(n), *rdx = fbuf(n);
    for (size_t i = 0; i < m; i++) x[i] *= 4.0f;
    EXPECT(REF->gelu(n, x + off, ry, NULL) == 0, "%s ref: %s", what, err_get());
    EXPECT(REF->gelu_bwd(n, x + off, dy + off, rdx, NULL) == 0, "%s ref bwd: %s", what,
           err_get());
    float *dx_ = dev_f(x, m), *dy_ = in_place ? dx_ : dev_nan(m);
    float *ddy = dev_f(dy, m), *ddx = in_place ? ddy : dev_nan(m);
    /* the backward first: in place, the forward overwrites x */
    EXPECT(t->ops->gelu_bwd(n, dx_ + off, ddy + off, ddx + off, vs()) == 0, "%s bwd: %s", what,
           err_get());
    EXPECT(t->ops->gelu(n, dx_ + off, dy_ + off, vs()) == 0, "%s: %s", what, err_get());
    float *gy = host_of(dy_, m), *gdx = host_of(ddx, m);
    EXPECT(close_to(what, gy + off, ry, n, PW_K, -1), "%s: y", what);
    EXPECT(close_to(what, gdx + off, rdx, n, PW_K, -1), "%s: bwd dx", what);
    if (plant) {
        EXPECT(!close_to(what, gy + off, ry, n, PW_K, 100), "%s: a planted error in y passed",
               what);
        EXPECT(!close_to(what, gdx + off, rdx, n, PW_K, 7), "%s: a planted error in dx passed",
               what);
    }
    cudaFree(dx_); cudaFree(ddy);
    if (!in_place) {
        cudaFree(dy_);
        cudaFree(ddx);
    }
    free(x); free(dy); free(ry); free(rdx); free(gy); free(gdx);
}

static void gelu_all(const table *t)
{
    for (int off = 0; off < 2; off++)
        for (int ip = 0; ip < 2; ip++) {
            gelu_case(t, 1001, off, ip, off == 0 && ip == 0);
            gelu_case(t, 1024, off, ip, 0);
        }
    gelu_case(t, 8 * 64 * 512, 0, 0, 0); /* gpt's MLP */
}

/* ---- LSTM cell ---- */

/* first: c_prev NULL; last: dc NULL; in_place: gates = pre and dc_prev = dc */
static void lstm_case(const table *t, int rows, int H, int first, int last, int in_place,
                      int plant)
{
    char what[112];
    snprintf(what, sizeof what, "%s lstm_cell %dx%d%s%s%s", t->name, rows, H,
             first ? " first" : "", last ? " last" : "", in_place ? " in place" : "");
    const size_t n = (size_t)rows * H, n4 = 4 * n;
    float *pre = frand(n4), *cp = first ? NULL : frand(n);
    for (size_t i = 0; i < n4; i++) pre[i] *= 2.0f;
    float *rg = fbuf(n4), *rc = fbuf(n), *rh = fbuf(n);
    EXPECT(REF->lstm_cell(rows, H, pre, cp, rg, rc, rh, NULL) == 0, "%s ref: %s", what,
           err_get());
    float *dpre = dev_f(pre, n4), *dcp = cp ? dev_f(cp, n) : NULL;
    float *dg = in_place ? dpre : dev_nan(n4), *dc_ = dev_nan(n), *dh_ = dev_nan(n);
    EXPECT(t->ops->lstm_cell(rows, H, dpre, dcp, dg, dc_, dh_, vs()) == 0, "%s: %s", what,
           err_get());
    float *gg = host_of(dg, n4), *gc = host_of(dc_, n), *gh = host_of(dh_, n);
    EXPECT(close_to(what, gg, rg, n4, PW_K, -1), "%s: gates", what);
    EXPECT(close_to(what, gc, rc, n, PW_K, -1), "%s: c", what);
    EXPECT(close_to(what, gh, rh, n, PW_K, -1), "%s: h", what);
    if (plant) EXPECT(!close_to(what, gh, rh, n, PW_K, 11), "%s: a planted error in h passed",
                      what);
    /* the backward from the reference's gates and c */
    float *dh = frand(n), *dc = last ? NULL : frand(n);
    float *rdpre = fbuf(n4), *rdcp = fnan(n);
    EXPECT(REF->lstm_cell_bwd(rows, H, dh, dc, rg, cp, rc, rdpre, first ? NULL : rdcp, NULL) == 0,
           "%s ref bwd: %s", what, err_get());
    float *ddh = dev_f(dh, n), *ddc = dc ? dev_f(dc, n) : NULL;
    float *drg = dev_f(rg, n4), *drc = dev_f(rc, n), *ddpre = dev_nan(n4);
    /* dc_prev: dc itself in place, else a buffer of 7s (left alone on the first step) */
    float *sev = fbuf(n);
    for (size_t i = 0; i < n; i++) sev[i] = 7.0f;
    float *ddcp = in_place && ddc ? ddc : dev_f(sev, n);
    EXPECT(t->ops->lstm_cell_bwd(rows, H, ddh, ddc, drg, dcp, drc, ddpre, ddcp, vs()) == 0,
           "%s bwd: %s", what, err_get());
    float *gdpre = host_of(ddpre, n4), *gdcp = host_of(ddcp, n);
    EXPECT(close_to(what, gdpre, rdpre, n4, PW_K, -1), "%s: bwd dpre", what);
    if (first)
        EXPECT(mismatches(gdcp, in_place && ddc ? dc : sev, n) == 0,
               "%s: bwd wrote dc_prev on the first step", what);
    else
        EXPECT(close_to(what, gdcp, rdcp, n, PW_K, -1), "%s: bwd dc_prev", what);
    if (plant) EXPECT(!close_to(what, gdpre, rdpre, n4, PW_K, 3), "%s: a planted error in dpre "
                      "passed", what);
    cudaFree(dpre); cudaFree(dcp); cudaFree(dc_); cudaFree(dh_); cudaFree(ddh); cudaFree(drg);
    cudaFree(drc); cudaFree(ddpre);
    if (!in_place) cudaFree(dg);
    if (ddcp != ddc) cudaFree(ddcp);
    cudaFree(ddc);
    free(pre); free(cp); free(rg); free(rc); free(rh); free(gg); free(gc); free(gh);
    free(dh); free(dc); free(rdpre); free(rdcp); free(sev); free(gdpre); free(gdcp);
}

static void lstm_all(const table *t)
{
    for (int first = 0; first < 2; first++)
        for (int last = 0; last < 2; last++) {
            lstm_case(t, 32, 256, first, last, 0, first == 0 && last == 0); /* lstm's sizes */
            lstm_case(t, 3, 5, first, last, 1, 0);                           /* odd: scalar */
        }
    lstm_case(t, 32, 256, 0, 0, 1, 0);
}

/* ---- AdamW ---- */

static void adamw_case(const table *t, long n, int off, int plant)
{
    char what[96];
    snprintf(what, sizeof what, "%s adamw n %ld offset %d", t->name, n, off);
    const size_t m = (size_t)n + off;
    const float lr = 1e-3f, b1 = 0.9f, b2 = 0.999f, eps = 1e-8f, wd = 0.01f;
    float *p = frand(m), *mo = fbuf(m), *v = fbuf(m), step = 0.0f; /* moments from zero */
    float *dp = dev_f(p, m), *dm = dev_f(mo, m), *dv = dev_f(v, m), *dt = dev_f(&step, 1);
    for (int s = 0; s < 3; s++) {
        float *g = frand(m), *dg = dev_f(g, m);
        EXPECT(t->ops->adamw(n, dp + off, dg + off, dm + off, dv + off, dt, lr, b1, b2, eps, wd,
                             vs()) == 0, "%s: %s", what, err_get());
        EXPECT(REF->adamw(n, p + off, g + off, mo + off, v + off, &step, lr, b1, b2, eps, wd,
                          NULL) == 0, "%s ref: %s", what, err_get());
        sync_ok();
        cudaFree(dg);
        free(g);
    }
    float *gp = host_of(dp, m), *gm = host_of(dm, m), *gv = host_of(dv, m), gt = NAN;
    to_host(&gt, dt, sizeof gt);
    EXPECT(gt == 3.0f && step == 3.0f, "%s: step count %g (reference %g), not 3", what, gt, step);
    EXPECT(close_to(what, gp + off, p + off, n, PW_K, -1), "%s: p", what);
    EXPECT(close_to(what, gm + off, mo + off, n, PW_K, -1), "%s: m", what);
    EXPECT(close_to(what, gv + off, v + off, n, PW_K, -1), "%s: v", what);
    if (plant) EXPECT(!close_to(what, gp + off, p + off, n, PW_K, 9), "%s: a planted error in p "
                      "passed", what);
    cudaFree(dp); cudaFree(dm); cudaFree(dv); cudaFree(dt);
    free(p); free(mo); free(v); free(gp); free(gm); free(gv);
}

static void adamw_all(const table *t)
{
    for (int off = 0; off < 2; off++) {
        adamw_case(t, 1001, off, off == 0);
        adamw_case(t, 1024, off, 0);
    }
    adamw_case(t, 128 * 512, 0, 0); /* gpt's mlp.c_fc.weight */
}

/* ---- refusals ---- */

static void bad_arguments(const table *t)
{
    float *d = dev_nan(256);
    int *di = (int *)dev_nan(64); /* never read (refused first) */
    void *s = vs();
    const train_ops *o = t->ops;
#define REFUSED(call, msg)                                                                 \
    do {                                                                                   \
        err_clear();                                                                       \
        EXPECT((call) != 0 && *err_get(), "%s: %s accepted", t->name, msg);               \
    } while (0)
    REFUSED(o->gemm_batched(0, 0, 4, 4, 4, d, 4, 16, d, 4, 16, 0.0f, d, 4, 16, 0, s),
            "gemm_batched batch=0");
    REFUSED(o->gemm_batched(0, 0, 4, 4, 4, d, 4, -16, d, 4, 16, 0.0f, d, 4, 16, 2, s),
            "gemm_batched sA=-16");
    REFUSED(o->gemm_batched(0, 0, 4, 4, 4, d, 4, 16, d, 4, 16, 0.0f, d, 4, 0, 2, s),
            "gemm_batched sC=0 with batch 2");
    REFUSED(o->gemm_batched(0, 0, 4, 4, 4, d, 4, 16, d, 4, 16, 0.0f, d, 4, 8, 2, s),
            "gemm_batched sC=8 < 16: C matrices overlapping");
    REFUSED(o->gemm_batched(0, 0, 4, 4, 4, d, 4, 16, d, 4, 16, 0.0f, d, 12, 3, 3, s),
            "gemm_batched ldc=12 sC=3: C matrices side by side, overlapping");
    REFUSED(o->gemm_batched(0, 0, 4, 4, 4, d, 3, 16, d, 4, 16, 0.0f, d, 4, 16, 2, s),
            "gemm_batched lda=3 < K=4");
    REFUSED(o->gemm_batched(0, 1, 4, 4, 5, d, 5, 20, d, 4, 20, 0.0f, d, 4, 16, 2, s),
            "gemm_batched B^T ldb=4 < K=5");
    REFUSED(o->gemm_batched(0, 0, 0, 4, 4, d, 4, 16, d, 4, 16, 0.0f, d, 4, 16, 2, s),
            "gemm_batched M=0");
    REFUSED(o->add(-1, d, d, d, s), "add n=-1");
    REFUSED(o->add(4, d, NULL, d, s), "add b=NULL");
    REFUSED(o->permute(2, -1, 2, 2, d, d + 64, s), "permute B=-1");
    REFUSED(o->permute(2, 2, 2, 2, d, d, s), "permute y = x");
    REFUSED(o->attn_softmax(-1, 4, 1.0f, d, d, s), "attn_softmax rows=-1");
    REFUSED(o->attn_softmax(4, 0, 1.0f, d, d, s), "attn_softmax T=0");
    REFUSED(o->attn_softmax_bwd(4, -2, 1.0f, d, d, d, s), "attn_softmax_bwd T=-2");
    REFUSED(o->embedding(-1, 4, di, 4, d, d, 0, s), "embedding rows=-1");
    REFUSED(o->embedding(4, 4, di, 0, d, d, 0, s), "embedding vocab=0");
    REFUSED(o->embedding_bwd(4, -4, di, 4, d, d, s), "embedding_bwd dim=-4");
    REFUSED(o->layernorm(4, 0, d, d, d, d + 64, d, d, s), "layernorm dim=0");
    REFUSED(o->layernorm(4, 8, d, d, d, d, d, d, s), "layernorm y = x");
    REFUSED(o->layernorm_bwd(-4, 8, d, d, d, d, d, d + 64, d, d, s), "layernorm_bwd rows=-4");
    REFUSED(o->layernorm_bwd(4, 8, d, d, d, d, d, d, d, d, s), "layernorm_bwd dx = dy");
    REFUSED(o->gelu(-3, d, d, s), "gelu n=-3");
    REFUSED(o->gelu_bwd(-3, d, d, d, s), "gelu_bwd n=-3");
    REFUSED(o->lstm_cell(-1, 4, d, NULL, d, d, d, s), "lstm_cell rows=-1");
    REFUSED(o->lstm_cell(2, -4, d, NULL, d, d, d, s), "lstm_cell H=-4");
    REFUSED(o->lstm_cell_bwd(2, -4, d, NULL, d, NULL, d, d, NULL, s), "lstm_cell_bwd H=-4");
    REFUSED(o->adamw(-5, d, d, d, d, d, 1e-3f, 0.9f, 0.999f, 1e-8f, 0.01f, s), "adamw n=-5");
    REFUSED(o->adamw(4, d, d, d, d, d, 1e-3f, 1.0f, 0.999f, 1e-8f, 0.01f, s), "adamw b1=1");
    REFUSED(o->adamw(4, d, d, d, d, d, 1e-3f, 0.9f, -0.5f, 1e-8f, 0.01f, s), "adamw b2=-0.5");
#undef REFUSED
    /* empty tensors are no work */
    EXPECT(o->add(0, d, d, d, s) == 0 && o->permute(0, 3, 4, 5, d, d + 64, s) == 0 &&
           o->attn_softmax(0, 8, 1.0f, d, d, s) == 0 && o->gelu(0, d, d, s) == 0 &&
           o->embedding(0, 8, di, 4, d, d, 0, s) == 0 &&
           o->lstm_cell(0, 8, d, NULL, d, d, d, s) == 0 && o->layernorm(0, 8, d, d, d, d + 64, d,
                                                                       d, s) == 0,
           "%s: an empty op failed: %s", t->name, err_get());
    sync_ok();
    cudaFree(d);
    cudaFree(di);
}

/* What only the device sees shows as NaN: an id outside the vocabulary, a step
 * count that is not a whole number. */
static void device_side_nan(const table *t)
{
    const int dim = 4, vocab = 3;
    int ids[2] = {1, 3}; /* 3 >= vocab */
    float tab[12], y[8], dt[12], g[8];
    for (int i = 0; i < 12; i++) tab[i] = (float)i;
    for (int i = 0; i < 8; i++) g[i] = 1.0f;
    int *dids = (int *)dev_from(ids, sizeof ids);
    float *dtab = dev_f(tab, 12), *dy = dev_nan(8), *dg = dev_f(g, 8), *ddt = dev_nan(12);
    EXPECT(t->ops->embedding(2, dim, dids, vocab, dtab, dy, 0, vs()) == 0, "%s: %s", t->name,
           err_get());
    EXPECT(t->ops->embedding_bwd(2, dim, dids, vocab, dg, ddt, vs()) == 0, "%s: %s", t->name,
           err_get());
    sync_ok();
    to_host(y, dy, sizeof y);
    to_host(dt, ddt, sizeof dt);
    EXPECT(y[0] == 4.0f && isnan(y[4]) && isnan(y[7]), "%s: id 3 of vocab 3: y %g %g", t->name,
           y[0], y[4]);
    EXPECT(dt[4] == 1.0f && isnan(dt[0]), "%s: embedding_bwd id 3 of vocab 3: dtable %g %g",
           t->name, dt[4], dt[0]);
    float p[4] = {1, 2, 3, 4}, zero[4] = {0, 0, 0, 0}, half = 0.5f;
    float *dp = dev_f(p, 4), *dm = dev_f(zero, 4), *dv = dev_f(zero, 4), *dst = dev_f(&half, 1);
    EXPECT(t->ops->adamw(4, dp, dg, dm, dv, dst, 1e-3f, 0.9f, 0.999f, 1e-8f, 0.01f, vs()) == 0,
           "%s: %s", t->name, err_get());
    sync_ok();
    to_host(p, dp, sizeof p);
    EXPECT(isnan(p[0]) && isnan(p[3]), "%s: adamw with step count 0.5: p %g", t->name, p[0]);
    cudaFree(dids); cudaFree(dtab); cudaFree(dy); cudaFree(dg); cudaFree(ddt);
    cudaFree(dp); cudaFree(dm); cudaFree(dv); cudaFree(dst);
}

int main(void)
{
    int ndev = 0;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev < 1) {
        printf("no CUDA device: skipped\n");
        return 77;
    }
    CUDA_OK(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking));
    for (int i = 0; i < NTABLES; i++) {
        const table *t = &TABLES[i];
        const int before = test_failures;
        gemm_batched_all(t);
        add_all(t);
        permute_all(t);
        attn_all(t);
        embedding_all(t);
        layernorm_all(t);
        gelu_all(t);
        lstm_all(t);
        adamw_all(t);
        bad_arguments(t);
        device_side_nan(t);
        printf("%-9s every sequence op: %s\n", t->name, test_failures == before ? "ok" : "FAILED");
    }
    gemm_cublas_release();
    CUDA_OK(cudaStreamDestroy(g_stream));
    TEST_END();
}
