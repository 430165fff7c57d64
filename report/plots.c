/* report/plots.c - deciding which charts a run has data for and rendering
 * them: each chart's rows go to a plain data file (chart_data.c), gnuplot runs
 * the chart's script in plots/ on it (fork + exec, parameters with -e), its
 * exit status and output files are checked, and only then is the chart moved
 * over the earlier one; the data file is removed. Nothing is written through
 * a link in the run folder. */
#define _POSIX_C_SOURCE 200809L
#include "test_hooks.h"
#include "mode.h"
#include "../ops/dtype.h"
#include "plots.h"
#include "chart_data.h"
#include "roofs.h"
#include "merge.h"

#include "interrupt.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef BENCH_PLOTS_DIR_SRC
#define BENCH_PLOTS_DIR_SRC ""
#endif
#ifndef BENCH_PLOTS_DIR_INSTALLED
#define BENCH_PLOTS_DIR_INSTALLED ""
#endif

typedef struct chart_kind {
    const char *name, *title;
    chart_builder build;
    int about;           /* a schema column (COL_*, -1: none): a suite whose rows carry it */
    const char *absent;  /* should have this chart; when it has none, this says why */
    int per_device;      /* one chart per device kind (<name>-cpu, <name>-gpu), over every suite */
    int merged;          /* drawn for a merge folder (bench --merge) only; the others never for one */
} chart_kind;

#define NO_TIMING "no row ran on real hardware and passed (emulated timings mean nothing)"

/* Each kind's script is plots/<name>.gp. */
static const chart_kind KINDS[] = {
    {"throughput", "Throughput vs work per repetition", chart_throughput, -1, NULL, 0, 0},
    {"speedup", "Speedup vs the baseline", chart_speedup, -1, NULL, 0, 0},
    {"split", "End-to-end time split (H2D / compute / D2H)", chart_split, -1, NULL, 0, 0},
    {"overlap", "Stream overlap efficiency", chart_overlap, -1, NULL, 0, 0},
    {"bandwidth", "Bandwidth vs bytes moved", chart_bandwidth, -1, NULL, 0, 0},
    {"error", "Numerical error vs tolerance", chart_error, -1, NULL, 0, 0},
    {"layers", "Throughput per layer and direction", chart_case_throughput, -1, NULL, 0, 0},
    {"layer-speedup", "Speedup per layer, backend and mode", chart_case_speedup, -1, NULL, 0, 0},
    {"dtype", "Throughput per dtype", chart_dtype, -1, NULL, 0, 0},
    {"accuracy", "Accuracy lost per dtype", chart_accuracy, -1, NULL, 0, 0},
    {"samples", "Samples/s vs batch size", chart_samples, COL_SAMPLES_PER_S, NO_TIMING, 0, 0},
    {"batch-speedup", "Speedup vs batch size per GPU mode", chart_batch_speedup, COL_SAMPLES_PER_S,
     "no GPU row ran on real hardware (emulated rows carry no speedup)", 0, 0},
    {"phases", "Time per phase of a step", chart_phases, COL_SAMPLES_PER_S, NO_TIMING, 0, 0},
    {"loss", "Loss per step", chart_loss, COL_SAMPLES_PER_S, "no checked row carries a loss trace", 0, 0},
    {"roofline", "Roofline", chart_roofline, -1, NULL, 1, 0},
    {"merge", "Speedup per workload and machine", chart_merge, -1, NULL, 0, 1},
};
enum { NKINDS = (int)(sizeof KINDS / sizeof KINDS[0]) };

int plots_nkinds(void) { return NKINDS; }
const char *plots_kind_name(int k) { return KINDS[k].name; }
const char *plots_kind_title(int k) { return KINDS[k].title; }
int plots_kind_per_device(int k) { return KINDS[k].per_device; }

const char *plots_kind_absent(int k, const rundata *rd, const char *suite)
{
    const chart_kind *c = &KINDS[k];
    return c->absent && c->about >= 0 && rd_select(rd, suite, c->about, RD_ANY, NULL, 0) > 0 ? c->absent : NULL;
}

