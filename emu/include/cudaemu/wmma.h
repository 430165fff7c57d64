/* emu/include/cudaemu/wmma.h - nvcuda::wmma, the warp matrix functions, on
 * the host (included by <mma.h>; do not include directly).
 *
 * Shapes: m16n16k16 with __half or __nv_bfloat16 matrix_a/matrix_b fragments
 * (row_major or col_major) and a float accumulator (__half: also a __half
 * accumulator, in c and d alike or mixed, as CUDA's overloads); m16n16k8 with
 * precision::tf32 (float storage) and a float accumulator.  Any other
 * fragment stops the compile at its static_assert (one line).
 *
 * Distribution: a fragment is the lane's share of a warp's matrix.  Element i
 * of lane l is entry e = 32 * i + l of the fragment's rows x cols matrix in
 * row-major order (matrix_a M x K, matrix_b K x N, accumulator M x N), so
 * num_elements = rows * cols / 32 (8 of a 16x16 matrix, 4 of a tf32 16x8 or
 * 8x16 one) and every entry has exactly one owner: element-wise loops over
 * x[] (scaling, conversion, __float_to_tf32) act on the whole matrix.  (A GPU
 * maps differently, and its __half a and b fragments hold 16 elements:
 * portable code relies only on num_elements and element-wise use.)
 *
 * Warp-collective as CUDA specifies the *_sync functions: every lane of a
 * full warp must call the same one (a warp with fewer lanes, a lane that has
 * returned, lanes in different functions fail the launch with one line, as
 * the shuffles do); each waits for all 32 lanes, then acts.  load_matrix_sync
 * and store_matrix_sync then read / write the lane's own elements, so a lane
 * reading what another lane stored needs __syncwarp() (or __syncthreads())
 * in between, as CUDA's memory model says.  mma_sync stages a, b and c in a
 * per-warp buffer of the emulator, meets the warp again, and computes the
 * lane's elements of d:
 *     d[r][c] = c[r][c] + sum over kk = 0..K-1 in order of a[r][kk] * b[kk][c]
 * every product exact (11 x 11 or 8 x 8 significant bits fit a float), each
 * sum rounded to float (fp32 accumulation), a __half d rounded once at the
 * end (nearest even).  tf32 operands are read as a tensor core reads them:
 * the low 13 bits of the float are ignored (truncation; NaN stays NaN), so
 * round with __float_to_tf32 first, which rounds to nearest with ties away
 * from zero (cvt.rna.tf32.f32).  A GPU's order and rounding of the sum may
 * differ in the last bits of fp32.
 *
 * Checked as CUDA requires them (else the launch fails with one line naming
 * the function): the pointer of load/store_matrix_sync 256-bit (32-byte)
 * aligned, ldm a multiple of 16 bytes (8 __half or __nv_bfloat16 elements,
 * 4 float ones).
 */
#ifndef CUDAEMU_WMMA_H
#define CUDAEMU_WMMA_H

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace nvcuda {
namespace wmma {
struct row_major;
struct col_major;
struct matrix_a;
struct matrix_b;
struct accumulator;
namespace precision {
struct tf32;
}
namespace experimental {
namespace precision {
struct u4;
struct s4;
struct b1;
} // namespace precision
enum bmmaBitOp { bmmaBitOpXOR = 1, bmmaBitOpAND = 2 };
enum bmmaAccumulateOp { bmmaAccumulateOpPOPC = 1 };
} // namespace experimental

enum layout_t { mem_row_major, mem_col_major };

template <typename T>
struct helper_traits {
    typedef T element_type;
    typedef T storage_element_type;
    typedef T fill_argument_type;
};
template <>
struct helper_traits<precision::tf32> {
    typedef precision::tf32 element_type;
    typedef float storage_element_type;
    typedef float fill_argument_type;
};

/* Rounds to tf32 (10 fraction bits) to nearest, ties away from zero, as
 * cvt.rna.tf32.f32; infinities and NaN unchanged. */
inline float __float_to_tf32(float in)
{
    uint32_t u;
    std::memcpy(&u, &in, sizeof u);
    if ((u & 0x7F800000u) != 0x7F800000u) u = (u + 0x1000u) & ~0x1FFFu;
    std::memcpy(&in, &u, sizeof u);
    return in;
}
} // namespace wmma
} // namespace nvcuda

