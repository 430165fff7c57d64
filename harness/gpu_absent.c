/* harness/gpu_absent.c - harness/gpu.h and gpu_exec.h for a build without the
 * CUDA toolkit: no GPU, and the reason says how to get one. The runner skips
 * GPU cases when the probe says the GPU is unusable, so gpu_exec_open only
 * reports. */
#include "gpu.h"
#include "gpu_exec.h"
#include "errmsg.h"

#include <stdio.h>
#include <string.h>

const char *const GPU_FLAVOUR = "none";

static const char WHY[] =
    "built without the CUDA toolkit (nvcc not found); run with --emulate for the emulator";

void gpu_probe(int device, gpu_status *st)
{
    memset(st, 0, sizeof *st);
    st->device = device;
    snprintf(st->why, sizeof st->why, "%s", WHY);
}

void gpu_info_print(FILE *f) { fprintf(f, "gpus:      none: %s\n", WHY); }

int gpu_mem_get(size_t *free_bytes, size_t *total_bytes, char *why, size_t cap)
{
    *free_bytes = *total_bytes = 0;
    snprintf(why, cap, "%s", WHY);
    return -1;
}

void gpu_context_lines(char (*lines)[ENV_LINE], int *n, int max)
{
    if (*n < max) snprintf(lines[(*n)++], ENV_LINE, "gpu_layer: none");
    if (*n < max) snprintf(lines[(*n)++], ENV_LINE, "gpu: none: %s", WHY);
}

int gpu_exec_open(const gpu_mode *m, const gpu_work *w, case_exec *ex, char *skip,
                  size_t skipcap)
{
    (void)m, (void)w, (void)ex, (void)skip, (void)skipcap;
    err_set("%s", WHY);
    return -1;
}

int gpu_recover_device(gpu_status *st)
{
    gpu_probe(st->device, st);
    return -1;
}

int gpu_props_get(int device, gpu_props *g, char *why, size_t cap)
{
    (void)device;
    memset(g, 0, sizeof *g);
    snprintf(why, cap, "%s", WHY);
    return -1;
}

int gpu_launch_us(int n, double *us, char *why, size_t cap)
{
    (void)n;
    *us = 0;
    snprintf(why, cap, "%s", WHY);
    return -1;
}

int gpu_stream_sync(void *stream)
{
    (void)stream;
    return 0;
}
