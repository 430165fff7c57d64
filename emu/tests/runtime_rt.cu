/* emu/tests/runtime_rt.cu - the runtime calls cuda-samples make:
 * device flags, mapped (zero-copy) host memory written by a kernel, peer
 * access and peer copies across two emulated devices (CUDAEMU_DEVICES=2),
 * cudaStreamAttachMemAsync and every cudaDeviceAttr; stream attributes (L2
 * access policy windows), peer attributes, the refused IPC calls (#34). */
#include <cuda_runtime.h>

#include <cstring>
#include <vector>

#include "test_util.h"

__global__ void fill_idx(int *p, int n, int add)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = i + add;
}

static void device_flags()
{
    unsigned f = 0xdead;
    CK(cudaGetDeviceFlags(&f));
    CHECK_EQ_INT(f & cudaDeviceMapHost, cudaDeviceMapHost); /* implicit */
    CK(cudaSetDeviceFlags(cudaDeviceScheduleBlockingSync | cudaDeviceMapHost));
    CK(cudaGetDeviceFlags(&f));
    CHECK_EQ_INT(f, cudaDeviceScheduleBlockingSync | cudaDeviceMapHost);
    CK(cudaSetDeviceFlags(cudaDeviceScheduleYield | cudaDeviceLmemResizeToMax));
    CK(cudaGetDeviceFlags(&f));
    CHECK_EQ_INT(f, cudaDeviceScheduleYield | cudaDeviceLmemResizeToMax | cudaDeviceMapHost);
    CHECK_EQ_INT(cudaDeviceBlockingSync, cudaDeviceScheduleBlockingSync);
    /* two scheduling policies, an unknown bit, a null pointer */
    CHECK_EQ_INT(cudaSetDeviceFlags(cudaDeviceScheduleSpin | cudaDeviceScheduleYield),
                 cudaErrorInvalidValue);
    CHECK_EQ_INT(cudaSetDeviceFlags(0x100), cudaErrorInvalidValue);
    CHECK_EQ_INT(cudaGetDeviceFlags(nullptr), cudaErrorInvalidValue);
    CHECK_EQ_INT(cudaGetLastError(), cudaErrorInvalidValue);
    CK(cudaGetDeviceFlags(&f)); /* the bad calls changed nothing */
    CHECK_EQ_INT(f, cudaDeviceScheduleYield | cudaDeviceLmemResizeToMax | cudaDeviceMapHost);
    CK(cudaSetDeviceFlags(cudaDeviceScheduleAuto));
}

static void zero_copy()
{
    const int n = 1000;
    int *h = nullptr, *d = nullptr;
    CK(cudaHostAlloc((void **)&h, n * sizeof(int), cudaHostAllocMapped));
    CK(cudaHostGetDevicePointer((void **)&d, h, 0));
    fill_idx<<<(n + 127) / 128, 128>>>(d, n, 7);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    int bad = 0;
    for (int i = 0; i < n; ++i) bad += h[i] != i + 7;
    CHECK_EQ_INT(bad, 0);
    CK(cudaFreeHost(h));

    /* registered (mapped) pageable memory */
    std::vector<int> v(n, -1);
    CK(cudaHostRegister(v.data(), n * sizeof(int), cudaHostRegisterMapped));
    CK(cudaHostGetDevicePointer((void **)&d, v.data(), 0));
    fill_idx<<<(n + 255) / 256, 256>>>(d, n, 3);
    CK(cudaDeviceSynchronize());
    bad = 0;
    for (int i = 0; i < n; ++i) bad += v[i] != i + 3;
    CHECK_EQ_INT(bad, 0);
    CK(cudaHostUnregister(v.data()));
    CHECK_EQ_INT(cudaHostGetDevicePointer((void **)&d, v.data(), 0), cudaErrorInvalidValue);
    cudaGetLastError();
}

