/* bench/outdir.c - the run folder: default name, resolution, checks, exclusive
 * creation, the lock, results/latest (see outdir.h). */
#define _GNU_SOURCE
#include "outdir.h"

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

#define LOCK_NAME ".bench.lock"

/* Files a run writes into its folder; --force removes exactly these. */
static const char *const RUN_FILES[] = {"results.csv", "report.md", NULL};
#define RUN_PLOTS "plots"

int outdir_name_ok(const char *what, const char *path, char *err, size_t errcap)
{
    for (const unsigned char *p = (const unsigned char *)path; *p; p++)
        if (*p < 0x20 || *p == 0x7f || *p == '"' || *p == '\'') {
            char shown[256];
            size_t n = 0;
            /* the message stays one line: control characters shown escaped */
            for (const unsigned char *q = (const unsigned char *)path; *q && n + 5 < sizeof shown; q++)
                n += (size_t)(*q < 0x20 || *q == 0x7f
                                  ? snprintf(shown + n, sizeof shown - n, "\\x%02x", *q)
                                  : snprintf(shown + n, sizeof shown - n, "%c", *q));
            snprintf(err, errcap,
                     "bench: %s '%s' has a control character or quote at position %d (the chart "
                     "scripts cannot open such a name)",
                     what, shown, (int)(p - (const unsigned char *)path));
            return 2;
        }
    return 0;
}

/* The nearest existing ancestor of path (path itself included) must be a
 * writable directory. */
static int check_creatable(const char *path, const char *what, char *err, size_t errcap)
{
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", path);
    for (;;) {
        struct stat st;
        if (stat(buf, &st) == 0) {
            if (!S_ISDIR(st.st_mode)) {
                snprintf(err, errcap, "bench: %s '%s' cannot be written: '%s' is not a folder",
                         what, path, buf);
                return 2;
            }
            if (access(buf, W_OK | X_OK) != 0) {
                snprintf(err, errcap, "bench: %s '%s' cannot be written: '%s' is not writable",
                         what, path, buf);
                return 2;
            }
            return 0;
        }
        if (errno != ENOENT) {
            snprintf(err, errcap, "bench: %s '%s' cannot be written: %s", what, path, strerror(errno));
            return 2;
        }
        char *d = dirname(buf);
        if (strcmp(d, buf) == 0 && (strcmp(d, ".") == 0 || strcmp(d, "/") == 0)) {
            snprintf(err, errcap, "bench: %s '%s' cannot be written", what, path);
            return 2;
        }
        memmove(buf, d, strlen(d) + 1);
    }
}

/* The pid written in dir's lock file when another process holds the lock;
 * 0 when nobody holds it (or there is none). */
static long lock_holder(const char *dir)
{
    char path[PATH_MAX + 32], buf[32] = "";
    long pid = 0;
    snprintf(path, sizeof path, "%s/" LOCK_NAME, dir);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
        close(fd);
        return 0;
    }
    ssize_t n = read(fd, buf, sizeof buf - 1);
    if (n > 0) pid = strtol(buf, NULL, 10);
    close(fd);
    return pid > 0 ? pid : -1;
}

/* Whether dir holds anything but the lock file. */
static int has_files(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int any = 0;
    if (!d) return 0;
    while (!any && (e = readdir(d)))
        any = strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, LOCK_NAME);
    closedir(d);
    return any;
}

/* The folder holds no earlier run, or force says to replace it. 0 or 2. */
static int check_empty(const char *out, int force, char *err, size_t errcap)
{
    if (force || !has_files(out)) return 0;
    snprintf(err, errcap,
             "bench: --out '%s' is not empty (an earlier run?); choose another folder, or "
             "--force to replace the run in it",
             out);
    return 2;
}

/* An existing folder may take the run: nobody else runs in it, and it is
 * empty or --force says to replace the run in it. */
static int check_existing(const char *out, int force, char *err, size_t errcap)
{
    long pid = lock_holder(out);
    if (pid) {
        if (pid > 0)
            snprintf(err, errcap, "bench: --out '%s' is in use by another bench run (pid %ld)", out, pid);
        else
            snprintf(err, errcap, "bench: --out '%s' is in use by another bench run", out);
        return 2;
    }
    if (access(out, W_OK | X_OK) != 0) {
        snprintf(err, errcap, "bench: --out '%s' is not writable", out);
        return 2;
    }
    return check_empty(out, force, err, errcap);
}

static void default_name(char *out, size_t cap, const char *stamp, int k)
{
    if (k < 2) snprintf(out, cap, "results/%s", stamp);
    else snprintf(out, cap, "results/%s-%d", stamp, k);
}

