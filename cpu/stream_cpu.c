/* cpu/stream_cpu.c - STREAM's copy, scale, add and triad on the CPU
 * (cpu-naive, cpu-omp); contract in stream_cpu.h.
 *
 * cpu-omp: one parallel region per call; thread t of T takes the t-th slice
 * of the arrays, the slice edges rounded to 64-byte lines of `out` (a static
 * schedule on line boundaries: no cache line is written by two threads, and
 * streaming stores cover whole lines). Each slice is a SIMD loop (`omp simd`;
 * an AVX-512 build of it picked at run time, as cpu/gemm_omp.c does, since
 * the library is built without -march), or, for arrays beyond the caches
 * (STREAM_NT_MIN_BYTES), an AVX-512 loop of unaligned loads and aligned
 * non-temporal stores, fenced before the region ends.
 *
 * Built with -ffp-contract=off (cpu/CMakeLists.txt): the triad's multiply and
 * add must stay two roundings on every compiler and flag set, or results would
 * differ from the GPU's and the reference in the last bit.
 */
#include "stream_cpu.h"
#include "errmsg.h"

#include <omp.h>
#include <stdint.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

double stream_bytes(stream_kernel k, size_t n)
{
    int arrays = k == STREAM_COPY || k == STREAM_SCALE ? 2 : k == STREAM_ADD || k == STREAM_TRIAD ? 3 : 0;
    return (double)arrays * (double)n * sizeof(float);
}

/* The contract's arguments; else err_set naming who and why. */
static int args_ok(const char *who, stream_kernel k, size_t n, const float *x, const float *y,
                   const float *out)
{
    if (stream_bytes(k, 1) == 0) {
        err_set("%s: unknown kernel %d", who, (int)k);
        return 0;
    }
    if (n > 0 && (!x || !out || (!y && (k == STREAM_ADD || k == STREAM_TRIAD)))) {
        err_set("%s: null array (x=%p y=%p out=%p)", who, (const void *)x, (const void *)y,
                (const void *)out);
        return 0;
    }
    return 1;
}

int stream_cpu_naive(stream_kernel k, size_t n, float s, const float *x, const float *y,
                     float *out)
{
    if (!args_ok("stream_cpu_naive", k, n, x, y, out)) return -1;
    for (size_t i = 0; i < n; i++) {
        switch (k) {
        case STREAM_COPY: out[i] = x[i]; break;
        case STREAM_SCALE: out[i] = s * x[i]; break;
        case STREAM_ADD: out[i] = x[i] + y[i]; break;
        case STREAM_TRIAD: out[i] = x[i] + s * y[i]; break;
        }
    }
    return 0;
}

/* Elements [lo, hi), ordinary stores, vectorised by the compiler. Inlined into
 * a plain and an AVX-512 build. */
static inline __attribute__((always_inline)) void
slice_simd(stream_kernel k, size_t lo, size_t hi, float s, const float *restrict x,
           const float *restrict y, float *restrict out)
{
    switch (k) {
    case STREAM_COPY:
#pragma omp simd
        for (size_t i = lo; i < hi; i++) out[i] = x[i];
        break;
    case STREAM_SCALE:
#pragma omp simd
        for (size_t i = lo; i < hi; i++) out[i] = s * x[i];
        break;
    case STREAM_ADD:
#pragma omp simd
        for (size_t i = lo; i < hi; i++) out[i] = x[i] + y[i];
        break;
    case STREAM_TRIAD:
#pragma omp simd
        for (size_t i = lo; i < hi; i++) out[i] = x[i] + s * y[i];
        break;
    }
}

typedef void (*slice_fn)(stream_kernel k, size_t lo, size_t hi, float s, const float *x,
                         const float *y, float *out);

static void slice_plain(stream_kernel k, size_t lo, size_t hi, float s, const float *x,
                        const float *y, float *out)
{
    slice_simd(k, lo, hi, s, x, y, out);
}

#if defined(__x86_64__)
__attribute__((target("avx512f"))) static void
slice_avx512(stream_kernel k, size_t lo, size_t hi, float s, const float *x, const float *y,
             float *out)
{
    slice_simd(k, lo, hi, s, x, y, out);
}

/* Streaming stores: the scalar head up to out's next 64-byte line, whole
 * lines with _mm512_stream_ps, the scalar tail; then sfence, so the stores
 * are visible to other threads once the parallel region's barrier passes. */
__attribute__((target("avx512f"))) static void
slice_avx512_nt(stream_kernel k, size_t lo, size_t hi, float s, const float *x, const float *y,
                float *out)
{
    size_t i = lo;
    while (i < hi && ((uintptr_t)(out + i) & 63)) i++;
    slice_simd(k, lo, i, s, x, y, out);
    const size_t end = i + (hi - i) / 16 * 16;
    const __m512 vs = _mm512_set1_ps(s);
    switch (k) {
    case STREAM_COPY:
        for (; i < end; i += 16) _mm512_stream_ps(out + i, _mm512_loadu_ps(x + i));
        break;
    case STREAM_SCALE:
        for (; i < end; i += 16) _mm512_stream_ps(out + i, _mm512_mul_ps(vs, _mm512_loadu_ps(x + i)));
        break;
    case STREAM_ADD:
        for (; i < end; i += 16)
            _mm512_stream_ps(out + i, _mm512_add_ps(_mm512_loadu_ps(x + i), _mm512_loadu_ps(y + i)));
        break;
    case STREAM_TRIAD:
        for (; i < end; i += 16)
            _mm512_stream_ps(out + i, _mm512_add_ps(_mm512_loadu_ps(x + i),
                                                    _mm512_mul_ps(vs, _mm512_loadu_ps(y + i))));
        break;
    }
    _mm_sfence();
    slice_simd(k, end, hi, s, x, y, out);
}
#endif

static slice_fn pick_slice(stream_kernel k, size_t n)
{
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx512f"))
        return stream_bytes(k, n) >= (double)STREAM_NT_MIN_BYTES ? slice_avx512_nt : slice_avx512;
#endif
    (void)k, (void)n;
    return slice_plain;
}

/* Where slice t of nt starts: 0, n, or a line boundary of out after its first
 * `head` elements. */
static size_t slice_edge(size_t t, size_t nt, size_t n, size_t head)
{
    if (t == 0) return 0;
    if (t == nt || n <= head) return n;
    size_t e = head + (n - head) / 16 * t / nt * 16;
    return e < n ? e : n;
}

int stream_cpu_omp(stream_kernel k, size_t n, float s, const float *x, const float *y,
                   float *out)
{
    if (!args_ok("stream_cpu_omp", k, n, x, y, out)) return -1;
    if (n == 0) return 0;
    const slice_fn slice = pick_slice(k, n);
    /* elements before out's first 64-byte line; slice edges fall on lines after it */
    const size_t head = (64 - (uintptr_t)out % 64) % 64 / sizeof(float);
#pragma omp parallel
    {
        const size_t t = (size_t)omp_get_thread_num(), nt = (size_t)omp_get_num_threads();
        const size_t lo = slice_edge(t, nt, n, head), hi = slice_edge(t + 1, nt, n, head);
        if (lo < hi) slice(k, lo, hi, s, x, y, out);
    }
    return 0;
}
