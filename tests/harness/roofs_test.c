/* tests/harness/roofs_test.c - roof_verdict on synthetic roofs and rows: each
 * verdict and each bound, the end-to-end transfer roof (in turn and on
 * overlapping streams), the transfer suite's copies against the roof of their
 * direction, MFU of a whole step,
 * the rows that get none (emulated, no work count, failed, no roofs), the
 * reasons of low and above-roof rows; and the context lines read back. */
#include "roofs.h"
#include "testutil.h"

#include <math.h>
#include <string.h>

/* cpu: 100 GFLOP/s fp32, 10 GB/s; gpu: 1000 GFLOP/s fp32, 100 GB/s, copies in
 * 10 GB/s, out 20 GB/s (the directions differ, so a swap shows) */
static void synth(roofs *rf)
{
    roofs_init(rf);
    rf->measured = 1;
    rf->probe_s = 0.5;
    rf->dev[ROOF_CPU].present = 1;
    rf->dev[ROOF_CPU].bw.v = 10;
    snprintf(rf->dev[ROOF_CPU].bw.how, sizeof rf->dev[ROOF_CPU].bw.how, "triad");
    rf->dev[ROOF_CPU].compute[DTYPE_FP32].v = 100;
    snprintf(rf->dev[ROOF_CPU].compute[DTYPE_FP32].how, 160, "best GEMM");
    rf->dev[ROOF_CPU].peak[DTYPE_FP32].v = 200;
    rf->dev[ROOF_GPU].present = 1;
    rf->dev[ROOF_GPU].bw.v = 100;
    rf->dev[ROOF_GPU].compute[DTYPE_FP32].v = 1000;
    rf->dev[ROOF_GPU].h2d.v = 10;
    rf->dev[ROOF_GPU].d2h.v = 20;
    rf->dev[ROOF_GPU].peak_bw.v = 150;
    rf->dev[ROOF_GPU].launch.v = 5;
}

/* A passed CPU fp32 row doing flops and io_bytes in median_ms. */
static result_row row_of(const char *kind, double flops, double io, double ms)
{
    result_row r;
    result_row_init(&r);
    snprintf(r.device_kind, sizeof r.device_kind, "%s", kind);
    snprintf(r.dtype, sizeof r.dtype, "fp32");
    snprintf(r.check, sizeof r.check, "pass");
    r.flops = flops;
    r.io_bytes = io;
    r.median_ms = ms;
    return r;
}

