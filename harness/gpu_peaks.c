/* harness/gpu_peaks.c - a GPU's paper peaks from its properties (gpu_peaks.h).
 *
 * fp32: SMs x clock x FP32 lanes per SM x 2 (an FMA is two FLOPs). Lanes per
 * SM, from the CUDA C++ Programming Guide's throughput table ("32-bit
 * floating-point add, multiply, multiply-add" results per clock per SM):
 * 7.0 and 7.5 64, 8.0 64, 8.6/8.7/8.9 128, 9.0 128, 10.x and 12.x 128.
 *
 * Tensor peaks (tf32, bf16, fp16), dense (no 2:4 sparsity), FLOP per clock
 * per SM, from the architecture whitepapers:
 *   sm_70 (V100)   8 tensor cores x 64 FMA fp16          = 1024 (no tf32/bf16)
 *   sm_75 (T4)     8 x 64 FMA fp16                        = 1024
 *   sm_80 (A100)   4 x 256 FMA fp16/bf16 = 2048; tf32 1024 (A100 whitepaper:
 *                  312 / 156 TFLOPS at 108 SMs, 1410 MHz)
 *   sm_86/87/89    4 x 128 FMA fp16/bf16 = 1024; tf32 512 (GA102 / Ada
 *                  whitepapers; GeForce parts halve it with fp32 accumulate)
 *   sm_90 (H100)   twice A100's per SM: fp16/bf16 4096, tf32 2048 (H100
 *                  whitepaper: 989.4 / 494.7 TFLOPS at 132 SMs)
 * NVIDIA states Hopper's tensor peaks at a clock below the boost clock the
 * runtime reports (H100 SXM5 1830 of 1980 MHz, PCIe 1620 of 1755 MHz: 0.924
 * both); the table carries that ratio. Other architectures (sm_100 ...):
 * no tensor peak (the table does not know them), fp32 only.
 *
 * Memory: 2 (double data rate) x memory clock x bus width / 8 bytes (HBM2:
 * A100 40 GB 1215 MHz x 5120 bit = 1555 GB/s; HBM3: H100 SXM5 2619 MHz =
 * 3352 GB/s). */
#include "gpu_peaks.h"

#include <math.h>
#include <stdio.h>

typedef struct arch_row {
    int major, minor;        /* minor -1: every minor of major */
    int fp32_lanes;          /* FP32 lanes per SM */
    double tf32, bf16, fp16; /* dense tensor FLOP per clock per SM; 0: none */
    double tensor_clock;     /* the tensor peak's clock / the boost clock */
    const char *src;
} arch_row;

static const arch_row ARCHS[] = {
    {7, 0, 64, 0, 0, 1024, 1, "Volta whitepaper"},
    {7, 5, 64, 0, 0, 1024, 1, "Turing whitepaper"},
    {8, 0, 64, 1024, 2048, 2048, 1, "A100 whitepaper"},
    {8, 6, 128, 512, 1024, 1024, 1, "GA102 whitepaper"},
    {8, 7, 128, 512, 1024, 1024, 1, "GA10x (Orin)"},
    {8, 9, 128, 512, 1024, 1024, 1, "Ada whitepaper"},
    {9, 0, 128, 2048, 4096, 4096, 1830.0 / 1980.0, "H100 whitepaper"},
    {10, -1, 128, 0, 0, 0, 1, "CUDA C++ Programming Guide"},
    {12, -1, 128, 0, 0, 0, 1, "CUDA C++ Programming Guide"},
};

static const arch_row *arch_of(int major, int minor)
{
    for (size_t i = 0; i < sizeof ARCHS / sizeof *ARCHS; i++)
        if (ARCHS[i].major == major && (ARCHS[i].minor < 0 || ARCHS[i].minor == minor))
            return &ARCHS[i];
    return NULL;
}

void gpu_paper_peaks(const gpu_props *g, unsigned dts, roof_device *v)
{
    const arch_row *a = arch_of(g->major, g->minor);
    double ghz = g->clock_khz / 1e6;
    if (g->mem_clock_khz > 0 && g->bus_bits > 0) {
        v->peak_bw.v = 2.0 * g->mem_clock_khz * 1e3 * (g->bus_bits / 8.0) / 1e9;
        snprintf(v->peak_bw.how, sizeof v->peak_bw.how,
                 "paper: 2 x %.0f MHz memory clock x %d-bit bus / 8", g->mem_clock_khz / 1e3,
                 g->bus_bits);
    }
    if (!a || !(g->sms > 0) || !(ghz > 0)) return;
    for (int d = 0; d < DTYPE_COUNT; d++) {
        if (!(dts & DTYPE_BIT(d))) continue;
        roof_num *p = &v->peak[d];
        if (d == DTYPE_FP32) {
            p->v = g->sms * ghz * a->fp32_lanes * 2.0;
            snprintf(p->how, sizeof p->how, "paper: %d SMs x %.0f MHz x %d FP32 lanes per SM "
                     "(cc %d.%d) x 2 (FMA)", g->sms, ghz * 1e3, a->fp32_lanes, g->major, g->minor);
            continue;
        }
        double per = d == DTYPE_TF32 ? a->tf32 : d == DTYPE_BF16 ? a->bf16
                   : d == DTYPE_FP16 ? a->fp16 : 0;
        if (!(per > 0)) continue;
        p->v = g->sms * ghz * a->tensor_clock * per;
        snprintf(p->how, sizeof p->how, "paper: %d SMs x %.0f MHz%s x %.0f dense tensor "
                 "FLOP/clock/SM (cc %d.%d, %s)", g->sms, ghz * 1e3,
                 a->tensor_clock < 1 ? " x the tensor clock ratio" : "", per, g->major, g->minor,
                 a->src);
    }
}