int plots_find_gnuplot(char *out, size_t cap)
{
    const char *path = getenv("PATH");
    if (!path) return -1;
    while (*path) {
        size_t n = strcspn(path, ":");
        /* an entry too long for out is skipped, never tried cut short */
        if (n + sizeof "/gnuplot" <= cap) {
            snprintf(out, cap, "%.*s/gnuplot", (int)(n ? n : 1), n ? path : ".");
            if (access(out, X_OK) == 0) return 0;
        }
        path += n + (path[n] == ':');
    }
    return -1;
}

/* The folder holding the chart scripts: $BENCH_PLOTS_DIR, else the source
 * tree's plots/, else the installed share/bench/plots. 0, -1 (none), or -2
 * (one longer than PLOTS_DIR_MAX, said on stderr: never cut short). */
static int scripts_dir(char *out, size_t cap)
{
    const char *cand[] = {getenv("BENCH_PLOTS_DIR"), BENCH_PLOTS_DIR_SRC, BENCH_PLOTS_DIR_INSTALLED};
    for (int i = 0; i < 3; i++) {
        if (!cand[i] || !*cand[i]) continue;
        if (strlen(cand[i]) > PLOTS_DIR_MAX || strlen(cand[i]) >= cap) {
            fprintf(stderr, "bench: the chart scripts' folder '%.60s...' is %zu bytes long, more than "
                    "%d (the limit): charts skipped\n", cand[i], strlen(cand[i]), PLOTS_DIR_MAX);
            return -2;
        }
        char probe[4200];
        snprintf(probe, sizeof probe, "%s/common.gp", cand[i]);
        if (access(probe, R_OK) == 0) {
            snprintf(out, cap, "%s", cand[i]);
            return 0;
        }
        if (i == 0) break; /* an explicit setting that is wrong is not silently replaced */
    }
    return -1;
}

/* The charts of one render: where they go, how gnuplot reaches them, and
 * what became of them. Every file is made in a temporary folder of our own
 * inside <run>/plots (tfd) and moved into plots/ (pfd) by renameat once
 * gnuplot succeeded, so a failed or interrupted chart keeps the earlier one. */
typedef struct render_ctx {
    const rundata *rd;
    const char *dir;        /* the run folder, as messages name it */
    int dirfd, pfd, tfd;    /* the run folder, plots/, the temporary folder */
    char tname[64];         /* the temporary folder's name in plots/ */
    char tpath[4400];       /* the temporary folder as gnuplot reaches it */
    char gnuplot[4096], sdir[4096];
    plots_outcome *out;
} render_ctx;

/* One chart with data: its kind, suite (NULL for a per-device kind: device
 * says which), "<kind>-<suite>" or "<kind>-<device>" (its names in plots/)
 * and its gnuplot parameters (malloc'd when state is 1). */
typedef struct chart_job {
    const chart_kind *k;
    const char *suite;
    int device;
    char stem[192];
    char *params;
    int state;          /* 1 has data, 0 has none (a stale chart goes), -1 failed */
} chart_job;

/* First line of a log file (in the temporary folder) that says something,
 * for the one-line failure. */
static void first_line(int tfd, const char *name, char *out, size_t cap)
{
    out[0] = '\0';
    int fd = openat(tfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
    if (!f) {
        if (fd >= 0) close(fd);
        return;
    }
    char line[512];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (strstr(line, "\" line ")) { /* gnuplot's "script" line N: message */
            snprintf(out, cap, "%s", line);
            break;
        }
        if (!out[0] && line[0]) snprintf(out, cap, "%s", line);
    }
    fclose(f);
}

/* Whether the file name in tfd ends with tail, trailing white space aside (a
 * chart gnuplot finished writing: gnuplot exits 0 even when a full disk cut
 * its output short). */
