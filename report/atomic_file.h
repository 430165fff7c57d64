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
    char path[4096];   /* the target, a link resolved */
    int direct;        /* writing through to a device or FIFO */
} atomic_file;

/* Opens a temporary file next to path. 0, or -1 with the reason on stderr. */
int af_open(atomic_file *a, const char *path);
/* Closes and renames onto the target. 0, or -1 (temporary removed, reason on stderr). */
int af_commit(atomic_file *a);
/* Closes and removes the temporary; the target is left as it was. */
void af_abort(atomic_file *a);

#endif
