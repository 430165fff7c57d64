/* harness/machine.c - machine classes and workload keys (machine.h). */
#include "machine.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Appends name's words (len bytes) to out: lower case, letters and digits,
 * one '-' between words; the trademark words "r" and "tm" ("Intel(R)
 * Xeon(R)") left out. */
static void slug_append(char *out, size_t cap, const char *name, size_t len)
{
    size_t n = strlen(out);
    for (size_t i = 0; i < len;) {
        while (i < len && !isalnum((unsigned char)name[i])) i++;
        size_t w = i;
        while (w < len && isalnum((unsigned char)name[w])) w++;
        if (w == i) break;
        const int tm = (w - i == 1 && tolower((unsigned char)name[i]) == 'r') ||
                       (w - i == 2 && strncasecmp(name + i, "tm", 2) == 0);
        for (size_t k = i; !tm && k < w && n + 2 < cap; k++) {
            if (k == i && n > 0 && out[n - 1] != '_') out[n++] = '-';
            out[n++] = (char)tolower((unsigned char)name[k]);
        }
        out[n] = '\0';
        i = w;
    }
}

void machine_class(const char *cpu, const char *const *ctx, int n, char *out, size_t cap)
{
    if (!cap) return;
    out[0] = '\0';
    if (!cpu) cpu = "unknown cpu";
    slug_append(out, cap, cpu, strlen(cpu));
    if (!out[0]) snprintf(out, cap, "unknown-cpu");
    const char *names[16];
    size_t lens[16];
    int counts[16], ng = 0;
    for (int i = 0; i < n; i++) {
        const char *c = ctx[i];
        if (strncmp(c, "gpu: ", 5) != 0 || !isdigit((unsigned char)c[5])) continue;
        const char *nm = c + 5;
        while (isdigit((unsigned char)*nm)) nm++;
        while (*nm == ' ') nm++;
        const char *end = strstr(nm, ", cc ");
        size_t len = end ? (size_t)(end - nm) : strlen(nm);
        int g = 0;
        while (g < ng && !(lens[g] == len && strncmp(names[g], nm, len) == 0)) g++;
        if (g == ng && ng < 16) names[ng] = nm, lens[ng] = len, counts[ng++] = 0;
        if (g < ng) counts[g]++;
    }
    for (int g = 0; g < ng; g++) {
        size_t u = strlen(out);
        if (u + 2 < cap) out[u] = '_', out[u + 1] = '\0';
        slug_append(out, cap, names[g], lens[g]);
        u = strlen(out);
        if (counts[g] > 1) snprintf(out + u, cap - u, "-x%d", counts[g]);
    }
}

void machine_workload(const char *suite, int version, const char *shape, const char *dtype,
                      const char *mode, int threads, int replicas, char *out, size_t cap)
{
    snprintf(out, cap, "%s@%d/%s/%s/%s/t%d/x%d", suite, version, shape, dtype, mode, threads,
             replicas < 1 ? 1 : replicas);
}

int machine_name_ok(const char *name)
{
    size_t n = strlen(name);
    if (n < 1 || n > 64 || name[0] == '-' || name[0] == '.') return 0;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)name[i]) && !strchr("._-", name[i])) return 0;
    return 1;
}

int machine_kv_parse(const char *s, const char *opt, double lo, int lo_open, double hi,
                     machine_kv *kv, int *n, int max, char *err, size_t cap)
{
    for (const char *q = s;;) {
        const char *c = strchr(q, ',');
        size_t len = c ? (size_t)(c - q) : strlen(q);
        char item[MACHINE_KV_NAME + 64];
        if (len >= sizeof item) {
            snprintf(err, cap, "bench: %s item '%.60s...' is longer than %zu characters (the limit)",
                     opt, q, sizeof item - 1);
            return 2;
        }
        memcpy(item, q, len);
        item[len] = '\0';
        char *eq = strrchr(item, '='), *end = NULL;
        double v = NAN;
        if (eq) {
            *eq = '\0';
            errno = 0;
            v = strtod(eq + 1, &end);
            if (errno || end == eq + 1 || *end) v = NAN;
        }
        if (!eq || !item[0] || strlen(item) >= MACHINE_KV_NAME || !isfinite(v) ||
            (lo_open ? !(v > lo) : !(v >= lo)) || v > hi) {
            if (eq) *eq = '=';
            snprintf(err, cap, "bench: bad %s item '%.80s' (want NAME=NUMBER, the number %s %g and at "
                     "most %g, NAME 1 to %d characters)", opt, item, lo_open ? "above" : "at least", lo,
                     hi, MACHINE_KV_NAME - 1);
            return 2;
        }
        for (int i = 0; i < *n; i++)
            if (strcmp(kv[i].name, item) == 0) {
                snprintf(err, cap, "bench: %s names '%.80s' twice", opt, item);
                return 2;
            }
        if (*n >= max) {
            snprintf(err, cap, "bench: %s has more than %d items (the limit)", opt, max);
            return 2;
        }
        snprintf(kv[*n].name, sizeof kv[*n].name, "%s", item);
        kv[(*n)++].v = v;
        if (!c) return 0;
        q = c + 1;
    }
}
