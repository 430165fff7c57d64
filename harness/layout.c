/* harness/layout.c - declaring a problem's buffers (see layout.h). */
#include "layout.h"

int layout_add(case_layout *l, const char *name, buf_role role, buf_split split, size_t bytes)
{
    if (l->nbufs >= LAYOUT_MAX_BUFS) return -1;
    case_buf *b = &l->buf[l->nbufs];
    b->name = name;
    b->role = role;
    b->split = split;
    b->bytes = bytes;
    return l->nbufs++;
}
