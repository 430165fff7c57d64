/* harness/roofs.c - a run's roofs: the verdict of a row against them, and
 * their context lines, written and read back (roofs.h). */
#include "roofs.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const DEV_NAMES[ROOF_NDEV] = {"cpu", "gpu"};

const char *roof_dev_name(int d) { return d >= 0 && d < ROOF_NDEV ? DEV_NAMES[d] : "?"; }

static void num_init(roof_num *n)
{
    n->v = NAN;
    n->how[0] = '\0';
}

void roofs_init(roofs *rf)
{
    memset(rf, 0, sizeof *rf);
    rf->probe_s = NAN;
    for (int d = 0; d < ROOF_NDEV; d++) {
        roof_device *v = &rf->dev[d];
        num_init(&v->bw);
        num_init(&v->h2d);
        num_init(&v->d2h);
        num_init(&v->launch);
        num_init(&v->peak_bw);
        for (int t = 0; t < DTYPE_COUNT; t++) {
            num_init(&v->compute[t]);
            num_init(&v->peak[t]);
        }
    }
}

int roof_dev_of(const char *device_kind)
{
    for (int d = 0; d < ROOF_NDEV; d++)
        if (strcmp(device_kind, DEV_NAMES[d]) == 0) return d;
    return -1;
}

static int known(const roof_num *n) { return isfinite(n->v) && n->v > 0; }

