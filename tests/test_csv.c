/* tests/test_csv.c - quoting, the agreed column order, write/read round trip,
 * rows flushed as written; reading through the schema: csv_bind, every cell
 * validated against its type (csv_validate), duplicate cases, the key index. */
#define _POSIX_C_SOURCE 200809L
#include "csv.h"
#include "schema.h"
#include "testutil.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const FIXED =
    "suite,case,backend,mode,dtype,shape,threads,reps,median_ms,min_ms,max_ms,mad_ms,gflops,"
    "gbps,baseline,speedup,max_abs_err,rel_err,tolerance,check,device,emulated";

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
        EXPECT(strcmp(csv_get(t, idx, 0, COL_BACKEND), "b") == 0 && strcmp(csv_get(t, idx, 0, COL_REPRO), "") == 0,
               "csv_get by schema id, \"\" for an absent column");
        err[0] = '\0';
        int rc = csv_validate(t, idx, path, err, sizeof err);
        if (!CELLS[i].want) EXPECT(rc == 0, "valid row %zu rejected: %s", i, err);
        else EXPECT(rc == -1 && strstr(err, path) && strstr(err, CELLS[i].want), "row %zu: want '%s', got '%s'", i,
                    CELLS[i].want, err);
        csv_table_free(t);
    }
    /* duplicate cases: both lines named; same problem in another mode is no duplicate */
    f = fopen(path, "w");
    fprintf(f, "%sm,c,b,host,5x5x5,1,pass,0,1,cpu,\nm,c,b,resident,5x5x5,1,pass,0,1,gpu,\n"
               "m,c2,b,host,5x5x5,1,pass,0,1,cpu,\nm,c,b,resident,5x5x5,2,pass,0,1,gpu,\n", hdr);
    fclose(f);
    int idx[COL_COUNT];
    t = csv_read_results(path, idx, NULL, 0, err, sizeof err);
    EXPECT(!t && strstr(err, ":5: duplicate case m/c/5x5x5/b/resident (also on line 3)"), "duplicate: %s", err);
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
        const char *f4[] = {"m", "c0", "0x1x1", "b0"};
        char key[256];
        csv_key_join(f4, 4, CSV_KEY_SEP, key, sizeof key);
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
    TEST_END();
}
