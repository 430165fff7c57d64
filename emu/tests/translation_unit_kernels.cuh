/* emu/tests/translation_unit_kernels.cuh - device code in a header, as
 * cuda-samples keep it (sharedmem.cuh, *_kernel.cuh): a template kernel with
 * `extern __shared__`, a default argument, and a host function that launches
 * it with <<<>>>.  translation_unit.cu includes it; the translator must
 * translate it as it does the .cu. */
#ifndef TRANSLATION_UNIT_KERNELS_CUH
#define TRANSLATION_UNIT_KERNELS_CUH

/* out[i] = (in[n-1-i] + bias) * scale, through dynamic shared memory */
template <typename T>
__global__ void reverse_scaled(const T *in, T *out, int n, T scale = T(2), T bias = 0)
{
    extern __shared__ __align__(16) unsigned char tu_raw[];
    T *s = reinterpret_cast<T *>(tu_raw);
    const int t = threadIdx.x;
    if (t < n) s[t] = in[t];
    __syncthreads();
    if (t < n) out[t] = (s[n - 1 - t] + bias) * scale;
}

/* the launch lives in the header too; scale and bias come from the defaults */
static inline void launch_reverse(const float *in, float *out, int n)
{
    reverse_scaled<float><<<1, n, n * sizeof(float)>>>(in, out, n);
}

#endif