static void note_add(result_row *row, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note_add(result_row *row, const char *fmt, ...)
{
    size_t u = strlen(row->note);
    if (u + 3 >= sizeof row->note) return;
    if (u) u += (size_t)snprintf(row->note + u, sizeof row->note - u, "; ");
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(row->note + u, sizeof row->note - u, fmt, ap);
    va_end(ap);
}

void roof_how_varied(roof_num *n, double fastest_ms, double median_ms, double v_median,
                     const char *unit)
{
    if (!(fastest_ms > 0) || !(median_ms >= ROOF_VARY_FACTOR * fastest_ms)) return;
    size_t h = strlen(n->how);
    if (h < sizeof n->how)
        snprintf(n->how + h, sizeof n->how - h, "; " ROOF_VARIED_TAG " %.2fx the fastest "
                 "(%.4g %s): the machine's speed changed while it ran", median_ms / fastest_ms,
                 v_median, unit);
}

double roof_varied(const roof_num *n)
{
    const char *t = n ? strstr(n->how, ROOF_VARIED_TAG) : NULL;
    double f = 0;
    if (!t || sscanf(t + strlen(ROOF_VARIED_TAG), " %lfx", &f) != 1 || !(f >= 1)) return 0;
    return f;
}

/* The reason of a low verdict, first match: the reference loop, the
 * backend's caveat on this machine, a repetition too short to reach a roof,
 * a measurement that stayed disturbed, a bandwidth- or transfer-bound row, a
 * whole step, a peer that runs the same problem ROOF_PEER_FACTOR times
 * faster, a small problem, repetitions that varied (the row's own, or the
 * roof probe's: from, the roof it ran against), otherwise the numbers. */
static void low_reason(const roof_case *c, result_row *row, double roof, const char *unit,
                       const roof_num *from)
{
    const double vary_row = row->min_ms > 0 ? row->median_ms / row->min_ms : 0;
    const double vary_roof = roof_varied(from);
    if (c && c->reference)
        note_add(row, "low: the reference loop (plain loops, not tuned)");
    else if (c && c->caveat && *c->caveat)
        note_add(row, "low: %s", c->caveat);
    else if (row->median_ms < ROOF_OVERHEAD_MS)
        note_add(row, "low: %.3g us a repetition, overhead-bound", row->median_ms * 1e3);
    else if (row->disturbed)
        note_add(row, "low: measured while disturbed (something else ran, as above): not this "
                      "backend's speed");
    else if (strcmp(row->bound, "bandwidth") == 0)
        note_add(row, "low: bandwidth-bound: against the bandwidth roof (%.4g GB/s)", roof);
    else if (strcmp(row->bound, "transfer") == 0)
        note_add(row, "low: transfer-bound: against the pinned copy roofs (%.4g GB/s)", roof);
    else if (c && c->whole_step)
        note_add(row, "low: a whole step: %.2g%% of the compute roof (MFU; small layers and "
                      "element-wise ops run far below a GEMM)", row->pct_roof);
    else if (c && c->peer && c->peer_ms > 0 && row->median_ms >= ROOF_PEER_FACTOR * c->peer_ms)
        note_add(row, "low: %s runs this problem %.2gx faster here (%.3g ms): this backend's path "
                      "for the shape is slow, not the machine", c->peer, row->median_ms / c->peer_ms,
                 c->peer_ms);
    else if (strcmp(row->bound, "compute") == 0 && row->flops > 0 &&
             row->flops / (roof * 1e6) < ROOF_SMALL_MS)
        note_add(row, "low: a small problem: %.3g us a repetition at the roof, where fixed costs "
                      "(threads, packing, calls) weigh", row->flops / (roof * 1e6) * 1e3);
    else if (vary_row >= ROOF_VARY_FACTOR)
        note_add(row, "low: its repetitions varied %.2fx (the fastest at %.2g%% of the roof): the "
                      "machine's speed changed while it ran (a shared core, a moving clock)",
                 vary_row, row->pct_roof * vary_row);
    else if (vary_roof >= ROOF_VARY_FACTOR)
        note_add(row, "low: the roof's probe varied %.2fx on this machine (its fastest repetition "
                      "is the roof): against the probe's median this row reaches %.2g%%",
                 vary_roof, row->pct_roof * vary_roof);
    else
        note_add(row, "low: %.2g%% of the %s roof (%.4g %s)", row->pct_roof, row->bound, roof,
                 unit);
}

/* The reason of an above-roof verdict: a roof measured while disturbed; a
 * working set the last-level cache holds (the bandwidth roof is DRAM's); a compute-bound row still within the
 * paper peak (the probe's GEMM stays below what this path reaches);
 * otherwise a faster run than the roof probe's (its value stays the roof). */
static void above_reason(const roof_case *c, result_row *row, double roof, const char *unit,
                         const roof_num *peak, int disturbed)
{
    double ws = row->io_bytes;
    if (disturbed)
        note_add(row, "above-roof: the roof (%.4g %s) was " ROOF_DISTURBED_TAG " and reads low "
                      "(its context line says what ran)", roof, unit);
    else if (strcmp(row->bound, "bandwidth") == 0 && c && c->llc_bytes > 0 && ws > 0 &&
        ws <= 2.0 * c->llc_bytes)
        note_add(row, "above-roof: working set %.3g MiB within the cache (LLC %.3g MiB): "
                      "faster than the DRAM roof", ws / 1048576.0, c->llc_bytes / 1048576.0);
    else if (strcmp(row->bound, "compute") == 0 && peak && known(peak) && row->gflops <= peak->v)
        note_add(row, "above-roof: faster than the run's compute roof (%.4g %s) yet within the "
                      "paper peak (%.4g %s): this path reaches more than the probe's GEMM", roof,
                 unit, peak->v, unit);
    else
        note_add(row, "above-roof: faster than the run's %s roof (%.4g %s): the roof probe "
                      "measured less", row->bound, roof, unit);
}

static void copy_verdict(const roof_device *v, const roof_case *c, double io, result_row *row);
static void judge(const roof_case *c, result_row *row, double roof, const char *unit,
                  const roof_num *peak, const roof_num *from);

void roof_verdict(const roofs *rf, const roof_case *c, result_row *row)
{
    row->intensity = row->pct_roof = NAN;
    row->verdict[0] = row->bound[0] = '\0';
    if (row->emulated) { /* a timed emulated row says why it has none */
        if (strcmp(row->check, "pass") == 0) note_add(row, "emulated: no roof");
        return;
    }
    if (strcmp(row->check, "pass") != 0 || !(row->median_ms > 0) || !rf || !rf->measured) return;
    int d = roof_dev_of(row->device_kind);
    if (d < 0 || !rf->dev[d].present) return;
    const roof_device *v = &rf->dev[d];
    int dt = dtype_parse(row->dtype);
    double flops = row->flops > 0 ? row->flops : 0, io = row->io_bytes > 0 ? row->io_bytes : 0;
    if (flops <= 0 && io <= 0) return;
    if (c && c->copy != ROOF_COPY_NONE) {
        copy_verdict(v, c, io, row);
        return;
    }
    if (flops > 0 && io > 0) row->intensity = flops / io;
    const roof_num *comp = dt >= 0 ? &v->compute[dt] : NULL;
    int whole = c && c->whole_step && flops > 0;
    /* the time the roofs allow, each term in s */
    double t_comp = 0, t_bw = 0, t_h = 0, t_d = 0;
    if (flops > 0) {
        if (!comp || !known(comp)) return;   /* no compute roof for the dtype */
        t_comp = flops / (comp->v * 1e9);
    }
    if (io > 0 && !whole) {
        if (known(&v->bw)) t_bw = io / (v->bw.v * 1e9);
        else if (flops <= 0) return;
    }
    if (c && c->copies && !whole) {
        if (c->h2d_bytes > 0) {
            if (!known(&v->h2d)) return;
            t_h = c->h2d_bytes / (v->h2d.v * 1e9);
        }
        if (c->d2h_bytes > 0) {
            if (!known(&v->d2h)) return;
            t_d = c->d2h_bytes / (v->d2h.v * 1e9);
        }
    }
    /* overlapping streams: copies in, copies out and the kernels each run
     * on their own engine, the slowest sets the pace; one stream: in turn */
    double t_core = fmax(t_comp, t_bw), t_x = c && c->overlap ? fmax(t_h, t_d) : t_h + t_d;
    double t_att = c && c->overlap ? fmax(t_core, t_x) : t_core + t_x;
    if (!(t_att > 0)) return;
    const char *bound = t_x > t_core ? "transfer" : t_comp >= t_bw ? "compute" : "bandwidth";
    snprintf(row->bound, sizeof row->bound, "%s", bound);
    row->pct_roof = 100.0 * t_att / (row->median_ms / 1e3);
    /* the transfer roof: the copies' bytes over their time at the copy roofs */
    double roof = strcmp(bound, "compute") == 0 ? comp->v : strcmp(bound, "bandwidth") == 0
                  ? v->bw.v : (c->h2d_bytes + c->d2h_bytes) / (t_h + t_d) / 1e9;
    const int compute = strcmp(bound, "compute") == 0;
    judge(c, row, roof, compute ? ROOF_UNIT_COMPUTE : ROOF_UNIT_BW, compute ? &v->peak[dt] : NULL,
          compute ? comp : strcmp(bound, "bandwidth") == 0 ? &v->bw : NULL);
}

double roof_copy_traffic(roof_copy way, double bytes)
{
    return way == ROOF_COPY_D2D ? 2 * bytes : bytes;
}

/* A row that is one copy of io bytes (roof_case.copy) against its roof. */
static void copy_verdict(const roof_device *v, const roof_case *c, double io, result_row *row)
{
    const roof_copy way = c->copy;
    const roof_num *r = way == ROOF_COPY_H2D ? &v->h2d : way == ROOF_COPY_D2H ? &v->d2h : &v->bw;
    if (!(io > 0) || !known(r)) return;
    double moved = roof_copy_traffic(way, io);
    snprintf(row->bound, sizeof row->bound, "%s", way == ROOF_COPY_D2D ? "bandwidth" : "transfer");
    row->pct_roof = 100.0 * moved / (r->v * 1e9) / (row->median_ms / 1e3);
    judge(c, row, r->v, ROOF_UNIT_BW, NULL, r);
}

/* The verdict of row's pct_roof, and the reason of a low or above-roof one
 * (peak: the paper peak of a compute-bound row's dtype, or NULL; from: the
 * measured roof it ran against, or NULL). */
static void judge(const roof_case *c, result_row *row, double roof, const char *unit,
                  const roof_num *peak, const roof_num *from)
{
    if (row->pct_roof > ROOF_ABOVE_PCT) {
        snprintf(row->verdict, sizeof row->verdict, "above-roof");
        above_reason(c, row, roof, unit, peak, from && strstr(from->how, ROOF_DISTURBED_TAG));
    } else if (row->pct_roof >= ROOF_AT_PCT) {
        snprintf(row->verdict, sizeof row->verdict, "at-roof");
    } else if (row->pct_roof < ROOF_LOW_PCT) {
        snprintf(row->verdict, sizeof row->verdict, "low");
        low_reason(c, row, roof, unit, from);
    } else {
        snprintf(row->verdict, sizeof row->verdict, "ok");
    }
}

/* ---- context lines -------------------------------------------------------- */

static void line_num(char (*lines)[512], int *n, int max, const char *key, const roof_num *v,
                     const char *unit)
{
    if (!known(v) || *n >= max) return;
    snprintf(lines[(*n)++], 512, "%s: %.4g %s (%s)", key, v->v, unit, v->how);
}

void roofs_context_lines(const roofs *rf, char (*lines)[512], int *n, int max)
{
    if (*n >= max) return;
    if (!rf->measured) {
        snprintf(lines[(*n)++], 512, "roofs: not measured (%s)", rf->why[0] ? rf->why : "none");
        return;
    }
    snprintf(lines[(*n)++], 512, "roofs: measured in %.2f s", rf->probe_s);
    char key[64];
    for (int d = 0; d < ROOF_NDEV; d++) {
        const roof_device *v = &rf->dev[d];
        if (!v->present) continue;
        snprintf(key, sizeof key, "roof-%s-bandwidth", DEV_NAMES[d]);
        line_num(lines, n, max, key, &v->bw, ROOF_UNIT_BW);
        for (int t = 0; t < DTYPE_COUNT; t++) {
            snprintf(key, sizeof key, "roof-%s-compute-%s", DEV_NAMES[d], dtype_name((dtype_t)t));
            line_num(lines, n, max, key, &v->compute[t], ROOF_UNIT_COMPUTE);
        }
        snprintf(key, sizeof key, "roof-%s-h2d", DEV_NAMES[d]);
        line_num(lines, n, max, key, &v->h2d, ROOF_UNIT_BW);
        snprintf(key, sizeof key, "roof-%s-d2h", DEV_NAMES[d]);
        line_num(lines, n, max, key, &v->d2h, ROOF_UNIT_BW);
        snprintf(key, sizeof key, "roof-%s-launch", DEV_NAMES[d]);
        line_num(lines, n, max, key, &v->launch, ROOF_UNIT_LATENCY);
        snprintf(key, sizeof key, "roof-%s-peak-bandwidth", DEV_NAMES[d]);
        line_num(lines, n, max, key, &v->peak_bw, ROOF_UNIT_BW);
        for (int t = 0; t < DTYPE_COUNT; t++) {
            snprintf(key, sizeof key, "roof-%s-peak-%s", DEV_NAMES[d], dtype_name((dtype_t)t));
            line_num(lines, n, max, key, &v->peak[t], ROOF_UNIT_COMPUTE);
        }
    }
}

/* The roof_num a key names (after "roof-<dev>-"), or NULL. */
static roof_num *num_of(roof_device *v, const char *what)
{
    if (strcmp(what, "bandwidth") == 0) return &v->bw;
    if (strcmp(what, "h2d") == 0) return &v->h2d;
    if (strcmp(what, "d2h") == 0) return &v->d2h;
    if (strcmp(what, "launch") == 0) return &v->launch;
    if (strcmp(what, "peak-bandwidth") == 0) return &v->peak_bw;
    if (strncmp(what, "compute-", 8) == 0 && dtype_parse(what + 8) >= 0)
        return &v->compute[dtype_parse(what + 8)];
    if (strncmp(what, "peak-", 5) == 0 && dtype_parse(what + 5) >= 0)
        return &v->peak[dtype_parse(what + 5)];
    return NULL;
}

int roofs_parse_line(roofs *rf, const char *line)
{
    if (strncmp(line, "roofs: ", 7) == 0) {
        double s;
        if (sscanf(line + 7, "measured in %lf s", &s) == 1) {
            rf->measured = 1;
            rf->probe_s = s;
        } else {
            rf->measured = 0;
            const char *o = strchr(line, '('), *e = strrchr(line, ')');
            if (o && e && e > o)
                snprintf(rf->why, sizeof rf->why, "%.*s", (int)(e - o - 1), o + 1);
        }
        return 1;
    }
    if (strncmp(line, "roof-", 5) != 0) return 0;
    const char *colon = strchr(line, ':');
    if (!colon) return 0;
    char key[64];
    snprintf(key, sizeof key, "%.*s", (int)(colon - line - 5), line + 5);
    char *dash = strchr(key, '-');
    if (!dash) return 0;
    *dash = '\0';
    int d = roof_dev_of(key);
    if (d < 0) return 0;
    roof_num *num = num_of(&rf->dev[d], dash + 1);
    if (!num) return 0;
    char *end;
    double v = strtod(colon + 1, &end);
    if (end == colon + 1) return 0;
    num->v = v;
    const char *o = strchr(end, '('), *e = strrchr(end, ')');
    if (o && e && e > o) snprintf(num->how, sizeof num->how, "%.*s", (int)(e - o - 1), o + 1);
    rf->dev[d].present = 1;
    return 1;
}
