/* emu/tests/texture.cu - CUDA arrays, texture and surface objects on the emulator.
 *
 * Every fetch is compared, bit for bit, with a host reference written here
 * from the CUDA Programming Guide's "Texture Fetching" appendix (address
 * modes on normalized or texel coordinates, point sampling T[floor(x)],
 * linear filtering with weights rounded to 8 fraction bits): point and
 * linear filtering in 1D (array), 2D (pitched memory and array) and 3D
 * (array), in each address mode, normalized and unnormalized coordinates;
 * normalized-float reads of uchar, ushort, char; integer, vector and half
 * textures; tex1Dfetch over linear memory.  Also values a GPU returned for
 * 1D linear filtering (NVIDIA forum thread "tex1D accuracy"), the copies to
 * and from arrays, surfaces, and the errors: invalid descriptors give
 * cudaErrorInvalidValue; `texture destroyed|wrong-type|freed-array|freed-memory`
 * fetch through a destroyed object, with a type the texture does not
 * return, or after its texels were freed, and the launch fails
 * (emu/tests/CMakeLists.txt checks the message).
 * Valid CUDA: compiles with nvcc too (-DCUDAEMU_REAL_TESTS=ON). */
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "test_util.h"

/* cudaMemcpyToArray and its family are deprecated in CUDA, still used
 * (simplePitchLinearTexture), and tested here on purpose. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/* ---- kernels: thread i fetches at coordinate i ---------------------------- */
template <class T>
__global__ void fetch1d(cudaTextureObject_t t, const float *x, T *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1D<T>(t, x[i]);
}
template <class T>
__global__ void fetch2d(cudaTextureObject_t t, const float *x, const float *y, T *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2D<T>(t, x[i], y[i]);
}
__global__ void fetch3d(cudaTextureObject_t t, const float *x, const float *y, const float *z,
                        float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex3D<float>(t, x[i], y[i], z[i]);
}
template <class T>
__global__ void fetch_index(cudaTextureObject_t t, const int *x, T *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) tex1Dfetch(&out[i], t, x[i]); /* the pointer form */
}
__global__ void surf_fill(cudaSurfaceObject_t s, int w, int h)
{
    int x = threadIdx.x, y = threadIdx.y;
    if (x < w && y < h) surf2Dwrite(x * 100 + y, s, x * (int)sizeof(int), y);
}
/* out[i]: the element at (x[i], y) read back with boundary mode Zero (i even) or Clamp */
__global__ void surf_read(cudaSurfaceObject_t s, const int *x, int y, int *out, int n)
{
    int i = threadIdx.x;
    if (i < n)
        out[i] = surf2Dread<int>(s, x[i] * (int)sizeof(int), y,
                                 i % 2 ? cudaBoundaryModeClamp : cudaBoundaryModeZero);
}

/* ---- the reference ---------------------------------------------------------- */
struct Sampling {
    int mode;     /* cudaTextureAddressMode, all dimensions */
    bool linear;  /* filter */
    bool norm;    /* normalized coordinates */
};

/* Texel index i of a dimension of n texels; -1 for the border colour. */
static long ref_index(long i, long n, int mode)
{
    if (mode == cudaAddressModeBorder) return i < 0 || i >= n ? -1 : i;
    if (mode == cudaAddressModeClamp) return i < 0 ? 0 : i >= n ? n - 1 : i;
    if (mode == cudaAddressModeWrap) {
        while (i < 0) i += n;
        while (i >= n) i -= n;
        return i;
    }
    while (i < 0 || i >= n) /* mirror: reflect about the edges */
        i = i < 0 ? -1 - i : 2 * n - 1 - i;
    return i;
}

/* A coordinate in texels after the address mode (normalized coordinates). */
static double ref_texels(double x, long n, const Sampling &s)
{
    if (!s.norm) return x;
    if (s.mode == cudaAddressModeWrap) {
        x = x - std::floor(x);
    } else if (s.mode == cudaAddressModeMirror) {
        const double f = std::floor(x);
        x = std::fmod(std::fabs(f), 2.0) == 0.0 ? x - f : 1.0 - (x - f);
    }
    return x * (double)n;
}

/* With unnormalized coordinates CUDA takes wrap and mirror as clamp. */
static int ref_mode(const Sampling &s)
{
    if (!s.norm && (s.mode == cudaAddressModeWrap || s.mode == cudaAddressModeMirror))
        return cudaAddressModeClamp;
    return s.mode;
}

/* Texels and weights along one dimension: point sampling gives one texel of
 * weight 1, linear filtering two with (1 - a, a), a in 1/256 steps. */
struct Taps {
    int count;
    long idx[2];
    double w[2];
};
static Taps ref_taps(double x, long n, const Sampling &s)
{
    const double u = ref_texels(x, n, s);
    const int mode = ref_mode(s);
    Taps t;
    if (!s.linear) {
        t.count = 1;
        t.idx[0] = ref_index((long)std::floor(u), n, mode);
        t.w[0] = 1.0;
        return t;
    }
    const double xb = u - 0.5, i = std::floor(xb);
    const double a = std::floor((xb - i) * 256.0 + 0.5) / 256.0; /* 9-bit fixed point */
    t.count = 2;
    t.idx[0] = ref_index((long)i, n, mode);
    t.idx[1] = ref_index((long)i + 1, n, mode);
    t.w[0] = 1.0 - a;
    t.w[1] = a;
    return t;
}

/* Filtered value of a one-channel float-returning texture of w x h x d
 * texels (h, d 0: a dimension it does not have), texel(x, y, z) giving each
 * texel's value. */
template <class F>
static float ref_fetch(const Sampling &s, long w, long h, long d, double x, double y, double z,
                       float border, F texel)
{
    const Taps none = {1, {0, 0}, {1.0, 0.0}};
    const Taps tx = ref_taps(x, w, s), ty = h ? ref_taps(y, h, s) : none,
               tz = d ? ref_taps(z, d, s) : none;
    double sum = 0;
    for (int k = 0; k < tz.count; ++k)
        for (int j = 0; j < ty.count; ++j)
            for (int i = 0; i < tx.count; ++i) {
                const double wt = tx.w[i] * ty.w[j] * tz.w[k];
                const bool out = tx.idx[i] < 0 || ty.idx[j] < 0 || tz.idx[k] < 0;
                sum += wt * (out ? border : texel(tx.idx[i], ty.idx[j], tz.idx[k]));
            }
    return (float)sum;
}

