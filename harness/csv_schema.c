/* harness/csv_schema.c - reading results.csv through the schema: binding
 * columns, requiring some, validating every cell against its schema type, and
 * an index of rows by case key (see csv.h). The report and the gate both read
 * through here, so a value one accepts the other accepts too. */
#include "csv.h"
#include "schema.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The columns that name a case (the whole workload), in key order; the first
 * CSV_KEY_PROBLEM name the problem a backend ran (suite, case, shape, backend,
 * dtype), then the mode and the replicas it was spread over. */
static const int KEY_COLS[CSV_KEY_CASE] = {COL_SUITE, COL_CASE, COL_SHAPE, COL_BACKEND, COL_DTYPE,
                                            COL_MODE, COL_REPLICAS};

/* A key cell as the workload reads it: a file from before the dtype column
 * ran fp32, one from before replicas ran one replica. */
static const char *key_cell(const csv_table *t, const int *idx, int row, int i)
{
    const char *v = csv_get(t, idx, row, KEY_COLS[i]);
    if (!*v && KEY_COLS[i] == COL_DTYPE) return "fp32";
    if (!*v && KEY_COLS[i] == COL_REPLICAS) return "1";
    return v;
}

int csv_require(const csv_table *t, const int *idx, const int *cols, int n, const char *path,
                char *err, size_t errcap)
{
    for (int i = 0; i < n; i++)
        if (idx[cols[i]] < 0) {
            csv_errorf(err, errcap, "%s:%d: not a bench results file: no column '%s'", path,
                    t->header_line, SCHEMA[cols[i]].name);
            return -1;
        }
    return 0;
}

/* Length of the decimal number at the start of s: [+]digits[.digits][(e|E)[+-]digits]
 * with at least one mantissa digit; 0 when s does not start with one. Only
 * this spelling is a number in results.csv: strtod alone would also take
 * hex ("0x10"), "inf", "infinity" and "nan". */
static size_t decimal_len(const char *s)
{
    const char *p = s + (*s == '+');
    size_t digits = 0;
    for (; *p >= '0' && *p <= '9'; p++) digits++;
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++) digits++;
    if (!digits) return 0;
    if (*p == 'e' || *p == 'E') {
        const char *q = p + 1 + (p[1] == '+' || p[1] == '-');
        if (!(*q >= '0' && *q <= '9')) return 0; /* "1.5e": an exponent without digits */
        while (*q >= '0' && *q <= '9') q++;
        p = q;
    }
    return (size_t)(p - s);
}

/* The largest value a NUM cell may hold: far above any count, time, rate or
 * error a run writes (FLOPs per repetition stay under 1e18), far below where
 * a chart's arithmetic (x1000, a log axis, a sum) overflows to infinity. */
#define CSV_NUM_MAX 1e30

/* 0 when s is a whole finite decimal number >= 0 and <= CSV_NUM_MAX (what
 * every NUM column holds: a count, a time, a rate, an error), with no
 * surrounding space. A denormal ("4.9e-324") is a number: strtod's ERANGE on
 * underflow is no error; an overflow ("1e999") is not, nor is 1e308. */
static int is_num(const char *s)
{
    size_t n = decimal_len(s);
    if (n == 0 || s[n] != '\0') return -1;
    double v = strtod(s, NULL);
    return isfinite(v) && v >= 0 && v <= CSV_NUM_MAX ? 0 : -1;
}

/* 0 when s is a whole decimal integer >= 0. */
static int is_int(const char *s)
{
    const char *p = s;
    while (*p >= '0' && *p <= '9') p++;
    return (p != s && *p == '\0' && p - s < 10) ? 0 : -1;
}

/* 0 when s is ';'-separated name=number pairs (or empty), the names made of
 * letters, digits, '-' and '_': phase_ms ("forward=1.2;backward=2.3"). */
static int is_phases(const char *s)
{
    char buf[64];
    while (*s) {
        size_t n = strcspn(s, ";");
        const char *eq = memchr(s, '=', n);
        if (!eq || eq == s || n >= sizeof buf) return -1;
        for (const char *p = s; p < eq; p++)
            if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                  *p == '-' || *p == '_'))
                return -1;
        size_t vn = n - (size_t)(eq + 1 - s);
        memcpy(buf, eq + 1, vn);
        buf[vn] = '\0';
        if (is_num(buf)) return -1;
        s += n + (s[n] == ';');
    }
    return 0;
}

/* 0 when s is ';'-separated numbers (or empty); with gaps, "nan" and "inf"
 * items too (a trace: the loss of a diverged run, a gap in its chart). */
static int is_list(const char *s, int gaps)
{
    char buf[64];
    while (*s) {
        size_t n = strcspn(s, ";");
        if (n == 0 || n >= sizeof buf) return -1;
        memcpy(buf, s, n);
        buf[n] = '\0';
        if (gaps && (!strcmp(buf, "nan") || !strcmp(buf, "-nan") || !strcmp(buf, "inf") ||
                     !strcmp(buf, "-inf"))) {
            s += n + (s[n] == ';');
            continue;
        }
        if (is_num(buf)) return -1;
        s += n + (s[n] == ';');
    }
    return 0;
}

