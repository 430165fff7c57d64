/* kernels/train_seq_permute.cu - permute: y[a][c][b][d] = x[a][b][c][d] on the GPU (kernels/train_cuda.h; the
 * CPU's is cpu/train_seq_permute.c; the launch shapes and contract notes:
 * kernels/train_seq_impl.h). */
#include "train_seq_impl.h"

/* ---- permute: y[a][c][b][d] = x[a][b][c][d] ---- */

/* T: float or float4 (then D counts float4); I: the index type. */
template <typename T, typename I>
static __global__ void permute_kernel(I n, I B, I C, I D, const T *__restrict__ x,
                                      T *__restrict__ y)
{
    for (I o = (I)blockIdx.x * blockDim.x + threadIdx.x; o < n; o += (I)gridDim.x * blockDim.x) {
        const I d = o % D;
        I q = o / D;
        const I b = q % B;
        q /= B;
        const I c = q % C, a = q / C;
        y[o] = x[((a * B + b) * C + c) * D + d];
    }
}

template <typename T>
static void permute_launch(size_t n, size_t B, size_t C, size_t D, const float *x, float *y,
                           cudaStream_t s)
{
    const T *xt = reinterpret_cast<const T *>(x);
    T *yt = reinterpret_cast<T *>(y);
    if (n <= 0x7fffffffu) /* o + stride < 2^31 + 2^24: no wrap */
        permute_kernel<T, unsigned><<<elem_grid(n), ELEM_THREADS, 0, s>>>(
            (unsigned)n, (unsigned)B, (unsigned)C, (unsigned)D, xt, yt);
    else
        permute_kernel<T, size_t><<<elem_grid(n), ELEM_THREADS, 0, s>>>(n, B, C, D, xt, yt);
}

extern "C" int train_cuda_permute(int A, int B, int C, int D, const float *x, float *y,
                                  void *stream)
{
    const char *who = "train_cuda permute";
    if (!size_ok(who, A, "A", 0) || !size_ok(who, B, "B", 0) || !size_ok(who, C, "C", 0) ||
        !size_ok(who, D, "D", 0) || !ptrs_ok(who, x, y, y) || !distinct_ok(who, x, "x", y, "y"))
        return -1;
    {
        const size_t n = (size_t)A * B * C * D;
        if (n == 0) return 0;
        if (D % 4 == 0 && aligned16(x, y))
            permute_launch<float4>(n / 4, B, C, D / 4, x, y, (cudaStream_t)stream);
        else
            permute_launch<float>(n, B, C, D, x, y, (cudaStream_t)stream);
    }
    LAUNCH_CHECK();
    return 0;
fail:
    return -1;
}
