/* bench/plot.c - bench --plot DIR as a writer of DIR (see plot.h). */
#define _GNU_SOURCE
#include "plot.h"
#include "outdir.h"

#include <stdio.h>

#ifdef BENCH_HAVE_REPORT
#include "interrupt.h"
#include "report.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Names in plots/ that a render writes: charts and their temporaries. */
static int chart_file(const char *n)
{
    static const char *const EXT[] = {".png", ".svg", ".dat", ".log", NULL};
    size_t l = strlen(n);
    for (int i = 0; EXT[i]; i++)
        if (l > 4 && strcmp(n + l - 4, EXT[i]) == 0) return 1;
    return 0;
}

/* rel (a name in the folder dirfd, shown as dir/rel) must be absent, or a
 * folder (want_dir) or a regular file: never a link, which would be
 * written through. 0, or 2 with one line in err. */
static int refuse_link(int dirfd, const char *dir, const char *rel, int want_dir, char *err, size_t errcap)
{
    struct stat st;
    char to[PATH_MAX] = "";
    if (fstatat(dirfd, rel, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno == ENOENT) return 0;
        snprintf(err, errcap, "bench: --plot '%s': cannot look at '%s/%s': %s", dir, dir, rel,
                 strerror(errno));
        return 2;
    }
    if (S_ISLNK(st.st_mode)) {
        ssize_t n = readlinkat(dirfd, rel, to, sizeof to - 1);
        to[n > 0 ? n : 0] = '\0';
        snprintf(err, errcap, "bench: --plot '%s': '%s/%s' is a link%s%s%s; bench never writes "
                              "through a link in a run folder: remove it and try again",
                 dir, dir, rel, *to ? " (to '" : "", to, *to ? "')" : "");
        return 2;
    }
    if (want_dir ? !S_ISDIR(st.st_mode) : !S_ISREG(st.st_mode)) {
        snprintf(err, errcap, "bench: --plot '%s': '%s/%s' is not a %s; it is never replaced", dir,
                 dir, rel, want_dir ? "folder" : "regular file");
        return 2;
    }
    return 0;
}

/* Whether the file json names lies directly in the folder dirfd (its
 * parent is that folder, however spelled); fills name with its last part. */
static int json_in_dir(int dirfd, const char *json, char *name, size_t cap)
{
    char buf[PATH_MAX], buf2[PATH_MAX];
    struct stat d, p;
    snprintf(buf, sizeof buf, "%s", json);
    snprintf(buf2, sizeof buf2, "%s", json);
    snprintf(name, cap, "%s", basename(buf2));
    return fstat(dirfd, &d) == 0 && stat(dirname(buf), &p) == 0 && d.st_dev == p.st_dev &&
           d.st_ino == p.st_ino;
}

/* Every name in DIR that --plot writes is absent or what it should be:
 * report.md, plots/, the chart files in plots/, a --json inside DIR. Checked
 * under the lock, before anything is written. 0, or 2 with err. */
static int check_links(int dirfd, const char *dir, const char *json, char *err, size_t errcap)
{
    char name[NAME_MAX + 1];
    if (refuse_link(dirfd, dir, "report.md", 0, err, errcap) ||
        refuse_link(dirfd, dir, "plots", 1, err, errcap) ||
        (json && json_in_dir(dirfd, json, name, sizeof name) &&
         refuse_link(dirfd, dir, name, 0, err, errcap)))
        return 2;
    int pfd = openat(dirfd, "plots", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = pfd >= 0 ? fdopendir(pfd) : NULL;
    struct dirent *e;
    int rc = 0;
    if (!d) {
        if (pfd >= 0) close(pfd);
        return 0; /* no plots/ yet (or gone meanwhile): made without following a link */
    }
    while (!rc && (e = readdir(d)))
        if (chart_file(e->d_name)) {
            char rel[NAME_MAX + 8];
            snprintf(rel, sizeof rel, "plots/%s", e->d_name);
            rc = refuse_link(dirfd, dir, rel, 0, err, errcap);
        }
    closedir(d);
    return rc;
}

/* The lines --plot adds to the report's own: a run that did not record its
 * end, and an interruption (what was redrawn, what was left as it was). */
static void say_outcome(const char *dir, const char *json, int rc, const report_outcome *out)
{
    interrupt_done(); /* the closing line follows: the watcher stays quiet */
    if (rc != 2 && out->rows > 0 && !out->ended) {
        fprintf(stderr, "bench: %s/results.csv: ", dir);
        fprintf(stderr, REPORT_UNENDED "\n", out->rows);
    }
    if (out->signal)
        fprintf(stderr, "bench: --plot interrupted by %s: %d of %d charts redrawn, report.md %s%s%s%s\n",
                interrupt_name(out->signal), out->charts_drawn, out->charts_planned,
                out->md_written ? "rewritten" : "left as it was", json && !out->json_written ? ", --json '" : "",
                json && !out->json_written ? json : "", json && !out->json_written ? "' not written" : "");
}

int plot_main(const bench_opts *o)
{
    const char *dir = o->plot_dir, *json = o->json[0] ? o->json : NULL;
    char err[2048] = "";
    int rc = 2, dirfd = -1;
    struct stat st;
    report_outcome out;
    if (outdir_name_ok("--plot", dir, err, sizeof err) ||
        outdir_check_apart("--plot", dir, err, sizeof err) ||
        (json && outdir_check_json(json, dir, err, sizeof err)))
        goto refuse;
    if (stat(dir, &st) != 0) { /* never made: nothing left behind */
        snprintf(err, sizeof err, "bench: --plot '%s': %s", dir, strerror(errno));
        goto refuse;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(err, sizeof err, "bench: --plot '%s' is not a folder", dir);
        goto refuse;
    }
    if ((rc = outdir_lock_existing(dir, "--plot", err, sizeof err))) goto refuse;
    rc = 2;
    dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dirfd < 0) {
        snprintf(err, sizeof err, "bench: --plot '%s': %s", dir, strerror(errno));
        goto refuse;
    }
    if (check_links(dirfd, dir, json, err, sizeof err)) goto refuse;
    close(dirfd);
    rc = report_rerender(dir, json, !o->no_plots, &out);
    say_outcome(dir, json, rc, &out);
    int sig = interrupt_signal();
    if (!out.signal && sig) { /* SIGPIPE: a closed stdout stopped nothing, and is said */
        fprintf(stderr, "bench: --plot: %s received: the charts and report.md were still "
                        "written\n", interrupt_name(sig));
        rc = 128 + sig;
    }
    outdir_undo(); /* a lock file made here goes again */
    return rc;

refuse:
    fprintf(stderr, "%s\n", err);
    if (dirfd >= 0) close(dirfd);
    outdir_undo(); /* a lock file made here goes again */
    return rc;
}

#else

int plot_main(const bench_opts *o)
{
    (void)o;
    fprintf(stderr, "bench: --plot: this build has no report support\n");
    return 2;
}

#endif
