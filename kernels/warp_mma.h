/* kernels/warp_mma.h - warp-level tensor-core primitives of sm_80+ for our
 * GEMM kernels: ldmatrix (shared memory -> mma fragments) and mma.sync at
 * m16n8k16 (fp16, bf16) and m16n8k8 (tf32), fp32 accumulators.
 *
 * Each has two bodies that compute the same thing:
 *   - nvcc for sm_80+ (__CUDA_ARCH__ >= 800): one PTX instruction (ldmatrix
 *     is LDSM in SASS, mma.sync HMMA);
 *   - everywhere else (the host emulator, which runs no PTX; or nvcc with
 *     -DWARP_MMA_PORTABLE, to run the same path on a GPU): plain CUDA, the
 *     lanes exchanging row addresses and fragments with __shfl_sync, so the
 *     fragment layouts below are those the PTX ISA documents ("Matrix
 *     Fragments for mma.m16n8k16 / m16n8k8", "ldmatrix"), and a kernel's
 *     addressing is checked by our emulated tests exactly as a GPU uses it.
 * Warp-collective: all 32 lanes of a warp call each function together, in a
 * block whose threads are numbered along x (lane = threadIdx.x % 32).
 *
 * Fragments (g = lane / 4, q = lane % 4; "pair" = two 16-bit elements in one
 * 32-bit register, the lower column or k first):
 *   m16n8k16 A (16 x 16, row-major): a[0] = (row g, k 2q..2q+1),
 *       a[1] = (g+8, 2q..), a[2] = (g, 2q+8..), a[3] = (g+8, 2q+8..)
 *   m16n8k16 B (16 x 8): b[0] = (k 2q..2q+1, col g), b[1] = (k 2q+8.., col g)
 *   m16n8k8 tf32 A (16 x 8): a[0] = (g, q), a[1] = (g+8, q), a[2] = (g, q+4),
 *       a[3] = (g+8, q+4); B (8 x 8): b[0] = (k q, col g), b[1] = (k q+4, g)
 *   accumulator (16 x 8 floats): d[0] = (g, 2q), d[1] = (g, 2q+1),
 *       d[2] = (g+8, 2q), d[3] = (g+8, 2q+1)
 * ldmatrix .x4: lanes 8j..8j+7 give the addresses of rows 0..7 of matrix j
 * (8 rows of 16 bytes); lane l receives in r[j] the 32-bit word l % 4 of row
 * l / 4 of matrix j (.trans: the pair (row 2(l%4), col l/4), (row 2(l%4)+1,
 * col l/4) of 16-bit elements). So matrices (rows 0-7, k 0-7), (rows 8-15,
 * k 0-7), (rows 0-7, k 8-15), (rows 8-15, k 8-15) of a row-major 16-bit A
 * tile are a[0..3] of m16n8k16; of a float A tile, 8 rows of 4 floats each,
 * (k 0-3, 4-7 for the last two) they are tf32 a[0..3]; and .trans over a
 * k-major (row = k) 16-bit B tile gives b[] of two 8-column fragments.
 */
#ifndef KERNELS_WARP_MMA_H
#define KERNELS_WARP_MMA_H

#include <stdint.h>
#include <string.h>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(WARP_MMA_PORTABLE)
#define WARP_MMA_PTX 1
#else
#define WARP_MMA_PTX 0
#endif

/* WMP_BODY: how the portable bodies of ldmatrix and mma are called. Under
 * the host emulator out of line: each is a dozen shuffles (a fiber switch
 * each), so a call costs nothing beside them, while inlined into a kernel's
 * unrolled 4 x 8 fragment loops they made one kernel tens of thousands of
 * statements (GCC: 26 s at -O1, 100 s at -O3, for gemm_wmma.cu alone). On a
 * GPU (-DWARP_MMA_PORTABLE) inline, like the PTX bodies. */
#ifdef __CUDAEMU__
#define WMP_BODY static __device__ __noinline__
#else
#define WMP_BODY static __device__ __forceinline__
#endif

