/* bench/outdir.c - the run folder: default name, resolution, checks, exclusive
 * creation, the lock, results/latest (see outdir.h). */
#define _GNU_SOURCE
#include "outdir.h"
#include "fdpath.h"
#include "outdir_impl.h"

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


/* Files a run writes into its folder; --force removes exactly these (and
 * the charts in plots/: *.png, *.svg and their *.dat). */
static const char *const RUN_FILES[] = {"results.csv", "report.md", "results.json", NULL};

int outdir_is_run_file(const char *name)
{
    for (int i = 0; RUN_FILES[i]; i++)
        if (strcmp(name, RUN_FILES[i]) == 0) return 1;
    return strcmp(name, LOCK_NAME) == 0 || strcmp(name, RUN_PLOTS) == 0;
}

/* Whether dir holds an earlier bench run: a results.csv that is a regular
 * file whose header names our first columns. */
static int holds_run(const char *dir)
{
    char path[PATH_MAX + 32], line[4096];
    int found = 0;
    snprintf(path, sizeof path, "%s/results.csv", dir);
    /* never blocks (a FIFO of that name): only a regular file is read */
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    FILE *f = fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? fdopen(fd, "r") : NULL;
    if (!f) {
        if (fd >= 0) close(fd);
        return 0;
    }
    while (!found && fgets(line, sizeof line, f))
        if (line[0] != '#') found = strncmp(line, "suite,case,backend,mode,", 24) == 0 ? 1 : -1;
    fclose(f);
    return found == 1;
}

static int chart_name(const char *n)
{
    size_t l = strlen(n);
    return (l > 4 && (!strcmp(n + l - 4, ".png") || !strcmp(n + l - 4, ".svg") ||
                      !strcmp(n + l - 4, ".dat")));
}

/* What this process created on its way to a run (folders, lock files), so
 * that a refusal after it (exit 2) leaves nothing behind: outdir_undo. */
#define MAX_CREATED 64
static char created[MAX_CREATED][PATH_MAX];
static int created_dir[MAX_CREATED], ncreated;

static void remember(const char *path, int is_dir)
{
    if (ncreated == MAX_CREATED) return;
    snprintf(created[ncreated], PATH_MAX, "%s", path);
    created_dir[ncreated++] = is_dir;
}

void outdir_undo(void)
{
    /* newest first: a lock file before its folder; a folder only when empty */
    while (ncreated > 0) {
        ncreated--;
        if (created_dir[ncreated]) rmdir(created[ncreated]);
        else unlink(created[ncreated]);
    }
}

/* Whether dir is a run folder: it holds a bench results.csv or a lock. */
static int is_run_folder(const char *dir)
{
    char path[PATH_MAX + 32];
    struct stat st;
    snprintf(path, sizeof path, "%s/" LOCK_NAME, dir);
    return lstat(path, &st) == 0 || holds_run(dir);
}

static long lock_holder(const char *dir);

/* " (a live run, pid N)" or " (a finished run)": who owns a run folder. */
static void owner_str(const char *dir, char *out, size_t cap)
{
    long pid = lock_holder(dir);
    if (pid > 0) snprintf(out, cap, "a live bench run (pid %ld)", pid);
    else if (pid < 0) snprintf(out, cap, "a live bench run");
    else snprintf(out, cap, "an earlier bench run");
}

/* The nearest folder at or above abs_dir (an absolute path; from its parent
 * when from_parent) that is a run folder other than own (absolute, or NULL),
 * into found. 1 found, 0 none. */
static int other_run_above(const char *abs_dir, int from_parent, const char *own, char *found,
                           size_t cap)
{
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", abs_dir);
    if (from_parent) {
        char *slash = strrchr(buf, '/');
        if (!slash || slash == buf) return 0;
        *slash = '\0';
    }
    for (;;) {
        if ((!own || strcmp(buf, own) != 0) && is_run_folder(buf)) {
            snprintf(found, cap, "%s", buf);
            return 1;
        }
        char *slash = strrchr(buf, '/');
        if (!slash || slash == buf) return 0;
        *slash = '\0';
    }
}



/* A file that belongs to a run is written only by that run. Refuses
 * (2, one line in err) a path of what's (--out, --dump, --json) whose folder
 * (from_parent: the path's own folder, else path itself) or any folder above
 * it is another run's folder than own_dir (NULL: none is ours). */
