/* report/merge_csv.c - the merged results.csv (see merge_csv.h). */
#include "merge_csv.h"
#include "atomic_file.h"
#include "merge.h"

#include <stdio.h>
#include <string.h>

void merge_input_end(const rundata *in, char *out, size_t cap)
{
    static const char *const ENDS[] = {"interrupted", "stopped", "finished"};
    for (int i = 0; i < 3; i++) {
        const char *v = rd_context(in, ENDS[i]);
        if (v) {
            snprintf(out, cap, "%s: %s", ENDS[i], v);
            return;
        }
    }
    snprintf(out, cap, "none recorded (killed, or an older bench): possibly incomplete");
}

/* A cell of a column an input lacks (it predates it): empty, but an integer
 * column (which may not be empty) as the readers read its absence: one
 * replica, else 0 (threads, reps, tries, not disturbed). */
static const char *missing_cell(int c)
{
    if (c == COL_REPLICAS) return "1";
    return SCHEMA[c].type == COLT_INT ? "0" : "";
}

/* The context lines: the merge, then per input its folder, machine, end,
 * quiet line and roofs. Returns how many (at most cap). */
static int context_lines(const rundata *in, const char *const *dirs, const char *const *mach, int n,
                         const char *ref, const char *command, const char *const *extra, int nextra,
                         char (*lines)[CSV_MAX_CONTEXT_LINE], int cap)
{
    int k = 0;
    char end[CSV_MAX_CONTEXT_LINE - 64];
#define LINE(...) \
    do { if (k < cap) snprintf(lines[k++], CSV_MAX_CONTEXT_LINE, __VA_ARGS__); } while (0)
    LINE("command: %s", command);
    LINE("merged: %d runs", n);
    LINE("reference: %s", ref);
    for (int i = 0; i < n; i++) {
        LINE("input-%d: %.3000s", i + 1, dirs[i]);
        LINE("input-%d-machine: %s", i + 1, mach[i]);
        merge_input_end(&in[i], end, sizeof end);
        LINE("input-%d-end: %s", i + 1, end);
        const char *q = rd_context(&in[i], "quiet");
        if (q) LINE("input-%d-quiet: %.4000s", i + 1, q);
        for (int c = 0; c < in[i].t->ncontext; c++) {
            const char *l = in[i].t->context[c];
            if (strncmp(l, "roof", 4) == 0 && strlen(l) + 16 < CSV_MAX_CONTEXT_LINE)
                LINE("input-%d-%s", i + 1, l);
        }
    }
    for (int i = 0; i < nextra; i++) LINE("%.4000s", extra[i]);
#undef LINE
    return k;
}

int merge_write_csv(const rundata *in, const char *const *dirs, const char *const *mach, int n,
                    const char *ref, const char *command, const char *const *extra, int nextra,
                    int dirfd, const char *shown)
{
    static char lines[CSV_MAX_CONTEXT][CSV_MAX_CONTEXT_LINE];
    const char *ctx[CSV_MAX_CONTEXT], *cells[COL_COUNT];
    char path[4200], machine[MERGE_NAME_MAX];
    int nctx = context_lines(in, dirs, mach, n, ref, command, extra, nextra, lines, CSV_MAX_CONTEXT - 1),
        rows = 0;
    atomic_file a;
    for (int i = 0; i < nctx; i++) ctx[i] = lines[i];
    snprintf(path, sizeof path, "%s/results.csv", shown);
    if (af_open_at(&a, dirfd, "results.csv", path)) return -1;
    csv_put_head(a.f, ctx, nctx);
    for (int i = 0; i < n; i++)
        for (int r = 0; r < rd_nrows(&in[i]); r++, rows++) {
            for (int c = 0; c < COL_COUNT; c++) /* a column the input lacks reads as a reader reads it */
                cells[c] = in[i].idx[c] >= 0 ? rd_str(&in[i], r, c) : missing_cell(c);
            merge_row_machine(&in[i], r, machine, sizeof machine);
            cells[COL_MACHINE] = machine;
            if (csv_put_cells(a.f, cells, COL_COUNT)) {
                fprintf(stderr, "bench: --merge: cannot write '%s': out of memory\n", path);
                af_abort(&a);
                return -1;
            }
        }
    fprintf(a.f, "# finished: %d rows\n", rows);
    return af_commit(&a);
}
