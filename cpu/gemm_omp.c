/* cpu/gemm_omp.c - hand-written OpenMP + SIMD single-precision GEMM (cpu-omp).
 *
 * C = alpha*op(A)*op(B) + beta*C, row-major fp32, contract in gemm_cpu.h;
 * op(X) is X or X^T (gemm_cpu_omp_t).  This file is the driver; the
 * micro-kernels and packing routines are in gemm_omp_kern.c, the
 * matrix-vector path in gemm_omp_gemv.c, the direct path in gemm_omp_small.c.
 *
 * Paths, chosen per call by the route table at the end of this file
 * (gemm_route_pick; BENCH_CPU_GEMM_ROUTE=name forces one, a test hook):
 *   M == 1 or N == 1  -> matrix-vector (gemm_omp_gemv): no packing, no tile
 *                        padding; the matrix is streamed once (4096x1x4096:
 *                        1.3-3x OpenBLAS, which runs it as a GEMM).
 *   small or thin     -> direct (gemm_omp_small, AVX-512F): A read in place,
 *                        B too unless B^T; below 2*160^3 FLOPs, or with a
 *                        dimension <= 64 (use_direct, measured there).
 *   otherwise         -> the blocked GEMM below, on C, or on C^T = op(B)^T
 *                        op(A)^T where that pads >10% fewer MR x NR tiles
 *                        (N = 10 fills 10/32 of a tile's columns, but 10/12
 *                        of its rows); C^T's tiles are written back through
 *                        columns, a scalar loop, worth a few % of the call.
 * The blocked GEMM's plan and parallel phases (gemm_plan_make, gemm_job_run)
 * are shared with the bf16/fp16 GEMM (gemm_omp_lowp.c), which packs and
 * computes its own way inside them.
 * Transposes are native: a block whose rows are contiguous (B, A^T) and one
 * whose columns are (A, B^T) each have a packing routine producing the same
 * panels, so the micro-kernel never knows and nothing is transposed first.
 *
 * The blocked GEMM has the BLIS/GotoBLAS structure:
 *   jc loop over N in NC columns  -> the K x NC panel of B is packed once
 *                                    (all K blocks), shared by all threads, L3,
 *   work items (ic rows x sliver group), handed out dynamically:
 *     pc loop over K in KC        -> beta folded into the first K block,
 *       A block (<= MC x KC) packed per thread (that core's private L2),
 *       jr loop over NR columns   -> one B micro-panel (KC x NR), L1/L2,
 *       ir loop over MR rows      -> A micro-panels, reused from L1/L2,
 *   micro-kernel: MR x NR tile of C held in vector registers, rank-1 updates.
 * Packed panels are zero-padded to whole MR/NR tiles, so the micro-kernel
 * always runs on full tiles; partial tiles of C go through a small aligned
 * buffer and a scalar write-back.  alpha is applied at write-back.
 * Blocking, for the target Xeon (Sapphire Rapids class; per core 48 KiB L1d,
 * 2 MiB L2; 105 MiB shared L3), chosen by a sweep of KC x MC at n=1024/2048
 * with 1 and 2 threads (a broad plateau: KC 384-512, MC 72-96, within ~1%):
 *   KC=384: B micro-panel KC*NR*4 = 48 KiB (about L1; the L1/L2 prefetchers
 *           keep it fed), long enough to amortise the C tile load/store.
 *           K is cut into equal blocks (a multiple of 8) so no tiny tail block.
 *   MC=96:  A block MC*KC*4 = 144 KiB, well inside L2, so the A micro-panels
 *           (18 KiB each) and the B panel stream without evicting each other;
 *           small MC measured 2-5% faster than MC=240..960.
 *   NC<=4096, and K*NC*4 <= 16 MiB: the packed panel lives in L3 (105 MiB);
 *           n <= 2048 needs a single panel, so only 2 barriers per call.
 * Threads: omp_get_max_threads(), but one below GEMM_SERIAL_FLOPS = 2*160^3,
 * the measured crossover (one thread's time / two threads', the direct path
 * against the blocked one: 0.23 at 48^3, 0.58 at 112^3, 0.95-1.01 at 160^3,
 * 1.08-1.16 at 192^3, 1.5 at 256^3): a parallel call costs ~5 us more.  Work
 * items are row chunks (whole MR panels, at most MC rows, a multiple of tm
 * of them so that equal threads get equal shares) times tn groups of NR
 * slivers; tm x tn = threads, the factorisation with the smallest
 * per-thread share, ties going to M while the packed panel fits in L2 and
 * to N (within 5%) when it does not, so each thread rereads only its part
 * of the panel, from its own L2 (256x1024xK at 2 threads: ~0.87 -> 0.95x).  Items and B packing use
 * schedule(dynamic): on this shared 2-vCPU machine a thread preempted by
 * another process would otherwise stall the whole call (measured: median
 * 19 -> 141 GFLOP/s at n=512 under load).  Phases end in gemm_yield_barrier
 * rather than an OpenMP barrier (which spins ~12 ms here before sleeping, on
 * the core a co-scheduled partner may need; see omp_team.h).  GOMP
 * still spins between regions and in the region's final barrier, so under
 * heavy outside load 2-thread calls can lose a time slice each; the default
 * OMP_WAIT_POLICY is the user's to change (passive removes it).
 * Buffers: one per calling thread (packed B panel + one A block per worker),
 * kept between calls and grown when a call needs more (gemm_scratch), freed
 * when that thread exits: no allocation per call.  Those of 2 MiB or more
 * are 2 MiB-aligned and madvise(MADV_HUGEPAGE)d (THP is madvise-only here):
 * 1 thread, 1024^3 to 4096^3 1.02-1.03x faster.
 */