static int ends_with(int tfd, const char *name, const void *tail, size_t n)
{
    unsigned char buf[64];
    ssize_t got = 0;
    int fd = openat(tfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0) return 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
        off_t from = st.st_size > (off_t)sizeof buf ? st.st_size - (off_t)sizeof buf : 0;
        got = pread(fd, buf, (size_t)(st.st_size - from), from);
    }
    close(fd);
    while (got > (ssize_t)n && (buf[got - 1] == '\n' || buf[got - 1] == ' ' || buf[got - 1] == '\r')) got--;
    return got >= (ssize_t)n && memcmp(buf + got - n, tail, n) == 0;
}

/* A PNG ends with its IEND chunk (and its CRC); an SVG with its closing tag. */
static int complete_chart(int tfd, const char *stem)
{
    static const unsigned char IEND[] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xAE, 0x42, 0x60, 0x82};
    char png[256], svg[256];
    snprintf(png, sizeof png, "%s.png", stem);
    snprintf(svg, sizeof svg, "%s.svg", stem);
    return ends_with(tfd, png, IEND, sizeof IEND) && ends_with(tfd, svg, "</svg>", 6);
}

/* Whether the folder tfd is on has run out of room for a chart (under 64
 * KiB left): a cut-short chart is then a full disk, not a gnuplot error. */
static int no_room(int tfd)
{
    struct statvfs v;
    return fstatvfs(tfd, &v) == 0 && (double)v.f_bavail * (double)v.f_frsize < 65536.0;
}

/* Runs gnuplot -e params script with its output in the temporary folder's
 * log. A signal caught meanwhile (not before) ends gnuplot too: the chart is
 * abandoned. Exit status (128 + N when a signal N ended it), or -1. */
