/* bench/suites.c - the table of suites. */
#include "suite.h"

#include <string.h>

const suite_def *const SUITES[] = {&SUITE_MATMUL, &SUITE_TRANSFER, NULL};

const suite_def *suite_find(const char *name)
{
    for (int i = 0; SUITES[i]; i++)
        if (strcmp(SUITES[i]->name, name) == 0) return SUITES[i];
    return NULL;
}

int suite_backend_selected(const bench_opts *o, const char *backend)
{
    if (o->nbackends == 0) return 1;
    for (int i = 0; i < o->nbackends; i++)
        if (strcmp(o->backends[i], backend) == 0) return 1;
    return 0;
}
