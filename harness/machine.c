/* harness/machine.c - machine classes and workload keys (machine.h). */
#include "machine.h"

#include <ctype.h>
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
