/* tests/harness/energy_gpu_test.c - a GPU's energy through a fake NVML
 * (tests/harness/fake_nvml.c, its path argv[1]): the counter's difference
 * in joules, the power sampled by a thread and integrated, a call that fails
 * mid-measurement and a counter that did not move (no energy, not 0), the
 * device found by PCI bus id and by index, and the reasons when there is no
 * source: no library, no permission, neither call, emulated. Through
 * energy.h's energy_span, the interface the timing loop uses. */
#define _POSIX_C_SOURCE 200809L
#include "energy.h"
#include "timer.h"
#include "testutil.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

enum { FAKE_COUNTER, FAKE_POWER, FAKE_COUNTER_FAIL, FAKE_STUCK, FAKE_POWER_FAIL,
       FAKE_NO_PERMISSION, FAKE_NEITHER };

static void (*set_mode)(int);
static int (*calls)(void);

static void nap_ms(long ms)
{
    struct timespec t = {0, ms * 1000000L};
    nanosleep(&t, NULL);
}

/* A measurement of about ms through the span interface: its joules. */
static double measure(const energy_gpu *g, long ms)
{
    energy_span s;
    energy_span_begin(&s, NULL, g);
    nap_ms(ms);
    return energy_span_end(&s);
}

int main(int argc, char **argv)
{
    if (argc < 2) return 2;
    const char *lib = argv[1];
    void *h = dlopen(lib, RTLD_NOW);
    if (!h) {
        fprintf(stderr, "cannot load %s: %s\n", lib, dlerror());
        return 1;
    }
    void *p = dlsym(h, "fake_nvml_mode"), *q = dlsym(h, "fake_nvml_calls");
    memcpy(&set_mode, &p, sizeof p);
    memcpy(&calls, &q, sizeof q);
    energy_gpu g = {0};
    char line[400];

    /* the counter: opening reads 5000 (-> 5250), begin 5250, end 5500: 0.25 J */
    set_mode(FAKE_COUNTER);
    EXPECT(energy_gpu_open(&g, lib, "00000000:3b:00.0", 7) == 0 && g.ok && g.counter, "counter: %s", g.why);
    double j = measure(&g, 1);
    EXPECT(fabs(j - 0.25) < 1e-12, "counter: %.6f J, want 0.25", j);
    energy_gpu_describe(&g, line, sizeof line);
    EXPECT(strstr(line, "NVML energy counter of GPU Fake H200"), "described: '%s'", line);
    /* by index when there is no bus id; another index is no device */
    EXPECT(energy_gpu_open(&g, lib, "", 0) == 0 && g.counter, "by index: %s", g.why);
    EXPECT(energy_gpu_open(&g, lib, NULL, 1) == -1 && strstr(g.why, "NVML has no device 1 (Not Found)"),
           "index 1: '%s'", g.why);
    EXPECT(energy_gpu_open(&g, lib, "00000000:af:00.0", 0) == -1 &&
           strstr(g.why, "no device at PCI 00000000:af:00.0"), "other bus: '%s'", g.why);

    /* the counter's read at the end fails (the third call): no energy */
    set_mode(FAKE_COUNTER_FAIL);
    EXPECT(energy_gpu_open(&g, lib, NULL, 0) == 0, "%s", g.why);
    j = measure(&g, 1);
    EXPECT(isnan(j), "a failed counter read gave %g J", j);
    /* a counter that did not move is no measurement */
    set_mode(FAKE_STUCK);
    EXPECT(energy_gpu_open(&g, lib, NULL, 0) == 0, "%s", g.why);
    j = measure(&g, 1);
    EXPECT(isnan(j), "a stuck counter gave %g J", j);

    /* no counter: 150 W sampled every ENERGY_GPU_PERIOD_MS; a constant power
     * integrates to 150 W x the span, which lies between the nap and the
     * wall time around begin and end */
    set_mode(FAKE_POWER);
    EXPECT(energy_gpu_open(&g, lib, NULL, 0) == 0 && g.ok && !g.counter, "power: %s", g.why);
    energy_gpu_describe(&g, line, sizeof line);
    EXPECT(strstr(line, "sampled every 10 ms") && strstr(line, "no counter: "
           "nvmlDeviceGetTotalEnergyConsumption: Not Supported"), "described: '%s'", line);
    int before = calls();
    double t0 = timer_now_ms();
    j = measure(&g, 60);
    double wall_s = (timer_now_ms() - t0) / 1e3;
    EXPECT(j >= 150 * 0.060 - 1e-9 && j <= 150 * wall_s + 1e-9, "power: %.4f J over %.4f s at 150 W",
           j, wall_s);
    EXPECT(calls() - before >= 4, "sampled %d times in 60 ms (begin, the thread, end)", calls() - before);
    /* the power's third read (the thread's first) fails: no energy */
    set_mode(FAKE_POWER_FAIL);
    EXPECT(energy_gpu_open(&g, lib, NULL, 0) == 0, "%s", g.why);
    j = measure(&g, 40);
    EXPECT(isnan(j), "a failed power read gave %g J", j);

    /* no source, and why */
    set_mode(FAKE_NEITHER);
    EXPECT(energy_gpu_open(&g, lib, NULL, 0) == -1 && strstr(g.why, "nvmlDeviceGetPowerUsage: Not Supported"),
           "neither: '%s'", g.why);
    EXPECT(isnan(measure(&g, 1)), "no source, no energy");
    set_mode(FAKE_NO_PERMISSION);
    EXPECT(energy_gpu_open(&g, lib, NULL, 0) == -1 && strstr(g.why, "Insufficient Permissions") &&
           strstr(g.why, "may not query"), "no permission: '%s'", g.why);
    EXPECT(energy_gpu_open(&g, "/nonexistent/libnvidia-ml.so.1", NULL, 0) == -1 &&
           strstr(g.why, "no /nonexistent/libnvidia-ml.so.1 ("), "no library: '%s'", g.why);
    energy_gpu_none(&g, "emulated: no energy");
    energy_gpu_describe(&g, line, sizeof line);
    EXPECT(!strcmp(line, "none: emulated: no energy"), "described: '%s'", line);
    energy_gpu_close(&g);
    dlclose(h);
    TEST_END();
}
