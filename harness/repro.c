/* harness/repro.c - the repro builder: a row's whole repro command, written
 * here and nowhere else. */
#define _POSIX_C_SOURCE 200809L
#include "repro.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Appends with snprintf while room is left; *n counts what was asked. */
#define APPEND(buf, cap, n, ...)                                                          \
    do {                                                                                  \
        if (*(n) < (cap)) *(n) += (size_t)snprintf((buf) + *(n), (cap) - *(n), __VA_ARGS__); \
    } while (0)

void repro_run_parts(const repro_run *rr, char *env, size_t envcap, char *extra, size_t extracap)
{
    size_t n = 0;
    extra[0] = env[0] = '\0';
    if (rr->emulated) APPEND(extra, extracap, &n, " --emulate");
    if (rr->device_given) APPEND(extra, extracap, &n, " --device %d", rr->device);
    if (rr->cuda_sync) APPEND(extra, extracap, &n, " --cuda-sync");
    if (rr->steps) APPEND(extra, extracap, &n, " --steps %d", rr->steps); /* the trace's length */
    if (rr->baseline) APPEND(extra, extracap, &n, " --baseline %s", rr->baseline);
    if (rr->devices) APPEND(extra, extracap, &n, " --devices %d", rr->devices);
    if (rr->bucket_mb > 0) APPEND(extra, extracap, &n, " --bucket-mb %g", rr->bucket_mb);
    if (n) memmove(extra, extra + 1, strlen(extra + 1) + 1); /* no leading blank */
    if (!rr->emulated) return;
    /* the emulator's settings re-run the case the same way */
    static const char *const EMU_VARS[] = {"CUDAEMU_DEVICES", "CUDAEMU_ORDER", "CUDAEMU_SEED",
                                           "CUDAEMU_MEM_MB", "CUDAEMU_STACK_KB",
                                           "CUDAEMU_PROGRESS_MS", NULL};
    n = 0;
    for (int i = 0; EMU_VARS[i]; i++) {
        const char *v = getenv(EMU_VARS[i]);
        if (!rr->emu_progress_set && strcmp(EMU_VARS[i], "CUDAEMU_PROGRESS_MS") == 0) continue;
        if (!v || !*v || strlen(v) > 32 || strspn(v, "0123456789abcdefghijklmnopqrstuvwxyz") != strlen(v))
            continue; /* unset, or a value the emulator ignores (and says so) */
        APPEND(env, envcap, &n, "%s%s=%s", n ? " " : "", EMU_VARS[i], v);
    }
}

void repro_case(char *out, size_t cap, const char *env, const char *suite, const char *desc,
                const char *backend, const char *dtype, const char *mode, int threads,
                const char *extra)
{
    int has_env = env && *env, has_extra = extra && *extra;
    snprintf(out, cap, "%s%sbench --suite %s --sizes %s --backend %s%s%s --mode %s --threads %d%s%s",
             has_env ? env : "", has_env ? " " : "", suite, desc, backend, dtype ? " --dtype " : "",
             dtype ? dtype : "", mode, threads, has_extra ? " " : "", has_extra ? extra : "");
}
