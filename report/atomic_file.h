/* report/atomic_file.h - write a file whole or not at all: a temporary file
 * beside the target, renamed over it only once every byte is written. A link
 * is followed (the file it names is replaced, the link stays); a device or a
 * FIFO is written through, never renamed over. */
#ifndef REPORT_ATOMIC_FILE_H
#define REPORT_ATOMIC_FILE_H

#include <stdio.h>

typedef struct atomic_file {
    FILE *f;
    char tmp[4200];
    char path[4096];   /* the target, a link resolved (af_open_at: as shown) */
    int direct;        /* writing through to a device or FIFO */
    int dirfd;         /* af_open_at: the folder; tmp and name are in it (-1: af_open) */
    char name[256];    /* af_open_at: the target's name in dirfd */
} atomic_file;

/* Opens a temporary file next to path. 0, or -1 with the reason on stderr. */
int af_open(atomic_file *a, const char *path);
/* A file of a run folder (report.md): name in the folder open as dirfd,
 * written whole and never through a link. A link, device, FIFO or folder at
 * name is refused (-1, "is a link: not followed"); the temporary is created
 * in dirfd with O_EXCL | O_NOFOLLOW and renamed with renameat, so a link
 * swapped in meanwhile is replaced, never written through. shown is the path
 * messages name. 0, or -1 with the reason on stderr. */
int af_open_at(atomic_file *a, int dirfd, const char *name, const char *shown);
/* Closes and renames onto the target. 0, or -1 (temporary removed, reason on stderr). */
int af_commit(atomic_file *a);
/* Closes and removes the temporary; the target is left as it was. */
void af_abort(atomic_file *a);

#endif
