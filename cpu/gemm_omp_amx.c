/* cpu/gemm_omp_amx.c - cpu-omp's bf16 GEMM on AMX-BF16 tiles (tdpbf16ps);
 * contracts in gemm_omp_lowp.h, driver in gemm_omp_lowp.c.
 *
 * UNTESTED ON HARDWARE: the machine this was written on has no AMX, so this
 * file is compiled and its path's choice is unit-tested (gemm_lowp_choose),
 * but the kernel has never run.  It is kept small so it can be read against
 * Intel's documentation of the instructions; validate it (unit.cpu.gemm_omp_lowp
 * runs every path the CPU has) on a Sapphire Rapids class CPU before
 * trusting numbers from it.
 *
 * A 16 x 32 tile of C is two 16 x 16 fp32 accumulator tiles (tmm0, tmm1).
 * Per 32 values of K: one A tile (tmm2: 16 rows x 32 bf16) and two B tiles
 * (tmm3, tmm4: 16 K pairs x 16 columns x 2 bf16, the pair layout the
 * vdpbf16ps path packs, gemm_bf16_pack_b32), two tdpbf16ps (fp32 sums of
 * exact products).  K is zero-padded to a multiple of 32 (kq).  The
 * accumulators go through an fp32 buffer and are rounded once to bf16 with
 * vcvtne2ps2bf16 (every AMX CPU has AVX512-BF16; gemm_lowp_choose requires
 * both), after gemm_lowp_tile_f32 has added the bias (or finished an fp32
 * mode).  The tile configuration is loaded and released per call: simple,
 * not the fastest (a tuned kernel would keep more accumulator tiles).
 * Linux's permission for the tile data is asked once (cpu_amx_permit)
 * before this path is chosen.
 */
#include "gemm_omp_lowp.h"

#include <stddef.h>

#if defined(__x86_64__)
#include <immintrin.h>
#include <string.h>

#define AMR 16
#define ANR 32
#define AKB 32 /* K per A tile */

/* Rows [0, n) of A into 16-row panels: per 32 values of K, 16 rows of 32
 * bf16 (one A tile, 64-byte rows), zero past K and past n. */
static void pack_a(dtype_t dt, int K, int Kp, int n, const uint16_t *A, long lda, void *dst)
{
    uint16_t *d = dst;
    (void)dt;
    for (int p = 0; p * AMR < n; ++p)
        for (int kb = 0; kb < Kp; kb += AKB)
            for (int i = 0; i < AMR; ++i, d += AKB) {
                const int row = p * AMR + i, len = K - kb < AKB ? K - kb : AKB;
                if (row < n) memcpy(d, A + (size_t)row * lda + kb, 2 * (size_t)len);
                else memset(d, 0, 2 * (size_t)len);
                memset(d + len, 0, 2 * (size_t)(AKB - len));
            }
}

/* ldtilecfg's 64-byte operand, palette 1. */
typedef struct {
    uint8_t palette, start_row, reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
} tile_cfg;

__attribute__((target("amx-tile,amx-bf16,avx512f,avx512bf16,avx512bw,avx512vl")))
static void tile(dtype_t dt, int Kp, const void *Ap, const void *Bp, const float *bias,
                 gemm_lowp_cmode cm, void *C, long ldc, int h, int w)
{
    _Alignas(64) tile_cfg cfg;
    _Alignas(64) float acc[AMR * ANR];
    const char *a = Ap, *b = Bp;
    (void)dt;
    memset(&cfg, 0, sizeof cfg);
    cfg.palette = 1;
    for (int t = 0; t < 5; ++t) { /* every tile used: 16 rows of 64 bytes */
        cfg.rows[t] = 16;
        cfg.colsb[t] = 64;
    }
    _tile_loadconfig(&cfg);
    _tile_zero(0);
    _tile_zero(1);
    for (int kb = 0; kb < Kp; kb += AKB, a += AMR * AKB * 2, b += AKB / 2 * ANR * 4) {
        _tile_loadd(2, a, AKB * 2);      /* 16 rows of A, 64 bytes each */
        _tile_loadd(3, b, ANR * 4);      /* 16 pairs, columns 0-15 */
        _tile_loadd(4, b + 64, ANR * 4); /* 16 pairs, columns 16-31 */
        _tile_dpbf16ps(0, 2, 3);
        _tile_dpbf16ps(1, 2, 4);
    }
    _tile_stored(0, acc, ANR * 4);
    _tile_stored(1, acc + 16, ANR * 4);
    _tile_release();
    if (gemm_lowp_tile_f32(acc, ANR, bias, cm, C, ldc, h, w)) return;
    const __mmask32 m = w >= 32 ? ~(__mmask32)0 : (__mmask32)((1u << w) - 1);
    for (int y = 0; y < h; ++y)
        _mm512_mask_storeu_epi16((uint16_t *)C + (size_t)y * ldc, m,
                                 (__m512i)_mm512_cvtne2ps_pbh(_mm512_load_ps(acc + y * ANR + 16),
                                                              _mm512_load_ps(acc + y * ANR)));
}

static const gemm_lowp_kern KERN = {"amx-bf16 tdpbf16ps", AMR, ANR, 96, AKB, 2,
                                    pack_a, gemm_bf16_pack_b32, tile};

const gemm_lowp_kern *gemm_lowp_kern_amx(void) { return &KERN; }

#else /* not x86-64: gemm_lowp_choose never picks this path (no feature bits) */
const gemm_lowp_kern *gemm_lowp_kern_amx(void) { return NULL; }
#endif
