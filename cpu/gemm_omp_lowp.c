/* cpu/gemm_omp_lowp.c - cpu-omp at bf16 and fp16: gemm_cpu_omp_dt and
 * gemm_cpu_omp_dt_path (contract in gemm_cpu.h), the dispatcher and driver.
 *
 * Paths, chosen per call from cpu_features() (probed once) by
 * gemm_lowp_choose; gemm_cpu_omp_dt_path names the one taken:
 *   bf16  "amx-bf16 tdpbf16ps"              AMX-BF16 + AVX512-BF16, and Linux
 *                                           grants the tiles (asked once);
 *         "avx512-bf16 vdpbf16ps"           AVX512-BF16 (+BW, VL);
 *         "convert in packing + fp32 fma"   otherwise;
 *   fp16  "f16c convert in packing + fp32 fma"  F16C;
 *         "convert in packing + fp32 fma"   otherwise.
 * BENCH_CPU_LOWP_PATH=portable (read at each call) forces the last of each,
 * so tests cover it on any CPU; =avx512-bf16 keeps bf16 off AMX, so a CPU
 * with AMX tests the vdpbf16ps kernels and the routes built on them.  There is no fp16 arithmetic path:
 * AVX512-FP16 would accumulate in fp16, which the contract forbids.
 *
 * The driver is the fp32 GEMM's (gemm_omp.c: gemm_plan_make, gemm_job_run:
 * one packed K x NC panel of B shared by all threads, work items of row
 * chunks x sliver groups handed out dynamically, yielding barriers), with
 * two differences:
 *   - K is not blocked.  C is 16-bit and must be rounded once from the full
 *     fp32 sum, so a K block's partial sums would need an fp32 copy of C;
 *     instead each micro-kernel call runs over all of K with its tile in
 *     registers and writes the rounded result.  The A block is therefore
 *     MC x K: MC is cut (whole MR panels) to keep it in LOWP_A_BYTES.
 *     Blocking K was tried (helper branch h-bf16k, not kept): KC
 *     256-1024, fp32 partials in C (fp32 modes) or a per-thread buffer of
 *     MC x 16 slivers, rounded once after the last block.  It was slower
 *     everywhere measured (1 thread, min of 8-20 calls, blocked against
 *     unblocked alternating in one process: vdpbf16ps 0.95-0.97 at 2048^3,
 *     1024x1024x2048, 4608x512x1568 in both LOWP_C_DT and LOWP_C_F32; the
 *     converting path 0.93-0.97): the K x 32 B sliver streamed from L2 is
 *     kept fed by the prefetchers, and each block's partial load/store and
 *     A repacking cost more than L1 residency saved.
 *   - Operands are 16-bit: packed as pairs (vdpbf16ps, AMX) or converted to
 *     fp32 (portable, F16C) by the path's own packing routines.
 * Small products run on one thread (GEMM_SERIAL_FLOPS, as fp32); there is no
 * separate small, thin or matrix-vector path: those shapes run blocked.
 * gemm_lowp_ex (the convolution's entry) opens the output: a per-row fp32
 * bias that starts the sums, and fp32 C (stored, or added to: partial sums
 * over several calls), each tile still finished from its one fp32 sum.
 */
#include "test_hooks.h"
#include "gemm_cpu.h"
#include "gemm_omp_impl.h"
#include "gemm_omp_lowp.h"
#include "cpu_features.h"
#include "errmsg.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

/* Bytes of one thread's packed A block (MC x K), which shares a core's L2
 * (1 MiB on the Zen 4 this was written on) with the B micro-panel (K x NR):
 * at K = 2048, 96 rows of bf16 (the fp32 GEMM's MC) or 48 of fp32.  Not
 * swept: the machine was too loaded to resolve a few percent. */
#ifndef LOWP_A_BYTES
#define LOWP_A_BYTES (384 * 1024)
#endif

int gemm_lowp_choose(dtype_t dt, unsigned features, int (*amx_permit)(void), int force)
{
    const int portable = force == LOWP_FORCE_PORTABLE;
    if (dt == DTYPE_FP16) return !portable && (features & CPU_F_F16C) ? LOWP_F16C : LOWP_PORTABLE;
    if (dt != DTYPE_BF16) return -1;
    if (portable) return LOWP_PORTABLE;
    const unsigned amx = CPU_F_AMX_BF16 | CPU_F_AVX512BF16;
    if (force != LOWP_FORCE_NO_AMX && (features & amx) == amx && amx_permit()) return LOWP_AMX;
    return features & CPU_F_AVX512BF16 ? LOWP_AVX512BF16 : LOWP_PORTABLE;
}

/* BENCH_CPU_LOWP_PATH: portable, or avx512-bf16 (AMX not used). */
static int force_portable(void)
{
    const char *e = getenv(HOOK_CPU_LOWP_PATH);
    return !e ? 0 : !strcmp(e, "portable") ? LOWP_FORCE_PORTABLE
                    : !strcmp(e, "avx512-bf16") ? LOWP_FORCE_NO_AMX : 0;
}

