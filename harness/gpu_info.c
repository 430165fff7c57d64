/* harness/gpu_info.c - the GPU as harness/gpu.h describes it: probe, the
 * deviceQuery role, context lines. Compiled against the CUDA toolkit (bench)
 * and against emu/ (bench-emu). CUDA_VISIBLE_DEVICES is applied by the
 * runtime itself. */
#include "gpu.h"
#include "cuda_check.h"
#include "gpu_handles.h"
#include "errmsg.h"
#include "../kernels/launch_probe.h"

#include <stdio.h>
#include <string.h>

#ifdef __CUDAEMU__
const char *const GPU_FLAVOUR = "emulator";
#else
const char *const GPU_FLAVOUR = "cuda";
#endif

static void cuda_why(char *why, size_t cap, const char *call, cudaError_t e)
{
    snprintf(why, cap, "%s: %s (%s)", call, cudaGetErrorName(e), cudaGetErrorString(e));
}

void gpu_probe(int device, gpu_status *st)
{
    int n = 0;
    cudaError_t e;
    struct cudaDeviceProp p;
    memset(st, 0, sizeof *st);
    st->device = device;
#ifdef __CUDAEMU__
    st->emulated = 1;
#endif
    e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        cuda_why(st->why, sizeof st->why, "cudaGetDeviceCount", e);
        return;
    }
    if (n == 0) {
        snprintf(st->why, sizeof st->why, "no CUDA device found");
        return;
    }
    if (device >= n) {
        snprintf(st->why, sizeof st->why, "only %d CUDA device%s", n, n == 1 ? "" : "s");
        st->bad_device = 1;
        return;
    }
    e = cudaSetDevice(device);
    if (e == cudaSuccess) e = cudaGetDeviceProperties(&p, device);
    if (e == cudaSuccess) e = cudaFree(NULL); /* creates the context now, not in a timed case */
    if (e != cudaSuccess) {
        cuda_why(st->why, sizeof st->why, "initialising the device", e);
        return;
    }
    snprintf(st->name, sizeof st->name, "%s", p.name);
    snprintf(st->pci, sizeof st->pci, "%08x:%02x:%02x.0", (unsigned)p.pciDomainID,
             (unsigned)p.pciBusID, (unsigned)p.pciDeviceID);
    st->usable = 1;
}

static int attr(enum cudaDeviceAttr a, int dev)
{
    int v = 0;
    if (cudaDeviceGetAttribute(&v, a, dev) != cudaSuccess) return -1;
    return v;
}

void gpu_info_print(FILE *f)
{
    int n = 0, drv = 0, rt = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    fprintf(f, "gpu layer: %s; CUDA driver %d.%d, runtime %d.%d\n", GPU_FLAVOUR, drv / 1000,
            (drv % 1000) / 10, rt / 1000, (rt % 1000) / 10);
    if (e != cudaSuccess) {
        fprintf(f, "gpus:      none usable: cudaGetDeviceCount: %s (%s)\n", cudaGetErrorName(e),
                cudaGetErrorString(e));
        return;
    }
    if (n == 0) fprintf(f, "gpus:      none found\n");
    for (int d = 0; d < n; d++) {
        struct cudaDeviceProp p;
        size_t fr = 0, tot = 0;
        cudaError_t me;
        if ((e = cudaGetDeviceProperties(&p, d)) != cudaSuccess) {
            fprintf(f, "gpu %d:     unusable: cudaGetDeviceProperties: %s\n", d, cudaGetErrorName(e));
            continue;
        }
        me = cudaSetDevice(d);
        if (me == cudaSuccess) me = cudaMemGetInfo(&fr, &tot);
        fprintf(f, "gpu %d:     %s\n", d, p.name);
        fprintf(f, "  compute capability %d.%d, %d SMs, warp %d, max %d threads/block\n",
                p.major, p.minor, p.multiProcessorCount, p.warpSize, p.maxThreadsPerBlock);
        /* free and total as cudaMemGetInfo reports them (torch.cuda.mem_get_info) */
        if (me == cudaSuccess)
            fprintf(f, "  memory %.1f GiB total, %.1f GiB free (free %zu MiB of %zu MiB)\n",
                    tot / 1073741824.0, fr / 1073741824.0, fr >> 20, tot >> 20);
        else
            fprintf(f, "  memory: unknown (cudaMemGetInfo: %s)\n", cudaGetErrorName(me));
        fprintf(f, "  bus %d bit, L2 %.1f MiB\n", attr(cudaDevAttrGlobalMemoryBusWidth, d),
                attr(cudaDevAttrL2CacheSize, d) / 1048576.0);
        fprintf(f, "  clocks: SM %.0f MHz, memory %.0f MHz\n",
                attr(cudaDevAttrClockRate, d) / 1e3, attr(cudaDevAttrMemoryClockRate, d) / 1e3);
        fprintf(f, "  copy engines %d, shared memory %zu KiB/block (opt-in %zu KiB), PCI %04x:%02x:%02x\n",
                p.asyncEngineCount, p.sharedMemPerBlock / 1024, p.sharedMemPerBlockOptin / 1024,
                p.pciDomainID, p.pciBusID, p.pciDeviceID);
    }
}

