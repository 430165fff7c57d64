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

int schema_col_timed(int col)
{
    static const struct {
        int col, from_time;
    } TIMED[] = {{COL_MIN_MS, 0},        {COL_MAX_MS, 0},        {COL_MAD_MS, 0},
                 {COL_H2D_MS, 0},        {COL_COMPUTE_MS, 0},    {COL_D2H_MS, 0},
                 {COL_ALLOC_MS, 0},      {COL_PHASE_MS, 0},      {COL_GFLOPS, 1},
                 {COL_GBPS, 1},          {COL_BUSBW_GBPS, 1},    {COL_SAMPLES_PER_S, 1},
                 {COL_SPEEDUP, 1},       {COL_OVERLAP_EFF, 1},   {COL_SCALING_EFF, 1},
                 {COL_PCT_ROOF, 1},      {COL_SPEEDUP_VS_BEST_CPU, 1}, {COL_COMM_MS, 1},
                 {COL_DISTURBED_X, 1},   {COL_NEIGHBOUR_X, 1}};
    for (size_t i = 0; i < sizeof TIMED / sizeof TIMED[0]; i++)
        if (TIMED[i].col == col) return 1 + TIMED[i].from_time;
    return 0;
}

void schema_print_markdown(FILE *f)
{
    fprintf(f, "| column | meaning |\n|---|---|\n");
    for (int i = 0; i < COL_COUNT; i++) {
        fprintf(f, "| `%s` | %s", SCHEMA[i].name, SCHEMA[i].doc);
        if (i == COL_EMULATED) /* the columns of each kind, from their one table */
            for (int kind = 1; kind <= 2; kind++) {
                fprintf(f, kind == 1 ? " `median_ms`, `samples_ms`" : "; empty:");
                for (int c = 0, n = 0; c < COL_COUNT; c++)
                    if (schema_col_timed(c) == kind)
                        fprintf(f, "%s `%s`", n++ || kind == 1 ? "," : "", SCHEMA[c].name);
            }
        fprintf(f, " |\n");
    }
}