/* ---- helpers ----------------------------------------------------------------- */
template <class T> static T *to_device(const std::vector<T> &v)
{
    T *d = nullptr;
    CK(cudaMalloc(&d, v.size() * sizeof(T)));
    CK(cudaMemcpy(d, v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}
template <class T> static std::vector<T> to_host(const T *d, size_t n)
{
    std::vector<T> v(n);
    CK(cudaMemcpy(v.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
    return v;
}
static bool same(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

static cudaTextureDesc tex_desc(const Sampling &s, float border = 0.0f,
                                cudaTextureReadMode read = cudaReadModeElementType)
{
    cudaTextureDesc t;
    std::memset(&t, 0, sizeof t);
    for (int i = 0; i < 3; ++i) t.addressMode[i] = (cudaTextureAddressMode)s.mode;
    t.filterMode = s.linear ? cudaFilterModeLinear : cudaFilterModePoint;
    t.readMode = read;
    t.normalizedCoords = s.norm;
    for (int i = 0; i < 4; ++i) t.borderColor[i] = border;
    return t;
}
static cudaResourceDesc array_res(cudaArray_t a)
{
    cudaResourceDesc r;
    std::memset(&r, 0, sizeof r);
    r.resType = cudaResourceTypeArray;
    r.res.array.array = a;
    return r;
}

/* Fetches tex2D<T> at the coordinate pairs (x[i], y[i]). */
template <class T>
static std::vector<T> run2d(cudaTextureObject_t t, const std::vector<float> &x,
                            const std::vector<float> &y)
{
    float *dx = to_device(x), *dy = to_device(y);
    T *out = nullptr;
    CK(cudaMalloc(&out, x.size() * sizeof(T)));
    fetch2d<T><<<1, (unsigned)x.size()>>>(t, dx, dy, out, (int)x.size());
    CK(cudaGetLastError());
    std::vector<T> r = to_host(out, x.size());
    CK(cudaFree(dx));
    CK(cudaFree(dy));
    CK(cudaFree(out));
    return r;
}
template <class T>
static std::vector<T> run1d(cudaTextureObject_t t, const std::vector<float> &x)
{
    float *dx = to_device(x);
    T *out = nullptr;
    CK(cudaMalloc(&out, x.size() * sizeof(T)));
    fetch1d<T><<<1, (unsigned)x.size()>>>(t, dx, out, (int)x.size());
    CK(cudaGetLastError());
    std::vector<T> r = to_host(out, x.size());
    CK(cudaFree(dx));
    CK(cudaFree(out));
    return r;
}

static const char *mode_name(int m)
{
    static const char *n[] = {"wrap", "clamp", "mirror", "border"};
    return n[m];
}

static int g_fetches = 0; /* compared with the reference */

/* ---- 1D and 2D float textures in every sampling -------------------------------- */
constexpr int kW = 8, kH = 4;
static float tex_value(long x, long y) { return (float)(1 + 3 * x + 40 * y); }

static void check_sampling()
{
    /* coordinates whose products with 8 and 4 are exact in float */
    const std::vector<float> xn = {-1.3f, -0.55f, -0.0625f, 0.0f, 0.03125f, 0.3f, 0.5f,
                                   0.97f, 1.0f, 1.2f, 2.6f, -2.5f};
    const std::vector<float> xu = {-3.7f, -0.5f, 0.0f, 0.3f, 2.5f, 4.75f, 7.49f, 7.9f,
                                   8.0f, 9.3f, 17.2f, 0.51f};
    const std::vector<float> yn = {-0.3f, 0.1f, 0.5f, 0.8f, 1.6f};
    const std::vector<float> yu = {-1.0f, 0.25f, 1.5f, 3.2f, 5.0f};
    const float border = -7.5f;

    /* the texels: a 1D array, pitched 2D memory, a 2D array */
    std::vector<float> h(kW * kH);
    for (int y = 0; y < kH; ++y)
        for (int x = 0; x < kW; ++x) h[y * kW + x] = tex_value(x, y);
    const cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
    cudaArray_t a1 = nullptr, a2 = nullptr;
    CK(cudaMallocArray(&a1, &fd, kW));
    CK(cudaMemcpyToArray(a1, 0, 0, h.data(), kW * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMallocArray(&a2, &fd, kW, kH));
    CK(cudaMemcpy2DToArray(a2, 0, 0, h.data(), kW * sizeof(float), kW * sizeof(float), kH,
                           cudaMemcpyHostToDevice));
    float *pm = nullptr;
    size_t pitch = 0;
    CK(cudaMallocPitch(&pm, &pitch, kW * sizeof(float), kH));
    CK(cudaMemcpy2D(pm, pitch, h.data(), kW * sizeof(float), kW * sizeof(float), kH,
                    cudaMemcpyHostToDevice));
    cudaResourceDesc rp;
    std::memset(&rp, 0, sizeof rp);
    rp.resType = cudaResourceTypePitch2D;
    rp.res.pitch2D.devPtr = pm;
    rp.res.pitch2D.desc = fd;
    rp.res.pitch2D.width = kW;
    rp.res.pitch2D.height = kH;
    rp.res.pitch2D.pitchInBytes = pitch;
    const cudaResourceDesc r1 = array_res(a1), r2 = array_res(a2);

    for (int mode = 0; mode < 4; ++mode)
        for (int lin = 0; lin < 2; ++lin)
            for (int norm = 0; norm < 2; ++norm) {
                const Sampling s = {mode, lin != 0, norm != 0};
                const cudaTextureDesc td = tex_desc(s, border);
                const std::vector<float> &xs = norm ? xn : xu, &ys0 = norm ? yn : yu;
                /* 1D array */
                cudaTextureObject_t t1;
                CK(cudaCreateTextureObject(&t1, &r1, &td, nullptr));
                std::vector<float> got = run1d<float>(t1, xs);
                for (size_t i = 0; i < xs.size(); ++i) {
                    const float want = ref_fetch(s, kW, 0, 0, xs[i], 0, 0, border,
                                                 [](long x, long, long) { return tex_value(x, 0); });
                    ++g_fetches;
                    if (!same(got[i], want)) {
                        std::fprintf(stderr, "1D %s %s %s x=%g: %.9g, want %.9g\n",
                                     mode_name(mode), lin ? "linear" : "point",
                                     norm ? "normalized" : "texels", xs[i], got[i], want);
                        ++g_test_failures;
                    }
                }
                CK(cudaDestroyTextureObject(t1));
                /* 2D: every x with every y, pitched memory and array */
                std::vector<float> x2, y2;
                for (float y : ys0)
                    for (float x : xs) {
                        x2.push_back(x);
                        y2.push_back(y);
                    }
                for (int res = 0; res < 2; ++res) {
                    cudaTextureObject_t t2;
                    CK(cudaCreateTextureObject(&t2, res ? &r2 : &rp, &td, nullptr));
                    got = run2d<float>(t2, x2, y2);
                    for (size_t i = 0; i < x2.size(); ++i) {
                        const float want = ref_fetch(s, kW, kH, 0, x2[i], y2[i], 0, border,
                                                     [](long x, long y, long) { return tex_value(x, y); });
                        ++g_fetches;
                        if (!same(got[i], want)) {
                            std::fprintf(stderr, "2D %s %s %s %s (%g, %g): %.9g, want %.9g\n",
                                         res ? "array" : "pitch2D", mode_name(mode),
                                         lin ? "linear" : "point", norm ? "normalized" : "texels",
                                         x2[i], y2[i], got[i], want);
                            ++g_test_failures;
                        }
                    }
                    CK(cudaDestroyTextureObject(t2));
                }
            }
    CK(cudaFreeArray(a1));
    CK(cudaFreeArray(a2));
    CK(cudaFree(pm));
}

/* What a GPU returned for tex1D of a 2-texel float table {1, 2} with linear
 * filtering, normalized coordinates and clamp: the weights' 8 fraction bits
 * show (NVIDIA developer forum, "tex1D accuracy"). */
static void check_gpu_values()
{
    const float table[2] = {1.0f, 2.0f};
    const cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
    cudaArray_t a = nullptr;
    CK(cudaMallocArray(&a, &fd, 2));
    CK(cudaMemcpy2DToArray(a, 0, 0, table, sizeof table, sizeof table, 1, cudaMemcpyHostToDevice));
    const cudaResourceDesc r = array_res(a);
    const cudaTextureDesc td = tex_desc({cudaAddressModeClamp, true, true});
    cudaTextureObject_t t;
    CK(cudaCreateTextureObject(&t, &r, &td, nullptr));
    const std::vector<float> key = {0.0f, 0.25f, 0.3f, 0.35f, 0.4f, 0.45f, 0.5f, 0.55f,
                                    0.6f, 0.65f, 0.7f, 0.75f, 0.9f};
    const float gpu[] = {1.0f, 1.0f, 1.1015625f, 1.19921875f, 1.30078125f, 1.3984375f, 1.5f,
                         1.6015625f, 1.69921875f, 1.80078125f, 1.8984375f, 2.0f, 2.0f};
    const std::vector<float> got = run1d<float>(t, key);
    for (size_t i = 0; i < key.size(); ++i) {
        ++g_fetches;
        if (!same(got[i], gpu[i])) {
            std::fprintf(stderr, "GPU values: tex1D(%g) = %.9g, a GPU gave %.9g\n", key[i],
                         got[i], gpu[i]);
            ++g_test_failures;
        }
    }
    CK(cudaDestroyTextureObject(t));
    CK(cudaFreeArray(a));
}

/* ---- read modes and element types ---------------------------------------------- */
static void check_read_modes()
{
    /* uchar, normalized floats, linear filtering on texels, pitched memory */
    {
        const int w = 4, hgt = 3;
        std::vector<unsigned char> v(w * hgt);
        for (int i = 0; i < w * hgt; ++i) v[i] = (unsigned char)(i * 67 % 256);
        unsigned char *d = nullptr;
        size_t pitch = 0;
        CK(cudaMallocPitch(&d, &pitch, w, hgt));
        CK(cudaMemcpy2D(d, pitch, v.data(), w, w, hgt, cudaMemcpyHostToDevice));
        cudaResourceDesc r;
        std::memset(&r, 0, sizeof r);
        r.resType = cudaResourceTypePitch2D;
        r.res.pitch2D.devPtr = d;
        r.res.pitch2D.desc = cudaCreateChannelDesc<unsigned char>();
        r.res.pitch2D.width = w;
        r.res.pitch2D.height = hgt;
        r.res.pitch2D.pitchInBytes = pitch;
        const Sampling s = {cudaAddressModeClamp, true, false};
        const cudaTextureDesc td = tex_desc(s, 0.0f, cudaReadModeNormalizedFloat);
        cudaTextureObject_t t;
        CK(cudaCreateTextureObject(&t, &r, &td, nullptr));
        const std::vector<float> x = {0.5f, 1.0f, 1.3f, 2.9f, 3.7f, -1.0f},
                                 y = {0.5f, 0.75f, 2.2f, 1.5f, 0.9f, 3.3f};
        const std::vector<float> got = run2d<float>(t, x, y);
        for (size_t i = 0; i < x.size(); ++i) {
            const float want = ref_fetch(s, w, hgt, 0, x[i], y[i], 0, 0.0f,
                                         [&](long a, long b, long) { return (float)v[b * w + a] / 255.0f; });
            ++g_fetches;
            if (!same(got[i], want)) {
                std::fprintf(stderr, "uchar normalized (%g, %g): %.9g, want %.9g\n", x[i], y[i],
                             got[i], want);
                ++g_test_failures;
            }
        }
        CK(cudaDestroyTextureObject(t));
        CK(cudaFree(d));
    }
    /* ushort, normalized floats, point and linear, 1D array */
    {
        const std::vector<unsigned short> v = {0, 1, 65535, 32768, 12345, 40000};
        const cudaChannelFormatDesc fd = cudaCreateChannelDesc<unsigned short>();
        cudaArray_t a = nullptr;
        CK(cudaMallocArray(&a, &fd, v.size()));
        CK(cudaMemcpyToArray(a, 0, 0, v.data(), v.size() * 2, cudaMemcpyHostToDevice));
        const cudaResourceDesc r = array_res(a);
        for (int lin = 0; lin < 2; ++lin) {
            const Sampling s = {cudaAddressModeWrap, lin != 0, true};
            const cudaTextureDesc td = tex_desc(s, 0.0f, cudaReadModeNormalizedFloat);
            cudaTextureObject_t t;
            CK(cudaCreateTextureObject(&t, &r, &td, nullptr));
            const std::vector<float> x = {0.0f, 0.1f, 0.25f, 0.4f, 0.5f, 0.75f, 0.99f, 1.3f};
            const std::vector<float> got = run1d<float>(t, x);
            for (size_t i = 0; i < x.size(); ++i) {
                const float want = ref_fetch(s, (long)v.size(), 0, 0, x[i], 0, 0, 0.0f,
                                             [&](long a2, long, long) { return (float)v[a2] / 65535.0f; });
                ++g_fetches;
                if (!same(got[i], want)) {
                    std::fprintf(stderr, "ushort normalized %s x=%g: %.9g, want %.9g\n",
                                 lin ? "linear" : "point", x[i], got[i], want);
                    ++g_test_failures;
                }
            }
            CK(cudaDestroyTextureObject(t));
        }
        CK(cudaFreeArray(a));
    }
    /* signed char as normalized floats: -128 and -127 both -1, 127 is 1 */
    {
        const std::vector<signed char> v = {-128, -127, -64, 0, 1, 127};
        const cudaChannelFormatDesc fd = cudaCreateChannelDesc<signed char>();
        cudaArray_t a = nullptr;
        CK(cudaMallocArray(&a, &fd, v.size()));
        CK(cudaMemcpyToArray(a, 0, 0, v.data(), v.size(), cudaMemcpyHostToDevice));
        const cudaResourceDesc r = array_res(a);
        const cudaTextureDesc td = tex_desc({cudaAddressModeClamp, false, false}, 0.0f,
                                            cudaReadModeNormalizedFloat);
        cudaTextureObject_t t;
        CK(cudaCreateTextureObject(&t, &r, &td, nullptr));
        const std::vector<float> got = run1d<float>(t, {0.5f, 1.5f, 2.5f, 3.5f, 4.5f, 5.5f});
        const float want[] = {-1.0f, -1.0f, -64.0f / 127.0f, 0.0f, 1.0f / 127.0f, 1.0f};
        for (int i = 0; i < 6; ++i) CHECK(same(got[i], want[i]));
        /* read as elements, the same texels are integers */
        const cudaTextureDesc te = tex_desc({cudaAddressModeClamp, false, false});
        cudaTextureObject_t ti;
        CK(cudaCreateTextureObject(&ti, &r, &te, nullptr));
        const std::vector<signed char> gi = run1d<signed char>(ti, {0.5f, 2.5f, 5.5f, 9.0f});
        CHECK_EQ_INT(gi[0], -128);
        CHECK_EQ_INT(gi[1], -64);
        CHECK_EQ_INT(gi[2], 127);
        CHECK_EQ_INT(gi[3], 127); /* clamped */
        CK(cudaDestroyTextureObject(t));
        CK(cudaDestroyTextureObject(ti));
        CK(cudaFreeArray(a));
    }
    /* int texels as integers, the border colour's bits as an integer */
    {
        const int w = 3, hgt = 2;
        const std::vector<int> v = {-5, 7, 2000000000, -2000000000, 0, 1};
        const cudaChannelFormatDesc fd = cudaCreateChannelDesc<int>();
        cudaArray_t a = nullptr;
        CK(cudaMallocArray(&a, &fd, w, hgt));
        CK(cudaMemcpy2DToArray(a, 0, 0, v.data(), w * 4, w * 4, hgt, cudaMemcpyHostToDevice));
        const cudaResourceDesc r = array_res(a);
        cudaTextureDesc td = tex_desc({cudaAddressModeBorder, false, false});
        const int border = 42;
        std::memcpy(&td.borderColor[0], &border, 4);
        cudaTextureObject_t t;
        CK(cudaCreateTextureObject(&t, &r, &td, nullptr));
        const std::vector<int> got = run2d<int>(t, {0.5f, 2.9f, 1.0f, -0.1f, 3.0f, 1.5f},
                                                 {0.5f, 0.2f, 1.99f, 0.5f, 1.0f, 2.0f});
        CHECK_EQ_INT(got[0], -5);
        CHECK_EQ_INT(got[1], 2000000000);
        CHECK_EQ_INT(got[2], 0);
        CHECK_EQ_INT(got[3], 42);
        CHECK_EQ_INT(got[4], 42);
        CHECK_EQ_INT(got[5], 42);
        /* unsigned int sees the same bits */
        const std::vector<unsigned> gu = run2d<unsigned>(t, {0.5f}, {0.5f});
        CHECK(gu[0] == (unsigned)-5);
        CK(cudaDestroyTextureObject(t));
        CK(cudaFreeArray(a));
    }
    /* uchar4: as elements and as normalized float4; float2 filtered */
    {
        const std::vector<uchar4> v = {make_uchar4(0, 51, 102, 255), make_uchar4(255, 0, 10, 20)};
        const cudaChannelFormatDesc fd = cudaCreateChannelDesc<uchar4>();
        CHECK(fd.x == 8 && fd.y == 8 && fd.z == 8 && fd.w == 8 && fd.f == cudaChannelFormatKindUnsigned);
        cudaArray_t a = nullptr;
        CK(cudaMallocArray(&a, &fd, 2));
        CK(cudaMemcpyToArray(a, 0, 0, v.data(), 8, cudaMemcpyHostToDevice));
        const cudaResourceDesc r = array_res(a);
        const cudaTextureDesc te = tex_desc({cudaAddressModeClamp, false, false});
        cudaTextureObject_t t;
        CK(cudaCreateTextureObject(&t, &r, &te, nullptr));
        const std::vector<uchar4> g = run1d<uchar4>(t, {1.5f});
        CHECK(g[0].x == 255 && g[0].y == 0 && g[0].z == 10 && g[0].w == 20);
        CK(cudaDestroyTextureObject(t));
        const Sampling s = {cudaAddressModeClamp, true, false};
        const cudaTextureDesc tn = tex_desc(s, 0.0f, cudaReadModeNormalizedFloat);
        CK(cudaCreateTextureObject(&t, &r, &tn, nullptr));
        const std::vector<float4> gf = run1d<float4>(t, {1.25f});
        const unsigned char *b0 = &v[0].x, *b1 = &v[1].x;
        const float *gp = &gf[0].x;
        for (int c = 0; c < 4; ++c) {
            const float want = ref_fetch(s, 2, 0, 0, 1.25, 0, 0, 0.0f, [&](long i, long, long) {
                return (float)(i ? b1[c] : b0[c]) / 255.0f;
            });
            ++g_fetches;
            CHECK(same(gp[c], want));
        }
        CK(cudaDestroyTextureObject(t));
        CK(cudaFreeArray(a));

        const std::vector<float2> v2 = {make_float2(1.0f, -4.0f), make_float2(3.0f, 8.0f)};
        const cudaChannelFormatDesc f2 = cudaCreateChannelDesc<float2>();
        CK(cudaMallocArray(&a, &f2, 2));
        CK(cudaMemcpyToArray(a, 0, 0, v2.data(), 16, cudaMemcpyHostToDevice));
        const cudaResourceDesc r2 = array_res(a);
        const cudaTextureDesc tl = tex_desc(s);
        CK(cudaCreateTextureObject(&t, &r2, &tl, nullptr));
        const std::vector<float2> g2 = run1d<float2>(t, {1.0f, 0.8f});
        CHECK(same(g2[0].x, 2.0f) && same(g2[0].y, 2.0f));
        /* 0.8: a = round(0.3 * 256) / 256 = 77/256 */
        CHECK(same(g2[1].x, (float)(1.0 + 2.0 * 77 / 256)) && same(g2[1].y, (float)(-4.0 + 12.0 * 77 / 256)));
        CK(cudaDestroyTextureObject(t));
        CK(cudaFreeArray(a));
    }
    /* half texels (cudaCreateChannelDescHalf) come back as floats */
    {
        const std::vector<unsigned short> v = {0x3e00, 0xc000, 0x7bff, 0x0001, 0x8000};
        const float want[] = {1.5f, -2.0f, 65504.0f, 5.9604644775390625e-8f, -0.0f};
        const cudaChannelFormatDesc fd = cudaCreateChannelDescHalf();
        cudaArray_t a = nullptr;
        CK(cudaMallocArray(&a, &fd, v.size()));
        CK(cudaMemcpyToArray(a, 0, 0, v.data(), v.size() * 2, cudaMemcpyHostToDevice));
        const cudaResourceDesc r = array_res(a);
        const cudaTextureDesc td = tex_desc({cudaAddressModeClamp, false, false});
        cudaTextureObject_t t;
        CK(cudaCreateTextureObject(&t, &r, &td, nullptr));
        const std::vector<float> got = run1d<float>(t, {0.5f, 1.5f, 2.5f, 3.5f, 4.5f});
        for (int i = 0; i < 5; ++i) CHECK(same(got[i], want[i]));
        CK(cudaDestroyTextureObject(t));
        CK(cudaFreeArray(a));
    }
}

/* ---- linear memory and tex1Dfetch ------------------------------------------------ */
static void check_linear()
{
    const std::vector<unsigned> v = {10, 20, 30, 4000000000u, 50};
    unsigned *d = to_device(v);
    cudaResourceDesc r;
    std::memset(&r, 0, sizeof r);
    r.resType = cudaResourceTypeLinear;
    r.res.linear.devPtr = d;
    r.res.linear.desc = cudaCreateChannelDesc<unsigned>();
    r.res.linear.sizeInBytes = v.size() * sizeof(unsigned);
    cudaTextureDesc td;
    std::memset(&td, 0, sizeof td);
    cudaTextureObject_t t;
    CK(cudaCreateTextureObject(&t, &r, &td, nullptr));
    const std::vector<int> idx = {0, 3, 4, 5, -1, 1000};
    int *di = to_device(idx);
    unsigned *out = nullptr;
    CK(cudaMalloc(&out, idx.size() * sizeof(unsigned)));
    fetch_index<unsigned><<<1, (unsigned)idx.size()>>>(t, di, out, (int)idx.size());
    CK(cudaGetLastError());
    const std::vector<unsigned> got = to_host(out, idx.size());
    CHECK(got[0] == 10 && got[1] == 4000000000u && got[2] == 50);
    CHECK(got[3] == 0 && got[4] == 0 && got[5] == 0); /* outside: zeros */
    /* the descriptors come back as given */
    cudaResourceDesc rb;
    CK(cudaGetTextureObjectResourceDesc(&rb, t));
    CHECK(rb.resType == cudaResourceTypeLinear && rb.res.linear.devPtr == d &&
          rb.res.linear.sizeInBytes == r.res.linear.sizeInBytes);
    cudaTextureDesc tb;
    CK(cudaGetTextureObjectTextureDesc(&tb, t));
    CHECK(tb.filterMode == cudaFilterModePoint && tb.normalizedCoords == 0);
    CK(cudaDestroyTextureObject(t));
    CK(cudaFree(di));
    CK(cudaFree(out));
    CK(cudaFree(d));
}

/* ---- 3D arrays: cudaMemcpy3D in and out, point and trilinear fetches ------------ */
static void check_3d()
{
    const int w = 4, hgt = 3, dep = 2;
    std::vector<float> v(w * hgt * dep);
    for (int i = 0; i < w * hgt * dep; ++i) v[i] = (float)(i * 7 % 23);
    const cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
    cudaArray_t a = nullptr;
    CK(cudaMalloc3DArray(&a, &fd, make_cudaExtent(w, hgt, dep)));
    cudaMemcpy3DParms p;
    std::memset(&p, 0, sizeof p);
    p.srcPtr = make_cudaPitchedPtr(v.data(), w * sizeof(float), w, hgt);
    p.dstArray = a;
    p.extent = make_cudaExtent(w, hgt, dep);
    p.kind = cudaMemcpyHostToDevice;
    CK(cudaMemcpy3D(&p));
    /* and back, through a sub-box */
    std::vector<float> back(2 * 2 * 2, -1.0f);
    std::memset(&p, 0, sizeof p);
    p.srcArray = a;
    p.srcPos = make_cudaPos(1, 1, 0);
    p.dstPtr = make_cudaPitchedPtr(back.data(), 2 * sizeof(float), 2, 2);
    p.extent = make_cudaExtent(2, 2, 2);
    p.kind = cudaMemcpyDeviceToHost;
    CK(cudaMemcpy3D(&p));
    for (int z = 0; z < 2; ++z)
        for (int y = 0; y < 2; ++y)
            for (int x = 0; x < 2; ++x)
                CHECK(back[(z * 2 + y) * 2 + x] == v[(z * hgt + y + 1) * w + x + 1]);
    cudaExtent ext;
    cudaChannelFormatDesc got_fd;
    unsigned flags = 7;
    CK(cudaArrayGetInfo(&got_fd, &ext, &flags, a));
    CHECK(ext.width == 4 && ext.height == 3 && ext.depth == 2 && flags == 0 && got_fd.x == 32);

    const cudaResourceDesc r = array_res(a);
    const std::vector<float> x = {0.5f, 1.3f, 3.9f, -0.4f, 2.25f}, y = {0.5f, 1.7f, 2.5f, 0.1f, 2.0f},
                             z = {0.5f, 0.6f, 1.5f, 2.7f, 1.0f};
    float *dx = to_device(x), *dy = to_device(y), *dz = to_device(z), *out = nullptr;
    CK(cudaMalloc(&out, x.size() * sizeof(float)));
    for (int lin = 0; lin < 2; ++lin) {
        const Sampling s = {cudaAddressModeClamp, lin != 0, false};
        const cudaTextureDesc td = tex_desc(s);
        cudaTextureObject_t t;
        CK(cudaCreateTextureObject(&t, &r, &td, nullptr));
        fetch3d<<<1, (unsigned)x.size()>>>(t, dx, dy, dz, out, (int)x.size());
        CK(cudaGetLastError());
        const std::vector<float> got = to_host(out, x.size());
        for (size_t i = 0; i < x.size(); ++i) {
            const float want = ref_fetch(s, w, hgt, dep, x[i], y[i], z[i], 0.0f,
                                         [&](long a1, long b, long c) { return v[(c * hgt + b) * w + a1]; });
            ++g_fetches;
            if (!same(got[i], want)) {
                std::fprintf(stderr, "3D %s (%g, %g, %g): %.9g, want %.9g\n",
                             lin ? "linear" : "point", x[i], y[i], z[i], got[i], want);
                ++g_test_failures;
            }
        }
        CK(cudaDestroyTextureObject(t));
    }
    CK(cudaFree(dx));
    CK(cudaFree(dy));
    CK(cudaFree(dz));
    CK(cudaFree(out));
    CK(cudaFreeArray(a));
}

/* ---- copies between arrays and memory --------------------------------------------- */
static void check_copies()
{
    const cudaChannelFormatDesc fd = cudaCreateChannelDesc<unsigned char>();
    cudaArray_t a = nullptr, b = nullptr;
    CK(cudaMallocArray(&a, &fd, 16, 4));
    CK(cudaMallocArray(&b, &fd, 16, 4));
    /* fresh arrays hold 0xFF bytes, like fresh device memory */
    std::vector<unsigned char> h(64, 0);
    CK(cudaMemcpyFromArray(h.data(), a, 0, 0, 64, cudaMemcpyDeviceToHost));
    bool all_ff = true;
    for (unsigned char c : h) all_ff &= c == 0xff;
    CHECK(all_ff);
    std::vector<unsigned char> src(64);
    for (int i = 0; i < 64; ++i) src[i] = (unsigned char)i;
    CK(cudaMemcpyToArray(a, 0, 0, src.data(), 64, cudaMemcpyHostToDevice));
    /* 3 bytes from (5, 1): row 1 starts at byte 16 */
    unsigned char three[3];
    CK(cudaMemcpyFromArray(three, a, 5, 1, 3, cudaMemcpyDeviceToHost));
    CHECK(three[0] == 21 && three[1] == 22 && three[2] == 23);
    /* a 4x2 box from (2, 1) of a to (10, 2) of b, then b's rows 2..3 out */
    CK(cudaMemcpy2DArrayToArray(b, 10, 2, a, 2, 1, 4, 2));
    unsigned char box[2][6];
    CK(cudaMemcpy2DFromArray(box, 6, b, 9, 2, 6, 2, cudaMemcpyDeviceToHost));
    CHECK(box[0][0] == 0xff && box[0][1] == 18 && box[0][4] == 21 && box[0][5] == 0xff);
    CHECK(box[1][1] == 34 && box[1][4] == 37);
    CK(cudaMemcpyArrayToArray(b, 0, 0, a, 0, 3, 16));
    CK(cudaMemcpyFromArray(h.data(), b, 0, 0, 16, cudaMemcpyDeviceToHost));
    CHECK(h[0] == 48 && h[15] == 63);
    /* to and from device memory, asynchronously on a stream */
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    unsigned char *d = nullptr;
    CK(cudaMalloc(&d, 64));
    CK(cudaMemcpy2DFromArrayAsync(d, 16, a, 0, 0, 16, 4, cudaMemcpyDeviceToDevice, s));
    CK(cudaMemcpy2DToArrayAsync(b, 0, 0, d, 16, 16, 4, cudaMemcpyDeviceToDevice, s));
    CK(cudaStreamSynchronize(s));
    CK(cudaMemcpy2DFromArray(h.data(), 16, b, 0, 0, 16, 4, cudaMemcpyDeviceToHost));
    CHECK(std::memcmp(h.data(), src.data(), 64) == 0);
    /* regions past the array */
    CHECK(cudaMemcpy2DToArray(a, 8, 0, src.data(), 16, 9, 1, cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
    CHECK(cudaMemcpy2DToArray(a, 0, 3, src.data(), 16, 16, 2, cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
    CHECK(cudaMemcpyToArray(a, 0, 3, src.data(), 17, cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
    CHECK(cudaMemcpyFromArray(h.data(), a, 16, 0, 1, cudaMemcpyDeviceToHost) == cudaErrorInvalidValue);
    (void)cudaGetLastError();
    CK(cudaStreamDestroy(s));
    CK(cudaFree(d));
    CK(cudaFreeArray(a));
    CK(cudaFreeArray(b));
}

/* ---- surfaces -------------------------------------------------------------------- */
static void check_surfaces()
{
    const int w = 8, hgt = 4;
    const cudaChannelFormatDesc fd = cudaCreateChannelDesc<int>();
    cudaArray_t a = nullptr;
    CK(cudaMallocArray(&a, &fd, w, hgt, cudaArraySurfaceLoadStore));
    const cudaResourceDesc r = array_res(a);
    cudaSurfaceObject_t s;
    CK(cudaCreateSurfaceObject(&s, &r));
    surf_fill<<<1, dim3(w, hgt)>>>(s, w, hgt);
    CK(cudaGetLastError());
    std::vector<int> h(w * hgt);
    CK(cudaMemcpy2DFromArray(h.data(), w * 4, a, 0, 0, w * 4, hgt, cudaMemcpyDeviceToHost));
    for (int y = 0; y < hgt; ++y)
        for (int x = 0; x < w; ++x) CHECK_EQ_INT(h[y * w + x], x * 100 + y);
    /* boundary modes: Zero (even i) reads 0 outside, Clamp (odd i) the edge */
    const std::vector<int> xs = {-1, -1, 3, 3, 8, 8, 100, 100};
    int *dx = to_device(xs), *out = nullptr;
    CK(cudaMalloc(&out, xs.size() * sizeof(int)));
    surf_read<<<1, (unsigned)xs.size()>>>(s, dx, 2, out, (int)xs.size());
    CK(cudaGetLastError());
    const std::vector<int> got = to_host(out, xs.size());
    const int want[] = {0, 2, 302, 302, 0, 702, 0, 702};
    for (int i = 0; i < 8; ++i) CHECK_EQ_INT(got[i], want[i]);
    /* a texture over the same array sees what the surface wrote */
    const cudaTextureDesc td = tex_desc({cudaAddressModeClamp, false, false});
    cudaTextureObject_t t;
    CK(cudaCreateTextureObject(&t, &r, &td, nullptr));
    CHECK_EQ_INT(run2d<int>(t, {5.5f}, {3.5f})[0], 503);
    CK(cudaDestroyTextureObject(t));
    CK(cudaDestroySurfaceObject(s));
    CK(cudaFree(dx));
    CK(cudaFree(out));
    CK(cudaFreeArray(a));
}

/* ---- invalid descriptors and handles ------------------------------------------------ */
static void check_errors()
{
    const cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
    cudaArray_t a = nullptr;
    CK(cudaMallocArray(&a, &fd, 8, 8));
    float *d = nullptr;
    CK(cudaMalloc(&d, 4096));
    cudaResourceDesc ra = array_res(a);
    const cudaTextureDesc good = tex_desc({cudaAddressModeClamp, false, false});
    cudaTextureObject_t t = 0;
    const cudaError_t inval = cudaErrorInvalidValue;

    CHECK(cudaCreateTextureObject(nullptr, &ra, &good, nullptr) == inval);
    CHECK(cudaCreateTextureObject(&t, nullptr, &good, nullptr) == inval);
    CHECK(cudaCreateTextureObject(&t, &ra, nullptr, nullptr) == inval);
    cudaTextureDesc bad = good;
    bad.addressMode[1] = (cudaTextureAddressMode)4;
    CHECK(cudaCreateTextureObject(&t, &ra, &bad, nullptr) == inval);
    bad = good;
    bad.filterMode = (cudaTextureFilterMode)2;
    CHECK(cudaCreateTextureObject(&t, &ra, &bad, nullptr) == inval);
    bad = good;
    bad.readMode = (cudaTextureReadMode)2;
    CHECK(cudaCreateTextureObject(&t, &ra, &bad, nullptr) == inval);
    cudaResourceDesc r = ra;
    r.flags = 1;
    CHECK(cudaCreateTextureObject(&t, &r, &good, nullptr) == inval);
    r = ra;
    r.resType = (cudaResourceType)7;
    CHECK(cudaCreateTextureObject(&t, &r, &good, nullptr) == inval);
    r = ra;
    r.res.array.array = nullptr;
    CHECK(cudaCreateTextureObject(&t, &r, &good, nullptr) == inval);
    /* linear memory: misaligned, past its block, host memory, empty, bad format */
    std::memset(&r, 0, sizeof r);
    r.resType = cudaResourceTypeLinear;
    r.res.linear.devPtr = d + 1;
    r.res.linear.desc = fd;
    r.res.linear.sizeInBytes = 64;
    CHECK(cudaCreateTextureObject(&t, &r, &good, nullptr) == inval);
    r.res.linear.devPtr = d;
    r.res.linear.sizeInBytes = 4097;
    CHECK(cudaCreateTextureObject(&t, &r, &good, nullptr) == inval);
    std::vector<float> host(1024);
    r.res.linear.devPtr = host.data();
    r.res.linear.sizeInBytes = 64;
    CHECK(cudaCreateTextureObject(&t, &r, &good, nullptr) == inval);
    r.res.linear.devPtr = d;
    r.res.linear.sizeInBytes = 0;
    CHECK(cudaCreateTextureObject(&t, &r, &good, nullptr) == inval);
    r.res.linear.sizeInBytes = 64;
    r.res.linear.desc = cudaCreateChannelDesc(32, 32, 32, 0, cudaChannelFormatKindFloat); /* 3 channels */
    CHECK(cudaCreateTextureObject(&t, &r, &good, nullptr) == inval);
    r.res.linear.desc = cudaCreateChannelDesc(12, 0, 0, 0, cudaChannelFormatKindSigned);
    CHECK(cudaCreateTextureObject(&t, &r, &good, nullptr) == inval);
    r.res.linear.desc = cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindFloat);
    CHECK(cudaCreateTextureObject(&t, &r, &good, nullptr) == inval);
    r.res.linear.desc = cudaCreateChannelDesc(8, 16, 0, 0, cudaChannelFormatKindUnsigned);
    CHECK(cudaCreateTextureObject(&t, &r, &good, nullptr) == inval);
    r.res.linear.desc = cudaCreateChannelDesc<float>(); /* the same, valid: accepted */
    CK(cudaCreateTextureObject(&t, &r, &good, nullptr));
    CK(cudaDestroyTextureObject(t));
    /* the same texture object destroyed twice, an unknown one */
    CHECK(cudaDestroyTextureObject(t) == inval);
    CHECK(cudaDestroyTextureObject(0x12345678ull) == inval);
    /* pitched memory: pitch not a multiple of 32, below the row, zero width */
    std::memset(&r, 0, sizeof r);
    r.resType = cudaResourceTypePitch2D;
    r.res.pitch2D.devPtr = d;
    r.res.pitch2D.desc = fd;
    r.res.pitch2D.width = 8;
    r.res.pitch2D.height = 4;
    r.res.pitch2D.pitchInBytes = 48;
    CHECK(cudaCreateTextureObject(&t, &r, &good, nullptr) == inval);
    r.res.pitch2D.pitchInBytes = 0;
    CHECK(cudaCreateTextureObject(&t, &r, &good, nullptr) == inval);
    r.res.pitch2D.pitchInBytes = 32;
    r.res.pitch2D.width = 0;
    CHECK(cudaCreateTextureObject(&t, &r, &good, nullptr) == inval);
    /* arrays */
    cudaArray_t b = nullptr;
    CHECK(cudaMallocArray(&b, &fd, 0, 4) == inval);
    CHECK(cudaMallocArray(nullptr, &fd, 4, 4) == inval);
    CHECK(cudaMallocArray(&b, nullptr, 4, 4) == inval);
    const cudaChannelFormatDesc none = cudaCreateChannelDesc<double>(); /* not a texel type */
    CHECK(none.f == cudaChannelFormatKindNone);
    CHECK(cudaMallocArray(&b, &none, 4, 4) == inval);
    CHECK(cudaMalloc3DArray(&b, &fd, make_cudaExtent(4, 0, 3)) == inval);
    CHECK(cudaMallocArray(&b, &fd, 1 << 20) == inval); /* wider than a 1D texture may be */
    /* a surface needs cudaArraySurfaceLoadStore */
    cudaSurfaceObject_t s = 0;
    CHECK(cudaCreateSurfaceObject(&s, &ra) == inval);
    /* a freed array */
    CK(cudaFreeArray(a));
    CHECK(cudaFreeArray(a) == inval);
    CHECK(cudaCreateTextureObject(&t, &ra, &good, nullptr) == inval);
    CHECK(cudaGetLastError() == inval);
    CHECK(cudaGetLastError() == cudaSuccess);
    CK(cudaFree(d));
}

/* ---- the failures a kernel meets (run as separate tests, see CMakeLists.txt) ------ */
/* destroyed: a stale handle; wrong-type: floats from uchar texels read as
 * integers; freed-array, freed-memory: the texels are gone */
static int misuse(const char *what)
{
    const bool pitched = std::strcmp(what, "freed-memory") == 0;
    const cudaChannelFormatDesc fd = cudaCreateChannelDesc<unsigned char>();
    cudaArray_t a = nullptr;
    CK(cudaMallocArray(&a, &fd, 4, 4));
    unsigned char *m = nullptr;
    CK(cudaMalloc(&m, 4 * 32));
    cudaResourceDesc r = array_res(a);
    if (pitched) {
        r.resType = cudaResourceTypePitch2D;
        r.res.pitch2D.devPtr = m;
        r.res.pitch2D.desc = fd;
        r.res.pitch2D.width = 4;
        r.res.pitch2D.height = 4;
        r.res.pitch2D.pitchInBytes = 32;
    }
    const cudaTextureDesc td = tex_desc({cudaAddressModeClamp, false, false}, 0.0f,
                                        std::strcmp(what, "wrong-type") == 0
                                            ? cudaReadModeElementType
                                            : cudaReadModeNormalizedFloat);
    cudaTextureObject_t t;
    CK(cudaCreateTextureObject(&t, &r, &td, nullptr));
    if (std::strcmp(what, "destroyed") == 0) CK(cudaDestroyTextureObject(t));
    if (std::strcmp(what, "freed-array") == 0) {
        CK(cudaFreeArray(a));
        a = nullptr;
    }
    if (pitched) {
        CK(cudaFree(m));
        m = nullptr;
    }
    float *out = nullptr, *x = nullptr;
    CK(cudaMalloc(&out, sizeof(float)));
    CK(cudaMalloc(&x, sizeof(float)));
    CK(cudaMemset(x, 0, sizeof(float)));
    fetch2d<float><<<1, 1>>>(t, x, x, out, 1);
    cudaError_t e = cudaDeviceSynchronize();
    std::printf("%s: %s\n", what, cudaGetErrorName(e));
    (void)cudaDestroyTextureObject(t);
    (void)cudaFree(out); /* they return the launch's sticky error, and free */
    (void)cudaFree(x);
    (void)cudaFree(m);
    (void)cudaFreeArray(a);
    return e == cudaSuccess ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc > 1) return misuse(argv[1]);
    check_sampling();
    check_gpu_values();
    check_read_modes();
    check_linear();
    check_3d();
    check_copies();
    check_surfaces();
    check_errors();
    std::printf("texture: %d fetches compared with the reference\n", g_fetches);
    return test_exit("texture");
}