int outdir_refuse_inside_other(const char *what, const char *path, int from_parent,
                               const char *own_dir, char *err, size_t errcap)
{
    char a[PATH_MAX], own[PATH_MAX], found[PATH_MAX], who[64];
    if (outdir_abs_path(path, a, sizeof a)) { /* the folders above it cannot be checked */
        snprintf(err, errcap, "bench: %s '%s' cannot be resolved to a path of at most %d "
                              "bytes (%s): choose a shorter path", what, path, PATH_MAX - 1,
                 strerror(errno ? errno : ENAMETOOLONG));
        return 2;
    }
    int have_own = own_dir && outdir_abs_path(own_dir, own, sizeof own) == 0;
    if (!other_run_above(a, from_parent, have_own ? own : NULL, found, sizeof found)) return 0;
    owner_str(found, who, sizeof who);
    snprintf(err, errcap, "bench: %s '%s' is inside '%s', the folder of %s: a run's files are "
                          "written only by that run; choose a path outside it",
             what, path, found, who);
    return 2;
}

int outdir_check_apart(const char *what, const char *dir, char *err, size_t errcap)
{
    return outdir_refuse_inside_other(what, dir, 1, NULL, err, errcap);
}

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
            /* only trying shows it takes a folder (/proc, a read-only mount as root) */
            char probe[PATH_MAX + 48];
            snprintf(probe, sizeof probe, "%s/.bench-probe-%ld", buf, (long)getpid());
            if (mkdir(probe, 0700) != 0) {
                snprintf(err, errcap, "bench: %s '%s' cannot be made in '%s': %s", what, path, buf,
                         strerror(errno));
                return 2;
            }
            rmdir(probe);
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
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) return 0;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) { /* a FIFO or device: no run's lock */
        close(fd);
        return 0;
    }
    if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
        close(fd);
        return 0;
    }
    /* a holder that has just taken the lock writes its pid a moment later */
    for (int tries = 0; tries < 20 && pid <= 0; tries++) {
        ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
        buf[n > 0 ? n : 0] = '\0';
        pid = strtol(buf, NULL, 10);
        if (pid <= 0) {
            struct timespec ts = {0, 5000000};
            nanosleep(&ts, NULL);
        }
    }
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
    if (!has_files(out)) return 0;
    if (force && !holds_run(out)) {
        snprintf(err, errcap,
                 "bench: --force: --out '%s' does not hold an earlier bench run (no results.csv "
                 "of ours); it only replaces one",
                 out);
        return 2;
    }
    if (force) return 0;
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
        if (outdir_refuse_inside_other("the default run folder", out, 1, NULL, err, errcap)) return 2;
        if (check_creatable("results", "--out", err, errcap)) {
            snprintf(err, errcap, "bench: the default run folder results/ cannot be made here "
                                  "(%s): give --out DIR", access(".", W_OK) ? "the current folder "
                                  "is not writable" : "'results' is not a writable folder");
            return 2;
        }
        return 0;
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
    } else if (strstr(dir, "..")) {
        /* "nox/../r0" names r0, though stat() cannot see it before nox exists:
         * the checks and the claim use the path it really names */
        if (outdir_abs_path(dir, out, cap)) {
            snprintf(err, errcap, "bench: --out '%s' cannot be resolved: %s", dir, strerror(errno));
            return 2;
        }
    } else {
        snprintf(out, cap, "%s", dir);
    }
    if (outdir_refuse_inside_other("--out", out, 1, NULL, err, errcap)) return 2;
    if (stat(out, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            snprintf(err, errcap, "bench: --out '%s' is not a folder", out);
            return 2;
        }
        return check_existing(out, force, err, errcap);
    }
    return check_creatable(out, "--out", err, errcap);
}

/* mkdir -p of dir's parents. 0 or -1 (errno set). */
static int mkdir_parents(const char *dir)
{
    char buf[PATH_MAX];
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buf, 0777) == 0) remember(buf, 1);
        else if (errno != EEXIST) return -1;
        *p = '/';
    }
    return 0;
}

