/* tests/suites/train/train_dump_test.c - .npy files and --dump folders read back.
 *
 *   test_train_dump          round trips of npy_write / npy_read (scalar, 1-D,
 *                            4-D, int64), the header's 64-byte alignment, and
 *                            refusals: a wrong dtype, a cut file, a bad magic;
 *   test_train_dump DIR      reads a `bench --suite train --dump` case folder
 *                            back: model.txt, lr.txt and config.txt, every
 *                            tensor's name, dtype and PyTorch shape from the
 *                            model plan, the input (floats, or int64 token ids
 *                            in range) and labels (B, or B x T) in range, a
 *                            finite positive loss, and the first step's update
 *                            within fp32 rounding: updated == param - lr * grad
 *                            for SGD (momentum's first step is the same), and
 *                            for AdamW (m = (1-b1) g, v = (1-b2) g^2, so the
 *                            bias-corrected step is g / (|g| + eps))
 *                            updated == param (1 - lr wd) - lr g / (|g| + eps).
 */
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include "train/model.h"
#include "train/npy.h"
#include "errmsg.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char tmpdir[] = "/tmp/test_train_dump.XXXXXX";

static void round_trips(void)
{
    char path[256];
    float f4[2 * 3 * 4 * 5], sc = 2.5f;
    long long i8[7], s4[4] = {2, 3, 4, 5}, s1[1] = {7}, shape[8];
    int nd = -1;
    size_t bytes = 0;
    for (int i = 0; i < 120; i++) f4[i] = (float)i * 0.25f - 3.0f;
    for (int i = 0; i < 7; i++) i8[i] = (long long)i * 1000000007LL;

    snprintf(path, sizeof path, "%s/a.npy", tmpdir);
    EXPECT(npy_write(path, "<f4", 4, s4, f4, sizeof f4) == 0, "write 4-D: %s", err_get());
    float *r = (float *)npy_read(path, "<f4", &nd, shape, &bytes);
    EXPECT(r && nd == 4 && shape[0] == 2 && shape[3] == 5 && bytes == sizeof f4 &&
               memcmp(r, f4, sizeof f4) == 0, "4-D round trip: %s", err_get());
    free(r);
    FILE *f = fopen(path, "rb");
    unsigned char pre[10] = {0};
    EXPECT(f && fread(pre, 1, 10, f) == 10, "header");
    if (f) fclose(f);
    EXPECT((10 + (pre[8] | pre[9] << 8)) % 64 == 0, "data starts at a multiple of 64");
    EXPECT(npy_read(path, "<i8", &nd, shape, &bytes) == NULL, "a float file is not int64");

    snprintf(path, sizeof path, "%s/b.npy", tmpdir);
    EXPECT(npy_write(path, "<i8", 1, s1, i8, sizeof i8) == 0, "write int64");
    long long *q = (long long *)npy_read(path, "<i8", &nd, shape, &bytes);
    EXPECT(q && nd == 1 && shape[0] == 7 && q[6] == i8[6], "int64 round trip");
    free(q);

    snprintf(path, sizeof path, "%s/c.npy", tmpdir);
    EXPECT(npy_write(path, "<f4", 0, NULL, &sc, sizeof sc) == 0, "write scalar");
    float *z = (float *)npy_read(path, "<f4", &nd, shape, &bytes);
    EXPECT(z && nd == 0 && bytes == 4 && *z == 2.5f, "scalar round trip");
    free(z);
    EXPECT(npy_write(path, "<f4", 0, NULL, &sc, sizeof sc) == 0, "a file is replaced whole");

    /* a cut file and a bad magic are refused */
    snprintf(path, sizeof path, "%s/a.npy", tmpdir);
    EXPECT(truncate(path, 200) == 0, "truncate");
    EXPECT(npy_read(path, "<f4", &nd, shape, &bytes) == NULL, "a cut file is refused");
    f = fopen(path, "r+b");
    if (f) {
        fputc('X', f);
        fclose(f);
    }
    EXPECT(npy_read(path, "<f4", &nd, shape, &bytes) == NULL, "a bad magic is refused");
}

static float *load(const char *dir, const char *name, const char *descr, int ndim,
                   const long long *want, size_t *n)
{
    char path[4200];
    long long shape[8];
    int nd = -1;
    size_t bytes = 0;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    void *d = npy_read(path, descr, &nd, shape, &bytes);
    EXPECT(d != NULL, "%s: %s", name, err_get());
    if (!d) return NULL;
    EXPECT(nd == ndim, "%s: %d dims, want %d", name, nd, ndim);
    for (int i = 0; i < nd && i < ndim; i++)
        EXPECT(shape[i] == want[i], "%s: dim %d is %lld, want %lld", name, i, shape[i], want[i]);
    *n = bytes / (strcmp(descr, "<i8") == 0 ? 8 : 4);
    return (float *)d;
}

/* config.txt's value of key, or def. */
static double config_num(const char *dir, const char *key, double def, char *text, size_t cap)
{
    char path[4200], line[256];
    snprintf(path, sizeof path, "%s/config.txt", dir);
    FILE *f = fopen(path, "r");
    EXPECT(f != NULL, "config.txt");
    if (!f) return def;
    size_t k = strlen(key);
    double v = def;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, k) == 0 && line[k] == '=') {
            if (text) {
                snprintf(text, cap, "%s", line + k + 1);
                text[strcspn(text, "\n")] = 0;
            } else
                v = strtod(line + k + 1, NULL);
        }
    fclose(f);
    return v;
}

