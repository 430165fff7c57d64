/* harness/fdpath.h - names that stand for an open descriptor of this process:
 * /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N. Writing to one must
 * go to that descriptor (dup), never through what it resolves to (reopening a
 * redirected stdout's file would start it over at offset 0, and a rename would
 * replace it). */
#ifndef HARNESS_FDPATH_H
#define HARNESS_FDPATH_H

#ifdef __cplusplus
extern "C" {
#endif

/* The descriptor path stands for, or -1 when it is an ordinary path. */
int fdpath_alias(const char *path);

#ifdef __cplusplus
}
#endif
#endif
