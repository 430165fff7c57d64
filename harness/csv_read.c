/* harness/csv_read.c - the small RFC 4180 reader: bounded, refusing what it
 * cannot read whole (see csv.h; the writer is csv.c). */
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

#include "csv_impl.h"

#include <stdio.h>

/* ---- reader ------------------------------------------------------------ */

void csv_errorf(char *err, size_t cap, const char *fmt, ...)
{
    if (!err || !cap) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, cap, fmt, ap);
    va_end(ap);
}

static char *dup_range(const char *s, size_t n)
{
    char *p = malloc(n + 1);
    if (!p) return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

static int push_ptr(void ***arr, int *n, int *cap, void *p)
{
    if (*n == *cap) {
        int c = *cap ? *cap * 2 : 16;
        void **q = realloc(*arr, (size_t)c * sizeof *q);
        if (!q) return -1;
        *arr = q;
        *cap = c;
    }
    (*arr)[(*n)++] = p;
    return 0;
}

/* ---- the bounded byte source ------------------------------------------ */

/* A regular file read in 64 KiB chunks: at most CSV_MAX_BYTES in all, the
 * interrupt flag checked at every chunk (and on EINTR), so no input, however
 * large or endless, holds more than a chunk and the current row. */
typedef struct csv_src {
    int fd;
    const char *path;
    size_t pos, len;
    unsigned long long total;
    char buf[65536];
} csv_src;

/* Refills s->buf: 0 (len 0 at the end of the file) or -1 with err set. */
static int src_fill(csv_src *s, char *err, size_t errcap)
{
    s->pos = s->len = 0;
    for (;;) {
        /* a signal that arrives while reading stops it; the one that ended a
         * run does not stop that run's report (nor does SIGPIPE, ever) */
        if (interrupt_stops_reading()) {
            csv_errorf(err, errcap, "%s: reading interrupted by %s", s->path,
                       interrupt_name(interrupt_signal()));
            return -1;
        }
        ssize_t n = read(s->fd, s->buf, sizeof s->buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            csv_errorf(err, errcap, "%s: read error: %s", s->path, strerror(errno));
            return -1;
        }
        s->total += (unsigned long long)n;
        if (s->total > CSV_MAX_BYTES) {
            csv_errorf(err, errcap, "%s: longer than %d bytes (256 MiB, the limit of a results.csv)",
                       s->path, CSV_MAX_BYTES);
            return -1;
        }
        s->len = (size_t)n;
        return 0;
    }
}

/* Opens path for reading if it is a regular file of at most CSV_MAX_BYTES
 * (a folder, a device such as /dev/zero, a FIFO or a socket is refused
 * before anything is read: opened non-blocking, so a FIFO without a writer
 * does not hang), and skips a UTF-8 byte order mark (spreadsheets write one).
 * 0, or -1 with err set. */
static int src_open(csv_src *s, const char *path, char *err, size_t errcap)
{
    struct stat st;
    s->path = path;
    s->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (s->fd < 0) {
        csv_errorf(err, errcap, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    if (fstat(s->fd, &st) != 0) {
        csv_errorf(err, errcap, "%s: cannot stat: %s", path, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        const char *kind = S_ISDIR(st.st_mode)  ? "a folder"
                           : S_ISCHR(st.st_mode) ? "a character device"
                           : S_ISBLK(st.st_mode) ? "a block device"
                           : S_ISFIFO(st.st_mode) ? "a FIFO"
                                                 : "not a regular file";
        csv_errorf(err, errcap, "'%s' is %s, not a results.csv", path, kind);
        return -1;
    }
    if (st.st_size > CSV_MAX_BYTES) {
        csv_errorf(err, errcap, "%s: %lld bytes, longer than %d (256 MiB, the limit of a results.csv)",
                   path, (long long)st.st_size, CSV_MAX_BYTES);
        return -1;
    }
    if (src_fill(s, err, errcap)) return -1;
    if (s->len >= 3 && memcmp(s->buf, "\xEF\xBB\xBF", 3) == 0) s->pos = 3;
    return 0;
}

/* One record into rec (NUL-terminated): a '#' line, or a row with the
 * newlines inside its quoted fields, with its line end. *nl: newlines read,
 * *ended: whether it ends with one. 1 a record, 0 the end of the file, -1 an
 * error in err (a NUL byte, a record over CSV_MAX_LINE, a read error). */
static int read_record(csv_src *s, linebuf *rec, int line, int *nl, int *ended, char *err,
                       size_t errcap)
{
    int quoted = 0, context = 0;
    rec->n = 0;
    *nl = *ended = 0;
    for (;;) {
        if (s->pos == s->len && src_fill(s, err, errcap)) return -1;
        if (s->len == 0) break;
        char c = s->buf[s->pos++];
        if (c == '\0') {
            csv_errorf(err, errcap, "%s:%d: a NUL byte: not a text file (not a results.csv)", s->path,
                       line + *nl);
            return -1;
        }
        if (rec->n >= CSV_MAX_LINE) {
            csv_errorf(err, errcap, "%s:%d: line is longer than %d bytes (the limit): not a bench "
                       "results.csv", s->path, line, CSV_MAX_LINE);
            return -1;
        }
        if (rec->n == 0) context = c == '#';
        if (c == '"' && !context) quoted = !quoted;
        if (lb_put(rec, &c, 1)) {
            csv_errorf(err, errcap, "%s: out of memory", s->path);
            return -1;
        }
        if (c == '\n') {
            (*nl)++;
            if (!quoted) {
                *ended = 1;
                break;
            }
        }
    }
    return rec->n > 0;
}

/* The offsets of the cells read so far into the table's text arena. */
typedef struct cellvec {
    unsigned *v;
    size_t n, cap;
} cellvec;

static int cells_push(cellvec *c, size_t off)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 1024;
        unsigned *p = realloc(c->v, cap * sizeof *p);
        if (!p) return -1;
        c->v = p;
        c->cap = cap;
    }
    c->v[c->n++] = (unsigned)off;
    return 0;
}

/* Splits one record (no NUL inside; its line end included or not) into
 * fields, RFC 4180: each field's unquoted text and its NUL appended to text,
 * its offset there to cells; *nf the number of fields. 0, 1 (a malformed
 * quoted field or text after the line end) or 2 (memory); on failure text
 * and cells may hold part of the record. */
static int parse_record(const char *p, linebuf *text, cellvec *cells, int *nf)
{
    int n = 0, bad = 0;
    for (;;) {
        if (cells_push(cells, text->n)) return 2;
        if (*p == '"') {
            p++;
            for (;;) {
                if (*p == '\0') return 1;
                if (*p == '"') {
                    if (p[1] == '"') { if (lb_put(text, "\"", 1)) return 2; p += 2; continue; }
                    p++;
                    break;
                }
                size_t run = strcspn(p, "\""); /* up to the next quote (or the end) */
                if (lb_put(text, p, run)) return 2;
                p += run;
            }
            if (*p != ',' && *p != '\n' && *p != '\r' && *p != '\0') return 1;
        } else {
            size_t run = strcspn(p, ",\n\r\"");
            if (p[run] == '"') return 1;
            if (lb_put(text, p, run)) return 2;
            p += run;
        }
        if (lb_put(text, "", 1)) return 2; /* the field's NUL */
        n++;
        if (*p == ',') { p++; continue; }
        break;
    }
    if (*p == '\r') p++;
    if (*p == '\n') p++;
    if (*p) bad = 1; /* a bare CR inside a field, then more */
    *nf = n;
    return bad;
}

/* The header's fields as one block: the ncols pointers then their texts
 * (free() it whole). NULL (memory). */
static char **header_block(const linebuf *text, const cellvec *cells)
{
    char **h = malloc(cells->n * sizeof *h + text->n);
    if (!h) return NULL;
    char *t = (char *)(h + cells->n);
    memcpy(t, text->s, text->n);
    for (size_t i = 0; i < cells->n; i++) h[i] = t + cells->v[i];
    return h;
}

typedef struct named_pos {
    const char *name;
    int pos;
} named_pos;

static int cmp_named_pos(const void *pa, const void *pb)
{
    const named_pos *a = pa, *b = pb;
    int c = strcmp(a->name, b->name);
    return c ? c : (a->pos > b->pos) - (a->pos < b->pos);
}

/* A column named twice: -1 with both positions (1-based) in err, else 0
 * (or -1 out of memory). Sorted, so O(n log n) in the header's width. */
static int check_header(const csv_table *t, const char *path, int line, char *err, size_t errcap)
{
    named_pos *ord = malloc((size_t)t->ncols * sizeof *ord);
    if (!ord) {
        csv_errorf(err, errcap, "%s: out of memory", path);
        return -1;
    }
    for (int i = 0; i < t->ncols; i++) ord[i] = (named_pos){t->header[i], i};
    qsort(ord, (size_t)t->ncols, sizeof *ord, cmp_named_pos);
    int first = -1, second = -1;
    for (int i = 1; i < t->ncols; i++) /* equal names in position order: the earliest repeat */
        if (strcmp(ord[i].name, ord[i - 1].name) == 0 && (second < 0 || ord[i].pos < second)) {
            first = ord[i - 1].pos;
            second = ord[i].pos;
        }
    free(ord);
    if (second < 0) return 0;
    csv_errorf(err, errcap, "%s:%d: column '%s' is named twice in the header (columns %d and %d)",
               path, line, t->header[second], first + 1, second + 1);
    return -1;
}

/* Adds a '#' line (without "#", one space, and its line end) to t's context:
 * at most CSV_MAX_CONTEXT lines of at most CSV_MAX_CONTEXT_LINE bytes. 0, -1
 * (memory), or 1 with the limit it passed in err. */
static int add_context(csv_table *t, int *cap, const char *rec, size_t n, const char *path, int line,
                       char *err, size_t errcap)
{
    if (n > CSV_MAX_CONTEXT_LINE) {
        csv_errorf(err, errcap, "%s:%d: a '#' line longer than %d bytes (the limit of a context line): "
                   "not a bench results.csv", path, line, CSV_MAX_CONTEXT_LINE);
        return 1;
    }
    if (t->ncontext == CSV_MAX_CONTEXT) {
        csv_errorf(err, errcap, "%s:%d: more than %d '#' lines (the limit of context lines): not a "
                   "bench results.csv", path, line, CSV_MAX_CONTEXT);
        return 1;
    }
    const char *s = rec + 1;
    if (*s == ' ') s++;
    size_t sl = strcspn(s, "\n");
    if (sl && s[sl - 1] == '\r') sl--;
    char *ctx = dup_range(s, sl);
    if (!ctx || push_ptr((void ***)&t->context, &t->ncontext, cap, ctx)) {
        free(ctx);
        return -1;
    }
    return 0;
}

/* Records the source line of row t->nrows. 0 or -1 (memory). */
static int add_line(csv_table *t, int *cap, int line)
{
    if (t->nrows == *cap) {
        int c = *cap ? *cap * 2 : 1024;
        int *l = realloc(t->line, (size_t)c * sizeof *l);
        if (!l) return -1;
        t->line = l;
        *cap = c;
    }
    t->line[t->nrows] = line;
    return 0;
}

/* Takes the header record (in text and cells): its block, its line, no
 * column named twice, then the caller's check. 0, or -1 with err set. */
static int take_header(csv_table *t, linebuf *text, cellvec *cells, int line, const char *path,
                       csv_header_fn check, void *arg, char *err, size_t errcap)
{
    if (!(t->header = header_block(text, cells))) {
        csv_errorf(err, errcap, "%s: out of memory", path);
        return -1;
    }
    t->ncols = (int)cells->n;
    t->header_line = line;
    text->n = cells->n = 0;
    if (check_header(t, path, line, err, errcap)) return -1;
    return check ? check(t, arg, path, err, errcap) : 0;
}

/* Checks a row's field count and line end and the cell limit; 0, or -1 with err set. */
static int check_row(const csv_table *t, int nf, int ended, const char *path, int line, char *err,
                     size_t errcap)
{
    if (nf != t->ncols) { /* a torn or foreign row */
        csv_errorf(err, errcap, "%s:%d: %d fields, header has %d", path, line, nf, t->ncols);
        return -1;
    }
    if (!ended) { /* the last record lacks its newline: cut off mid-write */
        csv_errorf(err, errcap, "%s:%d: row is cut off (no end of line)", path, line);
        return -1;
    }
    if ((long long)(t->nrows + 2) * t->ncols > CSV_MAX_CELLS) {
        csv_errorf(err, errcap, "%s:%d: more than %d cells (rows x columns, the limit of a "
                   "results.csv)", path, line, CSV_MAX_CELLS);
        return -1;
    }
    return 0;
}

csv_table *csv_read(const char *path, char *err, size_t errcap)
{
    return csv_read_checked(path, NULL, NULL, err, errcap);
}

csv_table *csv_read_checked(const char *path, csv_header_fn check, void *arg, char *err,
                            size_t errcap)
{
    csv_src *src = calloc(1, sizeof *src);
    csv_table *t = calloc(1, sizeof *t);
    linebuf rec = {0}, text = {0};
    cellvec cells = {0};
    int line = 1, ctxcap = 0, linecap = 0, ok = 0;
    if (!src || !t) {
        csv_errorf(err, errcap, "%s: out of memory", path);
        goto done;
    }
    src->fd = -1;
    if (src_open(src, path, err, errcap)) goto done;
    for (;;) {
        int nl, ended, start = line;
        int got = read_record(src, &rec, line, &nl, &ended, err, errcap);
        if (got < 0) goto done;
        if (got == 0) break;
        line += nl;
        if (rec.s[0] == '#') {
            int rc = add_context(t, &ctxcap, rec.s, rec.n, path, start, err, errcap);
            if (rc < 0) goto oom;
            if (rc) goto done;
            continue;
        }
        if (strcmp(rec.s, "\n") == 0 || strcmp(rec.s, "\r\n") == 0) continue; /* blank line */
        size_t text0 = text.n, cells0 = cells.n;
        int nf = 0, bad = parse_record(rec.s, &text, &cells, &nf);
        if (bad == 2) goto oom;
        if (bad) {
            csv_errorf(err, errcap, "%s:%d: malformed quoted field", path, start);
            goto done;
        }
        if (!t->header) {
            if (take_header(t, &text, &cells, start, path, check, arg, err, errcap)) goto done;
            continue;
        }
        if (check_row(t, nf, ended, path, start, err, errcap)) goto done;
        if (text.n > UINT_MAX) { /* offsets are 32 bits: never within CSV_MAX_BYTES */
            text.n = text0;
            cells.n = cells0;
            csv_errorf(err, errcap, "%s:%d: too much text", path, start);
            goto done;
        }
        if (add_line(t, &linecap, start)) goto oom;
        t->nrows++;
    }
    if (!t->header) {
        csv_errorf(err, errcap, "%s:%d: no header line", path, line);
        goto done;
    }
    ok = 1;
    goto done;
oom:
    csv_errorf(err, errcap, "%s: out of memory", path);
done:
    if (src && src->fd >= 0) close(src->fd);
    free(src);
    free(rec.s);
    if (t) {
        t->text = text.s; /* empty when there are no rows: csv_field never reads it */
        t->cell = cells.v;
    } else {
        free(text.s);
        free(cells.v);
    }
    if (!ok) {
        csv_table_free(t);
        return NULL;
    }
    return t;
}

void csv_table_free(csv_table *t)
{
    if (!t) return;
    free(t->header);
    free(t->text);
    free(t->cell);
    free(t->line);
    for (int i = 0; i < t->ncontext; i++) free(t->context[i]);
    free(t->context);
    free(t);
}

int csv_col(const csv_table *t, const char *name)
{
    for (int i = 0; i < t->ncols; i++)
        if (strcmp(t->header[i], name) == 0) return i;
    return -1;
}

const char *csv_field(const csv_table *t, int row, int col)
{
    if (col < 0 || col >= t->ncols || row < 0 || row >= t->nrows) return "";
    return t->text + t->cell[(size_t)row * (size_t)t->ncols + (size_t)col];
}

void csv_bind(const csv_table *t, int *idx)
{
    for (int c = 0; c < COL_COUNT; c++) idx[c] = csv_col(t, SCHEMA[c].name);
}

const char *csv_get(const csv_table *t, const int *idx, int row, int col_id)
{
    return csv_field(t, row, col_id >= 0 && col_id < COL_COUNT ? idx[col_id] : -1);
}

const char *csv_context(const csv_table *t, const char *key)
{
    size_t kl = strlen(key);
    for (int i = 0; i < t->ncontext; i++) {
        const char *c = t->context[i];
        if (strncmp(c, key, kl) == 0 && c[kl] == ':') {
            c += kl + 1;
            while (*c == ' ') c++;
            return c;
        }
    }
    return NULL;
}