static const gemm_lowp_kern *kern_of(gemm_lowp_path path)
{
    switch (path) {
    case LOWP_AMX: return gemm_lowp_kern_amx();
    case LOWP_AVX512BF16: return gemm_lowp_kern_avx512bf16();
    case LOWP_F16C: return gemm_lowp_kern_cvt(1);
    default: return gemm_lowp_kern_cvt(0);
    }
}

const char *gemm_cpu_omp_dt_path(dtype_t dt)
{
    int path = gemm_lowp_choose(dt, cpu_features(), cpu_amx_permit, force_portable());
    return path < 0 ? "unsupported dtype" : kern_of((gemm_lowp_path)path)->name;
}

/* One call: the job (first), its kernel and operands (read-only in threads). */
typedef struct {
    gemm_job job;
    const gemm_lowp_kern *k;
    dtype_t dt;
    int Kp;
    const uint16_t *A, *B;
    long lda, ldb, ldc;
    char *C;       /* element (i, j): gemm_lowp_tile_seg */
    gemm_lowp_cmode cm;
    const float *bias;
} lowp_blk;

/* gemm_job.pack_b: K is one block (pc == 0, kc == K). */
static void lowp_pack_b(const gemm_job *j, int pc, int kc, int jc, int nc, void *dst, int s0,
                        int s1)
{
    const lowp_blk *g = (const lowp_blk *)j;
    (void)pc;
    g->k->pack_b(g->dt, kc, g->Kp, nc, g->B + jc, g->ldb, dst, s0, s1);
}

void gemm_lowp_tile_seg(const gemm_lowp_kern *k, dtype_t dt, int Kp, const void *ap,
                        const void *bp, const float *bias, gemm_lowp_cmode cm, void *C, long ldc,
                        long seg, long seg_stride, int i, long j, int h, int w)
{
    const size_t cs = cm == LOWP_C_DT ? 2 : 4;
    if (seg <= 0 || j / seg == (j + w - 1) / seg) { /* one segment: C addressed directly */
        const long c0 = seg > 0 ? j / seg * seg_stride + j % seg : j;
        k->tile(dt, Kp, ap, bp, bias, cm, (char *)C + ((size_t)i * ldc + c0) * cs, ldc, h, w);
        return;
    }
    /* computed into t (h x NR, row stride NR; the old values loaded first
     * for LOWP_C_F32_ADD), then each segment's piece stored */
    _Alignas(64) float t[GEMM_MAX_TILE];
    for (int pass = 0; pass < 2; ++pass) {
        if (pass) k->tile(dt, Kp, ap, bp, bias, cm, t, k->nr, h, w);
        else if (cm != LOWP_C_F32_ADD) continue;
        for (long c = 0; c < w;) {
            const long jj = j + c, n = seg - jj % seg < w - c ? seg - jj % seg : w - c;
            char *cp = (char *)C + ((jj / seg) * seg_stride + jj % seg + (long)i * ldc) * (long)cs;
            for (int y = 0; y < h; ++y) {
                char *tp = (char *)t + ((size_t)y * k->nr + c) * cs, *q = cp + (size_t)y * ldc * cs;
                if (pass) memcpy(q, tp, cs * (size_t)n);
                else memcpy(tp, q, cs * (size_t)n);
            }
            c += n;
        }
    }
}

/* gemm_job.item: pack the item's rows of A (all of K), then every tile of
 * its rows x slivers, each over all of K. */
static void lowp_item(const gemm_job *j, int jc, int nc, int ns, int it, const void *Bp,
                      void *myA)
{
    const lowp_blk *g = (const lowp_blk *)j;
    const gemm_lowp_kern *k = g->k;
    const int MR = k->mr, NR = k->nr;
    const size_t apanel = (size_t)MR * g->Kp * k->esize, bsliver = (size_t)NR * g->Kp * k->esize;
    int ic, mc, s0, s1;
    gemm_item_range(&j->p, ns, it, &ic, &mc, &s0, &s1);
    if (mc <= 0) return;
    k->pack_a(g->dt, j->p.K, g->Kp, mc, g->A + (size_t)ic * g->lda, g->lda, myA);
    for (int s = s0; s < s1; ++s) {
        const int w = nc - s * NR < NR ? nc - s * NR : NR;
        const char *bp = (const char *)Bp + (size_t)s * bsliver;
        for (int ir = 0; ir < mc; ir += MR)
            gemm_lowp_tile_seg(k, g->dt, g->Kp, (const char *)myA + (size_t)(ir / MR) * apanel, bp,
                               g->bias ? g->bias + ic + ir : NULL, g->cm, g->C, g->ldc, 0, 0,
                               ic + ir, jc + (long)s * NR, mc - ir < MR ? mc - ir : MR, w);
    }
}

int gemm_lowp_tile_f32(float *t, int ldt, const float *bias, gemm_lowp_cmode cm, void *C,
                       long ldc, int h, int w)
{
    for (int y = 0; y < h; ++y) {
        float *r = t + (size_t)y * ldt, *c = (float *)C + (size_t)y * ldc;
        if (bias)
            for (int x = 0; x < w; ++x) r[x] += bias[y];
        if (cm == LOWP_C_F32)
            memcpy(c, r, sizeof(float) * (size_t)w);
        else if (cm == LOWP_C_F32_ADD)
            for (int x = 0; x < w; ++x) c[x] += r[x];
    }
    return cm != LOWP_C_DT;
}

