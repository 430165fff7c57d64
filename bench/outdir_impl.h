/* bench/outdir_impl.h - internal to outdir.c and outdir_paths.c: the names a
 * run folder holds and the two helpers both files use. */
#ifndef BENCH_OUTDIR_IMPL_H
#define BENCH_OUTDIR_IMPL_H

#include <stddef.h>

#define LOCK_NAME ".bench.lock"
#define RUN_PLOTS "plots"

/* path made absolute and lexically normal as mkdir -p reads it (the parts
 * that exist resolved, the rest kept): 0, or -1 with errno. */
int outdir_abs_path(const char *path, char *out, size_t cap);

/* A file that belongs to a run is written only by that run: 2 (one line in
 * err) when what's path (--out, --dump, --json; from_parent: its own folder,
 * else the path itself) or a folder above it is another run's folder than
 * own_dir (NULL: none is ours); else 0. */
int outdir_refuse_inside_other(const char *what, const char *path, int from_parent,
                               const char *own_dir, char *err, size_t errcap);

#endif
