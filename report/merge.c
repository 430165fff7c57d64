/* report/merge.c - the comparison of a merge folder's machines (see merge.h). */
#include "merge.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const MERGE_FIELD[MERGE_NFIELDS] = {"suite", "version", "shape", "dtype", "mode",
                                                "threads", "replicas"};

int merge_is(const rundata *rd) { return rd_context(rd, "merged") != NULL; }

void merge_row_machine(const rundata *rd, int row, char *out, size_t cap)
{
    const char *m = rd_str(rd, row, COL_MACHINE), *host = rd_context(rd, "host"),
               *cpu = rd_context(rd, "cpu");
    if (!*m) m = rd_context(rd, "machine");
    if (m && *m) snprintf(out, cap, "%s", m);
    else snprintf(out, cap, "%s/%s", host ? host : "unknown-host", cpu ? cpu : "unknown cpu");
}

int merge_machine_index(const merge_machines *m, const char *name)
{
    for (int i = 0; i < m->n; i++)
        if (strcmp(m->name[i], name) == 0) return i;
    return -1;
}

static void add_machine(merge_machines *m, const char *name)
{
    if (*name && merge_machine_index(m, name) < 0 && m->n < MERGE_MAX_INPUTS)
        snprintf(m->name[m->n++], MERGE_NAME_MAX, "%s", name);
}

void merge_machines_of(const rundata *rd, merge_machines *m)
{
    char key[32];
    memset(m, 0, sizeof *m);
    for (int k = 1; k <= MERGE_MAX_INPUTS; k++) {
        snprintf(key, sizeof key, "input-%d-machine", k);
        const char *v = rd_context(rd, key);
        if (v) add_machine(m, v);
    }
    for (int i = 0; i < rd_nrows(rd); i++) add_machine(m, rd_str(rd, i, COL_MACHINE));
    const char *ref = rd_context(rd, "reference");
    m->ref = ref && merge_machine_index(m, ref) >= 0 ? merge_machine_index(m, ref) : 0;
}

const char *merge_input_ctx(const rundata *rd, const merge_machines *m, int k, const char *key)
{
    char name[64];
    for (int i = 1; i <= MERGE_MAX_INPUTS; i++) {
        snprintf(name, sizeof name, "input-%d-machine", i);
        const char *v = rd_context(rd, name);
        if (!v || strcmp(v, m->name[k]) != 0) continue;
        snprintf(name, sizeof name, "input-%d%s%s", i, *key ? "-" : "", key);
        return rd_context(rd, name);
    }
    return NULL;
}

int merge_comparable(const rundata *rd, int row)
{
    return rd_str(rd, row, COL_WORKLOAD)[0] && rd_is_timing(rd, row) && rd_num(rd, row, COL_MEDIAN_MS) > 0;
}

int merge_lines(const rundata *rd, const merge_machines *m, const char *suite, merge_line **out)
{
    int n = 0, cap = 0;
    merge_line *l = NULL;
    char mach[MERGE_NAME_MAX];
    for (int r = 0; r < rd_nrows(rd); r++) {
        if (!rd_is(rd, r, COL_SUITE, suite) || !merge_comparable(rd, r)) continue;
        merge_row_machine(rd, r, mach, sizeof mach);
        int k = merge_machine_index(m, mach);
        if (k < 0) continue;
        const char *w = rd_str(rd, r, COL_WORKLOAD), *dev = rd_is_gpu(rd, r) ? "gpu" : "cpu";
        int i = 0;
        while (i < n && !(strcmp(l[i].workload, w) == 0 && strcmp(l[i].dev, dev) == 0)) i++;
        if (i == n) {
            if (n == cap) {
                merge_line *g = realloc(l, sizeof *l * (size_t)(cap = cap ? 2 * cap : 16));
                if (!g) {
                    free(l);
                    return -1;
                }
                l = g;
            }
            l[n].workload = w;
            l[n].dev = dev;
            for (int j = 0; j < MERGE_MAX_INPUTS; j++) l[n].best[j] = -1;
            n++;
        }
        int b = l[i].best[k];
        if (b < 0 || rd_num(rd, r, COL_MEDIAN_MS) < rd_num(rd, b, COL_MEDIAN_MS)) l[i].best[k] = r;
    }
    *out = l;
    return n;
}

int merge_line_complete(const merge_line *l, int nmach)
{
    for (int k = 0; k < nmach; k++)
        if (l->best[k] < 0) return 0;
    return 1;
}

double merge_ratio(const rundata *rd, const merge_machines *m, const merge_line *l, int k)
{
    int a = l->best[m->ref], b = l->best[k];
    if (a < 0 || b < 0) return NAN;
    return rd_num(rd, a, COL_MEDIAN_MS) / rd_num(rd, b, COL_MEDIAN_MS);
}

double merge_geomean(const rundata *rd, const merge_machines *m, const merge_line *lines, int n,
                     const char *dev, int k, int *count)
{
    double s = 0;
    *count = 0;
    for (int i = 0; i < n; i++) {
        if (strcmp(lines[i].dev, dev) != 0 || !merge_line_complete(&lines[i], m->n)) continue;
        s += log(merge_ratio(rd, m, &lines[i], k));
        (*count)++;
    }
    return *count ? exp(s / *count) : NAN;
}

int merge_split(const char *key, char *buf, size_t cap, const char *f[MERGE_NFIELDS])
{
    if (snprintf(buf, cap, "%s", key) >= (int)cap) return -1;
    char *at = strchr(buf, '@'), *slash[4];
    if (!at) return -1;
    *at = '\0';
    f[0] = buf;
    char *ver = at + 1, *first = strchr(ver, '/');
    if (!first) return -1;
    *first = '\0';
    f[1] = ver;
    for (int i = 0; i < 4; i++) { /* from the end: replicas, threads, mode, dtype */
        slash[i] = strrchr(first + 1, '/');
        if (!slash[i]) return -1;
        *slash[i] = '\0';
        f[6 - i] = slash[i] + 1;
    }
    f[2] = first + 1;
    if (f[5][0] != 't' || f[6][0] != 'x') return -1;
    f[5]++; /* "t2" -> "2", "x1" -> "1" */
    f[6]++;
    return 0;
}

int merge_one_field(const char *a, const char *b)
{
    char ba[512], bb[512];
    const char *fa[MERGE_NFIELDS], *fb[MERGE_NFIELDS];
    if (merge_split(a, ba, sizeof ba, fa) || merge_split(b, bb, sizeof bb, fb)) return -1;
    int which = -1;
    for (int i = 0; i < MERGE_NFIELDS; i++)
        if (strcmp(fa[i], fb[i]) != 0) {
            if (which >= 0) return -1;
            which = i;
        }
    return which;
}