static int run_gnuplot(const render_ctx *r, const char *params, const char *script, const char *log)
{
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        /* bench ignores SIGXFSZ (a size limit is a write error it reports);
         * gnuplot does not check its writes, so let the limit end it */
        signal(SIGXFSZ, SIG_DFL);
        fcntl(r->tfd, F_SETFD, 0); /* gnuplot reaches its files through this descriptor */
        int fd = openat(r->tfd, log, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW, 0644);
        if (fd >= 0) {
            dup2(fd, STDOUT_FILENO);
            dup2(fd, STDERR_FILENO);
            close(fd);
        }
        execl(r->gnuplot, "gnuplot", "-e", params, script, (char *)NULL);
        _exit(127);
    }
    int st, ended = 0;
    while (waitpid(pid, &st, 0) < 0) {
        if (errno != EINTR) return -1;
        if (!ended && interrupt_stops_report()) { /* interrupted: no point finishing this chart */
            kill(pid, SIGTERM);
            ended = 1;
        }
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* "CPU: model · GPU: name" for the devices a chart shows. */
static void device_line(const rundata *rd, const chart_ctx *c, char *out, size_t cap)
{
    const char *cpu = rd_context(rd, "cpu");
    snprintf(out, cap, "%s%s%s%s%s", c->has_cpu && cpu ? "CPU: " : "", c->has_cpu && cpu ? cpu : "",
             c->has_cpu && cpu && c->gpu[0] ? "  ·  " : "", c->gpu[0] ? "GPU: " : "", c->gpu);
}

/* Notes a write that failed for want of room (a full disk or a size
 * limit): no further chart is tried. */
static void note_no_room(render_ctx *r, int err)
{
    if (err == ENOSPC || err == EFBIG || err == EDQUOT) r->out->nospace = 1;
}

/* Writes job's data file into the temporary folder and sets its parameters.
 * 1 the chart has data, 0 it has none (its data file removed), -1 failed
 * (reason on stderr; r->out->nospace when for want of room). */
static int plan_one(render_ctx *r, chart_job *j)
{
    char dat[256], dev[512], title[512];
    snprintf(dat, sizeof dat, "%s.dat", j->stem);
    chart_ctx c;
    memset(&c, 0, sizeof c);
    c.rd = r->rd;
    c.suite = j->suite;
    c.device = j->device;
    int fd = openat(r->tfd, dat, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 || !(c.dat = fdopen(fd, "w"))) {
        int e = errno;
        fprintf(stderr, "bench: chart %s: cannot write its data in '%s/plots': %s\n", j->stem, r->dir,
                strerror(e));
        if (fd >= 0) close(fd);
        note_no_room(r, e);
        return -1;
    }
    int blocks = j->k->build(&c);
    int e = fflush(c.dat) != 0 || ferror(c.dat) ? (errno ? errno : EIO) : 0;
    if (fclose(c.dat) != 0 && !e) e = errno ? errno : EIO;
    if (e) {
        fprintf(stderr, "bench: chart %s: cannot write its data in '%s/plots': %s%s\n", j->stem, r->dir,
                strerror(e), e == ENOSPC || e == EFBIG || e == EDQUOT ? "; no further chart is drawn" : "");
        note_no_room(r, e);
        return -1;
    }
    if (blocks == 0) {
        unlinkat(r->tfd, dat, 0);
        return 0;
    }
    device_line(r->rd, &c, dev, sizeof dev);
    const char *what = j->suite ? j->suite : roof_dev_name(j->device);
    snprintf(title, sizeof title, "%s: %s%s%s", what, j->k->title, c.subtitle[0] ? ", " : "", c.subtitle);
    char data[4700], out[4700];
    snprintf(data, sizeof data, "%s/%s", r->tpath, dat);
    snprintf(out, sizeof out, "%s/%s", r->tpath, j->stem);
    chart_param_path(&c, "plotdir", r->sdir);
    chart_param_path(&c, "data", data);
    chart_param_path(&c, "out", out);
    chart_param_str(&c, "suite", what);
    chart_param_str(&c, "title", title);
    chart_param_str(&c, "devline", dev);
    chart_param_num(&c, "n", blocks);
    char pal[256];
    mode_palette(pal, sizeof pal);
    chart_param_path(&c, "modepal", pal); /* common.gp's MODEPAL, from the mode rows */
    pal[0] = '\0';
    for (int d = 0; d < DTYPE_COUNT; d++) { /* dtype.gp's DTYPEPAL, from the dtype rows */
        const size_t u = strlen(pal);
        snprintf(pal + u, sizeof pal - u, "%s%s", d ? " " : "", DTYPE_INFO[d].colour);
    }
    chart_param_path(&c, "dtypepal", pal);
    if (c.truncated) { /* a cut parameter would draw a wrong chart: draw none */
        fprintf(stderr, "bench: chart %s skipped: its gnuplot parameters (paths and labels) are longer "
                "than %d bytes (the limit) or a path holds a control character\n", j->stem, CHART_PARAMS_MAX);
        return -1;
    }
    if (!(j->params = strdup(c.params))) {
        fprintf(stderr, "bench: chart %s: %s\n", j->stem, strerror(errno));
        return -1;
    }
    return 1;
}

/* Moves stem+ext from the temporary folder into plots/ by renameat: never
 * over a link or anything but a regular file. 0, or -1 (reason on stderr). */
static int install(const render_ctx *r, const char *stem, const char *ext)
{
    char name[256];
    struct stat st;
    snprintf(name, sizeof name, "%s%s", stem, ext);
    if (fstatat(r->pfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode)) {
        fprintf(stderr, "bench: chart %s: '%s/plots/%s' is %s: not replaced\n", stem, r->dir, name,
                S_ISLNK(st.st_mode) ? "a link" : "not a regular file");
        return -1;
    }
    if (renameat(r->tfd, name, r->pfd, name) != 0) {
        fprintf(stderr, "bench: chart %s: cannot move it into '%s/plots': %s\n", stem, r->dir,
                strerror(errno));
        return -1;
    }
    return 0;
}

/* Draws a planned chart in the temporary folder and, when gnuplot made it
 * whole, moves it into plots/. 0 drawn; -1 failed or interrupted (the
 * earlier chart kept; reason on stderr unless a signal stopped it). */
static int draw_one(render_ctx *r, const chart_job *j)
{
    char log[256], script[4400], why[512];
    snprintf(log, sizeof log, "%s.log", j->stem);
    snprintf(script, sizeof script, "%s/%s.gp", r->sdir, j->k->name);
    int rc = run_gnuplot(r, j->params, script, log);
    int ok = rc == 0 && complete_chart(r->tfd, j->stem);
    if (!ok && interrupt_stops_report()) return -1; /* abandoned: said once by the caller */
    if (!ok && (rc == 128 + SIGXFSZ || no_room(r->tfd))) {
        int e = rc == 128 + SIGXFSZ ? EFBIG : ENOSPC;
        fprintf(stderr, "bench: chart %s: gnuplot could not write it in '%s/plots': %s; the earlier "
                        "chart is kept and no further chart is drawn\n", j->stem, r->dir, strerror(e));
        note_no_room(r, e);
        return -1;
    }
    if (!ok) {
        first_line(r->tfd, log, why, sizeof why);
        fprintf(stderr, "bench: chart %s failed (gnuplot exit %d)%s%s; the earlier chart is kept\n",
                j->stem, rc, why[0] ? ": " : "", why);
        return -1;
    }
    if (install(r, j->stem, ".png") || install(r, j->stem, ".svg")) return -1;
    r->out->drawn++;
    return 0;
}

/* Empties and removes the temporary folder; with BENCH_KEEP_PLOT_DATA the
 * data files move into plots/ first. */
static void remove_temporaries(render_ctx *r)
{
    int fd = dup(r->tfd);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (d) {
        struct dirent *e;
        int keep = getenv(HOOK_KEEP_PLOT_DATA) != NULL;
        size_t l;
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
                !(keep && (l = strlen(e->d_name)) > 4 && strcmp(e->d_name + l - 4, ".dat") == 0 &&
                  renameat(r->tfd, e->d_name, r->pfd, e->d_name) == 0))
                unlinkat(r->tfd, e->d_name, 0);
        closedir(d);
    } else if (fd >= 0) {
        close(fd);
    }
    close(r->tfd);
    if (unlinkat(r->pfd, r->tname, AT_REMOVEDIR) != 0)
        fprintf(stderr, "bench: cannot remove '%s/plots/%s': %s\n", r->dir, r->tname, strerror(errno));
}

