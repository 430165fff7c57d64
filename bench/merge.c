/* bench/merge.c - bench --merge: checking the inputs, claiming the merge
 * folder, writing it (see merge.h). */
#define _GNU_SOURCE
#include "merge.h"
#include "outdir.h"
#include "outdir_impl.h"

#include <stdio.h>

#ifdef BENCH_HAVE_REPORT
#include "interrupt.h"
#include "merge_csv.h"
#include "report.h"
#include "../report/merge.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Whether path a is b or inside it (both absolute, normal). */
static int within(const char *a, const char *b)
{
    size_t n = strlen(b);
    return strncmp(a, b, n) == 0 && (a[n] == '\0' || a[n] == '/' || (n == 1 && b[0] == '/'));
}

/* The folder, its results.csv and the merge's --out, checked before a byte
 * is read: 0, or 2 with err. */
static int check_input(const bench_opts *o, int i, const struct stat *seen, char (*real)[PATH_MAX],
                       char *err, size_t errcap)
{
    const char *d = o->merge[i];
    char csv[PATH_MAX + 16], to[PATH_MAX] = "", out[PATH_MAX];
    struct stat st;
    if (outdir_name_ok("--merge", d, err, errcap)) return 2;
    if (stat(d, &st) != 0) {
        snprintf(err, errcap, "bench: --merge '%s': %s", d, strerror(errno));
        return 2;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, errcap, "bench: --merge '%s' is not a folder", d);
        return 2;
    }
    for (int j = 0; j < i; j++)
        if (seen[j].st_dev == st.st_dev && seen[j].st_ino == st.st_ino) {
            snprintf(err, errcap, "bench: --merge names one folder twice: '%s' and '%s'; give each "
                                  "run once", o->merge[j], d);
            return 2;
        }
    if (!realpath(d, real[i])) {
        snprintf(err, errcap, "bench: --merge '%s': %s", d, strerror(errno));
        return 2;
    }
    if (outdir_abs_path(o->out, out, sizeof out) == 0 && within(out, real[i])) {
        snprintf(err, errcap, "bench: --out '%s' is inside the --merge input '%s': a merge never "
                              "writes into its inputs; choose a folder outside them", o->out, d);
        return 2;
    }
    snprintf(csv, sizeof csv, "%s/results.csv", d);
    if (lstat(csv, &st) != 0) {
        snprintf(err, errcap, "bench: --merge '%s' holds no results.csv: not a run folder", d);
        return 2;
    }
    if (S_ISLNK(st.st_mode)) {
        ssize_t n = readlink(csv, to, sizeof to - 1);
        to[n > 0 ? n : 0] = '\0';
        snprintf(err, errcap, "bench: --merge '%s': results.csv is a link (to '%s'); a merge reads "
                              "each run's own results.csv, never through a link", d, to);
        return 2;
    }
    return outdir_hold_input(d, "--merge", err, errcap);
}

/* A loaded input a merge can take: 0, or 2 with err. */
static int check_loaded(const rundata *rd, const char *d, char *mach, size_t cap, char *err, size_t errcap)
{
    for (int c = 0; c < rd->t->ncols; c++)
        if (schema_find(rd->t->header[c]) < 0) {
            snprintf(err, errcap, "bench: %s:%d: column '%.60s' is not one this bench knows (a run "
                                  "of another schema version?): merge it with the bench that wrote it",
                     rd->csv_path, rd->t->header_line, rd->t->header[c]);
            return 2;
        }
    if (rd->idx[COL_WORKLOAD] < 0) {
        snprintf(err, errcap, "bench: %s:%d: no column 'workload' (a run from before the workload "
                              "key): its rows cannot be compared; re-run it with this bench",
                 rd->csv_path, rd->t->header_line);
        return 2;
    }
    if (merge_is(rd)) {
        snprintf(err, errcap, "bench: --merge '%s' is itself a merge: merge its inputs instead", d);
        return 2;
    }
    if (rd_nrows(rd) == 0) {
        snprintf(err, errcap, "bench: %s: no rows: nothing to merge", rd->csv_path);
        return 2;
    }
    char other[MERGE_NAME_MAX];
    merge_row_machine(rd, 0, mach, cap);
    for (int r = 1; r < rd_nrows(rd); r++) {
        merge_row_machine(rd, r, other, sizeof other);
        if (strcmp(other, mach) != 0) {
            snprintf(err, errcap, "bench: %s:%d: machine '%s', but line %d's is '%s': a run folder "
                                  "holds one machine's rows", rd->csv_path, rd->t->line[r], other,
                     rd->t->line[0], mach);
            return 2;
        }
    }
    return 0;
}