#define _DEFAULT_SOURCE /* sched_yield, madvise(MADV_HUGEPAGE) */
#include "test_hooks.h"
#include "gemm_cpu.h"
#include "gemm_omp_impl.h"
#include "errmsg.h"

#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

/* ---- per-thread scratch buffers -------------------------------------------- */
typedef struct {
    float *p[SCRATCH_SLOTS];
    size_t cap[SCRATCH_SLOTS];
    size_t asked[SCRATCH_SLOTS]; /* the largest ask since generation `gen` */
    unsigned gen;
    int registered;
} scratch_set;

/* gemm_scratch_asked: the generation of the count and the sums per slot. */
static _Atomic unsigned asked_gen;
static _Atomic unsigned long long asked_sum[SCRATCH_SLOTS];

static _Thread_local scratch_set scratch;
static pthread_key_t scratch_key;
static pthread_once_t scratch_once = PTHREAD_ONCE_INIT;
static int scratch_key_ok;

/* Thread exit: the key's value is this thread's scratch_set. */
static void scratch_free(void *v)
{
    scratch_set *s = v;
    for (int i = 0; i < SCRATCH_SLOTS; ++i) {
        free(s->p[i]);
        s->p[i] = NULL;
        s->cap[i] = 0;
    }
}

static void scratch_key_make(void)
{
    scratch_key_ok = pthread_key_create(&scratch_key, scratch_free) == 0;
}

#define HUGE_PAGE ((size_t)2 << 20)

void gemm_scratch_asked_reset(void)
{
    for (int i = 0; i < SCRATCH_SLOTS; ++i) asked_sum[i] = 0;
    asked_gen++;
}

double gemm_scratch_asked(scratch_slot slot) { return (double)asked_sum[slot]; }

/* Counts an ask of bytes of slot for gemm_scratch_asked. */
static void asked_count(scratch_set *s, scratch_slot slot, size_t bytes)
{
    const unsigned gen = asked_gen;
    if (s->gen != gen) {
        for (int i = 0; i < SCRATCH_SLOTS; ++i) s->asked[i] = 0;
        s->gen = gen;
    }
    if (bytes <= s->asked[slot]) return;
    asked_sum[slot] += bytes - s->asked[slot];
    s->asked[slot] = bytes;
}