static void read_dump(const char *dir)
{
    char path[4200], name[64] = "", opt[32] = "";
    double lr = 0;
    size_t n;
    snprintf(path, sizeof path, "%s/model.txt", dir);
    FILE *f = fopen(path, "r");
    EXPECT(f && fscanf(f, "%63s", name) == 1, "model.txt");
    if (f) fclose(f);
    snprintf(path, sizeof path, "%s/lr.txt", dir);
    f = fopen(path, "r");
    EXPECT(f && fscanf(f, "%lf", &lr) == 1 && lr > 0, "lr.txt");
    if (f) fclose(f);
    const model_def *m = model_find(name);
    EXPECT(m != NULL, "model.txt names '%s'", name);
    if (!m) return;
    config_num(dir, "optimizer", 0, opt, sizeof opt);
    EXPECT(!strcmp(opt, "sgd") || !strcmp(opt, "adamw"), "config.txt: optimizer '%s'", opt);
    EXPECT(config_num(dir, "lr", -1, NULL, 0) == lr, "config.txt: lr differs from lr.txt");
    const int adamw = !strcmp(opt, "adamw");
    const double wd = config_num(dir, "weight_decay", -1, NULL, 0),
                 eps = config_num(dir, "eps", -1, NULL, 0);
    /* the batch from labels.npy, then everything else from the plan */
    long long *lab = NULL;
    snprintf(path, sizeof path, "%s/labels.npy", dir);
    int nd = -1;
    long long shape[8];
    size_t bytes = 0;
    const int seq = m->kind != MODEL_CHAIN;
    lab = (long long *)npy_read(path, "<i8", &nd, shape, &bytes);
    EXPECT(lab && nd == 1 + seq && (!seq || shape[1] == m->seq), "labels.npy: %s",
           lab ? "shape" : err_get());
    if (!lab) return;
    int B = (int)shape[0];
    EXPECT(config_num(dir, "batch", -1, NULL, 0) == B, "config.txt: batch");
    model_plan pl;
    EXPECT(model_plan_make(m, B, &pl) == 0, "plan");
    for (long long i = 0; i < pl.nlabels; i++)
        EXPECT(lab[i] >= 0 && lab[i] < m->classes, "label %lld is %lld", i, lab[i]);
    free(lab);
    if (pl.x_ids) {
        long long xs[2] = {B, m->seq};
        long long *ids = (long long *)load(dir, "input.npy", "<i8", 2, xs, &n);
        EXPECT(!ids || (long long)n == pl.in_slots, "input has %zu ids", n);
        for (size_t i = 0; ids && i < n; i++)
            EXPECT(ids[i] >= 0 && ids[i] < m->classes, "token id %zu is %lld", i, ids[i]);
        free(ids);
    } else {
        long long xs[4] = {B, m->C, m->H, m->W};
        int xd = m->H == 1 ? 2 : 4;
        if (seq) xs[1] = m->seq, xs[2] = m->input, xd = 3;
        float *x = load(dir, "input.npy", "<f4", xd, xs, &n);
        EXPECT(!x || (long long)n == pl.in_slots, "input has %zu floats", n);
        free(x);
    }
    float *loss = load(dir, "loss.npy", "<f4", 0, NULL, &n);
    EXPECT(loss && n == 1 && isfinite(*loss) && *loss > 0, "loss %g", loss ? *loss : -1.0);
    free(loss);
    for (int i = 0; i < pl.nparams; i++) {
        const model_param *q = &pl.param[i];
        long long s[4];
        char rel[128];
        float *t[3];
        const char *sub[3] = {"param", "grad", "updated"};
        for (int k = 0; k < q->ndim; k++) s[k] = q->shape[k];
        for (int k = 0; k < 3; k++) {
            snprintf(rel, sizeof rel, "%s/%s.npy", sub[k], q->name);
            t[k] = load(dir, rel, "<f4", q->ndim, s, &n);
            EXPECT(!t[k] || (long long)n == q->n, "%s: %zu elements", rel, n);
        }
        if (t[0] && t[1] && t[2]) {
            long bad = 0;
            for (long long k = 0; k < q->n; k++) {
                double p0 = t[0][k], g = t[1][k];
                double want = adamw ? p0 * (1 - lr * wd) - lr * g / (fabs(g) + eps) : p0 - lr * g;
                double tol = 4e-7 * (fabs(p0) + fabs(want - p0)) + 1e-30;
                bad += !(fabs((double)t[2][k] - want) <= tol);
            }
            EXPECT(bad == 0, "%s: %ld elements of updated are not the first %s step", q->name,
                   bad, opt);
        }
        for (int k = 0; k < 3; k++) free(t[k]);
    }
    model_plan_free(&pl);
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        for (int i = 1; i < argc; i++) read_dump(argv[i]);
        TEST_END();
    }
    if (!mkdtemp(tmpdir)) return 2;
    round_trips();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    TEST_END();
}
