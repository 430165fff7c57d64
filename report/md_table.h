/* report/md_table.h - markdown table cells for report.md (report_md.c and
 * report_steps.c write their tables with these). */
#ifndef REPORT_MD_TABLE_H
#define REPORT_MD_TABLE_H

#include <stdio.h>

/* A table cell "| s ": '|' escaped, line breaks as spaces. */
void md_cell(FILE *f, const char *s);
/* A number cell with printf format fmt, or an empty cell when v is not finite. */
void md_numcell(FILE *f, const char *fmt, double v);

#endif