#if !WARP_MMA_PTX
/* the portable bodies: lane l's row address of matrix j, and a 16-bit or
 * 32-bit element of shared memory read without type punning */
static __device__ __forceinline__ const char *wmp_row(const void *p, int src)
{
    return (const char *)(uintptr_t)__shfl_sync(0xffffffffu, (unsigned long long)(uintptr_t)p,
                                                src);
}
static __device__ __forceinline__ unsigned wmp_u16(const char *p)
{
    unsigned short v;
    memcpy(&v, p, 2);
    return v;
}
static __device__ __forceinline__ unsigned wmp_u32(const char *p)
{
    unsigned v;
    memcpy(&v, p, 4);
    return v;
}
#endif

/* ldmatrix.sync.aligned.m8n8.x4[.trans].shared.b16: p is this lane's row
 * (16 bytes, 16-byte aligned, shared memory). */
template <bool TRANS>
#if WARP_MMA_PTX
static __device__ __forceinline__
#else
WMP_BODY
#endif
void ldsm_x4(unsigned (&r)[4], const void *p)
{
#if WARP_MMA_PTX
    const unsigned a = (unsigned)__cvta_generic_to_shared(p);
    if (TRANS)
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                     : "r"(a));
    else
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                     : "r"(a));
#else
    const int lane = (int)(threadIdx.x % 32);
    for (int j = 0; j < 4; j++) {
        if (TRANS) { /* rows 2(l%4) and 2(l%4)+1, column l/4 */
            const char *lo = wmp_row(p, 8 * j + 2 * (lane % 4));
            const char *hi = wmp_row(p, 8 * j + 2 * (lane % 4) + 1);
            r[j] = wmp_u16(lo + 2 * (lane / 4)) | wmp_u16(hi + 2 * (lane / 4)) << 16;
        } else { /* row l/4, word l%4 */
            r[j] = wmp_u32(wmp_row(p, 8 * j + lane / 4) + 4 * (lane % 4));
        }
    }
#endif
}

/* An fp32 value rounded to tf32 (10 fraction bits; nearest, ties away from
 * zero: cvt.rna.tf32.f32), the low 13 bits zero. */
static __device__ __forceinline__ unsigned tf32_round(unsigned u)
{
#if WARP_MMA_PTX
    unsigned r;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(__uint_as_float(u)));
    return r;
#else
    if ((u & 0x7f800000u) != 0x7f800000u) u += 0x1000u; /* not Inf/NaN: half an ulp up */
    return u & 0xffffe000u;
#endif
}

#if !WARP_MMA_PTX
/* the portable mma: the 16-bit element's value */
template <typename T> static __device__ __forceinline__ float wmp_f16(unsigned bits);
template <> __device__ __forceinline__ float wmp_f16<__half>(unsigned bits)
{
    return __half2float(__ushort_as_half((unsigned short)bits));
}
template <> __device__ __forceinline__ float wmp_f16<__nv_bfloat16>(unsigned bits)
{
    return __bfloat162float(__ushort_as_bfloat16((unsigned short)bits));
}

/* two registers in one shuffle: lo in the low half */
static __device__ __forceinline__ unsigned long long wmp_pack(unsigned lo, unsigned hi)
{
    return (unsigned long long)hi << 32 | lo;
}

/* d[r*2 + c] = c[r*2 + c] + sum over k (ascending) of arow[r][k] * bcol[c][k],
 * rows g, g+8 and columns 2q, 2q+1 of this lane; products exact in float
 * (11- or 8-bit significands), each partial sum rounded to float */
template <int KN>
static __device__ __forceinline__ void wmp_dot(float (&d)[4], const float (&arow)[2][KN],
                                               const float (&bcol)[2][KN], const float (&c)[4])
{
    for (int r = 0; r < 2; r++)
        for (int cc = 0; cc < 2; cc++) {
            float s = c[r * 2 + cc];
            for (int k = 0; k < KN; k++) s += arow[r][k] * bcol[cc][k];
            d[r * 2 + cc] = s;
        }
}

/* Element e of a 32-bit fragment register: the 16-bit T in half e (the lower
 * k first), or the register itself as a float (T = float: tf32, e = 0). */
