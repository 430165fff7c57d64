/* harness/repro.c - the repro builder: a row's whole repro command, written
 * here and nowhere else. */
#define _POSIX_C_SOURCE 200809L
#include "repro.h"
#include "gpu_alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

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
    if (rr->workers) APPEND(extra, extracap, &n, " --workers %d", rr->workers);
    if (n) memmove(extra, extra + 1, strlen(extra + 1) + 1); /* no leading blank */
    if (!rr->emulated) return;
    /* every emulator setting in effect re-runs the case the same way (its
     * thread order, seed, devices, watchdog...): all CUDAEMU_* variables and
     * CUDA_VISIBLE_DEVICES, sorted by name so that two runs write the same
     * repro */
    const char *vars[64];
    int nv = 0;
    for (char **e = environ; e && *e && nv < 64; e++)
        if (strncmp(*e, "CUDAEMU_", 8) == 0 || strncmp(*e, "CUDA_VISIBLE_DEVICES=", 21) == 0)
            vars[nv++] = *e;
    qsort(vars, (size_t)nv, sizeof vars[0], cmp_str);
    n = 0;
    for (int i = 0; i < nv; i++) {
        const char *eq = strchr(vars[i], '='), *v = eq ? eq + 1 : "";
        size_t name = eq ? (size_t)(eq - vars[i]) : strlen(vars[i]);
        if (!rr->emu_progress_set && strncmp(vars[i], "CUDAEMU_PROGRESS_MS=", 20) == 0) continue;
        if (name > 40 || strspn(vars[i], "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != name)
            continue; /* not a name a shell takes as is */
        if (!*v || strlen(v) > 32 || strspn(v, "0123456789abcdefghijklmnopqrstuvwxyz.,") != strlen(v))
            continue; /* unset, or a value the emulator ignores (and says so) */
        APPEND(env, envcap, &n, "%s%.*s=%s", n ? " " : "", (int)name, vars[i], v);
    }
}

void repro_launcher(char *repro, size_t cap, int replicas, const char *comm)
{
    if (replicas <= 1 || (strcmp(comm, "mpi") != 0 && strcmp(comm, "nccl-mpi") != 0)) return;
    char *at = strstr(repro, "bench --suite ");
    if (!at) return;
    char launcher[48];
    int w = snprintf(launcher, sizeof launcher, "%s %d ",
                     getenv("SLURM_STEP_NUM_TASKS") ? "srun -n" : "mpirun -np", replicas);
    size_t len = strlen(repro);
    if (w <= 0 || len + (size_t)w >= cap) return; /* no room: the one-replica command stays */
    memmove(at + w, at, strlen(at) + 1);
    memcpy(at, launcher, (size_t)w);
}

void repro_case(char *out, size_t cap, const char *env, const char *suite, const char *desc,
                const char *backend, const char *dtype, const char *mode, int threads,
                const char *extra)
{
    int has_env = env && *env, has_extra = extra && *extra;
    size_t base;
    /* a GPU mode under another allocator: `resident+per-step` is
     * `--mode resident --alloc per-step` (gpu_alloc.h) */
    const gpu_alloc *a = gpu_alloc_of_mode(mode, &base);
    snprintf(out, cap, "%s%sbench --suite %s --sizes %s --backend %s%s%s --mode %.*s%s%s "
             "--threads %d%s%s",
             has_env ? env : "", has_env ? " " : "", suite, desc, backend, dtype ? " --dtype " : "",
             dtype ? dtype : "", (int)base, mode, a ? " --alloc " : "", a ? a->name : "", threads,
             has_extra ? " " : "", has_extra ? extra : "");
}
