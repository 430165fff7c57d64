/* harness/env.c - CPU, memory, compiler, OpenBLAS and OpenMP facts. */
#define _GNU_SOURCE
#include "env.h"
#include "energy.h"
#include "test_hooks.h"

#if BENCH_HAVE_BLAS
#include <cblas.h>
#endif
#include <math.h>
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#ifndef BENCH_VERSION
#define BENCH_VERSION "0.0.0"
#endif
#include "git_rev.h"   /* generated at build time: BENCH_GIT_REV */

/* The first line of a small file under /sys or /proc ("" when unreadable). */
static void read_small(const char *path, char *out, size_t cap)
{
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f) return;
    if (!fgets(out, (int)cap, f)) out[0] = '\0';
    fclose(f);
    out[strcspn(out, "\n")] = '\0';
}

double env_memory_bytes(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
    double phys = (pages > 0 && size > 0) ? (double)pages * (double)size : 0.0;
    const char *t = getenv(HOOK_MEMORY_BYTES); /* a test's machine */
    if (t && strtod(t, NULL) > 0) return strtod(t, NULL);
    char buf[64];
    /* a batch job's or container's cgroup may allow less than the machine
     * has: v2's memory.max ("max" or bytes), v1's memory.limit_in_bytes (a
     * huge number when unlimited) */
    static const char *const LIMITS[] = {"/sys/fs/cgroup/memory.max",
                                         "/sys/fs/cgroup/memory/memory.limit_in_bytes"};
    for (int i = 0; i < 2; i++) {
        read_small(LIMITS[i], buf, sizeof buf);
        char *end;
        double lim = strtod(buf, &end);
        if (buf[0] && end != buf && *end == '\0' && lim > 0 && (phys == 0 || lim < phys)) phys = lim;
    }
    return phys;
}

int env_usable_cpus(void)
{
    cpu_set_t set;
    int n = (int)sysconf(_SC_NPROCESSORS_ONLN);
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) n = CPU_COUNT(&set);
    char buf[64];
    long quota = 0, period = 0;
    /* cgroup v2 "quota period" (or "max period"): CPUs' worth of time */
    read_small("/sys/fs/cgroup/cpu.max", buf, sizeof buf);
    if (sscanf(buf, "%ld %ld", &quota, &period) == 2 && quota > 0 && period > 0) {
        int q = (int)ceil((double)quota / (double)period);
        if (q >= 1 && q < n) n = q;
    }
    return n > 0 ? n : 1;
}

double env_rss_bytes(void)
{
    char buf[128];
    long size = 0, rss = 0;
    read_small("/proc/self/statm", buf, sizeof buf);
    if (sscanf(buf, "%ld %ld", &size, &rss) != 2) return 0;
    return (double)rss * (double)sysconf(_SC_PAGESIZE);
}

static void cpu_from_proc(env_info *e)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[8192];
    int have_model = 0, have_flags = 0;
    snprintf(e->cpu, sizeof e->cpu, "unknown CPU");
    if (!f) return;
    while (fgets(line, sizeof line, f) && !(have_model && have_flags)) {
        char *colon = strchr(line, ':');
        if (!colon) continue;
        char *val = colon + 1;
        while (*val == ' ') val++;
        val[strcspn(val, "\n")] = '\0';
        if (!have_model && strncmp(line, "model name", 10) == 0) {
            snprintf(e->cpu, sizeof e->cpu, "%s", val);
            have_model = 1;
        } else if (!have_flags && strncmp(line, "flags", 5) == 0) {
            static const char *const want[] = {"sse4_2", "avx", "avx2", "fma", "avx512f",
                                               "avx512bw", "avx512vl", "avx512_bf16",
                                               "avx512_fp16", "amx_tile", "amx_bf16",
                                               "amx_fp16"};
            size_t used = 0;
            for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
                char pat[32];
                snprintf(pat, sizeof pat, " %s ", want[i]);
                char padded[8200];
                snprintf(padded, sizeof padded, " %s ", val);
                if (strstr(padded, pat) && used + strlen(want[i]) + 2 < sizeof e->simd)
                    used += (size_t)snprintf(e->simd + used, sizeof e->simd - used, "%s%s",
                                             used ? " " : "", want[i]);
            }
            have_flags = 1;
        }
    }
    fclose(f);
}