/* 0 when s is one of the space-separated words of list. */
static int is_word(const char *s, const char *list)
{
    size_t n = strlen(s);
    for (const char *p = list; *p;) {
        size_t w = strcspn(p, " ");
        if (w == n && n && strncmp(p, s, n) == 0) return 0;
        p += w + (p[w] == ' ');
    }
    return -1;
}

/* The characters a name may hold: what real rows write (suites, cases such as
 * "odd-67x45x129", shapes such as "fwd:mb64ic3ih28oc16kh3ph1" or
 * "add:262144", modes, dtypes, CPU and GPU models with spaces and
 * parentheses). Nothing that could end a quoted string in a chart's gnuplot
 * parameters (a quote, a backslash, a backquote, '$', a control character). */
static int name_char(unsigned char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           (ch && strchr("._:+-=,/@()[] ", ch) != NULL);
}

/* Position (0-based) of the first character of s that is not a name_char
 * (';' too when semis: phase_ms), or -1 when every one is. */
static long bad_name_char(const char *s, int semis)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (!name_char(*p) && !(semis && *p == ';')) return (long)(p - (const unsigned char *)s);
    return -1;
}

/* Whether column c is a name that reaches a chart label, a gnuplot parameter
 * or report.md's tables: the case key, dtype, baseline, device, direction,
 * phase_ms (its phase names are series titles), the workload key and the
 * machine (a merge's table columns and chart series). */
static int is_name_col(int c)
{
    switch (c) {
    case COL_SUITE: case COL_CASE: case COL_BACKEND: case COL_MODE: case COL_DTYPE: case COL_SHAPE:
    case COL_BASELINE: case COL_DEVICE: case COL_DEVICE_KIND: case COL_DIRECTION: case COL_PHASE_MS:
    case COL_WORKLOAD: case COL_MACHINE:
        return 1;
    default:
        return 0;
    }
}

/* Checks a name cell: 0, or -1 with "path:line: column 'c': character 'X'
 * (0xNN) at position P is not allowed in a name (...)" in err. */
static int check_name(int c, const char *s, const char *path, int line, char *err, size_t errcap)
{
    long at = bad_name_char(s, c == COL_PHASE_MS);
    if (at < 0) return 0;
    unsigned char ch = (unsigned char)s[at];
    char shown[16];
    if (ch < 0x20 || ch >= 0x7f) snprintf(shown, sizeof shown, "0x%02x", ch);
    else snprintf(shown, sizeof shown, "'%c' (0x%02x)", ch, ch);
    csv_errorf(err, errcap, "%s:%d: column '%s': character %s at position %ld is not allowed in a "
               "name (letters, digits, space and ._:+-=,/@()[]%s)", path, line, SCHEMA[c].name,
               shown, at + 1, c == COL_PHASE_MS ? ";" : "");
    return -1;
}

/* What a cell of column c must be, for the error message; 0 when s is one. */
static int check_cell(int c, const char *s, const char **want)
{
    const char *allowed = schema_allowed(c);
    if (allowed) {
        *want = allowed;
        if (!*s && schema_allows_empty(c)) return 0;
        return is_word(s, allowed);
    }
    /* the list columns a chart plots: every item a number */
    if (c == COL_TRACE) {
        *want = "';'-separated numbers from 0 to 1e30 (or nan, inf: a diverged loss), or empty";
        return is_list(s, 1);
    }
    if (c == COL_PHASE_MS) {
        *want = "';'-separated name=number pairs (numbers from 0 to 1e30), or empty";
        return is_phases(s);
    }
    switch (SCHEMA[c].type) {
    case COLT_NUM: *want = "a finite number from 0 to 1e30, or empty"; return *s ? is_num(s) : 0;
    case COLT_INT: *want = "an integer >= 0"; return is_int(s);
    case COLT_SAMP: *want = "';'-separated finite numbers from 0 to 1e30, or empty"; return is_list(s, 0);
    case COLT_STR: *want = "text"; return 0;
    }
    return 0;
}

/* Duplicate case keys: -1 with both lines named, else 0 (or -1 out of memory).
 * Rows of two machines (the machine column: a merge of several runs, bench
 * --merge) are two measurements of one case, not a repeat. */
static int check_duplicates(const csv_table *t, const int *idx, const char *path, char *err,
                            size_t errcap)
{
    csv_keys k;
    if (csv_keys_build(t, idx, CSV_KEY_CASE, &k)) {
        csv_errorf(err, errcap, "%s: out of memory", path);
        return -1;
    }
    int first = -1, second = -1;
    for (int i = 1; i < k.n; i++) /* sorted by key, then row: the earliest repeat wins */
        for (int j = i - 1; j >= 0 && strcmp(k.e[i].key, k.e[j].key) == 0; j--)
            if (strcmp(csv_get(t, idx, k.e[i].row, COL_MACHINE), csv_get(t, idx, k.e[j].row, COL_MACHINE)) == 0) {
                if (second < 0 || k.e[i].row < second) first = k.e[j].row, second = k.e[i].row;
                break; /* one repeat per row is enough: never quadratic in a file of repeats */
            }
    if (second >= 0) {
        char key[680];
        csv_row_label(t, idx, second, key, sizeof key);
        csv_errorf(err, errcap, "%s:%d: duplicate case %s (also on line %d)", path, t->line[second],
                key, t->line[first]);
    }
    csv_keys_free(&k);
    return second >= 0 ? -1 : 0;
}