static void peers()
{
    int ndev = 0;
    CK(cudaGetDeviceCount(&ndev));
    CHECK_EQ_INT(ndev, 2);
    if (ndev < 2) return;
    int can = -1;
    CK(cudaDeviceCanAccessPeer(&can, 0, 1));
    CHECK_EQ_INT(can, 1);
    CK(cudaDeviceCanAccessPeer(&can, 0, 0));
    CHECK_EQ_INT(can, 0); /* a device is not its own peer */
    CHECK_EQ_INT(cudaDeviceCanAccessPeer(&can, 0, 2), cudaErrorInvalidDevice);

    CK(cudaSetDevice(0));
    CHECK_EQ_INT(cudaDeviceEnablePeerAccess(0, 0), cudaErrorInvalidDevice);
    CHECK_EQ_INT(cudaDeviceEnablePeerAccess(1, 1), cudaErrorInvalidValue);
    CHECK_EQ_INT(cudaDeviceDisablePeerAccess(1), cudaErrorPeerAccessNotEnabled);
    CK(cudaDeviceEnablePeerAccess(1, 0));
    CHECK_EQ_INT(cudaDeviceEnablePeerAccess(1, 0), cudaErrorPeerAccessAlreadyEnabled);
    cudaGetLastError();

    const int n = 4096;
    int *d0 = nullptr, *d1 = nullptr;
    CK(cudaMalloc((void **)&d0, n * sizeof(int)));
    CK(cudaSetDevice(1));
    CK(cudaMalloc((void **)&d1, n * sizeof(int)));
    CK(cudaSetDevice(0));
    fill_idx<<<n / 256, 256>>>(d0, n, 11); /* queued on device 0 */
    /* serialized with device 0's pending kernel, as CUDA documents */
    CK(cudaMemcpyPeer(d1, 1, d0, 0, n * sizeof(int)));
    std::vector<int> h(n, 0);
    CK(cudaSetDevice(1));
    CK(cudaMemcpy(h.data(), d1, n * sizeof(int), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; ++i) bad += h[i] != i + 11;
    CHECK_EQ_INT(bad, 0);
    /* wrong device for a pointer, bad device numbers */
    CHECK_EQ_INT(cudaMemcpyPeer(d1, 0, d0, 0, 16), cudaErrorInvalidValue);
    CHECK_EQ_INT(cudaMemcpyPeer(d1, 2, d0, 0, 16), cudaErrorInvalidDevice);
    CHECK_EQ_INT(cudaMemcpyPeer(d1, 1, d0, 0, (n + 1) * sizeof(int)), cudaErrorInvalidValue);
    cudaGetLastError();

    /* async, ordered on a stream of device 1 */
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    fill_idx<<<n / 256, 256, 0, s>>>(d1, n, 5);
    CK(cudaMemcpyPeerAsync(d0, 0, d1, 1, n * sizeof(int), s));
    CK(cudaStreamSynchronize(s));
    CK(cudaStreamDestroy(s));
    CK(cudaSetDevice(0));
    CK(cudaMemcpy(h.data(), d0, n * sizeof(int), cudaMemcpyDeviceToHost));
    bad = 0;
    for (int i = 0; i < n; ++i) bad += h[i] != i + 5;
    CHECK_EQ_INT(bad, 0);

    CK(cudaDeviceDisablePeerAccess(1));
    CHECK_EQ_INT(cudaDeviceDisablePeerAccess(1), cudaErrorPeerAccessNotEnabled);
    cudaGetLastError();
    CK(cudaFree(d0));
    CK(cudaSetDevice(1));
    CK(cudaFree(d1));
    CK(cudaSetDevice(0));
}

static void attach()
{
    const int n = 256;
    int *m = nullptr;
    CK(cudaMallocManaged((void **)&m, n * sizeof(int), cudaMemAttachHost));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    CK(cudaStreamAttachMemAsync(s, m, 0, cudaMemAttachSingle));
    fill_idx<<<1, n, 0, s>>>(m, n, 1);
    CK(cudaStreamAttachMemAsync(s, m, n * sizeof(int), cudaMemAttachHost));
    CK(cudaStreamSynchronize(s));
    int bad = 0;
    for (int i = 0; i < n; ++i) bad += m[i] != i + 1;
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(cudaStreamAttachMemAsync(s, m, 0, 0x8), cudaErrorInvalidValue);
    CHECK_EQ_INT(cudaStreamAttachMemAsync(s, m + 1, 0), cudaErrorInvalidValue); /* not its start */
    CHECK_EQ_INT(cudaStreamAttachMemAsync(s, m, 4), cudaErrorInvalidValue);     /* part of it */
    int *d = nullptr;
    CK(cudaMalloc((void **)&d, 64));
    CHECK_EQ_INT(cudaStreamAttachMemAsync(s, d), cudaErrorInvalidValue); /* not managed */
    cudaGetLastError();
    CK(cudaStreamDestroy(s));
    CK(cudaFree(d));
    CK(cudaFree(m));
}

static void attributes()
{
    int v = -1;
    CK(cudaDeviceGetAttribute(&v, cudaDevAttrGpuOverlap, 0));
    CHECK_EQ_INT(v, 1);
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    CK(cudaDeviceGetAttribute(&v, cudaDevAttrTextureAlignment, 0));
    CHECK_EQ_INT(v, (long long)p.textureAlignment);
    CK(cudaDeviceGetAttribute(&v, cudaDevAttrConcurrentManagedAccess, 0));
    CHECK_EQ_INT(v, p.concurrentManagedAccess);
    /* every value of the enum answers, except the reserved ones */
    const int reserved[] = {92, 93, 94, 96, 122, 123, 124, 127, 128, 129, 132, 141, 145};
    for (int a = 1; a <= 147; ++a) {
        bool is_reserved = false;
        for (int r : reserved) is_reserved |= a == r;
        /* numbers CUDA 13.0's enum skips */
        bool gap = a == 44 || (a >= 102 && a <= 105) || a == 107 || a == 110 ||
                   a == 136 || a == 137 || a == 146;
        cudaError_t e = cudaDeviceGetAttribute(&v, cudaDeviceAttr(a), 0);
        if (is_reserved || gap) {
            CHECK_EQ_INT(e, cudaErrorInvalidValue);
        } else if (e != cudaSuccess) {
            std::fprintf(stderr, "attribute %d: %s\n", a, cudaGetErrorName(e));
            CHECK(e == cudaSuccess);
        }
    }
    cudaGetLastError();
}

/* simpleAttributes: a window set on a stream is what Get returns; a bad one
 * is refused; a kernel on the stream computes as without it */
static void stream_attributes()
{
    cudaStream_t st;
    CK(cudaStreamCreate(&st));
    cudaStreamAttrValue v, got;
    std::memset(&got, 0x5a, sizeof got);
    CK(cudaStreamGetAttribute(st, cudaStreamAttributeAccessPolicyWindow, &got));
    CHECK(got.accessPolicyWindow.base_ptr == nullptr && got.accessPolicyWindow.num_bytes == 0);
    const int n = 4096;
    int *d = nullptr;
    CK(cudaMalloc((void **)&d, n * sizeof(int)));
    std::memset(&v, 0, sizeof v);
    v.accessPolicyWindow.base_ptr = d;
    v.accessPolicyWindow.num_bytes = n * sizeof(int);
    v.accessPolicyWindow.hitRatio = 0.75f;
    v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    CK(cudaStreamSetAttribute(st, cudaStreamAttributeAccessPolicyWindow, &v));
    CK(cudaCtxResetPersistingL2Cache());
    CK(cudaStreamGetAttribute(st, cudaStreamAttributeAccessPolicyWindow, &got));
    CHECK(got.accessPolicyWindow.base_ptr == d);
    CHECK_EQ_INT(got.accessPolicyWindow.num_bytes, n * sizeof(int));
    CHECK(got.accessPolicyWindow.hitRatio == 0.75f);
    CHECK_EQ_INT(got.accessPolicyWindow.hitProp, cudaAccessPropertyPersisting);
    CHECK_EQ_INT(got.accessPolicyWindow.missProp, cudaAccessPropertyStreaming);
    fill_idx<<<n / 256, 256, 0, st>>>(d, n, 11);
    std::vector<int> h(n);
    CK(cudaMemcpyAsync(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost, st));
    CK(cudaStreamSynchronize(st));
    int bad = 0;
    for (int i = 0; i < n; ++i) bad += h[i] != i + 11;
    CHECK_EQ_INT(bad, 0);
    /* a persisting miss, a ratio above 1, a window past the device's maximum */
    cudaStreamAttrValue w = v;
    w.accessPolicyWindow.missProp = cudaAccessPropertyPersisting;
    CHECK_EQ_INT(cudaStreamSetAttribute(st, cudaStreamAttributeAccessPolicyWindow, &w),
                 cudaErrorInvalidValue);
    w = v;
    w.accessPolicyWindow.hitRatio = 1.5f;
    CHECK_EQ_INT(cudaStreamSetAttribute(st, cudaStreamAttributeAccessPolicyWindow, &w),
                 cudaErrorInvalidValue);
    int max_window = 0;
    CK(cudaDeviceGetAttribute(&max_window, cudaDevAttrMaxAccessPolicyWindowSize, 0));
    CHECK(max_window > 0);
    w = v;
    w.accessPolicyWindow.num_bytes = size_t(max_window) + 1;
    CHECK_EQ_INT(cudaStreamSetAttribute(st, cudaStreamAttributeAccessPolicyWindow, &w),
                 cudaErrorInvalidValue);
    /* not a stream attribute */
    CHECK_EQ_INT(cudaStreamSetAttribute(st, cudaLaunchAttributeCooperative, &v),
                 cudaErrorInvalidValue);
    CHECK_EQ_INT(cudaGetLastError(), cudaErrorInvalidValue);
    CK(cudaStreamGetAttribute(st, cudaStreamAttributeAccessPolicyWindow, &got)); /* kept */
    CHECK(got.accessPolicyWindow.hitRatio == 0.75f);
    /* the priority: the stream's own until set */
    cudaStream_t hi;
    CK(cudaStreamCreateWithPriority(&hi, cudaStreamNonBlocking, -3));
    CK(cudaStreamGetAttribute(hi, cudaStreamAttributePriority, &got));
    CHECK_EQ_INT((int)got.priority, -3);
    CK(cudaStreamDestroy(hi));
    CK(cudaFree(d));
    CK(cudaStreamDestroy(st));
}

/* topologyQuery and simpleIPC: two emulated devices are peers; a device and
 * itself, or a missing one, is cudaErrorInvalidDevice; IPC is refused */
static void p2p_and_ipc()
{
    int v = -1;
    CK(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrAccessSupported, 0, 1));
    CHECK_EQ_INT(v, 1);
    CK(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrNativeAtomicSupported, 1, 0));
    CHECK_EQ_INT(v, 1);
    CK(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrPerformanceRank, 0, 1));
    CHECK_EQ_INT(v, 0);
    CK(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrOnlyPartialNativeAtomicSupported, 0, 1));
    CHECK_EQ_INT(v, 0);
    CHECK_EQ_INT(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrAccessSupported, 0, 0),
                 cudaErrorInvalidDevice);
    CHECK_EQ_INT(cudaDeviceGetP2PAttribute(&v, cudaDevP2PAttrAccessSupported, 0, 2),
                 cudaErrorInvalidDevice);
    CHECK_EQ_INT(cudaDeviceGetP2PAttribute(nullptr, cudaDevP2PAttrAccessSupported, 0, 1),
                 cudaErrorInvalidValue);
    cudaGetLastError();
    int *d = nullptr;
    CK(cudaMalloc((void **)&d, 64));
    cudaIpcMemHandle_t mh;
    CHECK_EQ_INT(cudaIpcGetMemHandle(&mh, d), cudaErrorNotSupported);
    void *opened = nullptr;
    CHECK_EQ_INT(cudaIpcOpenMemHandle(&opened, mh, cudaIpcMemLazyEnablePeerAccess),
                 cudaErrorNotSupported);
    cudaEvent_t ev;
    CK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming | cudaEventInterprocess));
    cudaIpcEventHandle_t eh;
    CHECK_EQ_INT(cudaIpcGetEventHandle(&eh, ev), cudaErrorNotSupported);
    CHECK_EQ_INT(cudaGetLastError(), cudaErrorNotSupported);
    CK(cudaEventDestroy(ev));
    CK(cudaFree(d));
}

int main()
{
    device_flags();
    zero_copy();
    peers();
    attach();
    attributes();
    stream_attributes();
    p2p_and_ipc();
    if (g_test_failures) return 1;
    std::printf("runtime_rt: all checks passed\n");
    return 0;
}
