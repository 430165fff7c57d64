/* tests/csvq.c - csvq FILE COLUMN... : prints the named columns of every row,
 * tab-separated, through the harness CSV reader (quoted fields and all), so
 * shell tests can assert on values. Exit 2 on an unreadable file or an
 * unknown column. */
#include "csv.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    char err[512];
    if (argc < 3) {
        fprintf(stderr, "usage: csvq FILE COLUMN...\n");
        return 2;
    }
    csv_table *t = csv_read(argv[1], err, sizeof err);
    if (!t) {
        fprintf(stderr, "csvq: %s\n", err);
        return 2;
    }
    int cols[64], n = argc - 2 < 64 ? argc - 2 : 64;
    for (int i = 0; i < n; i++) {
        cols[i] = csv_col(t, argv[i + 2]);
        if (cols[i] < 0) {
            fprintf(stderr, "csvq: %s: no column '%s'\n", argv[1], argv[i + 2]);
            csv_table_free(t);
            return 2;
        }
    }
    for (int r = 0; r < t->nrows; r++)
        for (int i = 0; i < n; i++)
            printf("%s%c", csv_field(t, r, cols[i]), i + 1 < n ? '\t' : '\n');
    csv_table_free(t);
    return 0;
}