namespace cudaemu {
namespace wmma {
namespace w = ::nvcuda::wmma;

/* wmma.cpp: the lane meets the other 31 of its full warp in `op` (a
 * detail::WOP_WMMA_*), after checking p (not null: 32-byte aligned, ldm
 * elements of elem_bytes a multiple of 16 bytes). */
struct Lane {
    float *stage; /* the warp's staging buffer: STAGE floats */
    unsigned lane;
};
constexpr int STAGE = 3 * 256;
Lane begin(int op, const void *p, unsigned ldm, unsigned elem_bytes);
void meet(int op); /* the warp meets again in op */

/* rows x cols of the fragment's matrix */
template <typename Use, int M, int N, int K> struct dims { enum { rows = M, cols = N }; };
template <int M, int N, int K> struct dims<w::matrix_a, M, N, K> { enum { rows = M, cols = K }; };
template <int M, int N, int K> struct dims<w::matrix_b, M, N, K> { enum { rows = K, cols = N }; };

template <typename Use, int M, int N, int K, typename T, typename L>
constexpr bool supported()
{
    if (std::is_same<Use, w::accumulator>::value)
        return std::is_void<L>::value && M == 16 && N == 16 &&
               ((K == 16 && (std::is_same<T, float>::value || std::is_same<T, __half>::value)) ||
                (K == 8 && std::is_same<T, float>::value));
    if (!std::is_same<Use, w::matrix_a>::value && !std::is_same<Use, w::matrix_b>::value)
        return false;
    return (std::is_same<L, w::row_major>::value || std::is_same<L, w::col_major>::value) &&
           M == 16 && N == 16 &&
           ((K == 16 && (std::is_same<T, __half>::value || std::is_same<T, __nv_bfloat16>::value)) ||
            (K == 8 && std::is_same<T, w::precision::tf32>::value));
}

/* An a or b element as the tensor core multiplies it. */
inline float operand(__half h) { return __half2float(h); }
inline float operand(__nv_bfloat16 h) { return __bfloat162float(h); }
inline float operand(float tf32)
{
    uint32_t u;
    std::memcpy(&u, &tf32, sizeof u);
    if ((u & 0x7FFFFFFFu) <= 0x7F800000u) u &= ~0x1FFFu; /* NaN keeps its payload */
    std::memcpy(&tf32, &u, sizeof u);
    return tf32;
}
inline float acc_in(float x) { return x; }
inline float acc_in(__half x) { return __half2float(x); }
template <typename T> inline T acc_out(float x);
template <> inline float acc_out<float>(float x) { return x; }
template <> inline __half acc_out<__half>(float x) { return __float2half_rn(x); }

/* Element i of the lane's share <-> (r, c) of a rows x cols matrix, and its
 * offset in memory with leading dimension ldm. */
inline size_t offset(unsigned e, unsigned cols, unsigned ldm, bool col_major)
{
    const size_t r = e / cols, c = e % cols;
    return col_major ? c * ldm + r : r * ldm + c;
}
} // namespace wmma
} // namespace cudaemu

