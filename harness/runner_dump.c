/* harness/runner_dump.c - --dump: a step suite's step 1 written beside the
 * run, renamed into place with its row (runner_int.h). */
#define _POSIX_C_SOURCE 200809L
#include "runner_int.h"
#include "errmsg.h"

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stdio.h>
#include <string.h>

/* Removes dir and the files (and folders of files) the dump wrote in it. */
static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[4200];
    while (d && (e = readdir(d))) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (unlink(path) != 0) remove_tree(path);
    }
    if (d) closedir(d);
    rmdir(dir);
}

/* Step suites: step 1 of the case into
 * dump_dir/<shape>-<backend>[-<mode>][-x<replicas>]/ (the mode for GPU and
 * data-parallel rows, the replicas when more than one: every row of a run
 * has its own folder),
 * written into <that>.tmp/ and left there as r->dump_pending: row_emit renames it
 * once the case's row is written, and removes it when the case is abandoned
 * (a failed dump leaves nothing; a .tmp folder is one a second Ctrl-C cut
 * short). 0, or -1 with err_set. */
int dump_case(runner *r, const suite_def *s, const problem *p, const backend_def *b,
              const char *mode, int replicas, const case_data *d, void *const *out)
{
    char dir[4096], tmp[4200], rep[24] = "";
    void *in[LAYOUT_MAX_BUFS] = {0};
    if (replicas > 1) snprintf(rep, sizeof rep, "-x%d", replicas);
    int n = b->dev == DEV_CPU && strcmp(mode, "host") == 0
                ? snprintf(dir, sizeof dir, "%s/%s-%s", r->dump_dir, p->desc, b->name)
                : snprintf(dir, sizeof dir, "%s/%s-%s-%s%s", r->dump_dir, p->desc, b->name, mode, rep);
    if (n < 0 || (size_t)n >= sizeof dir) {
        err_set("--dump: the folder name for %s is too long", p->desc);
        return -1;
    }
    snprintf(tmp, sizeof tmp, "%s.tmp", dir);
    if (mkdir(tmp, 0755) != 0) {
        err_set("--dump: cannot create %s: %s", tmp, strerror(errno));
        return -1;
    }
    for (int i = 0; i < d->l.nbufs; i++) in[i] = d->init[i] ? d->init[i] : d->buf[0][i];
    if (s->steps->dump(p, in, out, tmp) != 0) {
        remove_tree(tmp);
        return -1;
    }
    snprintf(r->dump_pending, sizeof r->dump_pending, "%s", dir);
    return 0;
}

/* The pending dump of the case just ended: kept (renamed from .tmp) when its
 * row was written, else removed. 0, or -1 with dump_error set. */
int dump_settle(runner *r, int keep)
{
    char tmp[4200];
    int rc = 0;
    if (!r->dump_pending[0]) return 0;
    snprintf(tmp, sizeof tmp, "%s.tmp", r->dump_pending);
    if (!keep) {
        remove_tree(tmp);
    } else if (rename(tmp, r->dump_pending) != 0) {
        snprintf(r->dump_error, sizeof r->dump_error, "--dump: cannot rename %s to %s: %s", tmp,
                 r->dump_pending, strerror(errno));
        remove_tree(tmp);
        rc = -1;
    }
    r->dump_pending[0] = '\0';
    return rc;
}
