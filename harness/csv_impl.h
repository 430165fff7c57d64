/* harness/csv_impl.h - internal to csv.c (the writer) and csv_read.c (the
 * reader): the growable line buffer both assemble records in. */
#ifndef HARNESS_CSV_IMPL_H
#define HARNESS_CSV_IMPL_H

#include <stdlib.h>
#include <string.h>

/* A growable line buffer: rows are assembled whole, then written at once. */
typedef struct {
    char *s;
    size_t n, cap;
} linebuf;

static inline int lb_put(linebuf *b, const char *s, size_t len)
{
    if (b->n + len + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 512;
        while (b->n + len + 1 > cap) cap *= 2;
        char *p = realloc(b->s, cap);
        if (!p) return -1;
        b->s = p;
        b->cap = cap;
    }
    memcpy(b->s + b->n, s, len);
    b->n += len;
    b->s[b->n] = '\0';
    return 0;
}

#endif
