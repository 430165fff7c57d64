/* report/md_table.c - markdown table cells (see md_table.h). */
#include "md_table.h"

#include <math.h>

void md_cell(FILE *f, const char *s)
{
    fputs("| ", f);
    for (; *s; s++) {
        if (*s == '|') fputs("\\|", f);
        else if (*s == '\n' || *s == '\r') fputc(' ', f);
        else fputc(*s, f);
    }
    fputc(' ', f);
}

void md_numcell(FILE *f, const char *fmt, double v)
{
    char buf[64] = "";
    if (isfinite(v)) snprintf(buf, sizeof buf, fmt, v);
    md_cell(f, buf);
}