float *gemm_scratch(scratch_slot slot, size_t bytes)
{
    scratch_set *s = &scratch;
    asked_count(s, slot, bytes);
    if (bytes <= s->cap[slot]) return s->p[slot];
    if (!s->registered) { /* so the buffers go when the thread does */
        pthread_once(&scratch_once, scratch_key_make);
        s->registered = scratch_key_ok && pthread_setspecific(scratch_key, s) == 0;
    }
    free(s->p[slot]);
    bytes = (bytes + bytes / 4 + 4095) & ~(size_t)4095; /* room to grow a little */
    if (bytes < HUGE_PAGE) {
        s->p[slot] = aligned_alloc(64, bytes);
    } else { /* whole 2 MiB pages, asked to be huge: the packed B panel of a
              * big product is walked sliver by sliver, 12 small pages each */
        bytes = (bytes + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
        s->p[slot] = aligned_alloc(HUGE_PAGE, bytes);
#ifdef MADV_HUGEPAGE
        if (s->p[slot]) (void)madvise(s->p[slot], bytes, MADV_HUGEPAGE); /* a hint only */
#endif
    }
    s->cap[slot] = s->p[slot] ? bytes : 0;
    return s->p[slot];
}

/* A product with a dimension this short or shorter takes the direct path. */
#ifndef GEMM_DIRECT_THIN
#define GEMM_DIRECT_THIN 64
#endif
/* C^T is computed instead of C only when its padded tile area is below this
 * fraction of C's: 256x1024xK (K = 784, 1024, and the transposed variants)
 * pads 2.3% less as C^T, but C^T's transposed write-back cost 10-15% there
 * (2 threads, 0.75-0.80x -> 0.86-0.89x of OpenBLAS). */
#ifndef GEMM_SWAP_GAIN
#define GEMM_SWAP_GAIN 0.9
#endif
/* Below this many FLOPs the direct path is taken whatever the shape. */
#ifndef GEMM_SMALL_FLOPS
#define GEMM_SMALL_FLOPS (2.0 * 160 * 160 * 160)
#endif

/* The direct path (gemm_omp_small.c: A never packed, B only when B^T) wins
 * where packing is a large share of the work, i.e. one dimension is short,
 * or the product is small; it has no K blocking, so K and A are bounded to
 * keep a K x 32 panel of B and all of op(A) in L2.  Measured, 1 thread,
 * direct / blocked time: 64x1568x128 0.80, 128x1568x64 0.68, 256x1024x10
 * 0.37, 127x129x131 0.81, 64x128x1568 1.04; but 256^3 1.06, 512^3 1.18,
 * 256x1024x1024 2.6 (A's rows 4 KiB apart alias in L1 without packing). */
static int use_direct(int M, int N, int K)
{
    int least = M < N ? M : N;
    if (K < least) least = K;
    if (K > 2048 || (double)M * K > 256.0 * 1024) return 0;
    return least <= GEMM_DIRECT_THIN || 2.0 * M * N * K < GEMM_SMALL_FLOPS;
}

/* gemm_yield_barrier spins this long (pausing) before it yields. A partner
 * thread that runs arrives within microseconds; sched_yield hands this CPU
 * to any other runnable process, which then keeps it for a time slice (a
 * nice 19 busy loop beside a 2-thread run: cpu-omp training steps 2.3-4.7x
 * slower, `bench --neighbour busy`). Yielding stays for a partner that
 * waits for this very CPU (more threads than CPUs), after the spin. */
#define BARRIER_SPIN_NS 50000L

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

void gemm_yield_barrier(atomic_int *count, int target)
{
    atomic_fetch_add_explicit(count, 1, memory_order_acq_rel);
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 1; atomic_load_explicit(count, memory_order_acquire) < target; i++) {
        cpu_relax();
        if (i % 64) continue;
        clock_gettime(CLOCK_MONOTONIC, &t);
        if ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) > BARRIER_SPIN_NS)
            break;
    }
    while (atomic_load_explicit(count, memory_order_acquire) < target) sched_yield();
}

static size_t round64(size_t bytes) { return (bytes + 63) & ~(size_t)63; }

/* Tiles of C an MR x NR kernel computes for an M x N product (edges padded). */
static double padded_area(const gemm_kern_cfg *cf, int M, int N)
{
    return (double)((M + cf->mr - 1) / cf->mr * cf->mr) * ((N + cf->nr - 1) / cf->nr * cf->nr);
}

