/* tests/harness/repro_test.c - the repro builder (harness/repro.c): the whole repro
 * command of a row, the run-wide options and the emulator's settings. */
#define _POSIX_C_SOURCE 200809L
#include "repro.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fails;

static void expect(const char *what, const char *got, const char *want)
{
    if (strcmp(got, want) != 0) {
        fprintf(stderr, "FAIL %s:\n  got  '%s'\n  want '%s'\n", what, got, want);
        fails++;
    }
}

int main(void)
{
    char out[512], env[256], extra[160];
    repro_case(out, sizeof out, NULL, "gemm", "64x64x64", "cpu-omp", NULL, "host", 2, NULL);
    expect("bare", out, "bench --suite gemm --sizes 64x64x64 --backend cpu-omp --mode host --threads 2");
    repro_case(out, sizeof out, "CUDAEMU_SEED=7", "conv", "mb1ic3ih8oc4kh3", "cuda-lib", "bf16",
               "resident", 4, "--emulate --steps 3");
    expect("full", out, "CUDAEMU_SEED=7 bench --suite conv --sizes mb1ic3ih8oc4kh3 --backend "
           "cuda-lib --dtype bf16 --mode resident --threads 4 --emulate --steps 3");
    /* a GPU mode under another allocator: its mode and --alloc */
    repro_case(out, sizeof out, NULL, "train", "mlp-b8", "cuda", NULL, "prefetch-2+per-step", 2, NULL);
    expect("allocator", out, "bench --suite train --sizes mlp-b8 --backend cuda --mode prefetch-2 "
           "--alloc per-step --threads 2");

    repro_run none = {.device = 0};
    repro_run_parts(&none, env, sizeof env, extra, sizeof extra);
    expect("no extra", extra, "");
    expect("no env", env, "");

    if (setenv("CUDAEMU_SEED", "42", 1) || setenv("CUDAEMU_ORDER", "BAD!", 1) ||
        setenv("CUDAEMU_PROGRESS_MS", "0", 1) || unsetenv("CUDAEMU_DEVICES") ||
        unsetenv("CUDAEMU_PAGEABLE_LATE")) {   /* ctest sets it for every test */
        perror("setenv");
        return 1;
    }
    repro_run all = {.emulated = 1, .device_given = 1, .device = 1, .cuda_sync = 1, .steps = 5,
                     .baseline = "cpu-naive", .devices = 2, .bucket_mb = 2.5};
    repro_run_parts(&all, env, sizeof env, extra, sizeof extra);
    expect("every extra", extra, "--emulate --device 1 --cuda-sync --steps 5 --baseline cpu-naive "
           "--devices 2 --bucket-mb 2.5");
    /* an ignored value and bench's own CUDAEMU_PROGRESS_MS stay out */
    expect("emulator env", env, "CUDAEMU_SEED=42");
    all.emu_progress_set = 1;
    repro_run_parts(&all, env, sizeof env, extra, sizeof extra);
    expect("user's progress", env, "CUDAEMU_PROGRESS_MS=0 CUDAEMU_SEED=42"); /* sorted */
    all.emulated = 0;
    repro_run_parts(&all, env, sizeof env, extra, sizeof extra);
    expect("no emulator, no env", env, "");
    if (fails) return 1;
    printf("repro: ok\n");
    return 0;
}