namespace nvcuda {
namespace wmma {

/* The warp-collective operations out of line: each meets the other 31 lanes
 * (fiber switches) and a call costs nothing beside that, while inlined into
 * every fragment loop of a kernel they made GCC take 16 s on a test of a few
 * dozen tiles (11 s so). */
#define CUDAEMU_WMMA_OP inline __attribute__((noinline))

template <typename Use, int m, int n, int k, typename T, typename Layout = void>
class alignas(8) fragment {
    static_assert(::cudaemu::wmma::supported<Use, m, n, k, T, Layout>(),
                  "cudaemu: nvcuda::wmma fragment not emulated: only m16n16k16 __half / __nv_bfloat16 (a, b row_major or col_major; float or __half accumulator) and m16n16k8 precision::tf32 (float accumulator) are; m32n8k16, m8n32k16, integer, u4/s4/b1 and double m8n8k4 fragments are not");
    static constexpr int N_ =
        ::cudaemu::wmma::supported<Use, m, n, k, T, Layout>()
            ? ::cudaemu::wmma::dims<Use, m, n, k>::rows * ::cudaemu::wmma::dims<Use, m, n, k>::cols / 32
            : 1;

public:
    enum { num_elements = N_, num_storage_elements = N_ };
    typedef T element_type;
    typedef typename helper_traits<T>::storage_element_type storage_element_type;
    storage_element_type x[num_storage_elements];
};

template <typename Use, int m, int n, int k, typename T, typename Layout>
inline void fill_fragment(fragment<Use, m, n, k, T, Layout> &f,
                          const typename helper_traits<T>::fill_argument_type &v)
{
    for (int i = 0; i < f.num_elements; ++i) f.x[i] = v;
}

/* matrix_a, matrix_b: the layout is the fragment's. */
template <typename Use, int m, int n, int k, typename T, typename Layout>
CUDAEMU_WMMA_OP void load_matrix_sync(fragment<Use, m, n, k, T, Layout> &f,
                             const typename helper_traits<T>::storage_element_type *p,
                             unsigned ldm)
{
    static_assert(!std::is_void<Layout>::value,
                  "cudaemu: load_matrix_sync of an accumulator takes a layout_t "
                  "(mem_row_major or mem_col_major)");
    namespace e = ::cudaemu::wmma;
    const e::Lane l = e::begin(::cudaemu::detail::WOP_WMMA_LOAD, p, ldm, sizeof *p);
    const bool cm = std::is_same<Layout, col_major>::value;
    for (int i = 0; i < f.num_elements; ++i)
        f.x[i] = p[e::offset(32u * i + l.lane, e::dims<Use, m, n, k>::cols, ldm, cm)];
}

template <int m, int n, int k, typename T>
CUDAEMU_WMMA_OP void load_matrix_sync(fragment<accumulator, m, n, k, T> &f, const T *p, unsigned ldm,
                             layout_t layout)
{
    namespace e = ::cudaemu::wmma;
    const e::Lane l = e::begin(::cudaemu::detail::WOP_WMMA_LOAD, p, ldm, sizeof *p);
    for (int i = 0; i < f.num_elements; ++i)
        f.x[i] = p[e::offset(32u * i + l.lane, n, ldm, layout == mem_col_major)];
}

template <int m, int n, int k, typename T>
CUDAEMU_WMMA_OP void store_matrix_sync(T *p, const fragment<accumulator, m, n, k, T> &f, unsigned ldm,
                              layout_t layout)
{
    namespace e = ::cudaemu::wmma;
    const e::Lane l = e::begin(::cudaemu::detail::WOP_WMMA_STORE, p, ldm, sizeof *p);
    for (int i = 0; i < f.num_elements; ++i)
        p[e::offset(32u * i + l.lane, n, ldm, layout == mem_col_major)] = f.x[i];
}

template <int m, int n, int k, typename TD, typename TA, typename LA, typename TB, typename LB,
          typename TC>
CUDAEMU_WMMA_OP void mma_sync(fragment<accumulator, m, n, k, TD> &d, const fragment<matrix_a, m, n, k, TA, LA> &a,
                     const fragment<matrix_b, m, n, k, TB, LB> &b,
                     const fragment<accumulator, m, n, k, TC> &c)
{
    static_assert(std::is_same<TA, TB>::value,
                  "cudaemu: mma_sync: a and b fragments of different element types");
    static_assert(std::is_same<TA, __half>::value ||
                      (std::is_same<TC, float>::value && std::is_same<TD, float>::value),
                  "cudaemu: mma_sync: only __half a and b take a __half accumulator");
    namespace e = ::cudaemu::wmma;
    const e::Lane l = e::begin(::cudaemu::detail::WOP_WMMA_MMA, nullptr, 0, 0);
    float *A = l.stage, *B = l.stage + 256, *C = l.stage + 512; /* row-major m x k, k x n, m x n */
    for (int i = 0; i < a.num_elements; ++i) A[32 * i + l.lane] = e::operand(a.x[i]);
    for (int i = 0; i < b.num_elements; ++i) B[32 * i + l.lane] = e::operand(b.x[i]);
    for (int i = 0; i < c.num_elements; ++i) C[32 * i + l.lane] = e::acc_in(c.x[i]);
    e::meet(::cudaemu::detail::WOP_WMMA_MMA);
    for (int i = 0; i < d.num_elements; ++i) {
        const int idx = 32 * i + int(l.lane), r = idx / n, col = idx % n;
        float acc = C[idx];
        for (int kk = 0; kk < k; ++kk) acc += A[r * k + kk] * B[kk * n + col];
        d.x[i] = e::acc_out<TD>(acc);
    }
}

} // namespace wmma
} // namespace nvcuda

#endif
