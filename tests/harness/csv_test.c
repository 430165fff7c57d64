/* tests/harness/csv_test.c - quoting, the agreed column order, write/read round trip,
 * rows flushed as written; reading through the schema: csv_bind, every cell
 * validated against its type (csv_validate), duplicate cases, the key index;
 * bounded input (limits, non-regular files, NUL, interrupt), a BOM, a column
 * named twice. */
#define _POSIX_C_SOURCE 200809L
#include "csv.h"
#include "interrupt.h"
#include "schema.h"
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const FIXED =
    "suite,case,backend,mode,dtype,shape,threads,reps,median_ms,min_ms,max_ms,mad_ms,gflops,"
    "gbps,baseline,speedup,max_abs_err,rel_err,tolerance,check,device,emulated";

/* Writes text (n bytes) to path. */
static void put_file(const char *path, const char *text, size_t n)
{
    FILE *f = fopen(path, "wb");
    fwrite(text, 1, n, f);
    fclose(f);
}

/* csv_read on path: NULL and err containing want, or (want NULL) a table. */
static void expect_read(const char *path, const char *want, const char *what)
{
    char err[512] = "";
    csv_table *t = csv_read(path, err, sizeof err);
    if (want) EXPECT(!t && strstr(err, want), "%s: want '%s', got '%s'", what, want, t ? "a table" : err);
    else EXPECT(t != NULL, "%s: %s", what, err);
    csv_table_free(t);
}

/* Input is bounded: non-regular files refused unread, a NUL byte, a row over
 * CSV_MAX_LINE, a file over CSV_MAX_BYTES, CSV_MAX_CELLS; a BOM is skipped; a
 * column named twice is refused; an interrupt stops the reader. */
static void bounded_input(const char *path)
{
    char err[512], want[256];
    expect_read("/dev/zero", "'/dev/zero' is a character device, not a results.csv", "/dev/zero");
    expect_read("/tmp", "'/tmp' is a folder, not a results.csv", "a folder");
    char fifo[300];
    snprintf(fifo, sizeof fifo, "%s.fifo", path);
    EXPECT(mkfifo(fifo, 0600) == 0, "mkfifo");
    expect_read(fifo, "is a FIFO, not a results.csv", "a FIFO without a writer: refused, no hang");
    unlink(fifo);

    /* a UTF-8 byte order mark (spreadsheets write one) is skipped */
    static const char BOM[] = "\xEF\xBB\xBF# cpu: x\nsuite,case\nm,c\n";
    put_file(path, BOM, sizeof BOM - 1);
    csv_table *t = csv_read(path, err, sizeof err);
    EXPECT(t && t->ncols == 2 && strcmp(t->header[0], "suite") == 0 && t->nrows == 1 &&
           csv_context(t, "cpu"), "BOM skipped: %s", t ? t->header[0] : err);
    csv_table_free(t);
    static const char BOMHDR[] = "\xEF\xBB\xBFsuite,case\nm,c\n";
    put_file(path, BOMHDR, sizeof BOMHDR - 1);
    t = csv_read(path, err, sizeof err);
    EXPECT(t && csv_col(t, "suite") == 0, "BOM before the header: %s", t ? t->header[0] : err);
    csv_table_free(t);

    /* a column named twice: both positions named */
    static const char DUP[] = "# cpu: x\nsuite,case,median_ms,backend,median_ms,case\n";
    put_file(path, DUP, sizeof DUP - 1);
    expect_read(path, ":2: column 'median_ms' is named twice in the header (columns 3 and 5)",
                "duplicate column");

    static const char NUL[] = "a,b\n1,\0\n";
    put_file(path, NUL, sizeof NUL - 1);
    expect_read(path, ":2: a NUL byte", "NUL byte");

    /* one row over CSV_MAX_LINE; one of exactly CSV_MAX_LINE bytes is read */
    size_t big = (size_t)CSV_MAX_LINE + 1;
    char *text = malloc(big + 8);
    memcpy(text, "a,b\n", 4);
    memset(text + 4, 'x', big);
    text[4 + CSV_MAX_LINE - 3] = ',';
    text[4 + CSV_MAX_LINE - 1] = '\n';
    put_file(path, text, 4 + CSV_MAX_LINE);
    expect_read(path, NULL, "a row of CSV_MAX_LINE bytes");
    text[4 + CSV_MAX_LINE - 1] = 'x';
    text[4 + CSV_MAX_LINE] = '\n';
    put_file(path, text, 4 + big);
    snprintf(want, sizeof want, ":2: line is longer than %d bytes (the limit)", CSV_MAX_LINE);
    expect_read(path, want, "a row over CSV_MAX_LINE");
    /* ... also when the row is one quoted field with newlines */
    text[4] = '"';
    for (size_t i = 5; i < big; i += 1000) text[i] = '\n';
    put_file(path, text, 4 + big);
    expect_read(path, want, "a quoted row over CSV_MAX_LINE");

    /* CSV_MAX_CELLS: 4096 columns and rows, header included; the 4096th row is one too many */
    FILE *f = fopen(path, "w");
    for (int c = 0; c < 4096; c++) fprintf(f, "c%d%c", c, c < 4095 ? ',' : '\n');
    memset(text, ',', 4095);
    text[4095] = '\n';
    for (int r = 0; r < 4096; r++) fwrite(text, 1, 4096, f);
    fclose(f);
    snprintf(want, sizeof want, ":4097: more than %d cells", CSV_MAX_CELLS);
    expect_read(path, want, "too many cells");
    free(text);

    /* over CSV_MAX_BYTES (a sparse file): refused from its size, unread */
    int fd = open(path, O_WRONLY | O_TRUNC);
    EXPECT(fd >= 0 && ftruncate(fd, (off_t)CSV_MAX_BYTES + 1) == 0, "sparse file");
    close(fd);
    snprintf(want, sizeof want, "%d bytes, longer than %d", CSV_MAX_BYTES + 1, CSV_MAX_BYTES);
    expect_read(path, want, "a file over CSV_MAX_BYTES");

    /* an interrupt (SIGTERM with bench's handler) stops the reader */
    put_file(path, "a,b\n1,2\n", 8);
    interrupt_install();
    raise(SIGTERM);
    expect_read(path, "reading interrupted by SIGTERM", "interrupted");
    unlink(path);
}

