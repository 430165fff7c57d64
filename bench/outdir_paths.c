/* bench/outdir_paths.c - the run folder's path checks: a file's name and the
 * folder it would be created in, paths resolved as mkdir -p reads them, and
 * --json's target (see outdir.h; internal helpers in outdir_impl.h). */
#define _GNU_SOURCE
#include "outdir.h"
#include "fdpath.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "outdir_impl.h"

/* The last name of path leaves room for the temporary written beside it
 * (NAME_MAX less 32). 0, or 2 with err. */
static int name_len_ok(const char *path, char *err, size_t errcap)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    if (strlen(base) <= NAME_MAX - 32) return 0;
    snprintf(err, errcap, "bench: the file name '%.40s...' is %zu bytes; the limit is %d (%d, "
                          "less the temporary name's suffix)", base, strlen(base), NAME_MAX - 32,
             NAME_MAX);
    return 2;
}

int outdir_check_file(const char *path, char *err, size_t errcap)
{
    char buf[PATH_MAX], probe[PATH_MAX + 64];
    struct stat st;
    int alias = fdpath_alias(path);
    if (alias >= 0) { /* written to that descriptor: it must be open for writing */
        int fl = fcntl(alias, F_GETFL);
        if (fl < 0 || (fl & O_ACCMODE) == O_RDONLY) {
            snprintf(err, errcap, "bench: '%s' is not open for writing", path);
            return 2;
        }
        return 0;
    }
    if (outdir_name_ok("file", path, err, errcap)) return 2;
    if (name_len_ok(path, err, errcap)) return 2;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            snprintf(err, errcap, "bench: '%s' is a folder, not a file", path);
            return 2;
        }
        if (access(path, W_OK) != 0) {
            snprintf(err, errcap, "bench: '%s' is not writable", path);
            return 2;
        }
        if (!S_ISREG(st.st_mode)) return 0; /* a device or FIFO: written through */
    }
    /* the file is made beside its target (temporary + rename): its folder must
     * exist and take a new file, which only trying shows (/proc, read-only mounts) */
    snprintf(buf, sizeof buf, "%s", path);
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && !realpath(path, buf)) {
        snprintf(err, errcap, "bench: '%s' is a link to nothing usable: %s", path, strerror(errno));
        return 2;
    }
    snprintf(probe, sizeof probe, "%s/.bench-probe-%ld", dirname(buf), (long)getpid());
    int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        snprintf(err, errcap, "bench: '%s' cannot be written: %s", path, strerror(errno));
        return 2;
    }
    close(fd);
    unlink(probe);
    return 0;
}

/* The absolute form of path, links resolved as far as the path exists (the
 * rest appended as written). 0, or -1. */
/* Collapses "//", "/./" and "/name/../" of an absolute path in place. */
static void lexical_norm(char *p)
{
    char out[PATH_MAX];
    size_t n = 0;
    for (const char *c = p; *c;) {
        while (*c == '/') c++;
        size_t len = strcspn(c, "/");
        if (len == 0) break;
        if (len == 1 && c[0] == '.') {
        } else if (len == 2 && c[0] == '.' && c[1] == '.') {
            while (n > 0 && out[n - 1] != '/') n--;
            if (n > 0) n--; /* the slash before the dropped name */
        } else if (n + len + 2 < sizeof out) {
            out[n++] = '/';
            memcpy(out + n, c, len);
            n += len;
        }
        c += len;
    }
    if (n == 0) out[n++] = '/';
    out[n] = '\0';
    memcpy(p, out, n + 1);
}

static int abs_path_depth(const char *path, char *out, size_t cap, int depth);

int outdir_abs_path(const char *path, char *out, size_t cap)
{
    return abs_path_depth(path, out, cap, 0);
}

/* The absolute form of path: its existing head resolved (links), the rest as
 * written but with "." and ".." taken lexically (mkdir -p makes "nox/../r0"
 * into r0), and resolved again when that changed it. 0 or -1. */
static int abs_path_depth(const char *path, char *out, size_t cap, int depth)
{
    char head[PATH_MAX], tail[PATH_MAX] = "", real[PATH_MAX];
    snprintf(head, sizeof head, "%s", path);
    for (;;) {
        if (realpath(head, real)) {
            char joined[2 * PATH_MAX + 2];
            snprintf(joined, sizeof joined, "%s%s%s", real, *tail ? "/" : "", tail);
            if (*tail && depth < 8 &&
                (strstr(joined, "/./") || strstr(joined, "/../") || strstr(joined, "//") ||
                 (strlen(joined) >= 3 && strcmp(joined + strlen(joined) - 3, "/..") == 0) ||
                 (strlen(joined) >= 2 && strcmp(joined + strlen(joined) - 2, "/.") == 0))) {
                lexical_norm(joined);
                return abs_path_depth(joined, out, cap, depth + 1);
            }
            snprintf(out, cap, "%s", joined);
            return 0;
        }
        char *slash = strrchr(head, '/');
        char rest[PATH_MAX];
        snprintf(rest, sizeof rest, "%s%s%s", slash ? slash + 1 : head, *tail ? "/" : "", tail);
        snprintf(tail, sizeof tail, "%s", rest);
        if (!slash) {
            snprintf(head, sizeof head, ".");
        } else if (slash == head) {
            head[1] = '\0';
        } else {
            *slash = '\0';
        }
        if (strcmp(head, ".") == 0 && !realpath(".", real)) return -1;
    }
}

/* A descriptor --json names (/dev/fd/3) that is open on a regular file: the
 * file's path into out. 0, or -1 (not a file, or unknown). */
static int alias_file(int fd, char *out, size_t cap)
{
    char link[64];
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return -1;
    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, out, cap - 1);
    if (n <= 0 || out[0] != '/') return -1;
    out[n] = '\0';
    return 0;
}

int outdir_check_json(const char *json, const char *run_dir, char *err, size_t errcap)
{
    char j[PATH_MAX], d[PATH_MAX];
    int alias = fdpath_alias(json);
    /* a descriptor open on another run's file (3>>r0/results.csv) is refused too */
    if (alias >= 0 && alias_file(alias, j, sizeof j) == 0 &&
        outdir_refuse_inside_other("--json", j, 1, run_dir, err, errcap))
        return 2;
    if (alias >= 0 || outdir_abs_path(json, j, sizeof j) || outdir_abs_path(run_dir, d, sizeof d))
        return outdir_check_file(json, err, errcap);
    size_t n = strlen(d);
    if (strcmp(j, d) == 0 ||
        (strncmp(j, d, n) == 0 && j[n] == '/' && strcmp(j + n + 1, "results.json") != 0 &&
         (strchr(j + n + 1, '/') ? strncmp(j + n + 1, RUN_PLOTS "/", sizeof RUN_PLOTS) == 0
                                 : outdir_is_run_file(j + n + 1)))) {
        snprintf(err, errcap, "bench: --json '%s' would overwrite the run's own files in '%s'",
                 json, run_dir);
        return 2;
    }
    if (outdir_refuse_inside_other("--json", json, 1, run_dir, err, errcap) ||
        name_len_ok(json, err, errcap))
        return 2;
    /* a file directly in the run folder: the folder is made by the run and
     * was checked with it; anywhere else the file must be writable now */
    if (strncmp(j, d, n) == 0 && j[n] == '/' && !strchr(j + n + 1, '/')) return 0;
    return outdir_check_file(json, err, errcap);
}
