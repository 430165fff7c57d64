/* harness/csv.c - the one CSV writer (see csv.h; the reader is csv_read.c). */
#define _POSIX_C_SOURCE 200809L
#include "csv.h"
#include "schema.h"

#include "interrupt.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct csv_writer {
    int fd;
    int failed;
    int err;        /* errno of the first failure */
    off_t size;     /* bytes of whole rows in the file */
};

/* All of buf with write(2), looping on partial writes: a row reaches the file
 * in one system call (stdio would split it at its 4 KiB buffer). */
static int write_all(int fd, const char *buf, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, buf, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        buf += w;
        n -= (size_t)w;
    }
    return 0;
}

int csv_quote(const char *field, char *out, size_t cap)
{
    size_t n = 0;
    /* also a leading '#', which a reader would take for a context line */
    int quote = strpbrk(field, ",\"\r\n") != NULL || field[0] == '#';
    if (quote) {
        if (n + 1 >= cap) return -1;
        out[n++] = '"';
    }
    for (const char *p = field; *p; p++) {
        size_t need = (*p == '"' && quote) ? 2 : 1;
        if (n + need >= cap) return -1;
        if (*p == '"' && quote) out[n++] = '"';
        out[n++] = *p;
    }
    if (quote) {
        if (n + 1 >= cap) return -1;
        out[n++] = '"';
    }
    out[n] = '\0';
    return (int)n;
}

#include "csv_impl.h"

static int lb_field(linebuf *b, const char *field)
{
    size_t len = strlen(field);
    size_t cap = 2 * len + 3;
    char *q = malloc(cap);
    if (!q) return -1;
    int qn = csv_quote(field, q, cap);
    int rc = lb_put(b, q, (size_t)qn);
    free(q);
    return rc;
}

static int lb_num(linebuf *b, double v)
{
    char tmp[40] = "";
    if (!isnan(v)) snprintf(tmp, sizeof tmp, "%.10g", v);
    return lb_field(b, tmp);
}

static int lb_int(linebuf *b, int v)
{
    char tmp[24];
    snprintf(tmp, sizeof tmp, "%d", v);
    return lb_field(b, tmp);
}

/* Every sample, ';'-separated (a field with no comma: never quoted). */
static int lb_samples(linebuf *b, const double *x, int n)
{
    char tmp[40];
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        int len = snprintf(tmp, sizeof tmp, "%s%.6g", i ? ";" : "", x[i]);
        rc = lb_put(b, tmp, (size_t)len);
    }
    return rc;
}

void csv_put_head(FILE *f, const char *const *context, int ncontext)
{
    for (int i = 0; i < ncontext; i++) {
        /* context lines must stay one line each */
        fputs("# ", f);
        for (const char *p = context[i]; *p; p++) fputc(*p == '\n' || *p == '\r' ? ' ' : *p, f);
        fputc('\n', f);
    }
    for (int i = 0; i < COL_COUNT; i++) {
        fputs(SCHEMA[i].name, f);
        fputc(i + 1 < COL_COUNT ? ',' : '\n', f);
    }
}

int csv_put_cells(FILE *f, const char *const *cells, int n)
{
    char small[512], *buf = small;
    size_t cap = sizeof small;
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        size_t need = 2 * strlen(cells[i]) + 3; /* every character a doubled quote, and two */
        if (need > cap) {
            char *g = realloc(buf == small ? NULL : buf, need);
            if (!g) {
                rc = -1;
                break;
            }
            buf = g;
            cap = need;
        }
        if (csv_quote(cells[i], buf, cap) < 0 || fputs(buf, f) < 0 || fputc(i + 1 < n ? ',' : '\n', f) < 0)
            rc = -1;
    }
    if (buf != small) free(buf);
    return rc;
}

csv_writer *csv_writer_open(const char *path, const char *const *context, int ncontext)
{
    FILE *f = fopen(path, "wx"); /* a new file: never through a link, never over a run's CSV */
    if (!f) return NULL;
    csv_writer *w = calloc(1, sizeof *w);
    if (!w) {
        fclose(f);
        errno = ENOMEM;
        return NULL;
    }
    csv_put_head(f, context, ncontext);
    if (fflush(f) != 0 || ferror(f)) w->failed = 1;
    /* rows go straight to the descriptor from here on */
    w->fd = dup(fileno(f));
    if (fclose(f) != 0 || w->fd < 0) w->failed = 1;
    if (w->failed) {
        w->err = errno ? errno : EIO;
    } else {
        w->size = lseek(w->fd, 0, SEEK_END);
    }
    return w;
}

int csv_write_row(csv_writer *w, const result_row *r)
{
    linebuf b = {0};
    int rc = 0;
    for (int c = 0; c < COL_COUNT && rc == 0; c++) {
        const schema_col *col = &SCHEMA[c];
        const char *field = (const char *)r + col->offset;
        if (c > 0) rc |= lb_put(&b, ",", 1);
        switch (col->type) {
        case COLT_STR: rc |= lb_field(&b, field); break;
        case COLT_INT: rc |= lb_int(&b, *(const int *)(const void *)field); break;
        case COLT_NUM: rc |= lb_num(&b, *(const double *)(const void *)field); break;
        case COLT_SAMP: rc |= lb_samples(&b, r->samples, r->nsamples); break;
        }
    }
    rc |= lb_put(&b, "\n", 1);
    if (rc) {
        w->err = ENOMEM;
    } else if (w->failed || write_all(w->fd, b.s, b.n) != 0) {
        /* a full disk, a size limit: no half row stays behind */
        if (!w->failed) w->err = errno;
        if (ftruncate(w->fd, w->size) == 0) lseek(w->fd, w->size, SEEK_SET);
        rc = -1;
    } else {
        w->size += (off_t)b.n;
    }
    free(b.s);
    if (rc) w->failed = 1;
    return rc ? -1 : 0;
}

int csv_writer_close(csv_writer *w)
{
    if (!w) return 0;
    int rc = w->failed ? -1 : 0;
    if (w->fd >= 0 && (fsync(w->fd) != 0 || close(w->fd) != 0)) {
        if (!w->failed && errno != EINVAL) { /* fsync on a pipe or device: EINVAL */
            w->err = errno;
            rc = -1;
        }
    }
    free(w);
    return rc;
}

int csv_write_context(csv_writer *w, const char *line)
{
    linebuf b = {0};
    int rc = lb_put(&b, "# ", 2);
    for (const char *p = line; *p && rc == 0; p++) rc = lb_put(&b, *p == '\n' || *p == '\r' ? " " : p, 1);
    if (rc == 0) rc = lb_put(&b, "\n", 1);
    if (rc == 0 && !w->failed && write_all(w->fd, b.s, b.n) == 0) {
        w->size += (off_t)b.n;
    } else {
        if (!w->failed) w->err = rc ? ENOMEM : errno;
        if (ftruncate(w->fd, w->size) == 0) lseek(w->fd, w->size, SEEK_SET);
        w->failed = 1;
        rc = -1;
    }
    free(b.s);
    return rc ? -1 : 0;
}

const char *csv_writer_error(const csv_writer *w)
{
    return w && w->err ? strerror(w->err) : "write error";
}
