/* emu/src/state.cpp - process-wide state of the CUDA host emulator: the
 * environment configuration (CUDAEMU_DEVICES narrowed by CUDA_VISIBLE_DEVICES,
 * CUDAEMU_ORDER, CUDAEMU_SEED,
 * CUDAEMU_LEAKS, CUDAEMU_STACK_KB, CUDAEMU_MEM_MB, CUDAEMU_PROGRESS_MS,
 * CUDAEMU_NCCL_TIMEOUT_MS, CUDAEMU_KERNEL_TIMEOUT_S, CUDAEMU_PAGEABLE_LATE), the
 * emulated devices, the per-host-thread current device and last error, and
 * sticky errors.
 */
#include "internal.h"

#include <algorithm>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace cudaemu {
namespace {

thread_local cudaError_t t_last = cudaSuccess;
thread_local int t_dev = 0;

long env_long(const char *name, long dflt, long lo, long hi)
{
    const char *v = std::getenv(name);
    if (!v || !*v) return dflt;
    char *end = nullptr;
    long x = std::strtol(v, &end, 10);
    if (*end || x < lo || x > hi) {
        std::fprintf(stderr, "cudaemu: ignoring %s=%s (expected an integer in [%ld, %ld])\n",
                     name, v, lo, hi);
        return dflt;
    }
    return x;
}

/* CUDA_VISIBLE_DEVICES as the CUDA runtime applies it: unset, all n devices;
 * else a comma-separated list of ordinals, renumbered 0, 1, ... in its order;
 * an invalid entry (not a decimal ordinal below n, or one already listed)
 * ends the list, so "" and "-1" leave no device. */
std::vector<int> visible_devices(int n)
{
    std::vector<int> v;
    const char *e = std::getenv("CUDA_VISIBLE_DEVICES");
    if (!e) {
        for (int i = 0; i < n; ++i) v.push_back(i);
        return v;
    }
    for (const char *p = e; *p;) {
        while (*p == ' ') ++p;
        char *end = nullptr;
        long x = (*p >= '0' && *p <= '9') ? std::strtol(p, &end, 10) : -1;
        if (x < 0 || x >= n || std::find(v.begin(), v.end(), int(x)) != v.end()) break;
        p = end;
        while (*p == ' ') ++p;
        if (*p && *p != ',') break;
        v.push_back(int(x));
        if (*p == ',') ++p;
    }
    return v;
}

Config load_config()
{
    Config c;
    c.physical = visible_devices(int(env_long("CUDAEMU_DEVICES", 1, 0, 64)));
    c.ndev = int(c.physical.size());
    if (const char *o = std::getenv("CUDAEMU_ORDER")) {
        if (!std::strcmp(o, "fwd") || !*o) c.order = Order::Fwd;
        else if (!std::strcmp(o, "rev")) c.order = Order::Rev;
        else if (!std::strcmp(o, "shuffle")) c.order = Order::Shuffle;
        else std::fprintf(stderr, "cudaemu: ignoring CUDAEMU_ORDER=%s (fwd, rev or shuffle)\n", o);
    }
    c.seed = uint64_t(env_long("CUDAEMU_SEED", 1, 0, 0x7fffffffL));
    c.leaks = env_long("CUDAEMU_LEAKS", 1, 0, 1) != 0;
    c.stack_bytes = size_t(env_long("CUDAEMU_STACK_KB", 256, 16, 1 << 20)) << 10;
    c.mem_bytes = size_t(env_long("CUDAEMU_MEM_MB", 16384, 1, 1L << 24)) << 20;
    c.progress_ms = int(env_long("CUDAEMU_PROGRESS_MS", 20, 0, 60000));
    c.nccl_timeout_ms = int(env_long("CUDAEMU_NCCL_TIMEOUT_MS", 30000, 0, 86400000));
    c.nccl_fail = env_long("CUDAEMU_NCCL_FAIL", 0, 0, 0x7fffffffL);
    c.kernel_timeout_s = int(env_long("CUDAEMU_KERNEL_TIMEOUT_S", 300, 0, 86400 * 365));
    c.pageable_late = env_long("CUDAEMU_PAGEABLE_LATE", 0, 0, 1) != 0;
    c.interleave = env_long("CUDAEMU_INTERLEAVE", 0, 0, 1) != 0;
    if (const char *f = std::getenv("CUDAEMU_FRESH")) {
        if (!std::strcmp(f, "zero")) c.fresh = 0x00;
        else if (!std::strcmp(f, "nan")) c.fresh = 0xff;
        else if (*f) std::fprintf(stderr, "cudaemu: ignoring CUDAEMU_FRESH=%s (zero or nan)\n", f);
    }
    return c;
}

} // namespace

const Config &config()
{
    static const Config c = load_config();
    return c;
}

std::mt19937_64 &rng()
{
    static std::mt19937_64 r(config().seed);
    return r;
}