/* Takes dir's lock (kept until the process ends) and writes our pid in it. */
static int take_lock(const char *dir, const char *what, char *err, size_t errcap)
{
    char path[PATH_MAX + 32], pid[32];
    struct stat st;
    snprintf(path, sizeof path, "%s/" LOCK_NAME, dir);
    /* never through a link, never anything but a regular file of our own */
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd >= 0) remember(path, 0);
    else if (errno == EEXIST) fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
        /* a hard link would have the pid written into another file */
        snprintf(err, errcap, "bench: cannot lock %s '%s': %s", what, dir,
                 fd < 0 ? (errno == ELOOP ? LOCK_NAME " is a link" : strerror(errno))
                 : !S_ISREG(st.st_mode) ? LOCK_NAME " is not a regular file"
                                        : LOCK_NAME " has other names (a hard link): not written");
        if (fd >= 0) close(fd);
        return 2;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        close(fd);
        /* made here, but locked first by another process: the file is its lock now */
        if (ncreated > 0 && strcmp(created[ncreated - 1], path) == 0) ncreated--;
        long holder = lock_holder(dir);
        if (holder > 0)
            snprintf(err, errcap, "bench: %s '%s' is in use by another bench run (pid %ld)", what,
                     dir, holder);
        else
            snprintf(err, errcap, "bench: %s '%s' is in use by another bench run", what, dir);
        return 2;
    }
    int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) != 0 || write(fd, pid, (size_t)n) != n) {
        snprintf(err, errcap, "bench: cannot lock %s '%s': %s", what, dir,
                 strerror(errno ? errno : EIO));
        close(fd);
        unlink(path);
        return 1; /* a write failure (a full disk), not bad usage */
    }
    return 0; /* fd stays open: the lock lives as long as the run */
}

/* --force: the previous run's files go before the new run writes any; only
 * its own names, and never through a link (plots/ may be one). */
static int clear_run(const char *dir, char *err, size_t errcap)
{
    char path[PATH_MAX + 64];
    struct stat st;
    /* everything is checked before anything goes: a refusal touches nothing */
    for (int i = 0; RUN_FILES[i]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, RUN_FILES[i]);
        if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
            snprintf(err, errcap, "bench: --force: '%s' is not a regular file (a link, a folder?): "
                                  "nothing was touched", path);
            return 2;
        }
    }
    snprintf(path, sizeof path, "%s/" RUN_PLOTS, dir);
    if (lstat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
        snprintf(err, errcap, "bench: --force: '%s' is not a folder of charts (a link?): nothing "
                              "was touched", path);
        return 2;
    }
    for (int i = 0; RUN_FILES[i]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, RUN_FILES[i]);
        if (unlink(path) != 0 && errno != ENOENT) goto fail;
    }
    snprintf(path, sizeof path, "%s/" RUN_PLOTS, dir);
    int pfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = pfd >= 0 ? fdopendir(pfd) : NULL;
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)))
            if (chart_name(e->d_name) && fstatat(pfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                S_ISREG(st.st_mode))
                unlinkat(pfd, e->d_name, 0);
        closedir(d);
    } else if (pfd >= 0) {
        close(pfd);
    }
    return 0;
fail:
    snprintf(err, errcap, "bench: --force: cannot remove '%s': %s", path, strerror(errno));
    return 2;
}

int outdir_claim(char *out, size_t cap, int is_default, int force, char *err, size_t errcap)
{
    int rc;
    if (mkdir_parents(out) != 0) {
        snprintf(err, errcap, "bench: cannot create --out '%s': %s", out, strerror(errno));
        outdir_undo();
        return 2;
    }
    if (is_default) { /* exclusively: a run started in the same second takes the next name */
        char stamp[64];
        snprintf(stamp, sizeof stamp, "%s", out + strlen("results/"));
        for (int k = 1; mkdir(out, 0777) != 0; k++) {
            if (errno != EEXIST || k >= 1000) {
                snprintf(err, errcap, "bench: cannot create '%s': %s", out, strerror(errno));
                outdir_undo();
                return 2;
            }
            default_name(out, cap, stamp, k + 1);
        }
        remember(out, 1);
        if ((rc = take_lock(out, "--out", err, errcap))) outdir_undo(); /* leave nothing behind */
        return rc;
    }
    if (mkdir(out, 0777) == 0) {
        remember(out, 1);
    } else if (errno != EEXIST) {
        snprintf(err, errcap, "bench: cannot create --out '%s': %s", out, strerror(errno));
        outdir_undo();
        return 2;
    }
    /* checked again under the lock: the folder may have changed since */
    if ((rc = take_lock(out, "--out", err, errcap)) || (rc = check_empty(out, force, err, errcap)) ||
        (force && (rc = clear_run(out, err, errcap)))) {
        outdir_undo();
        return rc;
    }
    return 0;
}

void outdir_link_latest(const char *dir)
{
    char real[PATH_MAX], results[PATH_MAX], parent[PATH_MAX];
    if (!realpath(dir, real) || !realpath("results", results)) return;
    snprintf(parent, sizeof parent, "%s", real);
    if (strcmp(dirname(parent), results) != 0) return; /* only runs in results/ */
    const char *name = real + strlen(results) + 1;
    if (strcmp(name, "latest") == 0) return;
    struct stat st;
    if (lstat("results/latest", &st) == 0 && !S_ISLNK(st.st_mode)) {
        /* someone's own file or folder: never replaced, and said so */
        fprintf(stderr, "bench: results/latest is a %s, not a link: left as it is (it does not "
                        "name this run)\n", S_ISDIR(st.st_mode) ? "folder" : "file");
        return;
    }
    char tmp[64];
    snprintf(tmp, sizeof tmp, "results/.latest-%ld.tmp", (long)getpid());
    if (symlink(name, tmp) != 0) {
        fprintf(stderr, "bench: cannot point results/latest at this run: %s\n", strerror(errno));
        return;
    }
    if (rename(tmp, "results/latest") != 0) {
        fprintf(stderr, "bench: cannot point results/latest at this run: %s\n", strerror(errno));
        unlink(tmp);
    }
}