int main(void)
{
    char q[64];
    EXPECT(csv_quote("plain", q, sizeof q) == 5 && strcmp(q, "plain") == 0, "plain");
    csv_quote("a,b", q, sizeof q);
    EXPECT(strcmp(q, "\"a,b\"") == 0, "comma quoted: %s", q);
    csv_quote("say \"hi\"", q, sizeof q);
    EXPECT(strcmp(q, "\"say \"\"hi\"\"\"") == 0, "quotes doubled: %s", q);
    csv_quote("two\nlines", q, sizeof q);
    EXPECT(strcmp(q, "\"two\nlines\"") == 0, "newline quoted");
    EXPECT(csv_quote("0123456789", q, 5) == -1, "overflow reported");

    char path[] = "/tmp/test_csv_XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    const char *ctx[] = {"utc: 2026-01-01T00:00:00Z", "cpu: Some CPU, with comma"};
    /* the writer makes a new file: never one that exists (an earlier run's CSV) */
    csv_writer *w = csv_writer_open(path, ctx, 2);
    EXPECT(w == NULL && errno == EEXIST, "an existing file is refused");
    unlink(path);
    w = csv_writer_open(path, ctx, 2);
    EXPECT(w != NULL, "open");
    result_row r;
    result_row_init(&r);
    strcpy(r.suite, "matmul");
    strcpy(r.case_name, "odd, \"quoted\" case");
    strcpy(r.backend, "cpu-omp");
    strcpy(r.mode, "host");
    strcpy(r.dtype, "fp32");
    strcpy(r.shape, "7x13x5");
    r.threads = 2;
    r.reps = 3;
    r.median_ms = 1.5;
    r.gflops = 123.25;
    strcpy(r.check, "pass");
    strcpy(r.device, "CPU");
    strcpy(r.note, "line1\nline2");
    double samples[] = {1.25, 1.5, 2};
    r.samples = samples;
    r.nsamples = 3;
    EXPECT(csv_write_row(w, &r) == 0, "write");

    /* flushed at once: another reader sees the whole row before close */
    char err[256];
    csv_table *t = csv_read(path, err, sizeof err);
    EXPECT(t && t->nrows == 1, "row visible before close: %s", t ? "" : err);
    csv_table_free(t);

    strcpy(r.case_name, "second");
    r.emulated = 1;
    r.samples = NULL;
    r.nsamples = 0;
    EXPECT(csv_write_row(w, &r) == 0, "write 2");
    EXPECT(csv_writer_close(w) == 0, "close");

    FILE *f = fopen(path, "r");
    char line[4096];
    int header_ok = 0;
    while (fgets(line, sizeof line, f))
        if (line[0] != '#') {
            header_ok = strncmp(line, FIXED, strlen(FIXED)) == 0;
            break;
        }
    fclose(f);
    EXPECT(header_ok, "agreed fixed columns first, in order");

    t = csv_read(path, err, sizeof err);
    EXPECT(t != NULL, "read: %s", err);
    if (t) {
        EXPECT(t->ncols == COL_COUNT && t->nrows == 2, "shape %dx%d", t->nrows, t->ncols);
        EXPECT(strcmp(csv_field(t, 0, csv_col(t, "case")), "odd, \"quoted\" case") == 0, "case round trip");
        EXPECT(strcmp(csv_field(t, 0, csv_col(t, "note")), "line1\nline2") == 0, "newline round trip");
        EXPECT(atof(csv_field(t, 0, csv_col(t, "gflops"))) == 123.25, "number round trip");
        EXPECT(strcmp(csv_field(t, 0, csv_col(t, "speedup")), "") == 0, "NaN is an empty cell");
        EXPECT(strcmp(csv_field(t, 0, csv_col(t, "samples_ms")), "1.25;1.5;2") == 0, "samples");
        EXPECT(strcmp(csv_field(t, 1, csv_col(t, "emulated")), "1") == 0, "second row");
        EXPECT(t->line[1] == 6, "source line of row 2: %d", t->line[1]);
        EXPECT(strcmp(csv_context(t, "cpu"), "Some CPU, with comma") == 0, "context");
        EXPECT(csv_context(t, "gpu") == NULL, "absent context");
        EXPECT(csv_col(t, "nope") == -1, "absent column");
        csv_table_free(t);
    }

    /* malformed: an unterminated quote and a row wider than the header */
    f = fopen(path, "w");
    fputs("a,b\n1,\"open\n", f);
    fclose(f);
    t = csv_read(path, err, sizeof err);
    EXPECT(!t && strstr(err, ":2:"), "unterminated quote names line 2: %s", err);
    f = fopen(path, "w");
    fputs("a,b\n1,2\n1,2,3\n", f);
    fclose(f);
    t = csv_read(path, err, sizeof err);
    EXPECT(!t && strstr(err, ":3:"), "too many fields names line 3: %s", err);
    /* a torn last row: fewer fields, or cut inside its last field */
    f = fopen(path, "w");
    fputs("a,b,c\n1,2,3\n4,5", f);
    fclose(f);
    t = csv_read(path, err, sizeof err);
    EXPECT(!t && strstr(err, ":3:"), "short torn row rejected: %s", err);
    f = fopen(path, "w");
    fputs("a,b,c\n1,2,3\n4,5,0.1;0.2;0.", f);
    fclose(f);
    t = csv_read(path, err, sizeof err);
    EXPECT(!t && strstr(err, ":3:") && strstr(err, "cut off"), "row cut in its last field rejected: %s", err);

    /* a long row (thousands of samples) reaches the file whole */
    unlink(path);
    w = csv_writer_open(path, NULL, 0);
    result_row big;
    result_row_init(&big);
    strcpy(big.suite, "#hash");
    double many[3000];
    for (int i = 0; i < 3000; i++) many[i] = 1.0 + i * 1e-3;
    big.samples = many;
    big.nsamples = 3000;
    big.bytes = 268435456;
    EXPECT(csv_write_row(w, &big) == 0 && csv_writer_close(w) == 0, "long row");
    t = csv_read(path, err, sizeof err);
    EXPECT(t && t->nrows == 1, "long row read back: %s", t ? "" : err);
    if (t) {
        EXPECT(strcmp(csv_field(t, 0, csv_col(t, "suite")), "#hash") == 0, "leading # quoted, not a comment");
        EXPECT(strcmp(csv_field(t, 0, csv_col(t, "bytes")), "268435456") == 0, "bytes exact: %s",
               csv_field(t, 0, csv_col(t, "bytes")));
        csv_table_free(t);
    }
    /* validation through the schema: one bad cell at a time, named by line and column */
    static const struct { const char *row, *want; } CELLS[] = {
        {"m,c,b,host,5x5x5,1.5,pass,0,12,gpu,1;2\n", NULL},
        {"m,c,b,host,5x5x5,,skip,0,0,cpu,\n", NULL},
        {"m,c,b,host,5x5x5,1.5,maybe,0,12,gpu,1;2\n", ":3: column 'check': 'maybe' is not pass fail skip"},
        {"m,c,b,host,5x5x5,nan,pass,0,12,gpu,1;2\n", ":3: column 'median_ms': 'nan' is not a finite number"},
        {"m,c,b,host,5x5x5,inf,pass,0,12,gpu,1;2\n", ":3: column 'median_ms': 'inf'"},
        {"m,c,b,host,5x5x5,1e999,pass,0,12,gpu,1;2\n", ":3: column 'median_ms': '1e999'"},
        {"m,c,b,host,5x5x5, 1,pass,0,12,gpu,1;2\n", ":3: column 'median_ms': ' 1'"},
        {"m,c,b,host,5x5x5,1,pass,2,12,gpu,1;2\n", ":3: column 'emulated': '2' is not 0 1"},
        {"m,c,b,host,5x5x5,1,pass,,12,gpu,1;2\n", ":3: column 'emulated': '' is not 0 1"},
        {"m,c,b,host,5x5x5,1,pass,0,12,GPU,1;2\n", ":3: column 'device_kind': 'GPU' is not cpu gpu"},
        {"m,c,b,host,5x5x5,1,pass,0,1x,gpu,1;2\n", ":3: column 'reps': '1x' is not an integer"},
        {"m,c,b,host,5x5x5,1,pass,0,12,gpu,1;;2\n", ":3: column 'samples_ms': '1;;2' is not ';'-separated"},
        {"m,c,b,host,5x5x5,1,pass,0,12,gpu,1;x\n", ":3: column 'samples_ms'"},
        /* names that reach a chart: a safe set only (a quote closed gnuplot's string) */
        {"m,odd-67x45x129,cpu-omp,streams-4,fwd:mb1ic3ih8oc4kh3ph1,1,pass,0,12,gpu,1\n", NULL},
        {"m,c,\"a\"\" 0); system(\"\"touch PWNED\"\"); set xtics (\"\"b\",host,5x5x5,1,pass,0,12,gpu,1\n",
         ":3: column 'backend': character '\"' (0x22) at position 2 is not allowed in a name"},
        {"m,c,\"b\"\"\",host,5x5x5,1,pass,0,12,gpu,1\n", ":3: column 'backend': character '\"'"},
        {"m,c`id`,b,host,5x5x5,1,pass,0,12,gpu,1\n", ":3: column 'case': character '`' (0x60) at position 2"},
        {"m,c,b,ho$t,5x5x5,1,pass,0,12,gpu,1\n", ":3: column 'mode': character '$'"},
        {"m,c,b,host,5x5\\5,1,pass,0,12,gpu,1\n", ":3: column 'shape': character '\\'"},
        {"m',c,b,host,5x5x5,1,pass,0,12,gpu,1\n", ":3: column 'suite': character '''"},
        {"m,c,\"b\nx\",host,5x5x5,1,pass,0,12,gpu,1\n", ":3: column 'backend': character 0x0a at position 2"},
        /* numbers: decimal only; a finite denormal is a number */
        {"m,c,b,host,5x5x5,0x10,pass,0,12,gpu,1\n", ":3: column 'median_ms': '0x10' is not a finite number"},
        {"m,c,b,host,5x5x5,+inf,pass,0,12,gpu,1\n", ":3: column 'median_ms': '+inf'"},
        {"m,c,b,host,5x5x5,infinity,pass,0,12,gpu,1\n", ":3: column 'median_ms': 'infinity'"},
        {"m,c,b,host,5x5x5,1.5e,pass,0,12,gpu,1\n", ":3: column 'median_ms': '1.5e'"},
        {"m,c,b,host,5x5x5,.,pass,0,12,gpu,1\n", ":3: column 'median_ms': '.'"},
        {"m,c,b,host,5x5x5,1,pass,0,12,gpu,1;0X2\n", ":3: column 'samples_ms': '1;0X2'"},
        {"m,c,b,host,5x5x5,4.9e-324,pass,0,12,gpu,2.5E-310;1e-320;.5;7.;+3e+2\n", NULL},
    };
    const char *hdr = "suite,case,backend,mode,shape,median_ms,check,emulated,reps,device_kind,samples_ms\n";
    for (size_t i = 0; i < sizeof CELLS / sizeof CELLS[0]; i++) {
        f = fopen(path, "w");
        fprintf(f, "# cpu: x\n%s%s", hdr, CELLS[i].row);
        fclose(f);
        int idx[COL_COUNT];
        t = csv_read(path, err, sizeof err);
        EXPECT(t != NULL, "read: %s", err);
        if (!t) continue;
        csv_bind(t, idx);
        EXPECT(idx[COL_MEDIAN_MS] == 5 && idx[COL_FLOPS] == -1, "bind: median_ms at 5, no flops");
        EXPECT(csv_get(t, idx, 0, COL_BACKEND) == csv_field(t, 0, 2) && strcmp(csv_get(t, idx, 0, COL_REPRO), "") == 0,
               "csv_get by schema id, \"\" for an absent column");
        err[0] = '\0';
        int rc = csv_validate(t, idx, path, err, sizeof err);
        if (!CELLS[i].want) EXPECT(rc == 0, "valid row %zu rejected: %s", i, err);
        else EXPECT(rc == -1 && strstr(err, path) && strstr(err, CELLS[i].want), "row %zu: want '%s', got '%s'", i,
                    CELLS[i].want, err);
        csv_table_free(t);
    }
    /* dtype from the dtype table (empty: an older file, fp32); a number past
     * 1e30 breaks a chart's arithmetic and is refused */
    static const struct { const char *row, *want; } MORE[] = {
        {"m,c,b,host,5x5x5,bf16,0.003\n", NULL},
        {"m,c,b,host,5x5x5,,0.003\n", NULL},
        {"m,c,b,host,5x5x5,fp64,0.003\n", ":2: column 'dtype': 'fp64' is not fp32 tf32 bf16 fp16 u8"},
        {"m,c,b,host,5x5x5,bf16,1e308\n", ":2: column 'accuracy_lost': '1e308' is not a finite number from 0 to 1e30"},
        {"m,c,b,host,5x5x5,bf16,1e30\n", NULL},
    };
    for (size_t i = 0; i < sizeof MORE / sizeof MORE[0]; i++) {
        f = fopen(path, "w");
        fprintf(f, "suite,case,backend,mode,shape,dtype,accuracy_lost\n%s", MORE[i].row);
        fclose(f);
        int idx[COL_COUNT];
        t = csv_read_results(path, idx, NULL, 0, err, sizeof err);
        if (!MORE[i].want) EXPECT(t != NULL, "valid row %zu rejected: %s", i, err);
        else EXPECT(!t && strstr(err, MORE[i].want), "row %zu: want '%s', got '%s'", i, MORE[i].want, err);
        csv_table_free(t);
    }
    /* duplicate cases: both lines named; same problem in another mode is no duplicate */
    f = fopen(path, "w");
    fprintf(f, "%sm,c,b,host,5x5x5,1,pass,0,1,cpu,\nm,c,b,resident,5x5x5,1,pass,0,1,gpu,\n"
               "m,c2,b,host,5x5x5,1,pass,0,1,cpu,\nm,c,b,resident,5x5x5,2,pass,0,1,gpu,\n", hdr);
    fclose(f);
    int idx[COL_COUNT];
    t = csv_read_results(path, idx, NULL, 0, err, sizeof err);
    EXPECT(!t && strstr(err, ":5: duplicate case m/c/5x5x5/b/fp32/resident (also on line 3)"), "duplicate: %s", err);
    csv_table_free(t);
    /* the key index: sorted, found by binary search, equal keys in row order */
    f = fopen(path, "w");
    fprintf(f, "%s", hdr);
    for (int i = 0; i < 1000; i++)
        fprintf(f, "m,c%d,b%d,host,%dx1x1,1,pass,0,1,cpu,\n", (i * 7919) % 1000, i % 3, i);
    fclose(f);
    t = csv_read_results(path, idx, NULL, 0, err, sizeof err);
    EXPECT(t != NULL, "1000 rows: %s", err);
    if (t) {
        csv_keys k, kp;
        EXPECT(csv_keys_build(t, idx, CSV_KEY_CASE, &k) == 0 && k.n == 1000, "case index");
        EXPECT(csv_keys_build(t, idx, CSV_KEY_PROBLEM, &kp) == 0, "problem index");
        int found = 0;
        for (int r = 0; r < t->nrows; r++) {
            char key[256];
            csv_row_key(t, idx, r, CSV_KEY_CASE, CSV_KEY_SEP, key, sizeof key);
            int i = csv_keys_find(&k, key);
            found += i >= 0 && k.e[i].row == r;
        }
        EXPECT(found == 1000, "every row found by its key: %d", found);
        const char *f5[] = {"m", "c0", "0x1x1", "b0", "fp32"};   /* no dtype column: fp32 */
        char key[256];
        csv_key_join(f5, CSV_KEY_PROBLEM, CSV_KEY_SEP, key, sizeof key);
        int i = csv_keys_find(&kp, key);
        EXPECT(i >= 0 && kp.e[i].row == 0, "problem key of row 0: %d", i);
        EXPECT(csv_keys_find(&k, "nope") == -1, "absent key");
        csv_keys_free(&k);
        csv_keys_free(&kp);
        csv_table_free(t);
    }

    unlink(path);
    t = csv_read("/nonexistent/x.csv", err, sizeof err);
    EXPECT(!t && strstr(err, "/nonexistent/x.csv"), "unreadable file named: %s", err);
    bounded_input(path);
    TEST_END();
}