int main(void)
{
    roofs rf;
    synth(&rf);
    roof_case c = {.llc_bytes = 32e6};
    const roof_device *cpu = &rf.dev[ROOF_CPU];

    /* compute-bound at the roof: 1 GFLOP at intensity 100 takes 10 ms at 100 GFLOP/s */
    result_row r = row_of("cpu", 1e9, 1e7, 1e9 / (cpu->compute[DTYPE_FP32].v * 1e9) * 1e3);
    roof_verdict(&rf, &c, &r);
    EXPECT(fabs(r.intensity - 100) < 1e-9, "intensity %g", r.intensity);
    EXPECT(fabs(r.pct_roof - 100) < 1e-9, "pct %g", r.pct_roof);
    EXPECT(strcmp(r.verdict, "at-roof") == 0, "verdict %s", r.verdict);
    EXPECT(strcmp(r.bound, "compute") == 0, "bound %s", r.bound);
    EXPECT(r.note[0] == '\0', "note '%s'", r.note);

    /* ok: twice as slow as at-roof's threshold allows */
    double t_roof = 10.0;   /* ms, as above */
    r = row_of("cpu", 1e9, 1e7, t_roof * 100.0 / ((ROOF_AT_PCT + ROOF_LOW_PCT) / 2));
    roof_verdict(&rf, &c, &r);
    EXPECT(strcmp(r.verdict, "ok") == 0, "verdict %s pct %g", r.verdict, r.pct_roof);

    /* bandwidth-bound: intensity 1 < ridge 10; 1e8 bytes at 10 GB/s = 10 ms; low at 5% */
    double t_bw = 1e8 / (cpu->bw.v * 1e9) * 1e3;
    r = row_of("cpu", 1e8, 1e8, t_bw * 100.0 / (ROOF_LOW_PCT / 2));
    roof_verdict(&rf, &c, &r);
    EXPECT(strcmp(r.bound, "bandwidth") == 0, "bound %s", r.bound);
    EXPECT(fabs(r.pct_roof - ROOF_LOW_PCT / 2) < 1e-9, "pct %g", r.pct_roof);
    EXPECT(strcmp(r.verdict, "low") == 0, "verdict %s", r.verdict);
    EXPECT(strstr(r.note, "low: bandwidth-bound") != NULL, "note '%s'", r.note);

    /* low, short repetitions: overhead-bound; the reference: the reference loop */
    r = row_of("cpu", 1e5, 1e4, ROOF_OVERHEAD_MS / 2);
    roof_verdict(&rf, &c, &r);
    EXPECT(strcmp(r.verdict, "low") == 0, "verdict %s pct %g", r.verdict, r.pct_roof);
    EXPECT(strstr(r.note, "overhead-bound") != NULL, "note '%s'", r.note);
    roof_case ref = c;
    ref.reference = 1;
    r = row_of("cpu", 1e9, 1e7, t_roof * 100);
    roof_verdict(&rf, &ref, &r);
    EXPECT(strcmp(r.verdict, "low") == 0 && strstr(r.note, "the reference loop"), "'%s' '%s'",
           r.verdict, r.note);
    /* low without a special reason: the numbers */
    r = row_of("cpu", 1e9, 1e7, t_roof * 100);
    roof_verdict(&rf, &c, &r);
    EXPECT(strstr(r.note, "low: 1% of the compute roof") != NULL, "note '%s'", r.note);

    /* low with the backend's caveat, after the reference loop and before the rest */
    roof_case cav = c;
    cav.caveat = "a library on slower kernels";
    r = row_of("cpu", 1e5, 1e4, ROOF_OVERHEAD_MS / 2);
    roof_verdict(&rf, &cav, &r);
    EXPECT(strcmp(r.note, "low: a library on slower kernels") == 0, "caveat: '%s'", r.note);
    cav.reference = 1;
    r = row_of("cpu", 1e9, 1e7, t_roof * 100);
    roof_verdict(&rf, &cav, &r);
    EXPECT(strstr(r.note, "the reference loop") && !strstr(r.note, "slower kernels"), "'%s'", r.note);
    /* low, and a peer ran the same problem ROOF_PEER_FACTOR times faster or more */
    roof_case peer = c;
    peer.peer = "cpu-fast";
    peer.peer_ms = t_roof * 100 / ROOF_PEER_FACTOR;
    r = row_of("cpu", 1e9, 1e7, t_roof * 100);
    roof_verdict(&rf, &peer, &r);
    EXPECT(strstr(r.note, "low: cpu-fast runs this problem 2x faster here (500 ms)"), "peer: '%s'", r.note);
    peer.peer_ms = t_roof * 100 / ROOF_PEER_FACTOR * 1.01;   /* not quite: the numbers */
    r = row_of("cpu", 1e9, 1e7, t_roof * 100);
    roof_verdict(&rf, &peer, &r);
    EXPECT(strstr(r.note, "low: 1% of the compute roof"), "peer not fast enough: '%s'", r.note);
    /* low and stayed disturbed: that is the reason, before the bound */
    r = row_of("cpu", 1e9, 1e7, t_roof * 100);
    r.disturbed = 1;
    roof_verdict(&rf, &c, &r);
    EXPECT(strstr(r.note, "low: measured while disturbed"), "disturbed: '%s'", r.note);
    /* low, its own repetitions varied ROOF_VARY_FACTOR or more: the fastest's % */
    r = row_of("cpu", 1e9, 1e7, t_roof * 100);
    r.min_ms = r.median_ms / (ROOF_VARY_FACTOR * 2);
    roof_verdict(&rf, &c, &r);
    EXPECT(strstr(r.note, "low: its repetitions varied 3.00x (the fastest at 3% of the roof)"),
           "row varied: '%s'", r.note);
    r = row_of("cpu", 1e9, 1e7, t_roof * 100);
    r.min_ms = r.median_ms / ROOF_VARY_FACTOR * 1.01;   /* not quite: the numbers */
    roof_verdict(&rf, &c, &r);
    EXPECT(strstr(r.note, "low: 1% of the compute roof"), "row nearly varied: '%s'", r.note);
    /* the roof's probe varied: written into its how, read back, the row's reason */
    roofs moved = rf;
    roof_num *mc = &moved.dev[ROOF_CPU].compute[DTYPE_FP32];
    roof_how_varied(mc, 1.0, ROOF_VARY_FACTOR * 0.99, 40, ROOF_UNIT_COMPUTE);
    EXPECT(roof_varied(mc) == 0 && !strstr(mc->how, ROOF_VARIED_TAG), "below the factor: '%s'", mc->how);
    roof_how_varied(mc, 1.0, 2.5, 40, ROOF_UNIT_COMPUTE);
    EXPECT(fabs(roof_varied(mc) - 2.5) < 1e-9, "factor %g from '%s'", roof_varied(mc), mc->how);
    EXPECT(strstr(mc->how, "2.50x the fastest (40 GFLOP/s)"), "how '%s'", mc->how);
    r = row_of("cpu", 1e9, 1e7, t_roof * 100);
    roof_verdict(&moved, &c, &r);
    EXPECT(strstr(r.note, "low: the roof's probe varied 2.50x on this machine") &&
           strstr(r.note, "this row reaches 2.5%"), "roof varied: '%s'", r.note);
    /* read back from its context line too (the report's path) */
    {
        char lines[16][512];
        int n = 0;
        roofs back;
        roofs_context_lines(&moved, lines, &n, 16);
        roofs_init(&back);
        for (int i = 0; i < n; i++) roofs_parse_line(&back, lines[i]);
        EXPECT(fabs(roof_varied(&back.dev[ROOF_CPU].compute[DTYPE_FP32]) - 2.5) < 1e-9,
               "context line lost the factor: '%s'", back.dev[ROOF_CPU].compute[DTYPE_FP32].how);
    }

    /* above-roof: bandwidth-bound in the cache; compute-bound past the probe */
    r = row_of("cpu", 0, 1e6, 1e6 / (cpu->bw.v * 1e9) * 1e3 / 3);
    roof_verdict(&rf, &c, &r);
    EXPECT(isnan(r.intensity), "intensity without flops %g", r.intensity);
    EXPECT(strcmp(r.verdict, "above-roof") == 0 && strcmp(r.bound, "bandwidth") == 0, "%s %s",
           r.verdict, r.bound);
    EXPECT(strstr(r.note, "within the cache") != NULL, "note '%s'", r.note);
    /* twice the probe's roof is the paper peak: within it, the path beat the probe */
    r = row_of("cpu", 1e9, 1e7, t_roof / 2);
    r.gflops = 1e9 / (r.median_ms * 1e6);
    roof_verdict(&rf, &c, &r);
    EXPECT(strcmp(r.verdict, "above-roof") == 0 && strstr(r.note, "yet within the paper peak (200 "),
           "%s '%s'", r.verdict, r.note);
    r = row_of("cpu", 1e9, 1e7, t_roof / 3);
    r.gflops = 1e9 / (r.median_ms * 1e6);
    roof_verdict(&rf, &c, &r);
    EXPECT(strcmp(r.verdict, "above-roof") == 0 && strstr(r.note, "roof probe measured less"), "%s '%s'",
           r.verdict, r.note);
    /* a roof measured while disturbed reads low: the reason says so first */
    roofs busy = rf;
    snprintf(busy.dev[ROOF_CPU].compute[DTYPE_FP32].how, sizeof busy.dev[ROOF_CPU].compute[DTYPE_FP32].how,
             "best GEMM; " ROOF_DISTURBED_TAG ": CPU 40%% of wall x 2 threads");
    roof_verdict(&busy, &c, &r);
    EXPECT(strcmp(r.verdict, "above-roof") == 0 && strstr(r.note, "was " ROOF_DISTURBED_TAG " and reads low"),
           "%s '%s'", r.verdict, r.note);

    /* end to end on the GPU: 1e8 bytes in and out at 10 GB/s = 20 ms beside 1 ms of compute */
    const roof_device *gpu = &rf.dev[ROOF_GPU];
    roof_case e2e = {.copies = 1, .h2d_bytes = 1e8, .d2h_bytes = 1e8};
    double t_h = e2e.h2d_bytes / (gpu->h2d.v * 1e9) * 1e3, t_d = e2e.d2h_bytes / (gpu->d2h.v * 1e9) * 1e3;
    double t_x = t_h + t_d;
    double t_c = 1e9 / (rf.dev[ROOF_GPU].compute[DTYPE_FP32].v * 1e9) * 1e3;
    r = row_of("gpu", 1e9, 1e7, t_x + t_c);
    roof_verdict(&rf, &e2e, &r);
    EXPECT(strcmp(r.bound, "transfer") == 0, "bound %s", r.bound);
    EXPECT(fabs(r.pct_roof - 100) < 1e-9, "pct %g", r.pct_roof);
    /* the same row resident: compute-bound, far above its 1 ms */
    roof_case res = {0};
    roof_verdict(&rf, &res, &r);
    EXPECT(strcmp(r.bound, "compute") == 0, "bound %s", r.bound);
    EXPECT(fabs(r.pct_roof - 100 * t_c / (t_x + t_c)) < 1e-9, "pct %g", r.pct_roof);

    /* the same copies on overlapping streams: the slowest engine (copies in) sets the roof */
    roof_case ovl = e2e;
    ovl.overlap = 1;
    r = row_of("gpu", 1e9, 1e7, t_h);
    roof_verdict(&rf, &ovl, &r);
    EXPECT(strcmp(r.bound, "transfer") == 0 && fabs(r.pct_roof - 100) < 1e-9, "%s %g", r.bound,
           r.pct_roof);
    /* ... one stream at that time would be faster than the roofs allow */
    roof_verdict(&rf, &e2e, &r);
    EXPECT(strcmp(r.verdict, "above-roof") == 0, "in turn: %s %g", r.verdict, r.pct_roof);
    /* overlapped, compute-bound when the kernels take longest */
    roof_case ovl_small = {.copies = 1, .overlap = 1, .h2d_bytes = 1e6, .d2h_bytes = 1e6};
    r = row_of("gpu", 1e9, 1e7, t_c);
    roof_verdict(&rf, &ovl_small, &r);
    EXPECT(strcmp(r.bound, "compute") == 0 && strcmp(r.verdict, "at-roof") == 0, "%s %s",
           r.bound, r.verdict);

    /* the transfer suite's rows: one copy against the roof of its direction */
    struct { roof_copy way; double roof, moved; const char *bound; } ways[] = {
        {ROOF_COPY_H2D, gpu->h2d.v, 1, "transfer"},
        {ROOF_COPY_D2H, gpu->d2h.v, 1, "transfer"},
        {ROOF_COPY_D2D, gpu->bw.v, 2, "bandwidth"},   /* reads and writes each byte */
    };
    for (size_t w = 0; w < sizeof ways / sizeof *ways; w++) {
        roof_case cp = {.copy = ways[w].way};
        double t = ways[w].moved * 1e8 / (ways[w].roof * 1e9) * 1e3;
        r = row_of("gpu", 0, 1e8, t);
        snprintf(r.dtype, sizeof r.dtype, "u8");
        roof_verdict(&rf, &cp, &r);
        EXPECT(strcmp(r.bound, ways[w].bound) == 0, "way %zu bound %s", w, r.bound);
        EXPECT(fabs(r.pct_roof - 100) < 1e-9 && strcmp(r.verdict, "at-roof") == 0,
               "way %zu pct %g %s", w, r.pct_roof, r.verdict);
        EXPECT(isnan(r.intensity), "way %zu intensity %g", w, r.intensity);
        /* a pageable copy at a twentieth of the pinned roof: low, saying against what */
        r = row_of("gpu", 0, 1e8, t * 100 / (ROOF_LOW_PCT / 2));
        roof_verdict(&rf, &cp, &r);
        EXPECT(strcmp(r.verdict, "low") == 0 && fabs(r.pct_roof - ROOF_LOW_PCT / 2) < 1e-9,
               "way %zu slow: %s %g", w, r.verdict, r.pct_roof);
        EXPECT(strstr(r.note, ways[w].moved > 1 ? "bandwidth-bound" : "transfer-bound") != NULL,
               "way %zu note '%s'", w, r.note);
        r = row_of("gpu", 0, 1e8, t / 2);
        roof_verdict(&rf, &cp, &r);
        EXPECT(strcmp(r.verdict, "above-roof") == 0, "way %zu fast: %s", w, r.verdict);
    }
    /* a copy row without its roof measured, and a CPU row given a copy: none */
    roofs nocopy = rf;
    nocopy.dev[ROOF_GPU].h2d.v = NAN;
    roof_case h2d = {.copy = ROOF_COPY_H2D};
    r = row_of("gpu", 0, 1e8, 10);
    roof_verdict(&nocopy, &h2d, &r);
    EXPECT(isnan(r.pct_roof) && !r.verdict[0] && !r.bound[0], "no h2d roof: %g", r.pct_roof);

    /* a whole step: % of the compute roof alone (MFU), bandwidth ignored */
    roof_case step = {.whole_step = 1};
    r = row_of("cpu", 1e8, 1e9, 1e8 / (cpu->compute[DTYPE_FP32].v * 1e9) * 1e3 * 2);
    roof_verdict(&rf, &step, &r);
    EXPECT(fabs(r.pct_roof - 50) < 1e-9 && strcmp(r.bound, "compute") == 0, "pct %g bound %s",
           r.pct_roof, r.bound);

    /* none: emulated (says so), no work count, failed, no dtype roof, no roofs */
    r = row_of("gpu", 1e9, 1e7, 10);
    r.emulated = 1;
    roof_verdict(&rf, &c, &r);
    EXPECT(isnan(r.pct_roof) && !r.verdict[0] && strcmp(r.note, "emulated: no roof") == 0,
           "emulated: %g '%s' '%s'", r.pct_roof, r.verdict, r.note);
    r = row_of("cpu", NAN, NAN, 10);
    roof_verdict(&rf, &c, &r);
    EXPECT(isnan(r.pct_roof) && !r.verdict[0] && !r.bound[0], "no work: %g", r.pct_roof);
    r = row_of("cpu", 1e9, 1e7, 10);
    snprintf(r.check, sizeof r.check, "fail");
    roof_verdict(&rf, &c, &r);
    EXPECT(isnan(r.pct_roof) && !r.verdict[0], "failed: %g", r.pct_roof);
    r = row_of("cpu", 1e9, 1e7, 10);
    snprintf(r.dtype, sizeof r.dtype, "bf16");
    roof_verdict(&rf, &c, &r);
    EXPECT(isnan(r.pct_roof) && !r.verdict[0], "no bf16 roof: %g", r.pct_roof);
    r = row_of("cpu", 1e9, 1e7, 10);
    roof_verdict(NULL, &c, &r);
    EXPECT(isnan(r.pct_roof) && isnan(r.intensity), "no roofs: %g", r.pct_roof);

    /* the context lines read back to the same roofs */
    char lines[40][512];
    int n = 0;
    roofs_context_lines(&rf, lines, &n, 40);
    roofs back;
    roofs_init(&back);
    int parsed = 0;
    for (int i = 0; i < n; i++) parsed += roofs_parse_line(&back, lines[i]);
    EXPECT(parsed == n && n > 1, "parsed %d of %d", parsed, n);
    EXPECT(back.measured && fabs(back.probe_s - rf.probe_s) < 1e-9, "measured %d", back.measured);
    for (int d = 0; d < ROOF_NDEV; d++) {
        EXPECT(back.dev[d].bw.v == rf.dev[d].bw.v, "dev %d bw %g", d, back.dev[d].bw.v);
        EXPECT(back.dev[d].compute[DTYPE_FP32].v == rf.dev[d].compute[DTYPE_FP32].v, "dev %d", d);
    }
    EXPECT(strcmp(back.dev[ROOF_CPU].compute[DTYPE_FP32].how, "best GEMM") == 0, "how '%s'",
           back.dev[ROOF_CPU].compute[DTYPE_FP32].how);
    EXPECT(back.dev[ROOF_GPU].launch.v == 5 && back.dev[ROOF_CPU].peak[DTYPE_FP32].v == 200,
           "launch %g", back.dev[ROOF_GPU].launch.v);
    EXPECT(back.dev[ROOF_GPU].h2d.v == gpu->h2d.v && back.dev[ROOF_GPU].d2h.v == gpu->d2h.v &&
           back.dev[ROOF_GPU].peak_bw.v == gpu->peak_bw.v, "gpu copies %g %g peak bw %g",
           back.dev[ROOF_GPU].h2d.v, back.dev[ROOF_GPU].d2h.v, back.dev[ROOF_GPU].peak_bw.v);
    roofs off;
    roofs_init(&off);
    snprintf(off.why, sizeof off.why, "--no-roofs");
    n = 0;
    roofs_context_lines(&off, lines, &n, 40);
    EXPECT(n == 1 && strcmp(lines[0], "roofs: not measured (--no-roofs)") == 0, "'%s'", lines[0]);
    TEST_END();
}
