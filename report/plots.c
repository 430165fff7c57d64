/* report/plots.c - deciding which charts a run has data for and rendering
 * them: each chart's rows go to a plain data file (chart_data.c), gnuplot runs
 * the chart's script in plots/ on it (fork + exec, parameters with -e), its
 * exit status and output files are checked, the data file is removed. */
#define _POSIX_C_SOURCE 200809L
#include "plots.h"
#include "chart_data.h"

#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
} chart_kind;

#define NO_TIMING "no row ran on real hardware and passed (emulated timings mean nothing)"

/* Each kind's script is plots/<name>.gp. */
static const chart_kind KINDS[] = {
    {"throughput", "Throughput vs work per repetition", chart_throughput, -1, NULL},
    {"speedup", "Speedup vs the baseline", chart_speedup, -1, NULL},
    {"split", "End-to-end time split (H2D / compute / D2H)", chart_split, -1, NULL},
    {"overlap", "Stream overlap efficiency", chart_overlap, -1, NULL},
    {"bandwidth", "Bandwidth vs bytes moved", chart_bandwidth, -1, NULL},
    {"error", "Numerical error vs tolerance", chart_error, -1, NULL},
    {"layers", "Throughput per layer and direction", chart_case_throughput, -1, NULL},
    {"layer-speedup", "Speedup per layer, backend and mode", chart_case_speedup, -1, NULL},
    {"samples", "Samples/s vs batch size", chart_samples, COL_SAMPLES_PER_S, NO_TIMING},
    {"batch-speedup", "Speedup vs batch size per GPU mode", chart_batch_speedup, COL_SAMPLES_PER_S,
     "no GPU row ran on real hardware (emulated rows carry no speedup)"},
    {"phases", "Time per phase of a step", chart_phases, COL_SAMPLES_PER_S, NO_TIMING},
    {"loss", "Loss per step", chart_loss, COL_SAMPLES_PER_S, "no checked row carries a loss trace"},
};
enum { NKINDS = (int)(sizeof KINDS / sizeof KINDS[0]) };

int plots_nkinds(void) { return NKINDS; }
const char *plots_kind_name(int k) { return KINDS[k].name; }
const char *plots_kind_title(int k) { return KINDS[k].title; }

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
        snprintf(out, cap, "%.*s/gnuplot", (int)(n ? n : 1), n ? path : ".");
        if (access(out, X_OK) == 0) return 0;
        path += n + (path[n] == ':');
    }
    return -1;
}

/* The folder holding the chart scripts: $BENCH_PLOTS_DIR, else the source
 * tree's plots/, else the installed share/bench/plots. 0 or -1. */
