/* harness/energy_gpu.c - a GPU's energy from NVML, dlopen'ed (energy_gpu.h). */
#define _POSIX_C_SOURCE 200809L
#include "energy_gpu.h"
#include "test_hooks.h"
#include "timer.h"

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* NVML's return codes this file names (nvml.h's nvmlReturn_t) */
enum { NVML_OK = 0, NVML_NO_PERMISSION = 4 };

static energy_gpu g_src = {.why = "not opened: the run has no GPU case"};

const energy_gpu *energy_gpu_get(void) { return &g_src; }
energy_gpu *energy_gpu_use(void) { return &g_src; }

/* dlsym into a function pointer of any type, without an object-to-function
 * pointer cast. 0, or -1 when lib lacks the name. */
static int sym(void *lib, const char *name, void *fp, size_t size)
{
    void *p = dlsym(lib, name);
    if (!p) return -1;
    memcpy(fp, &p, size);
    return 0;
}
#define SYM(lib, name, fp) sym(lib, name, &(fp), sizeof(fp))

static const char *err_of(const energy_gpu *g, int rc)
{
    const char *s = g->errstr ? g->errstr(rc) : NULL;
    return s ? s : "unknown error";
}

void energy_gpu_none(energy_gpu *g, const char *why)
{
    energy_gpu_close(g);
    memset(g, 0, sizeof *g);
    snprintf(g->why, sizeof g->why, "%s", why);
}

int energy_gpu_open(energy_gpu *g, const char *lib, const char *pci, int index)
{
    int (*init)(void) = NULL, (*by_pci)(const char *, void **) = NULL;
    int (*by_index)(unsigned, void **) = NULL, (*name)(void *, char *, unsigned) = NULL;
    energy_gpu_none(g, "");
    if (!lib) lib = getenv(HOOK_NVML_LIB);
    if (!lib) lib = "libnvidia-ml.so.1";
    g->lib = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!g->lib) {
        const char *e = dlerror();
        snprintf(g->why, sizeof g->why, "no %s (%.160s): NVML comes with the NVIDIA driver", lib,
                 e ? e : "not found");
        return -1;
    }
    if (SYM(g->lib, "nvmlInit_v2", init) || SYM(g->lib, "nvmlShutdown", g->shutdown) ||
        SYM(g->lib, "nvmlErrorString", g->errstr) ||
        SYM(g->lib, "nvmlDeviceGetHandleByPciBusId_v2", by_pci) ||
        SYM(g->lib, "nvmlDeviceGetHandleByIndex_v2", by_index) ||
        SYM(g->lib, "nvmlDeviceGetName", name) ||
        SYM(g->lib, "nvmlDeviceGetTotalEnergyConsumption", g->energy) ||
        SYM(g->lib, "nvmlDeviceGetPowerUsage", g->power)) {
        snprintf(g->why, sizeof g->why, "%s lacks an NVML call this needs (%.120s)", lib, dlerror());
        g->shutdown = NULL; /* never initialised */
        energy_gpu_close(g);
        return -1;
    }
    int rc = init();
    if (rc != NVML_OK) {
        snprintf(g->why, sizeof g->why, "nvmlInit_v2: %s%s", err_of(g, rc),
                 rc == NVML_NO_PERMISSION ? " (this user may not query the GPU)" : "");
        g->shutdown = NULL;
        energy_gpu_close(g);
        return -1;
    }
    rc = pci && *pci ? by_pci(pci, &g->dev) : by_index((unsigned)index, &g->dev);
    if (rc != NVML_OK) {
        if (pci && *pci)
            snprintf(g->why, sizeof g->why, "NVML has no device at PCI %.40s (%s)", pci, err_of(g, rc));
        else
            snprintf(g->why, sizeof g->why, "NVML has no device %d (%s)", index, err_of(g, rc));
        energy_gpu_close(g);
        return -1;
    }
    if (name(g->dev, g->name, sizeof g->name) != NVML_OK) snprintf(g->name, sizeof g->name, "?");
    unsigned long long mj;
    unsigned mw;
    rc = g->energy(g->dev, &mj);
    if (rc == NVML_OK) {
        g->ok = g->counter = 1;
        return 0;
    }
    /* no counter (before Volta; some boards): the power, sampled */
    int prc = g->power(g->dev, &mw);
    if (prc == NVML_OK) {
        g->ok = 1;
        snprintf(g->why, sizeof g->why, "nvmlDeviceGetTotalEnergyConsumption: %s", err_of(g, rc));
        return 0;
    }
    snprintf(g->why, sizeof g->why, "GPU %s: nvmlDeviceGetTotalEnergyConsumption: %s; "
             "nvmlDeviceGetPowerUsage: %s", g->name, err_of(g, rc), err_of(g, prc));
    energy_gpu_close(g);
    return -1;
}