int gpu_mem_get(size_t *free_bytes, size_t *total_bytes, char *why, size_t cap)
{
    cudaError_t e = cudaMemGetInfo(free_bytes, total_bytes);
    if (e == cudaSuccess) return 0;
    snprintf(why, cap, "cudaMemGetInfo: %s (%s)", cudaGetErrorName(e), cudaGetErrorString(e));
    return -1;
}

void gpu_context_lines(char (*lines)[ENV_LINE], int *n, int max)
{
    int count = 0, drv = 0, rt = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    if (*n < max) snprintf(lines[(*n)++], ENV_LINE, "gpu_layer: %s", GPU_FLAVOUR);
    if (e != cudaSuccess) {
        if (*n < max)
            snprintf(lines[(*n)++], ENV_LINE, "gpu: none usable: %s (%s)", cudaGetErrorName(e),
                     cudaGetErrorString(e));
    }
    for (int d = 0; e == cudaSuccess && d < count && *n < max; d++) {
        struct cudaDeviceProp p;
        if (cudaGetDeviceProperties(&p, d) != cudaSuccess) continue;
        snprintf(lines[(*n)++], ENV_LINE, "gpu: %d %s, cc %d.%d, %d SMs, %.1f GiB", d, p.name,
                 p.major, p.minor, p.multiProcessorCount, p.totalGlobalMem / 1073741824.0);
    }
    if (*n < max) snprintf(lines[(*n)++], ENV_LINE, "cuda_driver: %d", drv);
    if (*n < max) snprintf(lines[(*n)++], ENV_LINE, "cuda_runtime: %d", rt);
}

int gpu_props_get(int device, gpu_props *g, char *why, size_t cap)
{
    static const struct { enum cudaDeviceAttr a; const char *name; } ATTRS[] = {
        {cudaDevAttrClockRate, "cudaDevAttrClockRate"},
        {cudaDevAttrMemoryClockRate, "cudaDevAttrMemoryClockRate"},
        {cudaDevAttrGlobalMemoryBusWidth, "cudaDevAttrGlobalMemoryBusWidth"},
        {cudaDevAttrL2CacheSize, "cudaDevAttrL2CacheSize"},
    };
    struct cudaDeviceProp p;
    int v[4];
    memset(g, 0, sizeof *g);
    cudaError_t e = cudaGetDeviceProperties(&p, device);
    if (e != cudaSuccess) {
        cuda_why(why, cap, "cudaGetDeviceProperties", e);
        return -1;
    }
    /* the clocks by attribute: cudaDeviceProp's clock fields are deprecated
     * (CUDA 12) and gone (CUDA 13) */
    for (int i = 0; i < 4; i++)
        if ((e = cudaDeviceGetAttribute(&v[i], ATTRS[i].a, device)) != cudaSuccess) {
            cuda_why(why, cap, ATTRS[i].name, e);
            return -1;
        }
    g->major = p.major;
    g->minor = p.minor;
    g->sms = p.multiProcessorCount;
    g->clock_khz = v[0];
    g->mem_clock_khz = v[1];
    g->bus_bits = v[2];
    g->l2_bytes = v[3];
    snprintf(g->name, sizeof g->name, "%s", p.name);
    return 0;
}

int gpu_launch_us(int n, double *us, char *why, size_t cap)
{
    err_clear();
    if (launch_probe_cuda(n, us) == 0) return 0;
    snprintf(why, cap, "%s", err_get());
    return -1;
}

int gpu_recover_device(gpu_status *st)
{
    cudaError_t e = cudaDeviceSynchronize();
    if (e == cudaSuccess) {
        cudaGetLastError(); /* clear a non-sticky error (a bad launch) */
        return 0;
    }
    /* a sticky fault: handles die with the context, then start afresh */
    gpu_handles_release_all();
    cudaDeviceReset();
    gpu_probe(st->device, st);
    if (st->usable) return 0;
    char why[sizeof st->why];
    snprintf(why, sizeof why, "after %s: %s", cudaGetErrorName(e), st->why);
    snprintf(st->why, sizeof st->why, "%s", why);
    return -1;
}