/* ---- the blocked product's plan and its parallel phases (shared) ------------ */
void gemm_plan_make(gemm_plan *p, int mr, int nr, int mc, int kc, int nc, int kq, size_t esize,
                    int M, int N, int K, int nt)
{
    p->mr = mr; p->nr = nr; p->M = M; p->N = N; p->K = K; p->kq = kq; p->esize = esize;
    /* K blocks of equal size (a multiple of 8), e.g. K=513 -> 2 x 264, not 384+129 */
    const int nkb = (K + kc - 1) / kc;
    int KC = ((K + nkb - 1) / nkb + 7) & ~7;
    if (KC > K) KC = K;
    const long Kp = (K + kq - 1) / kq * kq, KCp = (KC + kq - 1) / kq * kq; /* packed lengths */
    /* B panel = all of K x NC, packed once (<= 16 MiB, so it stays in L3) */
    int NC = (int)((16L << 20) / ((long)esize * Kp)) / nr * nr;
    if (NC > nc) NC = nc;
    if (NC < nr) NC = nr;
    if (NC > N) NC = N;
    const int mp = (M + mr - 1) / mr, np = (NC + nr - 1) / nr; /* panel counts */

    if ((long)nt > (long)mp * np) nt = mp * np;
    if (nt < 1) nt = 1;
    /* Factor nt = tm * tn minimising the largest per-thread tile share.  Ties
     * prefer splitting M (threads then share the B micro-panels) while the
     * packed K x NC panel fits in a core's L2, and splitting N when it does
     * not (and then even at up to 5% more tiles): each thread then rereads only its 1/tn of the panel for every row
     * chunk, from its own L2 rather than L3 (2 threads, 256x1024x784 and
     * 256x1024x1024, all transposes: 0.84-0.86x -> 0.90-0.95x of OpenBLAS). */
    const int split_n = (double)Kp * np * nr * esize > GEMM_L2_BYTES;
    int tm = nt, tn = 1;
    {
        double best = -1.0;
        for (int a = split_n ? 1 : nt; a >= 1 && a <= nt; a += split_n ? 1 : -1) {
            if (nt % a) continue;
            int b = nt / a;
            double cost = (double)((mp + a - 1) / a) * ((np + b - 1) / b);
            if (split_n && b > 1) cost *= 0.95; /* 256x784x1024: 286 vs 275 tiles */
            if (best < 0 || cost < best) { best = cost; tm = a; tn = b; }
        }
    }
    const int MC = mc < mp * mr ? mc : mp * mr;
    /* Work items: nim row chunks (<= MC rows, whole MR panels, a multiple of
     * tm of them so equal threads get equal shares) x tn sliver groups. */
    const int mcp = MC / mr;
    p->KC = KC;
    p->nkk = (K + KC - 1) / KC; /* K blocks actually used */
    p->NC = NC; p->mp = mp; p->MC = MC;
    p->nim = tm * ((mp + tm * mcp - 1) / (tm * mcp));
    p->tm = tm; p->tn = tn; p->nt = nt;
    p->bsz = round64(esize * (size_t)Kp * np * nr);
    p->asz = round64(esize * (size_t)KCp * MC);
}

