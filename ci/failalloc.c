/* ci/failalloc.c - an LD_PRELOAD shim for out-of-memory tests: with
 * FAILALLOC_AT=N the Nth malloc, calloc or realloc called from the main
 * executable returns NULL (errno ENOMEM), once; with FAILALLOC_COUNT=FILE the
 * number of such calls is written to FILE at exit, so a test can sweep N over
 * every allocation the program makes. Calls from shared libraries (libc's
 * stdio, the loader) pass through untouched: the sweep tests our error
 * paths, not libc's. Not for sanitizer builds (ASan owns the allocator):
 * its tests carry the no-sanitize label. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

static unsigned long exe_lo, exe_hi; /* the main executable's mappings */
static long fail_at = -1, calls;

/* Finds the address range of the main executable in /proc/self/maps. */
__attribute__((constructor)) static void failalloc_init(void)
{
    char exe[4096], line[4600];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return;
    exe[n] = '\0';
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return;
    unsigned long lo = (unsigned long)-1, hi = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long a, b;
        char *path = strchr(line, '/');
        if (!path || sscanf(line, "%lx-%lx", &a, &b) != 2) continue;
        path[strcspn(path, "\n")] = '\0';
        if (strcmp(path, exe) != 0) continue;
        if (a < lo) lo = a;
        if (b > hi) hi = b;
    }
    fclose(f);
    const char *at = getenv("FAILALLOC_AT");
    fail_at = at ? atol(at) : -1;
    exe_lo = lo;
    exe_hi = hi;
}

__attribute__((destructor)) static void failalloc_report(void)
{
    const char *path = getenv("FAILALLOC_COUNT");
    FILE *f = path ? fopen(path, "w") : NULL;
    if (!f) return;
    fprintf(f, "%ld\n", calls);
    fclose(f);
}

/* Whether this call (returning to ra) is the one to fail. */
static int fail_now(void *ra)
{
    unsigned long a = (unsigned long)ra;
    if (a < exe_lo || a >= exe_hi) return 0;
    if (++calls != fail_at) return 0;
    errno = ENOMEM;
    return 1;
}

void *malloc(size_t n) { return fail_now(__builtin_return_address(0)) ? NULL : __libc_malloc(n); }
void *calloc(size_t n, size_t m) { return fail_now(__builtin_return_address(0)) ? NULL : __libc_calloc(n, m); }
void *realloc(void *p, size_t n) { return fail_now(__builtin_return_address(0)) ? NULL : __libc_realloc(p, n); }
