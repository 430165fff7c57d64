/* bench/outdir.h - choosing, checking and creating the run folder. */
#ifndef BENCH_OUTDIR_H
#define BENCH_OUTDIR_H

#include <stddef.h>

/* Fills out with dir, or results/<UTC time> when dir is "" (a suffix -2, -3...
 * when that exists). Checks, creating nothing, that it can be made and
 * written. Returns 0, or 2 with one line in err. */
int outdir_choose(const char *dir, char *out, size_t cap, char *err, size_t errcap);

/* Checks that a file could be created at path (its folder exists and is
 * writable, or would be created under a writable one). 0 or 2 with err. */
int outdir_check_file(const char *path, char *err, size_t errcap);

/* mkdir -p. Returns 0 or -1 (errno set). */
int outdir_mkdirs(const char *dir);

/* Points results/latest at the run folder when it lives in results/. */
void outdir_link_latest(const char *dir);

#endif
