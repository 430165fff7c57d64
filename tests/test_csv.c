/* tests/test_csv.c - quoting, the agreed column order, write/read round trip,
 * rows flushed as written. */
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
    unlink(path);
    t = csv_read("/nonexistent/x.csv", err, sizeof err);
    EXPECT(!t && strstr(err, "/nonexistent/x.csv"), "unreadable file named: %s", err);
    TEST_END();
}
