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

int layout_add_dt(case_layout *l, const char *name, buf_role role, buf_split split, dtype_t dt,
                  size_t count)
{
    int i = layout_add(l, name, role, split, count * dtype_size(dt));
    if (i < 0) return -1;
    l->buf[i].typed = 1;
    l->buf[i].dtype = dt;
    l->buf[i].count = count;
    return i;
}