/* Opens <run>/plots (made when missing) without following a link, and
 * makes the temporary folder in it. 0, or -1 with the reason on stderr. */
static int open_folders(render_ctx *r)
{
    int made = -1;
    r->pfd = r->tfd = -1;
    if (mkdirat(r->dirfd, "plots", 0755) != 0 && errno != EEXIST) goto fail;
    r->pfd = openat(r->dirfd, "plots", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (r->pfd < 0) {
        if (errno == ELOOP || errno == ENOTDIR) errno = ENOTDIR; /* a link: never followed */
        goto fail;
    }
    static unsigned serial;
    for (int tries = 0; made != 0 && tries < 100; tries++) {
        snprintf(r->tname, sizeof r->tname, ".bench-tmp.%ld.%u", (long)getpid(), serial++);
        made = mkdirat(r->pfd, r->tname, 0700);
        if (made != 0 && errno != EEXIST) goto fail;
    }
    r->tfd = made == 0 ? openat(r->pfd, r->tname, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
    if (r->tfd < 0) goto fail;
    /* gnuplot reaches the folder through the descriptor it inherits: a
     * folder swapped for a link meanwhile is never written through */
    if (access("/proc/self/fd", X_OK) == 0) snprintf(r->tpath, sizeof r->tpath, "/proc/self/fd/%d", r->tfd);
    else snprintf(r->tpath, sizeof r->tpath, "%s/plots/%s", r->dir, r->tname);
    return 0;
fail:
    fprintf(stderr, "bench: charts not drawn: '%s/plots'%s: %s\n", r->dir,
            r->pfd < 0 && errno == ENOTDIR ? " is a link or not a folder (never written through)" : "",
            strerror(errno));
    if (r->tfd < 0 && r->pfd >= 0 && made == 0) unlinkat(r->pfd, r->tname, AT_REMOVEDIR);
    if (r->pfd >= 0) close(r->pfd);
    return -1;
}

/* Charts of kinds that have no data now go (they were an earlier run's). */
static void remove_stale(const render_ctx *r, const chart_job *jobs, int n)
{
    for (int i = 0; i < n; i++) {
        if (jobs[i].state != 0) continue;
        char name[256];
        snprintf(name, sizeof name, "%s.png", jobs[i].stem);
        unlinkat(r->pfd, name, 0);
        snprintf(name, sizeof name, "%s.svg", jobs[i].stem);
        unlinkat(r->pfd, name, 0);
    }
}

int plots_render(const rundata *rd, int dirfd, const char *dir, plots_outcome *out)
{
    render_ctx r;
    plots_outcome none;
    chart_job *jobs = NULL;
    int rc = 0, njobs = 0;
    memset(&r, 0, sizeof r);
    r.out = out ? out : &none;
    memset(r.out, 0, sizeof *r.out);
    r.rd = rd;
    r.dir = dir;
    r.dirfd = dirfd;
    if (plots_find_gnuplot(r.gnuplot, sizeof r.gnuplot)) {
        fprintf(stderr, "bench: gnuplot not found: charts skipped (apt-get install gnuplot-nox)\n");
        return 0;
    }
    int found = scripts_dir(r.sdir, sizeof r.sdir);
    if (found == -2) return -1;
    if (found) {
        fprintf(stderr, "bench: chart scripts not found (set BENCH_PLOTS_DIR to the plots/ folder): "
                        "charts skipped\n");
        return -1;
    }
    if (!rd_chartable(rd)) { /* charts read device_kind, flops and bytes, never names */
        fprintf(stderr, "bench: %s predates the device_kind/flops columns: charts skipped "
                        "(re-run bench for charts)\n", rd->csv_path);
        return 0;
    }
    const char *suites[64];
    int ns = rd_suites(rd, suites, 64);
    if (!(jobs = calloc((size_t)(ns + ROOF_NDEV) * NKINDS, sizeof *jobs))) {
        fprintf(stderr, "bench: charts not drawn: %s\n", strerror(errno));
        return -1;
    }
    if (open_folders(&r)) {
        free(jobs);
        return -1;
    }
    /* first every chart's data (what is to draw, M), then gnuplot for each */
    /* per suite, then the per-device kinds (rows: their suite -1) */
    for (int s = 0; s < ns + ROOF_NDEV && !r.out->nospace && !interrupt_stops_report(); s++)
        for (int k = 0; k < NKINDS && !r.out->nospace; k++) {
            if (KINDS[k].per_device != (s >= ns) || KINDS[k].merged != merge_is(rd)) continue;
            chart_job *j = &jobs[njobs++];
            j->k = &KINDS[k];
            j->suite = s < ns ? suites[s] : NULL;
            j->device = s < ns ? -1 : s - ns;
            snprintf(j->stem, sizeof j->stem, "%s-%s", KINDS[k].name,
                     j->suite ? j->suite : roof_dev_name(j->device));
            j->state = plan_one(&r, j);
            if (j->state < 0) rc = -1;
            r.out->planned += j->state > 0;
        }
    for (int i = 0; i < njobs && !r.out->nospace && !interrupt_stops_report(); i++)
        if (jobs[i].state > 0 && draw_one(&r, &jobs[i])) rc = -1;
    r.out->signal = interrupt_stops_report();
    if (!r.out->signal && !r.out->nospace) remove_stale(&r, jobs, njobs);
    remove_temporaries(&r);
    close(r.pfd);
    unlinkat(dirfd, "plots", AT_REMOVEDIR); /* only when no chart had data: no empty folder left */
    for (int i = 0; i < njobs; i++) free(jobs[i].params);
    free(jobs);
    return r.out->nospace || r.out->signal ? -1 : rc;
}
