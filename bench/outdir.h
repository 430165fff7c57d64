/* bench/outdir.h - the run folder: chosen and checked before any work, then
 * created and locked for the run's lifetime.
 *
 * A run owns its folder: the default results/<UTC time> is created
 * exclusively (a run started in the same second takes <time>-2, -3, ...); an
 * --out folder that exists must be empty unless --force, which removes the
 * previous run's files (results.csv, report.md, plots/) before anything is
 * written; a link (results/latest) is resolved to the folder it names; a
 * folder another bench run holds is refused naming its pid (flock on
 * <dir>/.bench.lock, kept until the process ends). */
#ifndef BENCH_OUTDIR_H
#define BENCH_OUTDIR_H

#include <stddef.h>

/* Fills out with dir (a link resolved), or results/<UTC time> when dir is "".
 * Checks, creating nothing, that the run may use it. 0, or 2 with one line in err. */
int outdir_choose(const char *dir, int force, char *out, size_t cap, char *err, size_t errcap);

/* Creates out (with its parents; the default name exclusively, renaming out
 * to the next free name), locks it (never through a link), and with force
 * clears the previous run: only a folder holding a bench results.csv, only
 * its own files (results.csv, report.md, results.json, plots/ charts).
 * 0; 2 with one line in err; 1 when writing the lock failed (a full disk). */
int outdir_claim(char *out, size_t cap, int is_default, int force, char *err, size_t errcap);

/* Checks that a file could be written at path before any work: a device or
 * FIFO is written through; otherwise its folder must take a new file (tried).
 * 0 or 2 with err. */
int outdir_check_file(const char *path, char *err, size_t errcap);

/* --json, checked before any work: not the run folder nor its own files
 * (results.csv, report.md, the lock, plots/; results.json is fine), and
 * writable (outdir_check_file) unless it goes straight into the run folder.
 * 0, or 2 with err. */
int outdir_check_json(const char *json, const char *run_dir, char *err, size_t errcap);

/* --dump DIR, checked before any work: a new folder (creatable) or an empty
 * one, apart from the run folder (neither inside the other). 0, or 2 with err. */
int outdir_check_dump(const char *dir, const char *run_dir, char *err, size_t errcap);
/* Creates it (with parents) just before the run, locks it as outdir_claim
 * locks the run folder (a second run is refused naming the holder), and
 * checks it is still empty. 0; 1 or 2 with err. */
int outdir_make_dump(const char *dir, char *err, size_t errcap);

/* Whether name is one of the files a run writes into its folder. */
int outdir_is_run_file(const char *name);

/* A path the chart scripts can open: no control character or quote. 0 or 2. */
int outdir_name_ok(const char *what, const char *path, char *err, size_t errcap);

/* A run's files are written only by that run, for a folder another action writes into (--plot DIR): refused (2,
 * err) when a folder above it is another run's. */
int outdir_check_apart(const char *what, const char *dir, char *err, size_t errcap);

/* Removes what this process created on its way to a run (the lock files,
 * the run and dump folders and their parents, when still empty), newest
 * first: a refusal (exit 2) after outdir_claim leaves nothing behind. */
void outdir_undo(void);

/* Points results/latest at the run folder when it lives in results/ and
 * results/latest is a link or absent (a file or folder of that name is left
 * alone, with one line on stderr). */
void outdir_link_latest(const char *dir);

/* bench --plot DIR: takes the lock of an existing folder as a run does (never
 * through a link), so that it writes only while no run and no other --plot
 * does; a live holder is refused naming its pid ("... is in use by a live
 * bench run (pid N); wait for it to finish"). A lock file made here is
 * remembered: outdir_undo removes it again, so a folder that had none is left
 * without one. 0; 2 with err; 1 when writing the lock failed (a full disk). */
int outdir_lock_existing(const char *dir, const char *what, char *err, size_t errcap);

/* bench --merge: an input folder, read while no run writes it: a shared
 * hold on its lock file when it has one (never one made: inputs are never
 * written), kept until the process ends, so a run (--force) cannot start in
 * it meanwhile. A live holder is refused as outdir_lock_existing says it.
 * 0, or 2 with err. */
int outdir_hold_input(const char *dir, const char *what, char *err, size_t errcap);

#endif
