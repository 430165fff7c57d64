/* suites/train/train_dump.c - --dump: step 1 of a case as .npy files for external checking (the train suite: train.c). */
#include "test_hooks.h"
#include "train.h"
#include "check.h"
#include "conv_cpu.h"
#include "errmsg.h"
#include "npy.h"
#include "../../cpu/train_cpu.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define SEED_PARAMS 0x7a11c0deULL
#define SEED_PROTO 0x5eed0001ULL
#define SEED_BATCH 0xba7c4000ULL
#define SEED_CHAIN 0xc4a1a000ULL

#include "train_impl.h"

/* ---- --dump --------------------------------------------------------------- */

static int write_text(const char *dir, const char *name, const char *text)
{
    char path[4200], tmp[4300];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wx");
    if (!f) {
        err_set("cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    errno = 0;
    int bad = fputs(text, f) < 0;
    int e = errno;
    if (fclose(f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (!bad && rename(tmp, path) != 0) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        err_set("cannot write %s: %s", path, strerror(e ? e : EIO));
        unlink(tmp);
        return -1;
    }
    return 0;
}

static int dump_tensors(const model_plan *pl, const char *dir, const char *sub, const float *all)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, sub);
    if (mkdir(path, 0755) != 0) {
        err_set("cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    for (int i = 0; i < pl->nparams; i++) {
        const model_param *q = &pl->param[i];
        long long shape[4];
        for (int k = 0; k < q->ndim; k++) shape[k] = q->shape[k];
        snprintf(path, sizeof path, "%s/%s/%s.npy", dir, sub, q->name);
        if (npy_write(path, "<f4", q->ndim, shape, all + q->off, (size_t)q->n * sizeof(float)))
            return -1;
    }
    return 0;
}

/* config.txt: the model's sizes and the optimizer's settings, key=value. */
static int write_config(const model_plan *pl, const step_cfg *c, const char *dir)
{
    static const char *const OPT_NAME[] = {"sgd", "sgd", "adamw"};
    const model_def *m = pl->m;
    char text[1024];
    int n = snprintf(text, sizeof text, "model=%s\nbatch=%d\nclasses=%d\n", m->name, pl->B,
                     m->classes);
    if (m->kind == MODEL_CHAIN)
        n += snprintf(text + n, sizeof text - (size_t)n, "channels=%d\nheight=%d\nwidth=%d\n", m->C,
                      m->H, m->W);
    else
        n += snprintf(text + n, sizeof text - (size_t)n,
                      "seq=%d\ninput=%d\nhidden=%d\nlayers=%d\nvocab=%d\nembd=%d\nheads=%d\n", m->seq,
                      m->input, m->hidden, m->depth, m->classes, m->embd, m->heads);
    if (dtype_autocast(c->amp) != DTYPE_FP32)   /* a mixed-precision step (tools/amp_replay.py) */
        n += snprintf(text + n, sizeof text - (size_t)n, "autocast=%s\n",
                      dtype_name(dtype_autocast(c->amp)));
    snprintf(text + n, sizeof text - (size_t)n,
             "optimizer=%s\nlr=%.9g\nmomentum=%.9g\nbeta1=%.9g\nbeta2=%.9g\neps=%.9g\n"
             "weight_decay=%.9g\n",
             OPT_NAME[c->opt], (double)c->lr, (double)c->momentum,
             (double)(c->opt == OPT_ADAMW ? c->beta1 : 0), (double)(c->opt == OPT_ADAMW ? c->beta2 : 0),
             (double)(c->opt == OPT_ADAMW ? c->eps : 0),
             (double)(c->opt == OPT_ADAMW ? c->weight_decay : 0));
    return write_text(dir, "config.txt", text);
}

int train_dump(const problem *p, void *const *in, void *const *out, const char *dir)
{
    model_plan pl;
    char path[4200], text[64];
    if (train_plan(p, &pl)) {
        err_set("no plan for %s", p->desc);
        return -1;
    }
    const model_def *m = pl.m;
    step_cfg cfg = train_step_cfg(NULL, p);
    long long xshape[4] = {pl.B, m->C, m->H, m->W}, lshape[2] = {pl.B, m->seq};
    int xdims = m->H == 1 && m->W == 1 ? 2 : 4;   /* an MLP's input is [B][features] */
    int ldims = m->kind == MODEL_CHAIN ? 1 : 2;
    if (m->kind != MODEL_CHAIN) {
        xshape[1] = m->seq;
        xshape[2] = m->input;
        xdims = pl.x_ids ? 2 : 3;
    }
    long long nx = pl.x_ids ? pl.in_slots : 0, *ids = NULL;
    long long *lab = (long long *)malloc((size_t)pl.nlabels * sizeof(long long));
    if (nx) ids = (long long *)malloc((size_t)nx * sizeof(long long));
    int rc = -1;
    if (!lab || (nx && !ids)) {
        err_set("out of memory for labels");
        goto out;
    }
    for (long long n = 0; n < pl.nlabels; n++) lab[n] = ((const int *)in[TB_LABELS])[n];
    for (long long n = 0; n < nx; n++) ids[n] = ((const int *)in[TB_X])[n];
    snprintf(text, sizeof text, "%s\n", m->name);
    if (write_text(dir, "model.txt", text)) goto out;
    snprintf(text, sizeof text, "%.9g\n", (double)cfg.lr);
    if (write_text(dir, "lr.txt", text)) goto out;
    if (write_config(&pl, &cfg, dir)) goto out;
    snprintf(path, sizeof path, "%s/input.npy", dir);
    if (ids ? npy_write(path, "<i8", xdims, xshape, ids, (size_t)nx * sizeof(long long))
            : npy_write(path, "<f4", xdims, xshape, in[TB_X], (size_t)pl.in_slots * sizeof(float)))
        goto out;
    snprintf(path, sizeof path, "%s/labels.npy", dir);
    if (npy_write(path, "<i8", ldims, lshape, lab, (size_t)pl.nlabels * sizeof(long long)))
        goto out;
    snprintf(path, sizeof path, "%s/loss.npy", dir);
    if (npy_write(path, "<f4", 0, NULL, out[TB_LOSS], sizeof(float))) goto out;
    if (dump_tensors(&pl, dir, "param", (const float *)in[TB_PARAMS]) ||
        dump_tensors(&pl, dir, "grad", (const float *)out[TB_GRADS]) ||
        dump_tensors(&pl, dir, "updated", (const float *)out[TB_PARAMS]))
        goto out;
    rc = 0;
out:
    free(lab);
    free(ids);
    model_plan_free(&pl);
    return rc;
}
