/* report/atomic_file.c - temp file + rename (see atomic_file.h). */
#define _GNU_SOURCE
#include "atomic_file.h"
#include "fdpath.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A device or FIFO (what a link names, too) is written through: it can be
 * neither made beside nor renamed over (`--json /dev/null` as root would turn
 * /dev/null into a regular file). O_NONBLOCK only for the open: a FIFO with
 * no reader is an error, not a hang. */
static int open_direct(atomic_file *a)
{
    int fd = open(a->path, O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0 || fcntl(fd, F_SETFL, 0) != 0 || !(a->f = fdopen(fd, "w"))) {
        fprintf(stderr, "bench: cannot write '%s': %s\n", a->path,
                errno == ENXIO ? "a FIFO with no reader" : strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    a->direct = 1;
    return 0;
}

int af_open(atomic_file *a, const char *path)
{
    struct stat st;
    int alias = fdpath_alias(path);
    a->f = NULL;
    a->direct = 0;
    a->dirfd = -1;
    a->tmp[0] = '\0';
    snprintf(a->path, sizeof a->path, "%s", path);
    if (alias >= 0) { /* /dev/stdout & co.: the descriptor itself, never what it names */
        int fd = dup(alias);
        if (fd < 0 || !(a->f = fdopen(fd, "w"))) {
            fprintf(stderr, "bench: cannot write '%s': %s\n", path, strerror(errno));
            if (fd >= 0) close(fd);
            return -1;
        }
        a->direct = 1;
        return 0;
    }
    /* a link is followed: the file it names is replaced (never the link) */
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && !realpath(path, a->path)) {
        fprintf(stderr, "bench: cannot write '%s': a link to nothing usable (%s)\n", path,
                strerror(errno));
        return -1;
    }
    if (stat(a->path, &st) == 0 && !S_ISREG(st.st_mode)) {
        if (S_ISDIR(st.st_mode)) {
            fprintf(stderr, "bench: cannot write '%s': it is a folder\n", path);
            return -1;
        }
        return open_direct(a);
    }
    snprintf(a->tmp, sizeof a->tmp, "%s.tmp.XXXXXX", a->path);
    int fd = mkstemp(a->tmp);
    if (fd < 0) {
        fprintf(stderr, "bench: cannot write '%s': %s\n", path, strerror(errno));
        return -1;
    }
    fchmod(fd, 0644); /* mkstemp makes 0600; a report is for reading */
    a->f = fdopen(fd, "w");
    if (!a->f) {
        fprintf(stderr, "bench: cannot write '%s': %s\n", path, strerror(errno));
        close(fd);
        unlink(a->tmp);
        return -1;
    }
    return 0;
}

int af_open_at(atomic_file *a, int dirfd, const char *name, const char *shown)
{
    struct stat st;
    int fd = -1;
    a->f = NULL;
    a->direct = 0;
    a->dirfd = dirfd;
    snprintf(a->name, sizeof a->name, "%s", name);
    snprintf(a->path, sizeof a->path, "%s", shown);
    if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode)) {
        fprintf(stderr, "bench: cannot write '%s': it is %s, not a regular file (never written "
                        "through nor replaced)\n", shown,
                S_ISLNK(st.st_mode) ? "a link" : S_ISDIR(st.st_mode) ? "a folder" : "a device or FIFO");
        return -1;
    }
    /* a name of our own beside the target: pid and a counter, made exclusively */
    static unsigned serial;
    for (int tries = 0; fd < 0 && tries < 100; tries++) {
        snprintf(a->tmp, sizeof a->tmp, ".%s.tmp.%ld.%u", name, (long)getpid(), serial++);
        fd = openat(dirfd, a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0 || !(a->f = fdopen(fd, "w"))) {
        fprintf(stderr, "bench: cannot write '%s': %s\n", shown, strerror(errno));
        if (fd >= 0) {
            close(fd);
            unlinkat(dirfd, a->tmp, 0);
        }
        return -1;
    }
    return 0;
}

int af_commit(atomic_file *a)
{
    int bad = ferror(a->f);
    if (fclose(a->f) != 0) bad = 1;
    a->f = NULL;
    if (a->direct) {
        if (!bad) return 0;
        fprintf(stderr, "bench: cannot write '%s': %s\n", a->path, strerror(errno ? errno : EIO));
        return -1;
    }
    if (!bad && (a->dirfd >= 0 ? renameat(a->dirfd, a->tmp, a->dirfd, a->name)
                               : rename(a->tmp, a->path)) == 0)
        return 0;
    fprintf(stderr, "bench: cannot write '%s': %s\n", a->path, strerror(errno ? errno : EIO));
    if (a->dirfd >= 0) unlinkat(a->dirfd, a->tmp, 0);
    else unlink(a->tmp);
    return -1;
}

void af_abort(atomic_file *a)
{
    if (a->f) fclose(a->f);
    a->f = NULL;
    if (a->direct) return;
    if (a->dirfd >= 0) unlinkat(a->dirfd, a->tmp, 0);
    else unlink(a->tmp);
}