/* --price's names and --weights' keys against the loaded inputs, and the
 * context lines that carry them to the report (report/merge_mix.h): per
 * input "input-K-price: USD (from where)", from --price, else the run's own
 * price-per-hour line; then "weights: ...". 0, or 2 with err. */
static int price_lines(const bench_opts *o, const rundata *in, char (*mach)[MERGE_NAME_MAX], int n,
                       char (*lines)[CSV_MAX_CONTEXT_LINE], int *nlines, char *err, size_t cap)
{
    char names[1024] = "";
    size_t u = 0;
    for (int i = 0; i < n && u < sizeof names; i++)
        u += (size_t)snprintf(names + u, sizeof names - u, "%s%s", i ? ", " : "", mach[i]);
    for (int p = 0; p < o->nprices; p++) {
        int i = 0;
        while (i < n && strcmp(o->prices[p].name, mach[i]) != 0) i++;
        if (i == n) {
            snprintf(err, cap, "bench: --price '%.80s' is none of the merged machines (%s)",
                     o->prices[p].name, names);
            return 2;
        }
    }
    for (int w = 0; w < o->nweights; w++) {
        int found = 0;
        for (int i = 0; i < n && !found; i++)
            for (int r = 0; r < rd_nrows(&in[i]) && !found; r++)
                found = rd_is(&in[i], r, COL_SUITE, o->weights[w].name) ||
                        rd_is(&in[i], r, COL_WORKLOAD, o->weights[w].name);
        if (!found) {
            snprintf(err, cap, "bench: --weights '%.80s' is neither a suite nor a workload key of the "
                     "merged runs", o->weights[w].name);
            return 2;
        }
    }
    *nlines = 0;
    for (int i = 0; i < n; i++) {
        const char *own = rd_context(&in[i], "price-per-hour");
        double v = own ? strtod(own, NULL) : NAN;
        for (int p = 0; p < o->nprices; p++)
            if (strcmp(o->prices[p].name, mach[i]) == 0) v = o->prices[p].v, own = NULL;
        if (isfinite(v) && v > 0 && v <= OPT_MAX_PRICE)
            snprintf(lines[(*nlines)++], CSV_MAX_CONTEXT_LINE, "input-%d-price: %.10g (%s)", i + 1, v,
                     own ? "the run's --price-per-hour" : "--price");
    }
    char *wl = lines[(*nlines)++];
    size_t wu = (size_t)snprintf(wl, CSV_MAX_CONTEXT_LINE, "weights: %s",
                                 o->nweights ? "" : "every suite equally (the default)");
    for (int w = 0; w < o->nweights && wu < CSV_MAX_CONTEXT_LINE; w++)
        wu += (size_t)snprintf(wl + wu, CSV_MAX_CONTEXT_LINE - wu, "%s%s=%.10g", w ? "," : "",
                               o->weights[w].name, o->weights[w].v);
    if (wu >= CSV_MAX_CONTEXT_LINE) {
        snprintf(err, cap, "bench: --weights is longer than %d characters in all (the limit)",
                 CSV_MAX_CONTEXT_LINE - 16);
        return 2;
    }
    return 0;
}

