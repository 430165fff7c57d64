/* harness/dp_mode.c - the data-parallel modes by name (dp_mode.h). */
#include "dp_mode.h"

#include <string.h>

const dp_mode DP_MODES[] = {
    {"dp-gather", DP_GATHER},
    {"ddp", DP_DDP},
    {"ddp-overlap", DP_DDP_OVERLAP},
    {NULL, DP_DDP},
};

const dp_mode *dp_mode_find(const char *name)
{
    for (int i = 0; DP_MODES[i].name; i++)
        if (strcmp(DP_MODES[i].name, name) == 0) return &DP_MODES[i];
    return NULL;
}

int dp_shard(int B, int n, int r, int *off)
{
    int base = B / n, extra = B % n;
    *off = r * base + (r < extra ? r : extra);
    return base + (r < extra ? 1 : 0);
}
