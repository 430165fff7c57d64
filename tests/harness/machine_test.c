/* tests/harness/machine_test.c - machine classes (CPU model and GPU names as
 * a file name), workload keys and --name's rule. */
#include "machine.h"
#include "testutil.h"

#include <string.h>

static void cls(const char *cpu, const char *const *ctx, int n, const char *want)
{
    char out[256];
    machine_class(cpu, ctx, n, out, sizeof out);
    EXPECT(strcmp(out, want) == 0, "class of '%s': '%s', want '%s'", cpu ? cpu : "(null)", out, want);
}

int main(void)
{
    cls("Intel(R) Xeon(R) Processor", NULL, 0, "intel-xeon-processor");
    cls("AMD EPYC", NULL, 0, "amd-epyc");
    cls("  Intel(TM) Core(tm) i9-13900K  ", NULL, 0, "intel-core-i9-13900k");
    cls(NULL, NULL, 0, "unknown-cpu");
    cls("(R)", NULL, 0, "unknown-cpu");
    /* GPUs: each distinct name once, a count past one; other lines ignored */
    const char *ctx[] = {"cpu: AMD EPYC 9654 96-Core Processor",
                         "gpu: 0 NVIDIA H100 80GB HBM3, cc 9.0, 132 SMs, 79.1 GiB",
                         "gpu_layer: cuda",
                         "gpu: 1 NVIDIA H100 80GB HBM3, cc 9.0, 132 SMs, 79.1 GiB",
                         "gpu: 2 NVIDIA A100-SXM4-40GB, cc 8.0, 108 SMs, 39.4 GiB",
                         "gpu: none usable: cudaErrorNoDevice (no CUDA-capable device is detected)"};
    cls("AMD EPYC 9654 96-Core Processor", ctx, 6,
        "amd-epyc-9654-96-core-processor_nvidia-h100-80gb-hbm3-x2_nvidia-a100-sxm4-40gb");
    cls("AMD EPYC", ctx + 5, 1, "amd-epyc");   /* no usable GPU: the CPU alone */
    /* a tiny buffer: cut, still terminated */
    char small[8];
    machine_class("Intel(R) Xeon(R) Processor", NULL, 0, small, sizeof small);
    EXPECT(strlen(small) < sizeof small && strncmp(small, "intel-x", 7) == 0, "cut: '%s'", small);

    char key[256];
    machine_workload("matmul", 1, "512x512x512", "bf16", "host", 2, 1, key, sizeof key);
    EXPECT(strcmp(key, "matmul@1/512x512x512/bf16/host/t2/x1") == 0, "key '%s'", key);
    machine_workload("train", 3, "cnn-b64", "fp32", "ddp", 1, 0, key, sizeof key);
    EXPECT(strcmp(key, "train@3/cnn-b64/fp32/ddp/t1/x1") == 0, "replicas 0 reads 1: '%s'", key);

    EXPECT(machine_name_ok("lab-a100_2.node"), "a plain name");
    EXPECT(!machine_name_ok(""), "empty");
    EXPECT(!machine_name_ok("-x"), "a leading -");
    EXPECT(!machine_name_ok(".hidden"), "a leading .");
    EXPECT(!machine_name_ok("a b"), "a space");
    EXPECT(!machine_name_ok("a/b"), "a slash");
    char longname[70];
    memset(longname, 'a', 65);
    longname[65] = '\0';
    EXPECT(!machine_name_ok(longname), "65 characters");
    longname[64] = '\0';
    EXPECT(machine_name_ok(longname), "64 characters");

    /* NAME=NUMBER lists (--price, --weights): split at the last '=', appended */
    static machine_kv kv[4];
    int n = 0;
    char err[300];
    EXPECT(machine_kv_parse("vm/a=b=1.5,m2=2", "--price", 0, 1, 10, kv, &n, 4, err, sizeof err) == 0 &&
           n == 2 && !strcmp(kv[0].name, "vm/a=b") && kv[0].v == 1.5 && kv[1].v == 2, "%s", err);
    EXPECT(machine_kv_parse("m3=10", "--price", 0, 1, 10, kv, &n, 4, err, sizeof err) == 0 && n == 3,
           "appended, at the limit: %s", err);
    EXPECT(machine_kv_parse("m2=3", "--price", 0, 1, 10, kv, &n, 4, err, sizeof err) == 2 &&
           strstr(err, "--price names 'm2' twice"), "a name again: '%s'", err);
    EXPECT(machine_kv_parse("m4=0", "--price", 0, 1, 10, kv, &n, 4, err, sizeof err) == 2 &&
           strstr(err, "bad --price item 'm4=0'"), "0 with an open bound: '%s'", err);
    EXPECT(machine_kv_parse("conv=0", "--weights", 0, 0, 10, kv, &n, 4, err, sizeof err) == 0 && n == 4,
           "0 with a closed bound: %s", err);
    const char *bad[] = {"m5", "=1", "m5=", "m5=1x", "m5=nan", "m5=inf", "m5=11", "m5=1,"};
    for (int i = 0; i < 8; i++) {
        int m = 0;
        EXPECT(machine_kv_parse(bad[i], "--price", 0, 1, 10, kv, &m, 4, err, sizeof err) == 2,
               "'%s' accepted", bad[i]);
    }
    n = 4;
    EXPECT(machine_kv_parse("m6=1", "--price", 0, 1, 10, kv, &n, 4, err, sizeof err) == 2 &&
           strstr(err, "more than 4 items"), "over the limit: '%s'", err);
    TEST_END();
}