int outdir_check_dump(const char *dir, const char *run_dir, char *err, size_t errcap)
{
    struct stat st;
    char a[PATH_MAX], r[PATH_MAX];
    if (outdir_abs_path(dir, a, sizeof a) == 0 && outdir_abs_path(run_dir, r, sizeof r) == 0) {
        size_t n = strlen(r), m = strlen(a);
        /* never the run folder, inside it, nor around it: two runs' files would mix */
        if ((strncmp(a, r, n) == 0 && (a[n] == '\0' || a[n] == '/')) ||
            (strncmp(r, a, m) == 0 && r[m] == '/')) {
            snprintf(err, errcap, "bench: --dump '%s' overlaps the run folder '%s'; choose a "
                                  "folder of its own", dir, run_dir);
            return 2;
        }
    }
    if (outdir_refuse_inside_other("--dump", dir, 1, NULL, err, errcap)) return 2;
    if (lstat(dir, &st) == 0 && S_ISLNK(st.st_mode) && stat(dir, &st) != 0) {
        snprintf(err, errcap, "bench: --dump '%s' is a link to nothing usable: %s", dir,
                 strerror(errno));
        return 2;
    }
    if (stat(dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            snprintf(err, errcap, "bench: --dump '%s' is not a folder", dir);
            return 2;
        }
        if (has_files(dir)) {
            snprintf(err, errcap, "bench: --dump '%s' is not empty (an earlier dump?); choose a new "
                                  "or empty folder", dir);
            return 2;
        }
        if (access(dir, W_OK | X_OK) != 0) {
            snprintf(err, errcap, "bench: --dump '%s' is not writable", dir);
            return 2;
        }
        return 0;
    }
    return check_creatable(dir, "--dump", err, errcap);
}

int outdir_make_dump(const char *dir, char *err, size_t errcap)
{
    if (mkdir_parents(dir) != 0 || (mkdir(dir, 0777) == 0 ? (remember(dir, 1), 0) : errno != EEXIST)) {
        snprintf(err, errcap, "bench: cannot create --dump '%s': %s", dir, strerror(errno));
        outdir_undo();
        return 1;
    }
    /* one run at a time: the lock first, then (under it) still empty */
    int rc = take_lock(dir, "--dump", err, errcap);
    if (!rc && has_files(dir)) { /* filled since it was checked: never mix two runs' dumps */
        snprintf(err, errcap, "bench: --dump '%s' is not empty", dir);
        rc = 2;
    }
    if (rc) outdir_undo();
    return rc;
}

int outdir_lock_existing(const char *dir, const char *what, char *err, size_t errcap)
{
    int rc = take_lock(dir, what, err, errcap); /* a lock file made here is remembered */
    long pid = rc == 2 ? lock_holder(dir) : 0;
    if (pid > 0)
        snprintf(err, errcap, "bench: %s '%s' is in use by a live bench run (pid %ld); wait for it "
                              "to finish", what, dir, pid);
    else if (pid < 0)
        snprintf(err, errcap, "bench: %s '%s' is in use by a live bench run; wait for it to finish",
                 what, dir);
    return rc;
}

int outdir_hold_input(const char *dir, const char *what, char *err, size_t errcap)
{
    char path[PATH_MAX + 32];
    struct stat st;
    snprintf(path, sizeof path, "%s/" LOCK_NAME, dir);
    /* read-only: a folder without a lock file gets none */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) return 0;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) { /* a FIFO or device: no run's lock */
        close(fd);
        return 0;
    }
    if (flock(fd, LOCK_SH | LOCK_NB) == 0) return 0; /* fd stays open: no run starts meanwhile */
    close(fd);
    long pid = lock_holder(dir);
    if (pid > 0)
        snprintf(err, errcap, "bench: %s '%s' is in use by a live bench run (pid %ld); wait for it "
                              "to finish", what, dir, pid);
    else
        snprintf(err, errcap, "bench: %s '%s' is in use by a live bench run; wait for it to finish",
                 what, dir);
    return 2;
}