int merge_main(const bench_opts *o)
{
    static rundata in[MERGE_MAX_INPUTS];
    static char real[MERGE_MAX_INPUTS][PATH_MAX], mach[MERGE_MAX_INPUTS][MERGE_NAME_MAX];
    struct stat seen[MERGE_MAX_INPUTS];
    const char *machp[MERGE_MAX_INPUTS], *ref = NULL, *json = o->json[0] ? o->json : NULL;
    char err[2048] = "", outdir[PATH_MAX] = "";
    int n = o->nmerge, loaded = 0, rc = 2, dirfd = -1;
    if (n > MERGE_MAX_INPUTS) {
        snprintf(err, sizeof err, "bench: --merge names %d folders, more than %d (the limit: each "
                                  "brings its context lines, and a results.csv holds at most %d)",
                 n, MERGE_MAX_INPUTS, CSV_MAX_CONTEXT);
        goto refuse;
    }
    if (outdir_name_ok("--out", o->out, err, sizeof err)) goto refuse;
    for (int i = 0; i < n; i++) {
        if (check_input(o, i, seen, real, err, sizeof err)) goto refuse;
        stat(o->merge[i], &seen[i]);
    }
    for (; loaded < n; loaded++) {
        char e[1800];
        if (rd_load(&in[loaded], o->merge[loaded], e, sizeof e)) {
            snprintf(err, sizeof err, "bench: %s", e);
            if (interrupt_signal()) rc = 128 + interrupt_signal();
            goto refuse;
        }
        if (check_loaded(&in[loaded], o->merge[loaded], mach[loaded], sizeof mach[loaded], err, sizeof err)) {
            loaded++;
            goto refuse;
        }
        machp[loaded] = mach[loaded];
        for (int j = 0; j < loaded; j++)
            if (strcmp(mach[j], mach[loaded]) == 0) {
                snprintf(err, sizeof err, "bench: --merge: '%s' and '%s' are both machine '%s' (their "
                                          "rows would collide): give each machine's run its own --name",
                         o->merge[j], o->merge[loaded], mach[j]);
                loaded++;
                goto refuse;
            }
    }
    ref = mach[0];
    if (o->reference) {
        ref = NULL;
        for (int i = 0; i < n && !ref; i++)
            if (strcmp(o->reference, mach[i]) == 0) ref = mach[i];
        if (!ref) {
            size_t u = 0;
            char names[1024] = "";
            for (int i = 0; i < n && u < sizeof names; i++)
                u += (size_t)snprintf(names + u, sizeof names - u, "%s%s", i ? ", " : "", mach[i]);
            snprintf(err, sizeof err, "bench: --reference '%.80s' is none of the merged machines (%s)",
                     o->reference, names);
            goto refuse;
        }
    }
    static char extra[MERGE_MAX_INPUTS + 1][CSV_MAX_CONTEXT_LINE];
    const char *extrap[MERGE_MAX_INPUTS + 1];
    int nextra = 0;
    if (price_lines(o, in, mach, n, extra, &nextra, err, sizeof err)) goto refuse;
    for (int i = 0; i < nextra; i++) extrap[i] = extra[i];
    if (outdir_choose(o->out, 0, outdir, sizeof outdir, err, sizeof err) ||
        (json && outdir_check_json(json, outdir, err, sizeof err)))
        goto refuse;
    if (interrupt_signal()) { /* during the checks: nothing was made yet */
        snprintf(err, sizeof err, "bench: --merge interrupted by %s before it began: nothing written",
                 interrupt_name(interrupt_signal()));
        rc = 128 + interrupt_signal();
        goto refuse;
    }
    if ((rc = outdir_claim(outdir, sizeof outdir, 0, 0, err, sizeof err))) goto refuse;
    dirfd = open(outdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0 || merge_write_csv(in, o->merge, machp, n, ref, o->command, extrap, nextra, dirfd, outdir)) {
        if (dirfd < 0) fprintf(stderr, "bench: --out '%s': %s\n", outdir, strerror(errno));
        outdir_undo(); /* no results.csv: the folder and its lock go again */
        rc = 1;
    } else {
        rc = report_finish(outdir, json, !o->no_plots) ? 1 : 0;
        printf("merged %d runs (reference %s) into %s/results.csv; report: %s/report.md\n", n, ref,
               outdir, outdir);
    }
    if (dirfd >= 0) close(dirfd);
    for (int i = 0; i < loaded; i++) rd_free(&in[i]);
    int sig = interrupt_signal();
    return sig && rc != 1 ? 128 + sig : rc;

refuse:
    fprintf(stderr, "%s\n", err);
    for (int i = 0; i < loaded; i++)
        if (in[i].t) rd_free(&in[i]);
    outdir_undo(); /* a folder or lock file made here goes again */
    return rc;
}

#else

int merge_main(const bench_opts *o)
{
    (void)o;
    fprintf(stderr, "bench: --merge: this build has no report support\n");
    return 2;
}

#endif