/* An empty sum (K <= 0): C = (C +) bias, or 0. */
static void empty_sum(dtype_t dt, int M, int N, const float *bias, gemm_lowp_cmode cm, void *C,
                      int ldc)
{
    for (int i = 0; i < M; ++i) {
        const float v = bias ? bias[i] : 0.0f;
        for (int j = 0; j < N; ++j) {
            const size_t e = (size_t)i * ldc + j;
            if (cm == LOWP_C_DT) dtype_set(dt, C, e, v);
            else if (cm == LOWP_C_F32) ((float *)C)[e] = v;
            else ((float *)C)[e] += v;
        }
    }
}

int gemm_lowp_run(gemm_lowp_path path, dtype_t dt, int M, int N, int K, const void *A,
                  int lda, const void *B, int ldb, const float *bias, gemm_lowp_cmode cm,
                  void *C, int ldc)
{
    if (dt != DTYPE_BF16 && dt != DTYPE_FP16) {
        err_set("cpu-omp: no %s GEMM (bf16 and fp16 only)", dtype_name(dt));
        return -1;
    }
    if (((path == LOWP_AVX512BF16 || path == LOWP_AMX) && dt != DTYPE_BF16) ||
        (path == LOWP_F16C && dt != DTYPE_FP16)) {
        err_set("cpu-omp: low-precision path %d does not take %s", (int)path, dtype_name(dt));
        return -1;
    }
    if (M <= 0 || N <= 0) return 0;
    if (K <= 0) {
        empty_sum(dt, M, N, bias, cm, C, ldc);
        return 0;
    }
    const gemm_lowp_kern *k = kern_of(path);
    const int Kp = gemm_lowp_kp(k, K);
    int mc = (int)(LOWP_A_BYTES / (k->esize * (size_t)Kp)) / k->mr * k->mr;
    if (mc > k->mc) mc = k->mc;
    if (mc < k->mr) mc = k->mr;
    int nt = omp_get_max_threads();
    if (2.0 * M * N * K < GEMM_SERIAL_FLOPS) nt = 1;
    lowp_blk g = {.job = {.pack_b = lowp_pack_b, .item = lowp_item},
                  .k = k, .dt = dt, .Kp = Kp, .A = A, .B = B,
                  .lda = lda, .ldb = ldb, .ldc = ldc, .C = C,
                  .cm = cm, .bias = bias};
    gemm_plan_make(&g.job.p, k->mr, k->nr, mc, K, 4096, k->kq, k->esize, M, N, K, nt);
    return gemm_job_run(&g.job) ? -1 : 0;
}


int gemm_lowp_path_of(dtype_t dt)
{
    int path = gemm_lowp_choose(dt, cpu_features(), cpu_amx_permit, force_portable());
    if (path < 0) err_set("cpu-omp: no %s GEMM (bf16 and fp16 only)", dtype_name(dt));
    return path;
}

const gemm_lowp_kern *gemm_lowp_kern_of(gemm_lowp_path path) { return kern_of(path); }

size_t gemm_lowp_packed_a_bytes(const gemm_lowp_kern *k, int M, int K)
{
    const long Kp = gemm_lowp_kp(k, K), mp = (M + k->mr - 1) / k->mr;
    return (size_t)(mp * k->mr * Kp) * k->esize;
}

void gemm_lowp_pack_a(const gemm_lowp_kern *k, dtype_t dt, int M, int K, const void *A, int lda,
                      void *dst)
{
    const int Kp = gemm_lowp_kp(k, K), mp = (M + k->mr - 1) / k->mr;
    const size_t apanel = (size_t)k->mr * Kp * k->esize;
    atomic_int arrived = 0;
#pragma omp parallel if (mp > 1 && (double)M * K > 65536.0)
    {
#pragma omp for schedule(static) nowait
        for (int p = 0; p < mp; ++p) {
            const int n = M - p * k->mr < k->mr ? M - p * k->mr : k->mr;
            k->pack_a(dt, K, Kp, n, (const uint16_t *)A + (size_t)p * k->mr * lda, lda,
                      (char *)dst + (size_t)p * apanel);
        }
        omp_team_end(&arrived);
    }
}

int gemm_lowp_ex(dtype_t dt, int M, int N, int K, const void *A, int lda, const void *B,
                 int ldb, const float *bias, gemm_lowp_cmode cm, void *C, int ldc)
{
    const int path = gemm_lowp_path_of(dt);
    return path < 0 ? -1
                    : gemm_lowp_run((gemm_lowp_path)path, dt, M, N, K, A, lda, B, ldb, bias, cm, C,
                                    ldc);
}

int gemm_cpu_omp_dt(dtype_t dt, int M, int N, int K, const void *A, int lda, const void *B,
                    int ldb, void *C, int ldc)
{
    return gemm_lowp_ex(dt, M, N, K, A, lda, B, ldb, NULL, LOWP_C_DT, C, ldc);
}
