/* bench/outdir.c - the run folder: default name, writability, creation. */
#define _GNU_SOURCE
#include "outdir.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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

int outdir_choose(const char *dir, char *out, size_t cap, char *err, size_t errcap)
{
    if (*dir) {
        snprintf(out, cap, "%s", dir);
    } else {
        char stamp[32];
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &tm);
        snprintf(out, cap, "results/%s", stamp);
        for (int k = 2; access(out, F_OK) == 0 && k < 1000; k++)
            snprintf(out, cap, "results/%s-%d", stamp, k);
    }
    struct stat st;
    if (stat(out, &st) == 0 && S_ISDIR(st.st_mode)) {
        char csv[PATH_MAX];
        snprintf(csv, sizeof csv, "%s/results.csv", out);
        if (access(out, W_OK | X_OK) != 0 || (access(csv, F_OK) == 0 && access(csv, W_OK) != 0)) {
            snprintf(err, errcap, "bench: --out '%s' is not writable", out);
            return 2;
        }
        return 0;
    }
    return check_creatable(out, "--out", err, errcap);
}

int outdir_check_file(const char *path, char *err, size_t errcap)
{
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", path);
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, errcap, "bench: '%s' is a folder, not a file", path);
        return 2;
    }
    if (stat(path, &st) == 0 && access(path, W_OK) != 0) {
        snprintf(err, errcap, "bench: '%s' is not writable", path);
        return 2;
    }
    return check_creatable(dirname(buf), "file", err, errcap);
}

int outdir_mkdirs(const char *dir)
{
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
    return 0;
}

void outdir_link_latest(const char *dir)
{
    if (strncmp(dir, "results/", 8) != 0 || strchr(dir + 8, '/')) return;
    unlink("results/latest.tmp");
    if (symlink(dir + 8, "results/latest.tmp") == 0) rename("results/latest.tmp", "results/latest");
}
