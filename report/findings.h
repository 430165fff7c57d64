/* report/findings.h - what a run found, on one screen: the opening section
 * of report.md and the summary bench prints on stdout, written once.
 *
 * In order: the machine and whether it was quiet (the `quiet:` context line,
 * rows that stayed disturbed, the `roof-…` context lines); the checks; per
 * suite the fastest backend on each device (the one fastest on the most
 * problems) and the GPU ÷ best-CPU speedup (speedup_vs_best_cpu) in each
 * mode; the crossovers (crossover.h; the first FINDINGS_MAX_XO, the rest in
 * a section of their own); rows far below or above their roof (verdict low
 * or above-roof, with the note); the accuracy each reduced dtype gave up
 * (the largest accuracy_lost); skipped backends, one line per reason.
 * Emulated rows are counted but never timed, ranked or crossed.
 */
#ifndef REPORT_FINDINGS_H
#define REPORT_FINDINGS_H

#include <stdio.h>
#include "rundata.h"

/* Crossover sentences the findings show; more go to a section below them. */
#define FINDINGS_MAX_XO 10
/* Reasons of rows far from their roof the findings name, a line each (the
 * rows sharing one counted on it); more reasons are counted. */
#define FINDINGS_MAX_ROOF 8

typedef enum { FINDINGS_MD, FINDINGS_TEXT } findings_style;

/* Writes the findings of rd into f: markdown ("## Findings", a bullet a
 * line) or plain text (stdout: two spaces a line, no markup). */
void findings_write(const rundata *rd, FILE *f, findings_style style);

/* Markdown: "## Crossovers", every crossover sentence, when there are more
 * than the findings show; nothing otherwise. */
void findings_crossovers_write(const rundata *rd, FILE *f);

#endif