int csv_validate(const csv_table *t, const int *idx, const char *path, char *err, size_t errcap)
{
    for (int r = 0; r < t->nrows; r++)
        for (int c = 0; c < COL_COUNT; c++) {
            if (idx[c] < 0) continue;
            const char *s = csv_field(t, r, idx[c]), *want = "";
            if (is_name_col(c) && check_name(c, s, path, t->line[r], err, errcap)) return -1;
            if (check_cell(c, s, &want) == 0) continue;
            csv_errorf(err, errcap, "%s:%d: column '%s': '%.40s' is not %s", path, t->line[r],
                    SCHEMA[c].name, s, want);
            return -1;
        }
    return check_duplicates(t, idx, path, err, errcap);
}

/* What csv_read_results checks at the header: the columns it binds and requires. */
typedef struct required_cols {
    int *idx;
    const int *cols;
    int n;
} required_cols;

/* csv_header_fn: binds the schema and requires its columns. */
static int check_required(const csv_table *t, void *arg, const char *path, char *err, size_t errcap)
{
    required_cols *r = arg;
    csv_bind(t, r->idx);
    return csv_require(t, r->idx, r->cols, r->n, path, err, errcap);
}

csv_table *csv_read_results(const char *path, int *idx, const int *required, int nrequired,
                            char *err, size_t errcap)
{
    required_cols req = {idx, required, nrequired};
    csv_table *t = csv_read_checked(path, check_required, &req, err, errcap);
    if (!t) return NULL;
    if (csv_validate(t, idx, path, err, errcap)) {
        csv_table_free(t);
        return NULL;
    }
    return t;
}

/* ---- case keys ---------------------------------------------------------- */

int csv_key_join(const char *const *fields, int n, char sep, char *out, size_t cap)
{
    size_t len = 0;
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        size_t fl = strlen(fields[i]);
        if (len + fl + 2 > cap) return -1;
        if (i) out[len++] = sep;
        memcpy(out + len, fields[i], fl + 1);
        len += fl;
    }
    return 0;
}

int csv_row_key(const csv_table *t, const int *idx, int row, int ncols, char sep, char *out,
                size_t cap)
{
    const char *f[CSV_KEY_CASE];
    for (int i = 0; i < ncols && i < CSV_KEY_CASE; i++) f[i] = key_cell(t, idx, row, i);
    return csv_key_join(f, ncols < CSV_KEY_CASE ? ncols : CSV_KEY_CASE, sep, out, cap);
}

void csv_row_label(const csv_table *t, const int *idx, int row, char *out, size_t cap)
{
    if (csv_row_key(t, idx, row, CSV_KEY_MODE, '/', out, cap)) snprintf(out, cap, "(a key too long)");
    int replicas = atoi(key_cell(t, idx, row, CSV_KEY_CASE - 1));
    size_t len = strlen(out);
    if (replicas > 1 && len < cap) snprintf(out + len, cap - len, " x%d", replicas);
}

static int cmp_keyed(const void *pa, const void *pb)
{
    const csv_keyed *a = pa, *b = pb;
    int c = strcmp(a->key, b->key);
    return c ? c : (a->row > b->row) - (a->row < b->row);
}

int csv_keys_build(const csv_table *t, const int *idx, int ncols, csv_keys *k)
{
    k->n = 0;
    k->e = malloc(sizeof *k->e * (size_t)(t->nrows ? t->nrows : 1));
    if (!k->e) return -1;
    for (int r = 0; r < t->nrows; r++) {
        size_t need = 1;
        for (int i = 0; i < ncols; i++) need += strlen(key_cell(t, idx, r, i)) + 1;
        char *s = malloc(need);
        if (!s) {
            csv_keys_free(k);
            return -1;
        }
        csv_row_key(t, idx, r, ncols, CSV_KEY_SEP, s, need);
        k->e[k->n++] = (csv_keyed){s, r};
    }
    qsort(k->e, (size_t)k->n, sizeof *k->e, cmp_keyed);
    return 0;
}

int csv_keys_find(const csv_keys *k, const char *key)
{
    int lo = 0, hi = k->n; /* first entry whose key is >= key */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (strcmp(k->e[mid].key, key) < 0) lo = mid + 1;
        else hi = mid;
    }
    return (lo < k->n && strcmp(k->e[lo].key, key) == 0) ? lo : -1;
}

void csv_keys_free(csv_keys *k)
{
    for (int i = 0; i < k->n; i++) free(k->e[i].key);
    free(k->e);
    k->e = NULL;
    k->n = 0;
}