void env_collect(env_info *e)
{
    memset(e, 0, sizeof *e);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(e->utc, sizeof e->utc, "%Y-%m-%dT%H:%M:%SZ", &tm);
    snprintf(e->version, sizeof e->version, "%s", BENCH_VERSION);
    snprintf(e->git, sizeof e->git, "%s", BENCH_GIT_REV);
    struct utsname u;
    if (uname(&u) == 0) {
        snprintf(e->host, sizeof e->host, "%s", u.nodename);
        snprintf(e->os, sizeof e->os, "%s %s %s", u.sysname, u.release, u.machine);
    }
    cpu_from_proc(e);
    e->cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
    e->usable_cpus = env_usable_cpus();
    e->memory_gb = env_memory_bytes() / (1024.0 * 1024.0 * 1024.0);
    long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (llc <= 0) llc = sysconf(_SC_LEVEL2_CACHE_SIZE);
    e->llc_bytes = llc > 0 ? (double)llc : 32.0 * 1024 * 1024;
#if defined(__clang__)
    snprintf(e->compiler, sizeof e->compiler, "clang %s", __clang_version__);
#elif defined(__GNUC__)
    snprintf(e->compiler, sizeof e->compiler, "gcc %s", __VERSION__);
#else
    snprintf(e->compiler, sizeof e->compiler, "unknown");
#endif
#if BENCH_HAVE_BLAS
    const char *cfg = openblas_get_config();
    snprintf(e->openblas, sizeof e->openblas, "%s", cfg ? cfg : "unknown");
    e->openblas[strcspn(e->openblas, "\n")] = '\0';
    const char *core = openblas_get_corename();
    snprintf(e->openblas_core, sizeof e->openblas_core, "%s", core ? core : "unknown");
    e->openblas_threads = openblas_get_num_threads();
#else
    snprintf(e->openblas, sizeof e->openblas, "none: not found at build time");
    snprintf(e->openblas_core, sizeof e->openblas_core, "none");
    e->openblas_threads = 0;
#endif
    e->omp_threads = omp_get_max_threads();
}

void env_context_lines(const env_info *e, const char *command,
                       char (*lines)[ENV_LINE], int *n, int max)
{
#define ADD(...)                                                   \
    do {                                                           \
        if (*n < max) snprintf(lines[(*n)++], ENV_LINE, __VA_ARGS__); \
    } while (0)
    ADD("utc: %s", e->utc);
    ADD("bench_version: %s", e->version);
    ADD("git: %s", e->git);
    ADD("host: %s", e->host);
    ADD("os: %s", e->os);
    ADD("cpu: %s", e->cpu);
    ADD("cores: %d", e->cores);
    ADD("usable_cpus: %d", e->usable_cpus);
    ADD("simd: %s", e->simd);
    ADD("memory_gb: %.1f", e->memory_gb);
    ADD("compiler: %s", e->compiler);
    ADD("openblas: %s", e->openblas);
    ADD("openblas_core: %s", e->openblas_core);
    ADD("openblas_threads: %d", e->openblas_threads);
    ADD("omp_threads: %d", e->omp_threads);
    char energy[400];
    energy_describe(energy_cpu(), energy, sizeof energy);
    ADD("energy-cpu: %s", energy);
    if (command) ADD("command: %s", command);
#undef ADD
}

int env_threads_check(int max, char *err, size_t errcap)
{
    static const char *const VARS[] = {"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", NULL};
    for (int i = 0; VARS[i]; i++) {
        const char *v = getenv(VARS[i]);
        if (!v) continue;
        if (!*v || strlen(v) > 64) { /* libgomp warns about an empty one, and goes on */
            snprintf(err, errcap, "bench: %s='%.64s%s': each thread count must be from 1 to %d",
                     VARS[i], v, strlen(v) > 64 ? "..." : "", max);
            return 2;
        }
        /* every entry of a nesting list is capped; no sign, space or empty entry */
        int list = i == 0, bad = 0;
        for (const char *p = v;;) {
            size_t d = strspn(p, "0123456789");
            long n = d && d < 6 ? strtol(p, NULL, 10) : 0;
            if (d == 0 || n < 1 || n > max) bad = 1;
            p += d;
            if (bad || !*p) break;
            if (*p != ',' || !list || !p[1]) {
                bad = 1;
                break;
            }
            p++;
        }
        if (bad) {
            snprintf(err, errcap, "bench: %s='%s': %s from 1 to %d", VARS[i], v,
                     list ? "each thread count (a comma list for nesting) must be"
                          : "the thread count must be one number", max);
            return 2;
        }
    }
    return 0;
}
