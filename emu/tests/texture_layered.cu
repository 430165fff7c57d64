/* emu/tests/texture_layered.cu - layered CUDA arrays (cudaArrayLayered) and the
 * fetches, reads and writes of their layers on the emulator.
 *
 * A 2D layered array (5 x 4, 3 layers) and a 1D layered one (6, 2 layers)
 * of floats, texel (x, y) of layer l = 100 l + 10 y + x, filled by
 * cudaMemcpy3D: tex2DLayered and tex1DLayered point fetches read every
 * texel; a layer index outside the layers is clamped to them; linear
 * filtering mixes the texels of one layer only (x = 1.0: halfway between
 * texels 0 and 1, 100 l + 10 y + 0.5, exact). Surfaces: a kernel writes
 * every element of a 2D and a 1D layered surface (surf2DLayeredwrite,
 * surf1DLayeredwrite), cudaMemcpy3D reads them back, surf2DLayeredread
 * reads them again. The limits: a layered array without layers, or with
 * more than the device's attribute allows, is cudaErrorInvalidValue.
 * `texture_layered plain-on-layered|layered-on-plain|surface-plain-on-layered`
 * misuse a layered object, and the launch fails naming the call
 * (emu/tests/CMakeLists.txt checks the message).
 * Valid CUDA: compiles with nvcc too. */
#include <cuda_runtime.h>

#include <cstring>
#include <vector>

#include "test_util.h"

__global__ void fetch2dl(cudaTextureObject_t t, int w, int h, int layers, float x0, float *out)
{
    const int x = threadIdx.x, y = threadIdx.y, l = blockIdx.x - 1; /* l from -1 to layers */
    if (x < w && y < h) out[(blockIdx.x * h + y) * w + x] = tex2DLayered<float>(t, x0 + x, y + 0.5f, l);
    (void)layers;
}
__global__ void fetch1dl(cudaTextureObject_t t, int w, float *out)
{
    const int x = threadIdx.x, l = blockIdx.x;
    if (x < w) out[l * w + x] = tex1DLayered<float>(t, x + 0.5f, l);
}
__global__ void write2dl(cudaSurfaceObject_t s, int w, int h)
{
    const int x = threadIdx.x, y = threadIdx.y, l = blockIdx.x;
    if (x < w && y < h) surf2DLayeredwrite(float(1000 * l + 10 * y + x), s, x * (int)sizeof(float), y, l);
}
__global__ void read2dl(cudaSurfaceObject_t s, int w, int h, float *out)
{
    const int x = threadIdx.x, y = threadIdx.y, l = blockIdx.x;
    if (x < w && y < h) out[(l * h + y) * w + x] = surf2DLayeredread<float>(s, x * (int)sizeof(float), y, l);
}
__global__ void write1dl(cudaSurfaceObject_t s, int w)
{
    const int x = threadIdx.x, l = blockIdx.x;
    if (x < w) surf1DLayeredwrite(float(7 * l + x), s, x * (int)sizeof(float), l);
}
__global__ void plain2d(cudaTextureObject_t t, float *out) { *out = tex2D<float>(t, 0.5f, 0.5f); }
__global__ void plain_surf(cudaSurfaceObject_t s) { surf2Dwrite(1.0f, s, 0, 0); }

static float texel(int x, int y, int l) { return float(100 * l + 10 * y + x); }

static cudaArray_t layered_array(int w, int h, int layers, unsigned extra)
{
    const cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
    cudaArray_t a = nullptr;
    CK(cudaMalloc3DArray(&a, &fd, make_cudaExtent(w, h, layers), cudaArrayLayered | extra));
    return a;
}

/* the host copy of layers x rows x w floats to or from a (h = 0: 1D layered) */
static void copy3d(cudaArray_t a, float *host, int w, int h, int layers, bool to_array)
{
    cudaMemcpy3DParms p;
    std::memset(&p, 0, sizeof p);
    const int rows = h ? h : 1;
    if (to_array) {
        p.srcPtr = make_cudaPitchedPtr(host, w * sizeof(float), w, rows);
        p.dstArray = a;
        p.kind = cudaMemcpyHostToDevice;
    } else {
        p.srcArray = a;
        p.dstPtr = make_cudaPitchedPtr(host, w * sizeof(float), w, rows);
        p.kind = cudaMemcpyDeviceToHost;
    }
    p.extent = make_cudaExtent(w, rows, layers);
    CK(cudaMemcpy3D(&p));
}

