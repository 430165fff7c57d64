/* harness/schema.c - the column table (see schema.h). */
#include "schema.h"
#include "result.h"
#include "../ops/dtype.h"

#include <stdio.h>

#include <stddef.h>
#include <string.h>

#define SCHEMA_ROW_(id, nm, type, field, dc)                                                   \
    [COL_##id] = {nm, COLT_##type, offsetof(result_row, field), sizeof(((result_row *)0)->field), dc},
const schema_col SCHEMA[COL_COUNT] = {SCHEMA_COLUMNS(SCHEMA_ROW_)};
#undef SCHEMA_ROW_

int schema_find(const char *name)
{
    for (int i = 0; i < COL_COUNT; i++)
        if (strcmp(SCHEMA[i].name, name) == 0) return i;
    return -1;
}

const char *schema_allowed(int col)
{
    switch (col) {
    case COL_CHECK: return "pass fail skip";
    case COL_EMULATED: return "0 1";
    case COL_DEVICE_KIND: return "cpu gpu";
    case COL_DTYPE: { /* the dtype table's names, every one */
        static char names[96];
        if (!names[0]) dtype_list((1u << DTYPE_COUNT) - 1, " ", names, sizeof names);
        return names;
    }
    case COL_VERDICT: return "at-roof ok low above-roof";
    case COL_BOUND: return "compute bandwidth transfer";
    case COL_DISTURBED: return "0 1";
    case COL_ROLE: return "ours library reference";
    default: return NULL;
    }
}

/* dtype: a file from before the column reads fp32 (csv_schema.c's key) */
int schema_allows_empty(int col)
{
    return col == COL_VERDICT || col == COL_BOUND || col == COL_ROLE || col == COL_DTYPE;
}

void schema_print_markdown(FILE *f)
{
    fprintf(f, "| column | meaning |\n|---|---|\n");
    for (int i = 0; i < COL_COUNT; i++) fprintf(f, "| `%s` | %s |\n", SCHEMA[i].name, SCHEMA[i].doc);
}
