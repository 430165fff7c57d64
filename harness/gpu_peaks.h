/* harness/gpu_peaks.h - a GPU's paper peaks (compute per dtype, memory
 * bandwidth) from its properties: a pure function, no CUDA types, so the
 * probe (bench/roof_probe.c), every build flavour and the unit test share it.
 * The GPU layer fills gpu_props from the CUDA runtime (gpu.h: gpu_props_get). */
#ifndef HARNESS_GPU_PEAKS_H
#define HARNESS_GPU_PEAKS_H

#include "roofs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the peaks are computed from, as the CUDA runtime reports it. */
typedef struct gpu_props {
    int major, minor;          /* compute capability */
    int sms;                   /* multiProcessorCount */
    double clock_khz;          /* cudaDevAttrClockRate: the SM's max (boost) clock */
    double mem_clock_khz;      /* cudaDevAttrMemoryClockRate; 0: not known */
    int bus_bits;              /* cudaDevAttrGlobalMemoryBusWidth; 0: not known */
    double l2_bytes;           /* cudaDevAttrL2CacheSize */
    char name[128];
} gpu_props;

/* Fills v->peak[dt] for each dtype of dts (a DTYPE_BIT set) and v->peak_bw
 * from g, each with its `how` (the formula and the assumptions); a value the
 * architecture table does not know stays NAN. */
void gpu_paper_peaks(const gpu_props *g, unsigned dts, roof_device *v);

#ifdef __cplusplus
}
#endif
#endif
