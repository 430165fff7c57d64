/* harness/csv.c - the one CSV writer and a small RFC 4180 reader (see csv.h). */
#define _POSIX_C_SOURCE 200809L
#include "csv.h"
#include "schema.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
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

/* A growable line buffer: rows are assembled whole, then written at once. */
typedef struct {
    char *s;
    size_t n, cap;
} linebuf;

static int lb_put(linebuf *b, const char *s, size_t len)
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

/* Parses one record starting at *pp (may span lines inside quotes).
 * Returns the fields (count in *nf) and advances *pp and *line. *bad is 1 for
 * a malformed quoted field, 2 when memory ran out (fields so far returned). */
static char **parse_record(const char **pp, int *nf, int *line, int *bad)
{
    const char *p = *pp;
    void **fields = NULL;
    int n = 0, cap = 0, oom = 0;
    linebuf cur = {0};
    *bad = 0;
    for (;;) {
        cur.n = 0;
        if (cur.s) cur.s[0] = '\0';
        if (*p == '"') {
            p++;
            for (;;) {
                if (*p == '\0') { *bad = 1; break; }
                if (*p == '"') {
                    if (p[1] == '"') { oom |= lb_put(&cur, "\"", 1); p += 2; continue; }
                    p++;
                    break;
                }
                if (*p == '\n') (*line)++;
                oom |= lb_put(&cur, p, 1);
                p++;
            }
            if (!*bad && *p != ',' && *p != '\n' && *p != '\r' && *p != '\0') *bad = 1;
        } else {
            const char *s = p;
            while (*p && *p != ',' && *p != '\n' && *p != '\r') {
                if (*p == '"') *bad = 1;
                p++;
            }
            oom |= lb_put(&cur, s, (size_t)(p - s));
        }
        char *field = oom ? NULL : dup_range(cur.s ? cur.s : "", cur.n);
        if (!field || push_ptr(&fields, &n, &cap, field)) {
            free(field);
            *bad = 2;
            break;
        }
        if (*bad) break;
        if (*p == ',') { p++; continue; }
        break;
    }
    if (*p == '\r') p++;
    if (*p == '\n') p++;
    free(cur.s);
    *pp = p;
    *nf = n;
    return (char **)fields;
}

static void free_fields(char **f, int n)
{
    for (int i = 0; i < n; i++) free(f[i]);
    free(f);
}

csv_table *csv_read(const char *path, char *err, size_t errcap)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        csv_errorf(err, errcap, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    linebuf text = {0};
    char chunk[65536];
    size_t got;
    while ((got = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (lb_put(&text, chunk, got)) {
            fclose(f);
            free(text.s);
            csv_errorf(err, errcap, "%s: out of memory", path);
            return NULL;
        }
    }
    int rerr = ferror(f);
    fclose(f);
    if (rerr) {
        free(text.s);
        csv_errorf(err, errcap, "%s: read error", path);
        return NULL;
    }
    csv_table *t = calloc(1, sizeof *t);
    if (!t) {
        free(text.s);
        csv_errorf(err, errcap, "%s: out of memory", path);
        return NULL;
    }
    const char *p = text.s ? text.s : "";
    int line = 1, ctxcap = 0, rowcap = 0;
    int *lines = NULL;
    while (*p) {
        int start = line;
        if (*p == '#') {
            const char *e = strchr(p, '\n');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            const char *s = p + 1;
            if (*s == ' ') s++;
            size_t sl = len - (size_t)(s - p);
            if (sl && s[sl - 1] == '\r') sl--;
            char *ctx = dup_range(s, sl);
            if (!ctx || push_ptr((void ***)&t->context, &t->ncontext, &ctxcap, ctx)) {
                free(ctx);
                goto oom;
            }
            p += len + (e ? 1 : 0);
            line++;
            continue;
        }
        if (*p == '\n' || (*p == '\r' && p[1] == '\n')) { /* blank line */
            p += (*p == '\r') ? 2 : 1;
            line++;
            continue;
        }
        int nf, bad;
        char **fields = parse_record(&p, &nf, &line, &bad);
        line++;
        if (bad) {
            free_fields(fields, nf);
            if (bad == 2) goto oom;
            csv_errorf(err, errcap, "%s:%d: malformed quoted field", path, start);
            goto fail;
        }
        if (!t->header) {
            t->header = fields;
            t->ncols = nf;
            continue;
        }
        if (nf != t->ncols) { /* a torn or foreign row */
            free_fields(fields, nf);
            csv_errorf(err, errcap, "%s:%d: %d fields, header has %d", path, start, nf, t->ncols);
            goto fail;
        }
        if (p[-1] != '\n') { /* the last record lacks its newline: cut off mid-write */
            free_fields(fields, nf);
            csv_errorf(err, errcap, "%s:%d: row is cut off (no end of line)", path, start);
            goto fail;
        }
        int oldcap = rowcap;
        if (push_ptr((void ***)&t->rows, &t->nrows, &rowcap, fields)) {
            free_fields(fields, nf);
            goto oom;
        }
        if (rowcap != oldcap) {
            int *l = realloc(lines, (size_t)rowcap * sizeof *l);
            if (!l) goto oom;
            lines = l;
        }
        lines[t->nrows - 1] = start;
    }
    t->line = lines;
    free(text.s);
    if (!t->header) {
        csv_errorf(err, errcap, "%s:%d: no header line", path, line);
        csv_table_free(t);
        return NULL;
    }
    return t;
oom:
    csv_errorf(err, errcap, "%s: out of memory", path);
fail:
    t->line = lines;
    free(text.s);
    csv_table_free(t);
    return NULL;
}

void csv_table_free(csv_table *t)
{
    if (!t) return;
    if (t->header) free_fields(t->header, t->ncols);
    for (int r = 0; r < t->nrows; r++) free_fields(t->rows[r], t->ncols);
    free(t->rows);
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
    return t->rows[row][col];
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