static cudaTextureObject_t texture_of(cudaArray_t a, cudaTextureFilterMode f)
{
    cudaResourceDesc r;
    std::memset(&r, 0, sizeof r);
    r.resType = cudaResourceTypeArray;
    r.res.array.array = a;
    cudaTextureDesc td;
    std::memset(&td, 0, sizeof td);
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = f;
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t t = 0;
    CK(cudaCreateTextureObject(&t, &r, &td, nullptr));
    return t;
}

static cudaSurfaceObject_t surface_of(cudaArray_t a)
{
    cudaResourceDesc r;
    std::memset(&r, 0, sizeof r);
    r.resType = cudaResourceTypeArray;
    r.res.array.array = a;
    cudaSurfaceObject_t s = 0;
    CK(cudaCreateSurfaceObject(&s, &r));
    return s;
}

static void check_textures()
{
    const int w = 5, h = 4, L = 3;
    std::vector<float> v(w * h * L);
    for (int l = 0; l < L; ++l)
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) v[(l * h + y) * w + x] = texel(x, y, l);
    cudaArray_t a = layered_array(w, h, L, 0);
    copy3d(a, v.data(), w, h, L, true);
    float *d = nullptr;
    const int blocks = L + 2; /* layers -1 .. L */
    CK(cudaMalloc(&d, blocks * w * h * sizeof(float)));
    std::vector<float> got(blocks * w * h);
    for (int linear = 0; linear < 2; ++linear) {
        cudaTextureObject_t t = texture_of(a, linear ? cudaFilterModeLinear : cudaFilterModePoint);
        /* point: texel centres; linear: x = 1.0 + x, halfway between x and x + 1 */
        fetch2dl<<<blocks, dim3(w, h)>>>(t, w, h, L, linear ? 1.0f : 0.5f, d);
        CK(cudaGetLastError());
        CK(cudaMemcpy(got.data(), d, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
        for (int b = 0; b < blocks; ++b) {
            const int l = b - 1 < 0 ? 0 : b - 1 >= L ? L - 1 : b - 1; /* clamped */
            for (int y = 0; y < h; ++y)
                for (int x = 0; x < w; ++x) {
                    const float want = linear ? (x + 1 < w ? texel(x, y, l) + 0.5f : texel(x, y, l))
                                              : texel(x, y, l);
                    const float g = got[(b * h + y) * w + x];
                    if (g != want)
                        std::fprintf(stderr, "tex2DLayered %s (%d, %d) layer %d: %g, want %g\n",
                                     linear ? "linear" : "point", x, y, b - 1, g, want);
                    CHECK(g == want);
                }
        }
        CK(cudaDestroyTextureObject(t));
    }
    /* 1D layered */
    const int w1 = 6, L1 = 2;
    std::vector<float> v1(w1 * L1), g1(w1 * L1);
    for (int l = 0; l < L1; ++l)
        for (int x = 0; x < w1; ++x) v1[l * w1 + x] = texel(x, 0, l) + 0.25f;
    cudaArray_t a1 = layered_array(w1, 0, L1, 0);
    copy3d(a1, v1.data(), w1, 0, L1, true);
    cudaTextureObject_t t1 = texture_of(a1, cudaFilterModePoint);
    fetch1dl<<<L1, w1>>>(t1, w1, d);
    CK(cudaGetLastError());
    CK(cudaMemcpy(g1.data(), d, g1.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < w1 * L1; ++i) CHECK(g1[i] == v1[i]);
    CK(cudaDestroyTextureObject(t1));
    CK(cudaFreeArray(a1));
    CK(cudaFreeArray(a));
    CK(cudaFree(d));
}

static void check_surfaces()
{
    const int w = 4, h = 3, L = 2;
    cudaArray_t a = layered_array(w, h, L, cudaArraySurfaceLoadStore);
    cudaSurfaceObject_t s = surface_of(a);
    write2dl<<<L, dim3(w, h)>>>(s, w, h);
    CK(cudaGetLastError());
    std::vector<float> back(w * h * L, -1.0f), again(w * h * L, -1.0f);
    copy3d(a, back.data(), w, h, L, false);
    float *d = nullptr;
    CK(cudaMalloc(&d, again.size() * sizeof(float)));
    read2dl<<<L, dim3(w, h)>>>(s, w, h, d);
    CK(cudaGetLastError());
    CK(cudaMemcpy(again.data(), d, again.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (int l = 0; l < L; ++l)
        for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) {
                const float want = float(1000 * l + 10 * y + x);
                CHECK(back[(l * h + y) * w + x] == want);
                CHECK(again[(l * h + y) * w + x] == want);
            }
    CK(cudaDestroySurfaceObject(s));
    CK(cudaFreeArray(a));
    /* 1D layered */
    const int w1 = 5, L1 = 3;
    cudaArray_t a1 = layered_array(w1, 0, L1, cudaArraySurfaceLoadStore);
    cudaSurfaceObject_t s1 = surface_of(a1);
    write1dl<<<L1, w1>>>(s1, w1);
    CK(cudaGetLastError());
    std::vector<float> b1(w1 * L1, -1.0f);
    copy3d(a1, b1.data(), w1, 0, L1, false);
    for (int l = 0; l < L1; ++l)
        for (int x = 0; x < w1; ++x) CHECK(b1[l * w1 + x] == float(7 * l + x));
    CK(cudaDestroySurfaceObject(s1));
    CK(cudaFreeArray(a1));
    CK(cudaFree(d));
}

static void check_limits()
{
    int layers = 0, w = 0;
    CK(cudaDeviceGetAttribute(&layers, cudaDevAttrMaxTexture2DLayeredLayers, 0));
    CK(cudaDeviceGetAttribute(&w, cudaDevAttrMaxTexture1DLayeredWidth, 0));
    CHECK(layers > 0 && w > 0);
    const cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
    cudaArray_t a = nullptr;
    const cudaError_t inval = cudaErrorInvalidValue;
    CHECK(cudaMalloc3DArray(&a, &fd, make_cudaExtent(4, 4, 0), cudaArrayLayered) == inval);
    CHECK(cudaMalloc3DArray(&a, &fd, make_cudaExtent(4, 4, layers + 1), cudaArrayLayered) == inval);
    CHECK(cudaMalloc3DArray(&a, &fd, make_cudaExtent(w + 1, 0, 2), cudaArrayLayered) == inval);
    CHECK(cudaGetLastError() == inval);
    CK(cudaMalloc3DArray(&a, &fd, make_cudaExtent(4, 4, layers), cudaArrayLayered));
    cudaExtent ext;
    cudaChannelFormatDesc got;
    unsigned flags = 0;
    CK(cudaArrayGetInfo(&got, &ext, &flags, a));
    CHECK(ext.width == 4 && ext.height == 4 && (int)ext.depth == layers && (flags & cudaArrayLayered));
    CK(cudaFreeArray(a));
}

/* the misuses: the launch fails naming the call (CMakeLists.txt's REGEX) */
static int misuse(const char *what)
{
    float *d = nullptr;
    CK(cudaMalloc(&d, sizeof(float)));
    if (!std::strcmp(what, "plain-on-layered")) {
        cudaTextureObject_t t = texture_of(layered_array(2, 2, 2, 0), cudaFilterModePoint);
        plain2d<<<1, 1>>>(t, d);
    } else if (!std::strcmp(what, "layered-on-plain")) {
        const cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
        cudaArray_t a = nullptr;
        CK(cudaMallocArray(&a, &fd, 2, 2));
        fetch2dl<<<1, 1>>>(texture_of(a, cudaFilterModePoint), 1, 1, 1, 0.5f, d);
    } else if (!std::strcmp(what, "surface-plain-on-layered")) {
        plain_surf<<<1, 1>>>(surface_of(layered_array(2, 2, 2, cudaArraySurfaceLoadStore)));
    } else {
        std::fprintf(stderr, "texture_layered: unknown misuse '%s'\n", what);
        return 2;
    }
    const cudaError_t e = cudaDeviceSynchronize();
    std::printf("texture_layered %s: %s\n", what, cudaGetErrorString(e));
    return e == cudaSuccess ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc > 1) return misuse(argv[1]);
    check_textures();
    check_surfaces();
    check_limits();
    return test_exit("texture_layered");
}