void make_order(std::vector<uint32_t> &v, uint32_t n)
{
    v.resize(n);
    for (uint32_t i = 0; i < n; ++i) v[i] = config().order == Order::Rev ? n - 1 - i : i;
    if (config().order == Order::Shuffle) reshuffle(v);
}

void reshuffle(std::vector<uint32_t> &v) { std::shuffle(v.begin(), v.end(), rng()); }

State &st()
{
    static State *s = [] {
        State *p = new State;
        p->devs.resize(size_t(config().ndev));
        for (int i = 0; i < config().ndev; ++i) {
            Device &d = p->devs[size_t(i)];
            d.id = i;
            d.legacy = std::make_shared<CUstream_st>();
            d.legacy->device = i;
            d.legacy->legacy = true;
            d.per_thread = std::make_shared<CUstream_st>();
            d.per_thread->device = i;
        }
        return p;
    }();
    return *s;
}

cudaError_t ret(cudaError_t e)
{
    if (device_ret(e)) return e; /* device code: the CUDA thread's own */
    if (e != cudaSuccess) t_last = e;
    return e;
}

int cur_dev() { return t_dev; }
void set_cur_dev(int d) { t_dev = d; }
Device &dev(int d) { return st().devs[size_t(d)]; }

cudaError_t usable()
{
    if (config().ndev == 0) return cudaErrorNoDevice;
    return dev(t_dev).sticky;
}

void set_sticky(int device, cudaError_t e)
{
    Device &d = dev(device);
    if (d.sticky == cudaSuccess) d.sticky = e;
    t_last = d.sticky;
}

void report(const char *fmt, ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    std::fprintf(stderr, "cudaemu: %s\n", buf);
}

double now_ms()
{
    using namespace std::chrono;
    return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

} // namespace cudaemu

using namespace cudaemu;

inline namespace cudaemu_api {

cudaError_t cudaGetLastError()
{
    cudaError_t e = cudaSuccess;
    if (device_last_error(true, &e)) return e;
    e = t_last;
    t_last = cudaSuccess;
    if (config().ndev > 0) {
        CUDAEMU_LOCK;
        if (dev(t_dev).sticky != cudaSuccess) t_last = e = dev(t_dev).sticky;
    }
    return e;
}

cudaError_t cudaPeekAtLastError()
{
    cudaError_t de;
    if (device_last_error(false, &de)) return de;
    if (config().ndev > 0) {
        CUDAEMU_LOCK;
        if (dev(t_dev).sticky != cudaSuccess) return dev(t_dev).sticky;
    }
    return t_last;
}

cudaError_t cudaGetDeviceCount(int *count)
{
    if (!count) return ret(cudaErrorInvalidValue);
    *count = config().ndev;
    return config().ndev ? cudaSuccess : ret(cudaErrorNoDevice);
}

cudaError_t cudaSetDevice(int device)
{
    if (config().ndev == 0) return ret(cudaErrorNoDevice);
    if (device < 0 || device >= config().ndev) return ret(cudaErrorInvalidDevice);
    if (!t_host_thread) note_host_thread();
    t_dev = device;
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device)
{
    if (!device) return ret(cudaErrorInvalidValue);
    if (config().ndev == 0) return ret(cudaErrorNoDevice);
    *device = t_dev;
    return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int *v)
{
    if (!v) return ret(cudaErrorInvalidValue);
    *v = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t cudaRuntimeGetVersion(int *v)
{
    if (!v) return ret(cudaErrorInvalidValue);
    *v = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize()
{
    if (in_kernel_code()) /* CUDA 11's device runtime (CDP1): the parent would wait for its
                             children, which run only after the parent grid here */
        kernel_fault("cudaDeviceSynchronize() in device code (CUDA 11's dynamic parallelism) is "
                     "not emulated: CUDA 12 removed it (nvcc refuses it for sm_90); a child grid "
                     "completes before its parent grid, so read its results in a later kernel "
                     "(or a tail launch, cudaStreamTailLaunch) or on the host after synchronizing");
    CUDAEMU_LOCK;
    if (cudaError_t e = usable()) return ret(e);
    if (cudaError_t e = capture_check_device_sync(t_dev)) return ret(e);
    sync_device(t_dev);
    pools_after_sync(t_dev);
    return ret(dev(t_dev).sticky);
}

cudaError_t cudaDeviceReset()
{
    CUDAEMU_LOCK;
    if (config().ndev == 0) return ret(cudaErrorNoDevice);
    reset_streams(t_dev);
    free_device_memory(t_dev);
    reset_pools(t_dev);
    reset_peers(t_dev);
    forget_arrays(t_dev);
    dev(t_dev).sticky = cudaSuccess;
    t_last = cudaSuccess;
    return cudaSuccess;
}

} // inline namespace cudaemu_api
