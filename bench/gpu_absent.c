/* bench/gpu_absent.c - harness/gpu.h and bench/gpu_cases.h for a build
 * without the CUDA toolkit: no GPU, and the reason says how to get one.
 * The suites probe first and skip, so the case functions only report. */
#include "gpu.h"
#include "gpu_cases.h"
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

void gpu_context_lines(char (*lines)[ENV_LINE], int *n, int max)
{
    if (*n < max) snprintf(lines[(*n)++], ENV_LINE, "gpu_layer: none");
    if (*n < max) snprintf(lines[(*n)++], ENV_LINE, "gpu: none: %s", WHY);
}

static int absent(result_row *row)
{
    err_set("%s", WHY);
    snprintf(row->check, sizeof row->check, "skip");
    snprintf(row->note, sizeof row->note, "%s", WHY);
    return -1;
}

int gpu_gemm_case(int backend, const char *mode, const gemm_problem *p, const measure_cfg *cfg,
                  result_row *row)
{
    (void)backend, (void)mode, (void)p, (void)cfg;
    return absent(row);
}

int gpu_transfer_case(const char *mode, size_t bytes, const measure_cfg *cfg, result_row *row)
{
    (void)mode, (void)bytes, (void)cfg;
    return absent(row);
}

void gpu_cases_release(void) {}

int gpu_cases_recover(gpu_status *st)
{
    gpu_probe(st->device, st);
    return -1;
}
