/* harness/energy_gpu.h - a GPU's energy from NVML, loaded at run time.
 *
 * libnvidia-ml.so.1 comes with the NVIDIA driver: it is opened with dlopen
 * (never linked), so a machine without it, or a build without the CUDA
 * toolkit, only loses the GPU energy. For the GPU a case runs on (found by
 * its PCI bus id, else by its index) a row's energy is, in order of
 * preference:
 *   counter: nvmlDeviceGetTotalEnergyConsumption (mJ since the driver
 *            loaded; Volta and newer), its difference across the timed
 *            repetitions;
 *   power:   nvmlDeviceGetPowerUsage (mW; on Ampere and newer an average
 *            over the last second) sampled by a thread every
 *            ENERGY_GPU_PERIOD_MS during the repetitions, integrated over
 *            time (trapezoids between samples, one at each end).
 * A call that fails during a measurement, or a counter that did not move,
 * gives no energy for that row (NAN: empty, never zero). Emulated rows never
 * get an energy (the emulator's GPU is the CPU), nor do rows on several GPUs
 * (replicas > 1: the source reads the one GPU of the run).
 * The hook BENCH_NVML_LIB names another library to load (tests: a fake).
 */
#ifndef HARNESS_ENERGY_GPU_H
#define HARNESS_ENERGY_GPU_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ENERGY_GPU_PERIOD_MS 10

typedef struct energy_gpu {
    int ok;              /* 1: a source; 0: none, why says why */
    int counter;         /* 1: the energy counter; 0: power sampled */
    char name[96];       /* NVML's name of the device */
    char why[240];
    void *lib, *dev;
    int (*energy)(void *dev, unsigned long long *mj);
    int (*power)(void *dev, unsigned *mw);
    const char *(*errstr)(int);
    int (*shutdown)(void);
} energy_gpu;

/* A measurement in progress (energy.h's energy_span holds one). */
typedef struct energy_gpu_span {
    double mj0;                  /* counter: the first reading */
    struct energy_gpu_sampler *s; /* power: the sampling thread */
} energy_gpu_span;

/* g is zeroed ({0}) or was opened before: what it held is closed first.
 * Opens NVML from lib (NULL: BENCH_NVML_LIB, else libnvidia-ml.so.1) for the
 * device with PCI bus id pci ("0000:3b:00.0"; NULL or "": by index). 0, or
 * -1 with g->why set (no library, not permitted, no such device, neither
 * call supported). */
int energy_gpu_open(energy_gpu *g, const char *lib, const char *pci, int index);
/* No source, for the reason given (an emulated GPU, no GPU in the run). */
void energy_gpu_none(energy_gpu *g, const char *why);
void energy_gpu_close(energy_gpu *g);

/* The process's source (the timing loop's): energy_gpu_use sets it, once
 * the run knows its GPU; until then it has none. */
const energy_gpu *energy_gpu_get(void);
energy_gpu *energy_gpu_use(void);

/* Around a measurement: begin 0 or -1 (a call failed: end gives NAN); end
 * the joules in between, or NAN. */
int energy_gpu_begin(const energy_gpu *g, energy_gpu_span *s);
double energy_gpu_end(const energy_gpu *g, energy_gpu_span *s);

/* The context line (without "energy-gpu: ") into out. */
void energy_gpu_describe(const energy_gpu *g, char *out, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
