/* report/atomic_file.c - temp file + rename (see atomic_file.h). */
#define _POSIX_C_SOURCE 200809L
#include "atomic_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int af_open(atomic_file *a, const char *path)
{
    snprintf(a->path, sizeof a->path, "%s", path);
    snprintf(a->tmp, sizeof a->tmp, "%s.tmp.XXXXXX", path);
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

int af_commit(atomic_file *a)
{
    int bad = ferror(a->f);
    if (fclose(a->f) != 0) bad = 1;
    a->f = NULL;
    if (!bad && rename(a->tmp, a->path) == 0) return 0;
    fprintf(stderr, "bench: cannot write '%s': %s\n", a->path, strerror(errno ? errno : EIO));
    unlink(a->tmp);
    return -1;
}

void af_abort(atomic_file *a)
{
    if (a->f) fclose(a->f);
    a->f = NULL;
    unlink(a->tmp);
}