template <typename T> static __device__ __forceinline__ float wmp_elem(unsigned w, int e)
{
    return wmp_f16<T>((w >> (16 * e)) & 0xffffu);
}
template <> __device__ __forceinline__ float wmp_elem<float>(unsigned w, int)
{
    return __uint_as_float(w);
}

/* The portable mma m16n8kKN: d = a * b + c, T the element type (16-bit, KN =
 * 16; float for tf32, KN = 8), E = KN / 8 elements a register. Lane 4g+s
 * holds k = E*s.. (registers a[0], a[1]; b[0]) and KN/2 + E*s.. (a[2], a[3];
 * b[1]) of A's rows g (a[0], a[2]) and g+8 (a[1], a[3]) and of B's column g
 * (the fragment layouts above); each lane gathers rows g, g+8 of A and
 * columns 2q, 2q+1 of B from those lanes, then wmp_dot. */
template <typename T, int KN>
WMP_BODY void wmp_mma(float (&d)[4], const unsigned (&a)[4],
                                               const unsigned (&b)[2], const float (&c)[4])
{
    constexpr int E = KN / 8;
    const int lane = (int)(threadIdx.x % 32), g = lane / 4, q = lane % 4;
    float arow[2][KN], bcol[2][KN];
    for (int s = 0; s < 4; s++)
        for (int h = 0; h < 2; h++) {
            /* A's k half h of rows g, g+8; all of B's column 2q+h */
            const unsigned long long va =
                __shfl_sync(0xffffffffu, wmp_pack(a[2 * h], a[2 * h + 1]), 4 * g + s);
            const unsigned long long vb =
                __shfl_sync(0xffffffffu, wmp_pack(b[0], b[1]), 4 * (2 * q + h) + s);
            for (int r = 0; r < 2; r++)
                for (int e = 0; e < E; e++) {
                    arow[r][KN / 2 * h + E * s + e] = wmp_elem<T>((unsigned)(va >> (32 * r)), e);
                    bcol[h][KN / 2 * r + E * s + e] = wmp_elem<T>((unsigned)(vb >> (32 * r)), e);
                }
        }
    wmp_dot<KN>(d, arow, bcol, c);
}
#endif

#if WARP_MMA_PTX
/* mma.sync with f32 accumulators: d[4] = a[4] x b[2] + c[4] */
#define WMP_MMA(shape, ab)                                                             \
    "mma.sync.aligned." shape ".row.col.f32." ab ".f32 {%0, %1, %2, %3}, "             \
    "{%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};\n"
#define WMP_MMA_OPERANDS                                                               \
    : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])                                   \
    : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]),     \
      "f"(c[1]), "f"(c[2]), "f"(c[3])
#endif

template <typename T> struct wmp_is_half { enum { value = 0 }; };
template <> struct wmp_is_half<__half> { enum { value = 1 }; };

/* d = a * b + c: mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.f32 (T is
 * __half or __nv_bfloat16) */
template <typename T>
static __device__ __forceinline__ void mma_16816(float (&d)[4], const unsigned (&a)[4],
                                                 const unsigned (&b)[2], const float (&c)[4])
{
#if WARP_MMA_PTX
    if (wmp_is_half<T>::value)
        asm volatile(WMP_MMA("m16n8k16", "f16.f16") WMP_MMA_OPERANDS);
    else
        asm volatile(WMP_MMA("m16n8k16", "bf16.bf16") WMP_MMA_OPERANDS);
#else
    wmp_mma<T, 16>(d, a, b, c);
#endif
}

/* d = a * b + c: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 (a, b
 * rounded to tf32 already: tf32_round) */
static __device__ __forceinline__ void mma_1688_tf32(float (&d)[4], const unsigned (&a)[4],
                                                     const unsigned (&b)[2], const float (&c)[4])
{
#if WARP_MMA_PTX
    asm volatile(WMP_MMA("m16n8k8", "tf32.tf32") WMP_MMA_OPERANDS);
#else
    wmp_mma<float, 8>(d, a, b, c);
#endif
}

#endif
