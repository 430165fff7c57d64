/* harness/gpu.h - the GPU as the rest of the harness sees it, without CUDA types.
 *
 * Implemented three ways, one per binary: harness/gpu_info.c (with
 * gpu_modes.c) compiled against the real CUDA runtime (bench), the same files
 * against emu/ (bench-emu), or harness/gpu_absent.c when the build had no CUDA
 * toolkit.  C code that is not
 * GPU code includes only this header.
 */
#ifndef HARNESS_GPU_H
#define HARNESS_GPU_H

#include <stdio.h>
#include "env.h"
#include "gpu_peaks.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpu_status {
    int usable;          /* a device is there and answered */
    int emulated;        /* the CUDA host emulator, not a GPU */
    int device;          /* the device selected */
    int bad_device;      /* devices exist, but not this index: a usage error */
    char name[128];      /* its name, for the device column */
    char pci[32];        /* its PCI bus id, "dddddddd:bb:dd.0" (NVML finds it by that) */
    char why[256];       /* when not usable: the CUDA error text */
} gpu_status;

/* Selects device (cudaSetDevice) and checks it works. Always fills st. */
void gpu_probe(int device, gpu_status *st);

/* The deviceQuery role for bench --info: every GPU, or why none is usable. */
void gpu_info_print(FILE *f);

/* Appends "gpu: ...", "cuda_driver: ...", "cuda_runtime: ..." context lines. */
void gpu_context_lines(char (*lines)[ENV_LINE], int *n, int max);

/* After a failed case: returns 0 when the device is healthy (or healthy again
 * after releasing every library handle and cudaDeviceReset), else -1 with st
 * marked unusable and st->why set. */
int gpu_recover_device(gpu_status *st);

/* The properties of device its paper peaks come from (gpu_peaks.h), every
 * runtime call checked. 0, or -1 with why. */
int gpu_props_get(int device, gpu_props *g, char *why, size_t cap);

/* The launch latency of the current device: n empty kernels back to back
 * between two events, in us per launch. 0, or -1 with why. */
int gpu_launch_us(int n, double *us, char *why, size_t cap);

/* The current device's free and total memory (cudaMemGetInfo, as
 * torch.cuda.mem_get_info). 0, or -1 with why. */
int gpu_mem_get(size_t *free_bytes, size_t *total_bytes, char *why, size_t cap);

/* Which flavour this binary was built with: "cuda", "emulator" or "none". */
extern const char *const GPU_FLAVOUR;

#ifdef __cplusplus
}
#endif
#endif