int gemm_job_run(const gemm_job *j)
{
    const gemm_plan *p = &j->p;
    const int NR = p->nr, N = p->N, K = p->K, KC = p->KC, NC = p->NC, nkk = p->nkk;
    const int nt = p->nt, items = p->nim * p->tn;
    char *Bp = (char *)gemm_scratch(SCRATCH_PANELS, p->bsz + p->asz * (size_t)nt);
    if (!Bp) {
        err_set("cpu-omp GEMM: out of memory for the packed panels (%zu + %zu bytes)", p->bsz,
                p->asz * (size_t)nt);
        return 1;
    }
    char *Ap = Bp + p->bsz;

    /* Phases (pack a panel, compute it) end in gemm_yield_barrier, never in
     * an OpenMP barrier that spins (nowait): see gemm_omp_impl.h. */
    atomic_int arrived = 0;
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        const int team = omp_get_num_threads();
        int phase = 0;
        char *myA = Ap + p->asz * (size_t)omp_get_thread_num();

        for (int jc = 0; jc < N; jc += NC) {
            const int nc = N - jc < NC ? N - jc : NC;
            const int ns = (nc + NR - 1) / NR, nsg = (ns + 7) / 8;
            /* Pack the whole K x nc panel; dynamic scheduling everywhere, so a
             * thread the OS preempts does not hold back the others. */
#pragma omp for schedule(dynamic, 1) nowait
            for (int u = 0; u < nkk * nsg; ++u) {
                const int pc = u / nsg * KC, gi = u % nsg;
                const int kc = K - pc < KC ? K - pc : KC;
                const int e = 8 * gi + 8 < ns ? 8 * gi + 8 : ns;
                j->pack_b(j, pc, kc, jc, nc, Bp + (size_t)pc * ns * NR * p->esize, 8 * gi, e);
            }
            gemm_yield_barrier(&arrived, team * ++phase); /* the panel is complete */
#pragma omp for schedule(dynamic, 1) nowait
            for (int it = 0; it < items; ++it) j->item(j, jc, nc, ns, it, Bp, myA);
            gemm_yield_barrier(&arrived, team * ++phase); /* before the next panel's packing */
        }
    }
    return 0;
}

void gemm_item_range(const gemm_plan *p, int ns, int it, int *ic, int *mc, int *s0, int *s1)
{
    const int im = it / p->tn, in = it % p->tn;
    const int ie = (int)((long)p->mp * (im + 1) / p->nim) * p->mr;
    *ic = (int)((long)p->mp * im / p->nim) * p->mr;
    *mc = (ie < p->M ? ie : p->M) - *ic;
    *s0 = (int)((long)ns * in / p->tn);
    *s1 = (int)((long)ns * (in + 1) / p->tn);
}

/* ---- the fp32 blocked product ------------------------------------------------ */
/* One blocked call: its plan (first), operands and kernel (read-only in threads). */
typedef struct {
    gemm_job job;
    const gemm_kern_cfg *cf;
    int ta, tb;
    float alpha, beta;
    const float *A, *B;
    long lda, ldb, crs, ccs;
    float *C;
} blk;

/* gemm_job.pack_b: B's rows are contiguous unless tb. */
static void blocked_pack_b(const gemm_job *j, int pc, int kc, int jc, int nc, void *dst, int s0,
                           int s1)
{
    const blk *g = (const blk *)j;
    const long ldb = g->ldb;
    if (g->tb) gemm_pack_cols(kc, nc, j->p.nr, g->B + (size_t)jc * ldb + pc, ldb, dst, s0, s1);
    else gemm_pack_rows(kc, nc, j->p.nr, g->B + (size_t)pc * ldb + jc, ldb, dst, s0, s1);
}

/* gemm_job.item: work item it of the column panel [jc, jc + nc) (ns
 * slivers, packed in Bpv): a chunk of rows x a group of slivers, every K block. */
