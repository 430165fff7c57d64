/* tests/harness/fake_nvml.c - a fake libnvidia-ml for unit.harness.energy_gpu:
 * the NVML calls harness/energy_gpu.c loads, with numbers a test can check.
 * fake_nvml_mode(m) picks the behaviour and resets the counters:
 *   FAKE_COUNTER     the energy counter starts at 5000 mJ and gains 250 mJ
 *                    at every read;
 *   FAKE_POWER       no counter (NOT_SUPPORTED); power a constant 150 W;
 *   FAKE_COUNTER_FAIL the counter's third read fails (GPU_IS_LOST);
 *   FAKE_STUCK       a counter that never moves;
 *   FAKE_POWER_FAIL  no counter; the power's third read fails;
 *   FAKE_NO_PERMISSION nvmlInit_v2 refuses;
 *   FAKE_NEITHER     neither call is supported.
 * fake_nvml_calls() counts the power reads (the sampling thread's too). */
#include <stdio.h>
#include <string.h>

enum { FAKE_COUNTER, FAKE_POWER, FAKE_COUNTER_FAIL, FAKE_STUCK, FAKE_POWER_FAIL,
       FAKE_NO_PERMISSION, FAKE_NEITHER };
enum { OK = 0, NOT_SUPPORTED = 3, NO_PERMISSION = 4, NOT_FOUND = 6, GPU_IS_LOST = 15 };

static int mode, energy_reads, power_reads;
static unsigned long long mj;
static int the_device; /* its address is the handle */

void fake_nvml_mode(int m)
{
    mode = m;
    energy_reads = power_reads = 0;
    mj = 5000;
}
int fake_nvml_calls(void) { return __atomic_load_n(&power_reads, __ATOMIC_SEQ_CST); }

int nvmlInit_v2(void) { return mode == FAKE_NO_PERMISSION ? NO_PERMISSION : OK; }
int nvmlShutdown(void) { return OK; }

const char *nvmlErrorString(int rc)
{
    return rc == NOT_SUPPORTED ? "Not Supported" : rc == NO_PERMISSION ? "Insufficient Permissions"
         : rc == NOT_FOUND ? "Not Found" : rc == GPU_IS_LOST ? "GPU is lost" : "Unknown Error";
}

int nvmlDeviceGetHandleByPciBusId_v2(const char *pci, void **dev)
{
    if (strcmp(pci, "00000000:3b:00.0") != 0) return NOT_FOUND;
    *dev = &the_device;
    return OK;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned index, void **dev)
{
    if (index != 0) return NOT_FOUND;
    *dev = &the_device;
    return OK;
}

int nvmlDeviceGetName(void *dev, char *name, unsigned len)
{
    (void)dev;
    snprintf(name, len, "Fake H200");
    return OK;
}

int nvmlDeviceGetTotalEnergyConsumption(void *dev, unsigned long long *e)
{
    (void)dev;
    if (mode == FAKE_POWER || mode == FAKE_POWER_FAIL || mode == FAKE_NEITHER) return NOT_SUPPORTED;
    if (mode == FAKE_COUNTER_FAIL && ++energy_reads == 3) return GPU_IS_LOST;
    *e = mj;
    if (mode != FAKE_STUCK) mj += 250;
    return OK;
}

int nvmlDeviceGetPowerUsage(void *dev, unsigned *mw)
{
    (void)dev;
    if (mode == FAKE_NEITHER) return NOT_SUPPORTED;
    int n = __atomic_add_fetch(&power_reads, 1, __ATOMIC_SEQ_CST);
    if (mode == FAKE_POWER_FAIL && n == 3) return GPU_IS_LOST;
    *mw = 150000;
    return OK;
}
