/* harness/fdpath.c - see fdpath.h. */
#include "fdpath.h"

#include <stdlib.h>
#include <string.h>

int fdpath_alias(const char *path)
{
    static const char *const PREFIXES[] = {"/dev/fd/", "/proc/self/fd/", NULL};
    if (strcmp(path, "/dev/stdout") == 0) return 1;
    if (strcmp(path, "/dev/stderr") == 0) return 2;
    for (int i = 0; PREFIXES[i]; i++) {
        size_t n = strlen(PREFIXES[i]);
        if (strncmp(path, PREFIXES[i], n) != 0 || !path[n]) continue;
        char *end;
        long fd = strtol(path + n, &end, 10);
        if (*end == '\0' && fd >= 0 && fd < 1 << 20 && path[n] >= '0' && path[n] <= '9') return (int)fd;
    }
    return -1;
}