void energy_gpu_close(energy_gpu *g)
{
    if (g->shutdown) g->shutdown();
    if (g->lib) dlclose(g->lib);
    g->lib = g->dev = NULL;
    g->shutdown = NULL;
    g->energy = NULL;
    g->power = NULL;
    g->errstr = NULL;
    g->ok = 0;
}

/* ---- power sampled by a thread -------------------------------------------- */

struct energy_gpu_sampler {
    const energy_gpu *g;
    pthread_t th;
    atomic_int stop;
    double t_ms, w;     /* the last sample: when, watts */
    double joules;      /* trapezoids so far */
    int failed;
};

/* One more sample, its trapezoid added. 0, or -1 (the call failed). */
static int sample(struct energy_gpu_sampler *s)
{
    unsigned mw;
    if (s->g->power(s->g->dev, &mw) != NVML_OK) return s->failed = 1, -1;
    double t = timer_now_ms(), w = mw / 1e3;
    s->joules += (s->w + w) / 2 * (t - s->t_ms) / 1e3;
    s->t_ms = t;
    s->w = w;
    return 0;
}

static void *sampler_main(void *p)
{
    struct energy_gpu_sampler *s = p;
    const struct timespec period = {0, ENERGY_GPU_PERIOD_MS * 1000000L};
    while (!atomic_load(&s->stop)) {
        nanosleep(&period, NULL);
        if (!atomic_load(&s->stop) && sample(s)) break;
    }
    return NULL;
}

int energy_gpu_begin(const energy_gpu *g, energy_gpu_span *s)
{
    s->mj0 = NAN;
    s->s = NULL;
    if (!g->ok) return -1;
    if (g->counter) {
        unsigned long long mj;
        if (g->energy(g->dev, &mj) != NVML_OK) return -1;
        s->mj0 = (double)mj;
        return 0;
    }
    struct energy_gpu_sampler *p = calloc(1, sizeof *p);
    if (!p) return -1;
    p->g = g;
    unsigned mw;
    if (g->power(g->dev, &mw) != NVML_OK) {
        free(p);
        return -1;
    }
    p->t_ms = timer_now_ms();
    p->w = mw / 1e3;
    atomic_init(&p->stop, 0);
    if (pthread_create(&p->th, NULL, sampler_main, p)) {
        free(p);
        return -1;
    }
    s->s = p;
    return 0;
}

double energy_gpu_end(const energy_gpu *g, energy_gpu_span *s)
{
    double j = NAN;
    if (g->ok && g->counter && !isnan(s->mj0)) {
        unsigned long long mj;
        if (g->energy(g->dev, &mj) == NVML_OK && (double)mj > s->mj0) j = ((double)mj - s->mj0) / 1e3;
    } else if (s->s) {
        struct energy_gpu_sampler *p = s->s;
        atomic_store(&p->stop, 1);
        pthread_join(p->th, NULL);
        if (!p->failed && sample(p) == 0 && p->joules > 0) j = p->joules;
        free(p);
        s->s = NULL;
    }
    return j;
}

void energy_gpu_describe(const energy_gpu *g, char *out, size_t cap)
{
    if (!g->ok)
        snprintf(out, cap, "none: %s", g->why);
    else if (g->counter)
        snprintf(out, cap, "NVML energy counter of GPU %s (nvmlDeviceGetTotalEnergyConsumption): "
                 "the whole board while a case was timed", g->name);
    else
        snprintf(out, cap, "NVML power of GPU %s sampled every %d ms and integrated "
                 "(nvmlDeviceGetPowerUsage; no counter: %s)", g->name, ENERGY_GPU_PERIOD_MS, g->why);
}