static void blocked_item(const gemm_job *j, int jc, int nc, int ns, int it, const void *Bpv,
                         void *myAv)
{
    const blk *g = (const blk *)j;
    const gemm_plan *p = &j->p;
    const gemm_kern_cfg *cf = g->cf;
    const int MR = p->mr, NR = p->nr, K = p->K, KC = p->KC;
    int ic, mc, s0, s1;
    gemm_item_range(p, ns, it, &ic, &mc, &s0, &s1);
    const long crs = g->crs, ccs = g->ccs, lda = g->lda;
    const float alpha = g->alpha;
    const float *Bp = Bpv;
    float *myA = myAv;
    _Alignas(64) float tile[GEMM_MAX_TILE];
    if (mc <= 0) return;
    for (int pc = 0; pc < K; pc += KC) {
        const int kc = K - pc < KC ? K - pc : KC;
        const float b = pc == 0 ? g->beta : 1.0f;
        const float *Bk = Bp + (size_t)pc * ns * NR;
        const int pa = (mc + MR - 1) / MR;
        if (g->ta) gemm_pack_rows(kc, mc, MR, g->A + (size_t)pc * lda + ic, lda, myA, 0, pa);
        else gemm_pack_cols(kc, mc, MR, g->A + (size_t)ic * lda + pc, lda, myA, 0, pa);
        for (int s = s0; s < s1; ++s) {
            const int j0 = s * NR, w = nc - j0 < NR ? nc - j0 : NR;
            const float *bp = Bk + (size_t)s * kc * NR;
            for (int ir = 0; ir < mc; ir += MR) {
                const int h = mc - ir < MR ? mc - ir : MR;
                const float *ap = myA + (size_t)ir * kc;
                float *c = g->C + (size_t)(ic + ir) * crs + (size_t)(jc + j0) * ccs;
                if (h == MR && w == NR && ccs == 1) {
                    cf->fn(kc, ap, bp, c, crs, alpha, b);
                    continue;
                }
                /* edge or transposed tile: compute, then write back */
                cf->fn(kc, ap, bp, tile, NR, 1.0f, 0.0f);
                if (ccs == 1) {
                    for (int y = 0; y < h; ++y)
                        for (int x = 0; x < w; ++x) {
                            float *cy = c + (size_t)y * crs + x;
                            float v = alpha * tile[y * NR + x];
                            *cy = b == 0.0f ? v : v + b * *cy;
                        }
                } else { /* C^T: its columns are contiguous */
                    for (int x = 0; x < w; ++x)
                        for (int y = 0; y < h; ++y) {
                            float *cy = c + (size_t)x * ccs + (size_t)y * crs;
                            float v = alpha * tile[y * NR + x];
                            *cy = b == 0.0f ? v : v + b * *cy;
                        }
                }
            }
        }
    }
}

/* The blocked product of op(A) [M x K] and op(B) [K x N] on nt threads into
 * C, whose element (i, j) is C[i*crs + j*ccs]: ccs == 1 is row-major C, and
 * crs == 1 is C^T (the operands swapped, see gemm_cpu_omp_t). */
static int gemm_blocked(const gemm_kern_cfg *cf, int ta, int tb, int M, int N, int K,
                        float alpha, const float *A, long lda, const float *B, long ldb,
                        float beta, float *C, long crs, long ccs, int nt)
{
    blk g = {.job = {.pack_b = blocked_pack_b, .item = blocked_item},
             .cf = cf, .ta = ta, .tb = tb, .alpha = alpha, .beta = beta, .A = A, .B = B,
             .lda = lda, .ldb = ldb, .crs = crs, .ccs = ccs, .C = C};
    gemm_plan_make(&g.job.p, cf->mr, cf->nr, cf->mc, cf->kc, cf->nc, 1, sizeof(float), M, N, K,
                   nt);
    return gemm_job_run(&g.job);
}

int gemm_cpu_omp_t(int ta, int tb, int M, int N, int K, float alpha, const float *A, int lda,
                   const float *B, int ldb, float beta, float *C, int ldc)
{
    if (M <= 0 || N <= 0) return 0;
    if (K <= 0 || alpha == 0.0f) { /* C = beta*C only */
        for (int i = 0; i < M; ++i)
            for (int j = 0; j < N; ++j)
                C[(size_t)i * ldc + j] = beta == 0.0f ? 0.0f : beta * C[(size_t)i * ldc + j];
        return 0;
    }
    const gemm_kern_cfg *cf = gemm_kernel_select();
    const double flops = 2.0 * M * N * K;
    /* Threads: small problems run serially (a parallel region costs more than
     * it saves below the crossover measured in the header). */
    int nt = omp_get_max_threads();
    if (flops < GEMM_SERIAL_FLOPS) nt = 1;

    const gemm_call c = {ta, tb, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, nt, cf};
    const gemm_route *r = gemm_route_pick(&c);
    return r ? r->run(&c) : 1;
}

/* ---- the route table ----------------------------------------------------------- */

