/* tests/harness/gpu_peaks_test.c - gpu_paper_peaks against the published
 * figures of an A100 (SXM4 40 GB) and an H100 (SXM5 80 GB): the properties
 * the runtime reports for each, and the whitepapers' dense peaks, within 3%;
 * a dtype not asked for and an architecture the table lacks stay unknown. */
#include "gpu_peaks.h"
#include "testutil.h"

#include <math.h>
#include <string.h>

static int near(double v, double want) { return isfinite(v) && fabs(v / want - 1) < 0.03; }

static roof_device fresh(void)
{
    roofs rf;
    roofs_init(&rf);
    return rf.dev[ROOF_GPU];
}

int main(void)
{
    const unsigned all = DTYPE_BIT(DTYPE_FP32) | DTYPE_BIT(DTYPE_TF32) | DTYPE_BIT(DTYPE_BF16) |
                         DTYPE_BIT(DTYPE_FP16);
    /* A100-SXM4-40GB: cc 8.0, 108 SMs, 1410 MHz, HBM2 1215 MHz x 5120 bit.
     * Whitepaper: fp32 19.5, tf32 156, bf16/fp16 312 TFLOPS; 1555 GB/s. */
    gpu_props a100 = {.major = 8, .minor = 0, .sms = 108, .clock_khz = 1410000,
                      .mem_clock_khz = 1215000, .bus_bits = 5120, .l2_bytes = 40 << 20};
    roof_device v = fresh();
    gpu_paper_peaks(&a100, all, &v);
    EXPECT(near(v.peak[DTYPE_FP32].v, 19500), "A100 fp32 %g", v.peak[DTYPE_FP32].v);
    EXPECT(near(v.peak[DTYPE_TF32].v, 156000), "A100 tf32 %g", v.peak[DTYPE_TF32].v);
    EXPECT(near(v.peak[DTYPE_BF16].v, 312000), "A100 bf16 %g", v.peak[DTYPE_BF16].v);
    EXPECT(near(v.peak[DTYPE_FP16].v, 312000), "A100 fp16 %g", v.peak[DTYPE_FP16].v);
    EXPECT(near(v.peak_bw.v, 1555), "A100 bandwidth %g", v.peak_bw.v);
    EXPECT(strstr(v.peak[DTYPE_FP32].how, "108 SMs") != NULL, "how '%s'", v.peak[DTYPE_FP32].how);
    EXPECT(strstr(v.peak_bw.how, "5120-bit") != NULL, "how '%s'", v.peak_bw.how);

    /* H100-SXM5-80GB: cc 9.0, 132 SMs, 1980 MHz boost, HBM3 2619 MHz x 5120 bit.
     * Whitepaper: fp32 66.9, tf32 494.7, bf16/fp16 989.4 TFLOPS; 3.35 TB/s. */
    gpu_props h100 = {.major = 9, .minor = 0, .sms = 132, .clock_khz = 1980000,
                      .mem_clock_khz = 2619000, .bus_bits = 5120, .l2_bytes = 50 << 20};
    v = fresh();
    gpu_paper_peaks(&h100, all, &v);
    EXPECT(near(v.peak[DTYPE_FP32].v, 66900), "H100 fp32 %g", v.peak[DTYPE_FP32].v);
    EXPECT(near(v.peak[DTYPE_TF32].v, 494700), "H100 tf32 %g", v.peak[DTYPE_TF32].v);
    EXPECT(near(v.peak[DTYPE_BF16].v, 989400), "H100 bf16 %g", v.peak[DTYPE_BF16].v);
    EXPECT(near(v.peak[DTYPE_FP16].v, 989400), "H100 fp16 %g", v.peak[DTYPE_FP16].v);
    EXPECT(near(v.peak_bw.v, 3350), "H100 bandwidth %g", v.peak_bw.v);

    /* only the dtypes asked for */
    v = fresh();
    gpu_paper_peaks(&h100, DTYPE_BIT(DTYPE_FP32), &v);
    EXPECT(isfinite(v.peak[DTYPE_FP32].v), "fp32 %g", v.peak[DTYPE_FP32].v);
    EXPECT(isnan(v.peak[DTYPE_FP16].v), "fp16 not asked: %g", v.peak[DTYPE_FP16].v);

    /* an architecture the table lacks: no compute peak; unknown memory clock: no bandwidth */
    gpu_props old = {.major = 6, .minor = 0, .sms = 56, .clock_khz = 1480000};
    v = fresh();
    gpu_paper_peaks(&old, all, &v);
    for (int d = 0; d < DTYPE_COUNT; d++) EXPECT(isnan(v.peak[d].v), "sm_60 %d: %g", d, v.peak[d].v);
    EXPECT(isnan(v.peak_bw.v), "bandwidth %g", v.peak_bw.v);

    /* Volta: fp16 tensor cores, no tf32 or bf16 */
    gpu_props v100 = {.major = 7, .minor = 0, .sms = 80, .clock_khz = 1530000};
    v = fresh();
    gpu_paper_peaks(&v100, all, &v);
    EXPECT(near(v.peak[DTYPE_FP16].v, 125000), "V100 fp16 %g", v.peak[DTYPE_FP16].v);
    EXPECT(near(v.peak[DTYPE_FP32].v, 15700), "V100 fp32 %g", v.peak[DTYPE_FP32].v);
    EXPECT(isnan(v.peak[DTYPE_TF32].v) && isnan(v.peak[DTYPE_BF16].v), "V100 tf32/bf16");
    TEST_END();
}