int outdir_choose(const char *dir, int force, char *out, size_t cap, char *err, size_t errcap)
{
    struct stat st;
    if (!*dir) { /* results/<UTC time>: made exclusively by outdir_claim */
        char stamp[32];
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
        default_name(out, cap, stamp, 1);
        return check_creatable("results", "--out", err, errcap);
    }
    if (outdir_name_ok("--out", dir, err, errcap)) return 2;
    /* a link (results/latest) is resolved first: the run goes to the folder
     * it names, under the same rules as naming that folder */
    if (lstat(dir, &st) == 0 && S_ISLNK(st.st_mode)) {
        char real[PATH_MAX];
        if (!realpath(dir, real)) {
            snprintf(err, errcap, "bench: --out '%s' is a link to nothing usable: %s", dir,
                     strerror(errno));
            return 2;
        }
        snprintf(out, cap, "%s", real);
    } else {
        snprintf(out, cap, "%s", dir);
    }
    if (stat(out, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            snprintf(err, errcap, "bench: --out '%s' is not a folder", out);
            return 2;
        }
        return check_existing(out, force, err, errcap);
    }
    return check_creatable(out, "--out", err, errcap);
}

int outdir_check_file(const char *path, char *err, size_t errcap)
{
    char buf[PATH_MAX], probe[PATH_MAX + 64];
    struct stat st;
    if (outdir_name_ok("file", path, err, errcap)) return 2;
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

/* mkdir -p of dir's parents. 0 or -1 (errno set). */
static int mkdir_parents(const char *dir)
{
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    return 0;
}

/* Takes dir's lock (kept until the process ends) and writes our pid in it. */
static int take_lock(const char *dir, char *err, size_t errcap)
{
    char path[PATH_MAX + 32], pid[32];
    snprintf(path, sizeof path, "%s/" LOCK_NAME, dir);
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, errcap, "bench: cannot lock --out '%s': %s", dir, strerror(errno));
        return 2;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        close(fd);
        long holder = lock_holder(dir);
        snprintf(err, errcap, "bench: --out '%s' is in use by another bench run (pid %ld)", dir,
                 holder);
        return 2;
    }
    int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) != 0 || write(fd, pid, (size_t)n) != n) {
        snprintf(err, errcap, "bench: cannot lock --out '%s': %s", dir, strerror(errno));
        close(fd);
        return 2;
    }
    return 0; /* fd stays open: the lock lives as long as the run */
}

/* --force: the previous run's files go before the new run writes any. */
static int clear_run(const char *dir, char *err, size_t errcap)
{
    char path[PATH_MAX + 64];
    for (int i = 0; RUN_FILES[i]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, RUN_FILES[i]);
        if (unlink(path) != 0 && errno != ENOENT) goto fail;
    }
    snprintf(path, sizeof path, "%s/" RUN_PLOTS, dir);
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            char f[PATH_MAX + 400];
            if (e->d_name[0] == '.') continue;
            snprintf(f, sizeof f, "%s/%s", path, e->d_name);
            unlink(f);
        }
        closedir(d);
    }
    return 0;
fail:
    snprintf(err, errcap, "bench: --force: cannot remove '%s': %s", path, strerror(errno));
    return 2;
}

int outdir_claim(char *out, size_t cap, int is_default, int force, char *err, size_t errcap)
{
    if (mkdir_parents(out) != 0) {
        snprintf(err, errcap, "bench: cannot create --out '%s': %s", out, strerror(errno));
        return 2;
    }
    if (is_default) { /* exclusively: a run started in the same second takes the next name */
        char stamp[64];
        snprintf(stamp, sizeof stamp, "%s", out + strlen("results/"));
        for (int k = 1; mkdir(out, 0777) != 0; k++) {
            if (errno != EEXIST || k >= 1000) {
                snprintf(err, errcap, "bench: cannot create '%s': %s", out, strerror(errno));
                return 2;
            }
            default_name(out, cap, stamp, k + 1);
        }
        return take_lock(out, err, errcap);
    }
    if (mkdir(out, 0777) != 0 && errno != EEXIST) {
        snprintf(err, errcap, "bench: cannot create --out '%s': %s", out, strerror(errno));
        return 2;
    }
    if (take_lock(out, err, errcap)) return 2;
    /* checked again under the lock: the folder may have changed since */
    if (check_empty(out, force, err, errcap)) return 2;
    return force ? clear_run(out, err, errcap) : 0;
}

void outdir_link_latest(const char *dir)
{
    char real[PATH_MAX], results[PATH_MAX], parent[PATH_MAX];
    if (!realpath(dir, real) || !realpath("results", results)) return;
    snprintf(parent, sizeof parent, "%s", real);
    if (strcmp(dirname(parent), results) != 0) return; /* only runs in results/ */
    const char *name = real + strlen(results) + 1;
    if (strcmp(name, "latest") == 0) return;
    unlink("results/latest.tmp");
    if (symlink(name, "results/latest.tmp") == 0 && rename("results/latest.tmp", "results/latest") != 0)
        unlink("results/latest.tmp");
}
