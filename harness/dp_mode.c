/* harness/dp_mode.c - the data-parallel modes by name (dp_mode.h). */
#include "dp_mode.h"

#include <string.h>

const dp_mode DP_MODES[] = {
    {.name = "dp-gather", .scheme = DP_GATHER,
     .about = "gradients reduced to replica 0, which updates and broadcasts"},
    {.name = "ddp", .scheme = DP_DDP, .about = "gradients all-reduced after the backward pass"},
    {.name = "ddp-overlap", .scheme = DP_DDP_OVERLAP,
     .about = "gradients all-reduced in buckets during the backward pass"},
    {.name = "hogwild", .scheme = DP_HOGWILD, .workers = 1,
     .about = "--workers forked processes update shared parameters without locks"},
    {.name = NULL},
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