/* One column of C: C[:,0] = op(A) op(B)[:,0]; one row: C[0,:] = op(B)^T op(A)[0,:]. */
static int gemv_col_ok(const gemm_call *c) { return c->N == 1; }
static int gemv_col(const gemm_call *c)
{
    return gemm_omp_gemv(c->ta, c->M, c->K, c->alpha, c->A, c->lda, c->B, c->tb ? 1 : c->ldb,
                         c->beta, c->C, c->ldc, c->nt);
}
static int gemv_row_ok(const gemm_call *c) { return c->M == 1; }
static int gemv_row(const gemm_call *c)
{
    return gemm_omp_gemv(!c->tb, c->N, c->K, c->alpha, c->B, c->ldb, c->A, c->ta ? c->lda : 1,
                         c->beta, c->C, 1, c->nt);
}

/* Small or thin products: operands read in place (see gemm_omp_small.c);
 * it has no K blocking, so K and A are bounded (use_direct). */
static int small_ok(const gemm_call *c)
{
    return gemm_omp_small_ok() && c->K <= 2048 && (double)c->M * c->K <= 256.0 * 1024;
}
static int small_pays(const gemm_call *c) { return use_direct(c->M, c->N, c->K); }
static int small(const gemm_call *c)
{
    return gemm_omp_small(c->ta, c->tb, c->M, c->N, c->K, c->alpha, c->A, c->lda, c->B, c->ldb,
                          c->beta, c->C, c->ldc, c->nt);
}

/* C^T = op(B)^T op(A)^T when that pads clearly less (e.g. N = 10 on NR = 32
 * wastes 69% of each tile, M = 10 on MR = 12 only 17%): the operands swap
 * roles, each flips its transpose, and C is written through its columns,
 * tile by tile through a scalar write-back, which costs more than a few
 * percent of padding (GEMM_SWAP_GAIN). */
static int swapped_pays(const gemm_call *c)
{
    return padded_area(c->cf, c->N, c->M) < GEMM_SWAP_GAIN * padded_area(c->cf, c->M, c->N);
}
static int swapped(const gemm_call *c)
{
    return gemm_blocked(c->cf, !c->tb, !c->ta, c->N, c->M, c->K, c->alpha, c->B, c->ldb, c->A,
                        c->lda, c->beta, c->C, 1, c->ldc, c->nt);
}
static int blocked(const gemm_call *c)
{
    return gemm_blocked(c->cf, c->ta, c->tb, c->M, c->N, c->K, c->alpha, c->A, c->lda, c->B,
                        c->ldb, c->beta, c->C, c->ldc, 1, c->nt);
}

/* In order: the first row that applies and pays runs. */
static const gemm_route ROUTES[] = {
    {.name = "gemv-col", .applies = gemv_col_ok, .run = gemv_col},
    {.name = "gemv-row", .applies = gemv_row_ok, .run = gemv_row},
    {.name = "small", .applies = small_ok, .pays = small_pays, .run = small},
    {.name = "swapped", .pays = swapped_pays, .run = swapped},
    {.name = "blocked", .run = blocked},
};

const gemm_route *gemm_routes(int *n)
{
    *n = (int)(sizeof ROUTES / sizeof ROUTES[0]);
    return ROUTES;
}

const gemm_route *gemm_route_pick(const gemm_call *c)
{
    const char *force = getenv(HOOK_CPU_GEMM_ROUTE);
    for (int i = 0; force && *force && i < (int)(sizeof ROUTES / sizeof ROUTES[0]); i++) {
        if (strcmp(ROUTES[i].name, force)) continue;
        if (!ROUTES[i].applies || ROUTES[i].applies(c)) return &ROUTES[i];
        err_set("cpu-omp gemm: " HOOK_CPU_GEMM_ROUTE "=%s does not apply to %dx%dx%d", force, c->M,
                c->N, c->K);
        return NULL;
    }
    for (int i = 0;; i++) /* the last row takes every product */
        if ((!ROUTES[i].applies || ROUTES[i].applies(c)) && (!ROUTES[i].pays || ROUTES[i].pays(c)))
            return &ROUTES[i];
}

int gemm_cpu_omp(int M, int N, int K, float alpha, const float *A, int lda,
                 const float *B, int ldb, float beta, float *C, int ldc)
{
    return gemm_cpu_omp_t(0, 0, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}
