/* harness/energy.c - package energy from powercap (energy.h). */
#define _POSIX_C_SOURCE 200809L
#include "energy.h"
#include "test_hooks.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads one number from dir/file. 0, or -1 with errno. */
static int read_num(const char *dir, const char *file, double *v)
{
    char path[400];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    int ok = fscanf(f, "%lf", v) == 1;
    fclose(f);
    if (!ok) errno = EINVAL;
    return ok ? 0 : -1;
}

/* A top-level zone: "intel-rapl:" and digits only (no sub-zone ":M"). */
static int top_zone(const char *n)
{
    if (strncmp(n, "intel-rapl:", 11) != 0 || !n[11]) return 0;
    for (const char *p = n + 11; *p; p++)
        if (*p < '0' || *p > '9') return 0;
    return 1;
}

static int zone_cmp(const void *a, const void *b) { return strcmp(a, b); }

int energy_open(energy_src *e, const char *root)
{
    memset(e, 0, sizeof *e);
    if (!root) root = getenv(HOOK_POWERCAP_ROOT);
    if (!root) root = "/sys/class/powercap";
    DIR *d = opendir(root);
    if (!d) {
        snprintf(e->why, sizeof e->why, "no %s (%s): no RAPL zones here (a VM, or not Linux)", root,
                 strerror(errno));
        return -1;
    }
    char names[ENERGY_MAX_ZONES][64];
    int n = 0;
    for (struct dirent *de; (de = readdir(d)) != NULL && n < ENERGY_MAX_ZONES;)
        if (top_zone(de->d_name) && strlen(de->d_name) < sizeof names[0])
            snprintf(names[n++], sizeof names[0], "%s", de->d_name);
    closedir(d);
    qsort(names, (size_t)n, sizeof names[0], zone_cmp);
    const char *unread = NULL;
    int unread_errno = 0;
    for (int i = 0; i < n; i++) {
        char zdir[300];
        snprintf(zdir, sizeof zdir, "%s/%s", root, names[i]);
        double uj, range;
        if (read_num(zdir, "energy_uj", &uj) || read_num(zdir, "max_energy_range_uj", &range) ||
            !(range > 0)) {
            if (!unread) unread = names[i], unread_errno = errno;
            continue;
        }
        const int k = e->nzones++;
        snprintf(e->dir[k], sizeof e->dir[k], "%s", zdir);
        e->range_uj[k] = range;
        char path[400];
        snprintf(path, sizeof path, "%s/name", e->dir[k]);
        FILE *f = fopen(path, "r");
        if (!f || !fgets(e->name[k], sizeof e->name[k], f)) snprintf(e->name[k], sizeof e->name[k], "%s", names[i]);
        if (f) fclose(f);
        e->name[k][strcspn(e->name[k], "\n")] = '\0';
    }
    if (e->nzones) return 0;
    if (unread)
        snprintf(e->why, sizeof e->why, "%s/%s/energy_uj unreadable (%s)%s", root, unread,
                 strerror(unread_errno), unread_errno == EACCES ? ": root only since Linux 5.10" : "");
    else
        snprintf(e->why, sizeof e->why, "no RAPL package zone (intel-rapl:N) in %s", root);
    return -1;
}

const energy_src *energy_cpu(void)
{
    static energy_src src;
    static int opened;
    if (!opened) {
        energy_open(&src, NULL);
        opened = 1;
    }
    return &src;
}

int energy_read(const energy_src *e, double *uj)
{
    for (int i = 0; i < e->nzones; i++)
        if (read_num(e->dir[i], "energy_uj", &uj[i])) return -1;
    return e->nzones ? 0 : -1;
}

double energy_between_j(const energy_src *e, const double *a, const double *b)
{
    double uj = 0;
    for (int i = 0; i < e->nzones; i++)
        uj += b[i] >= a[i] ? b[i] - a[i] : b[i] + e->range_uj[i] - a[i];
    return uj > 0 ? uj / 1e6 : NAN;
}

int energy_span_begin(energy_span *s, const energy_src *cpu, const energy_gpu *gpu)
{
    memset(s, 0, sizeof *s);
    s->cpu = cpu;
    s->gpu = cpu ? NULL : gpu;
    if (cpu) s->ok = cpu->nzones && energy_read(cpu, s->a) == 0;
    else if (gpu) s->ok = energy_gpu_begin(gpu, &s->g) == 0;
    return s->ok ? 0 : -1;
}

double energy_span_end(energy_span *s)
{
    double j = NAN;
    if (s->cpu && s->ok) {
        double b[ENERGY_MAX_ZONES];
        if (energy_read(s->cpu, b) == 0) j = energy_between_j(s->cpu, s->a, b);
    } else if (s->gpu && s->ok) {
        j = energy_gpu_end(s->gpu, &s->g);
    }
    s->ok = 0;
    return j;
}

void energy_describe(const energy_src *e, char *out, size_t cap)
{
    if (!e->nzones) {
        snprintf(out, cap, "none: %s", e->why);
        return;
    }
    size_t u = (size_t)snprintf(out, cap, "powercap RAPL, the package%s (", e->nzones > 1 ? "s" : "");
    for (int i = 0; i < e->nzones && u < cap; i++)
        u += (size_t)snprintf(out + u, cap - u, "%s%s", i ? ", " : "", e->name[i]);
    if (u < cap) snprintf(out + u, cap - u, "): everything they ran while a case was timed");
}
