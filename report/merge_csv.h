/* report/merge_csv.h - a merge folder's results.csv from its inputs (bench
 * --merge): every input row with its machine, the context lines merge.h
 * names, written whole (temporary + rename) into the merge folder. */
#ifndef REPORT_MERGE_CSV_H
#define REPORT_MERGE_CSV_H

#include "rundata.h"

/* How input in's run ended, into out: "finished: N rows", "interrupted:
 * SIG", "stopped: ...", or "none recorded (killed, or an older bench):
 * possibly incomplete". */
void merge_input_end(const rundata *in, char *out, size_t cap);

/* Writes results.csv in the folder dirfd (shown: its path, for messages)
 * from in[0..n) (their folders dirs[], machines mach[]), reference machine
 * ref, the merge's command line and extra context lines (the prices and
 * weights, report/merge_mix.h) after the inputs'. 0, or -1 with the reason on stderr (the
 * folder is left without a results.csv). */
int merge_write_csv(const rundata *in, const char *const *dirs, const char *const *mach, int n,
                    const char *ref, const char *command, const char *const *extra, int nextra,
                    int dirfd, const char *shown);

#endif