static int scripts_dir(char *out, size_t cap)
{
    const char *cand[] = {getenv("BENCH_PLOTS_DIR"), BENCH_PLOTS_DIR_SRC, BENCH_PLOTS_DIR_INSTALLED};
    for (int i = 0; i < 3; i++) {
        if (!cand[i] || !*cand[i]) continue;
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

/* First line of a log file that says something, for the one-line failure. */
static void first_line(const char *path, char *out, size_t cap)
{
    out[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f) return;
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

/* Whether the file ends with tail, trailing white space aside (a chart
 * gnuplot finished writing: gnuplot exits 0 even when a full disk cut its
 * output short). */
static int ends_with(const char *path, const void *tail, size_t n)
{
    unsigned char buf[64];
    size_t got = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    if (fseek(f, 0, SEEK_END) == 0) {
        long size = ftell(f);
        long from = size > (long)sizeof buf ? size - (long)sizeof buf : 0;
        if (size > 0 && fseek(f, from, SEEK_SET) == 0) got = fread(buf, 1, (size_t)(size - from), f);
    }
    fclose(f);
    while (got > n && (buf[got - 1] == '\n' || buf[got - 1] == ' ' || buf[got - 1] == '\r')) got--;
    return got >= n && memcmp(buf + got - n, tail, n) == 0;
}

/* A PNG ends with its IEND chunk (and its CRC). */
static int complete_png(const char *path)
{
    static const unsigned char IEND[] = {0, 0, 0, 0, 'I', 'E', 'N', 'D', 0xAE, 0x42, 0x60, 0x82};
    return ends_with(path, IEND, sizeof IEND);
}

/* An SVG ends with its closing tag. */
static int complete_svg(const char *path) { return ends_with(path, "</svg>", 6); }

/* Runs gnuplot -e params script with its output in log. Exit status, or -1. */
static int run_gnuplot(const char *gnuplot, const char *params, const char *script, const char *log)
{
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        /* bench ignores SIGXFSZ (a size limit is a write error it reports);
         * gnuplot does not check its writes, so let the limit end it */
        signal(SIGXFSZ, SIG_DFL);
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0) {
            dup2(fd, STDOUT_FILENO);
            dup2(fd, STDERR_FILENO);
            close(fd);
        }
        execl(gnuplot, "gnuplot", "-e", params, script, (char *)NULL);
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

/* "CPU: model · GPU: name" for the devices a chart shows. */
static void device_line(const rundata *rd, const chart_ctx *c, char *out, size_t cap)
{
    const char *cpu = rd_context(rd, "cpu");
    snprintf(out, cap, "%s%s%s%s%s", c->has_cpu && cpu ? "CPU: " : "", c->has_cpu && cpu ? cpu : "",
             c->has_cpu && cpu && c->gpu[0] ? "  ·  " : "", c->gpu[0] ? "GPU: " : "", c->gpu);
}

/* Builds and renders one chart; 0 rendered or no data (stale files removed), -1 failed. */
static int render_one(const rundata *rd, const chart_kind *k, const char *suite, const char *pdir,
                      const char *sdir, const char *gnuplot)
{
    char stem[4400], dat[4500], png[4500], svg[4500], log[4500], script[4400];
    snprintf(stem, sizeof stem, "%s/%s-%s", pdir, k->name, suite);
    snprintf(dat, sizeof dat, "%s.dat", stem);
    snprintf(png, sizeof png, "%s.png", stem);
    snprintf(svg, sizeof svg, "%s.svg", stem);
    snprintf(log, sizeof log, "%s.log", stem);
    snprintf(script, sizeof script, "%s/%s.gp", sdir, k->name);
    unlink(png);
    unlink(svg);
    chart_ctx c;
    memset(&c, 0, sizeof c);
    c.rd = rd;
    c.suite = suite;
    c.dat = fopen(dat, "w");
    if (!c.dat) {
        fprintf(stderr, "bench: cannot write '%s': %s\n", dat, strerror(errno));
        return -1;
    }
    int blocks = k->build(&c);
    int bad = ferror(c.dat);
    if (fclose(c.dat) != 0 || bad) {
        fprintf(stderr, "bench: cannot write '%s'\n", dat);
        unlink(dat);
        return -1;
    }
    if (blocks == 0) {
        unlink(dat);
        return 0;
    }
    char dev[512], title[512];
    device_line(rd, &c, dev, sizeof dev);
    snprintf(title, sizeof title, "%s: %s%s%s", suite, k->title, c.subtitle[0] ? ", " : "", c.subtitle);
    chart_param_str(&c, "plotdir", sdir);
    chart_param_str(&c, "data", dat);
    chart_param_str(&c, "out", stem);
    chart_param_str(&c, "suite", suite);
    chart_param_str(&c, "title", title);
    chart_param_str(&c, "devline", dev);
    chart_param_num(&c, "n", blocks);
    if (c.truncated) { /* a cut parameter would draw a wrong chart: draw none */
        fprintf(stderr, "bench: chart %s-%s skipped: its labels or paths are too long\n", k->name,
                suite);
        unlink(dat);
        return -1;
    }
    int rc = run_gnuplot(gnuplot, c.params, script, log);
    int ok = rc == 0 && complete_png(png) && complete_svg(svg);
    if (!ok) {
        char why[512];
        first_line(log, why, sizeof why);
        fprintf(stderr, "bench: chart %s-%s failed (gnuplot exit %d)%s%s\n", k->name, suite, rc,
                why[0] ? ": " : "", why);
        unlink(png);
        unlink(svg);
    }
    unlink(log);
    if (!getenv("BENCH_KEEP_PLOT_DATA")) unlink(dat);
    return ok ? 0 : -1;
}

int plots_render(const rundata *rd, const char *dir)
{
    char gnuplot[4096], sdir[4096], pdir[4200];
    if (plots_find_gnuplot(gnuplot, sizeof gnuplot)) {
        fprintf(stderr, "bench: gnuplot not found: charts skipped (apt-get install gnuplot-nox)\n");
        return 0;
    }
    if (scripts_dir(sdir, sizeof sdir)) {
        fprintf(stderr, "bench: chart scripts not found (set BENCH_PLOTS_DIR to the plots/ folder): "
                        "charts skipped\n");
        return -1;
    }
    if (!rd_chartable(rd)) { /* charts read device_kind, flops and bytes, never names */
        fprintf(stderr, "bench: %s predates the device_kind/flops columns: charts skipped "
                        "(re-run bench for charts)\n", rd->csv_path);
        return 0;
    }
    snprintf(pdir, sizeof pdir, "%s/plots", dir);
    if (mkdir(pdir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "bench: cannot create '%s': %s\n", pdir, strerror(errno));
        return -1;
    }
    const char *suites[64];
    int ns = rd_suites(rd, suites, 64), rc = 0;
    for (int s = 0; s < ns; s++)
        for (int k = 0; k < NKINDS; k++)
            if (render_one(rd, &KINDS[k], suites[s], pdir, sdir, gnuplot)) rc = -1;
    rmdir(pdir); /* only succeeds when no chart had data: no empty folder left */
    return rc;
}
